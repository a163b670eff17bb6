#!/usr/bin/env bash
# The GPU work of a session in one or two device calls, from the unpacked bundle (device time is scarce):
#   ./run.sh bash bench/scripts/gpu_session.sh OUTDIR PART...
# PART: tests      the whole suite, GPU cases only (PBG_GPU_ONLY=1), as many shards at once as GPUs (every shard
#                  sees every GPU: the 2-rank cases take one each)            -> OUTDIR/tests.log
#                  (TESTS_PART=k/m: only the k-th of m parts, k from 1: the suite in m device calls)
#       memcheck   compute-sanitizer memcheck on every GPU case (PETSc's tutorials included) -> OUTDIR/memcheck.log
#       racecheck  compute-sanitizer racecheck on the kernel cases             -> OUTDIR/racecheck.log
#                  (both in PBG_SHARDS parallel runners, default 8, each cut at SANITIZE_SECONDS, default 400; the
#                  log ends with the count of cases whose sanitizer reported errors, expected failures (--fail)
#                  included; SANITIZE_REGEX narrows the cases)
#                  (cuSPARSE's kernels excluded: its csrmv_v3_kernel, run by aijcusparse's MatMult inside the
#                  KSP tests, reports shared-memory WAW hazards of its own, thousands per solve)
#       invert     bench_invert (500k blocks, n = 1..32, mixed)                 -> OUTDIR/invert.{csv,txt}
#       vbjacobi   bench_vbjacobi (1M rows, four patterns, maxbs 1..32)         -> OUTDIR/vbjacobi.{csv,txt}
#       richardson bench_richardson: vbjacobi's fused Richardson sweep against KSPRICHARDSON's loop (27-point block
#                  stencil 64^3, bs 2-6)                                       -> OUTDIR/richardson.{csv,txt}
#                  and KSPCHEBYSHEV's fused steps against its own loop        -> OUTDIR/chebyshev.{csv,txt}
#       bsrmv      bench_bsrmv (1 GiB of values per matrix)                     -> OUTDIR/bsrmv.{csv,txt}
#       values     bench_values: value operations (scale, shift, axpy, copy, duplicate, zero rows, ...) and COO
#                  assembly on 1 GiB of values, baijksparse against aijcusparse, with the host<->device bytes of
#                  each call (issue 11)                                        -> OUTDIR/values.{csv,txt}
#       ts_ex5     run_ts_ex5_bytes.sh: PETSc's ts ex5 at 1024x1024, 5 steps, baijksparse and aijcusparse with
#                  vbjacobi: host<->device bytes per step and matrix uploads per Jacobian evaluation (issue 11)
#                                                                               -> OUTDIR/ts_ex5_bytes.{csv,txt}
#       tune       tune_baijksparse -> OUTDIR/share/petscblockgpu/baijksparse_tuning_sm<XY>.txt (commit it there)
#       scaling    run_scaling.sh over the visible GPUs (SCALING_ARGS: bench_scaling options; several matrices
#                  separated by ';', e.g. "-grid 98 -bs 4;-grid 62 -bs 8")    -> OUTDIR/scaling.{csv,txt}
#       gamg       run_gamg.sh: PCGAMG on ksp ex56 and snes ex17, aijcusparse against baijksparse (GAMG_ARGS: its options,
#                  e.g. "--cases ex56_79 --configs aij_jac,baij_vbj_single --np 1,2")  -> OUTDIR/gamg/ (CSV, summary)
#       mg         run_mg.sh: PCMG on snes ex19, ts ex5 and snes ex17, aijcusparse against baijksparse (MG_ARGS: its
#                  options)                                                    -> OUTDIR/mg/ (CSV, summary)
#       tutorials  run_tutorials.sh at --size gpu, one run a GPU at once (TUTORIAL_ARGS: more of its options, e.g.
#                  "--cases ex19,ex5 --timeout 300")                          -> OUTDIR/tutorials/
#       solve_scaling  run_solve_scaling.sh: snes ex19 weak and strong scaling of the solve, baijksparse + vbjacobi +
#                  idrs with the NCCL and the VecScatter ghost exchange, aijcusparse + pbjacobi + idrs -> OUTDIR/solve_scaling.{csv,txt}
#                  (SOLVE_SCALING_ARGS: ex19 options added to every run; CONFIGS, SCALINGS, WEAK_UNKNOWNS as the script says)
#       solve      bench_solve, time to solution: the SuiteSparse matrices of data/suitesparse, the real-matrix set
#                  of tests/data/matrices (MANIFEST.tsv) and two PETSc tutorial Jacobians at 512x512 (snes ex19, bs 4;
#                  ts ex5, bs 2; made first by bench/scripts/make_tutorial_jacobians.sh in a temporary directory), KSPIDR(4),
#                  our KSPIDRS(4), GMRES(30), BiCGStab, every PC config                          -> OUTDIR/solve.{csv,txt}
#                  Several bench_solve runs append to one CSV, by priority: SuiteSparse with IDR, the tutorials, the
#                  real-matrix set, SuiteSparse with GMRES and BiCGStab; each gets a -budget so that the part ends by
#                  SOLVE_DEADLINE seconds (default 400) after it started, a run in progress aside (-time_cap), and
#                  -stagnation_its SOLVE_STAGNATION (default 5000: a solve whose residual has not dropped by 10% in
#                  5000 iterations stops, reason "stagnation"; 0 = the paper's protocol, 50,000 iterations).
#       ex19_idrs  PETSc's snes ex19 at 512x512 (1M unknowns, bs 4) with baijksparse + vbjacobi, one Newton step, the
#                  linear solve by KSPIDR(4) and by our KSPIDRS(4) (fused path; its Vec path; left/preconditioned as
#                  KSPIDR's norm; right/unpreconditioned for both): -log_view of each (KSPSolve time, iterations, the
#                  vector events) -> OUTDIR/ex19_idrs.txt (issue 13's time per iteration)
#       solve_small bench_solve on data/suitesparse only, KSPIDR(4) with jacobi, vbjacobi (supervariable) and
#                  vpbjacobi at the bounds 8..32, the paper's protocol (up to 50,000 iterations, -time_cap 10): its
#                  Table 1 (H100: about 130 s)                                    -> OUTDIR/solve_small.{csv,txt}
#                  SOLVE_ARGS: bench_solve options added to every solve/solve_small run (they win: e.g.
#                  SOLVE_ARGS="-bounds 8,16,32 -ksp_types idr,gmres" to trim, "-time_cap 5").
# Every part runs even when an earlier one failed; the exit status is that of the last failing part.
set -u
out=${1:?usage: gpu_session.sh OUTDIR PART...}
shift
mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) # the root: this script is in bench/scripts/
kernels='^(inv_|vbj_gpu|bk_gpu|tut_gpu_)'
status=0

