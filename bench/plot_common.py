"""Shared by bench/plot_*.py: matplotlib without a display, the benchmark CSV, the PNG beside it."""
import csv
import os
import sys


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
