#!/usr/bin/env python3
"""Plots the CSV of bench_values (-o FILE): GB/s of each value operation (and COO assembly) on baijksparse against
aijcusparse, as bars, with the triad measured in the same run as a line (and its 70% mark, issue 11's floor). Bars of
calls that moved bytes between host and device (a host fallback or a copy) are hatched and labelled with the MB. The
second reading, with the bytes of the 32-byte DRAM sectors touched (CSV columns sector_bytes, frac_triad_sector of
newer runs), is drawn as an unfilled cross-hatched bar over each solid one; CSVs without those columns plot as before.
Usage: plot_values.py values.csv [out.png]"""
from plot_common import command_line, read_rows, save


def main():
    plt, src, out = command_line('plot_values.py', __doc__)
    rows = read_rows(src)
    ops = list(dict.fromkeys(r['op'] for r in rows))  # in the order measured
    mats = list(dict.fromkeys(r['matrix'] for r in rows if r['op'] != 'coo'))
    mats = mats or list(dict.fromkeys(r['matrix'] for r in rows))
    ours = next((m for m in mats if 'baij' in m), mats[0])
    ref = next((m for m in mats if m != ours), None)

    def find(op, mat_is_ours):
        for r in rows:
            if r['op'] != op:
                continue
            is_ours = 'baij' in r['matrix'] if ref else True
            if is_ours == mat_is_ours:
                return r
        return None

    def sector_gbs(r):
        """GB/s with the sector bytes, None where the CSV has no such column or the count is missing"""
        try:
            sb, t = float(r.get('sector_bytes') or -1), float(r['time_s'])
        except ValueError:
            return None
        return sb / t / 1e9 if sb > 0 and t > 0 else None

    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(ops) + 3), 5))
    width = 0.4
    for k, (label, is_ours) in enumerate(((ours, True), (ref, False))):
        if label is None:
            continue
        xs, ys, moved, sx, sy = [], [], [], [], []
        for i, op in enumerate(ops):
            r = find(op, is_ours)
            if r is None:
                continue
            xs.append(i + (k - 0.5) * width)
            ys.append(max(float(r['GBs']), 0.0))
            moved.append((float(r['h2d_bytes_max']) + float(r['d2h_bytes_max'])) / 1e6)
            g = sector_gbs(r)
            if g is not None:
                sx.append(xs[-1])
                sy.append(g)
        color = 'C0' if is_ours else 'C1'
        if sx:  # behind the solid bars: where the sector reading is higher, its hatched top shows above them
            ax.bar(sx, sy, width=width, fill=False, hatch='xx', edgecolor=color, lw=0.8, label=f'{label}, sector bytes')
        bars = ax.bar(xs, ys, width=width, label=f'{label}, useful bytes' if sx else label, color=color)
        for bar, mb in zip(bars, moved):
            if mb > 0:
                bar.set_hatch('//')
                ax.annotate(f'{mb:.0f} MB\nh<->d', (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            ha='center', va='bottom', fontsize=7)
    triad = float(rows[0]['triad_GBs'])
    if triad > 0:
        ax.axhline(triad, color='k', lw=1, label=f'triad {triad:.0f} GB/s')
        ax.axhline(0.7 * triad, color='k', lw=1, ls=':', label='70% of triad')
    ax.set_xticks(range(len(ops)))
    ax.set_xticklabels(ops, rotation=30, ha='right')
    ax.set_yscale('log')  # the diagonal operations move 16 n bytes, the others 8..24 nz: decades apart
    ax.set_ylabel('GB/s (useful bytes, and 32-byte sectors: see bench_values)')
    ax.grid(axis='y', alpha=.3)
    ax.legend(fontsize=8)
    r0 = rows[0]
    save(fig, out, f"Value operations, bs {r0['bs']}, {int(r0['nz']) * 8 / 1e9:.2f} GB of values, {r0['device']}")


if __name__ == '__main__':
    main()
