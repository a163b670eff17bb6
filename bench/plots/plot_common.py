"""Shared by bench/plots/plot_*.py: matplotlib without a display, the benchmark CSV, the PNG beside it."""
import csv
import os
import sys


def command_line(script, doc):
    """the plot scripts' command line, `script CSV [OUT.png]` (or -o OUT.png): matplotlib's pyplot, the CSV's path
    and the PNG's (beside the CSV unless given)"""
    import argparse
    ap = argparse.ArgumentParser(prog=script, description=doc.splitlines()[0])
    ap.add_argument('csv')
    ap.add_argument('out', nargs='?')
    ap.add_argument('-o', '--output')
    args = ap.parse_args()
    return pyplot(script), args.csv, png_beside(args.csv, args.output or args.out)


def pyplot(script):
    """matplotlib.pyplot on the Agg backend, or exit with a message naming script"""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit(f'{script} needs matplotlib: pip install matplotlib')
    return plt


def read_rows(path):
    """the CSV's rows as dicts; exit when it holds none"""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f'{path}: no data')
    return rows


def png_beside(path, output=None):
    """output, or path with its extension replaced by .png"""
    return output or os.path.splitext(path)[0] + '.png'


def save(fig, out, title):
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f'wrote {out}')
