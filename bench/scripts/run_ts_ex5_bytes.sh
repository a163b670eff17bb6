#!/usr/bin/env bash
# Host<->device bytes of a time step of PETSc's ts tutorial advection-diffusion-reaction/ex5 (Gray-Scott, 2 species,
# bs 2; ARKIMEX, fully implicit, with an RHS Jacobian assembled on the host, which TS shifts and scales into the
# implicit stage's matrix: MatScale(-1), MatShift(shift) per Jacobian evaluation), unmodified, with our types (issue 11).
#
# Usage: bench/scripts/run_ts_ex5_bytes.sh OUTDIR [--grid N] [--steps S] [--types LIST] [--vec_type cuda|standard] [--pc PC]
#
#   Runs ex5 (bench/bin/ex5, built by `make bench`, carried by the bundle) at N x N (default 1024: 2,097,152 rows)
#   for S time steps (default 5) with -dm_mat_type T (LIST, default baijksparse,aijcusparse), -dm_vec_type cuda,
#   -pc_type vbjacobi (default) and -log_view, then reads from the log (events, inclusive of the events they contain):
#     steps, Jacobian evaluations      TSStep and TSJacobianEval counts
#     CpuToGpu / GpuToCpu in the steps the TSStep line: count and bytes, and bytes per step (vectors included: ex5
#                                      evaluates its residual and Jacobian on the host)
#     matrix uploads / downloads       BAIJKCopyToGPU / BAIJKCopyFromGPU (baijksparse) or MatCUSPARSCopyTo /
#                                      MatCUSPARSCopyFr (aijcusparse): count and bytes, over the whole run
#     MatScale                         its calls and the bytes moved inside it (MatShift has no event of its own)
#     one upload of the values         nz x 8 bytes, nz = 20 N^2 (5-point stencil, periodic, 2 x 2 blocks), and the
#                                      index arrays that the first upload adds (baijksparse 4 (N^2 + 1 + 5 N^2),
#                                      aijcusparse 4 (2 N^2 + 1 + 20 N^2))
#   Criterion (issue 11): the matrix moves no more than one upload of the values per Jacobian evaluation, and nothing
#   for the shift and scale: matrix uploads <= Jacobian evaluations and their bytes <= evaluations x one upload + the
#   index arrays once (log_view prints sizes to 3 digits: 1% slack). Downloads are reported, not judged.
#   Writes OUTDIR/ts_ex5_bytes.txt (a table and the verdicts), OUTDIR/ts_ex5_bytes.csv and each run's log as
#   OUTDIR/ts_ex5_<type>.log (the program's output) and OUTDIR/ts_ex5_<type>.logview.txt (-log_view).
#   Exit status: 0 when every run ran (whatever the verdicts), 1 when one failed.
set -uo pipefail

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
out=""
grid=1024
steps=5
types=baijksparse,aijcusparse
vt=cuda
pc=vbjacobi
while [ $# -gt 0 ]; do
  case "$1" in
    --grid) grid=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --types) types=$2; shift 2 ;;
    --vec_type) vt=$2; shift 2 ;;
    --pc) pc=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run_ts_ex5_bytes: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "run_ts_ex5_bytes: one OUTDIR only" >&2; exit 2; }; out=$1; shift ;;
  esac
