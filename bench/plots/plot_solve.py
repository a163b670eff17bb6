#!/usr/bin/env python3
"""Tables and a performance profile from the CSV of bench_solve (bench_solve -o FILE.csv).

Usage: plot_solve.py FILE.csv [OUT.png]   (or -o OUT.png; default: FILE.png beside the CSV)

A run counts as solved when PETSc reports convergence AND its true relative residual ||b - A x|| / ||b|| is at most
--true-tol (default 1e-6): under left preconditioning PETSc tests the preconditioned norm, which on badly scaled
matrices can stop with a true residual of 1e-1. Converged runs above it are shown with '*' and count as not solved.
A CSV with runs of both -pc_side left and right gets one Table 1 per side, and the side is part of each problem.

Writes OUT.md (also printed) with
  1. the layout of Table 1 of Anzt, Dongarra, Flegar, Quintana-Orti, "Variable-size batched Gauss-Jordan elimination
     for block-Jacobi preconditioning on graphics processors", Parallel Computing 2018: rows = matrices, columns =
     Jacobi, BJ(8), BJ(12), BJ(16), BJ(24), BJ(32); each cell "its / total s" of PETSc's KSPIDR(4) with jacobi and with
     vbjacobi (supervariable blocking, bound k) on aijcusparse (aij in a host run), "-" when not converged, beside the
     paper's figures (NVIDIA P100, MAGMA-sparse IDR(4)); where vbjacobi did not converge, the result of PETSc's
     vpbjacobi with the same blocks; the same table for KSPIDRS(4) (idrs) where the CSV has idrs runs;
  2. per matrix and KSP (idr, idrs, gmres, bcgs), the best total time of each PC family (jacobi, pbjacobi, vpbjacobi,
     vbjacobi-default, vbjacobi at its best bound/blocking/matrix type), with iterations and mean block size;
  3. idrs against idr, per matrix and PC configuration (matrix type, pc, bound, blocking): the iterations of each and
     their ratio, the seconds per iteration of each and their ratio idrs/idr, the fraction of the bytes floor each
     reached (bench_solve's floor_frac, "-" in host runs and older CSVs), and the paper's its / s for the Table 1
     matrices (jacobi and vbjacobi supervariable BJ(k) on aij); then the criteria of issue 13 read from it:
     time per iteration <= 0.5x KSPIDR, iterations within +-15%, idrs solves wherever idr solves, and
     idrs + vbjacobi (+ baijksparse where bs > 1) the fastest combination on >= 70% of the (matrix, side) problems
     (the fraction, and the problems where it is not, with the winner);
and OUT.png, Dolan-More performance profiles: left, for each PC family, the fraction of the (matrix, KSP, side)
problems it solved within a factor tau of the best total time of any family; right, the same for each KSP (at its
best PC configuration) over the (matrix, side) problems (log2 tau axis; not solved = never).
A CSV without idrs rows, or without the floor columns (older bench_solve), gives the same tables less those parts.
Needs matplotlib for the PNG only (pip install matplotlib): without it the tables are still written, then the
script exits with status 1 and a message.
"""

import argparse
import csv
import math
import os
import re
import sys

# Table 1 of the paper (its / s; None = did not converge), from shared/matrices/suitesparse/README.md.
PAPER_CITATION = ('Anzt, Dongarra, Flegar, Quintana-Orti, "Variable-size batched Gauss-Jordan elimination for '
                  'block-Jacobi preconditioning on graphics processors", Parallel Computing 2018, Table 1 '
                  '(NVIDIA P100, MAGMA-sparse IDR(4), supervariable blocking)')
PAPER = {  # matrix: [Jacobi, BJ(8), BJ(12), BJ(16), BJ(24), BJ(32)]
    'bcsstk17': [(1967, 2.87), (1174, 1.78), (901, 1.38), (792, 1.23), (735, 1.20), (879, 1.40)],
    'bcsstk18': [(1491, 1.90), (933, 1.37), (653, 0.98), (591, 0.92), (440, 0.65), (532, 0.85)],
    's1rmt3m1': [(296, 0.43), (191, 0.32), (171, 0.24), (159, 0.28), (148, 0.28), (148, 0.27)],
    's2rmq4m1': [(708, 0.97), (231, 0.39), (223, 0.36), (262, 0.43), (214, 0.36), (198, 0.36)],
    's3rmq4m1': [None, (1387, 1.95), (599, 0.89), (1969, 2.83), (515, 0.80), (972, 1.47)],
    's3rmt3m3': [None, None, (1995, 2.74), (2087, 2.86), (2229, 3.14), (784, 1.18)],
}
BOUNDS = [8, 12, 16, 24, 32]
FAMILIES = ['jacobi', 'pbjacobi', 'vpbjacobi', 'vbjacobi-default', 'vbjacobi']
AIJ = ('aijcusparse', 'aij')
DASH = '\u2013'


