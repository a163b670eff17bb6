# bench_solve (time to solution on real matrices; sourced by tests/run.sh). Without a GPU it runs the host path (aij,
# baij, standard vectors): a functional check of the program, its Matrix Market reader and its CSV, in seconds.
#   - a 2-D Laplacian in Matrix Market symmetric storage (gzip, with one explicit zero), bs 1, IDR, IDRS and GMRES:
#     every run converges, the true residual is small, the CSV has the columns bench/plots/plot_solve.py reads; the idrs rows
#     run left preconditioning with the unpreconditioned norm (KSPIDRS's default, as KSPGetNormType() says), and the
#     bytes floor per iteration is the manual page's count (jacobi: exact; vbjacobi and vpbjacobi with the same
#     blocks: equal); floor_frac is "-" on the host, a positive fraction on a GPU
#   - the same with -pc_side right: idr and idrs both right/unpreconditioned, the same floor
#   - -append to a CSV of another column layout: a clear error
#   - a 2-component problem in general storage with :2: pbjacobi, baij, -pc_vbjacobi_blocking matrix
#   - a PETSc binary file with a right-hand side after the matrix (solve_file -write_example): the vector is ignored
#   - malformed files: a clear PETSc error naming the file (and the line), non-zero exit
#   - a missing -suitesparse_dir: a visible SKIP line, exit 0; and one of the paper's matrices when present
# shellcheck shell=bash

pbg_bs_data=$PBG_WORKDIR/bench_solve.data
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

pbg_bs_csv_columns='device,matrix,rows,nnz,bs,mat_type,ksp,pc_side,norm,pc,bound,blocking,options,iterations,cycles,reason,recurrence_rel_residual,true_rel_residual,setup_s,pc_setup_s,solve_s,total_s,time_per_it_s,floor_bytes_per_it,floor_frac,nblocks,mean_block,note,rerun,file'

# CSV: the expected header, NROWS data rows, every one converged with a true residual below 1e-6
pbg_bs_check_csv() { # CSV NROWS
  local csv=$1 want=$2
  [ -f "$csv" ] || { echo "no CSV $csv"; return 1; }
  head -n 1 "$csv"
  [ "$(head -n 1 "$csv")" = "$pbg_bs_csv_columns" ] || { echo "CSV header differs from: $pbg_bs_csv_columns"; return 1; }
  # quoted fields (device, matrix, options, note, rerun, file) out of the way, then: 7 ksp, 14 iterations, 15 cycles
  # (IDR: ceil(its / 5), else "-"), 16 reason, 17 recurrence residual, 18 true residual, 24 floor_bytes_per_it,
  # 25 floor_frac, 27 mean block
  sed -E '1d; s/"[^"]*"/Q/g' "$csv" | awk -F, -v want="$want" '
    { n++; print $6, $7, $8, $9, $10, $11, $12, $14, $15, $16, $17, $18, $24, $25, $27
      if ($16 !~ /^CONVERGED/ || $18 + 0 > 1e-6 || $14 + 0 < 1 || $17 !~ /^[0-9]/) bad++
      cyc = ($7 == "idr" || $7 == "idrs") ? int(($14 + 4) / 5) "" : "-"
      if ($15 != cyc) { print "cycles " $15 " where " cyc " is due"; bad++ } }
    END { printf "%d rows (want %d), %d not converged, with a large true residual or wrong cycles\n", n, want, bad; exit !(n == want && bad == 0) }'
}

# The bytes floor of lap12 (n 144, nnz 674, aij(cusparse)) per the manual page: matmult 12*674 + 4*145 + 16*144 = 10972,
# jacobi 24*144 = 3456, passes of IDR(4) 22.4 (right, or the preconditioned norm) or 26.4 (left, true norm):
# 10972 + 3456 + 8*144*22.4 = 40232.8, 10972 + 3456 + 8*144*26.4 = 44840.8.
# CSV, then lines "KSP PC BOUND SIDE NORM FLOOR_BYTES FLOOR_FRAC OPTIONS" of its rows; the device's floor_frac rule
pbg_bs_floor_rows() { # CSV
  awk '
    function splitcsv(line, f,   n, i, c, q, cur) { # fields, quotes honoured (the device and options hold commas)
      n = 0; cur = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") q = !q
        else if (c == "," && !q) { f[++n] = cur; cur = "" }
        else cur = cur c
      }
      f[++n] = cur
      return n
    }
    NR == 1 { n = splitcsv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    { splitcsv($0, f)
      host = f[col["device"]] ~ /^host/; fr = f[col["floor_frac"]]
      ok = (host || f[col["ksp"]] == "gmres") ? fr == "-" : (fr ~ /^[0-9.e+-]+$/ && fr + 0 > 0)
      print f[col["ksp"]], f[col["pc"]], f[col["bound"]], f[col["pc_side"]], f[col["norm"]], f[col["floor_bytes_per_it"]], ok ? fr : "BADFRAC", f[col["options"]] }' "$1"
}

