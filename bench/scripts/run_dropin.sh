#!/usr/bin/env bash
# The drop-in sweep (issue 38): every PETSc program that runs with -mat_type aijcusparse (or -dm_mat_type aijcusparse)
# runs with baijksparse and is not slower end to end. PETSc's tutorials, unmodified (built from PETSc's source by
# `make bench` into bench/bin and carried by the bundle), each run with aijcusparse and with baijksparse: the same KSP,
# the same PC (jacobi, or pbjacobi where the problem has several fields a point), vectors on the device, plus
# baijksparse with -pc_type vbjacobi where a block Jacobi fits (a block size above 1).
#
# Usage: bench/scripts/run_dropin.sh OUTDIR [--size gpu|quick] [--host] [--cases LIST] [--np LIST] [--timeout S] [--repeat N]
#        bench/scripts/run_dropin.sh OUTDIR --summary-only   (the summary and plot again, from OUTDIR/dropin.csv)
#
#   --size gpu (default): the main stage takes a few seconds on an H200; --size quick: seconds on the 2-core host
#   --host     aij against baijksparse with host vectors (CI on a machine without a GPU); default aijcusparse against
#              baijksparse with -vec_type cuda / -dm_vec_type cuda
#   --cases    a comma list of the case names below (default all)
#   --np       a comma list of MPI rank counts (default 1,2); with more than one rank on a GPU node
#              -use_gpu_aware_mpi 0 is added and the ranks share the visible GPUs as run_tutorials.sh does (PETSc gives
#              rank r the GPU r mod the number of visible GPUs: one each on a 2-GPU node)
#   --timeout  seconds a run may take (default 300 at the gpu size, 120 quick)
#   --repeat   N runs of each configuration (default 1), the types alternating (aij, baijksparse, aij, ...); the
#              summary compares the runs of median main-stage time (a run's main stage also holds the program's own
#              host work and the device's start, which vary by up to 40% between identical runs on the GPU node)
#   --extra "OPTIONS"  PETSc options appended to every run (the last of a repeated option wins), e.g. a lower cap
#
#   Cases (name: PETSc source; what the matrix is; how it is built):
#     ksp_ex2   ksp ex2    2-D 5-point Laplacian, AIJ preallocation (MatMPIAIJSetPreallocation), user MatSetValues
#     ksp_ex3   ksp ex3    bilinear Q1 Laplacian, AIJ preallocation, element MatSetValues
#     ex56      ksp ex56   3-D Q1 elasticity, bs 3, AIJ preallocation (-mat_type)
#     snes_ex3  snes ex3   1-D Newton, DMDA vectors, user matrix with AIJ preallocation
#     ksp_ex23  ksp ex23   1-D tridiagonal, MatSetUp() only, no preallocation
#     ts_ex2    ts ex2     1-D nonlinear PDE, TS beuler, MatSetUp() only
#     ts_ex4    ts ex4     1-D heat equation, TS, MatSetUp() only
#     ksp_ex45  ksp ex45   3-D 7-point Laplacian on a DMDA (KSPSetComputeOperators)
#     ksp_ex50  ksp ex50   2-D Neumann Poisson on a DMDA, null space
#     snes_ex5  snes ex5   2-D Bratu on a DMDA
#     ex19      snes ex19  2-D driven cavity on a DMDA, 4 fields (bs 4)
#     ex5       ts ex5     (advection-diffusion-reaction) Gray-Scott on a DMDA, 2 fields (bs 2)
#     ts_ex26   ts ex26    transient driven cavity on a DMDA, 4 fields (bs 4)
#     snes_ex12 snes ex12  Poisson on a DMPlex, Q1 quadrilaterals
#     snes_ex13 snes ex13  Poisson on a DMPlex, 3-D Q1 hexahedra
#     ex17      snes ex17  linear elasticity on a DMPlex, 3-D Q1, 3 fields (bs 3)
#     ts_ex45   ts ex45    heat equation on a DMPlex, Q1 quadrilaterals
#     snes_ex62 snes ex62  Stokes on a DMPlex, Q2-Q1 (velocity and pressure), gmres + jacobi, capped iterations
#   The linear DMPlex problems (snes ex12, ex13, ts ex45) run with -snes_type ksponly: one Jacobian and one solve (a
#   step); PETSc's host FE assembly is most of their time (snes ex13 40^3: about 2.5 s a residual + Jacobian here).
#   Multigrid PCs (mg, gamg) are left out: other issues handle them. Where a Krylov solve would need far more
#   iterations than its point-Jacobi PC can give at the size (the Poisson-type cases), the case caps it with
#   -ksp_max_it and, inside SNES/TS, -ksp_converged_maxits: both matrix types then do the same work.
#
#   Every run gets -log_view and -ksp_converged_reason. Per run OUTDIR/dropin.csv records: ran or failed (status ok,
#   fail: a PETSc error, its first lines in error; crash: a signal, no PETSc message; timeout), the main stage's time
#   (the "Main Stage" line of -log_view's summary of stages; total: the "Time (sec)" line), the assembly events (max
#   time over ranks of MatSetValues, MatAssemblyBegin, MatAssemblyEnd, and SNESJacobianEval / TSJacobianEval where they
#   are logged; '-' when absent), KSPSolve's time, the linear iterations summed over all solves, the solves that did not
#   converge, the last outer reason, and (filled in by the summary) the ratios baijksparse / aijcusparse of the main
#   stage and of KSPSolve against the aijcusparse run of the same case, rank count and PC (vbjacobi against the
#   aijcusparse run with the case's PETSc PC). OUTDIR/<case>_np<N>_<mat>_<pc>.log holds each run's output.
#   OUTDIR/dropin_summary.md: per case and rank count both times, the ratios, whether baijksparse <= 1.2x
#   aijcusparse on the main stage, and the failures with their messages; OUTDIR/dropin.png (bench/plots/plot_dropin.py):
#   the main-stage ratio per case, a line at 1.2. The device (nvidia-smi's name, or "host") heads both.
#   Exit status: 0 when every run ran or failed cleanly with a recorded PETSc message; 1 on a crash or timeout.
set -uo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
out=""
size=gpu
host=0
allcases=ksp_ex2,ksp_ex3,ex56,snes_ex3,ksp_ex23,ts_ex2,ts_ex4,ksp_ex45,ksp_ex50,snes_ex5,ex19,ex5,ts_ex26,snes_ex12,snes_ex13,ex17,ts_ex45,snes_ex62
cases=$allcases
nps=1,2
tmo=""
extra=""
repeats=1
summary_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --host) host=1; shift ;;
    --cases) cases=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    --repeat) repeats=$2; shift 2 ;;
    --summary-only) summary_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run_dropin.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "run_dropin.sh: one OUTDIR only" >&2; exit 2; }; out=$1; shift ;;
  esac
