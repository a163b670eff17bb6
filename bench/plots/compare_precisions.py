#!/usr/bin/env python3
"""Issue 14's iteration and time criteria from bench/scripts/run_solve_precisions.sh: for each (matrix, mat type, pc, bound) that
converged with double inverses (true relative residual <= 1e-6 and a converged reason), the iterations and total time of
single, half and adaptive against double.
Usage: compare_precisions.py DIR (holding solve_prec_{double,single,half,adaptive}.csv)"""
import csv, os, sys

d = sys.argv[1]
def load(p):
    f = os.path.join(d, f'solve_prec_{p}.csv') if not os.path.exists(os.path.join(d, f'solve_precision_{p}_h100.csv')) else os.path.join(d, f'solve_precision_{p}_h100.csv')
    if not os.path.exists(f):
        return {}
    rows = {}
    for r in csv.DictReader(open(f)):
        rows[(r['matrix'], r['mat_type'], r['pc'], r['bound'])] = r
    return rows
ok = lambda r: r is not None and r['reason'].startswith('CONVERGED') and float(r['true_rel_residual']) <= 1e-6
base = load('double')
print(f'| precision | problems (double converged) | converged | its <= 1.05x double | worst its ratio (where) | total time <= double | median time ratio |')
print('|---|---|---|---|---|---|---|')
for p in ('single', 'half', 'adaptive'):
    other = load(p)
    keys = [k for k, r in base.items() if ok(r)]
    conv = [k for k in keys if ok(other.get(k))]
    its = [(int(other[k]['iterations']) / int(base[k]['iterations']), k) for k in conv]
    tim = sorted(float(other[k]['total_s']) / float(base[k]['total_s']) for k in conv)
    worst = max(its) if its else (float('nan'), ('-',))
    print(f'| {p} | {len(keys)} | {len(conv)} | {sum(1 for r, _ in its if r <= 1.05)} | {worst[0]:.2f} ({" ".join(worst[1])}) | '
          f'{sum(1 for t in tim if t <= 1.0)} of {len(keys)} | {tim[len(tim) // 2] if tim else float("nan"):.2f} |')
