#!/usr/bin/env bash
# Weak and strong scaling of a whole solve over 1 and 2 (.. 8) GPUs of one host, one MPI rank per GPU: PETSc's snes ex19
# (driven cavity, 4 unknowns a cell), one Newton step, its linear solve to -ksp_rtol 1e-8, with
#   ours:   baijksparse + vbjacobi + idrs, the ghost exchange by NCCL and by PETSc's VecScatter (-mat_baijksparse_ghost_exchange)
#   PETSc:  aijcusparse + pbjacobi + idrs (PETSc's best built-in GPU matrix and point-block Jacobi, the same Krylov method)
# Strong: the grid of STRONG_GRID (default 1024: 4.2M unknowns) on every rank count. Weak: WEAK_UNKNOWNS (default 2^21)
# unknowns a GPU (grid sqrt(np * WEAK_UNKNOWNS / 4)). From -log_view: KSPSolve time (max over ranks), iterations,
# time a iteration, MatMult's time and the host's part of the ghost exchange (event BAIJKGhostExch: the launches of the
# NCCL exchange, or the VecScatter's begin and end). CSV rows are appended to OUT.csv. CONFIGS and SCALINGS (words of
# the lists above) narrow the runs; options after OUT.csv go to every ex19 run (a later -ksp_rtol wins). LOGDIR, when
# set, keeps each run's whole output (-log_view) there as ex19_CONFIG_SCALING_npN_gGRID.log.
#   ./run.sh bash bench/scripts/run_solve_scaling.sh OUT.csv [extra ex19 options]
set -u
csv=${1:?usage: run_solve_scaling.sh OUT.csv [ex19 options]}
shift
ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
[ "$ngpu" -ge 1 ] || { echo "run_solve_scaling.sh: no GPU visible (nvidia-smi -L)" >&2; exit 1; }
lib=${PBG_LIB:-${PBG_ROOT:-.}/lib/libpetscblockgpu.so}
strong=${STRONG_GRID:-1024}
weak=${WEAK_UNKNOWNS:-2097152}
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
[ -f "$csv" ] || echo "device,config,scaling,ranks,grid,unknowns,unknowns_per_gpu,ksp_its,kspsolve_s,ms_per_it,matmult_s,ghost_s,reason" > "$csv"

declare -A done_rows=() # config/np/grid -> the CSV row's tail, so that a weak run equal to a strong one is not run again
run_one() { # CONFIG SCALING NP GRID
  local cfg=$1 sc=$2 np=$3 grid=$4 opts log its t mm gh reason key="$1/$3/$4"
  if [ -n "${done_rows[$key]:-}" ]; then
    echo "\"$device\",$cfg,$sc,$np,$grid,${done_rows[$key]}" >> "$csv"
    echo "$cfg $sc np $np grid $grid: the same run as above"
    return
  fi
  case $cfg in
    baijksparse-nccl) opts=(-dm_mat_type baijksparse -pc_type vbjacobi -mat_baijksparse_ghost_exchange nccl) ;;
    baijksparse-sf) opts=(-dm_mat_type baijksparse -pc_type vbjacobi -mat_baijksparse_ghost_exchange sf) ;;
    aijcusparse-pbjacobi) opts=(-dm_mat_type aijcusparse -pc_type pbjacobi) ;;
  esac
  log=$(mktemp)
  timeout 600 "${MPIEXEC:-mpiexec}" -n "$np" ex19 -da_grid_x "$grid" -da_grid_y "$grid" -dll_append "$lib" -dm_vec_type cuda \
    -snes_max_it 1 -ksp_type idrs -ksp_rtol 1e-8 -ksp_max_it 20000 -ksp_converged_reason -log_view "${opts[@]}" "$@" > "$log" 2>&1
  its=$(sed -n 's/.*Linear solve [a-z ]* due to \([A-Z_]*\) iterations \([0-9]*\).*/\2/p' "$log" | tail -1)
  reason=$(sed -n 's/.*Linear solve [a-z ]* due to \([A-Z_]*\) iterations.*/\1/p' "$log" | tail -1)
  t=$(awk '$1 == "KSPSolve" {print $4; exit}' "$log")
  mm=$(awk '$1 == "MatMult" {print $4; exit}' "$log")
  gh=$(awk '$1 == "BAIJKGhostExch" {print $4; exit}' "$log")
  if [ -z "$its" ] || [ -z "$t" ]; then
    echo "run_solve_scaling: $cfg $sc np=$np grid=$grid failed; the end of its output:"
    tail -20 "$log"
    reason=${reason:-FAILED}
  fi
  done_rows[$key]="$((4 * grid * grid)),$((4 * grid * grid / np)),${its:-0},${t:-0},$(awk -v t="${t:-0}" -v i="${its:-0}" 'BEGIN { printf "%.4f", (i > 0 ? 1e3 * t / i : 0) }'),${mm:-0},${gh:-0},${reason:-?}"
  echo "\"$device\",$cfg,$sc,$np,$grid,${done_rows[$key]}" >> "$csv"
  printf '%-22s %-6s np %d grid %5d: %6s its, KSPSolve %8ss, %s ms/it, MatMult %ss, ghost exchange (host) %ss, %s\n' "$cfg" "$sc" "$np" "$grid" "${its:-?}" "${t:-?}" \
    "$(awk -v t="${t:-0}" -v i="${its:-0}" 'BEGIN { printf "%.4f", (i > 0 ? 1e3 * t / i : 0) }')" "${mm:-?}" "${gh:--}" "${reason:-?}"
  [ -n "${LOGDIR:-}" ] && mkdir -p "$LOGDIR" && cp "$log" "$LOGDIR/ex19_${cfg}_${sc}_np${np}_g${grid}.log"
  rm -f "$log"
}

for np in 1 2 4 8; do
  [ "$np" -le "$ngpu" ] || break
  wgrid=$(awk -v n="$np" -v u="$weak" 'BEGIN { printf "%d", sqrt(n * u / 4) + 0.5 }')
  for cfg in ${CONFIGS:-baijksparse-nccl baijksparse-sf aijcusparse-pbjacobi}; do
    [ "$np" = 1 ] && [ "$cfg" = baijksparse-sf ] && continue # one rank: no exchange
    case " ${SCALINGS:-strong weak} " in *" strong "*) run_one "$cfg" strong "$np" "$strong" "$@" ;; esac
    case " ${SCALINGS:-strong weak} " in *" weak "*) run_one "$cfg" weak "$np" "$wgrid" "$@" ;; esac
  done
done
