# PCVBJACOBI cases (sourced by tests/run.sh). test_vbjacobi checks the blocks found, the inverses against
# LAPACK, PCApply/PCApplyTranspose against the reference inverses, and a solve.

# uniform blocks from the matrix block size, AIJ and BAIJ, sizes across the range
for bs in 1 2 3 5 8 16 17 32; do
  tcase vbj_uniform_aij_bs$bs -- test_vbjacobi -mode uniform -bs $bs -nblocks_local 40 -compare_petsc -seed $bs --grep 'blocks match' --grep '^OK'
done
for bs in 4 7; do
  tcase vbj_uniform_baij_bs$bs -- test_vbjacobi -mode uniform -bs $bs -mat_type baij -compare_petsc -pivot -seed 3 --grep '^OK'
done
tcase vbj_uniform_baijksparse -- test_vbjacobi -mode uniform -bs 6 -mat_type baijksparse -seed 5 --grep '^OK'
# mixed sizes from MatSetVariableBlockSizes, with pivoting needed
tcase vbj_mixed_pivot -- test_vbjacobi -mode mixed -maxgen 32 -nblocks_local 60 -pivot -compare_petsc --grep '^OK' -pc_view --grep 'blocks from: variable'
tcase vbj_mixed_small -- test_vbjacobi -mode mixed -maxgen 4 -nblocks_local 200 -pivot -seed 11 --grep '^OK'
# supervariable detection: runs of identical patterns, cut at the maximum block size (natural), then merged greedily up
# to it (supervariable, the default for matrices without a block size)
for maxbs in 2 5 8 16 24 32; do
  tcase vbj_merged_cap$maxbs -- test_vbjacobi -mode super -maxgen 9 -maxbs $maxbs -nblocks_local 70 -pc_vbjacobi_blocking supervariable -seed $maxbs --grep 'blocks match' --grep '^OK'
done
tcase vbj_merged_auto_bs1 -- test_vbjacobi -mode uniform -bs 1 -nblocks_local 100 -maxbs 12 -pc_view --grep 'blocks from: supervariable' --grep 'histogram \(size:count\): 4:1 12:8' --grep '^OK'
tcase vbj_natural_cap5 -- test_vbjacobi -mode super -maxgen 12 -maxbs 5 -nblocks_local 80 -pc_vbjacobi_blocking natural -seed 9 -pc_view --grep 'blocks from: natural' --grep '^OK'
tcase vbj_merged_long_runs -- test_vbjacobi -mode super -maxgen 40 -maxbs 12 -nblocks_local 40 -pc_vbjacobi_blocking supervariable -compare_petsc --grep 'blocks match' --grep '^OK'
tcase vbj_mpi3_merged -n 3 -- test_vbjacobi -mode super -maxgen 6 -maxbs 16 -nblocks_local 30 -offdiag 4 --grep 'blocks match' --grep '^OK'
tcase vbj_merged_baij_bs3 -- test_vbjacobi -mode uniform -bs 3 -mat_type baij -maxbs 8 -pc_vbjacobi_blocking supervariable -nblocks_local 40 -pc_view --grep 'histogram \(size:count\):.* 6:' --grep '^OK'
tcase vbj_super_cap32 -- test_vbjacobi -mode super -maxgen 40 -nblocks_local 60 -pc_vbjacobi_blocking supervariable --grep '^OK'
tcase vbj_super_cap5 -- test_vbjacobi -mode super -maxgen 12 -maxbs 5 -nblocks_local 80 -seed 9 --grep '^OK'
tcase vbj_super_cap1 -- test_vbjacobi -mode super -maxgen 6 -maxbs 1 -nblocks_local 50 --grep '^OK'
tcase vbj_super_auto -- test_vbjacobi -mode super -maxgen 9 -nblocks_local 50 -pc_view --grep 'blocks from: supervariable' --grep '^OK'
tcase vbj_super_empty_rows -- test_vbjacobi -mode super -maxgen 6 -nblocks_local 80 -empty_rows -pc_vbjacobi_singular identity -seed 4 --grep '^OK' -pc_view --grep 'replaced by the identity'
tcase vbj_super_baij_cut2 -- test_vbjacobi -mode uniform -bs 3 -mat_type baij -maxbs 2 -pc_vbjacobi_blocking supervariable -nblocks_local 40 --grep 'blocks match' --grep '^OK'
tcase vbj_super_singular_mpi3 -n 3 -- test_vbjacobi -mode uniform -bs 4 -maxbs 2 -pc_vbjacobi_blocking supervariable -singular_block 2 --grep 'DIVERGED_PC_FAILED' -pc_view --grep 'SETUP FAILED: zero or tiny pivot in diagonal block 202, global rows 404\.\.405'
tcase vbj_one_row -- test_vbjacobi -mode uniform -bs 1 -nblocks_local 1 -offdiag 0 --grep '^OK'
# MPI: blocks of the local diagonal part, off-process couplings
tcase vbj_mpi2_mixed -n 2 -- test_vbjacobi -mode mixed -maxgen 12 -nblocks_local 40 -pivot -compare_petsc --grep '^OK'
tcase vbj_mpi3_super -n 3 -- test_vbjacobi -mode super -maxgen 20 -maxbs 7 -nblocks_local 30 --grep '^OK'
tcase vbj_mpi2_baij -n 2 -- test_vbjacobi -mode uniform -bs 5 -mat_type baij -compare_petsc --grep '^OK'
tcase vbj_mpi3_baijksparse -n 3 -- test_vbjacobi -mode uniform -bs 3 -mat_type baijksparse --grep '^OK'
tcase vbj_mpi4_super -n 4 -- test_vbjacobi -mode super -maxgen 12 -maxbs 5 -nblocks_local 20 --grep '^OK'
# singular and non-finite blocks
tcase vbj_singular_fails -- test_vbjacobi -mode mixed -singular_block 3 --grep 'DIVERGED_PC_FAILED' --grep 'SETUP FAILED: zero or tiny pivot in diagonal block 3'
tcase vbj_singular_fails_mpi3 -n 3 -- test_vbjacobi -mode uniform -bs 4 -pc_vbjacobi_blocking matrix -singular_block 2 --grep 'DIVERGED_PC_FAILED' -pc_view --grep 'SETUP FAILED: zero or tiny pivot in diagonal block 102, global rows 408\.\.411'
tcase vbj_singular_identity -- test_vbjacobi -mode uniform -bs 3 -pc_vbjacobi_blocking matrix -singular_block 5 -pc_vbjacobi_singular identity --grep 'replaced by the identity: 1' --grep '^OK'
tcase vbj_nan_fails -- test_vbjacobi -mode mixed -nan_block 0 -pc_vbjacobi_singular identity --grep 'holds NaN or Inf' --grep 'DIVERGED_PC_FAILED'
tcase vbj_singular_error_message --fail -- test_vbjacobi -mode uniform -bs 2 -pc_vbjacobi_blocking matrix -singular_block 7 -ksp_error_if_not_converged --grep 'zero or tiny pivot in diagonal block 7, global rows 14\.\.15'
# bad options give clean errors
tcase vbj_bad_maxbs --fail -- test_vbjacobi -pc_vbjacobi_max_block_size 33 --grep 'out of range|outside'
tcase vbj_bad_blocking --fail -- test_vbjacobi -pc_vbjacobi_blocking nonsense --grep 'nonsense'
tcase vbj_matrix_bs_too_large --fail -- test_vbjacobi -mode uniform -bs 8 -maxbs 4 -pc_vbjacobi_blocking matrix --grep 'exceeds the maximum block size'
tcase vbj_variable_missing --fail -- test_vbjacobi -mode uniform -bs 2 -pc_vbjacobi_blocking variable --grep 'no block sizes were set'