def read_csv(path):
    """rows (dicts) and the device: the CSV's device column, or a comment line '# device: ...'"""
    device = None
    lines = []
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                if line[1:].strip().lower().startswith('device:'):
                    device = line.split(':', 1)[1].strip()
                continue
            lines.append(line)
    rows = list(csv.DictReader(lines))
    if not rows:
        sys.exit(f'{path}: no data rows')
    for key in ('matrix', 'ksp', 'pc', 'bound', 'blocking', 'mat_type', 'iterations', 'reason', 'total_s'):
        if key not in rows[0]:
            sys.exit(f'{path}: no column {key}; is this a CSV of bench_solve?')
    device = device or rows[0].get('device') or 'unknown device'
    return rows, device


TRUE_TOL = 1e-6


def converged(r):
    """PETSc's verdict"""
    return r['reason'].startswith('CONVERGED')


def solved(r):
    """converged, and the true residual small enough"""
    try:
        res = float(r.get('true_rel_residual', 'nan'))
    except ValueError:
        res = math.nan
    return converged(r) and res <= TRUE_TOL


def rtol_of(r):
    """the -ksp_rtol of the run (bench_solve writes it into the options column)"""
    m = re.search(r'-ksp_rtol (\S+)', r.get('options', ''))
    return float(m.group(1)) if m else math.nan


def reached_rtol(r):
    """converged with the true residual within 10 rtol: the run's own tolerance met (bench_solve's note flags the rest)"""
    try:
        res = float(r.get('true_rel_residual', 'nan'))
    except ValueError:
        res = math.nan
    return converged(r) and res <= 10 * rtol_of(r)


def side(r):
    return r.get('pc_side') or 'left'


def total(r):
    return float(r['total_s'])


def best(rows):
    """the solved row with the least total time; else the converged one (shown with '*'); else None"""
    ok = [r for r in rows if reached_rtol(r)] or [r for r in rows if solved(r)] or [r for r in rows if converged(r)]
    return min(ok, key=total) if ok else None


def cell(r):
    if r is None:
        return None
    if not converged(r):
        return DASH
    return f"{r['iterations']} / {total(r):.3g}" + ('' if solved(r) else '*')


def table1_cell(r):
    """Table 1's unit: cycles (the paper's IDR(s) iterations, s + 1 products each) with our iterations, counted as
    converged only by the true residual (within 10 rtol); a CONVERGED reason above that shows the true residual"""
    if r is None:
        return None
    cyc = r.get('cycles') or '-'
    head = f"{cyc} cyc ({r['iterations']} its)" if cyc != '-' else f"{r['iterations']} its"
    if reached_rtol(r):
        return f"{head} / {total(r):.3g}"
    if converged(r):
        return f"{DASH} ({r['reason']} at true {float(r['true_rel_residual']):.1e})"
    return DASH


KSP_TITLE = {'idr': "KSPIDR(4)", 'idrs': "KSPIDRS(4)"}
KSP_OURS = {'idr': "PETSc KSPIDR(s=4)", 'idrs': "this package's KSPIDRS(s=4)"}