# The GPU cases matching REGEX under a sanitizer, in PBG_SHARDS runners at once -> OUTDIR/NAME.log. A case fails on a
# sanitizer error through --error-exitcode; a case that must fail (--fail) would hide one, so every case log is searched
# for the sanitizer's error summary too.
sanitized() { # NAME REGEX WRAP
  local name=$1 re=$2 wrap=$3 n=${PBG_SHARDS:-8} i logs rc=0 bad
  logs=$(mktemp -d)
  for ((i = 0; i < n; i++)); do
    PBG_SHARD=$i/$n PBG_LOGDIR=$logs/$i PBG_GPU_ONLY=1 PBG_WRAP="$wrap" timeout "${SANITIZE_SECONDS:-400}" bash "$here/tests/run.sh" "$re" > "$logs/run$i.txt" 2>&1 &
  done
  for ((i = 0; i < n; i++)); do wait -n || rc=1; done
  {
    echo "=== $name: $wrap, cases matching /$re/, $n runners, each cut at ${SANITIZE_SECONDS:-400} s"
    for ((i = 0; i < n; i++)); do grep -qE '^[0-9]+ passed, ' "$logs/run$i.txt" || echo "runner $i was cut before its last case"; done
    cat "$logs"/run*.txt | grep -vE '^(petscblockgpu tests:|[0-9]+ passed, )'
    awk '/^[0-9]+ passed, [0-9]+ failed/ {p += $1; f += $3; s += $5} END {print p " passed, " f " failed, " s " skipped (all runners)"}' "$logs"/run*.txt
    bad=$(grep -lE '(ERROR|RACECHECK) SUMMARY: [1-9]' "$logs"/*/*.log 2> /dev/null | xargs -r -n1 basename | sed 's/\.log$//')
    echo "cases whose sanitizer reported errors: $(echo "$bad" | grep -c .) ${bad//$'\n'/ }"
    echo "cases with a sanitizer summary: $(grep -lE '(ERROR|RACECHECK) SUMMARY:' "$logs"/*/*.log 2> /dev/null | wc -l)"
  } > "$out/$name.log"
  [ -z "$bad" ] || rc=1
  rm -rf "$logs"
  return $rc
}