# ---- the GPU path (aijcusparse and baijksparse matrices): every case checks the blocks, the inverses against
# LAPACK, the products against the reference inverses (outputs poisoned) and, with -compare_host, the same PC
# forced onto the host path, before and after new values.
GPUV=(-vec_type cuda -pc_view --grep 'setup ran on: GPU' --grep '^OK')
for bs in 1 2 3 4 5 7 8 9 15 16 17 24 31 32; do
  tcase vbj_gpu_uniform_bs$bs --gpu -- test_vbjacobi -mode uniform -bs $bs -nblocks_local 300 -mat_type aijcusparse -pivot -compare_host -seed $bs "${GPUV[@]}"
done
for maxgen in 4 8 16 32; do
  tcase vbj_gpu_mixed_max$maxgen --gpu -- test_vbjacobi -mode mixed -maxgen $maxgen -nblocks_local 500 -mat_type aijcusparse -pivot -compare_host -compare_petsc -seed $maxgen "${GPUV[@]}"
done
for maxbs in 1 2 3 8 13 32; do
  tcase vbj_gpu_natural_cap$maxbs --gpu -- test_vbjacobi -mode super -maxgen 40 -maxbs $maxbs -nblocks_local 400 -offdiag 5 -mat_type aijcusparse -compare_host -pc_vbjacobi_blocking natural -seed $maxbs "${GPUV[@]}" --grep 'blocks from: natural'
  tcase vbj_gpu_super_cap$maxbs --gpu -- test_vbjacobi -mode super -maxgen 40 -maxbs $maxbs -nblocks_local 400 -offdiag 5 -mat_type aijcusparse -compare_host -seed $maxbs "${GPUV[@]}" --grep 'blocks from: supervariable'
done
for ex in cached shared; do
  tcase vbj_gpu_extraction_$ex --gpu -- test_vbjacobi -mode mixed -maxgen 32 -nblocks_local 300 -offdiag 40 -mat_type aijcusparse -pivot -compare_host -pc_vbjacobi_extraction $ex "${GPUV[@]}" --grep "extraction $ex"
