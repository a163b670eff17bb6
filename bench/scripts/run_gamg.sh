#!/usr/bin/env bash
# PCGAMG with baijksparse against PCGAMG on aijcusparse (issue 39), PETSc's tutorials unmodified, in one run:
#   ksp ex56 (3-D Q1 elasticity, bs 3, CG) at -ne 79 (1.5M unknowns), -ne 99 (3.1M) and -ne 125 (6.0M), snes ex17 3-D Q1 and Q2
#   elasticity (DMPlex, 32^3 Q1 and 16^3 Q2 hexahedra, about 100k unknowns: its host assembly takes minutes beyond that;
#   one Newton step: the linear solve).
# Configurations: PETSc's (aijcusparse with GAMG's default Chebyshev + jacobi levels, and with pbjacobi levels) and
# ours (baijksparse with jacobi levels, and with vbjacobi levels). Each run reports the iterations, PCSetUp and
# KSPSolve (max over ranks, -log_view), the host<->device megabytes of PCSetUp, the peak device memory of the run
# (nvidia-smi, every 100 ms, the GPUs this run sees together) and, for a run that fails, PETSc's message.
#
# Usage: bench/scripts/run_gamg.sh OUTDIR [--cases LIST] [--np LIST] [--timeout S] [--configs LIST] [--host] [--quick]
#   --cases   comma list of ex56_79, ex56_99, ex56_125 (6.0M unknowns), ex17_q1, ex17_q2 (default all but ex56_125), and
#             ex55_NE: ksp ex55 (2-D plane-strain Q1 elasticity, bs 2, coarse bs 3 from its coordinates) with -ne NE, 2 (NE+1)^2
#             unknowns (ex55_1000: 2.0M), its rows split evenly over any rank count: the two-GPU GAMG case (ex56 is not)
#   --np      comma list of rank counts (default 1; more ranks share the visible GPUs, -use_gpu_aware_mpi 0). ksp ex56
#             takes 1, 2 or a cube: on 2 ranks it puts every row on the first (ex56.c), so two GPUs take 8 ranks
#   --configs comma list of aij_jac, aij_pbj, baij_jac, baij_vbj (default), baij_vbj_aijprod (ours with the products
#             through aijcusparse, -mat_baijksparse_products aij: the route before the blocked products),
#             baij_vbj_rich (ours with Richardson levels: vbjacobi's fused damped sweeps, damping 0.6, in place of
#             Chebyshev), baij_vbj_loop (ours with KSPCHEBYSHEV's own loop: -mg_levels_pc_vbjacobi_chebyshev false),
#             baij_vbj_single (ours, the fused Chebyshev steps reading the level matrices in single precision:
#             -mg_levels_pc_vbjacobi_sweep_precision single); for ex56 only, with its six rigid-body modes as the near
#             null space (-use_mat_nearnullspace: smoothed aggregation with coarse bs 6, where ex56's default is a
#             coverage test of GAMG's injection with 2 of the modes): aij_jac_nns (cuSPARSE's products),
#             aij_jac_nns_cpuprod (PETSc's Galerkin products on the host, -matptap_backend_cpu -matmatmult_backend_cpu),
#             baij_vbj_single_nns; on several ranks, aij_jac_pel and baij_vbj_single_pel (aij_jac, baij_vbj_single
#             with -pc_gamg_process_eq_limit ${PEL:-20000}: coarse levels of fewer equations a rank on fewer ranks,
#             where the smoothers' exchanges are bound by latency)
# The times come from -log_view without -log_view_gpu_time, whose per-event synchronisations slow the configurations
# with more kernels down (PETSc's unfused Chebyshev most); the Krylov method synchronises every iteration, so KSPSolve
# and PCSetUp are wall times of the work either way.
#   --host    aij in place of aijcusparse and host vectors (CI, no GPU); --quick: small sizes (seconds on the host)
# Output: OUTDIR/gamg.csv, OUTDIR/gamg_summary.md, OUTDIR/logs/*.log
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: run_gamg.sh OUTDIR [--cases LIST] [--np LIST] [--timeout S] [--configs LIST]}
shift
cases=ex56_79,ex56_99,ex17_q1,ex17_q2
nps=1
tmo=300
configs=aij_jac,aij_pbj,baij_jac,baij_vbj
host=0
quick=0
while [ $# -gt 0 ]; do
  case $1 in
    --cases) cases=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --host) host=1; shift ;;
    --quick) quick=1; shift ;;
    *) echo "run_gamg.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
lib=$here/lib/libpetscblockgpu.so
mpiexec=${MPIEXEC:-mpiexec}
bin=$here/bench/bin
mkdir -p "$out/logs"
export NCCL_NVLS_ENABLE=0
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
[ -n "$device" ] || device="no GPU"
csv=$out/gamg.csv
echo "device,case,np,config,mat_type,levels_pc,status,its,pcsetup_s,kspsolve_s,pcsetup_ctog_MB,pcsetup_gtoc_MB,peak_mem_MiB,error" > "$csv"

