#!/usr/bin/env bash
# The GPU work of a session in one or two device calls, from the unpacked bundle (device time is scarce):
#   ./run.sh bash bench/gpu_session.sh OUTDIR PART...
# PART: tests      the whole suite, GPU cases only (PBG_GPU_ONLY=1)          -> OUTDIR/tests.log
#       memcheck   compute-sanitizer memcheck on the kernel cases              -> OUTDIR/memcheck.log
#       racecheck  compute-sanitizer racecheck on the kernel cases             -> OUTDIR/racecheck.log
#                  (cuSPARSE's kernels excluded: its csrmv_v3_kernel, run by aijcusparse's MatMult inside the
#                  KSP tests, reports shared-memory WAW hazards of its own, thousands per solve)
#       invert     bench_invert (500k blocks, n = 1..32, mixed)                 -> OUTDIR/invert.{csv,txt}
#       vbjacobi   bench_vbjacobi (1M rows, four patterns, maxbs 1..32)         -> OUTDIR/vbjacobi.{csv,txt}
#       bsrmv      bench_bsrmv (1 GiB of values per matrix)                     -> OUTDIR/bsrmv.{csv,txt}
#       tune       tune_baijksparse -> OUTDIR/conf/baijksparse_tuning_sm<XY>.txt (commit it under conf/)
#       scaling    run_scaling.sh over the visible GPUs                         -> OUTDIR/scaling.{csv,txt}
# Every part runs even when an earlier one failed; the exit status is that of the last failing part.
set -u
out=${1:?usage: gpu_session.sh OUTDIR PART...}
shift
mkdir -p "$out"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kernels='^(inv_|vbj_gpu|bk_gpu)'
status=0
for part in "$@"; do
  echo "=== $part ($(date +%T))"
  case "$part" in
    tests) PBG_GPU_ONLY=1 bash "$here/tests/run.sh" > "$out/tests.log" 2>&1; rc=$? ;;
    memcheck) PBG_GPU_ONLY=1 PBG_WRAP="compute-sanitizer --tool memcheck --error-exitcode 99" bash "$here/tests/run.sh" "$kernels" > "$out/memcheck.log" 2>&1; rc=$? ;;
    racecheck) PBG_GPU_ONLY=1 PBG_WRAP="compute-sanitizer --tool racecheck --racecheck-report hazard --kernel-name-exclude kns=cusparse --error-exitcode 99" bash "$here/tests/run.sh" "$kernels" > "$out/racecheck.log" 2>&1; rc=$? ;;
    invert) bench_invert -o "$out/invert.csv" > "$out/invert.txt" 2>&1; rc=$? ;;
    vbjacobi) bench_vbjacobi -o "$out/vbjacobi.csv" -matrices "$here/tests/data/matrices" > "$out/vbjacobi.txt" 2>&1; rc=$? ;;
    bsrmv) bench_bsrmv -o "$out/bsrmv.csv" > "$out/bsrmv.txt" 2>&1; rc=$? ;;
    tune) (cd "$out" && mkdir -p conf && tune_baijksparse) > "$out/tune.txt" 2>&1; rc=$? ;;
    scaling) bash "$here/bench/run_scaling.sh" "$out/scaling.csv" > "$out/scaling.txt" 2>&1; rc=$? ;;
    *) echo "gpu_session.sh: unknown part '$part'" >&2; rc=2 ;;
  esac
  echo "=== $part: exit $rc ($(date +%T))"
  [ -f "$out/$part.log" ] && tail -n 3 "$out/$part.log"
  [ "$rc" -eq 0 ] || status=$rc
done
exit "$status"