done
# the merge bound with no maximum block size set (issue 22, session 16): below 2^18 local rows the largest (32); above,
# the largest power of two within half the mean row length, at least 8 and bs; natural runs longer than the bound stay
# whole; a maximum block size set by the user is the bound. The test computes the rule on its own and checks the blocks.
VIEWB=(-auto_bound -ksp_view)
tcase vbj_auto_bound_small -- test_vbjacobi -mode super -maxgen 9 -nblocks_local 300 "${VIEWB[@]}" --grep 'merge up to 32' --grep 'supervariables merged up to 32 rows \(auto: [0-9]+ local rows, fewer than 262144: the largest blocks\)' --grep '^OK'
tcase vbj_auto_bound_bs2 -- test_vbjacobi -mode uniform -bs 2 -nblocks_local 140000 -offdiag 3 "${VIEWB[@]}" --grep 'merge up to 8' --grep 'supervariables merged up to 8 rows \(auto: 280000 local rows, 5\.0 nonzeros a row\)' --grep 'histogram \(size:count\): 8:35000$' --grep '^OK'
tcase vbj_auto_bound_dense -- test_vbjacobi -mode super -maxgen 4 -nblocks_local 110000 -offdiag 30 "${VIEWB[@]}" --grep 'merge up to 16' --grep 'supervariables merged up to 16 rows' --grep '^OK'
tcase vbj_auto_bound_long_runs -- test_vbjacobi -mode super -maxgen 20 -nblocks_local 30000 -offdiag 1 "${VIEWB[@]}" --grep 'merge up to 8' --grep 'histogram \(size:count\):.* 20:[0-9]' --grep '^OK'
tcase vbj_auto_bound_mpi2 -n 2 -- test_vbjacobi -mode super -maxgen 6 -nblocks_local 300 "${VIEWB[@]}" --grep '^\[1\] auto bound: [0-9]+ local rows' --grep 'supervariables merged up to 32 rows \(auto: ' --grep '^OK'
tcase vbj_user_bound_large -- test_vbjacobi -mode uniform -bs 2 -nblocks_local 140000 -offdiag 3 -maxbs 32 -ksp_view --grep 'supervariables merged up to 32 rows \(-pc_vbjacobi_max_block_size\)' --grep 'histogram \(size:count\): 32:8750$' --grep '^OK'
tcase vbj_gpu_auto_bound_bs2 --gpu -- test_vbjacobi -mode uniform -bs 2 -nblocks_local 140000 -offdiag 3 -mat_type aijcusparse -compare_host "${VIEWB[@]}" "${GPUV[@]}" --grep 'merge up to 8' --grep 'blocks match' --grep 'supervariables merged up to 8 rows'
tcase vbj_gpu_auto_bound_bs2_baijksparse --gpu -- test_vbjacobi -mode uniform -bs 2 -nblocks_local 140000 -offdiag 3 -mat_type baijksparse -compare_host "${VIEWB[@]}" "${GPUV[@]}" --grep 'merge up to 8' --grep 'blocks match'
tcase vbj_gpu_auto_bound_dense --gpu -- test_vbjacobi -mode super -maxgen 4 -nblocks_local 110000 -offdiag 30 -mat_type aijcusparse -compare_host "${VIEWB[@]}" "${GPUV[@]}" --grep 'merge up to 16' --grep 'blocks match'
tcase vbj_gpu_auto_bound_mpi2 --gpu -n 2 -- test_vbjacobi -mode super -maxgen 6 -nblocks_local 300 -mat_type aijcusparse -compare_host "${VIEWB[@]}" "${GPUV[@]}" --grep 'blocks match' --grep 'supervariables merged up to 32 rows'
tcase vbj_gpu_auto_bound_long_runs --gpu -- test_vbjacobi -mode super -maxgen 20 -nblocks_local 30000 -offdiag 1 -mat_type aijcusparse -compare_host "${VIEWB[@]}" "${GPUV[@]}" --grep 'merge up to 8' --grep 'blocks match'
# merged supervariables on the device: the same blocks as the host path (-compare_host) and as the test's own merge
for maxbs in 2 5 8 12 16 24 32; do
  tcase vbj_gpu_merged_cap$maxbs --gpu -- test_vbjacobi -mode super -maxgen 9 -maxbs $maxbs -nblocks_local 3000 -offdiag 3 -mat_type aijcusparse -compare_host -pc_vbjacobi_blocking supervariable -seed $maxbs "${GPUV[@]}" --grep 'blocks match'
done
tcase vbj_gpu_merged_bs1_many --gpu -- test_vbjacobi -mode uniform -bs 1 -nblocks_local 100000 -maxbs 24 -mat_type aijcusparse -compare_host "${GPUV[@]}" --grep 'blocks from: supervariable' --grep 'blocks match'
tcase vbj_gpu_merged_baijksparse_bs3 --gpu -- test_vbjacobi -mode uniform -bs 3 -nblocks_local 500 -mat_type baijksparse -maxbs 16 -pc_vbjacobi_blocking supervariable -compare_host "${GPUV[@]}" --grep 'blocks match'
tcase vbj_gpu_mpi3_merged --gpu -n 3 -- test_vbjacobi -mode super -maxgen 7 -maxbs 16 -nblocks_local 400 -mat_type aijcusparse -compare_host "${GPUV[@]}" --grep 'blocks from: supervariable' --grep 'blocks match'
tcase vbj_gpu_merged_empty_rows --gpu -- test_vbjacobi -mode super -maxgen 6 -maxbs 12 -nblocks_local 300 -empty_rows -pc_vbjacobi_singular identity -mat_type aijcusparse -compare_host "${GPUV[@]}" --grep 'replaced by the identity'
tcase vbj_gpu_super_empty_rows --gpu -- test_vbjacobi -mode super -maxgen 6 -nblocks_local 300 -empty_rows -pc_vbjacobi_singular identity -mat_type aijcusparse -compare_host "${GPUV[@]}" --grep 'replaced by the identity'
tcase vbj_gpu_baijksparse_bs6 --gpu -- test_vbjacobi -mode uniform -bs 6 -nblocks_local 200 -mat_type baijksparse -compare_host -seed 5 "${GPUV[@]}"
tcase vbj_gpu_baijksparse_super --gpu -- test_vbjacobi -mode uniform -bs 3 -nblocks_local 200 -mat_type baijksparse -pc_vbjacobi_blocking supervariable -compare_host -seed 6 "${GPUV[@]}" --grep 'blocks from: supervariable'
# device detection at a BSR block size the maximum block size cuts (2) or ignores (1)
for maxbs in 1 2; do
  tcase vbj_gpu_baijksparse_super_cap$maxbs --gpu -- test_vbjacobi -mode uniform -bs 3 -nblocks_local 200 -mat_type baijksparse -maxbs $maxbs -pc_vbjacobi_blocking supervariable -compare_host -seed 8 "${GPUV[@]}" --grep 'blocks from: supervariable'