def table1(rows, sd, ksp='idr'):
    sel = [r for r in rows if r['ksp'] == ksp and r['mat_type'] in AIJ and side(r) == sd]
    mats = []
    for r in sel:
        if r['matrix'] not in mats and r['pc'] in ('jacobi', 'vbjacobi'):
            mats.append(r['matrix'])
    norms = sorted({r.get('norm') or '?' for r in sel})
    if sd == 'right':
        norm = 'the unpreconditioned residual (right preconditioning)'
    elif norms == ['unpreconditioned']:
        norm = 'the unpreconditioned (true) residual (left preconditioning)'
    else:
        norm = 'the preconditioned residual (left preconditioning, PETSc\'s default)'
    out = [f'### {KSP_TITLE[ksp]}, {sd} preconditioning: cycles (iterations) / total seconds (setup + solve), ours beside the paper\'s', '',
           f'Ours: {KSP_OURS[ksp]}, jacobi and vbjacobi -pc_vbjacobi_blocking supervariable on aijcusparse, b random in '
           f'[0,1), rtol 1e-9 of {norm}. Paper: {PAPER_CITATION}; its iterations are IDR(s) cycles of s + 1 = 5 products '
           f'(ours: cycles = ceil(iterations / 5)), and it tests the recurrence residual. Ours count as converged only by '
           f'the true residual (<= 10 rtol); "{DASH} (reason at true ...)": PETSc\'s reason says converged, the true '
           f'relative residual does not; '
           f'[vpb ...]: PETSc vpbjacobi with the same blocks, where vbjacobi did not converge.', '',
           '| matrix | Jacobi | ' + ' | '.join(f'BJ({k})' for k in BOUNDS) + ' |',
           '|---|' + '---|' * (1 + len(BOUNDS))]
    for m in mats:
        rm = [r for r in sel if r['matrix'] == m]
        paper = PAPER.get(m)
        cells = []
        jac = [r for r in rm if r['pc'] == 'jacobi']
        ours = table1_cell(best(jac) or (jac[-1] if jac else None))
        cells.append((ours, paper[0] if paper else None, None))
        for i, k in enumerate(BOUNDS):
            vb = [r for r in rm if r['pc'] == 'vbjacobi' and r['blocking'] == 'supervariable' and r['bound'] == str(k)]
            vp = [r for r in rm if r['pc'] == 'vpbjacobi' and r['bound'] == str(k)]
            b = best(vb) or (vb[-1] if vb else None)
            extra = None
            if b is not None and not solved(b) and vp:
                extra = table1_cell(best(vp) or vp[-1])
            cells.append((table1_cell(b), paper[i + 1] if paper else None, extra))
        txt = []
        for ours, pap, extra in cells:
            s = ours if ours is not None else 'n/a'
            if paper is not None:
                s += ' (paper ' + (f'{pap[0]} / {pap[1]:.2f}' if pap else DASH) + ')'
            if extra is not None:
                s += f' [vpb {extra}]'
            txt.append(s)
        out.append(f'| {m} | ' + ' | '.join(txt) + ' |')
    if not mats:
        out.append(f'| (no {KSP_TITLE[ksp][:-3]} runs with jacobi/vbjacobi on aij(cusparse) in the CSV) |' + ' |' * (1 + len(BOUNDS)))
    return out


def family_rows(rows, prob, fam):
    m, k, sd = prob
    return [r for r in rows if r['matrix'] == m and r['ksp'] == k and side(r) == sd and r['pc'] == fam]


def problems(rows):
    """(matrix, ksp, side) in the order of the CSV"""
    seen = []
    for r in rows:
        key = (r['matrix'], r['ksp'], side(r))
        if key not in seen:
            seen.append(key)
    return seen


def table2(rows):
    fams = [f for f in FAMILIES if any(r['pc'] == f for r in rows)]
    out = ['### Best total time of each PC family per matrix and KSP', '',
           'Cell: total s (setup + solve), iterations, mean block size; vbjacobi: at its best bound / blocking / matrix '
           f'type. "{DASH}": no configuration of the family solved it (converged with true relative residual <= '
           f'{TRUE_TOL:g}); blank: not run.', '',
           '| matrix | ksp | side | ' + ' | '.join(fams) + ' |', '|---|---|---|' + '---|' * len(fams)]
    for prob in problems(rows):
        m, k, sd = prob
        cells = []
        for f in fams:
            fr = family_rows(rows, prob, f)
            if not fr:
                cells.append('')
                continue
            b = best(fr)
            if b is None or not solved(b):
                cells.append(DASH)
                continue
            s = f"{total(b):.3g} s, {b['iterations']} its, b {float(b['mean_block']):.1f}"
            if f == 'vbjacobi':
                s += f" [{b['bound']} {b['blocking']} {b['mat_type']}]"
            elif f in ('vpbjacobi',):
                s += f" [{b['bound']}]"
            elif f == 'vbjacobi-default':
                s += f" [{b['mat_type']}]"
            cells.append(s)
        out.append(f'| {m} | {k} | {sd} | ' + ' | '.join(cells) + ' |')
    return out


def fnum(r, key):
    """a finite float of column key, or None (absent column, '-', empty, inf, nan)"""
    try:
        v = float(r.get(key) or 'nan')
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def config_key(r):
    return (r['matrix'], side(r), r['mat_type'], r['pc'], r['bound'], r['blocking'])


