# MatConvert() between AIJ and MATBAIJKSPARSE (sourced by tests/run.sh). test_baijksparse_convert runs a random AIJ (partly
# filled blocks, empty block rows, a block row with every block column) through aij -> baijksparse -> aij with every
# MatReuse (REUSE targets poisoned with NaN) and the generic and seq type names, and after each conversion checks the type,
# the stored entries (baijksparse: the blocks holding an entry; aij: every entry of every block), MatMult on a random x and
# every entry by MatGetValues against the original (relative 1e-14). Host cases (bk_convert_*): aij and the host paths.
# --gpu cases (bk_gpu_convert_*): aijcusparse with the source's values newer on the device; -expect_device 1 checks that
# each conversion ran the device kernel (event BAIJKConvert) and that PETSc counted no byte device -> host and host -> device
# only the index arrays (and, for a new aijcusparse, its own zero-filled first upload). -source_on_host: the host paths.
# emu_convert_kernels: the two value kernels in the host warp emulator.
# shellcheck shell=bash

# bs, block rows, block columns
pbg_convert_sizes=("1 24 24" "2 12 12" "3 10 10" "4 9 9" "5 8 8" "7 6 9" "8 6 6" "16 4 5" "17 4 4" "32 3 3")

# --- host ----------------------------------------------------------------------------------------------------------
for p in "${pbg_convert_sizes[@]}"; do
  read -r bs mb nbc <<< "$p"
  tcase bk_convert_bs$bs -- test_baijksparse_convert -bs $bs -mb $mb -nbc $nbc -seed $bs --grep '^seqbaijksparse -> aij INPLACE: seqaij' --grep '^OK' --nogrep 'FAILED'
done
# non-square both ways, and full blocks
tcase bk_convert_wide -- test_baijksparse_convert -bs 3 -mb 5 -nbc 11 -seed 4 --grep '^seqaij 15 x 33' --grep '^OK' --nogrep 'FAILED'
tcase bk_convert_tall -- test_baijksparse_convert -bs 4 -mb 12 -nbc 3 -seed 5 --grep '^seqaij 48 x 12' --grep '^OK' --nogrep 'FAILED'
tcase bk_convert_full_blocks -- test_baijksparse_convert -bs 5 -mb 7 -partial 0 --grep 'blocks hold entries$' --grep '^OK' --nogrep 'FAILED'
tcase bk_convert_malloc_dump -- test_baijksparse_convert -bs 3 -mb 6 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_convert_bs1_malloc_dump -- test_baijksparse_convert -bs 1 -mb 30 -malloc_debug -malloc_dump --grep '^a new nonzero into aij -> baijksparse: seqbaijksparse' --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
# error paths: BAIJ's block size (the AIJ's row block size) does not divide the columns (PETSc's message); a
# MAT_REUSE_MATRIX target without a block of the input
tcase bk_convert_err_bs --fail -- test_baijksparse_convert -bs 3 -mb 8 -err bs --grep 'Local size 25 not compatible with block size 3'
tcase bk_convert_err_reuse_pattern --fail -- test_baijksparse_convert -bs 3 -mb 8 -err reuse_pattern --grep 'PETSC ERROR' --nogrep '^OK'
tcase emu_convert_kernels -- test_emu_convert -seed 1 --grep '^bs 32, .* CSR -> BSR ok, BSR -> CSR ok' --grep '^OK' --nogrep FAIL

# --- GPU: aijcusparse, the values on the device -----------------------------------------------------------------------
for p in "${pbg_convert_sizes[@]}"; do
  read -r bs mb nbc <<< "$p"
  tcase bk_gpu_convert_bs$bs --gpu -- test_baijksparse_convert -mat_type aijcusparse -expect_device 1 -bs $bs -mb $mb -nbc $nbc -seed $bs --grep '^seqaijcusparse ' --grep '^seqbaijksparse -> aij INPLACE: seqaijcusparse' --grep 'REUSE: device kernels 1, host->device 0 bytes' --grep '^OK' --nogrep 'FAILED'