done
tcase vbj_gpu_mpi2_super_cap1 --gpu -n 2 -- test_vbjacobi -mode super -maxgen 5 -maxbs 1 -nblocks_local 150 -mat_type aijcusparse -compare_host "${GPUV[@]}"
tcase vbj_gpu_mpi2_mixed --gpu -n 2 -- test_vbjacobi -mode mixed -maxgen 12 -nblocks_local 200 -pivot -mat_type aijcusparse -compare_host "${GPUV[@]}"
tcase vbj_gpu_mpi3_super --gpu -n 3 -- test_vbjacobi -mode super -maxgen 20 -maxbs 7 -nblocks_local 150 -mat_type aijcusparse -compare_host "${GPUV[@]}"
tcase vbj_gpu_mpi3_baijksparse --gpu -n 3 -- test_vbjacobi -mode uniform -bs 5 -nblocks_local 100 -mat_type baijksparse -compare_host "${GPUV[@]}"
tcase vbj_gpu_mpi4_super --gpu -n 4 -- test_vbjacobi -mode super -maxgen 20 -maxbs 9 -nblocks_local 80 -mat_type aijcusparse -compare_host "${GPUV[@]}"
tcase vbj_gpu_mpi4_baijksparse --gpu -n 4 -- test_vbjacobi -mode uniform -bs 3 -nblocks_local 60 -mat_type baijksparse -compare_host "${GPUV[@]}"
tcase vbj_gpu_singular_fails --gpu -- test_vbjacobi -mode mixed -singular_block 3 -mat_type aijcusparse -vec_type cuda --grep 'DIVERGED_PC_FAILED' --grep 'SETUP FAILED: zero or tiny pivot in diagonal block 3' --grep 'setup ran on: GPU'
tcase vbj_gpu_singular_fails_mpi3 --gpu -n 3 -- test_vbjacobi -mode uniform -bs 4 -pc_vbjacobi_blocking matrix -singular_block 2 -mat_type aijcusparse -vec_type cuda --grep 'DIVERGED_PC_FAILED' --grep 'SETUP FAILED: zero or tiny pivot in diagonal block 102, global rows 408\.\.411'
# the failure message of a block found on the device (the host never copied the starts)
tcase vbj_gpu_super_singular_mpi3 --gpu -n 3 -- test_vbjacobi -mode uniform -bs 4 -maxbs 2 -pc_vbjacobi_blocking supervariable -singular_block 2 -mat_type aijcusparse -vec_type cuda --grep 'DIVERGED_PC_FAILED' -pc_view --grep 'SETUP FAILED: zero or tiny pivot in diagonal block 202, global rows 404\.\.405' --grep 'setup ran on: GPU'
tcase vbj_gpu_singular_identity --gpu -- test_vbjacobi -mode uniform -bs 3 -pc_vbjacobi_blocking matrix -singular_block 5 -pc_vbjacobi_singular identity -mat_type aijcusparse -vec_type cuda --grep 'replaced by the identity: 1' --grep '^OK'
tcase vbj_gpu_nan_fails --gpu -- test_vbjacobi -mode mixed -nan_block 0 -pc_vbjacobi_singular identity -mat_type aijcusparse -vec_type cuda --grep 'holds NaN or Inf' --grep 'DIVERGED_PC_FAILED'
tcase vbj_gpu_bad_extraction --gpu --fail -- test_vbjacobi -mat_type aijcusparse -pc_vbjacobi_extraction nonsense --grep 'nonsense'
# a spoiled block that does not exist is a usage error of the test itself, not a silent pass
tcase vbj_singular_block_out_of_range --fail -- test_vbjacobi -mode uniform -bs 3 -singular_block 5 --grep 'no local block 5'
# issue 12, defect 3: another matrix of the same size and the same nonzero-state counter gets its own blocks
tcase vbj_reuse_other_matrix -- test_vbjacobi_reuse --grep 'local blocks 100, preonly error' --grep '^OK'
tcase vbj_reuse_other_matrix_mpi2 -n 2 -- test_vbjacobi_reuse --grep '^OK'
tcase vbj_gpu_reuse_other_matrix --gpu -- test_vbjacobi_reuse -mat_type aijcusparse -vec_type cuda --grep '^OK'
# issue 12, defect 5: a finite block whose inverse overflows fails the setup, naming the block, or takes the identity
# (a 1 x 1 block of 1e-310 has the Inf inverse; in a 3 x 3 one the subnormal elimination may meet a tiny pivot first)
tcase vbj_overflow_fails -- test_vbjacobi -mode uniform -bs 3 -pc_vbjacobi_blocking matrix -overflow_block 4 -pc_view --grep 'DIVERGED_PC_FAILED' --grep 'SETUP FAILED: (the inverse of diagonal block 4 \(global rows 12\.\.14\) is not finite|zero or tiny pivot in diagonal block 4, global rows 12\.\.14)'
tcase vbj_overflow_identity -- test_vbjacobi -mode mixed -maxgen 8 -overflow_block 3 -pc_vbjacobi_singular identity --grep 'replaced by the identity: 1' --grep '^OK'
tcase vbj_overflow_fails_1x1 -- test_vbjacobi -mode uniform -bs 1 -pc_vbjacobi_blocking natural -offdiag 0 -overflow_block 7 -pc_view --grep 'DIVERGED_PC_FAILED' --grep 'inverse of diagonal block 7 .* is not finite'
tcase vbj_gpu_overflow_fails --gpu -- test_vbjacobi -mode uniform -bs 3 -pc_vbjacobi_blocking matrix -overflow_block 4 -mat_type aijcusparse -vec_type cuda -pc_view --grep 'DIVERGED_PC_FAILED' --grep 'SETUP FAILED: (the inverse of diagonal block 4 \(global rows 12\.\.14\) is not finite|zero or tiny pivot in diagonal block 4, global rows 12\.\.14)' --grep 'setup ran on: GPU'
tcase vbj_gpu_overflow_identity --gpu -- test_vbjacobi -mode mixed -maxgen 8 -overflow_block 3 -pc_vbjacobi_singular identity -mat_type aijcusparse -vec_type cuda -pc_view --grep 'replaced by the identity: 1' --grep 'setup ran on: GPU'
tcase vbj_gpu_overflow_fails_1x1 --gpu -- test_vbjacobi -mode uniform -bs 1 -pc_vbjacobi_blocking natural -offdiag 0 -overflow_block 7 -mat_type aijcusparse -vec_type cuda -pc_view --grep 'inverse of diagonal block 7 .* is not finite' --grep 'setup ran on: GPU'
# issue 11: one blocks object with one offload mask per array. test_vbjacobi_offload counts the bytes each call moves
# (petsc_gtoc_sz, petsc_ctog_sz) and checks every apply against the PC's inverses and the inverses against the matrix.
# Host: PCVBJacobiGetBlocks twice (same array), -pc_view before or after it, applies and a new setup on new values.
tcase vbj_offload_host -- test_vbjacobi_offload -expect_setup host --grep 'PCApplyTranspose, host vectors matches' --grep 'after new values: inverses are those of the matrix' --grep '^OK'
tcase vbj_offload_host_view_first -- test_vbjacobi_offload -expect_setup host -view_first -maxgen 7 --grep 'PCView \(first\) +to host +0 bytes' --grep '^OK'
tcase vbj_offload_host_mpi2 -n 2 -- test_vbjacobi_offload -expect_setup host -nruns 1500 --grep '^OK'
# GPU setup: no O(n) copy to the host until PCVBJacobiGetBlocks / -pc_view (the starts) or a host apply (the inverses), once
tcase vbj_gpu_offload_gpu_setup --gpu -- test_vbjacobi_offload -expect_setup gpu -mat_type aijcusparse -vec_type cuda --grep 'setup ran on: GPU' --grep 'PCApply, host vectors +to host +[1-9][0-9]* bytes' --grep '^OK'
tcase vbj_gpu_offload_view_first --gpu -- test_vbjacobi_offload -expect_setup gpu -view_first -mat_type aijcusparse -vec_type cuda --grep 'PCView \(first\) +to host +[1-9][0-9]* bytes' --grep '^OK'
tcase vbj_gpu_offload_gpu_setup_mpi2 --gpu -n 2 -- test_vbjacobi_offload -expect_setup gpu -nruns 2000 -mat_type aijcusparse -vec_type cuda -use_gpu_aware_mpi 0 --grep 'setup ran on: GPU' --grep '^OK'
# host setup (host matrix) with device vectors: the first device apply copies starts and inverses to the device, once
tcase vbj_gpu_offload_host_setup --gpu -- test_vbjacobi_offload -expect_setup host -mat_type aij -vec_type cuda --grep 'apply runs on: GPU for device vectors .*copied to the device' --grep "PCApply, 'device' vectors +to host +0 bytes, to device +[1-9][0-9]* bytes" --grep '^OK'
tcase vbj_gpu_offload_host_setup_mpi2 --gpu -n 2 -- test_vbjacobi_offload -expect_setup host -nruns 2000 -mat_type aij -vec_type cuda -use_gpu_aware_mpi 0 --grep '^OK'
# the same blocks set up on the host, applied on the device, set up on the GPU again: each moves only what the other lacks
tcase vbj_gpu_offload_switch_place --gpu -- test_vbjacobi_offload -expect_setup gpu -switch_place -mat_type aijcusparse -vec_type cuda --grep 'host PCSetUp, blocks kept from the GPU setup +to host +0 bytes, to device +0 bytes' --grep 'after the GPU setup again: inverses are those' --grep '^OK'
# issue 14: reduced- and adaptive-precision storage of the inverses (-pc_vbjacobi_precision). test_vbjacobi_precision
# checks each block's type against the rule on its own condition estimate, PCApply/PCApplyTranspose (outputs poisoned)
# against the stored inverses and against the LAPACK inverses rounded to the storage, and with -compare_host the same
# PC on the host path: the same type for every block ("0 blocks of another precision"), stored values and products.
for p in double single half adaptive; do
  tcase vbjp_${p}_mixed -- test_vbjacobi_precision -mode mixed -maxgen 32 -nblocks_local 200 -couple -compare_host -pc_vbjacobi_precision $p -seed 5 --grep "storage $p" --grep '0 blocks against the rule' --grep 'host path: 0 blocks of another precision' --grep '^OK'
