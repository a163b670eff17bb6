# bench_solve (time to solution on real matrices; sourced by tests/run.sh). Without a GPU it runs the host path (aij,
# baij, standard vectors): a functional check of the program, its Matrix Market reader and its CSV, in seconds.
#   - a 2-D Laplacian in Matrix Market symmetric storage (gzip, with one explicit zero), bs 1, IDR and GMRES: every
#     run converges, the true residual is small, the CSV has the columns bench/plot_solve.py reads
#   - a 2-component problem in general storage with :2: pbjacobi, baij, -pc_vbjacobi_blocking matrix
#   - a PETSc binary file with a right-hand side after the matrix (solve_file -write_example): the vector is ignored
#   - malformed files: a clear PETSc error naming the file (and the line), non-zero exit
#   - a missing -suitesparse_dir: a visible SKIP line, exit 0; and one of the paper's matrices when present
# shellcheck shell=bash

pbg_bs_data=$PBG_LOGDIR/bench_solve.data
mkdir -p "$pbg_bs_data"

# 2-D 5-point Laplacian on an N x N grid, lower triangle (symmetric storage), plus an explicit zero at (N+3, 1)
pbg_bs_laplacian() { # N
  awk -v n="$1" 'BEGIN {
    N = n * n; nz = 0
    for (j = 0; j < n; j++) for (i = 0; i < n; i++) {
      r = j * n + i + 1
      row[++nz] = r " " r " 4"
      if (i > 0) row[++nz] = r " " (r - 1) " -1"
      if (j > 0) row[++nz] = r " " (r - n) " -1"
    }
    row[++nz] = (n + 3) " 1 0"
    print "%%MatrixMarket matrix coordinate real symmetric"
    print "% bench_solve test: 2-D Laplacian " n " x " n ", one explicit zero"
    print N, N, nz
    for (k = 1; k <= nz; k++) print row[k]
  }'
}
# 2 coupled components per grid point, nonsymmetric (convection), general storage
pbg_bs_twocomp() { # N
  awk -v n="$1" 'BEGIN {
    N = 2 * n * n; nz = 0
    for (j = 0; j < n; j++) for (i = 0; i < n; i++) {
      p = j * n + i
      for (a = 0; a < 2; a++) {
        r = 2 * p + a + 1
        for (b = 0; b < 2; b++) row[++nz] = r " " (2 * p + b + 1) " " (a == b ? 5 + a : 0.5 + 0.25 * a - 0.1 * b)
        if (i > 0) row[++nz] = r " " (2 * (p - 1) + a + 1) " -1.2"
        if (i < n - 1) row[++nz] = r " " (2 * (p + 1) + a + 1) " -0.8"
        if (j > 0) row[++nz] = r " " (2 * (p - n) + a + 1) " -1"
        if (j < n - 1) row[++nz] = r " " (2 * (p + n) + a + 1) " -1"
      }
    }
    print "%%MatrixMarket matrix coordinate real general"
    print N, N, nz
    for (k = 1; k <= nz; k++) print row[k]
  }'
}
pbg_bs_laplacian 12 > "$pbg_bs_data/lap12.mtx"
gzip -c "$pbg_bs_data/lap12.mtx" > "$pbg_bs_data/lap12.mtx.gz"
pbg_bs_twocomp 8 > "$pbg_bs_data/twocomp8.mtx"
head -n 60 "$pbg_bs_data/lap12.mtx" > "$pbg_bs_data/lap_truncated.mtx"
head -c 300 "$pbg_bs_data/lap12.mtx.gz" > "$pbg_bs_data/lap_cut.mtx.gz"
sed '20s/.*/17 x -1/' "$pbg_bs_data/lap12.mtx" > "$pbg_bs_data/lap_badline.mtx"
sed '1s/.*/%%MatrixMarket matrix coordinate complex general/' "$pbg_bs_data/lap12.mtx" > "$pbg_bs_data/lap_complex.mtx"

pbg_bs_csv_columns='device,matrix,rows,nnz,bs,mat_type,ksp,pc_side,norm,pc,bound,blocking,options,iterations,reason,true_rel_residual,setup_s,pc_setup_s,solve_s,total_s,time_per_it_s,nblocks,mean_block,note,rerun,file'

# CSV: the expected header, NROWS data rows, every one converged with a true residual below 1e-6
pbg_bs_check_csv() { # CSV NROWS
  local csv=$1 want=$2
  [ -f "$csv" ] || { echo "no CSV $csv"; return 1; }
  head -n 1 "$csv"
  [ "$(head -n 1 "$csv")" = "$pbg_bs_csv_columns" ] || { echo "CSV header differs from: $pbg_bs_csv_columns"; return 1; }
  # quoted fields (device, matrix, options, note, rerun, file) out of the way, then: 14 iterations, 15 reason, 16 true residual
  sed -E '1d; s/"[^"]*"/Q/g' "$csv" | awk -F, -v want="$want" '
    { n++; print $6, $7, $8, $9, $10, $11, $12, $14, $15, $16, $23
      if ($15 !~ /^CONVERGED/ || $16 + 0 > 1e-6 || $14 + 0 < 1) bad++ }
    END { printf "%d rows (want %d), %d not converged or with a large true residual\n", n, want, bad; exit !(n == want && bad == 0) }'
}

