#!/usr/bin/env python3
"""Which source file calls which: for each .c/.cu file of the given folders, the other files whose functions it calls.
Prints the edges, then fails (exit 1) if two files reach each other (a loop).

  python3 tools/callgraph.py src/mat/baijcuda_k                  # call edges and the check
  python3 tools/callgraph.py --cuda-runtime src/mat/baijcuda_k   # also: .c files that call the CUDA runtime
  python3 tools/callgraph.py --refs src/mat/baijcuda_k           # also count functions named without a call (method
                                                                 # tables, composed functions): shows the registrations

Functions are found by their definitions at the start of a line (PETSc style: the return type and the name on one
line, the body's brace on the next); static functions are local and ignored."""
import os, re, sys

def sources(dirs):
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(('.c', '.cu')):
                    yield os.path.join(root, f)

def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)

DEF = re.compile(r'^(?!static\b)(?:PETSC_INTERN\s+|PETSC_EXTERN\s+|extern\s+"C"\s+)?[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\n?\s*\{', re.M)

def main():
    args = sys.argv[1:]
    runtime = '--cuda-runtime' in args
    refs = '--refs' in args
    dirs = [a for a in args if not a.startswith('--')] or ['src/mat/baijcuda_k']
    files = list(sources(dirs))
    text = {f: strip(open(f).read()) for f in files}
    owner = {}
    for f in files:
        for m in DEF.finditer(text[f]):
            name = m.group(1)
            if name in ('if', 'for', 'while', 'switch', 'return') or name.startswith('__'): continue  # __launch_bounds__ and other attributes
            owner.setdefault(name, f)
    edges = {f: set() for f in files}
    for f in files:
        for name in set(re.findall(r'\b([A-Za-z_]\w*)\b' if refs else r'\b([A-Za-z_]\w*)\s*\(', text[f])):
            g = owner.get(name)
            if g and g != f: edges[f].add(g)
    for f in files:
        print(f'{f}: ' + ' '.join(sorted(os.path.relpath(g, os.path.dirname(f)) for g in edges[f])))
    # loops: a file that reaches itself
    bad = 0
    def reach(f):
        seen, stack = set(), list(edges[f])
        while stack:
            g = stack.pop()
            if g in seen: continue
            seen.add(g); stack.extend(edges[g])
        return seen
    for f in files:
        r = reach(f)
        if f in r:
            back = sorted(g for g in edges[f] if f in reach(g))
            print(f'LOOP: {f} <-> ' + ' '.join(back)); bad = 1
    if runtime:
        for f in files:
            if not f.endswith('.c'): continue
            hits = sorted(set(re.findall(r'\bcuda[A-Z]\w*\s*\(', text[f])))
            if hits:
                print(f'CUDA runtime in {f}: ' + ' '.join(h.rstrip('( ') for h in hits)); bad = 1
    print('acyclic' if not bad else 'FAILED')
    return bad

sys.exit(main())