done
# blocks of known condition (2-norm 1.5, 2e4, 1e10 in turn, scaled by 10^(-6..6)): adaptive keeps every 1e10 block in
# double, and the forced types store every block (scaled by a power of two: no overflow of half)
tcase vbjp_adaptive_cond -- test_vbjacobi_precision -mode cond -nblocks_local 300 -pc_vbjacobi_precision adaptive -expect_types 100,100,100 -compare_host -pc_view --grep 'blocks in double 100, single 100, half 100' --grep 'precision histogram \(blocks/rows\): double 100/' --grep 'an apply moves' --grep '^OK'
tcase vbjp_adaptive_cond_mpi2 -n 2 -- test_vbjacobi_precision -mode cond -nblocks_local 300 -maxgen 12 -pc_vbjacobi_precision adaptive -expect_types 200,200,200 -compare_host --grep 'host path: 0 blocks of another precision' --grep '^OK'
tcase vbjp_adaptive_tol_tiny -- test_vbjacobi_precision -mode cond -nblocks_local 150 -pc_vbjacobi_precision adaptive -pc_vbjacobi_precision_tol 1e-8 -expect_types 150,0,0 --grep '^OK'
for p in single half; do
  tcase vbjp_${p}_cond -- test_vbjacobi_precision -mode cond -nblocks_local 150 -pc_vbjacobi_precision $p -solve 0 -compare_host --grep "storage $p" --grep '^OK'
  # 1 x 1 blocks (inverses half ties once scaled, or random over 1e-8..1e8): the stored bits equal the host path's
  tcase vbjp_${p}_diag -- test_vbjacobi_precision -mode diag -nblocks_local 400 -pc_vbjacobi_precision $p -compare_host --grep '0 entries not bitwise equal' --grep '^OK'
