# The benchmarks of issue 11 (sourced by tests/run.sh): bench_values (value operations and COO assembly, baijksparse
# against the reference type), bench/scripts/run_ts_ex5_bytes.sh (host<->device bytes of PETSc's ts ex5) and the re-setup
# line of bench_vbjacobi. Small sizes: these check that the programs run, parse and compare, not the speed.
# shellcheck shell=bash

# bench_values: every operation on baijksparse and on the reference, after the same calls both give the same product
# (-check: relative difference <= 1e-10, else the run fails); 13 operations = 13 lines per matrix type
vals_lines=(--grep '^  scale +seqbaijksparse ' --grep '^  zerorows +seqbaijksparse ' --grep '^  coo +seqbaijksparse .* call\(s\) timed'
  --grep ' 0 comparison\(s\) of ours against [a-z]+ differ' --grep '^  coo +useful bytes: (MEETS|misses) +triad .*\| sector bytes: (MEETS|misses) +triad '
  --grep '^  scale +useful bytes: .*\| sector bytes: ' --nogrep ' failed: ')
# sector bytes, counted by hand for bs 4 (diagonal entries at stride 40 bytes: a sector each, 4 per block row; the zeroed
# rows: whole blocks in BSR, whole rows in CSR) and bs 3 (stride 32: 3 sectors a block row); the CSV gets both columns
tcase bench_values_host -- bench_values -host -mbs 64 -reps 2 -check "${vals_lines[@]}" --grep '^  scale +seqaij ' \
  --grep '^    shift +didx \+ 2 D: 16640 bytes \(baijksparse\), 17408 \(aij\)' --grep '^    zerorows +.*: 6848 bytes \(baijksparse\), 6848 \(aij\)' \
  --grep '^    scale +2 sec\(8 nz\): 114688 bytes' --grep '^  op +matrix .* sec MB +sec +vs ref '
pbg_values_csv() { # the CSV has sector_bytes and frac_triad_sector, with the counts of the table
  local f rc
  f=$(mktemp)
  pbg_run 1 bench_values -host -mbs 64 -reps 1 -warmup 0 -ops shift,coo -o "$f" > /dev/null
  rc=$?
  cat "$f"
  awk -F, ' # quoted fields hold commas: the two new columns are read from the end of the line
    NR == 1 { if ($(NF - 1) != "sector_bytes" || $NF != "frac_triad_sector") bad = bad " header"; next }
    { rows++; if ($(NF - 1) + 0 <= 0 || $NF + 0 <= 0) bad = bad " row " NR ": no sector reading" }
    /",shift,seqbaijksparse,/ { if ($(NF - 1) != 16640) bad = bad " shift: " $(NF - 1) " != 16640"; shift++ }
    END { if (rows != 4 || shift != 1) bad = bad " rows " rows " != 4 or no shift row"; if (bad) { print "FAILED:" bad; exit 1 } }' "$f" || rc=1
  rm -f "$f"
  return "$rc"
}
tcheck bench_values_host_csv -- pbg_values_csv
tcase bench_values_host_bs3_prep_both -- bench_values -host -bs 3 -mbs 50 -blocks_per_row 5 -random_blocks 1 -reps 1 -warmup 1 -prep both -zero_rows_every 3 -check \
  "${vals_lines[@]}" --grep 'band of 4 \+ 1 random' --grep '^    shift +didx \+ 2 D: 9824 bytes \(baijksparse\), 10208 \(aij\)'
tcase bench_values_host_bs1_baij_ref -- bench_values -host -bs 1 -mbs 40 -reps 1 -ref_type baij -ops axpy_subset,duplicate,coo -check \
  --grep '^  axpy_subset +seqbaij ' --grep '^  duplicate +seqbaijksparse ' --grep ' 0 comparison' --nogrep '^  scale '
# COO with a budget far too small: the probe shrinks the problem and the calls stop early, and it says so
tcase bench_values_host_coo_budget -- bench_values -host -mbs 6000 -ops coo -coo_max_seconds 1e-9 -coo_probe_mbs 100 -reps 3 -check \
  --grep 'coo: the probes at 50 and 100 block rows estimate .* run at 100 block rows' --grep '1 call\(s\) timed \(-coo_max_seconds\)' --grep ' 0 comparison'
