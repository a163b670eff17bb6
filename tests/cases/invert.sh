# PetscBlockGPUInvertBatched cases (sourced by tests/run.sh). test_invert_batched inverts batches on the GPU and
# compares every block with LAPACK getrf/getri on the host, checks the info codes (d_info poisoned before each
# call) and that failed blocks and the gaps between blocks are left untouched. All need a CUDA device.
# shellcheck shell=bash

# uniform batches: every size class (sub-warps of 1..32 lanes), blocks filling their sub-warp or not
tcase inv_uniform_1to32 --gpu -- test_invert_batched -batch uniform -nblocks 257 --grep '^OK' --grep 'uniform1 +maxk  1: +257 blocks.*: ok' --grep 'uniform32 +maxk 32: +257 blocks.*: ok' --nogrep FAIL
tcase inv_uniform_large --gpu -- test_invert_batched -batch uniform -sizes 3,8,17,32 -nblocks 20000 -seed 1 --grep '^OK' --nogrep FAIL
# the uniform form of the call (NULL sizes; NULL offsets when packed): no metadata read, no class count, any maxk
tcase inv_uniform_call_1to32 --gpu -- test_invert_batched -batch uniform -uniform_call -nblocks 257 --grep '^OK' --grep 'uniform32 +uniform call: NULL sizes, NULL offsets' --nogrep FAIL
tcase inv_uniform_call_large --gpu -- test_invert_batched -batch uniform -uniform_call -sizes 1,2,3,5,8,17,32 -nblocks 20000 -seed 19 --grep '^OK' --nogrep FAIL
tcase inv_one_uniform_call --gpu -- test_invert_batched -batch one -uniform_call -nblocks 1000 -seed 20 --grep '^OK' --grep 'uniform call: NULL sizes, given offsets'
# mixed sizes with row permutations (implicit pivoting), gaps between blocks, several maxk
tcase inv_mixed32 --gpu -- test_invert_batched -batch mixed -maxk 32 -nblocks 500 --grep '^OK' --grep 'mixed .*: ok'
tcase inv_mixed16 --gpu -- test_invert_batched -batch mixed -maxk 16 -seed 2 --grep '^OK'
tcase inv_mixed5 --gpu -- test_invert_batched -batch mixed -maxk 5 -seed 3 --grep '^OK'
tcase inv_mixed2 --gpu -- test_invert_batched -batch mixed -maxk 2 -seed 4 --grep '^OK'
tcase inv_maxk_over --gpu -- test_invert_batched -batch maxk_over -n 3 --grep '^OK'
tcase inv_maxk_over17 --gpu -- test_invert_batched -batch maxk_over -n 17 --grep '^OK'
# launches by width class: sizes counted and sorted on the device (maxk > 4; several thread blocks of the sort at
# 30000 blocks), thread-per-block closed forms for sizes 1..2 (also with singular, NaN/Inf blocks), one launch at P = 4
# for maxk 3..4
tcase inv_classes_1to32 --gpu -- test_invert_batched -batch mixed -maxk 32 -nblocks 3000 -seed 11 --grep '^OK' --grep 'mixed .*maxk 32: +30000 blocks of sizes 1..32.*: ok'
tcase inv_classes_1to16 --gpu -- test_invert_batched -batch mixed -maxk 16 -nblocks 2000 -seed 12 --grep '^OK'
tcase inv_classes_1to8_singular --gpu -- test_invert_batched -batch singular -maxk 8 -nblocks 3000 -seed 13 --grep '^OK' --grep 'info 0/>0/-1/-2: [0-9]+/[1-9][0-9]*/0/0'
tcase inv_classes_1to2 --gpu -- test_invert_batched -batch mixed -maxk 2 -nblocks 3000 -seed 14 --grep '^OK'
tcase inv_classes_1to2_singular --gpu -- test_invert_batched -batch singular -maxk 2 -seed 15 --grep '^OK' --grep 'info 0/>0/-1/-2: [0-9]+/[1-9][0-9]*/0/0'
tcase inv_classes_1to2_nan --gpu -- test_invert_batched -batch nan -maxk 2 -seed 16 --grep '^OK' --grep 'info 0/>0/-1/-2: [0-9]+/0/[1-9][0-9]*/0'
tcase inv_classes_1to2_badsize --gpu -- test_invert_batched -batch badsize -maxk 2 -seed 17 --grep '^OK'
tcase inv_classes_1to4 --gpu -- test_invert_batched -batch mixed -maxk 4 -seed 18 --grep '^OK'
# numerically hard and failing blocks
tcase inv_illcond --gpu -- test_invert_batched -batch illcond -maxk 32 -seed 5 --grep '^OK'
tcase inv_singular --gpu -- test_invert_batched -batch singular -maxk 32 -seed 6 --grep '^OK' --grep 'info 0/>0/-1/-2: [0-9]+/[1-9][0-9]*/0/0'
tcase inv_singular_small --gpu -- test_invert_batched -batch singular -maxk 4 -seed 7 --grep '^OK'
tcase inv_nan --gpu -- test_invert_batched -batch nan -maxk 32 -seed 8 --grep '^OK' --grep 'info 0/>0/-1/-2: [0-9]+/0/[1-9][0-9]*/0'
tcase inv_one --gpu -- test_invert_batched -batch one -nblocks 1000 --grep '^OK'
tcase inv_empty --gpu -- test_invert_batched -batch empty --grep '^OK'
# sizes outside 0..maxk: info -2 (documented in the manual page), block untouched
tcase inv_badsize --gpu -- test_invert_batched -batch badsize -maxk 5 --grep '^OK'
tcase inv_badsize_pow2 --gpu -- test_invert_batched -batch badsize -maxk 8 -seed 9 --grep '^OK'
# everything at once, another seed
tcase inv_all --gpu -- test_invert_batched -batch all -nblocks 200 -seed 10 --grep '^OK'
# bad arguments: a PETSc error, not a crash
tcase inv_err_maxk_large --gpu --fail -- test_invert_batched -error_case maxk_large --grep 'PETSC ERROR:.*maxk.*(outside|33)' --nogrep 'returned without an error'
tcase inv_err_maxk_negative --gpu --fail -- test_invert_batched -error_case maxk_negative --grep 'PETSC ERROR:.*maxk.*(outside|-1)' --nogrep 'returned without an error'
tcase inv_err_null_offsets --gpu --fail -- test_invert_batched -error_case null_offsets --grep 'PETSC ERROR:.*NULL offsets need NULL sizes' --nogrep 'returned without an error'
tcase inv_err_nblocks_negative --gpu --fail -- test_invert_batched -error_case nblocks_negative --grep 'PETSC ERROR:.*(negative|nblocks)' --nogrep 'returned without an error'