# The program and its options for a case; the matrix type option is added by the caller
case_cmd() {
  if [ $quick = 1 ]; then
    case $1 in
      ex56_*) echo "$bin/ex56 -ne 9 -ksp_type cg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -mat_type" ;;
      ex55_*) echo "$bin/ksp_ex55 -ne 40 -use_coordinates -ksp_type cg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -mat_type" ;;
      ex17_q1) echo "$bin/ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 1 -dm_plex_box_faces 2,2,2 -dm_refine 2 -snes_type ksponly -ksp_type cg -ksp_rtol 1e-8 -snes_converged_reason -dm_mat_type" ;;
      ex17_q2) echo "$bin/ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 2 -dm_plex_box_faces 2,2,2 -dm_refine 1 -snes_type ksponly -ksp_type cg -ksp_rtol 1e-8 -snes_converged_reason -dm_mat_type" ;;
      *) return 1 ;;
    esac
    return 0
  fi
  case $1 in
    ex56_79) echo "$bin/ex56 -ne 79 -ksp_type cg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -mat_type" ;;
    ex56_99) echo "$bin/ex56 -ne 99 -ksp_type cg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -mat_type" ;;
    ex56_125) echo "$bin/ex56 -ne 125 -ksp_type cg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -mat_type" ;;
    ex55_*) echo "$bin/ksp_ex55 -ne ${1#ex55_} -use_coordinates -ksp_type cg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -mat_type" ;;
    ex17_q1) echo "$bin/ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 1 -dm_plex_box_faces 8,8,8 -dm_refine 2 -snes_type ksponly -ksp_type cg -ksp_rtol 1e-8 -snes_converged_reason -dm_mat_type" ;;
    ex17_q2) echo "$bin/ex17 -dm_plex_dim 3 -dm_plex_simplex 0 -displacement_petscspace_degree 2 -dm_plex_box_faces 4,4,4 -dm_refine 2 -snes_type ksponly -ksp_type cg -ksp_rtol 1e-8 -snes_converged_reason -dm_mat_type" ;;
    *) return 1 ;;
  esac
}

# shellcheck source=logview.sh
source "$here/bench/scripts/logview.sh"

