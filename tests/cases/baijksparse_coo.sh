# COO assembly of MATBAIJKSPARSE (sourced by tests/run.sh). test_baijksparse_coo gives random point entries per rank (repeats,
# negative indices, other ranks' rows, empty block rows, a long block row) to MatSetPreallocationCOO/MatSetValuesCOO of a
# baijksparse matrix and of PETSc's own AIJ, and compares after each step (INSERT of NaN then INSERT, ADD, INSERT; a second
# preallocation with full blocks: INSERT, ADD) a product on a random x, sampled MatGetValues and the Frobenius norm (1e-12),
# and the host<->device bytes PETSc counts during MatSetValuesCOO. Host cases (bk_coo_*) everywhere; --gpu cases
# (bk_gpu_coo_*) on one rank, seq and mpi types, with v from the host (uploaded: one copy of v per call) and from a device
# buffer (nothing moved), on CUDA vectors (the product reads the device values).
# shellcheck shell=bash

pbg_coo_bs=(1 2 3 4 5 7 8 17 32)

# --- host ----------------------------------------------------------------------------------------------------------
for bs in "${pbg_coo_bs[@]}"; do
  nb=6; [ "$bs" -le 8 ] || nb=4
  tcase bk_coo_bs$bs -- test_baijksparse_coo -bs $bs -nb $nb -seed $bs --grep '^random ADD .* ok$' --grep '^full blocks INSERT .* ok$' --grep 'transfers: .*: ok$' --grep '^OK' --nogrep 'FAILED'
done
# the mpi type on one rank takes the same code as on several (nothing sent)
tcase bk_coo_mpi1_bs3 -- test_baijksparse_coo -mat_type mpibaijksparse -bs 3 -seed 5 --grep '^mpibaijksparse' --grep '^OK' --nogrep 'FAILED'
for p in "2 1" "2 3" "2 8" "3 2" "3 5" "3 17"; do
  read -r np bs <<< "$p"
  tcase bk_coo_bs${bs}_mpi$np -n $np -- test_baijksparse_coo -bs $bs -nb 4 -seed $((10 * np + bs)) --grep '^mpibaijksparse' --grep '^OK' --nogrep 'FAILED'
done
# the gather paths the view names: summed and received entries (random pattern on 2 ranks), a pure permutation (full blocks)
tcase bk_coo_view_mpi2 -n 2 -- test_baijksparse_coo -bs 2 -coo_view ::ascii_info --grep 'sent to other ranks, [1-9][0-9]* received' --grep 'part: [0-9]+ value slots from [0-9]+ local entries \(summed\) and [1-9][0-9]* received' --grep 'diagonal part: [0-9]+ value slots from [0-9]+ local entries \(a permutation\)' --grep 'the last gathered on the host' --grep '^OK'
tcase bk_coo_view_permutation -- test_baijksparse_coo -bs 4 -coo_view ::ascii_info --grep '\(5 ignored' --grep 'local entries \(a permutation\)' --grep '^OK'
# no leaks: two preallocations, the second replacing the first
tcase bk_coo_malloc_dump -- test_baijksparse_coo -bs 3 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_coo_malloc_dump_mpi2 -n 2 -- test_baijksparse_coo -bs 2 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
# error paths
tcase bk_coo_err_range --fail -- test_baijksparse_coo -err range --grep 'COO entry 1: row 18 is out of range \[0, 18\)'
tcase bk_coo_err_range_mpi2 --fail -n 2 -- test_baijksparse_coo -err range --grep 'COO entry 1: row 39 is out of range \[0, 39\)'
tcase bk_coo_err_noprealloc --fail -- test_baijksparse_coo -err noprealloc --grep 'MatSetValuesCOO\(\) on a seqbaijksparse matrix needs MatSetPreallocationCOO\(\) first'
tcase bk_coo_err_noprealloc_mpi2 --fail -n 2 -- test_baijksparse_coo -err noprealloc --grep 'MatSetValuesCOO\(\) on a mpibaijksparse matrix needs MatSetPreallocationCOO\(\) first'
tcase bk_coo_err_mode --fail -- test_baijksparse_coo -err mode --grep 'InsertMode must be INSERT_VALUES or ADD_VALUES'
# under valgrind (make memcheck), as tests/cases/memcheck_host.sh
if [ "${PBG_MEMCHECK:-1}" = 1 ] && command -v valgrind > /dev/null 2>&1; then
  pbg_vg=(valgrind -q --error-exitcode=77 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions="$PBG_ROOT/conf/valgrind.supp")
  tcase vg_bk_coo -- "${pbg_vg[@]}" "$PBG_ROOT/tests/bin/test_baijksparse_coo" -bs 3 -nb 4 --grep '^OK'
  tcase vg_bk_coo_mpi2 -n 2 -- "${pbg_vg[@]}" "$PBG_ROOT/tests/bin/test_baijksparse_coo" -bs 2 -nb 4 --grep '^OK'
  unset pbg_vg
fi

# --- GPU: CUDA vectors; v from the host (uploaded) and from the device (nothing moved) -
for bs in "${pbg_coo_bs[@]}"; do
  nb=6; [ "$bs" -le 8 ] || nb=4
  for t in seqbaijksparse mpibaijksparse; do
    tcase bk_gpu_coo_${t}_bs$bs --gpu -- test_baijksparse_coo -mat_type $t -bs $bs -nb $nb -seed $bs -coo_view ::ascii_info --grep 'a GPU is present' --grep 'the last gathered on the device' --grep 'transfers: host->device [1-9][0-9]* bytes .*: ok$' --grep '^OK' --nogrep 'FAILED'
    tcase bk_gpu_coo_${t}_bs${bs}_devv --gpu -- test_baijksparse_coo -mat_type $t -bs $bs -nb $nb -seed $bs -device_values -coo_view ::ascii_info --grep 'values from the device' --grep 'the last gathered on the device' --grep 'transfers: host->device 0 bytes \(expected 0\), device->host 0 bytes \(expected 0\): ok$' --grep '^OK' --nogrep 'FAILED'
  done
done
# several ranks on the GPU node (the bundle's mpiexec; Debian's MPICH is not CUDA-aware, so the entries sent to other ranks
# are staged through the host by PetscSF)
for p in "2 3" "2 8" "3 5"; do
  read -r np bs <<< "$p"
  tcase bk_gpu_coo_bs${bs}_mpi$np --gpu -n $np -- test_baijksparse_coo -bs $bs -nb 4 -seed $((10 * np + bs)) -use_gpu_aware_mpi 0 -check_transfers 0 -coo_view ::ascii_info --grep 'sent to other ranks' --grep 'the last gathered on the device' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_coo_bs${bs}_mpi${np}_devv --gpu -n $np -- test_baijksparse_coo -bs $bs -nb 4 -seed $((10 * np + bs)) -use_gpu_aware_mpi 0 -check_transfers 0 -device_values -coo_view ::ascii_info --grep 'the last gathered on the device' --grep '^OK' --nogrep 'FAILED'
done
# bound to the CPU: the host gather, device values downloaded
tcase bk_gpu_coo_bound_devv --gpu -- test_baijksparse_coo -bs 3 -device_values -bind_to_cpu -coo_view ::ascii_info --grep 'the last gathered on the host' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_coo_malloc_dump --gpu -- test_baijksparse_coo -bs 3 -device_values -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_gpu_coo_err_noprealloc --gpu --fail -- test_baijksparse_coo -err noprealloc --grep 'needs MatSetPreallocationCOO\(\) first'
unset pbg_coo_bs bs nb np p t