done
# issue 26: half (single) is the narrowest type, not a promise: a block whose inverse it cannot hold (u cond_1 >= 1/2)
# takes the next wider type; blocks of condition 1.5 / 2e4 / 1e10 in turn go to half / single / double (single: the
# first two in single). A left-preconditioned GMRES on A x = A x_true must then reach x_true: before, the half-stored
# inverses of the 1e10 blocks were singular and GMRES reported convergence to a wrong answer.
for p in half single; do
  want=100,100,100; [ $p = single ] && want=100,200,0
  wider=200; [ $p = single ] && wider=100 # -pc_view counts the blocks stored wider than asked
  tcase vbjp_${p}_cond_solve -- test_vbjacobi_precision -mode cond -nblocks_local 300 -maxgen 12 -pc_vbjacobi_precision $p -expect_types $want -check_error -ksp_type gmres -ksp_pc_side left -ksp_rtol 1e-12 -ksp_max_it 200 -compare_host -pc_view -malloc_debug -malloc_dump --nogrep '^\[ *[0-9]+\] [0-9]+ bytes ' --grep "storage precision of the inverses: $p or wider" --grep "blocks widened beyond $p: $wider " --grep 'host path: 0 blocks of another precision' --grep 'relative error of the solution' --grep '^OK'
done
tcase vbjp_half_cond_solve_mpi2 -n 2 -- test_vbjacobi_precision -mode cond -nblocks_local 150 -maxgen 8 -pc_vbjacobi_precision half -expect_types 100,100,100 -check_error -ksp_type gmres -ksp_pc_side left -ksp_rtol 1e-12 -ksp_max_it 200 --grep '^OK'
# under valgrind: tests/cases/memcheck_host.sh (vg_vbjp_half_cond)
tcase vbjp_half_view -- test_vbjacobi_precision -mode mixed -maxgen 8 -nblocks_local 50 -pc_vbjacobi_precision half -pc_view --grep 'storage precision of the inverses: half' --grep 'inverses stored: [0-9]+ bytes holding values \(0.25 of' --grep 'precision histogram \(blocks/rows\): double 0/0, single 0/0, half 50/' --grep '^OK'
tcase vbjp_bad_precision --fail -- test_vbjacobi_precision -pc_vbjacobi_precision quarter --grep 'quarter'
tcase vbjp_bad_tol --fail -- test_vbjacobi_precision -pc_vbjacobi_precision adaptive -pc_vbjacobi_precision_tol -0.5 --grep 'must be positive'
# the GPU: setup kernels storing each type, the apply kernels reading them, the host path as reference (the same type
# for every block, bitwise for 1 x 1 blocks: __double2half against the portable conversion), copies both ways
GPUP=(-mat_type aijcusparse -vec_type cuda -compare_host -pc_view --grep 'setup ran on: GPU' --grep 'host path: 0 blocks of another precision' --grep '^OK')
for p in double single half adaptive; do
  for maxgen in 4 32; do
    tcase vbjp_gpu_${p}_mixed_max$maxgen --gpu -- test_vbjacobi_precision -mode mixed -maxgen $maxgen -nblocks_local 3000 -couple -pc_vbjacobi_precision $p -seed $maxgen "${GPUP[@]}"
  done
done
for ex in cached shared; do
  tcase vbjp_gpu_adaptive_cond_$ex --gpu -- test_vbjacobi_precision -mode cond -nblocks_local 3000 -pc_vbjacobi_precision adaptive -expect_types 1000,1000,1000 -pc_vbjacobi_extraction $ex "${GPUP[@]}" --grep "extraction $ex"
done
for p in single half; do
  tcase vbjp_gpu_${p}_cond --gpu -- test_vbjacobi_precision -mode cond -nblocks_local 1500 -pc_vbjacobi_precision $p -solve 0 "${GPUP[@]}"
  tcase vbjp_gpu_${p}_diag --gpu -- test_vbjacobi_precision -mode diag -nblocks_local 20000 -pc_vbjacobi_precision $p "${GPUP[@]}" --grep '0 entries not bitwise equal'
done
for p in half single; do
  want=1000,1000,1000; [ $p = single ] && want=1000,2000,0
  wider=2000; [ $p = single ] && wider=1000
  for ex in cached shared; do
    tcase vbjp_gpu_${p}_cond_solve_$ex --gpu -- test_vbjacobi_precision -mode cond -nblocks_local 3000 -pc_vbjacobi_precision $p -pc_vbjacobi_extraction $ex -expect_types $want -check_error -ksp_type gmres -ksp_pc_side left -ksp_rtol 1e-12 -ksp_max_it 300 "${GPUP[@]}" --grep "or wider \(a second pass" --grep "blocks widened beyond $p: $wider " --grep 'relative error of the solution'
  done
done
tcase vbjp_gpu_half_cond_host_setup --gpu -- test_vbjacobi_precision -mode cond -nblocks_local 1500 -pc_vbjacobi_precision half -expect_types 500,500,500 -check_error -ksp_pc_side left -ksp_rtol 1e-12 -mat_type aij -vec_type cuda -pc_view --grep 'copied to the device' --grep '^OK'
tcase vbjp_gpu_adaptive_mpi2 --gpu -n 2 -- test_vbjacobi_precision -mode cond -nblocks_local 1500 -maxgen 16 -pc_vbjacobi_precision adaptive -expect_types 1000,1000,1000 -use_gpu_aware_mpi 0 "${GPUP[@]}"
# host setup (host matrix), device apply: the stored inverses, types and scales go to the device once
tcase vbjp_gpu_host_setup_adaptive --gpu -- test_vbjacobi_precision -mode cond -nblocks_local 1500 -pc_vbjacobi_precision adaptive -mat_type aij -vec_type cuda -compare_host -pc_view --grep 'copied to the device' --grep 'host path: 0 blocks of another precision' --grep '^OK'
tcase vbjp_gpu_host_setup_half --gpu -- test_vbjacobi_precision -mode mixed -nblocks_local 1500 -pc_vbjacobi_precision half -mat_type aij -vec_type cuda --grep '^OK'
# issue 26: setters after a setup take effect (a failed setup recovers with the identity policy; the maximum block size
# and the blocking give the blocks of a fresh PC), and zero sizes in MatSetVariableBlockSizes() are skipped (against
# PETSc's PCVPBJACOBI); sizes over the maximum block size fail with a clear message and leak nothing
# issue 26 (2nd pass): the same settings given as options after a setup (-pc_vbjacobi_singular identity and
# -pc_vbjacobi_blocking natural, then PCSetFromOptions(), as KSPSetFromOptions() between two solves does) were ignored:
# PCSetFromOptions wrote them into the PC without a new setup; they now go through the setters
for np in 1 2; do
  tcase vbjs_setters_np$np -n $np -- test_vbjacobi_setters -case setters --grep 'policy error: DIVERGED_PC_FAILED' --grep 'after PCVBJacobiSetSingularPolicy identity: ' --nogrep 'identity: DIVERGED_PC_FAILED' --grep 'SetMaxBlockSize 2 after a setup: the same blocks' --grep 'SetBlocking natural after a setup: the same blocks' --grep '^OK'
  tcase vbjs_options_np$np -n $np -- test_vbjacobi_setters -case options -malloc_debug -malloc_dump --nogrep '^\[ *[0-9]+\] [0-9]+ bytes ' --grep 'policy error: DIVERGED_PC_FAILED' --grep 'after -pc_vbjacobi_singular identity: ' --nogrep 'identity: DIVERGED_PC_FAILED' --grep 'max_block_size 2 after a setup: the same blocks' --grep 'blocking natural after a setup: the same blocks' --grep '^OK'
  tcase vbjs_zerosizes_np$np -n $np -- test_vbjacobi_setters -case zerosizes --grep 'variable sizes with zeros: 16 blocks' --grep '^OK'
