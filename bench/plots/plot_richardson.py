#!/usr/bin/env python3
"""Plots bench_richardson's CSV: per block size, the fused sweep's speedup over KSPRICHARDSON's loop beside the byte
ratio of the two (what the fusion saves), and the fused sweep's fraction of the triad (bench/results/mg/); a CSV of
-method chebyshev: KSPCHEBYSHEV's fused steps against its own loop.

usage: python3 bench/plots/plot_richardson.py richardson.csv [out.png]"""
from plot_common import command_line, read_rows, save


def main():
    plt, path, out = command_line('plot_richardson.py', __doc__)
    rows = read_rows(path)
    bs = [r['bs'] for r in rows]
    x = range(len(rows))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    w = 0.38
    a1.bar([i - w / 2 for i in x], [float(r['speedup']) for r in rows], w, label='speedup (loop / fused)', color='tab:orange')
    a1.bar([i + w / 2 for i in x], [float(r['byte_ratio']) for r in rows], w, label='byte ratio (loop / fused)', color='tab:gray')
    a1.axhline(1.0, color='k', lw=0.8)
    a1.set_xticks(list(x))
    a1.set_xticklabels(bs)
    a1.set_xlabel('block size')
    a1.set_title('fused sweep against the loop', fontsize=9)
    a1.legend(fontsize=8)
    a2.bar(list(x), [float(r['frac_triad']) for r in rows], 0.6, color='tab:orange')
    a2.set_xticks(list(x))
    a2.set_xticklabels(bs)
    a2.set_xlabel('block size')
    a2.set_ylabel('fraction of the triad')
    a2.set_title('fused sweep: bytes moved / time', fontsize=9)
    method = rows[0].get('method', 'richardson')
    what = "KSPCHEBYSHEV's fused steps" if method == 'chebyshev' else "vbjacobi's fused Richardson sweep"
    save(fig, out, "%s, 27-point block stencil %s^3 (%s)" % (what, rows[0]['n'], rows[0]['device']))


if __name__ == '__main__':
    main()
