# MatInvertBlockDiagonal() / MatInvertVariableBlockDiagonal() of MATBAIJKSPARSE against PETSc (sourced by tests/run.sh).
# test_baijksparse_blockdiag inverts on a baijksparse matrix and on a BAIJ (uniform blocks) or AIJ (variable blocks: BAIJ
# has none) copy of the same random diagonally dominant matrix, in three rounds (as assembled, after MatScale(), after
# MatShift()), on NaN-poisoned outputs, and compares block by block (relative 1e-10). Host cases (bk_blockdiag_*) run
# everywhere; the --gpu cases (bk_gpu_blockdiag_*) run on CUDA vectors, where the MatScale() round has device-newer values
# and must come back as the inverses alone (+ the 8-byte failure record), nothing uploaded, the offload state kept.
# shellcheck shell=bash

pbg_bd_sizes=(1 2 3 4 5 7 8 16 17 32 64) # 64: beyond the batched inversion (32): the host path, BAIJ's own
pbg_bd_mpi=("2 3" "2 8" "3 5" "3 17")    # ranks, bs

# --- host ----------------------------------------------------------------------------------------------------------
for bs in "${pbg_bd_sizes[@]}"; do
  nb=6; [ "$bs" -le 8 ] || nb=3
  tcase bk_blockdiag_uniform_bs$bs -- test_baijksparse_blockdiag -test uniform -bs $bs -nb $nb -seed $bs --grep 'uniform after MatShift' --grep '^OK' --nogrep 'FAILED'
done
# variable blocks of 1..32 rows across the BAIJ blocks (and beyond 32: the host path on a GPU too)
for bs in 1 2 3 5 8 17; do
  tcase bk_blockdiag_variable_bs$bs -- test_baijksparse_blockdiag -test variable -bs $bs -nb $((96 / bs + 2)) -vmax 32 -seed $((bs + 7)) --grep 'variable after MatShift' --grep '^OK' --nogrep 'FAILED'
done
tcase bk_blockdiag_variable_vmax40 -- test_baijksparse_blockdiag -test variable -bs 4 -nb 30 -vmax 40 -seed 3 --grep '^OK' --nogrep 'FAILED'
for p in "${pbg_bd_mpi[@]}"; do
  read -r np bs <<< "$p"
  tcase bk_blockdiag_uniform_bs${bs}_mpi$np -n $np -- test_baijksparse_blockdiag -test uniform -bs $bs -nb 4 -seed $np --grep '^OK' --nogrep 'FAILED'
  tcase bk_blockdiag_variable_bs${bs}_mpi$np -n $np -- test_baijksparse_blockdiag -test variable -bs $bs -nb $((40 / bs + 2)) -vmax 12 -seed $np --grep '^OK' --nogrep 'FAILED'
done
# a zero row: PETSc's zero pivot, recorded (MatFactorGetError()) as the reference records it, the block NaN; with
# MatSetErrorIfFailure() the error of BAIJ; under MPI the failure is the diagonal part's (MPIBAIJ's rule)
for bs in 1 3 8; do
  tcase bk_blockdiag_singular_bs$bs -- test_baijksparse_blockdiag -test singular -bs $bs -nb 4 --grep 'factor error zero pivot \(reference zero pivot\)' --grep '^OK' --nogrep 'FAILED'
  tcase bk_blockdiag_singular_eif_bs$bs --fail -- test_baijksparse_blockdiag -test singular -eif -bs $bs -nb 4 --grep 'Zero pivot, row' --nogrep '^OK'
done
tcase bk_blockdiag_singular_variable -- test_baijksparse_blockdiag -test variable -bs 3 -nb 10 -vmax 7 -seed 2 -singular --grep '^OK'
tcase bk_blockdiag_singular_bs3_mpi2 -n 2 -- test_baijksparse_blockdiag -test singular -bs 3 -nb 4 --grep 'factor error zero pivot \(reference zero pivot\)' --grep '^OK' --nogrep 'FAILED'
# a block row without a diagonal block: a zero block, so a zero pivot (BAIJ itself would read another block there)
tcase bk_blockdiag_missing_bs2 -- test_baijksparse_blockdiag -test missing -bs 2 -nb 5 --grep 'factor error zero pivot' --grep '^OK' --nogrep 'FAILED'
tcase bk_blockdiag_missing_eif_bs4 --fail -- test_baijksparse_blockdiag -test missing -eif -bs 4 -nb 5 --grep 'Zero pivot, row'
tcase bk_blockdiag_missing_bs3_mpi2 -n 2 -- test_baijksparse_blockdiag -test missing -bs 3 -nb 4 --grep '^OK' --nogrep 'FAILED'
# PETSc's unchanged pbjacobi and vpbjacobi: the iteration counts of BAIJ (pbjacobi) or AIJ (vpbjacobi)
for pc in pbjacobi vpbjacobi; do
  tcase bk_blockdiag_ksp_$pc -- test_baijksparse_blockdiag -test ksp -pc $pc -bs 4 -nb 20 -vmax 9 --grep "$pc on seqbaijksparse" --grep '^OK'
  tcase bk_blockdiag_ksp_${pc}_mpi2 -n 2 -- test_baijksparse_blockdiag -test ksp -pc $pc -bs 3 -nb 12 -vmax 7 --grep "$pc on mpibaijksparse" --grep '^OK'
