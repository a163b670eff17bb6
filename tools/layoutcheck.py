#!/usr/bin/env python3
"""The layout check (issue 41): doc/layout.md names every component directory under src/ and every host source file
(.c, .h) of it, so that the document describes the tree as it is. A file is named by its full name, or, in a
directory whose files share a prefix (baijksparse_coo.c), by the rest of its name after the prefix (_coo.c); a
component's cuda/ directory is named once, its kernel files are not listed one by one.

Usage: tools/layoutcheck.py ROOT [LAYOUT.md]   (exit status 1, with one line a missing entry, when something is not named)
"""
import os
import sys


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    layout = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "doc", "layout.md")
    text = open(layout).read()
    missing = []
    src = os.path.join(root, "src")
    for d, subdirs, files in sorted(os.walk(src)):
        subdirs.sort()
        rel = os.path.relpath(d, root)
        hosts = sorted(f for f in files if f.endswith((".c", ".h")))
        kernels = [f for f in files if f.endswith((".cu", ".cuh"))]
        if os.path.basename(d) == "cuda":
            if kernels and "cuda/" not in text:
                missing.append("%s/ (a cuda/ directory)" % rel)
            continue
        if hosts and rel + "/" not in text:
            missing.append("%s/ (a component directory)" % rel)
        for f in hosts:
            stem = f.split("_", 1)
            if f in text or (len(stem) == 2 and "_" + stem[1] in text):
                continue
            missing.append(os.path.join(rel, f))
    for m in missing:
        print("not in %s: %s" % (os.path.relpath(layout, root), m))
    print("%s: %s" % (os.path.relpath(layout, root), "every component and host file named" if not missing else "%d missing" % len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