done
[ -n "$out" ] || { usage >&2; exit 2; }
case "$size" in gpu|quick) ;; *) echo "run_dropin.sh: --size gpu|quick, not $size" >&2; exit 2 ;; esac
[ -n "$tmo" ] || { [ "$size" = gpu ] && tmo=300 || tmo=120; }
mkdir -p "$out" || exit 1

root=$(cd "$(dirname "$0")/../.." && pwd) # this script is in bench/scripts/
lib=${PBG_LIB:-$root/lib/libpetscblockgpu.so}
bin=$root/bench/bin
summary_py=$root/bench/plots/dropin_summary.py
plot_py=$root/bench/plots/plot_dropin.py
mpiexec=${MPIEXEC:-mpiexec}
csv=$out/dropin.csv

# python3 with matplotlib for the plot: python3 itself, else PBG_PYTHON, else the project's venv (conf/fetch-matrices.sh)
plot_python() {
  local p
  for p in python3 ${PBG_PYTHON:-} "${XDG_CACHE_HOME:-$HOME/.cache}/petscblockgpu/pyvenv/bin/python3"; do
    command -v "$p" > /dev/null 2>&1 && "$p" -c 'import matplotlib' 2> /dev/null && { echo "$p"; return 0; }
  done
  return 1
}
finish() { # the summary (which also fills the ratio columns of the CSV) and the plot
  python3 "$summary_py" "$csv" "$out/dropin_summary.md" || { echo "run_dropin.sh: the summary failed" >&2; return 1; }
  local py
  if py=$(plot_python); then "$py" "$plot_py" "$csv" "$out/dropin.png" || echo "run_dropin.sh: no plot"
  else echo "run_dropin.sh: no plot (no python3 with matplotlib; PBG_PYTHON=...)"; fi
}
if [ $summary_only = 1 ]; then
  [ -f "$csv" ] || { echo "run_dropin.sh: --summary-only needs $csv" >&2; exit 2; }
  finish
  exit $?
fi

[ -f "$lib" ] || { echo "run_dropin.sh: no library at $lib (make, or PBG_LIB)" >&2; exit 1; }
if [ $host = 1 ]; then aij=aij; vec=standard; device=host; else
  aij=aijcusparse; vec=cuda; device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
  device=${device:-host}
fi