# bench_solve into OUTDIR/NAME.{csv,txt} (appending), with a -budget that keeps the part inside its deadline
solve_run() { # NAME DEADLINE(epoch s) TIME_CAP ARGS...
  local name=$1 deadline=$2 cap=$3 now budget
  shift 3
  now=$(date +%s)
  budget=$((deadline - now - ${cap%.*} - 5))
  if [ "$budget" -le 0 ]; then
    echo "=== solve: no time left for: bench_solve $*" | tee -a "$out/$name.txt"
    return 0
  fi
  echo "=== bench_solve $* -time_cap $cap -budget $budget ${SOLVE_ARGS:-}" >> "$out/$name.txt"
  # shellcheck disable=SC2086 # SOLVE_ARGS is a list of options
  bench_solve "$@" -time_cap "$cap" -budget "$budget" -o "$out/$name.csv" -append ${SOLVE_ARGS:-} >> "$out/$name.txt" 2>&1
}
solve_small() {
  rm -f "$out/solve_small.csv" "$out/solve_small.txt"
  solve_run solve_small $(($(date +%s) + ${SOLVE_DEADLINE:-400})) 10 -suitesparse_dir "$here/data/suitesparse" -ksp_types idr \
    -pcs jacobi,vbjacobi,vpbjacobi -blockings supervariable -mat_types aij
}
solve_all() {
  local deadline tut rc=0 stag="-stagnation_its ${SOLVE_STAGNATION:-5000}"
  deadline=$(($(date +%s) + ${SOLVE_DEADLINE:-400}))
  rm -f "$out/solve.csv" "$out/solve.txt"
  tut=$(mktemp -d)
  bash "$here/bench/scripts/make_tutorial_jacobians.sh" "$tut" >> "$out/solve.txt" 2>&1 || rc=$?
  # by priority: the paper's matrices with IDR and IDRS (Table 1), the GPU-scale tutorial Jacobians, the real-matrix set, then
  # GMRES and BiCGStab on the paper's matrices (GMRES(30) stagnates on most of them)
  # shellcheck disable=SC2086 # $stag is two words
  solve_run solve "$deadline" 10 -suitesparse_dir "$here/data/suitesparse" -ksp_types idr,idrs $stag || rc=$?
  if [ -f "$tut/cavity512.petsc" ] && [ -f "$tut/grayscott512.petsc" ]; then
    # grayscott: 100..300 iterations a solve, every KSP (10 s in all on an H100); cavity (the Jacobian at ex19's
    # initial guess): IDR and BiCGStab take 3000..20000 iterations (2..8 s a solve), GMRES(30) stagnates in every
    # configuration (5000 iterations, 2.3 s each): left out unless SOLVE_ARGS asks for it
    # shellcheck disable=SC2086
    solve_run solve "$deadline" 8 -f "$tut/grayscott512.petsc:2" $stag || rc=$?
    # shellcheck disable=SC2086
    solve_run solve "$deadline" 8 -f "$tut/cavity512.petsc:4" -ksp_types idr,idrs,bcgs $stag || rc=$?
  else
    echo "=== solve: no tutorial Jacobians (see make_tutorial_jacobians above)" >> "$out/solve.txt"
  fi
  rm -rf "$tut"
  # shellcheck disable=SC2086
  solve_run solve "$deadline" 5 -matrices_dir "$here/tests/data/matrices" $stag || rc=$?
  # shellcheck disable=SC2086
  solve_run solve "$deadline" 3 -suitesparse_dir "$here/data/suitesparse" -ksp_types gmres,bcgs $stag || rc=$?
  grep -E '^bench_solve: [0-9]+ runs|budget .* reached|no time left' "$out/solve.txt"
  return "$rc"
}