pbg_bs_laplacian_case() {
  local csv=$pbg_bs_data/lap12.csv out
  rm -f "$csv"
  out=$(pbg_run 1 bench_solve -f "$pbg_bs_data/lap12.mtx.gz" -ksp_types idr,gmres -bounds 8 -o "$csv") || { echo "$out"; return 1; }
  echo "$out"
  grep -qE '^lap12: 144 rows, 674 nonzeros' <<< "$out" || { echo "expected 144 rows and 674 nonzeros (both triangles + the explicit zero)"; return 1; }
  grep -q 'KSPIDR and DIVERGED_DTOL' <<< "$out" || { echo "the header lacks the KSPIDR note"; return 1; }
  # jacobi, vbjacobi-default, vbjacobi supervariable 8, vpbjacobi 8; two KSPs
  pbg_bs_check_csv "$csv" 8
}
tcheck bench_solve_mtx_gz_symmetric -- pbg_bs_laplacian_case

pbg_bs_twocomp_case() {
  local csv=$pbg_bs_data/twocomp8.csv out
  rm -f "$csv"
  out=$(pbg_run 1 bench_solve -f "$pbg_bs_data/twocomp8.mtx:2" -ksp_types idr -bounds 8 -o "$csv") || { echo "$out"; return 1; }
  echo "$out"
  grep -qE 'twocomp8 .* (baij|baijksparse) +idr +vbjacobi +- +matrix' <<< "$out" || { echo "no vbjacobi -pc_vbjacobi_blocking matrix row on baij"; return 1; }
  # jacobi, pbjacobi, vbjacobi-default x2, supervariable 8 x2, matrix x2, vpbjacobi 8
  pbg_bs_check_csv "$csv" 9 || return 1
  grep -qE ',pbjacobi,-,-,.*,2\.0000,' "$csv" || { echo "pbjacobi's mean block should be 2"; return 1; }
}
tcheck bench_solve_mtx_bs2 -- pbg_bs_twocomp_case

pbg_bs_binary_case() {
  local f=$pbg_bs_data/example.petsc out
  pbg_run 1 solve_file -write_example "$f" -example_n 6 -example_bs 3 || return 1
  out=$(pbg_run 1 bench_solve -f "$f:3" -ksp_types gmres -pcs jacobi,vbjacobi -bounds 12 -blockings supervariable -mat_types aij -o "$pbg_bs_data/example.csv") || { echo "$out"; return 1; }
  echo "$out"
  grep -qE '^example: 108 rows' <<< "$out" || return 1
  pbg_bs_check_csv "$pbg_bs_data/example.csv" 2
}
tcheck bench_solve_petsc_binary -- pbg_bs_binary_case

# malformed files: a PETSc error naming the file (and the line), not a crash
tcase bench_solve_err_truncated --fail -- bench_solve -f "$pbg_bs_data/lap_truncated.mtx" -ksp_types idr -pcs jacobi \
  --grep 'PETSC ERROR: Matrix Market file [^ ]*lap_truncated.mtx: truncated, it ends at line 60'
tcase bench_solve_err_gzip_cut --fail -- bench_solve -f "$pbg_bs_data/lap_cut.mtx.gz" -ksp_types idr -pcs jacobi \
  --grep 'PETSC ERROR: Matrix Market file [^ ]*lap_cut.mtx.gz'
tcase bench_solve_err_bad_line --fail -- bench_solve -f "$pbg_bs_data/lap_badline.mtx" -ksp_types idr -pcs jacobi \
  --grep 'PETSC ERROR: Matrix Market file [^ ]*lap_badline.mtx, line 20: want "ROW COLUMN VALUE"'
tcase bench_solve_err_complex --fail -- bench_solve -f "$pbg_bs_data/lap_complex.mtx" -ksp_types idr -pcs jacobi \
  --grep 'PETSC ERROR: Matrix Market file [^ ]*lap_complex.mtx, line 1: field "complex" is not supported'
tcase bench_solve_err_missing --fail -- bench_solve -f "$pbg_bs_data/no_such_file.mtx" --grep 'PETSC ERROR: .*no_such_file.mtx: cannot open'

# the SuiteSparse set is optional: a missing directory is a visible SKIP line and exit 0
tcase bench_solve_suitesparse_missing -- bench_solve -suitesparse_dir "$pbg_bs_data/no_such_dir" -ksp_types idr \
  --grep 'SKIP SuiteSparse matrices: no directory' --grep 'no matrix to solve'

# one of the paper's matrices, where the set is present (the tree's ../shared, or the bundle's data/suitesparse)
pbg_bs_ss=""
for d in "$PBG_ROOT/data/suitesparse" "$PBG_ROOT/../shared/matrices/suitesparse"; do
  [ -f "$d/s1rmt3m1.mtx.gz" ] && { pbg_bs_ss=$d; break; }
done
if [ -n "$pbg_bs_ss" ]; then
  tcase bench_solve_s1rmt3m1_idr -- bench_solve -f "$pbg_bs_ss/s1rmt3m1.mtx.gz" -ksp_types idr -pcs vbjacobi -bounds 16 -blockings supervariable -mat_types aij \
    --grep '^s1rmt3m1: 5489 rows, 217651 nonzeros' --grep 's1rmt3m1 .* idr +vbjacobi +16 +supervariable +[0-9]+ +CONVERGED_RTOL'
else
  pbg_begin bench_solve_s1rmt3m1_idr && pbg_report bench_solve_s1rmt3m1_idr SKIP "SuiteSparse set absent ($PBG_ROOT/data/suitesparse, $PBG_ROOT/../shared/matrices/suitesparse)"
fi
unset pbg_bs_ss d
