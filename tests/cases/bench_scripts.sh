# bench/scripts/compare_builds.sh --summary-only (issue 24's before/after of two builds): the new/old medians from
# the CSVs of a GPU session (bench/results/compare_builds_h200) and from two ex19 logs made up here with known ratios
pbg_compare_builds_summary() {
  local d=$PBG_WORKDIR/compare_builds out r
  rm -rf "$d" && mkdir -p "$d" || return 1
  cp "$PBG_ROOT"/bench/results/compare_builds_h200/{old,new}_r[12]_*.csv "$d"/ || return 1
  for r in 1 2; do
    printf '  Linear solve converged due to CONVERGED_RTOL iterations 100\nKSPSolve  1 1.0 1.0000e+00 1.0\n' > "$d/old_r${r}_ex19.txt"
    printf '  Linear solve converged due to CONVERGED_RTOL iterations 90\nKSPSolve  1 1.0 8.1000e-01 1.0\n' > "$d/new_r${r}_ex19.txt"
  done
  out=$(bash "$PBG_ROOT/bench/scripts/compare_builds.sh" --summary-only "$d" 2) || return 1
  echo "$out"
  grep -qE '^  3d27 2 +time 0\.880$' <<< "$out" \
    && grep -qE '^  laplace 8 seqbaijksparse vbjacobi +setup 0\.913  apply 1\.003$' <<< "$out" \
    && grep -qE 'time/iteration 0\.900  iterations 0\.900$' <<< "$out" \
    && [ "$(grep -c ',' "$d/summary.csv")" -ge 50 ]
}
if [ -d "$PBG_ROOT/bench/results/compare_builds_h200" ]; then
  tcheck bench_compare_builds_summary -- pbg_compare_builds_summary
fi
# bench/scripts/run_dropin.sh (issue 38, the drop-in sweep) on the host at its quick size, three cases of different kinds
# (MatSetUp only, DMDA, AIJ preallocation with bs 3 and vbjacobi): every run ran, the CSV has a row a run with the
# ratio filled for each baijksparse run, the summary names the device and checks the 1.2x promise; then --summary-only
pbg_run_dropin_quick() {
  local d=$PBG_WORKDIR/run_dropin_quick
  rm -rf "$d"
  bash "$PBG_ROOT/bench/scripts/run_dropin.sh" "$d" --host --size quick --np 1 --cases ksp_ex23,snes_ex5,ex56 || return 1
  python3 - "$d/dropin.csv" << 'PY' || return 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r for r in rows if r['status'] == 'ok' and r['device'] == 'host' and r['main_s'] != '-']
ratios = [r for r in rows if r['mat_type'] == 'baijksparse' and r['main_ratio'] and r['kspsolve_ratio']]
print(len(rows), 'rows,', len(ok), 'ran,', len(ratios), 'baijksparse rows with both ratios')
sys.exit(not (len(rows) == 7 and len(ok) == 7 and len(ratios) == 4))
PY
  grep -q 'Device: \*\*host\*\*' "$d/dropin_summary.md" && grep -qE '^\| ex56 \| prealloc \| .* \| vbjacobi \|' "$d/dropin_summary.md" || return 1
  bash "$PBG_ROOT/bench/scripts/run_dropin.sh" "$d" --summary-only > /dev/null || return 1
}
# --repeat 3: three rows a configuration, exactly one of them marked the median (the middle main-stage time), the ratio
# on that baijksparse row only, the spread column in the summary
pbg_run_dropin_repeat() {
  local d=$PBG_WORKDIR/run_dropin_repeat
  rm -rf "$d"
  bash "$PBG_ROOT/bench/scripts/run_dropin.sh" "$d" --host --size quick --np 1 --cases ksp_ex23 --repeat 3 || return 1
  python3 - "$d/dropin.csv" << 'PY' || return 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for mt in ('aij', 'baijksparse'):
    g = [r for r in rows if r['mat_type'] == mt]
    med = [r for r in g if r['median'] == 'yes']
    times = sorted(float(r['main_s']) for r in g)
    assert len(g) == 3 and sorted(r['repeat'] for r in g) == ['1', '2', '3'], g
    assert len(med) == 1 and float(med[0]['main_s']) == times[1], (med, times)
    assert all(bool(r['main_ratio']) == (mt == 'baijksparse' and r['median'] == 'yes') for r in g)
print('ok')
PY
  grep -qE '^\| ksp_ex23 \| .* \| [0-9.]+-[0-9.]+ \(3 runs\) / [0-9.]+-[0-9.]+ \(3 runs\) \|$' "$d/dropin_summary.md" || return 1
  [ -f "$d/ksp_ex23_np1_baijksparse_jacobi_r3.log" ]
}
# run_gamg.sh (issue 39) on the host: every configuration of ex56, snes ex17 and ksp ex55 runs on 1 and 2 ranks, with the
# same iterations on aij and baijksparse for the same smoother; the summary has a row per case and rank count
pbg_run_gamg_host() {
  local d=$PBG_WORKDIR/run_gamg
  rm -rf "$d"
  bash "$PBG_ROOT/bench/scripts/run_gamg.sh" "$d" --host --quick --cases ex56_79,ex17_q1,ex55_1000 --np 1,2 || return 1
  python3 - "$d/gamg.csv" << 'PY' || return 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 24, len(rows)
for r in rows:
    assert r['status'] == 'ok' and float(r['kspsolve_s']) > 0 and float(r['pcsetup_s']) > 0, r
its = {(r['case'], r['np'], r['config']): r['its'] for r in rows}
for c in ('ex56_79', 'ex17_q1', 'ex55_1000'):  # the same smoother on both types: jacobi, point-block (vbjacobi finds the blocks)
    for np in ('1', '2'):
        for a, b in (('aij_jac', 'baij_jac'), ('aij_pbj', 'baij_vbj')):
            assert its[(c, np, a)] == its[(c, np, b)], (c, np, a, b, its[(c, np, a)], its[(c, np, b)])
print('ok')
PY
  [ "$(grep -cE '^\| ex(56_79|17_q1|55_1000) \| [12] \| (aij_jac|aij_pbj): .* \| baij_(jac|vbj): .* \| [0-9.]+x \|' "$d/gamg_summary.md")" = 6 ] || return 1
}
if [ -x "$PBG_ROOT/bench/bin/ex56" ] && [ -x "$PBG_ROOT/bench/bin/ex17" ] && [ -x "$PBG_ROOT/bench/bin/ksp_ex55" ]; then
  tcheck run_gamg_host -- pbg_run_gamg_host