def pick(rs):
    """the row that represents a configuration: the best solved/converged one, else the last"""
    return (best(rs) or rs[-1]) if rs else None


def its_cell(r):
    if r is None:
        return ''
    if not converged(r):
        return f"{DASH} ({r['iterations']}, {r['reason']})"
    return r['iterations'] + ('' if solved(r) else '*')


def paper_cell(r):
    """the paper's Table 1 figure for the configuration of r (jacobi, or vbjacobi supervariable BJ(k) on aij)"""
    pap = PAPER.get(r['matrix'])
    if pap is None or r['mat_type'] not in AIJ:
        return ''
    if r['pc'] == 'jacobi':
        v = pap[0]
    elif r['pc'] == 'vbjacobi' and r['blocking'] == 'supervariable' and r['bound'] in [str(k) for k in BOUNDS]:
        v = pap[1 + BOUNDS.index(int(r['bound']))]
    else:
        return ''
    return f'{v[0]} / {v[1]:.2f}' if v else DASH


def ratio(a, b, fmt='.2f'):
    return f'{a / b:{fmt}}' if a is not None and b is not None and b > 0 else ''


def frac_cell(r):
    v = fnum(r, 'floor_frac') if r is not None else None
    return f'{v:.2f}' if v is not None else ('-' if r is not None else '')


def is_block(r):
    return r['mat_type'] in ('baijksparse', 'baij')


