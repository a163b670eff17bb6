"""Draws compare_builds.sh's summary.csv: per benchmark row, the new build's time over the old one's (1.00 = unchanged).

    python3 bench/plots/plot_compare_builds.py OUTDIR/summary.csv [OUT.png] [--title TEXT]
"""
import sys

from plot_common import png_beside, pyplot, read_rows

args = [a for a in sys.argv[1:]]
title = ""
if "--title" in args:
    i = args.index("--title")
    title = args[i + 1]
    del args[i:i + 2]
if not args:
    sys.exit(__doc__)
plt = pyplot("plot_compare_builds.py")
rows = read_rows(args[0])
labels = [f"{r['benchmark'].replace('bench_', '')}: {r['row']} ({r['metric']})" for r in rows]
ratios = [float(r["new_over_old"]) for r in rows]
fig, ax = plt.subplots(figsize=(9, 0.22 * len(rows) + 1.5))
colors = ["tab:green" if v <= 1.1 else "tab:red" for v in ratios]
ax.barh(range(len(rows)), ratios, color=colors)
ax.axvline(1.0, color="k", lw=0.8)
ax.set_yticks(range(len(rows)), labels, fontsize=6)
ax.invert_yaxis()
ax.set_xlabel("new build / old build (time; median over the rounds; 1 = unchanged)")
ax.set_title(title or "two builds, one GPU, one session", fontsize=9)
fig.tight_layout()
out = png_beside(args[0], args[1] if len(args) > 1 else None)
fig.savefig(out, dpi=130)
print("wrote", out)
