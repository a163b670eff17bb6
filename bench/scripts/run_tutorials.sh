#!/usr/bin/env bash
# Time to solution in PETSc's own tutorials, unmodified, at GPU scale: PETSc's built-in GPU configurations against ours
# (issue 22). The tutorials are built from PETSc's source by `make bench` (bench/bin/ex19, ex5, ex17, ex56) and carried
# by the bundle.
#
# Usage: bench/scripts/run_tutorials.sh OUTDIR [--size gpu|quick] [--host] [--cases LIST] [--np N] [--timeout S] [--gpus N]
#                                             [--vbjacobi-sizes LIST] [--runs-per-gpu K [--stagger S]] [--confirm K]
#        bench/scripts/run_tutorials.sh OUTDIR --summary-only   (the summary and plot again, from OUTDIR/tutorials.csv)
#
#   Cases (--cases, default all; sizes for --size gpu, the default, and --size quick, a CI-sized check of the script):
#     ex19      snes ex19 (driven cavity, 4 dof), to SNES convergence; 512^2 (quick 24^2)
#     ex5       ts ex5 (Gray-Scott, 2 dof), 10 time steps; 1024^2 (quick 32^2, 3 steps)
#     ex17mg    snes ex17 (DMPlex Q1 finite-element linear elasticity in 3-D, vector fields), geometric multigrid
#               (-dm_refine_hierarchy, PCMG), CG outside; the PC compared is the level smoother's
#     ex17gamg  the same problem with PCGAMG; the PC compared is the level smoother's
#               (both ex17 cases spend ~130 s a run in DMPlex assembly on the host and 0.01..0.03 s in KSPSolve on an
#               H200: 18 runs, the longest part of a GPU session; give them their own call or leave them out)
#     ex56      ksp ex56 (3-D Q1 elasticity, bs 3, a KSP alone), CG and the others; 63^3 elements, 0.8M unknowns
#     ex19mg    snes ex19 with DMDA geometric multigrid (-da_refine, PCMG); the PC compared is the level smoother's
#   Configurations of each case, each KSP of the case's list (the tutorial's default first, then gmres, bcgs, idr, cg
#   where the problem is symmetric):
#     petsc     aijcusparse (--host: aij) with -pc_type jacobi, pbjacobi and vpbjacobi: PETSc's built-in GPU choices
#     ours      -pc_type vbjacobi and nothing else (+ -dm_mat_type / -mat_type baijksparse where the tutorial takes it;
#               PCGAMG needs an AIJ operator, so ex17gamg keeps aijcusparse and vbjacobi is its level smoother)
#     ours-idrs the same with -ksp_type idrs
#     ours-aij  (ex19mg) aijcusparse with vbjacobi as the level smoother: PETSc's DMDA builds the interpolation on the
#               host for a -dm_mat_type not named aij*, baijksparse included
#     ours-mbsK, ours-idrs-mbsK (--vbjacobi-sizes, e.g. matrix,8,16): ours and ours-idrs again with
#               -pc_vbjacobi_max_block_size K (K = matrix: -pc_vbjacobi_blocking matrix), to choose vbjacobi's defaults
#               by measurement; they count as ours in the best-against-best, not in the checks of the defaults
#   For the multigrid cases the PC is the level smoother's (-mg_levels_pc_type) and the KSP the outer one.
#   Every run gets -log_view; its KSPSolve time (max over ranks, all solves), the outer solve (SNESSolve, TSStep or
#   KSPSolve), the linear iterations summed over the solves, the linear solves that did not converge, the last reason,
#   for ex56 (a KSP alone) the final true residual (-ksp_view_final_residual), and the PCSetUp time (last column; inside
#   KSPSolve where KSPSolve sets the PC up, outside it in ex17, whose -snes_type ksponly sets it up before; on the GPU
#   PETSc prints n/a for it without -log_view_gpu_time, which this script does not add: it synchronises every event)
#   go into OUTDIR/tutorials.csv.
#   OUTDIR/tutorials_summary.md: per case the best PETSc and the best of ours (least KSPSolve time among the runs whose
#   outer solve converged), their ratio, and the checks of issue 22: vbjacobi converges wherever one of PETSc's PCs
#   converges with the same KSP; idrs converges wherever PETSc's idr, gmres or bcgs does; the median speedup.
#   bench/plots/plot_tutorials.py draws OUTDIR/tutorials.png from the CSV.
#   --gpus N runs N runs at once, each on a GPU of its own (CUDA_VISIBLE_DEVICES; with --np R, R GPUs a run), the
#   runs taken in list order by whichever slot is free: every comparison is still PETSc against ours on one H100 each.
#   --runs-per-gpu K (with --gpus N, one rank a run): N x K slots, K of them on each GPU, for runs whose time is host
#   work but for a short solve (ex17: ~130 s of host assembly around 0.01..0.03 s of KSPSolve). Each run's progress line
#   ends with its GPU and the time it ended; the solve is the last second or so of a run, so two runs of one GPU whose
#   end times are more than a few seconds apart did not share the GPU while they were timed. --stagger S starts the
#   k-th slot of each GPU k x S seconds late, so that runs of equal length on one GPU end S seconds apart. Mind the GPU
#   memory: nine ex17 runs a GPU fit an 80 GB H100 for ex17mg, but ex17gamg's ran out of it (session 17).
#   Runs at once share the host: a solve of ~0.1 s made of short launches (ex19mg, ex17) slows down when other runs
#   load the CPUs. In session 19 (--gpus 4) ex19mg gmres + vbjacobi took 0.261 s against 0.175 s for pbjacobi, and
#   one run at a time 0.131 s against 0.167 s. --confirm K does that after the runs: every pair the summary would
#   flag (the vbjacobi default slower than pbjacobi with the same KSP by more than 10%, or the best of ours slower than
#   the best of PETSc) runs again K times each, alternately, one run at a time on the first GPU, into
#   OUTDIR/tutorials_confirm.csv; the summary then judges those pairs by the medians of the confirming runs, and says so.
#   Exit status: 0 when every run ran (converged or not), 1 when a run crashed or timed out.
set -uo pipefail