# CASE -> prob[] (program and its problem options), sz, family, matopt, vecopt[], pc (PETSc's PC used for both types),
# vbj (1: baijksparse + vbjacobi too), outer (the event of the outer solve)
case_setup() {
  local c=$1 q=0 g n s
  [ "$size" = quick ] && q=1
  # an iteration cap of the gpu size, 100 at the quick size (MPICH's ranks busy-poll on a 2-core host)
  cap() { if [ $q = 1 ]; then echo 100; else echo "$1"; fi; }
  vecopt=(-dm_vec_type "$vec"); matopt=-dm_mat_type; pc=jacobi; vbj=0; outer=KSPSolve
  case "$c" in
    ksp_ex2)
      g=2000; [ $q = 1 ] && g=100
      prob=(ksp_ex2 -m $g -n $g -ksp_type cg -ksp_max_it $(cap 1000)); sz="${g}x${g}"; family=prealloc
      matopt=-mat_type; vecopt=(-vec_type "$vec") ;;
    ksp_ex3)
      g=1500; [ $q = 1 ] && g=60
      prob=(ksp_ex3 -m $g -ksp_type cg -ksp_max_it $(cap 1000)); sz="${g}x${g} elements"; family=prealloc
      matopt=-mat_type; vecopt=(-vec_type "$vec") ;;
    ex56)
      n=63; [ $q = 1 ] && n=7
      prob=(ex56 -ne $n -ksp_type cg -ksp_rtol 1e-8); sz="${n}^3 elements"; family=prealloc
      matopt=-mat_type; vecopt=(); pc=pbjacobi; vbj=1 ;;
    snes_ex3)
      n=2000000; [ $q = 1 ] && n=2000
      # its Newton iteration stagnates at this size with capped jacobi solves and stops after a number of steps that
      # rounding decides (4 with aijcusparse, 10 with baijksparse on 2 ranks, session 22): a fixed count, equal work
      prob=(snes_ex3 -n $n -ksp_max_it $(cap 300) -ksp_converged_maxits -snes_max_it 4 -snes_converged_reason); sz="n $n, 4 Newton steps"; family=prealloc
      matopt=-mat_type; outer=SNESSolve ;;
    ksp_ex23)
      n=4000000; [ $q = 1 ] && n=4000
      prob=(ksp_ex23 -n $n -ksp_max_it $(cap 1000)); sz="n $n"; family=matsetup
      matopt=-mat_type; vecopt=(-vec_type "$vec") ;;
    ts_ex2)
      n=2000000 s=10; [ $q = 1 ] && { n=2000; s=5; }
      prob=(ts_ex2 -M $n -ts_max_steps $s -ksp_max_it $(cap 200) -ksp_converged_maxits -snes_converged_reason); sz="M $n, $s steps"; family=matsetup
      matopt=-mat_type; outer=TSStep ;;
    ts_ex4)
      n=2000000 s=10; [ $q = 1 ] && { n=2000; s=5; }
      prob=(ts_ex4 -m $n -ts_type beuler -ts_max_steps $s -ksp_max_it $(cap 200) -ksp_converged_maxits); sz="m $n, $s steps"; family=matsetup
      matopt=-mat_type; outer=TSStep ;;
    ksp_ex45)
      g=160; [ $q = 1 ] && g=16
      prob=(ksp_ex45 -da_grid_x $g -da_grid_y $g -da_grid_z $g -ksp_type cg -ksp_max_it $(cap 1000)); sz="${g}^3"; family=DMDA ;;
    ksp_ex50)
      g=2048; [ $q = 1 ] && g=64
      prob=(ksp_ex50 -da_grid_x $g -da_grid_y $g -ksp_type cg -ksp_max_it $(cap 1000)); sz="${g}x${g}"; family=DMDA ;;
    snes_ex5)
      g=1024; [ $q = 1 ] && g=48
      prob=(snes_ex5 -da_grid_x $g -da_grid_y $g -ksp_type cg -ksp_max_it $(cap 500) -ksp_converged_maxits -snes_converged_reason); sz="${g}x${g}"; family=DMDA
      outer=SNESSolve ;;
    ex19)
      g=512; [ $q = 1 ] && g=24
      prob=(ex19 -da_grid_x $g -da_grid_y $g -snes_converged_reason); sz="${g}x${g}"; family=DMDA
      pc=pbjacobi; vbj=1; outer=SNESSolve ;;
    ex5)
      g=1024 s=10; [ $q = 1 ] && { g=32; s=3; }
      prob=(ex5 -da_grid_x $g -da_grid_y $g -ts_max_steps $s -snes_converged_reason -ts_error_if_step_fails 0); sz="${g}x${g}, $s steps"; family=DMDA-ts
      pc=pbjacobi; vbj=1; outer=TSStep ;;
    ts_ex26)
      g=256 s=5; [ $q = 1 ] && { g=16; s=2; }
      prob=(ts_ex26 -da_grid_x $g -da_grid_y $g -ts_max_steps $s -ksp_max_it $(cap 300) -ksp_converged_maxits -snes_converged_reason -ts_error_if_step_fails 0); sz="${g}x${g}, $s steps"; family=DMDA-ts
      pc=pbjacobi; vbj=1; outer=TSStep ;;
    snes_ex12)
      g=384; [ $q = 1 ] && g=32
      prob=(snes_ex12 -dm_plex_simplex 0 -dm_plex_box_faces $g,$g -petscspace_degree 1 -snes_type ksponly -ksp_type cg -ksp_max_it $(cap 1000) -ksp_converged_maxits -snes_converged_reason); sz="Q1 ${g}x${g}"; family=DMPlex
      outer=SNESSolve ;;
    snes_ex13)
      g=40; [ $q = 1 ] && g=8
      prob=(snes_ex13 -dm_plex_dim 3 -dm_plex_simplex 0 -dm_plex_box_faces $g,$g,$g -potential_petscspace_degree 1 -snes_type ksponly -ksp_type cg -ksp_max_it $(cap 1000) -ksp_converged_maxits -snes_converged_reason); sz="Q1 ${g}^3"; family=DMPlex
      outer=SNESSolve ;;
    ex17)
      g=20; [ $q = 1 ] && g=4
      prob=(ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 1 -dm_plex_box_faces $g,$g,$g -snes_type ksponly -ksp_type cg -ksp_rtol 1e-8 -snes_converged_reason); sz="Q1 ${g}^3"; family=DMPlex
      pc=pbjacobi; vbj=1; outer=SNESSolve ;;
    ts_ex45)
      g=192 s=4; [ $q = 1 ] && { g=16; s=3; }
      prob=(ts_ex45 -dm_plex_simplex 0 -dm_plex_box_faces $g,$g -temp_petscspace_degree 1 -ts_max_steps $s -snes_type ksponly -ksp_type cg -ksp_max_it $(cap 500) -ksp_converged_maxits -snes_converged_reason); sz="Q1 ${g}x${g}, $s steps"; family=DMPlex-ts
      outer=TSStep ;;
    snes_ex62)
      g=128; [ $q = 1 ] && g=8
      prob=(snes_ex62 -sol quadratic -dm_plex_simplex 0 -dm_plex_box_faces $g,$g -vel_petscspace_degree 2 -pres_petscspace_degree 1 -snes_type ksponly -ksp_max_it $(cap 300) -ksp_converged_maxits -snes_converged_reason); sz="Q2-Q1 ${g}x${g}"; family=DMPlex
      outer=SNESSolve ;;
    *) echo "run_dropin.sh: unknown case $c (cases: $allcases)" >&2; return 1 ;;
  esac
  [ -x "$bin/${prob[0]}" ] || { echo "run_dropin.sh: $bin/${prob[0]} missing (make bench)" >&2; return 1; }
}

