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
