#!/usr/bin/env python3
"""Plots bench/scripts/run_tutorials.sh's CSV: per tutorial case, the KSPSolve time of each configuration that converged
(PETSc's built-in ones grey, ours coloured, the best of each side outlined), on a log scale; a cross marks a
configuration that did not converge.

usage: python3 bench/plots/plot_tutorials.py tutorials.csv [out.png]"""
from plot_common import command_line, read_rows, save


def converged(r):
    return r['status'] == '0' and r['outer_reason'].startswith('CONVERGED') and r['linear_failed'] in ('0', '') \
        and r['kspsolve_s'] != '-'


def main():
    plt, path, out = command_line('plot_tutorials.py', __doc__)
    rows = read_rows(path)
    cases = list(dict.fromkeys(r['case'] for r in rows))
    fig, axes = plt.subplots(1, len(cases), figsize=(max(3.2 * len(cases) + 1, 9.0), 4.6), squeeze=False)
    colour = {'petsc': '0.6', 'ours': 'tab:blue', 'ours-idrs': 'tab:orange'}
    for ax, c in zip(axes[0], cases):
        rc = [r for r in rows if r['case'] == c and not r['outer_reason'].startswith('n/a')]
        labels, heights, colours = [], [], []
        ok = [r for r in rc if converged(r)]
        bests = set()
        for side in (('petsc',), ('ours', 'ours-idrs')):
            s = [r for r in ok if r['owner'] in side]
            if s:
                bests.add(id(min(s, key=lambda r: float(r['kspsolve_s']))))
        for r in rc:
            labels.append(f"{r['ksp']}+{r['pc']}")
            heights.append(float(r['kspsolve_s']) if converged(r) else 0.0)
            colours.append(colour.get(r['owner'], 'k'))
        x = range(len(rc))
        bars = ax.bar(x, heights, color=colours)
        for b, r in zip(bars, rc):
            if id(r) in bests:
                b.set_edgecolor('k')
                b.set_linewidth(2)
        top = max(heights) if any(heights) else 1.0
        for i, r in enumerate(rc):
            if not converged(r):
                ax.plot(i, top, 'rx')
        ax.set_yscale('log')
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, rotation=90, fontsize=7)
        ax.set_title(f"{c}\n{rc[0]['size'] if rc else ''}", fontsize=9)
        ax.set_ylabel('KSPSolve s')
    dev = rows[0]['device']
    save(fig, out, f'PETSc tutorials on {dev}\nPETSc built-in (grey), vbjacobi (blue), idrs + vbjacobi (orange); '
                   f'outlined: best of each; x: not converged')


if __name__ == '__main__':
    main()
