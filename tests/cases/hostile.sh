# Regressions of the hostile-input sweep of issue 37 (sourced by tests/run.sh): test_hostile runs each sequence that
# gave a silent wrong result, a crash, a leak or a hang, against MATAIJ or PETSc's own PCs. The COO routes are in
# baijksparse_coo.sh (-err zerorows ...), the Python checks in python.sh, the install paths in install.sh.
# shellcheck shell=bash

pbg_dump=(--nogrep '^\[ *[0-9]+\] [0-9]+ bytes ')
# 2. MatTranspose() reused on mpibaijksparse: MPIBAIJ's refill gave max |A^T - T| ~ 1 on 2-3 ranks, a SEGV at bs 33 on 3
for p in "1 3" "2 3" "3 3" "3 33" "2 1"; do
  read -r np bs <<< "$p"
  tcase hostile_transpose_bs${bs}_np$np -n $np -- test_hostile -case transpose -bs $bs -nb 3 -malloc_debug -malloc_dump --grep '^transpose reused twice: mpibaijksparse|^transpose reused twice: seqbaijksparse' --grep '^transpose in place: .* ok$' --grep '^OK' --nogrep 'FAILED' "${pbg_dump[@]}"
done
tcase hostile_transpose_err_pattern_np2 --fail -n 2 -- test_hostile -case transpose -err_pattern --grep 'nonzero pattern of the mpibaijksparse matrix changed since its transpose was made|Reuse matrix has changed nonzero structure'
# 3. whole-block index sets that repeat a block: BAIJ kept it once (12 x 12 instead of 15 x 12) or, for columns on 2
# ranks, failed on one rank and hung the other; now the AIJ path, as for index sets that split blocks
for np in 1 2 3; do
  tcase hostile_submat_rows_np$np -n $np -- test_hostile -case submat -repeat rows -malloc_debug -malloc_dump --grep '^sub-matrix, a block row repeated: .* ok$' --grep '^sub-matrix reused: .* ok$' --grep '^OK' --nogrep 'FAILED' "${pbg_dump[@]}"
  tcase hostile_submat_cols_np$np -n $np -- test_hostile -case submat -repeat cols -malloc_debug -malloc_dump --grep '^sub-matrix, a block column repeated: .* ok$' --grep '^sub-matrix reused: .* ok$' --grep '^OK' --nogrep 'FAILED' "${pbg_dump[@]}"
done
tcase hostile_submat_rows_bs1 -- test_hostile -case submat -repeat rows -bs 1 --grep '^sub-matrix, a block row repeated: .* ok$' --grep '^OK'
# 4. in-place LU of seqbaijksparse: the solve was right, then MatDestroy() failed ("without its private data")
for bs in 1 3 5; do
  tcase hostile_lu_inplace_bs$bs -- test_hostile -case lu_inplace -bs $bs -malloc_debug -malloc_dump --grep '^MatLUFactor in place \(now seqbaij\): .* ok$' --grep '^the factored matrix destroyed' --grep '^-pc_type lu -pc_factor_in_place: .* ok$' --grep '^the PC.s factored matrix destroyed' --grep '^OK' "${pbg_dump[@]}"
done
# 5. MatCreateSubMatrices() of mpibaijksparse (PCASM's subdomains) leaked the subclass data of every sub-matrix
for p in "1 3" "2 3" "3 2"; do # (one rank: the next block row wraps to the first, a repeat: AIJ)
  read -r np bs <<< "$p"
  tcase hostile_submatrices_bs${bs}_np$np -n $np -- test_hostile -case submatrices -bs $bs -malloc_debug -malloc_dump --grep '^sub-matrices reused: seq(baijksparse|aij) .* ok$' --grep '^OK' --nogrep 'FAILED' "${pbg_dump[@]}"
done
tcase hostile_asm_malloc_dump_np2 -n 2 -- test_baijksparse_submat -mode solve -pc_type asm -malloc_debug -malloc_dump --grep '^OK' --nogrep 'FAILED' "${pbg_dump[@]}"
# 6. merged blocks of very different scale: the absolute pivot test failed the merged block (DIVERGED_PC_FAILED)
for np in 1 2; do
  tcase hostile_vbj_scaled_np$np -n $np -- test_hostile -case vbj_scaled -scale 1e15 --grep '^vbjacobi: CONVERGED_' --grep 'blocks from: supervariable' --grep 'histogram \(size:count\): 21:' --grep '^OK' --nogrep 'FAILED'
done
tcase hostile_vbj_scaled_tiny -- test_hostile -case vbj_scaled -scale 1e-15 --grep '^vbjacobi: CONVERGED_' --grep '^OK'
tcase hostile_gpu_vbj_scaled --gpu -- test_hostile -case vbj_scaled -scale 1e15 -mat_type aijcusparse -vec_type cuda --grep '^vbjacobi: CONVERGED_' --grep 'setup ran on: GPU' --grep '^OK'
# 8. the non-square check of vbjacobi on one rank only: with a returning error handler the other rank waited forever
tcase hostile_nonsquare_np2 -n 2 -- test_hostile -case nonsquare --grep '^\[0\] PCSetUp\(\) refused .*square local diagonal part on every rank; rank 1' --grep '^\[1\] PCSetUp\(\) refused .*got 4 local rows and 5 local columns' --grep '^OK'
# 10. unclear inputs: an unknown ghost exchange on host runs, a negative precision tolerance, ignored variable block sizes
tcase hostile_ghost_exchange_unknown_np2 --fail -n 2 -- test_baijksparse -target explicit -mat_baijksparse_ghost_exchange foo --grep 'Unknown .*foo'
tcase hostile_precision_tol_negative --fail -- test_vbjacobi -pc_vbjacobi_precision adaptive -pc_vbjacobi_precision_tol -1 --grep 'pc_vbjacobi_precision_tol -1\.? must be positive'
unset pbg_dump np bs p
# the same on the GPU: the values changed on the device (MatScale, MatShift) before the transpose, the factor, the sub-matrices
pbg_dump=(--nogrep '^\[ *[0-9]+\] [0-9]+ bytes ')
for p in "1 3" "2 3" "2 33"; do
  read -r np bs <<< "$p"
  tcase hostile_gpu_transpose_bs${bs}_np$np --gpu -n $np -- test_hostile -case transpose -bs $bs -nb 3 -use_gpu_aware_mpi 0 -malloc_debug -malloc_dump --grep '^transpose reused twice: .* ok$' --grep '^transpose in place: .* ok$' --grep '^OK' --nogrep 'FAILED' "${pbg_dump[@]}"
done
tcase hostile_gpu_lu_inplace --gpu -- test_hostile -case lu_inplace -bs 4 -malloc_debug -malloc_dump --grep '^the factored matrix destroyed' --grep '^-pc_type lu -pc_factor_in_place: .* ok$' --grep '^OK' "${pbg_dump[@]}"
tcase hostile_gpu_submatrices_np2 --gpu -n 2 -- test_hostile -case submatrices -bs 3 -use_gpu_aware_mpi 0 -malloc_debug -malloc_dump --grep '^sub-matrices reused: seqbaijksparse .* ok$' --grep '^OK' --nogrep 'FAILED' "${pbg_dump[@]}"
tcase hostile_gpu_submat_cols_np2 --gpu -n 2 -- test_hostile -case submat -repeat cols -use_gpu_aware_mpi 0 --grep '^sub-matrix reused: .* ok$' --grep '^OK' --nogrep 'FAILED'
unset pbg_dump np bs p
