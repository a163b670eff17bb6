#!/usr/bin/env python3
"""Plots bench_scaling's CSV (bench/scripts/run_scaling.sh): MatMult time and speedup over one GPU against the GPU count, for
each matrix type and problem (grid, bs), with the ideal line.

usage: python3 bench/plots/plot_scaling.py scaling.csv [out.png]"""
from collections import defaultdict

from plot_common import command_line, read_rows, save


def main():
    plt, path, out = command_line('plot_scaling.py', __doc__)
    rows = read_rows(path)
    series = defaultdict(dict)  # (type, grid, bs) -> {ranks: seconds}
    for r in rows:
        series[(r['mat_type'], r['grid'], r['bs'])][int(r['ranks'])] = float(r['time_s'])
    fig, (ax_t, ax_s) = plt.subplots(1, 2, figsize=(11, 4.2))
    top = 1
    for (typ, grid, bs), pts in sorted(series.items()):
        # a configuration 'type-engine' (baijksparse-nccl, -sf) has no one-rank row of its own: its type's is the baseline
        one = pts.get(1, series.get((typ.split('-')[0], grid, bs), {}).get(1))
        ranks = sorted(set(pts) | ({1} if one else set()))
        label = f'{typ}, {grid}^3 cells, bs {bs}'
        ax_t.plot(sorted(pts), [1e6 * pts[n] for n in sorted(pts)], 'o-', label=label)
        if one:
            ax_s.plot(ranks, [one / pts.get(n, one) if n in pts else 1.0 for n in ranks], 'o-', label=label)
        top = max(top, ranks[-1])
    ax_s.plot([1, top], [1, top], 'k--', label='ideal')
    ax_t.set_xlabel('GPUs (one MPI rank each)')
    ax_t.set_ylabel('MatMult time (us)')
    ax_t.set_yscale('log')
    ax_s.set_xlabel('GPUs (one MPI rank each)')
    ax_s.set_ylabel('speedup over one GPU')
    for ax in (ax_t, ax_s):
        ax.set_xticks(sorted({n for pts in series.values() for n in pts}))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, out, f'MatMult strong scaling, {rows[0]["device"]}')


if __name__ == '__main__':
    main()