done
# no leaks (the host arrays, the host path's scratch)
tcase bk_blockdiag_malloc_dump -- test_baijksparse_blockdiag -test variable -bs 3 -nb 8 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_blockdiag_malloc_dump_missing -- test_baijksparse_blockdiag -test missing -bs 3 -nb 5 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
# bad input
tcase bk_blockdiag_err_sizes --fail -- test_baijksparse_blockdiag -test variable -bs 2 -nb 4 -bad_sizes --grep "doesn't match number matrix rows"

# --- GPU: the same on CUDA vectors ------------------------------------------------------------------------------------
for bs in "${pbg_bd_sizes[@]}"; do
  nb=40; [ "$bs" -le 8 ] || nb=12
  extra=(--grep 'device path: .* bytes to the host \(the inverses \+ 8\), none to the device, offload state GPU kept')
  [ "$bs" -le 32 ] || extra=(--grep 'blocks of 64 rows: the host path')
  tcase bk_gpu_blockdiag_uniform_bs$bs --gpu -- test_baijksparse_blockdiag -vec_type cuda -test uniform -bs $bs -nb $nb -seed $bs "${extra[@]}" --grep '^OK' --nogrep 'FAILED'
done
for bs in 1 3 5 8 17; do
  tcase bk_gpu_blockdiag_variable_bs$bs --gpu -- test_baijksparse_blockdiag -vec_type cuda -test variable -bs $bs -nb $((400 / bs + 2)) -vmax 32 -seed $bs --grep 'device path: ' --grep '^OK' --nogrep 'FAILED'
done
tcase bk_gpu_blockdiag_variable_vmax40 --gpu -- test_baijksparse_blockdiag -vec_type cuda -test variable -bs 4 -nb 60 -vmax 40 --grep 'blocks of 40 rows: the host path' --grep '^OK' --nogrep 'FAILED'
for p in "${pbg_bd_mpi[@]}"; do
  read -r np bs <<< "$p"
  tcase bk_gpu_blockdiag_uniform_bs${bs}_mpi$np --gpu -n $np -- test_baijksparse_blockdiag -vec_type cuda -use_gpu_aware_mpi 0 -test uniform -bs $bs -nb 8 -seed $np --grep 'device path: ' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_blockdiag_variable_bs${bs}_mpi$np --gpu -n $np -- test_baijksparse_blockdiag -vec_type cuda -use_gpu_aware_mpi 0 -test variable -bs $bs -nb $((80 / bs + 2)) -vmax 20 -seed $np --grep 'device path: ' --grep '^OK' --nogrep 'FAILED'
done
for bs in 1 3 8; do
  tcase bk_gpu_blockdiag_singular_bs$bs --gpu -- test_baijksparse_blockdiag -vec_type cuda -test singular -bs $bs -nb 6 --grep 'factor error zero pivot \(reference zero pivot\)' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_blockdiag_singular_eif_bs$bs --gpu --fail -- test_baijksparse_blockdiag -vec_type cuda -test singular -eif -bs $bs -nb 6 --grep 'Zero pivot, row' --nogrep '^OK'
done
tcase bk_gpu_blockdiag_singular_variable --gpu -- test_baijksparse_blockdiag -vec_type cuda -test variable -bs 3 -nb 10 -vmax 7 -seed 2 -singular --grep '^OK'
tcase bk_gpu_blockdiag_missing_bs2 --gpu -- test_baijksparse_blockdiag -vec_type cuda -test missing -bs 2 -nb 5 --grep 'factor error zero pivot' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_blockdiag_missing_eif_bs4 --gpu --fail -- test_baijksparse_blockdiag -vec_type cuda -test missing -eif -bs 4 -nb 5 --grep 'Zero pivot, row'
for pc in pbjacobi vpbjacobi; do
  tcase bk_gpu_blockdiag_ksp_$pc --gpu -- test_baijksparse_blockdiag -vec_type cuda -test ksp -pc $pc -bs 4 -nb 60 -vmax 9 --grep "$pc on seqbaijksparse \(vectors seqcuda\)" --grep '^OK'
  tcase bk_gpu_blockdiag_ksp_${pc}_mpi2 --gpu -n 2 -- test_baijksparse_blockdiag -vec_type cuda -use_gpu_aware_mpi 0 -test ksp -pc $pc -bs 3 -nb 30 -vmax 7 --grep "$pc on mpibaijksparse \(vectors mpicuda\)" --grep '^OK'
done