usage() { sed -n '2,56p' "$0" | sed 's/^# \{0,1\}//'; }
out=""
size=gpu
host=0
cases=ex19,ex5,ex17mg,ex17gamg,ex56,ex19mg
np=1
tmo=1200
gpus=1
per_gpu=1
stagger=0
summary_only=0
vbsizes=""
confirm=0
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --host) host=1; shift ;;
    --cases) cases=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --runs-per-gpu) per_gpu=$2; shift 2 ;;
    --stagger) stagger=$2; shift 2 ;;
    --vbjacobi-sizes) vbsizes=$2; shift 2 ;;
    --summary-only) summary_only=1; shift ;;
    --confirm) confirm=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run_tutorials.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "run_tutorials.sh: one OUTDIR only" >&2; exit 2; }; out=$1; shift ;;
  esac
done
[ -n "$out" ] || { usage >&2; exit 2; }
case "$size" in gpu|quick) ;; *) echo "run_tutorials.sh: --size gpu|quick, not $size" >&2; exit 2 ;; esac
mkdir -p "$out" || exit 1

root=$(cd "$(dirname "$0")/../.." && pwd) # this script is in bench/scripts/
lib=${PBG_LIB:-$root/lib/libpetscblockgpu.so}
bin=$root/bench/bin
summary_py=$root/bench/scripts/tutorials_summary.py
mpiexec=${MPIEXEC:-mpiexec}
[ -f "$lib" ] || { echo "run_tutorials.sh: no library at $lib (make, or PBG_LIB)" >&2; exit 1; }
if [ $host = 1 ]; then aij=aij; vec=standard; device=host; else aij=aijcusparse; vec=cuda; device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1); fi
device=${device:-unknown GPU}

csv=$out/tutorials.csv
nbad=0
if [ $summary_only = 1 ]; then
  [ -f "$csv" ] || { echo "run_tutorials.sh: --summary-only needs $csv" >&2; exit 2; }
