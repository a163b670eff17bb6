#!/usr/bin/env python3
"""Plot the CSV of bench_vbjacobi (bench_vbjacobi -o FILE.csv) as a PNG.

Usage: plot_vbjacobi.py FILE.csv [-o FILE.png]

One row of panels per sparsity pattern: the apply bandwidth (GB/s, with the triad bandwidth of the same run as
a dashed line) and the setup time (first setup and re-setup, log scale) against the maximum block size, for
each preconditioner and matrix type. With the precision axis (issue 14: vbjacobi rows whose matrix is
'<type>/<precision>'), a third panel per pattern: the apply speedup of each storage precision over double, with the
issue's targets (single 1.8x, half 3x). Real matrices, when the CSV has them, get a last row: apply bandwidth and
setup time per matrix. Needs matplotlib (pip install matplotlib); runs anywhere, no GPU needed.
"""

from plot_common import command_line, read_rows, save
from collections import OrderedDict

PATTERNS = ['arrow', 'tridiag', 'blockdiag', 'laplace']
STYLE = {  # (pc, matrix kind) -> colour, marker
    ('vbjacobi', 'aij'): ('tab:red', 'o'),
    ('vbjacobi', 'baij'): ('tab:purple', 's'),
    ('vpbjacobi', 'aij'): ('tab:blue', '^'),
    ('pbjacobi', 'aij'): ('tab:green', 'v'),
    ('jacobi', 'aij'): ('tab:gray', 'x'),
}


PRECISION_STYLE = {'single': ('tab:orange', 'D'), 'half': ('tab:olive', 'P'), 'adaptive': ('tab:cyan', '*')}
TARGET = {'single': 1.8, 'half': 3.0}



def num(x):
    """a CSV number; an empty field (a run that did not happen) is NaN, drawn as nothing"""
    return float(x) if x not in ('', None) else float('nan')

def kind(matrix):
    return 'baij' if 'baij' in matrix else 'aij'


def precision(matrix):
    return matrix.split('/', 1)[1] if '/' in matrix else 'double'


def style(pc, matrix):
    if pc == 'vbjacobi' and precision(matrix) in PRECISION_STYLE:
        return PRECISION_STYLE[precision(matrix)]
    return STYLE.get((pc, kind(matrix)), ('black', '.'))


def label(pc, matrix):
    return f'{pc} ({matrix})'