fi

# run_mg.sh (issue 40) on the host: every configuration of every case runs and converges, ours with the linear
# iterations of PETSc's pbjacobi levels (the same point blocks; the fused steps and the single-precision sweeps take
# the host path there: the same solver);
# the summary has a row per case and the median
pbg_run_mg_host() {
  local d=$PBG_WORKDIR/run_mg
  rm -rf "$d"
  bash "$PBG_ROOT/bench/scripts/run_mg.sh" "$d" --host --quick || return 1
  python3 - "$d/mg.csv" << 'PY' || return 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 25, len(rows)
for r in rows:
    assert r["status"] == "ok" and int(r["its"]) > 0 and float(r["kspsolve_s"]) > 0, r
for c in set(r["case"] for r in rows):
    its = set(r["its"] for r in rows if r["case"] == c and (r["config"] == "aij_pbj" or r["config"].startswith("ours")))
    assert len(its) == 1, (c, its)
PY
  [ "$(grep -cE '^\| ex(19mg_513|19mg_513c|19mg_1025c|5mg|17mg) \| 1 \| aij_(jac|pbj): .* \| ours[a-z_]*: .* \| [0-9.]+x \| - \|$' "$d/mg_summary.md")" = 5 ] || return 1
  grep -q '^Median speedup of our best over PETSc' "$d/mg_summary.md" || return 1
  # two ranks (PCMG's redundant coarse solve; ours_dense names pbgdense under its prefix): every configuration runs
  rm -rf "$d"
  bash "$PBG_ROOT/bench/scripts/run_mg.sh" "$d" --host --quick --np 2 --cases ex19mg_513c --configs aij_pbj,ours,ours_dense || return 1
  [ "$(grep -c ',ex19mg_513c,2,[a-z_]*,ok,' "$d/mg.csv")" = 3 ] || return 1
  grep -qE '^\| ex19mg_513c \| 2 \| aij_pbj: .* \| ours[a-z_]*: .* \| [0-9.]+x \| - \|$' "$d/mg_summary.md"
}
if [ -x "$PBG_ROOT/bench/bin/ex19" ] && [ -x "$PBG_ROOT/bench/bin/ex5" ] && [ -x "$PBG_ROOT/bench/bin/ex17" ]; then
  tcheck run_mg_host -- pbg_run_mg_host
fi

if [ -x "$PBG_ROOT/bench/bin/ksp_ex23" ] && [ -x "$PBG_ROOT/bench/bin/snes_ex5" ] && [ -x "$PBG_ROOT/bench/bin/ex56" ]; then
  tcheck run_dropin_quick_host -- pbg_run_dropin_quick
  tcheck run_dropin_repeat_host -- pbg_run_dropin_repeat
fi
