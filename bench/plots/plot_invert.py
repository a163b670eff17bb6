#!/usr/bin/env python3
"""Plot the CSV of bench_invert (bench_invert -o FILE.csv) as a PNG.

Usage: plot_invert.py FILE.csv [-o FILE.png]

Left: GF/s (2 n^3 flops per block) of PetscBlockGPUInvertBatched, cuBLAS getrf+getriBatched and matinvBatched
against the block size n of the uniform batches, with the bandwidth floor (16 n^2 bytes per block at the triad
bandwidth of the same run) as a dashed line. Middle: our fraction of that floor and our speedup over each cuBLAS
variant. Right: the mixed-size batches (sizes 1..m; cuBLAS on blocks padded to m). Needs matplotlib
(pip install matplotlib); runs anywhere, no GPU needed.
"""

from plot_common import command_line, read_rows, save


def main():
    plt, path, out = command_line('plot_invert.py', __doc__)
    rows = read_rows(path)
    device = rows[0]['device']
    triad = float(rows[0]['triad_GBs'])
    uni = sorted((r for r in rows if r['batch'] == 'uniform'), key=lambda r: int(r['n']))
    mix = sorted((r for r in rows if r['batch'] != 'uniform'), key=lambda r: int(r['n']))

    fig, ax = plt.subplots(1, 3, figsize=(18, 5.5))
    if uni:
        n = [int(r['n']) for r in uni]
        f = lambda key: [float(r[key]) for r in uni]
        # the floor in GF/s: 2 n^3 flops per 16 n^2 bytes at the triad bandwidth
        floor = [2 * k ** 3 / (16 * k ** 2) * triad for k in n]
        ax[0].plot(n, f('GFs_ours'), 'o-', color='tab:red', label='PetscBlockGPUInvertBatched')
        ax[0].plot(n, f('GFs_getrf_getri'), 's-', color='tab:blue', label='cuBLAS getrf+getriBatched')
        ax[0].plot(n, f('GFs_matinv'), '^-', color='tab:green', label='cuBLAS matinvBatched')
        ax[0].plot(n, floor, 'k--', label=f'bandwidth floor (triad {triad:.0f} GB/s)')
        ax[0].set_yscale('log')
        ax[0].set_xlabel('block size n (uniform batch)')
        ax[0].set_ylabel('GF/s (2 n^3 flops per block)')
        ax[0].set_title(f'uniform batches, {uni[0]["nblocks"]} blocks')
        ax[0].grid(True, which='both', alpha=0.3)
        ax[0].legend(fontsize=8)

        ax[1].plot(n, f('pct_floor'), 'o-', color='tab:red', label='ours: % of the bandwidth floor')
        ax[1].set_xlabel('block size n (uniform batch)')
        ax[1].set_ylabel('% of the floor (time at triad bandwidth / our time)')
        ax[1].set_ylim(bottom=0)
        ax[1].grid(True, alpha=0.3)
        tw = ax[1].twinx()
        tw.plot(n, f('speedup_vs_getrf_getri'), 's:', color='tab:blue', label='speedup vs getrf+getri')
        tw.plot(n, f('speedup_vs_matinv'), '^:', color='tab:green', label='speedup vs matinv')
        tw.set_yscale('log')
        tw.set_ylabel('speedup (cuBLAS time / our time)')
        h1, l1 = ax[1].get_legend_handles_labels()
        h2, l2 = tw.get_legend_handles_labels()
        ax[1].legend(h1 + h2, l1 + l2, fontsize=8, loc='upper left')
        ax[1].set_title('fraction of the floor, speedups')
    if mix:
        import numpy as np
        m = [int(r['n']) for r in mix]
        x = np.arange(len(m))
        w = 0.27
        ax[2].bar(x - w, [float(r['GFs_ours']) for r in mix], w, color='tab:red', label='ours (variable sizes)')
        ax[2].bar(x, [float(r['GFs_getrf_getri']) for r in mix], w, color='tab:blue', label='getrf+getri (padded to m)')
        ax[2].bar(x + w, [float(r['GFs_matinv']) for r in mix], w, color='tab:green', label='matinv (padded to m)')
        for i, r in enumerate(mix):
            ax[2].annotate(f'{float(r["pct_floor"]):.0f}% floor', (x[i] - w, float(r['GFs_ours'])), ha='center', va='bottom', fontsize=7)
        ax[2].set_xticks(x)
        ax[2].set_xticklabels([f'1..{k}' for k in m])
        ax[2].set_yscale('log')
        ax[2].set_xlabel('block sizes (uniform random in 1..m)')
        ax[2].set_ylabel('useful GF/s (2 k^3 per block)')
        ax[2].set_title(f'mixed-size batches, {mix[0]["nblocks"]} blocks')
        ax[2].grid(True, axis='y', which='both', alpha=0.3)
        ax[2].legend(fontsize=8)
    else:
        ax[2].set_visible(False)
    save(fig, out, f'Batched inversion of small blocks, FP64, {device}')


if __name__ == '__main__':
    main()