# no leaks: duplicates, COO matrices and probes, work vectors
tcase bench_values_host_malloc_dump -- bench_values -host -mbs 40 -reps 1 -warmup 1 -coo_probe_mbs 32 -malloc_debug -malloc_dump --grep ' 0 comparison' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bench_values_err_bogus_op --fail -- bench_values -host -mbs 64 -ops scale,bogus --grep 'unknown op "bogus"'
tcase bench_values_err_small_mbs --fail -- bench_values -host -mbs 5 --grep 'too small for 7 blocks per row'
tcase bench_values_err_prep --fail -- bench_values -host -mbs 64 -prep cpu --grep '-prep cpu: use gpu or both'
# GPU: device values (CUDA vectors, values newer on the device before each call, v of COO on the device), the same
# comparison against aijcusparse
tcase bench_values_gpu --gpu -- bench_values -mbs 64 -reps 2 -triad_n 1048576 -check "${vals_lines[@]}" --grep '^  scale +seqaijcusparse ' --grep 'v on the device'
tcase bench_values_gpu_bs3_prep_both --gpu -- bench_values -bs 3 -mbs 500 -reps 2 -triad_n 1048576 -prep both -check "${vals_lines[@]}"

# run_ts_ex5_bytes.sh: one CSV row per type with steps and Jacobian evaluations read from -log_view; on the GPU the
# matrix is uploaded at least once and a verdict is given
pbg_ts_ex5_bytes() { # VEC-TYPE TYPES GRID
  local d rc
  d=$(mktemp -d)
  bash "$PBG_ROOT/bench/scripts/run_ts_ex5_bytes.sh" "$d" --grid "$3" --steps 2 --vec_type "$1" --types "$2"
  rc=$?
  cat "$d/ts_ex5_bytes.csv"
  awk -F, -v vt="$1" -v want="$(tr ',' '\n' <<< "$2" | grep -c .)" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { rows++
      if ($c["steps"] != 2 || $c["jacobian_evals"] < 1 || $c["exit_status"] != 0) bad = bad " " $1 ": steps/evaluations/exit"
      if (vt == "cuda" && ($c["mat_uploads"] < 1 || ($c["verdict"] != "met" && $c["verdict"] != "MISSED"))) bad = bad " " $1 ": no upload or verdict"
      if (vt != "cuda" && $c["verdict"] != "n/a(host_vectors)") bad = bad " " $1 ": verdict on host vectors" }
    END { if (rows != want) bad = bad " rows " rows " != " want; if (bad) { print "FAILED:" bad; exit 1 } }' "$d/ts_ex5_bytes.csv" || rc=1
  rm -rf "$d"
  return "$rc"
}
if [ -x "$PBG_ROOT/bench/bin/ex5" ]; then
  tcheck ts_ex5_bytes_host -- pbg_ts_ex5_bytes standard baijksparse,aij 32
  tcheck ts_ex5_bytes_gpu --gpu -- pbg_ts_ex5_bytes cuda baijksparse,aijcusparse 128
fi

# bench_vbjacobi: the re-setup after MatScale of vbjacobi on baijksparse against aijcusparse (-host: baij, aij)
tcase bench_vbjacobi_resetup_ratio_host -- bench_vbjacobi -host -n 2000 -maxbs 4 -patterns tridiag -reps 2 -detect_maxbs 4 \
  --grep 'vbjacobi re-setup after MatScale: seqbaij [0-9.]+ ms / seqaij [0-9.]+ ms = [0-9.]+x .*host<->device in MatScale \+ re-setup: 0.00 MB / 0.00 MB'
tcase bench_vbjacobi_resetup_ratio_gpu --gpu -- bench_vbjacobi -n 20000 -maxbs 4 -patterns tridiag -reps 3 -detect_maxbs 4 -triad_n 1048576 \
  --grep 'vbjacobi re-setup after MatScale: seqbaijksparse [0-9.]+ ms / seqaijcusparse [0-9.]+ ms = [0-9.]+x'