ex19_idrs() {
  local ksp log its t
  for ksp in "idr -ksp_idr_s 4" "idrs -ksp_idrs_s 4" "idrs -ksp_idrs_s 4 -ksp_idrs_fused 0" "idrs -ksp_idrs_s 4 -ksp_pc_side left -ksp_norm_type preconditioned" \
    "idr -ksp_idr_s 4 -ksp_pc_side right -ksp_norm_type unpreconditioned"; do
    echo "=== ex19 512x512 -ksp_type $ksp"
    # shellcheck disable=SC2086 # $ksp is a list of options
    log=$(ex19 -dll_append "$here/lib/libpetscblockgpu.so" -da_grid_x 512 -da_grid_y 512 -lidvelocity 100 -grashof 1e3 -dm_mat_type baijksparse -dm_vec_type cuda \
      -pc_type vbjacobi -ksp_type $ksp -snes_max_it 1 -snes_convergence_test skip -ksp_max_it 20000 -ksp_converged_reason -ksp_view -log_view 2>&1)
    echo "$log" | grep -E 'Linear solve|vector work|^(KSPSolve|MatMult|PCApply|VecAXPY|VecMAXPY|VecMDot|VecDot|VecNorm|VecAYPX|VecAXPBY|VecWAXPY|KSPIDRSUpdate|KSPIDRSReduce|VBJacApply|BAIJKMult) '
    echo "$log" | grep -iE 'error' | head -5
    its=$(echo "$log" | sed -n 's/.*Linear solve converged due to .* iterations \([0-9]*\).*/\1/p' | tail -1)
    t=$(echo "$log" | awk '$1 == "KSPSolve" {print $4}' | tail -1)
    [ -n "$its" ] && [ -n "$t" ] && awk -v t="$t" -v i="$its" 'BEGIN {printf "per iteration: %.1f us (KSPSolve %.3f s, %d iterations)\n", 1e6 * t / i, t, i}'
  done
}