def idrs_vs_idr(rows):
    """table 3 and the criteria of issue 13; [] when the CSV has no idrs runs"""
    if not any(r['ksp'] == 'idrs' for r in rows):
        return []
    by = {}
    for r in rows:
        if r['ksp'] in ('idr', 'idrs'):
            by.setdefault(config_key(r), {}).setdefault(r['ksp'], []).append(r)
    out = ['### idrs (KSPIDRS(4)) against idr (PETSc KSPIDR(4)), per matrix and PC configuration', '',
           f'its: iterations (both count one per product with the preconditioned operator); "*": converged in PETSc\'s '
           f'norm with true relative residual > {TRUE_TOL:g}; "{DASH} (its, reason)": not converged. s/it: solve seconds '
           'per iteration. floor: fraction of the bytes floor per iteration reached (bench_solve\'s floor_frac; "-": host '
           'run or older CSV). Ratios only where both converged (its) or both ran (s/it); under left preconditioning idr '
           'tests the preconditioned norm and idrs the true one, so compare iterations under -pc_side right. paper: Table 1 of the paper '
           '(IDR(4), its / s), for its matrices with jacobi and vbjacobi supervariable BJ(k) on aij.', '',
           '| matrix | side | mat | pc | bound | blocking | its idr | its idrs | its idrs/idr | s/it idr | s/it idrs | '
           's/it idrs/idr | floor idr | floor idrs | paper |',
           '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    tpi_ratios, its_ok, its_bad, tpi_bad, lost = [], 0, [], [], []
    nits, nmet, met_ok, met_bad = 0, 0, 0, []
    for key, d in by.items():
        a, b = pick(d.get('idr', [])), pick(d.get('idrs', []))
        ta = fnum(a, 'time_per_it_s') if a is not None else None
        tb = fnum(b, 'time_per_it_s') if b is not None else None
        ia = float(a['iterations']) if a is not None and converged(a) else None
        ib = float(b['iterations']) if b is not None and converged(b) else None
        label = ' '.join(x for x in key if x not in ('-',))
        if ta is not None and tb is not None and ta > 0:
            tpi_ratios.append((tb / ta, label))
            if tb / ta > 0.5:
                tpi_bad.append(f'{label} ({tb / ta:.2f})')
        if ia is not None and ib is not None and ia > 0:
            nits += 1
            if abs(ib / ia - 1) <= 0.15:
                its_ok += 1
            else:
                its_bad.append(f'{label} ({ib / ia:.2f})')
            if reached_rtol(a) and reached_rtol(b):
                nmet += 1
                if abs(ib / ia - 1) <= 0.15:
                    met_ok += 1
                else:
                    met_bad.append(f'{label} ({ib / ia:.2f})')
        if a is not None and solved(a) and b is not None and not solved(b):
            lost.append(f"{label} (idrs: {b['reason']}, {b['iterations']} its, relres {b.get('true_rel_residual', '?')})")
        ref = a if a is not None else b
        out.append(f'| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | {key[5]} | {its_cell(a)} | {its_cell(b)} | '
                   f'{ratio(ib, ia)} | {f"{ta:.3e}" if ta is not None else ""} | {f"{tb:.3e}" if tb is not None else ""} | '
                   f'{ratio(tb, ta)} | '
                   f'{frac_cell(a)} | {frac_cell(b)} | {paper_cell(ref)} |')
    out += ['', '#### Criteria of issue 13 (KSPIDRS against KSPIDR)', '']
    if tpi_ratios:
        rs = sorted(v for v, _ in tpi_ratios)
        med = rs[len(rs) // 2] if len(rs) % 2 else 0.5 * (rs[len(rs) // 2 - 1] + rs[len(rs) // 2])
        met = sum(1 for v in rs if v <= 0.5)
        out.append(f'- time per iteration idrs/idr <= 0.5: {met} of {len(rs)} configurations (median ratio {med:.2f}, '
                   f'range {rs[0]:.2f}..{rs[-1]:.2f})' + (f'; above 0.5: {", ".join(tpi_bad[:12])}'
                                                         + (' ...' if len(tpi_bad) > 12 else '') if tpi_bad else ''))
    else:
        out.append('- time per iteration idrs/idr <= 0.5: no configuration with both idr and idrs runs')
    out.append(f'- iterations within +-15% of idr: {its_ok} of {nits} configurations that both converged'
               + (f'; outside: {", ".join(its_bad[:12])}' + (' ...' if len(its_bad) > 12 else '') if its_bad else ''))
    out.append('- idrs solves wherever idr solves: ' + ('yes' if not lost else f'no, {len(lost)} configuration(s): '
                                                        + '; '.join(lost[:12]) + (' ...' if len(lost) > 12 else '')))
    # an idr run that stops on its recurrence residual with the true one above 10 rtol has not converged to the
    # tolerance: idrs, which confirms on b - Ax, goes on to it; those pairs compare different stopping points
    out.append(f'- iterations within +-15% of idr where both met the tolerance (true residual <= 10 rtol): {met_ok} of '
               f'{nmet}' + (f'; outside: {", ".join(met_bad[:12])}' + (' ...' if len(met_bad) > 12 else '')
                            if met_bad else ''))
    # fastest combination over every KSP, PC and matrix type, per (matrix, side) problem that has idrs runs
    probs = []
    for r in rows:
        k = (r['matrix'], side(r))
        if r['ksp'] == 'idrs' and k not in probs:
            probs.append(k)
    wins, notw, nsolvable = 0, [], 0
    for m, sd in probs:
        pr = [r for r in rows if r['matrix'] == m and side(r) == sd]
        ok = [r for r in pr if solved(r)]
        if not ok:
            notw.append(f'{m} ({sd}): nothing solved it')
            continue
        nsolvable += 1
        w = min(ok, key=total)
        bs = int(w.get('bs') or 1)
        if w['ksp'] == 'idrs' and w['pc'] in ('vbjacobi', 'vbjacobi-default') and (bs == 1 or is_block(w)):
            wins += 1
        else:
            notw.append(f"{m} ({sd}): {w['ksp']} {w['pc']} {w['bound']} {w['blocking']} {w['mat_type']} "
                        f'{total(w):.3g} s')
    if probs:
        out.append(f'- idrs + vbjacobi (+ baijksparse where bs > 1) fastest (total s) on {wins} of {len(probs)} '
                   f'(matrix, side) problems = {100.0 * wins / len(probs):.0f}% (criterion: >= 70%)'
                   + (f'; on {wins} of the {nsolvable} that some configuration solved = '
                      f'{100.0 * wins / nsolvable:.0f}%' if nsolvable else '')
                   + (f'; not on: {"; ".join(notw)}' if notw else ''))
    return out


def profile_ax(ax, ratios, title):
    """Dolan-More step curves of ratios {label: [t / t_best, ...]} into ax"""
    finite = [v for r in ratios.values() for v in r if math.isfinite(v)]
    hi = max(1.0, math.log2(max(finite)) * 1.1) if finite else 1.0
    for f, r in ratios.items():
        r = sorted(r)
        if not r:
            continue
        xs = [0.0]
        ys = [sum(1 for v in r if v <= 1.0) / len(r)]
        for v in r:
            if math.isfinite(v) and v > 1.0:
                xs.append(math.log2(v))
                ys.append(sum(1 for w in r if w <= v) / len(r))
        xs.append(hi)
        ys.append(ys[-1])
        ax.step(xs, ys, where='post', label=f'{f} ({len(r)} problems)', linewidth=2)
    ax.set_xlabel('log2 tau (total time / best total time on the problem)')
    ax.set_ylabel('fraction of problems solved within tau')
    ax.set_ylim(0, 1.02)
    ax.set_xlim(0, hi)
    ax.grid(alpha=0.3)
    ax.legend(loc='lower right', fontsize=8)
    ax.set_title(title, fontsize=9)


def ksp_ratios(rows):
    """each KSP at its best PC configuration, over the (matrix, side) problems it was run on"""
    ksps = [k for k in ('idr', 'idrs', 'gmres', 'bcgs') if any(r['ksp'] == k for r in rows)]
    ksps += sorted({r['ksp'] for r in rows} - set(ksps))
    probs = []
    for r in rows:
        if (r['matrix'], side(r)) not in probs:
            probs.append((r['matrix'], side(r)))
    ratios = {k: [] for k in ksps}
    for m, sd in probs:
        bests = {}
        for k in ksps:
            kr = [r for r in rows if r['matrix'] == m and side(r) == sd and r['ksp'] == k]
            if not kr:
                continue
            b = best(kr)
            bests[k] = total(b) if b is not None and solved(b) else math.inf
        tmin = min(bests.values()) if bests else math.inf
        for k, t in bests.items():
            ratios[k].append(t / tmin if math.isfinite(tmin) and math.isfinite(t) else math.inf)
    return ratios, len(probs)


def profile(rows, plt, out, device):
    """Dolan-More profile; each family over the problems it was run on (pbjacobi: block matrices only)"""
    fams = [f for f in FAMILIES if any(r['pc'] == f for r in rows)]
    probs = problems(rows)
    ratios = {f: [] for f in fams}
    for prob in probs:
        bests = {}
        for f in fams:
            fr = family_rows(rows, prob, f)
            if not fr:
                continue  # not applicable / not run: not in this family's problem set
            b = best(fr)
            bests[f] = total(b) if b is not None and solved(b) else math.inf
        tmin = min(bests.values()) if bests else math.inf
        for f, t in bests.items():
            ratios[f].append(t / tmin if math.isfinite(tmin) and math.isfinite(t) else math.inf)
    kr, nkp = ksp_ratios(rows)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(14, 5))
    profile_ax(ax, ratios, f'PC families: {len(probs)} problems (matrix, KSP, side); solved = converged, '
                           f'true residual <= {TRUE_TOL:g}')
    profile_ax(ax2, kr, f'KSPs at their best PC configuration: {nkp} problems (matrix, side)')
    fig.suptitle(f'bench_solve performance profile: {device[:70]}', fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f'wrote {out}')


def main():
    global TRUE_TOL
    ap = argparse.ArgumentParser(prog='plot_solve.py', description=__doc__.splitlines()[0])
    ap.add_argument('csv')
    ap.add_argument('out', nargs='?')
    ap.add_argument('-o', '--output')
    ap.add_argument('--true-tol', type=float, default=1e-6, help='largest true relative residual of a solved run (default 1e-6)')
    args = ap.parse_args()
    TRUE_TOL = args.true_tol
    png = args.output or args.out or os.path.splitext(args.csv)[0] + '.png'
    md = os.path.splitext(png)[0] + '.md'
    rows, device = read_csv(args.csv)
    text = [f'# bench_solve: {device}', '', f'From {os.path.basename(args.csv)}: {len(rows)} runs.', '']
    for sd in sorted({side(r) for r in rows}):
        text += table1(rows, sd) + ['']
        if any(r['ksp'] == 'idrs' for r in rows):
            text += table1(rows, sd, 'idrs') + ['']
    text += table2(rows) + ['']
    t3 = idrs_vs_idr(rows)
    if t3:
        text += t3 + ['']
    with open(md, 'w') as f:
        f.write('\n'.join(text))
    print('\n'.join(text))
    print(f'wrote {md}')
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print(f'plot_solve.py: matplotlib is not installed (pip install matplotlib): the tables are in {md}, '
              f'the performance profile {png} was not drawn', file=sys.stderr)
        sys.exit(1)
    profile(rows, plt, png, device)


if __name__ == '__main__':
    main()
