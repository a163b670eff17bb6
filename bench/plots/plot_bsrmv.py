#!/usr/bin/env python3
"""Plots the CSV of bench_bsrmv (-o FILE): achieved GB/s against the block size for MATBAIJKSPARSE, the cuSPARSE BSR
variants and CSR SpMV, with the triad measured in the same run; one panel per sparsity pattern, plus the skewed-row
comparison. Usage: plot_bsrmv.py results.csv [out.png]"""
import csv

from plot_common import command_line, save


def main():
    plt, src, out = command_line('plot_bsrmv.py', __doc__)
    main_rows, skew_rows, header = [], [], None
    with open(src) as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == 'device':
                header = row
                continue
            (skew_rows if header and 'skewed' in header else main_rows).append(dict(zip(header, row)))
    patterns = sorted({r['pattern'] for r in main_rows})
    npanel = len(patterns) + (1 if skew_rows else 0)
    fig, axes = plt.subplots(1, max(npanel, 1), figsize=(6.5 * max(npanel, 1), 4.8), squeeze=False)
    device = main_rows[0]['device'] if main_rows else (skew_rows[0]['device'] if skew_rows else '?')
    for ax, pat in zip(axes[0], patterns):
        rows = sorted((r for r in main_rows if r['pattern'] == pat), key=lambda r: int(r['bs']))
        bs = [int(r['bs']) for r in rows]
        byt = [float(r['GBs_ours']) * float(r['us_ours']) * 1e3 for r in rows]  # bytes moved

        def gbs(col):
            return [b / (float(r[col]) * 1e3) if r[col] not in ('nan', '') else float('nan') for b, r in zip(byt, rows)]
        ax.plot(bs, [float(r['GBs_ours']) for r in rows], 'o-', label='baijksparse (ours)', lw=2)
        ax.plot(bs, gbs('us_bsrmv'), 's--', label='cuSPARSE bsrmv')
        ax.plot(bs, gbs('us_spmv_bsr_col'), '^--', label='cuSPARSE SpMV BSR col')
        ax.plot(bs, gbs('us_spmv_bsr_row'), 'v--', label='cuSPARSE SpMV BSR row')
        ax.plot(bs, gbs('us_csr'), 'x:', label='CSR SpMV (aijcusparse)')
        ax.axhline(float(rows[0]['triad_GBs']), color='k', lw=1, label='triad')
        ax.set_xlabel('block size')
        ax.set_ylabel('GB/s (values, indices, x, y once)')
        ax.set_title(f'{pat}')
        ax.grid(alpha=.3)
        ax.legend(fontsize=8)
    if skew_rows:
        ax = axes[0][-1]
        bs = [r['bs'] for r in skew_rows]
        x = range(len(bs))
        for i, (col, lab) in enumerate((('us_unbalanced', 'unbalanced'), ('us_balanced', 'balanced'), ('us_auto', 'auto'))):
            ax.bar([v + 0.27 * (i - 1) for v in x], [float(r[col]) for r in skew_rows], width=0.27, label=lab)
        ax.set_xticks(list(x))
        ax.set_xticklabels([f'bs {b}' for b in bs])
        ax.set_yscale('log')
        ax.set_ylabel('MatMult time (us)')
        ax.set_title('skewed rows')
        ax.legend(fontsize=8)
    save(fig, out, f'BSR SpMV, FP64, {device}')


if __name__ == '__main__':
    main()