for part in "$@"; do
  echo "=== $part ($(date +%T))"
  case "$part" in
    tests)
      ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
      ngpu=$((ngpu > 1 ? ngpu : 1))
      rc=0
      # TESTS_PART=k/m: the k-th of m parts of the suite (k from 1), for a suite longer than one device call
      part=${TESTS_PART:-1/1}
      pk=${part%/*}
      pm=${part#*/}
      for ((g = 0; g < ngpu; g++)); do
        PBG_SHARD=$(((pk - 1) * ngpu + g))/$((pm * ngpu)) PBG_LOGDIR="$out/testlogs/$g" PBG_GPU_ONLY=1 bash "$here/tests/run.sh" > "$out/tests$g.txt" 2>&1 &
      done
      for ((g = 0; g < ngpu; g++)); do wait -n || rc=1; done
      { cat "$out"/tests[0-9]*.txt | grep -vE '^[0-9]+ passed, '
        awk '/^[0-9]+ passed, [0-9]+ failed/ {p += $1; f += $3; s += $5} END {print p " passed, " f " failed, " s " skipped"}' "$out"/tests[0-9]*.txt; } > "$out/tests.log"
      rm -f "$out"/tests[0-9]*.txt ;;
    # --report-api-errors no: NCCL's communicator setup probes its kernels for every architecture and gets
    # cudaErrorNoKernelImageForDevice by design (8 such reports per 2-rank run, no memory error); every CUDA call of ours
    # is checked by PetscCallCUDA, so an API error of ours fails its case anyway
    memcheck) sanitized memcheck "${SANITIZE_REGEX:-.}" "compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 99"; rc=$? ;;
    racecheck) sanitized racecheck "${SANITIZE_REGEX:-$kernels}" "compute-sanitizer --tool racecheck --racecheck-report hazard --kernel-name-exclude kns=cusparse --error-exitcode 99"; rc=$? ;;
    invert) bench_invert -o "$out/invert.csv" > "$out/invert.txt" 2>&1; rc=$? ;;
    richardson) bench_richardson -n 64 -csv "$out/richardson.csv" > "$out/richardson.txt" 2>&1; rc=$?
      bench_richardson -n 64 -method chebyshev -csv "$out/chebyshev.csv" > "$out/chebyshev.txt" 2>&1 || rc=1 ;;
    vbjacobi) bench_vbjacobi -o "$out/vbjacobi.csv" -matrices "$here/tests/data/matrices" > "$out/vbjacobi.txt" 2>&1; rc=$? ;;
    bsrmv) bench_bsrmv -o "$out/bsrmv.csv" > "$out/bsrmv.txt" 2>&1; rc=$? ;;
    values) bench_values -o "$out/values.csv" > "$out/values.txt" 2>&1; rc=$?; tail -n 16 "$out/values.txt" ;;
    ts_ex5) bash "$here/bench/scripts/run_ts_ex5_bytes.sh" "$out" > "$out/ts_ex5.log" 2>&1; rc=$?; grep -E '^[a-z]+:|criterion' "$out/ts_ex5_bytes.txt" ;;
    tune) (cd "$out" && mkdir -p share/petscblockgpu && tune_baijksparse) > "$out/tune.txt" 2>&1; rc=$? ;;
    scaling)
      rc=0
      IFS=';' read -r -a matrices <<< "${SCALING_ARGS:- }"
      for m in "${matrices[@]}"; do
        # shellcheck disable=SC2086 # $m is a list of bench_scaling options
        bash "$here/bench/scripts/run_scaling.sh" "$out/scaling.csv" $m >> "$out/scaling.txt" 2>&1 || rc=$?
      done
      grep speedup "$out/scaling.txt" | sort -u ;;
    tutorials)
      ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
      # shellcheck disable=SC2086 # TUTORIAL_ARGS is a list of options
      bash "$here/bench/scripts/run_tutorials.sh" "$out/tutorials" --gpus "$((ngpu > 1 ? ngpu : 1))" ${TUTORIAL_ARGS:-} > "$out/tutorials.txt" 2>&1; rc=$?
      cat "$out/tutorials/tutorials_summary.md" ;;
    # shellcheck disable=SC2086 # SOLVE_SCALING_ARGS: ex19 options for every run (e.g. -ksp_rtol 1e-5)
    solve_scaling) bash "$here/bench/scripts/run_solve_scaling.sh" "$out/solve_scaling.csv" ${SOLVE_SCALING_ARGS:-} > "$out/solve_scaling.txt" 2>&1; rc=$?; cat "$out/solve_scaling.txt" ;;
    # shellcheck disable=SC2086 # GAMG_ARGS, MG_ARGS: more options of run_gamg.sh, run_mg.sh (e.g. "--np 1,2")
    gamg) bash "$here/bench/scripts/run_gamg.sh" "$out/gamg" ${GAMG_ARGS:-} > "$out/gamg.txt" 2>&1; rc=$?; cat "$out/gamg/gamg_summary.md" ;;
    # shellcheck disable=SC2086
    mg) bash "$here/bench/scripts/run_mg.sh" "$out/mg" ${MG_ARGS:-} > "$out/mg.txt" 2>&1; rc=$?; cat "$out/mg/mg_summary.md" ;;
    solve) solve_all; rc=$? ;;
    ex19_idrs) ex19_idrs > "$out/ex19_idrs.txt" 2>&1; rc=$?; grep -E '^(===|per iteration)' "$out/ex19_idrs.txt" ;;
    solve_small) solve_small; rc=$?; grep -E '^bench_solve: [0-9]+ runs' "$out/solve_small.txt" ;;
    *) echo "gpu_session.sh: unknown part '$part'" >&2; rc=2 ;;
  esac
  echo "=== $part: exit $rc ($(date +%T))"
  [ -f "$out/$part.log" ] && tail -n 3 "$out/$part.log"
  [ "$rc" -eq 0 ] || status=$rc
done
exit "$status"
