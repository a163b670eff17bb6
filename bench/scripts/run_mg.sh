#!/usr/bin/env bash
# Geometric multigrid (PCMG) in PETSc's tutorials, unmodified, with baijksparse at every level against PETSc's best on
# aijcusparse (issue 40), in one run:
#   ex19mg_513    snes ex19 (driven cavity, 4 dof), 129^2 refined twice to 513^2 (3 levels, a 66k-unknown coarse grid)
#   ex19mg_513c   the same 513^2 from 17^2 refined 5 times (6 levels, a 1156-unknown coarse grid)
#   ex19mg_1025c  1025^2 from 17^2 refined 6 times (7 levels)
#   ex5mg         ts ex5 (Gray-Scott, 2 dof), 1024^2 from 32^2 refined 5 times, 10 time steps, Galerkin coarse
#                 operators (-pc_mg_galerkin pmat, as the tutorial says: its Jacobian is made on the finest grid only)
#   ex17mg        snes ex17 3-D Q1 elasticity (DMPlex, -dm_refine_hierarchy 2 of 8^3 cells), CG outside
# Configurations: aij_jac and aij_pbj (aijcusparse with jacobi or pbjacobi levels: PETSc's best is the faster), ours
# (baijksparse, vbjacobi levels: KSPCHEBYSHEV's steps fused, src/ksp/chebyshev), ours_single (the same reading the level
# matrices in single precision, -mg_levels_pc_vbjacobi_sweep_precision single: the coarse LU is then the default one of
# baijksparse, cuSPARSE's triangular solves on the device), ours_petsclu (ours_single with PETSc's BAIJ LU, which solves
# on the host), ours_dense (ours_single with the coarse LU of MATSOLVERPBGDENSE on the GPU, for the small coarse grids). Every run: -log_view (no -log_view_gpu_time, which
# synchronises each event); the outer solve synchronises every iteration, so KSPSolve is a wall time.
#
# Usage: bench/scripts/run_mg.sh OUTDIR [--cases LIST] [--configs LIST] [--np LIST] [--timeout S] [--quick] [--host]
#   --np: comma list of rank counts (default 1); more ranks share the visible GPUs (-use_gpu_aware_mpi 0), the coarse
#         solve is PCMG's default there (PCREDUNDANT), and ours_dense names pbgdense under its prefix mg_coarse_redundant_
#   --quick: small sizes (seconds on the host); --host: aij and host vectors (CI)
# Output: OUTDIR/mg.csv (device, case, config, status, linear its, KSPSolve and PCSetUp max seconds, host->device and
# device->host copies inside KSPSolve, error), OUTDIR/mg_summary.md (per case PETSc's best against ours, the median),
# OUTDIR/logs/*.log
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: run_mg.sh OUTDIR [--cases LIST] [--configs LIST] [--np LIST] [--timeout S] [--quick] [--host]}
shift
cases=ex19mg_513,ex19mg_513c,ex19mg_1025c,ex5mg,ex17mg
configs=aij_jac,aij_pbj,ours,ours_single,ours_dense
tmo=300
quick=0
nps=1
host=0
while [ $# -gt 0 ]; do
  case $1 in
    --cases) cases=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --host) host=1; shift ;;
    *) echo "run_mg.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
lib=$here/lib/libpetscblockgpu.so
bin=$here/bench/bin
mkdir -p "$out/logs"
export NCCL_NVLS_ENABLE=0
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
[ -n "$device" ] || device="no GPU"
csv=$out/mg.csv
echo "device,case,np,config,status,its,kspsolve_s,pcsetup_s,ksp_ctog,ksp_gtoc,error" > "$csv"

# The program and its options for a case
case_cmd() {
  local q=$quick
  case $1 in
    ex19mg_513) [ $q = 1 ] && echo "$bin/ex19 -da_grid_x 9 -da_grid_y 9 -da_refine 2 -pc_type mg -snes_max_it 5" || echo "$bin/ex19 -da_grid_x 129 -da_grid_y 129 -da_refine 2 -pc_type mg -snes_max_it 5" ;;
    ex19mg_513c) [ $q = 1 ] && echo "$bin/ex19 -da_grid_x 5 -da_grid_y 5 -da_refine 3 -pc_type mg -snes_max_it 5" || echo "$bin/ex19 -da_grid_x 17 -da_grid_y 17 -da_refine 5 -pc_type mg -snes_max_it 5" ;;
    ex19mg_1025c) [ $q = 1 ] && echo "$bin/ex19 -da_grid_x 5 -da_grid_y 5 -da_refine 4 -pc_type mg -snes_max_it 5" || echo "$bin/ex19 -da_grid_x 17 -da_grid_y 17 -da_refine 6 -pc_type mg -snes_max_it 5" ;;
    ex5mg) [ $q = 1 ] && echo "$bin/ex5 -da_grid_x 8 -da_grid_y 8 -da_refine 2 -pc_type mg -pc_mg_galerkin pmat -ts_max_steps 3" || echo "$bin/ex5 -da_grid_x 32 -da_grid_y 32 -da_refine 5 -pc_type mg -pc_mg_galerkin pmat -ts_max_steps 10" ;;
    ex17mg) [ $q = 1 ] && echo "$bin/ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 1 -dm_plex_box_faces 2,2,2 -dm_refine_hierarchy 1 -pc_type mg -snes_type ksponly -ksp_type cg -ksp_rtol 1e-8" || echo "$bin/ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 1 -dm_plex_box_faces 8,8,8 -dm_refine_hierarchy 2 -pc_type mg -snes_type ksponly -ksp_type cg -ksp_rtol 1e-8" ;;
    *) return 1 ;;
  esac
}

# shellcheck source=logview.sh
source "$here/bench/scripts/logview.sh"