def main():
    plt, path, out = command_line('plot_vbjacobi.py', __doc__)
    rows = read_rows(path)
    device = rows[0]['device']
    triad = float(rows[0]['triad_GBs'])
    pats = [p for p in PATTERNS if any(r['pattern'] == p for r in rows)]
    real = OrderedDict((r['pattern'], None) for r in rows if r['pattern'] not in PATTERNS and r['apply_GBs'] not in ('', None))

    nseries = {p: len({(r['pc'], r['matrix']) for r in rows if r['pattern'] == p}) for p in pats}
    legend_row = max(pats, key=lambda p: nseries[p]) if pats else None
    nrow = len(pats) + (1 if real else 0)
    with_prec = any('/' in r['matrix'] for r in rows)
    fig, axes = plt.subplots(nrow, 3 if with_prec else 2, figsize=(19 if with_prec else 13, 3.4 * nrow), squeeze=False)
    for i, pat in enumerate(pats):
        sel = [r for r in rows if r['pattern'] == pat]
        series = OrderedDict()
        for r in sel:
            series.setdefault((r['pc'], r['matrix']), []).append(r)
        ax_bw, ax_su = axes[i][0], axes[i][1]
        if with_prec:
            ax_px = axes[i][2]
            for (pc, matrix), rs in series.items():
                if pc != 'vbjacobi' or '/' not in matrix:
                    continue
                rs2 = sorted((r for r in rs if float(r.get('apply_speedup_vs_double', -1)) > 0), key=lambda r: int(r['maxbs']))
                colour, marker = style(pc, matrix)
                ax_px.plot([int(r['maxbs']) for r in rs2], [float(r['apply_speedup_vs_double']) for r in rs2], marker=marker, color=colour, label=precision(matrix))
                if precision(matrix) in TARGET:
                    ax_px.axhline(TARGET[precision(matrix)], color=colour, linestyle=':', linewidth=1)
            ax_px.axhline(1.0, color='black', linestyle='--', linewidth=1)
            ax_px.set_title(f'{pat}: apply speedup over double storage')
            ax_px.set_xlabel('maximum block size')
            ax_px.set_ylabel('x double (dotted: issue 14 targets)')
            ax_px.grid(True, alpha=0.3)
            ax_px.legend(fontsize=7, loc='best')
        for (pc, matrix), rs in series.items():
            rs.sort(key=lambda r: int(r['maxbs']))
            bs = [int(r['maxbs']) for r in rs]
            colour, marker = style(pc, matrix)
            ax_bw.plot(bs, [float(r['apply_GBs']) for r in rs], marker=marker, color=colour, label=label(pc, matrix))
            if pc != 'jacobi':
                ax_su.plot(bs, [1e3 * float(r['setup_s']) for r in rs], marker=marker, color=colour, label=label(pc, matrix) + ' setup')
                rs2 = [r for r in rs if float(r['resetup_s']) > 0]
                if rs2:
                    ax_su.plot([int(r['maxbs']) for r in rs2], [1e3 * float(r['resetup_s']) for r in rs2], marker=marker, color=colour,
                               linestyle=':', label=label(pc, matrix) + ' re-setup')
        ax_bw.axhline(triad, color='black', linestyle='--', linewidth=1, label=f'triad {triad:.0f} GB/s')
        n = int(sel[0]['n'])
        ax_bw.set_title(f'{pat}, {n:,} rows: PCApply bandwidth')
        ax_bw.set_xlabel('maximum block size')
        ax_bw.set_ylabel('GB/s (inverses + 2 vectors)')
        ax_bw.set_ylim(bottom=0)
        ax_su.set_title(f'{pat}: PCSetUp time')
        ax_su.set_xlabel('maximum block size')
        ax_su.set_ylabel('ms')
        ax_su.set_yscale('log')
        for ax in (ax_bw, ax_su):
            ax.grid(True, alpha=0.3)
        if pat == legend_row:
            ax_bw.legend(fontsize=7, loc='lower right')
            ax_su.legend(fontsize=6, loc='best', ncol=2)

    if real:
        ax_bw, ax_su = axes[-1][0], axes[-1][1]
        if with_prec:
            axes[-1][2].axis('off')
        names = list(real)
        combos = OrderedDict()
        for r in rows:
            if r['pattern'] in real:
                combos.setdefault((r['pc'], r['matrix']), {})[r['pattern']] = r
        width = 0.8 / max(1, len(combos))
        for k, ((pc, matrix), byname) in enumerate(combos.items()):
            colour, _ = style(pc, matrix)
            xs = [j + k * width for j, nm in enumerate(names) if nm in byname]
            ax_bw.bar(xs, [num(byname[nm]['apply_GBs']) for nm in names if nm in byname], width, color=colour, label=label(pc, matrix))
            if pc != 'jacobi':
                ax_su.bar(xs, [1e3 * num(byname[nm]['setup_s']) for nm in names if nm in byname], width, color=colour, label=label(pc, matrix))
        for ax, title, ylabel in ((ax_bw, 'real matrices: PCApply bandwidth', 'GB/s'), (ax_su, 'real matrices: first PCSetUp', 'ms')):
            ax.set_xticks([j + 0.4 - width / 2 for j in range(len(names))])
            ax.set_xticklabels(names, rotation=30, ha='right', fontsize=8)
            ax.set_title(title)
            ax.set_ylabel(ylabel)
            ax.grid(True, axis='y', alpha=0.3)
        ax_su.set_yscale('log')
        ax_bw.axhline(triad, color='black', linestyle='--', linewidth=1)
        ax_bw.legend(fontsize=7)

    save(fig, out, f'bench_vbjacobi on {device}')


if __name__ == '__main__':
    main()
