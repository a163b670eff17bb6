#!/usr/bin/env python3
"""Plots bench/scripts/run_dropin.sh's CSV (after bench/plots/dropin_summary.py has filled its ratio columns): per case,
rank count and PC, the main-stage time of baijksparse over aij(cusparse)'s, as bars (a cross at 0 where baijksparse
failed and aij ran), with a line at 1.2, the promise of the drop-in sweep.

usage: python3 bench/plots/plot_dropin.py dropin.csv [out.png]"""
from plot_common import command_line, read_rows, save

BOUND = 1.2


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main():
    plt, path, out = command_line('plot_dropin.py', __doc__)
    rows = read_rows(path)
    rows = [r for r in rows if r.get('median', 'yes') in ('yes', None)] or rows  # the run standing for each configuration
    nps = list(dict.fromkeys(r['np'] for r in rows))
    aij_ok = {(r['case'], r['np']) for r in rows if r['mat_type'] != 'baijksparse' and r['status'] == 'ok'}
    fig, axes = plt.subplots(len(nps), 1, figsize=(max(8.0, 0.42 * len(rows) / len(nps) + 2), 3.6 * len(nps)),
                             squeeze=False)
    for ax, np in zip(axes[:, 0], nps):
        bs = [r for r in rows if r['np'] == np and r['mat_type'] == 'baijksparse']
        labels = [f"{r['case']}\n{r['pc']}" for r in bs]
        heights = [num(r['main_ratio']) or 0.0 for r in bs]
        colours = ['tab:orange' if r['pc'] == 'vbjacobi' else 'tab:blue' for r in bs]
        colours = [c if h <= BOUND else 'tab:red' for c, h in zip(colours, heights)]
        x = range(len(bs))
        ax.bar(x, heights, color=colours)
        for i, r in enumerate(bs):
            if r['status'] != 'ok' and (r['case'], np) in aij_ok:
                ax.plot(i, 0.05, 'kx', markersize=9)
        ax.axhline(BOUND, color='k', linestyle='--', linewidth=1)
        ax.axhline(1.0, color='0.6', linewidth=0.8)
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, rotation=60, ha='right', fontsize=7)
        ax.set_ylabel('main stage, baijksparse / aij')
        ax.set_title(f'{np} rank(s); blue: same PC as aij, orange: vbjacobi, red: above {BOUND}x, x: baijksparse failed',
                     fontsize=9)
    aij = next((r['mat_type'] for r in rows if r['mat_type'] != 'baijksparse'), 'aijcusparse')
    save(fig, out, f"Drop-in sweep, baijksparse against {aij} ({rows[0]['device']})")


if __name__ == '__main__':
    main()