else
echo "device,case,size,owner,mat_type,ksp,pc,status,outer_reason,linear_its,linear_solves,linear_failed,last_linear_reason,kspsolve_s,outer_s,true_residual,options,log,pcsetup_s" > "$csv"
# the case's problem options, its matrix-type and vector-type options, its KSP list and the outer event
case_setup() { # CASE -> sets prob[], matopt, vecopt, ksps, outer, pcopt (the option that selects the PC compared)
  local c=$1 q=0
  [ "$size" = quick ] && q=1
  pcopt=-pc_type
  ourmat=baijksparse
  vecopt=(-dm_vec_type "$vec")
  case "$c" in
    ex19)
      local g=512; [ $q = 1 ] && g=24
      prob=(ex19 -da_grid_x $g -da_grid_y $g -snes_converged_reason); sz="${g}x${g}"
      matopt=-dm_mat_type; ksps=(default gmres bcgs idr); outer=SNESSolve ;;
    ex5)
      local g=1024 st=10; [ $q = 1 ] && { g=32; st=3; }
      prob=(ex5 -da_grid_x $g -da_grid_y $g -ts_max_steps $st -snes_converged_reason -ts_error_if_step_fails 0); sz="${g}x${g}, $st steps"
      matopt=-dm_mat_type; ksps=(default bcgs idr); outer=TSStep ;;
    ex17mg|ex17gamg)
      local f=8 r=3; [ $q = 1 ] && { f=2; r=1; }
      prob=(ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 1 -dm_plex_box_faces $f,$f,$f -snes_converged_reason -snes_type ksponly)
      # PCGAMG needs an AIJ operator (baijksparse says so): ours is vbjacobi as its smoother on aij(cusparse)
      if [ "$c" = ex17mg ]; then prob+=(-dm_refine_hierarchy $r -pc_type mg); else prob+=(-dm_refine $r -pc_type gamg); ourmat=$aij; fi
      sz="Q1 ${f}^3 cells refined $r times"
      pcopt=-mg_levels_pc_type; matopt=-dm_mat_type; ksps=(cg gmres); outer=SNESSolve ;;
    ex56)
      local ne=63; [ $q = 1 ] && ne=7
      prob=(ex56 -ne $ne -ksp_rtol 1e-8 -ksp_view_final_residual); sz="${ne}^3 elements"
      matopt=-mat_type; vecopt=(); ksps=(cg gmres bcgs idr); outer=KSPSolve ;;
    ex19mg)
      local g=65 r=3; [ $q = 1 ] && { g=9; r=2; }
      prob=(ex19 -da_grid_x $g -da_grid_y $g -da_refine $r -pc_type mg -snes_converged_reason); sz="${g}x${g} refined $r times"
      pcopt=-mg_levels_pc_type; matopt=-dm_mat_type; ksps=(fgmres gmres); outer=SNESSolve ;;
    *) echo "run_tutorials.sh: unknown case $c" >&2; return 1 ;;
  esac
  [ -x "$bin/${prob[0]}" ] || { echo "run_tutorials.sh: $bin/${prob[0]} missing (make bench)" >&2; return 1; }
}

# -log_view: the max time of EVENT (sum over its calls), empty when absent
event_time() { awk -v e="$2" '$1 == e && NF > 5 { print $4; exit }' "$1"; }