done
tcase vbjs_zerosizes_mpi3 -n 3 -- test_vbjacobi_setters -case zerosizes -n 32 --grep '^OK'
tcase vbjs_options_mpi3 -n 3 -- test_vbjacobi_setters -case options -n 32 --grep 'after -pc_vbjacobi_singular identity: ' --nogrep 'identity: DIVERGED_PC_FAILED' --grep '^OK'
tcase vbjs_badsizes -- test_vbjacobi_setters -case badsizes -malloc_debug -malloc_dump --grep 'error 63 .*variable block 1 has size 4, larger than the maximum block size 2' --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase vbjs_gpu_setters --gpu -- test_vbjacobi_setters -case setters -mat_type aijcusparse -vec_type cuda -n 4096 --grep '^OK'
tcase vbjs_gpu_zerosizes --gpu -- test_vbjacobi_setters -case zerosizes -mat_type aijcusparse -vec_type cuda -n 4096 --grep '^OK'
tcase vbjs_gpu_options --gpu -- test_vbjacobi_setters -case options -mat_type aijcusparse -vec_type cuda -n 4096 --grep 'after -pc_vbjacobi_singular identity: ' --nogrep 'identity: DIVERGED_PC_FAILED' --grep '^OK'
tcase vbjs_gpu_setters_mpi2 --gpu -n 2 -- test_vbjacobi_setters -case setters -mat_type aijcusparse -vec_type cuda -n 4096 -use_gpu_aware_mpi 0 --grep '^OK'
# the storage kernels in the host warp emulator: conversion against _Float16, stores against the host rule, applies
tcase emu_vbjacobi_precision -- test_emu_vbjacobi_precision -seed 3 --grep 'against _Float16 on [0-9]+ values .*: 0 differ' --grep '^OK' --nogrep FAIL
# PCApplyRichardson() of vbjacobi (issue 40): our damped sweeps against KSPRICHARDSON's loop with the damping as its
# scale; fused on the GPU for the matrix's own blocks (bs 2-6, one rank), unfused elsewhere (host; bs 1, 7-9; two ranks)
for bs in 1 3 8 9; do
  tcase vbj_richardson_bs$bs -- test_vbjacobi_richardson -bs $bs -seed $bs --grep 'the last unfused' --grep '^OK' --nogrep FAILED
done
tcase vbj_richardson_np2 -n 2 -- test_vbjacobi_richardson -bs 2 -damping 0.8 --grep '^OK' --nogrep FAILED
tcase vbj_richardson_damping_refused --fail -- test_vbjacobi_richardson -bs 3 -damping 2.5 --grep 'pc_vbjacobi_richardson_damping 2.5 must be in \(0, 2\)'
for bs in 2 3 4 5 6; do
  tcase vbj_gpu_richardson_bs$bs --gpu -- test_vbjacobi_richardson -vec_type cuda -bs $bs -seed $bs --grep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
done
tcase vbj_gpu_richardson_bs3_large --gpu -- test_vbjacobi_richardson -vec_type cuda -bs 3 -nb 30000 -damping 0.9 --grep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
for bs in 1 7 8 9; do
  tcase vbj_gpu_richardson_bs$bs --gpu -- test_vbjacobi_richardson -vec_type cuda -bs $bs --grep 'the last unfused' --grep '^OK' --nogrep FAILED
