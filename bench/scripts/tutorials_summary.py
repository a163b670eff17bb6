# The summary of run_tutorials.sh: summary CSV OUT.md [CONFIRM.csv], or pairs CSV (the flagged pairs, a run a line:
# CASE OWNER MATTYPE KSP PC, for --confirm; with PBG_TUTORIALS_CONFIRM_ALL=1 in the environment, every pair of the
# vbjacobi default and pbjacobi with one KSP, flagged or not: the tests' way to run the confirmation on the host)
import csv, os, statistics, sys
mode = sys.argv[1]
rows = list(csv.DictReader(open(sys.argv[2])))
conf = list(csv.DictReader(open(sys.argv[4]))) if mode == 'summary' and len(sys.argv) > 4 and os.path.exists(sys.argv[4]) else []
def ok(r):  # the outer solve converged (the run's reason) and nothing crashed
    return r['status'] == '0' and r['outer_reason'].startswith('CONVERGED') and r['linear_failed'] in ('0', '') and r['kspsolve_s'] != '-'
def t(r):
    return float(r['kspsolve_s'])
def key(r):
    return (r['case'], r['owner'], r['mat_type'], r['ksp'], r['pc'])
def confirmed(r):  # the median KSPSolve time of r's configuration over the confirming runs (None: none converged)
    ts = [t(q) for q in conf if key(q) == key(r) and ok(q)]
    return statistics.median(ts) if ts else None
def judge(a, b):  # a slower than b by more than 10% in the main runs: does it hold one run at a time?
    ma, mb = confirmed(a), confirmed(b)
    if ma is None or mb is None: return True, ''
    n = min(sum(key(q) == key(a) for q in conf), sum(key(q) == key(b) for q in conf))
    return ma > 1.1 * mb, f"; one run at a time ({n} runs each, medians) {ma:.3g} s against {mb:.3g} s"
out = [f"# PETSc tutorials: time to solution ({rows[0]['device'] if rows else '?'})", '',
       'KSPSolve seconds (all linear solves of the run); best = least KSPSolve time among the runs that converged.', '',
       '| case | size | best PETSc | best ours | speedup | vbjacobi converges where PETSc does | idrs converges where idr/gmres/bcgs do |',
       '|---|---|---|---|---|---|---|']
speedups, fails, notes, pairs = [], [], [], []
for c in dict.fromkeys(r['case'] for r in rows):
    rc = [r for r in rows if r['case'] == c]
    petsc = [r for r in rc if r['owner'] == 'petsc' and ok(r)]
    ours = [r for r in rc if r['owner'] != 'petsc' and ok(r)]
    bp = min(petsc, key=t) if petsc else None
    bo = min(ours, key=t) if ours else None
    variant = lambda r: f" {r['owner']}" if '-mbs' in r['owner'] else ''  # --vbjacobi-sizes runs name their option
    cell = lambda r: f"{t(r):.3g} s ({r['ksp']}+{r['pc']}{variant(r)}, {r['linear_its']} its)" if r else 'none converged'
    sp = t(bp) / t(bo) if bp and bo and t(bo) > 0 else None
    if sp: speedups.append(sp)
    if sp and sp < 1:
        pairs += [bo, bp]
        if conf and confirmed(bo) is not None and confirmed(bp) is not None:
            notes.append(f"{c}: the best of ours ({bo['ksp']}+{bo['pc']}) against the best of PETSc ({bp['ksp']}+{bp['pc']}) "
                         f"one run at a time: {confirmed(bp) / confirmed(bo):.2f}x (medians {confirmed(bo):.3g} s against {confirmed(bp):.3g} s)")
    # per KSP of PETSc's runs: the default converges where a PETSc PC does; against pbjacobi with the same KSP, the faster
    # of ours (the tutorial's matrix type for ours) and ours-aij (PETSc's matrix type) loses by no more than 10% (the
    # run-to-run noise of these runs), by the confirming runs' medians where --confirm made them
    vb_ok, losses = [], []
    for k in dict.fromkeys(r['ksp'] for r in rc if r['owner'] == 'petsc'):
        p_conv = any(ok(r) for r in rc if r['owner'] == 'petsc' and r['ksp'] == k)
        v = [r for r in rc if r['owner'] == 'ours' and r['ksp'] == k]
        if p_conv and not any(ok(r) for r in v):
            vb_ok.append(k); fails.append(f'{c}: vbjacobi with {k} fails where PETSc converges')
        pb = [r for r in rc if r['owner'] == 'petsc' and r['pc'] == 'pbjacobi' and r['ksp'] == k and ok(r)]
        od = [r for r in rc if r['owner'] in ('ours', 'ours-aij') and r['ksp'] == k and ok(r)]
        if pb and od and min(map(t, od)) > 1.1 * t(pb[0]):
            best = min(od, key=t)
            pairs += [best, pb[0]]
            holds, said = judge(best, pb[0])
            line = f"{c}: the vbjacobi default with {k} loses to pbjacobi: {t(best):.3g} s against {t(pb[0]):.3g} s{said}"
            if holds: losses.append(line)
            else: notes.append(line.replace(' loses to ', ' lost in the first runs to ') + ': not a loss')
        elif pb and od:
            if os.environ.get('PBG_TUTORIALS_CONFIRM_ALL') == '1': pairs += [min(od, key=t), pb[0]]
            worst = [r for r in od if t(r) > 1.1 * t(pb[0])]
            for r in worst:
                notes.append(f"{c}: {r['owner']} ({r['mat_type']}) with {k} {t(r):.3g} s against pbjacobi's {t(pb[0]):.3g} s; "
                             f"the other default configuration does not lose")
    fails += losses
    idr_ref = any(ok(r) for r in rc if r['owner'] == 'petsc' and r['ksp'] in ('idr', 'gmres', 'bcgs', 'default'))
    idrs = [r for r in rc if r['owner'] == 'ours-idrs']
    idrs_ok = (not idr_ref) or any(ok(r) for r in idrs)
    if not idrs_ok: fails.append(f'{c}: idrs fails where PETSc idr/gmres/bcgs converge')
    out.append(f"| {c} | {rc[0]['size']} | {cell(bp)} | {cell(bo)} | {f'{sp:.2f}x' if sp else '-'} | "
               f"{'yes' if not vb_ok else 'NO: ' + ', '.join(vb_ok)} | {'yes' if idrs_ok else 'NO'} |")
if mode == 'pairs':
    for r in dict.fromkeys(' '.join(key(r)) for r in pairs): print(r)
    sys.exit(0)
out += ['', f"median best-against-best speedup: {statistics.median(speedups):.2f}x over {len(speedups)} cases" if speedups else 'no speedup measured']
out += [f'- {f}' for f in fails] or ['- no default failed where PETSc converged, and none lost to pbjacobi with the same KSP by more than 10%']
out += [f'- note: {n}' for n in notes]
open(sys.argv[3], 'w').write('\n'.join(out) + '\n')
print('\n'.join(out))