run_one() { # CASE OWNER MATTYPE KSP PC
  local c=$1 owner=$2 mt=$3 ksp=$4 pc=$5 name log args status its nsol nfail last reason ksps_t outer_t pcsetup_t tres
  name="${c}_${owner}_${mt}_${ksp}_${pc}${logsuffix:-}"
  log=$out/$name.log
  args=("${prob[@]:1}" "$matopt" "$mt" "${vecopt[@]+"${vecopt[@]}"}" "$pcopt" "$pc" -ksp_converged_reason -log_view)
  [ "$ksp" != default ] && args+=(-ksp_type "$ksp")
  [ "$owner" != petsc ] && args=(-dll_append "$lib" "${args[@]}")
  case "$owner" in # --vbjacobi-sizes: the same PC option's prefix (-pc_ or -mg_levels_pc_)
    *-mbsmatrix) args+=("${pcopt%type}vbjacobi_blocking" matrix) ;;
    *-mbs*) args+=("${pcopt%type}vbjacobi_max_block_size" "${owner##*-mbs}") ;;
  esac
  [ $host = 0 ] && [ "$np" -gt 1 ] && args+=(-use_gpu_aware_mpi 0)
  if [ "$np" -gt 1 ]; then timeout "$tmo" "$mpiexec" -n "$np" "$bin/${prob[0]}" "${args[@]}" > "$log" 2>&1
  else timeout "$tmo" "$bin/${prob[0]}" "${args[@]}" > "$log" 2>&1; fi
  status=$?
  # linear solves: the outer KSP's converged-reason lines (-ksp_converged_reason has no prefix: PCMG's level KSPs print none)
  read -r its nsol nfail last < <(awk '/Linear solve (converged|did not converge)/ { n++; s += $NF; if ($0 ~ /did not/) f++
        for (i = 1; i <= NF; i++) if ($i == "to") r = $(i + 1) } END { printf "%d %d %d %s\n", s, n, f, (r == "" ? "-" : r) }' "$log")
  reason=$(grep -oE '(Nonlinear solve|TSSolve|Linear solve) (converged|did not converge) due to [A-Z_]+' "$log" | tail -n 1 | awk '{print $NF}')
  case "$c" in
    ex5) grep -qE 'TS_DIVERGED|DIVERGED_NONLINEAR_SOLVE|DIVERGED_STEP_REJECTED' "$log" && reason=DIVERGED_TS || reason=${reason:-CONVERGED_TS} ;;
  esac
  [ -n "$reason" ] || reason=-
  ksps_t=$(event_time "$log" KSPSolve)
  outer_t=$(event_time "$log" "$outer")
  pcsetup_t=$(event_time "$log" PCSetUp)
  tres=$(awk '/KSP final norm of residual/ { v = $NF } END { print (v == "" ? "-" : v) }' "$log")
  if [ $status != 0 ] && grep -q 'Must call MatSetVariableBlockSizes() before using PCVPBJACOBI' "$log"; then
    reason="n/a (no variable block sizes)" # PETSc's vpbjacobi on a matrix without them: PETSc's error, not a crash
  elif [ $status != 0 ]; then reason="exit $status"; touch "$rows/$job.bad"; fi
  printf '"%s",%s,"%s",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,"%s",%s,%s\n' "$device" "$c" "$sz" "$owner" "$mt" "$ksp" "$pc" "$status" "$reason" \
    "$its" "$nsol" "$nfail" "$last" "${ksps_t:--}" "${outer_t:--}" "$tres" "${args[*]}" "$(basename "$log")" "${pcsetup_t:--}" > "$rows/$job.csv"
  printf '  %-9s %-9s %-12s %-7s %-9s %-28s its %6s (%s solves, %s failed)  KSPSolve %9s s  %s %s s  (GPU %s, ended %s)\n' "$c" "$owner" "$mt" "$ksp" "$pc" "$reason" "$its" "$nsol" "$nfail" "${ksps_t:--}" "$outer" "${outer_t:--}" "${CUDA_VISIBLE_DEVICES:-all}" "$(date +%T)"
}