done
tcase bk_gpu_convert_wide --gpu -- test_baijksparse_convert -mat_type aijcusparse -expect_device 1 -bs 3 -mb 5 -nbc 11 -seed 4 --grep '^seqaijcusparse 15 x 33' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_convert_tall --gpu -- test_baijksparse_convert -mat_type aijcusparse -expect_device 1 -bs 4 -mb 12 -nbc 3 -seed 5 --grep '^seqaijcusparse 48 x 12' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_convert_full_blocks --gpu -- test_baijksparse_convert -mat_type aijcusparse -expect_device 1 -bs 5 -mb 7 -partial 0 --grep '^OK' --nogrep 'FAILED'
# the host paths on a GPU: aijcusparse bound to the CPU, baijksparse with newer host values (no device kernel may run)
tcase bk_gpu_convert_source_on_host --gpu -- test_baijksparse_convert -mat_type aijcusparse -source_on_host 1 -bs 3 -mb 8 --grep 'INITIAL: device kernels 0' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_convert_source_on_host_bs8 --gpu -- test_baijksparse_convert -mat_type aijcusparse -source_on_host 1 -bs 8 -mb 5 -nbc 7 --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_convert_malloc_dump --gpu -- test_baijksparse_convert -mat_type aijcusparse -expect_device 1 -bs 3 -mb 6 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_gpu_convert_err_bs --gpu --fail -- test_baijksparse_convert -mat_type aijcusparse -bs 3 -mb 8 -err bs --grep 'Local size 25 not compatible with block size 3'
tcase bk_gpu_convert_err_reuse_pattern --gpu --fail -- test_baijksparse_convert -mat_type aijcusparse -bs 3 -mb 8 -err reuse_pattern --grep 'MAT_REUSE_MATRIX: the matrix to reuse does not have the block pattern of the input'
unset pbg_convert_sizes p bs mb nbc

# --- several ranks: a device subclass of MPIAIJ (mpiaijcusparse, a product's result in PCGAMG; mpiaijperm stands for it
# on the host) to baijksparse through an MPIBAIJ preallocated from its parts, and mpibaijksparse to mpiaijcusparse from its parts converted on the device:
# never MatConvert_Basic(), a row at a time into an unpreallocated matrix (test_baijksparse_convert_mpi)
for np in 2 3; do
  tcase bk_convert_mpi_aijperm_np$np -n $np -- test_baijksparse_convert_mpi -mat_type aijperm -bs 3 -mb 7 -info :mat \
    --grep 'mpiaijperm converted to mpibaijksparse through a MATMPIBAIJ preallocated by the block pattern' --grep '^baijksparse -> aij INITIAL: mpiaij ok' --grep '^baijksparse -> aij REUSE: mpiaij ok' --grep '^baijksparse -> aij INPLACE: mpiaij ok' --nogrep 'Using MatConvert_Basic' --grep '^OK' --nogrep 'FAILED'
done
tcase bk_convert_mpi_aij_bs5_np2 -n 2 -- test_baijksparse_convert_mpi -bs 5 -mb 4 -seed 2 --grep '^aij -> baijksparse INITIAL: mpibaijksparse ok' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_convert_mpi_aijcusparse_np2 --gpu -n 2 -- test_baijksparse_convert_mpi -mat_type aijcusparse -back aijcusparse -use_gpu_aware_mpi 0 -bs 3 -mb 7 -info :mat \
  --grep 'mpiaijcusparse converted to mpibaijksparse through a MATMPIBAIJ preallocated by the block pattern' --grep 'mpibaijksparse converted to aijcusparse from its parts, each converted on the device' \
  --grep '^baijksparse -> aij INITIAL: mpiaijcusparse ok' --grep '^baijksparse -> aij REUSE: mpiaijcusparse ok' --grep '^baijksparse -> aij INPLACE: mpiaijcusparse ok' --nogrep 'Using MatConvert_Basic' --grep '^OK' --nogrep 'FAILED'
