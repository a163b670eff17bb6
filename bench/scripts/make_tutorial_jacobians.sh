#!/usr/bin/env bash
# Dump the Jacobians of two PETSc tutorials at GPU scale, for bench_solve (no network, no PETSc install needed: the
# tutorials are compiled into the tree and the bundle as bench/bin/ex19 and bench/bin/ex5 by `make bench`).
#
# Usage: bench/scripts/make_tutorial_jacobians.sh OUTDIR [--grid N] [--only cavity|grayscott]
#
#   OUTDIR/cavityN.petsc       PETSc snes/tutorials/ex19 (driven cavity with buoyancy: velocity, vorticity,
#                              temperature; 4 unknowns per grid point, bs 4), N x N grid (default 512: 1,048,576 rows),
#                              lid velocity 100, Grashof 1e3: the finite-difference (coloring) Jacobian of the first
#                              Newton step
#   OUTDIR/grayscottN.petsc    PETSc ts/tutorials/advection-diffusion-reaction/ex5 (Gray-Scott, 2 species, bs 2),
#                              N x N grid (524,288 rows at 512): the matrix of the implicit stage of one ARKIMEX step,
#                              dt 20
#
# Each program writes the operator of every linear solve with -ksp_view_mat binary:FILE; bench_solve takes the last
# matrix of the file. The nonlinear and linear solves are cut to one iteration (-snes_convergence_test skip,
# -ksp_convergence_test skip: "converged" after max_it, so that neither SNES nor TS treats the cut as a failure and
# the programs exit 0), with no preconditioner and a fixed time step, so that generation takes seconds.
# Then: bench_solve -f OUTDIR/cavity512.petsc:4,OUTDIR/grayscott512.petsc:2
set -euo pipefail

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
out=""
grid=512
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --grid) grid=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "make_tutorial_jacobians: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "make_tutorial_jacobians: one OUTDIR only" >&2; exit 2; }; out=$1; shift ;;
  esac
done
[ -n "$out" ] || { usage >&2; exit 2; }
[[ "$grid" =~ ^[0-9]+$ ]] && [ "$grid" -ge 4 ] || { echo "make_tutorial_jacobians: --grid needs an integer >= 4" >&2; exit 2; }
case "$only" in ''|cavity|grayscott) ;; *) echo "make_tutorial_jacobians: --only cavity or grayscott" >&2; exit 2 ;; esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
find_prog() { # NAME -> path: bench/bin beside this script's folder, PBG_ROOT/bench/bin, PATH
  local p
  for p in "$here/../bin/$1" "${PBG_ROOT:-/nonexistent}/bench/bin/$1"; do
    [ -x "$p" ] && { echo "$p"; return 0; }
  done
  command -v "$1" 2> /dev/null && return 0
  echo "make_tutorial_jacobians: no program $1 (bench/bin/$1: built by 'make bench' from PETSc's tutorial sources)" >&2
  return 1
}

mkdir -p "$out"
out=$(cd "$out" && pwd)
# the caller's PETSc options must not reach the tutorials (the bundle's -use_gpu_aware_mpi 0 is harmless)
export PETSC_OPTIONS="-use_gpu_aware_mpi 0"
cut_solves=(-snes_max_it 1 -snes_convergence_test skip -snes_linesearch_type basic -ksp_max_it 1 -ksp_convergence_test skip -pc_type none)

run_one() { # NAME PROGRAM ARGS...
  local name=$1 prog=$2 f log t0 t1
  shift 2
  f=$out/$name.petsc
  log=$out/$name.log
  rm -f "$f" "$f.info"
  t0=$(date +%s.%N)
  if ! "$prog" "$@" -ksp_view_mat "binary:$f" < /dev/null > "$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "make_tutorial_jacobians: $(basename "$prog") failed (log $log)" >&2
    return 1
  fi
  t1=$(date +%s.%N)
  [ -s "$f" ] || { echo "make_tutorial_jacobians: $(basename "$prog") wrote no matrix to $f (log $log)" >&2; return 1; }
  rm -f "$f.info"
  printf 'make_tutorial_jacobians: %-18s %6s MB  %.1f s  (%s %s)\n' "$name.petsc" "$(( $(stat -c %s "$f") / 1048576 ))" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(basename "$prog")" "$*"
}

status=0
if [ -z "$only" ] || [ "$only" = cavity ]; then
  ex19=$(find_prog ex19) || exit 1
  run_one "cavity$grid" "$ex19" -da_grid_x "$grid" -da_grid_y "$grid" -lidvelocity 100 -grashof 1e3 "${cut_solves[@]}" || status=1
fi
if [ -z "$only" ] || [ "$only" = grayscott ]; then
  ex5=$(find_prog ex5) || exit 1
  run_one "grayscott$grid" "$ex5" -da_grid_x "$grid" -da_grid_y "$grid" -ts_max_steps 1 -ts_time_step 20 -ts_adapt_type none \
    -ts_max_snes_failures -1 "${cut_solves[@]}" || status=1
fi
[ "$status" = 0 ] && echo "make_tutorial_jacobians: done; bench_solve -f $out/cavity$grid.petsc:4,$out/grayscott$grid.petsc:2"
exit "$status"