done
[ -n "$out" ] || { usage >&2; exit 2; }
[[ "$grid" =~ ^[0-9]+$ ]] && [ "$grid" -ge 4 ] || { echo "run_ts_ex5_bytes: --grid needs an integer >= 4" >&2; exit 2; }
[[ "$steps" =~ ^[0-9]+$ ]] && [ "$steps" -ge 1 ] || { echo "run_ts_ex5_bytes: --steps needs an integer >= 1" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ex5=""
for p in "$here/../bin/ex5" "${PBG_ROOT:-/nonexistent}/bench/bin/ex5"; do [ -x "$p" ] && { ex5=$p; break; }; done
[ -n "$ex5" ] || ex5=$(command -v ex5) || { echo "run_ts_ex5_bytes: no program ex5 (bench/bin/ex5: built by 'make bench' from PETSc's tutorial sources)" >&2; exit 1; }
lib=""
for p in "${PBG_LIB:-}" "$here/../../lib/libpetscblockgpu.so" "${PBG_ROOT:-/nonexistent}/lib/libpetscblockgpu.so"; do [ -n "$p" ] && [ -f "$p" ] && { lib=$(cd "$(dirname "$p")" && pwd)/$(basename "$p"); break; }; done
[ -n "$lib" ] || { echo "run_ts_ex5_bytes: no lib/libpetscblockgpu.so beside bench/" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
# the caller's PETSc options must not reach the tutorial (the bundle's -use_gpu_aware_mpi 0 is harmless)
export PETSC_OPTIONS="-use_gpu_aware_mpi 0"

# field F of event E's line in a -log_view file: count ($2), or from the right: CpuToGpu count (NF-4) and size in MB
# (NF-3), GpuToCpu count (NF-2) and size (NF-1); 0 when the event did not occur
ev() { # FILE EVENT WHAT(count|h2d_n|h2d_mb|d2h_n|d2h_mb)
  awk -v e="$2" -v w="$3" '
    $1 == e && NF >= 27 { found = 1
      if (w == "count") v = $2; else if (w == "h2d_n") v = $(NF-4); else if (w == "h2d_mb") v = $(NF-3)
      else if (w == "d2h_n") v = $(NF-2); else v = $(NF-1) }
    END { printf "%s\n", found ? v + 0 : 0 }' "$1"
}

txt=$out/ts_ex5_bytes.txt
csv=$out/ts_ex5_bytes.csv
n2=$((grid * grid))
nz=$((20 * n2))
one_mb=$(awk -v z="$nz" 'BEGIN { printf "%.3f", 8 * z / 1e6 }')
{
  echo "ts ex5 (Gray-Scott, ARKIMEX, RHS Jacobian shifted and scaled by TS) at ${grid}x${grid} (2 x $n2 rows), $steps steps, -dm_vec_type $vt -pc_type $pc"
  echo "one upload of the values: nz x 8 = 20 x $n2 x 8 bytes = $one_mb MB"
  echo "(program: $ex5, library: $lib)"
} > "$txt"
echo "mat_type,vec_type,pc,grid,steps,jacobian_evals,step_h2d_count,step_h2d_MB,step_d2h_count,step_d2h_MB,h2d_MB_per_step,d2h_MB_per_step,mat_uploads,mat_upload_MB,mat_downloads,mat_download_MB,matscale_calls,matscale_h2d_MB,matscale_d2h_MB,one_upload_MB,index_MB,uploads_per_jacobian,verdict,exit_status" > "$csv"

status=0
IFS=, read -r -a tlist <<< "$types"
for t in "${tlist[@]}"; do
  lv=$out/ts_ex5_$t.logview.txt
  log=$out/ts_ex5_$t.log
  rm -f "$lv"
  t0=$(date +%s.%N)
  "$ex5" -da_grid_x "$grid" -da_grid_y "$grid" -ts_max_steps "$steps" -dll_append "$lib" -dm_mat_type "$t" -dm_vec_type "$vt" \
    -pc_type "$pc" -log_view ":$lv" < /dev/null > "$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ] || [ ! -s "$lv" ]; then
    tail -n 20 "$log" >&2
    echo "run_ts_ex5_bytes: ex5 with $t failed (exit $rc, log $log)" | tee -a "$txt" >&2
    echo "$t,$vt,$pc,$grid,$steps,,,,,,,,,,,,,,,$one_mb,,,run failed,$rc" >> "$csv"
    status=1
    continue
  fi
  case "$t" in
    *baijksparse*) up=BAIJKCopyToGPU; down=BAIJKCopyFromGPU; idx=$(awk -v n="$n2" 'BEGIN { printf "%.3f", 4 * (n + 1 + 5 * n) / 1e6 }') ;;
    *) up=MatCUSPARSCopyTo; down=MatCUSPARSCopyFr; idx=$(awk -v n="$n2" 'BEGIN { printf "%.3f", 4 * (2 * n + 1 + 20 * n) / 1e6 }') ;;
  esac
  nsteps=$(ev "$lv" TSStep count)
  njac=$(ev "$lv" TSJacobianEval count)
  [ "$njac" != 0 ] || njac=$(ev "$lv" SNESJacobianEval count)
  sh_n=$(ev "$lv" TSStep h2d_n); sh_mb=$(ev "$lv" TSStep h2d_mb); sd_n=$(ev "$lv" TSStep d2h_n); sd_mb=$(ev "$lv" TSStep d2h_mb)
  mu_n=$(ev "$lv" "$up" count); mu_mb=$(ev "$lv" "$up" h2d_mb)
  md_n=$(ev "$lv" "$down" count); md_mb=$(ev "$lv" "$down" d2h_mb)
  ms_n=$(ev "$lv" MatScale count); ms_h=$(ev "$lv" MatScale h2d_mb); ms_d=$(ev "$lv" MatScale d2h_mb)
  read -r per_h per_d upj verdict < <(awk -v s="$nsteps" -v j="$njac" -v sh="$sh_mb" -v sd="$sd_mb" -v un="$mu_n" -v umb="$mu_mb" \
    -v one="$one_mb" -v idx="$idx" -v vt="$vt" 'BEGIN {
      ph = s > 0 ? sh / s : 0; pd = s > 0 ? sd / s : 0; upj = j > 0 ? un / j : 0
      if (vt != "cuda") v = "n/a(host_vectors)"
      else if (j == 0) v = "n/a(no_Jacobian)"
      else if (un <= j && umb <= 1.01 * (j * one + idx)) v = "met"
      else v = "MISSED"
      printf "%.3f %.3f %.2f %s\n", ph, pd, upj, v }')
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$t" "$vt" "$pc" "$grid" "$nsteps" "$njac" "$sh_n" "$sh_mb" "$sd_n" "$sd_mb" "$per_h" "$per_d" \
    "$mu_n" "$mu_mb" "$md_n" "$md_mb" "$ms_n" "$ms_h" "$ms_d" "$one_mb" "$idx" "$upj" "$verdict" 0 >> "$csv"
  {
    printf '\n%s: %s steps, %s Jacobian evaluations, %.1f s (log %s)\n' "$t" "$nsteps" "$njac" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(basename "$lv")"
    printf '  in the steps (TSStep):   CpuToGpu %s copies %s MB (%s MB a step), GpuToCpu %s copies %s MB (%s MB a step)\n' "$sh_n" "$sh_mb" "$per_h" "$sd_n" "$sd_mb" "$per_d"
    printf '  matrix (%s/%s): %s uploads %s MB (%s per Jacobian evaluation), %s downloads %s MB\n' "$up" "$down" "$mu_n" "$mu_mb" "$upj" "$md_n" "$md_mb"
    printf '  MatScale: %s calls, %s MB up, %s MB down inside them\n' "$ms_n" "$ms_h" "$ms_d"
    printf '  criterion (uploads <= %s evaluations, <= %s x %s MB + %s MB of indices): %s\n' "$njac" "$njac" "$one_mb" "$idx" "$verdict"
  } >> "$txt"
done
echo "run_ts_ex5_bytes: $(grep -c '' "$csv" | awk '{print $1 - 1}') runs; $txt, $csv" >> "$txt"
cat "$txt"
exit "$status"