IFS=, read -r -a case_list <<< "$cases"
IFS=, read -r -a np_list <<< "$nps"
IFS=, read -r -a config_list <<< "$configs"
for c in "${case_list[@]}"; do
  cmd=$(case_cmd "$c") || { echo "run_gamg.sh: unknown case $c" >&2; exit 2; }
  [ -x "${cmd%% *}" ] || { echo "run_gamg.sh: ${cmd%% *} missing (make bench)" >&2; continue; }
  for np in "${np_list[@]}"; do
    for cfg in "${config_list[@]}"; do
      cfgopt=""
      case $cfg in
        aij_jac) mt=aijcusparse; lp=jacobi ;;
        aij_pbj) mt=aijcusparse; lp=pbjacobi ;;
        baij_jac) mt=baijksparse; lp=jacobi ;;
        baij_vbj) mt=baijksparse; lp=vbjacobi ;;
        baij_vbj_aijprod) mt=baijksparse; lp=vbjacobi; cfgopt="-mat_baijksparse_products aij" ;;
        baij_vbj_rich) mt=baijksparse; lp=vbjacobi; cfgopt="-mg_levels_ksp_type richardson -mg_levels_pc_vbjacobi_richardson_damping 0.6" ;;
        baij_vbj_loop) mt=baijksparse; lp=vbjacobi; cfgopt="-mg_levels_pc_vbjacobi_chebyshev false" ;;
        baij_vbj_single) mt=baijksparse; lp=vbjacobi; cfgopt="-mg_levels_pc_vbjacobi_sweep_precision single" ;;
        aij_jac_nns) mt=aijcusparse; lp=jacobi; cfgopt="-use_mat_nearnullspace" ;;
        aij_jac_nns_cpuprod) mt=aijcusparse; lp=jacobi; cfgopt="-use_mat_nearnullspace -matptap_backend_cpu -matmatmult_backend_cpu" ;;
        baij_vbj_single_nns) mt=baijksparse; lp=vbjacobi; cfgopt="-use_mat_nearnullspace -mg_levels_pc_vbjacobi_sweep_precision single" ;;
        aij_jac_pel) mt=aijcusparse; lp=jacobi; cfgopt="-pc_gamg_process_eq_limit ${PEL:-20000}" ;;
        baij_vbj_single_pel) mt=baijksparse; lp=vbjacobi; cfgopt="-mg_levels_pc_vbjacobi_sweep_precision single -pc_gamg_process_eq_limit ${PEL:-20000}" ;;
        *) echo "run_gamg.sh: unknown config $cfg" >&2; exit 2 ;;
      esac
      if [[ $cfg == *_nns* && $c != ex56_* ]]; then continue; fi # ex56's option; ex55 and ex17 have their modes already
      log=$out/logs/${c}_np${np}_${cfg}.log
      vec="-vec_type cuda"
      [[ $c == ex17* ]] && vec="-dm_vec_type cuda"
      if [ $host = 1 ]; then
        vec=""
        [ $mt = aijcusparse ] && mt=aij
      fi
      extra=""
      [ "$np" -gt 1 ] && extra="-use_gpu_aware_mpi 0"
      mem=$(mktemp)
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$mem" 2> /dev/null &
      mp=$!
      # shellcheck disable=SC2086
      timeout "$tmo" "$mpiexec" -n "$np" $cmd $mt -dll_append "$lib" $vec -pc_type gamg -mg_levels_pc_type $lp $cfgopt \
        -ksp_converged_reason -log_view $extra > "$log" 2>&1
      rc=$?
      kill $mp 2> /dev/null
      wait $mp 2> /dev/null
      peak=$(awk '{if ($1 + 0 > m) m = $1 + 0} END {print m + 0}' "$mem") # the largest of one GPU
      rm -f "$mem"
      its=$(grep -m1 -oE 'Linear solve converged due to [A-Z_]+ iterations [0-9]+' "$log" | awk '{print $NF}')
      status=ok
      err=""
      if [ $rc -ne 0 ] || [ -z "$its" ]; then
        status=fail
        [ $rc -eq 124 ] && status=timeout
        err=$(grep -m1 -E 'PETSC ERROR: [A-Za-z]' "$log" | grep -v -- '-----' | sed 's/.*PETSC ERROR: //; s/,/;/g' | cut -c1-120)
        [ -n "$err" ] || err=$(grep -m1 -iE 'error|out of memory' "$log" | sed 's/,/;/g' | cut -c1-120)
      fi
      pcs=$(logview_time PCSetUp "$log")
      ksp=$(logview_time KSPSolve "$log")
      ctog=$(awk '$1 == "PCSetUp" && NF > 20 {print $(NF-3) + 0; exit}' "$log")
      gtoc=$(awk '$1 == "PCSetUp" && NF > 20 {print $(NF-1) + 0; exit}' "$log")
      echo "$device,$c,$np,$cfg,$mt,$lp,$status,${its:-},${pcs:-},${ksp:-},${ctog:-},${gtoc:-},$peak,$err" >> "$csv"
      echo "$c np $np $cfg: $status its ${its:-?} PCSetUp ${pcs:-?} KSPSolve ${ksp:-?} peak ${peak} MiB ${err}"
    done
  done
done

# The summary: per case and rank count, our best against PETSc's best that ran (KSPSolve), and the setups
python3 - "$csv" > "$out/gamg_summary.md" << 'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("Device: **%s**. PCGAMG, PETSc's tutorials unmodified; times are -log_view maxima in seconds; 'best' is the fastest KSPSolve among the configurations that ran.\n" % (rows[0]["device"] if rows else "?"))
print("| case | np | PETSc's best (KSPSolve, PCSetUp, its) | ours best (KSPSolve, PCSetUp, its) | KSPSolve speedup | PCSetUp ratio ours/PETSc | failures |")
print("|---|---|---|---|---|---|---|")
keys = []
for r in rows:
    k = (r["case"], r["np"])
    if k not in keys: keys.append(k)
for k in keys:
    sel = [r for r in rows if (r["case"], r["np"]) == k]
    def best(prefix):
        ok = [r for r in sel if r["config"].startswith(prefix) and r["status"] == "ok" and r["kspsolve_s"]]
        return min(ok, key=lambda r: float(r["kspsolve_s"])) if ok else None
    p, o = best("aij"), best("baij")
    fmt = lambda r: "%s: %.3f, %.3f, %s" % (r["config"], float(r["kspsolve_s"]), float(r["pcsetup_s"]), r["its"]) if r else "none ran"
    sp = "%.2fx" % (float(p["kspsolve_s"]) / float(o["kspsolve_s"])) if p and o else "-"
    su = "%.2f" % (float(o["pcsetup_s"]) / float(p["pcsetup_s"])) if p and o else "-"
    fails = "; ".join("%s: %s (%s)" % (r["config"], r["status"], r["error"]) for r in sel if r["status"] != "ok")
    print("| %s | %s | %s | %s | %s | %s | %s |" % (k[0], k[1], fmt(p), fmt(o), sp, su, fails or "-"))
PY
cat "$out/gamg_summary.md"