IFS=, read -r -a case_list <<< "$cases"
IFS=, read -r -a config_list <<< "$configs"
IFS=, read -r -a np_list <<< "$nps"
for np in "${np_list[@]}"; do
for c in "${case_list[@]}"; do
  cmd=$(case_cmd "$c") || { echo "run_mg.sh: unknown case $c" >&2; exit 2; }
  [ -x "${cmd%% *}" ] || { echo "run_mg.sh: ${cmd%% *} missing (make bench)" >&2; continue; }
  for cfg in "${config_list[@]}"; do
    case $cfg in
      aij_jac) opts="-dm_mat_type aijcusparse -mg_levels_pc_type jacobi" ;;
      aij_pbj) opts="-dm_mat_type aijcusparse -mg_levels_pc_type pbjacobi" ;;
      ours) opts="-dm_mat_type baijksparse -mg_levels_pc_type vbjacobi" ;;
      ours_single) opts="-dm_mat_type baijksparse -mg_levels_pc_type vbjacobi -mg_levels_pc_vbjacobi_sweep_precision single" ;;
      ours_petsclu) opts="-dm_mat_type baijksparse -mg_levels_pc_type vbjacobi -mg_levels_pc_vbjacobi_sweep_precision single -mg_coarse_pc_factor_mat_solver_type petsc"
        [ "$np" -gt 1 ] && opts="$opts -mg_coarse_redundant_pc_factor_mat_solver_type petsc" ;;
      ours_dense) opts="-dm_mat_type baijksparse -mg_levels_pc_type vbjacobi -mg_levels_pc_vbjacobi_sweep_precision single -mg_coarse_pc_factor_mat_solver_type pbgdense"
        [ "$np" -gt 1 ] && opts="$opts -mg_coarse_redundant_pc_factor_mat_solver_type pbgdense" ;;
      *) echo "run_mg.sh: unknown config $cfg" >&2; exit 2 ;;
    esac
    vec="-dm_vec_type cuda"
    if [ $host = 1 ]; then
      vec=""
      opts=${opts//aijcusparse/aij}
    fi
    [ "$np" -gt 1 ] && opts="$opts -use_gpu_aware_mpi 0"
    log=$out/logs/${c}_np${np}_${cfg}.log
    # shellcheck disable=SC2086
    timeout "$tmo" "${MPIEXEC:-mpiexec}" -n "$np" $cmd $opts -dll_append "$lib" $vec -ksp_converged_reason -log_view > "$log" 2>&1
    rc=$?
    its=$(grep -oE 'Linear solve converged due to [A-Z_]+ iterations [0-9]+' "$log" | awk '{s += $NF} END {if (NR) print s}')
    status=ok
    err=""
    if [ $rc -ne 0 ] || [ -z "$its" ] || grep -q 'Linear solve did not converge\|DIVERGED' "$log"; then
      status=fail
      [ $rc -eq 124 ] && status=timeout
      err=$(grep -m1 -E 'PETSC ERROR: [A-Za-z]|DIVERGED' "$log" | grep -v -- '-----' | sed 's/.*PETSC ERROR: //; s/,/;/g' | cut -c1-120)
    fi
    ksp=$(logview_time KSPSolve "$log")
    pcs=$(logview_time PCSetUp "$log")
    ctog=$(awk '$1 == "KSPSolve" && NF > 20 {print $(NF-4); exit}' "$log")
    gtoc=$(awk '$1 == "KSPSolve" && NF > 20 {print $(NF-2); exit}' "$log")
    echo "$device,$c,$np,$cfg,$status,${its:-},${ksp:-},${pcs:-},${ctog:-},${gtoc:-},$err" >> "$csv"
    echo "$c np $np $cfg: $status its ${its:-?} KSPSolve ${ksp:-?} PCSetUp ${pcs:-?} copies in KSPSolve ${ctog:-?}/${gtoc:-?} ${err}"
  done
done
done

python3 - "$csv" > "$out/mg_summary.md" << 'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("Device: **%s**. PCMG in PETSc's tutorials unmodified; KSPSolve is the -log_view maximum in seconds over all solves of the run; 'best' is the fastest configuration whose solves all converged.\n" % (rows[0]["device"] if rows else "?"))
print("| case | np | PETSc's best (KSPSolve, its) | ours best (KSPSolve, its, copies in KSPSolve) | speedup | failures |")
print("|---|---|---|---|---|---|")
speedups = []
for c, np in dict.fromkeys((r["case"], r["np"]) for r in rows):
    sel = [r for r in rows if (r["case"], r["np"]) == (c, np)]
    def best(prefix):
        ok = [r for r in sel if r["config"].startswith(prefix) and r["status"] == "ok" and r["kspsolve_s"]]
        return min(ok, key=lambda r: float(r["kspsolve_s"])) if ok else None
    p, o = best("aij"), best("ours")
    sp = float(p["kspsolve_s"]) / float(o["kspsolve_s"]) if p and o else None
    if sp: speedups.append(sp)
    fails = "; ".join("%s: %s (%s)" % (r["config"], r["status"], r["error"]) for r in sel if r["status"] != "ok")
    print("| %s | %s | %s | %s | %s | %s |" % (c, np, "%s: %.3f, %s" % (p["config"], float(p["kspsolve_s"]), p["its"]) if p else "none ran",
          "%s: %.3f, %s, %s/%s" % (o["config"], float(o["kspsolve_s"]), o["its"], o["ksp_ctog"], o["ksp_gtoc"]) if o else "none ran",
          "%.2fx" % sp if sp else "-", fails or "-"))
if speedups:
    print("\nMedian speedup of our best over PETSc's best: %.2fx over %d cases; slowest case %.2fx." % (statistics.median(speedups), len(speedups), min(speedups)))
PY
cat "$out/mg_summary.md"
