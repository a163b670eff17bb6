#!/usr/bin/env python3
"""The figures check (issue 41): no measured figure in a source comment. Measurements go stale in comments; they live in
doc/benchmarks.md and bench/results/. A comment of a C, C++ or CUDA file under the given directories that names a GPU
model (H100, H200, A100) or a quantity with a unit of time, bandwidth, rate or size (14.3 us, 0.59 s, 2.7 TB/s,
393 GF/s, 16 MB) is reported. Code and strings are not read: a message may print a size.

Usage: tools/figurecheck.py DIR...   (exit status 1, with one line a comment, when a figure is found)
"""
import os
import re
import sys

FIGURE = re.compile(r"\b(H100|H200|A100)\b|\b\d+(\.\d+)?\s?(us|ms|GB/s|TB/s|MB/s|GF/s|TF/s|GB|MB|KB)\b(?![-\w])|\b\d+(\.\d+)? s\b(?! *[+*/-])")


def comments(text):
    """(line number, comment text) of every comment, strings and character literals skipped"""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in "\"'":
            q, i = c, i + 1
            while i < n and text[i] != q:
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    line += 1
                i += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield line, text[i:j]
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k, part in enumerate(text[i:j].split("\n")):
                yield line + k, part
            line += text.count("\n", i, j)
            i = j
        else:
            i += 1


def main():
    found = 0
    for top in sys.argv[1:] or ["src", "include"]:
        for d, subdirs, files in sorted(os.walk(top)):
            subdirs.sort()
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cu", ".cuh", ".cxx")):
                    continue
                path = os.path.join(d, f)
                for ln, text in comments(open(path, errors="replace").read()):
                    if FIGURE.search(text):
                        print("%s:%d: %s" % (path, ln, text.strip()))
                        found += 1
    print("measured figures in comments: %d" % found)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