# -log_view: the max time over ranks of EVENT (sum over its calls), empty when absent
event_time() { awk -v e="$2" '$1 == e && NF > 5 { print $4; exit }' "$1"; }
# the first lines of a failure: PETSc's message (the line after its "Error Message" banner, and the one after it)
error_text() {
  awk '/PETSC ERROR:/ { sub(/^.*PETSC ERROR: */, ""); if ($0 ~ /^-+ Error Message -+$/) { on = 1; next }
         if (on && $0 != "" && $0 !~ /^See https/ && $0 !~ /^-+$/) { m = m (m == "" ? "" : " / ") $0; if (++k == 2) exit } }
       END { print m }' "$1" | cut -c1-300 | tr -d '"'
}

nbad=0
run_one() { # NP MATTYPE PC REPEAT
  local np=$1 mt=$2 p=$3 rep=$4 name log args xs rc status err its nsol nfail reason main total ksp sv ab ae jac jev
  name="${c}_np${np}_${mt}_${p}"
  [ "$repeats" -gt 1 ] && name+="_r$rep"
  log=$out/$name.log
  args=("${prob[@]:1}" "$matopt" "$mt" "${vecopt[@]+"${vecopt[@]}"}" -pc_type "$p" -ksp_converged_reason -log_view)
  # the plugin is loaded in every run (aij too), so that both types pay its load
  args=(-dll_append "$lib" "${args[@]}")
  [ $host = 0 ] && [ "$np" -gt 1 ] && args+=(-use_gpu_aware_mpi 0)
  [ -n "$extra" ] && read -r -a xs <<< "$extra" && args+=("${xs[@]}")
  local t0=$SECONDS
  if [ "$np" -gt 1 ]; then timeout "$tmo" "$mpiexec" -n "$np" "$bin/${prob[0]}" "${args[@]}" > "$log" 2>&1
  else timeout "$tmo" "$bin/${prob[0]}" "${args[@]}" > "$log" 2>&1; fi
  rc=$?
  err=""
  if [ $rc = 0 ]; then status=ok
  elif [ $rc = 124 ] || [ $rc = 137 ]; then status=timeout; err="timed out after $tmo s"
  else
    err=$(error_text "$log")
    if [ -n "$err" ] && ! grep -qE 'Caught signal number|Segmentation Violation' "$log"; then status=fail
    else status=crash; [ -n "$err" ] || err=$(grep -m 1 -iE 'error|signal|abort|killed' "$log" | cut -c1-300 | tr -d '"'); fi
  fi
  [ -n "$err" ] || err="exit $rc"
  [ $rc = 0 ] && err=""
  read -r its nsol nfail < <(awk '/Linear solve (converged|did not converge)/ { n++; s += $NF; if ($0 ~ /did not/) f++ }
        END { printf "%d %d %d\n", s, n, f }' "$log")
  reason=$(grep -oE '(Nonlinear solve|TSSolve|Linear solve) (converged|did not converge) due to [A-Z_]+' "$log" | tail -n 1 | awk '{print $NF}')
  main=$(awk '$1 == "0:" && $2 == "Main" && $3 == "Stage:" { print $4; exit }' "$log")
  total=$(awk '/^Time \(sec\):/ { print $3; exit }' "$log")
  ksp=$(event_time "$log" KSPSolve)
  sv=$(event_time "$log" MatSetValues); ab=$(event_time "$log" MatAssemblyBegin); ae=$(event_time "$log" MatAssemblyEnd)
  jev=-; jac=""
  for e in SNESJacobianEval TSJacobianEval; do jac=$(event_time "$log" $e); [ -n "$jac" ] && { jev=$e; break; }; done
  [ $status = crash ] || [ $status = timeout ] && { nbad=$((nbad + 1)); }
  printf '"%s",%s,%s,%s,"%s",%s,%s,%s,%s,"%s",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,,,,"%s",%s\n' "$device" "$c" "$family" "$np" "$sz" "$mt" "$p" "$rep" \
    "$status" "$err" "${main:--}" "${total:--}" "${ksp:--}" "$its" "$nsol" "$nfail" "${reason:--}" "${sv:--}" "${ab:--}" "${ae:--}" \
    "$jev" "${jac:--}" "$outer:$(event_time "$log" "$outer" | sed 's/^$/-/')" "${prob[0]} ${args[*]}" "$(basename "$log")" >> "$csv"
  printf '  %-10s np %s %-12s %-9s %-7s main %9s s  KSPSolve %9s s  its %7s  %s  (%d s)%s\n' "$c" "$np" "$mt" "$p" "$status" "${main:--}" "${ksp:--}" \
    "$its" "${reason:--}" $((SECONDS - t0)) "${err:+  $err}"
}

echo "device,case,family,np,size,mat_type,pc,repeat,status,error,main_s,total_s,kspsolve_s,linear_its,linear_solves,linear_failed,outer_reason,matsetvalues_s,matassemblybegin_s,matassemblyend_s,jacobian_event,jacobian_s,outer_event_s,median,main_ratio,kspsolve_ratio,command,log" > "$csv"
echo "run_dropin: $device, size $size, ranks $nps, timeout $tmo s, $repeats run(s) each, $aij against baijksparse"
IFS=, read -r -a caselist <<< "$cases"
IFS=, read -r -a nplist <<< "$nps"
for c in "${caselist[@]}"; do
  case_setup "$c" || { nbad=$((nbad + 1)); continue; }
  echo "$c ($family, $sz): ${prob[*]} $matopt {$aij|baijksparse} ${vecopt[*]} -pc_type $pc$([ $vbj = 1 ] && echo '|vbjacobi')"
  for np in "${nplist[@]}"; do
    for ((rep = 1; rep <= repeats; rep++)); do
      run_one "$np" "$aij" "$pc" $rep
      run_one "$np" baijksparse "$pc" $rep
      [ $vbj = 1 ] && run_one "$np" baijksparse vbjacobi $rep
    done
  done
done
finish || nbad=$((nbad + 1))
echo "run_dropin: CSV $csv, summary $out/dropin_summary.md; $nbad run(s) crashed or timed out"
[ $nbad = 0 ]