[ "$confirm" -ge 0 ] 2> /dev/null || { echo "run_tutorials.sh: --confirm K needs K >= 0 runs, not $confirm" >&2; exit 2; }
[ "$per_gpu" -ge 1 ] 2> /dev/null || { echo "run_tutorials.sh: --runs-per-gpu K needs K >= 1, not $per_gpu" >&2; exit 2; }
[ "$stagger" -ge 0 ] 2> /dev/null || { echo "run_tutorials.sh: --stagger S needs S >= 0 seconds, not $stagger" >&2; exit 2; }
[ "$per_gpu" = 1 ] || [ "$np" = 1 ] || { echo "run_tutorials.sh: --runs-per-gpu needs one rank a run (--np 1)" >&2; exit 2; }
nslots=$((gpus * per_gpu))
echo "run_tutorials: $device, size $size, $np rank(s), cases $cases, $nslots run(s) at once on $gpus GPU(s)"
# the job list, in order: CASE OWNER MATTYPE KSP PC (a case that cannot be set up counts as a crashed run)
jobs=()
IFS=, read -r -a caselist <<< "$cases"
for c in "${caselist[@]}"; do
  case_setup "$c" || { nbad=$((nbad + 1)); continue; }
  echo "$c: ${prob[*]} ($sz)"
  for ksp in "${ksps[@]}"; do
    for pc in jacobi pbjacobi vpbjacobi; do jobs+=("$c petsc $aij $ksp $pc"); done
    jobs+=("$c ours $ourmat $ksp vbjacobi")
    # DMDA multigrid: PETSc's DMDA builds the interpolation on the host for a matrix type not named aij*, so ours is
    # also timed on aijcusparse with vbjacobi as the smoother (the README's configuration for PCMG on a DMDA)
    [ "$c" = ex19mg ] && jobs+=("$c ours-aij $aij $ksp vbjacobi")
    for k in ${vbsizes//,/ }; do jobs+=("$c ours-mbs$k $ourmat $ksp vbjacobi"); done
  done
  jobs+=("$c ours-idrs $ourmat idrs vbjacobi")
  for k in ${vbsizes//,/ }; do jobs+=("$c ours-idrs-mbs$k $ourmat idrs vbjacobi"); done
done
rows=$out/rows
rm -rf "$rows" && mkdir -p "$rows/claim"
# a slot takes the next unclaimed job (mkdir is atomic) until none is left; slot i owns GPUs g*np .. g*np+np-1 with
# g = i mod gpus (--runs-per-gpu K: K slots a GPU)
slot() { # SLOT
  local i=$1 job c owner mt ksp pc g
  sleep $((i / gpus * stagger))
  for ((job = 0; job < ${#jobs[@]}; job++)); do
    mkdir "$rows/claim/$job" 2> /dev/null || continue
    read -r c owner mt ksp pc <<< "${jobs[$job]}"
    case_setup "$c"
    if [ "$gpus" -gt 1 ] && [ $host = 0 ]; then
      g=$(seq -s, $((i % gpus * np)) $((i % gpus * np + np - 1)))
      CUDA_VISIBLE_DEVICES=$g run_one "$c" "$owner" "$mt" "$ksp" "$pc"
    else
      run_one "$c" "$owner" "$mt" "$ksp" "$pc"
    fi
  done
}
for ((i = 0; i < nslots; i++)); do slot "$i" & done
wait
for ((job = 0; job < ${#jobs[@]}; job++)); do
  if [ -f "$rows/$job.csv" ]; then cat "$rows/$job.csv" >> "$csv"; else echo "run_tutorials: no result for: ${jobs[$job]}"; nbad=$((nbad + 1)); fi
  [ -f "$rows/$job.bad" ] && nbad=$((nbad + 1))
done
# --confirm K: the flagged pairs again, K rounds, each run alone on the first GPU, the two configurations alternating
ccsv=$out/tutorials_confirm.csv
rm -f "$ccsv"
if [ "$confirm" -gt 0 ]; then
  mapfile -t cpairs < <(python3 "$summary_py" pairs "$csv")
  echo "run_tutorials: confirming ${#cpairs[@]} configuration(s) of the flagged pairs, $confirm run(s) each, one at a time"
  head -n 1 "$csv" > "$ccsv"
  for ((r = 1; r <= confirm; r++)); do
    for ((q = 0; q < ${#cpairs[@]}; q++)); do
      read -r c owner mt ksp pc <<< "${cpairs[$q]}"
      case_setup "$c" || continue
      job=confirm_${r}_$q
      if [ $host = 0 ]; then CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((np - 1))) logsuffix=_confirm$r run_one "$c" "$owner" "$mt" "$ksp" "$pc"
      else logsuffix=_confirm$r run_one "$c" "$owner" "$mt" "$ksp" "$pc"; fi
      [ -f "$rows/$job.csv" ] && cat "$rows/$job.csv" >> "$ccsv"
      [ -f "$rows/$job.bad" ] && nbad=$((nbad + 1))
    done
  done
fi
rm -rf "$rows"

fi

python3 "$summary_py" summary "$csv" "$out/tutorials_summary.md" "$out/tutorials_confirm.csv"
python3 "$root/bench/plots/plot_tutorials.py" "$csv" "$out/tutorials.png" || echo "run_tutorials.sh: no plot (matplotlib?)"
echo "run_tutorials: CSV $csv, summary $out/tutorials_summary.md; $nbad run(s) crashed or timed out"
[ $nbad = 0 ]