pbg_bs_laplacian_case() {
  local csv=$pbg_bs_data/lap12.csv out rows
  rm -f "$csv"
  out=$(pbg_run 1 bench_solve -f "$pbg_bs_data/lap12.mtx.gz" -ksp_types idr,idrs,gmres -bounds 8 -o "$csv") || { echo "$out"; return 1; }
  echo "$out"
  grep -qE '^lap12: 144 rows, 674 nonzeros' <<< "$out" || { echo "expected 144 rows and 674 nonzeros (both triangles + the explicit zero)"; return 1; }
  grep -q 'KSPIDR and DIVERGED_DTOL' <<< "$out" || { echo "the header lacks the KSPIDR note"; return 1; }
  grep -q 'KSPIDRS (idrs) likewise' <<< "$out" || { echo "the header lacks the KSPIDRS note"; return 1; }
  grep -qE '^  triad_Bps ' <<< "$out" || { echo "the header lacks triad_Bps"; return 1; }
  # jacobi, vbjacobi-default, vbjacobi supervariable 8, vpbjacobi 8; three KSPs
  pbg_bs_check_csv "$csv" 12 || return 1
  rows=$(pbg_bs_floor_rows "$csv") || return 1
  echo "$rows"
  ! grep -q BADFRAC <<< "$rows" || { echo "floor_frac: '-' on the host and for gmres, a positive number on a GPU"; return 1; }
  [ "$(grep -c '^idrs .* left unpreconditioned .*-ksp_type idrs -ksp_idrs_s 4 -ksp_pc_side left ' <<< "$rows")" = 4 ] || { echo "want 4 idrs rows, left, unpreconditioned norm (its default), -ksp_idrs_s 4 -ksp_pc_side left"; return 1; }
  [ "$(grep -c '^idr .* left preconditioned ' <<< "$rows")" = 4 ] || { echo "want 4 idr rows, left, preconditioned norm"; return 1; }
  grep -qE '^idr jacobi - left preconditioned 40233 ' <<< "$rows" || { echo "idr + jacobi: floor_bytes_per_it should be 40233"; return 1; }
  grep -qE '^idrs jacobi - left unpreconditioned 44841 ' <<< "$rows" || { echo "idrs + jacobi: floor_bytes_per_it should be 44841"; return 1; }
  [ "$(grep -cE '^gmres .* - - ' <<< "$rows")" = 4 ] || { echo "gmres: floor '-'"; return 1; }
  local k vb vp
  for k in idr idrs; do # vbjacobi supervariable 8 and vpbjacobi 8 have the same blocks: the same floor, above jacobi's
    vb=$(awk -v k=$k '$1 == k && $2 == "vbjacobi" && $3 == 8 { print $6 }' <<< "$rows")
    vp=$(awk -v k=$k '$1 == k && $2 == "vpbjacobi" && $3 == 8 { print $6 }' <<< "$rows")
    [ -n "$vb" ] && [ "$vb" = "$vp" ] && [ "$vb" -gt 44841 ] || { echo "$k: vbjacobi 8 floor $vb, vpbjacobi 8 floor $vp: want equal, above jacobi's"; return 1; }
  done
}
tcheck bench_solve_mtx_gz_symmetric -- pbg_bs_laplacian_case

pbg_bs_right_case() {
  local csv=$pbg_bs_data/lap12_right.csv out rows
  rm -f "$csv"
  out=$(pbg_run 1 bench_solve -f "$pbg_bs_data/lap12.mtx.gz" -ksp_types idr,idrs -pcs jacobi -pc_side right -o "$csv") || { echo "$out"; return 1; }
  echo "$out"
  pbg_bs_check_csv "$csv" 2 || return 1
  rows=$(pbg_bs_floor_rows "$csv") || return 1
  echo "$rows"
  ! grep -q BADFRAC <<< "$rows" || return 1
  grep -qE '^idr jacobi - right unpreconditioned 40233 .*-ksp_pc_side right -ksp_norm_type unpreconditioned' <<< "$rows" || { echo "idr: right, unpreconditioned, floor 40233"; return 1; }
  grep -qE '^idrs jacobi - right unpreconditioned 40233 .*-ksp_idrs_s 4 -ksp_pc_side right -ksp_norm_type unpreconditioned' <<< "$rows" || { echo "idrs: right, unpreconditioned, floor 40233"; return 1; }
}
tcheck bench_solve_idrs_right -- pbg_bs_right_case

# -append to a CSV of an older column layout: refused, naming the file
printf 'device,matrix,rows,nnz,bs,mat_type,ksp,pc_side,norm,pc,bound,blocking,options,iterations,cycles,reason,recurrence_rel_residual,true_rel_residual,setup_s,pc_setup_s,solve_s,total_s,time_per_it_s,nblocks,mean_block,note,rerun,file\n' > "$pbg_bs_data/old_layout.csv"
tcase bench_solve_err_append_layout --fail -- bench_solve -f "$pbg_bs_data/lap12.mtx.gz" -ksp_types idr -pcs jacobi -o "$pbg_bs_data/old_layout.csv" -append \
  --grep 'PETSC ERROR: -append [^ ]*old_layout.csv: its header is not this bench_solve'

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
    --grep '^s1rmt3m1: 5489 rows, 217651 nonzeros' --grep 's1rmt3m1 .* idr +vbjacobi +16 +supervariable +[0-9]+ +[0-9]+ +CONVERGED_RTOL'
else
  pbg_begin bench_solve_s1rmt3m1_idr && pbg_report bench_solve_s1rmt3m1_idr SKIP "SuiteSparse set absent ($PBG_ROOT/data/suitesparse, $PBG_ROOT/../shared/matrices/suitesparse)"
fi
unset pbg_bs_ss d