done
# several ranks: the kernel on the diagonal part, its right-hand side b - A_o y from the matrix after the ghost exchange
# (random off-process columns on every rank); a rank with no rows; host vectors unfused
tcase vbj_gpu_richardson_np2 --gpu -n 2 -- test_vbjacobi_richardson -vec_type cuda -use_gpu_aware_mpi 0 -bs 4 --grep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
tcase vbj_gpu_richardson_np3_bs2 --gpu -n 3 -- test_vbjacobi_richardson -vec_type cuda -use_gpu_aware_mpi 0 -bs 2 -nb 500 -seed 7 --grep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
tcase vbj_gpu_richardson_np3_empty --gpu -n 3 -- test_vbjacobi_richardson -vec_type cuda -use_gpu_aware_mpi 0 -bs 3 -empty_last --grep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
tcase vbj_gpu_richardson_np2_sf --gpu -n 2 -- test_vbjacobi_richardson -vec_type cuda -use_gpu_aware_mpi 0 -bs 5 -mat_baijksparse_ghost_exchange sf --grep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
tcase vbj_richardson_np3_empty -n 3 -- test_vbjacobi_richardson -bs 3 -empty_last --grep 'the last unfused' --grep '^OK' --nogrep FAILED
# KSPCHEBYSHEV with vbjacobi (src/ksp/chebyshev): its steps fused into the sweep kernel against its own loop
# (-pc_vbjacobi_chebyshev false), 1-4 steps (odd counts end in the work vector), bounds given and estimated; PETSc's
# loop on the host, for bs 1 and 8, on two ranks and with a residual norm asked for (the fused steps are not asked then)
pbg_cheb_fused='Chebyshev steps \(KSPCHEBYSHEV\): the last fused on the GPU'
pbg_cheb_loop="Chebyshev steps \\(KSPCHEBYSHEV\\): the last KSPCHEBYSHEV's own loop"
tcase vbj_chebyshev_bs3 -- test_vbjacobi_richardson -method chebyshev -bs 3 --grep "$pbg_cheb_loop" --grep '^OK' --nogrep FAILED
# the fourth kind is PETSc's own loop (only the first kind is fused), and PETSc's Chebyshev with another PC is untouched
tcase vbj_chebyshev_fourth_kind -- test_vbjacobi_richardson -method chebyshev -bs 3 -ours_ksp_chebyshev_kind fourth -ref_ksp_chebyshev_kind fourth --grep 'Chebyshev polynomial of fourth kind' --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_fourth_kind --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs 3 -ours_ksp_chebyshev_kind fourth -ref_ksp_chebyshev_kind fourth --grep 'Chebyshev polynomial of fourth kind' --nogrep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
tcase vbj_chebyshev_np2_estimate -n 2 -- test_vbjacobi_richardson -method chebyshev -bs 2 -estimate --grep '^OK' --nogrep FAILED
for bs in 2 3 4 5 6; do
  tcase vbj_gpu_chebyshev_bs$bs --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs $bs -seed $bs --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
done
tcase vbj_gpu_chebyshev_bs6_estimate --gpu -- test_vbjacobi_richardson -method chebyshev -estimate -vec_type cuda -bs 6 --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_bs3_large --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs 3 -nb 30000 -emin 0.1 -emax 1.9 --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_norm --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs 3 -ours_ksp_norm_type unpreconditioned --nogrep 'the last fused on the GPU' --grep '^OK' --nogrep FAILED
for bs in 1 8; do
  tcase vbj_gpu_chebyshev_bs$bs --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs $bs --grep "$pbg_cheb_loop" --grep '^OK' --nogrep FAILED
done
# the fused sweeps on a single-precision copy of the values (-pc_vbjacobi_sweep_precision single): within 1e-5 of the
# double ones, the copy made again after the values change (the last check); the host path ignores it
for bs in 2 3 6; do
  tcase vbj_gpu_chebyshev_single_bs$bs --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs $bs -ours_pc_vbjacobi_sweep_precision single -tol 1e-5 --grep "$pbg_cheb_fused" --grep 'values in single precision \(a copy of [0-9]+ values\)' --grep '^OK' --nogrep FAILED
done
tcase vbj_gpu_richardson_single_bs4 --gpu -- test_vbjacobi_richardson -vec_type cuda -bs 4 -nb 3000 -ours_pc_vbjacobi_sweep_precision single -tol 1e-5 --grep 'values in single precision \(a copy of [0-9]+ values\)' --grep '^OK' --nogrep FAILED
# the kernel with 8 and 16 lanes a block row (auto takes 32 for these rows), and a lane count refused
tcase vbj_gpu_chebyshev_lanes8_bs3 --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs 3 -ours_pc_vbjacobi_sweep_lanes 8 --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_lanes16_bs5 --gpu -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -bs 5 -nb 2000 -ours_pc_vbjacobi_sweep_lanes 16 --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
tcase vbj_gpu_richardson_lanes16_single_bs2 --gpu -- test_vbjacobi_richardson -vec_type cuda -bs 2 -ours_pc_vbjacobi_sweep_lanes 16 -ours_pc_vbjacobi_sweep_precision single -tol 1e-5 --grep '^OK' --nogrep FAILED
tcase vbj_sweep_lanes_refused --fail -- test_vbjacobi_richardson -bs 3 -ours_pc_vbjacobi_sweep_lanes 12 --grep 'pc_vbjacobi_sweep_lanes 12: 0 \(auto\), 8, 16 or 32'
tcase vbj_richardson_single_host -- test_vbjacobi_richardson -bs 3 -ours_pc_vbjacobi_sweep_precision single --grep 'the last unfused' --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_np2 --gpu -n 2 -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -use_gpu_aware_mpi 0 -bs 4 --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_np3_estimate --gpu -n 3 -- test_vbjacobi_richardson -method chebyshev -estimate -vec_type cuda -use_gpu_aware_mpi 0 -bs 3 -nb 400 --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_np3_empty --gpu -n 3 -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -use_gpu_aware_mpi 0 -bs 6 -empty_last --grep "$pbg_cheb_fused" --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_single_np2_bs2 --gpu -n 2 -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -use_gpu_aware_mpi 0 -bs 2 -nb 1000 -ours_pc_vbjacobi_sweep_precision single -tol 1e-5 --grep "$pbg_cheb_fused" --grep 'values in single precision \(a copy of [0-9]+ values\)' --grep '^OK' --nogrep FAILED
tcase vbj_gpu_chebyshev_np2_bs8 --gpu -n 2 -- test_vbjacobi_richardson -method chebyshev -vec_type cuda -use_gpu_aware_mpi 0 -bs 8 --grep "$pbg_cheb_loop" --grep '^OK' --nogrep FAILED
tcase vbj_chebyshev_np3_empty -n 3 -- test_vbjacobi_richardson -method chebyshev -bs 2 -empty_last --grep "$pbg_cheb_loop" --grep '^OK' --nogrep FAILED
