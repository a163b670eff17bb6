#!/usr/bin/env bash
# bench_solve with each storage precision of the vbjacobi inverses (issue 14): KSPIDRS(4), right preconditioning, the
# true residual, vbjacobi (merged supervariables at bounds 8..32, and its defaults) on the SuiteSparse Table 1 matrices,
# the real-matrix set and two PETSc tutorial Jacobians at 512x512 (made by make_tutorial_jacobians.sh).
#   bench/scripts/run_solve_precisions.sh OUTDIR   -> OUTDIR/solve_prec_{double,single,half,adaptive}.{csv,txt}, then
#   python3 bench/plots/compare_precisions.py OUTDIR/solve_prec_*.csv (iterations and total time of each against double)
set -u
out=${1:?usage: run_solve_precisions.sh OUTDIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) # the root: this script is in bench/scripts/
mkdir -p "$out"
tut=$(mktemp -d)
bash "$here/bench/scripts/make_tutorial_jacobians.sh" "$tut" > "$out/tutorials.log" 2>&1 || echo "no tutorial Jacobians (see $out/tutorials.log)"
files=""
[ -f "$tut/grayscott512.petsc" ] && files="$tut/grayscott512.petsc:2"
[ -f "$tut/cavity512.petsc" ] && files="${files:+$files,}$tut/cavity512.petsc:4"
for p in double single half adaptive; do
  rm -f "$out/solve_prec_$p.csv"
  common=(-ksp_types idrs -pcs vbjacobi,vbjacobi-default -blockings supervariable -pc_side right -stagnation_its 5000 -pc_vbjacobi_precision "$p" -o "$out/solve_prec_$p.csv" -append)
  { bench_solve -suitesparse_dir "$here/data/suitesparse" -mat_types aij -time_cap 5 "${common[@]}"
    [ -n "$files" ] && bench_solve -f "$files" -bounds 8,32 -time_cap 6 "${common[@]}"
    bench_solve -matrices_dir "$here/tests/data/matrices" -bounds 8,32 -time_cap 3 "${common[@]}"; } > "$out/solve_prec_$p.txt" 2>&1
  grep -E '^bench_solve: [0-9]+ runs' "$out/solve_prec_$p.txt" | sed "s/^/$p: /"
done
rm -rf "$tut"
