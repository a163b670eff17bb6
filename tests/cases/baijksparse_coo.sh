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
# (collective: both ranks error, whichever prints first; neither is left waiting to be killed)
tcase bk_coo_err_range_mpi2 --fail -n 2 -- test_baijksparse_coo -err range --grep 'COO entry 1: row 39 is out of range \[0, 39\)|COO: rank 1 passed an out-of-range entry'
tcase bk_coo_err_noprealloc --fail -- test_baijksparse_coo -err noprealloc --grep 'MatSetValuesCOO\(\) on a seqbaijksparse matrix needs MatSetPreallocationCOO\(\) first'
tcase bk_coo_err_noprealloc_mpi2 --fail -n 2 -- test_baijksparse_coo -err noprealloc --grep 'MatSetValuesCOO\(\) on a mpibaijksparse matrix needs MatSetPreallocationCOO\(\) first'
tcase bk_coo_err_mode --fail -- test_baijksparse_coo -err mode --grep 'InsertMode must be INSERT_VALUES or ADD_VALUES'
tcase bk_coo_err_negative --fail -- test_baijksparse_coo -err negative --grep 'COO: the number of entries -1 is negative'
tcase bk_coo_err_negative_mpi2 --fail -n 2 -- test_baijksparse_coo -err negative --grep 'COO: the number of entries -1 is negative'
# issue 26 (defect 9): a count below -2^31 is named negative too, also through MatSetPreallocationCOOLocal() (PETSc's generic
# path cast it to PetscInt first: "too big for PetscInt, ... 64-bit indices")
for n in 1 2; do
  tcase bk_coo_err_negative_big_np$n --fail -n $n -- test_baijksparse_coo -err negative -negative_count -4294967295 --grep 'COO: the number of entries -4294967295 is negative'
  tcase bk_coo_err_negative_local_np$n --fail -n $n -- test_baijksparse_coo -err negative -negative_count -4294967295 -coo_local --grep 'COO: the number of entries -4294967295 is negative' --nogrep 'too big for PetscInt'
done
# the same type path for valid entries: every preallocation through MatSetPreallocationCOOLocal() (AIJ: PETSc's generic path)
tcase bk_coo_local_bs3 -- test_baijksparse_coo -coo_local -bs 3 -assemble_between -duplicate --grep '^full blocks ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
for p in "2 1" "3 7"; do
  read -r np bs <<< "$p"
  tcase bk_coo_local_bs${bs}_mpi$np -n $np -- test_baijksparse_coo -coo_local -bs $bs -nb 3 -seed $((10 * np + bs)) --grep '^full blocks ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
done
tcase bk_coo_err_negative_local_continue_mpi3 -n 3 -- test_baijksparse_coo -err negative -negative_count -2147483649 -coo_local -err_continue -malloc_debug -malloc_dump --grep '^\[2\] refused .*the number of entries -2147483649 is negative' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
# a refused preallocation leaves nothing allocated behind and the matrix usable (the error caught, then the steps run)
for t in seqbaijksparse mpibaijksparse; do
  tcase bk_coo_err_range_continue_$t -- test_baijksparse_coo -mat_type $t -err range -err_continue -malloc_debug -malloc_dump --grep 'refused .*COO entry 1: row 18 is out of range' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
  tcase bk_coo_err_negative_continue_$t -- test_baijksparse_coo -mat_type $t -err negative -err_continue -malloc_debug -malloc_dump --grep 'refused .*the number of entries -1 is negative' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
done
# on two ranks the range error is collective: the rank with the bad entry names it, the other names that rank, and
# both go on with the matrix (before, one rank aborted while the other waited)
tcase bk_coo_err_range_continue_mpi2 -n 2 -- test_baijksparse_coo -err range -err_continue -malloc_debug -malloc_dump --grep '^\[1\] refused .*COO entry 1: row 39 is out of range' --grep '^\[0\] refused .*COO: rank 1 passed an out-of-range entry' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_coo_err_negative_continue_mpi2 -n 2 -- test_baijksparse_coo -err negative -err_continue --grep '^\[0\] refused .*the number of entries -1 is negative' --grep '^\[1\] refused .*the number of entries -1 is negative' --grep '^OK' --nogrep 'FAILED'

# MatAssemblyBegin/End between MatSetPreallocationCOO and MatSetValuesCOO, then MatSetValues ADD on an entry of an
# off-diagonal block of the pattern (another rank's columns when there are some), before and after the COO values: on
# several ranks the second assembly compressed Ao's columns again and MatSetValues refused the entry as new
tcase bk_coo_between -- test_baijksparse_coo -bs 3 -assemble_between --grep '^random MatSetValues ADD .* ok$' --grep '^random COO ADD after .* ok$' --grep '^OK' --nogrep 'FAILED'
tcase bk_coo_between_mpi1 -- test_baijksparse_coo -mat_type mpibaijksparse -bs 3 -assemble_between --grep '^mpibaijksparse' --grep '^OK' --nogrep 'FAILED'
for np in 2 3; do
  for bs in "${pbg_coo_bs[@]}"; do
    tcase bk_coo_between_bs${bs}_mpi$np -n $np -- test_baijksparse_coo -bs $bs -nb 3 -seed $((10 * np + bs)) -assemble_between --grep '^random MatSetValues ADD .* ok$' --grep '^random COO ADD after .* ok$' --grep '^full blocks INSERT, MatSetValues .* ok$' --grep '^OK' --nogrep 'FAILED'
  done
done
# the assembly alone (no MatSetValues): the values must land in their places and MPIBAIJ's scatter be set up once
for np in 2 3; do
  tcase bk_coo_between_values_mpi$np -n $np -- test_baijksparse_coo -bs 3 -nb 4 -assemble_between -between_setvalues 0 -malloc_debug -malloc_dump --grep '^random COO ADD after .* ok$' --grep '^full blocks COO ADD after .* ok$' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
done
# a third pattern with as many blocks as the second, other ones: new maps, not the old ones
tcase bk_coo_same_count -- test_baijksparse_coo -bs 3 -same_count_pattern --grep '^shifted blocks ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
tcase bk_coo_same_count_mpi2 -n 2 -- test_baijksparse_coo -bs 2 -nb 4 -same_count_pattern --grep '^shifted blocks ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
tcase bk_coo_same_count_mpi3 -n 3 -- test_baijksparse_coo -bs 3 -nb 4 -same_count_pattern --grep '^shifted blocks ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
# the pattern replaced by the ordinary preallocation and MatSetValues with as many blocks: the maps refused, not taken
tcase bk_coo_err_repattern --fail -- test_baijksparse_coo -err repattern --grep 'pattern replaced by MatSetValues: 153. nonzeros, before 153.' --grep 'the nonzero pattern changed since MatSetPreallocationCOO\(\) \(as many blocks, 17, other ones\)' --nogrep 'accepted the old maps'
tcase bk_coo_err_repattern_mpi1 --fail -- test_baijksparse_coo -mat_type mpibaijksparse -err repattern --grep 'the nonzero pattern changed since MatSetPreallocationCOO\(\) \(as many blocks' --nogrep 'accepted the old maps'
tcase bk_coo_err_repattern_mpi2 --fail -n 2 -- test_baijksparse_coo -err repattern -nb 4 --grep 'the nonzero pattern changed since MatSetPreallocationCOO\(\)' --nogrep 'accepted the old maps'
# issue 26 (defect 3, what the fingerprint missed on several ranks): (a) only the ghost block columns of the off-diagonal
# blocks move, so the parts' compressed patterns stay the same (garray differs): the values landed in the new ghost
# columns; (b) a new block by MatSetValues() and MatSetValuesCOO() with no assembly between: MPIBAIJ's parts still said
# assembled, the check was skipped and the old maps written into the new layout. AIJ takes its stale maps silently in
# both; ours refuses, on every rank (b: the block only on rank 0, the others name another rank; the error caught, the
# matrix then used)
for np in 2 3; do
  tcase bk_coo_err_repattern_ghost_mpi$np --fail -n $np -- test_baijksparse_coo -err repattern_ghost -bs 2 -nb 3 --grep 'the nonzero pattern changed since MatSetPreallocationCOO\(\) \(as many blocks' --nogrep 'accepted the old maps'
done
tcase bk_coo_err_repattern_ghost_bs7_mpi3 --fail -n 3 -- test_baijksparse_coo -err repattern_ghost -bs 7 -nb 2 --grep 'the nonzero pattern changed since MatSetPreallocationCOO\(\) \(as many blocks' --nogrep 'accepted the old maps'
for t in seqbaijksparse mpibaijksparse; do
  tcase bk_coo_insert_unassembled_$t -- test_baijksparse_coo -mat_type $t -err insert_unassembled -bs 3 -nb 4 -malloc_debug -malloc_dump --grep '^\[0\] refused .*the nonzero pattern changed since MatSetPreallocationCOO\(\) \(10 blocks of 3' --grep '^OK' --nogrep 'FAILED' --nogrep 'accepted the old maps' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
done
for p in "2 1" "3 7"; do
  read -r np bs <<< "$p"
  tcase bk_coo_insert_unassembled_bs${bs}_mpi$np -n $np -- test_baijksparse_coo -err insert_unassembled -bs $bs -nb 4 -malloc_debug -malloc_dump --grep '^\[0\] refused .*the nonzero pattern changed since MatSetPreallocationCOO\(\) \([0-9]+ blocks of' --grep '^\[1\] refused .*changed since MatSetPreallocationCOO\(\) on another rank' --grep '^OK' --nogrep 'FAILED' --nogrep 'accepted the old maps' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
done
# routes that change the pattern with no assembly of the caller (issue 37): MatZeroRows() drops the zeroed block rows, so
# MatSetValuesCOO() must refuse on every rank (before the fix its fast path took the old maps: 12 of 16 entries wrong on one
# rank); MatZeroRowsColumns() keeps the pattern, so the values must be AIJ's; MatAXPY()/MatCopy() with another pattern refuse
for t in seqbaijksparse mpibaijksparse; do
  tcase bk_coo_zerorows_$t -- test_baijksparse_coo -mat_type $t -err zerorows -bs 2 -nb 2 -malloc_debug -malloc_dump --grep '^\[0\] MatSetValuesCOO\(\) refused .*nonzero pattern changed' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
done
for p in "2 3" "3 3" "3 1"; do
  read -r np bs <<< "$p"
  tcase bk_coo_zerorows_bs${bs}_mpi$np -n $np -- test_baijksparse_coo -err zerorows -bs $bs -nb 3 -seed $((10 * np + bs)) -malloc_debug -malloc_dump --grep "^\[$((np - 1))\] MatSetValuesCOO\(\) refused .*nonzero pattern changed" --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
done
for np in 1 2 3; do
  tcase bk_coo_zerorowscolumns_mpi$np -n $np -- test_baijksparse_coo -err zerorowscolumns -bs 3 -nb 3 -seed $np --grep '^COO INSERT after zerorowscolumns .* ok$' --grep '^OK' --nogrep 'FAILED'
  for r in axpy copy; do
    tcase bk_coo_${r}_mpi$np -n $np -- test_baijksparse_coo -err $r -bs 2 -nb 3 -seed $np -malloc_debug -malloc_dump --grep '^\[0\] MatSetValuesCOO\(\) refused' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
  done
done
# the fast path of the pattern guard still taken: one fingerprint per new pattern and none per repeated call
tcase bk_coo_guard_fast_path -- test_baijksparse_coo -bs 3 -coo_view ::ascii_info --grep 'patterns compared by fingerprint [0-2]$' --grep '^OK'
# MatDuplicate keeps the COO maps: MatSetValuesCOO on the duplicate (and on a duplicate of it after its original is gone)
tcase bk_coo_duplicate -- test_baijksparse_coo -bs 3 -duplicate -coo_view ::ascii_info --grep '^random duplicate ADD .* ok$' --grep '^full blocks duplicate\^2 INSERT .* ok$' --grep '^original destroyed ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
tcase bk_coo_duplicate_mpi1 -- test_baijksparse_coo -mat_type mpibaijksparse -bs 2 -duplicate --grep '^original destroyed ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
for p in "2 1" "2 4" "3 3" "3 8"; do
  read -r np bs <<< "$p"
  tcase bk_coo_duplicate_bs${bs}_mpi$np -n $np -- test_baijksparse_coo -bs $bs -nb 4 -seed $((10 * np + bs)) -duplicate --grep '^random duplicate ADD .* ok$' --grep '^original destroyed ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
done
# no leaks on the new paths (the maps shared by duplicates freed with the last, in either order; one scatter)
tcase bk_coo_new_malloc_dump -- test_baijksparse_coo -bs 3 -assemble_between -same_count_pattern -duplicate -malloc_debug -malloc_dump --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_coo_new_malloc_dump_mpi2 -n 2 -- test_baijksparse_coo -bs 2 -nb 4 -assemble_between -same_count_pattern -duplicate -malloc_debug -malloc_dump --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_coo_new_malloc_dump_mpi3 -n 3 -- test_baijksparse_coo -bs 3 -nb 3 -assemble_between -same_count_pattern -duplicate -malloc_debug -malloc_dump --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
# under valgrind: tests/cases/memcheck_host.sh (vg_bk_coo*)

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
# the new paths on the device: an assembly and MatSetValues between the preallocation and the COO values, a third pattern of
# the same block count, duplicates (values copied on the device, the maps shared); v from the host and from the device
for t in seqbaijksparse mpibaijksparse; do
  tcase bk_gpu_coo_${t}_new --gpu -- test_baijksparse_coo -mat_type $t -bs 3 -assemble_between -same_count_pattern -duplicate -coo_view ::ascii_info --grep 'a GPU is present' --grep 'the last gathered on the device' --grep '^random MatSetValues ADD .* ok$' --grep '^shifted blocks ADD .* ok$' --grep '^original destroyed ADD .* ok$' --grep 'transfers: .*: ok$' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_coo_${t}_new_devv --gpu -- test_baijksparse_coo -mat_type $t -bs 4 -device_values -assemble_between -same_count_pattern -duplicate -coo_view ::ascii_info --grep 'values from the device' --grep 'the last gathered on the device' --grep '^original destroyed ADD .* ok$' --grep 'transfers: .*: ok$' --grep '^OK' --nogrep 'FAILED'
done
for p in "2 3" "3 5"; do
  read -r np bs <<< "$p"
  tcase bk_gpu_coo_new_bs${bs}_mpi$np --gpu -n $np -- test_baijksparse_coo -bs $bs -nb 4 -seed $((10 * np + bs)) -use_gpu_aware_mpi 0 -check_transfers 0 -assemble_between -same_count_pattern -duplicate -coo_view ::ascii_info --grep 'the last gathered on the device' --grep '^random COO ADD after .* ok$' --grep '^original destroyed ADD .* ok$' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_coo_new_bs${bs}_mpi${np}_devv --gpu -n $np -- test_baijksparse_coo -bs $bs -nb 4 -seed $((10 * np + bs)) -use_gpu_aware_mpi 0 -check_transfers 0 -device_values -assemble_between -duplicate --grep '^random COO ADD after .* ok$' --grep '^OK' --nogrep 'FAILED'
done
tcase bk_gpu_coo_new_malloc_dump --gpu -- test_baijksparse_coo -bs 3 -device_values -assemble_between -same_count_pattern -duplicate -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_gpu_coo_err_repattern --gpu --fail -- test_baijksparse_coo -err repattern --grep 'as many blocks, 17, other ones' --nogrep 'accepted the old maps'
tcase bk_gpu_coo_err_repattern_mpi1 --gpu --fail -- test_baijksparse_coo -mat_type mpibaijksparse -err repattern --grep 'as many blocks' --nogrep 'accepted the old maps'
tcase bk_gpu_coo_err_repattern_ghost_mpi2 --gpu --fail -n 2 -- test_baijksparse_coo -use_gpu_aware_mpi 0 -err repattern_ghost -bs 3 -nb 3 --grep 'as many blocks' --nogrep 'accepted the old maps'
tcase bk_gpu_coo_insert_unassembled_mpi2 --gpu -n 2 -- test_baijksparse_coo -use_gpu_aware_mpi 0 -check_transfers 0 -err insert_unassembled -bs 3 -nb 4 -malloc_debug -malloc_dump --grep '^\[0\] refused .*blocks of 3' --grep '^\[1\] refused .*on another rank' --grep '^OK' --nogrep 'FAILED' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
tcase bk_gpu_coo_insert_unassembled_seq --gpu -- test_baijksparse_coo -mat_type seqbaijksparse -err insert_unassembled -bs 3 -nb 4 --grep '^\[0\] refused .*blocks of 3' --grep '^OK' --nogrep 'FAILED'
for r in zerorows zerorowscolumns axpy copy; do
  tcase bk_gpu_coo_${r}_seq --gpu -- test_baijksparse_coo -mat_type seqbaijksparse -err $r -bs 3 -nb 3 --grep "after|refused" --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_coo_${r}_mpi2 --gpu -n 2 -- test_baijksparse_coo -use_gpu_aware_mpi 0 -check_transfers 0 -err $r -bs 3 -nb 3 --grep "after|refused" --grep '^OK' --nogrep 'FAILED'
done
tcase bk_gpu_coo_local_mpi2 --gpu -n 2 -- test_baijksparse_coo -use_gpu_aware_mpi 0 -check_transfers 0 -coo_local -bs 3 -nb 4 -coo_view ::ascii_info --grep 'the last gathered on the device' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_coo_local_seq --gpu -- test_baijksparse_coo -mat_type seqbaijksparse -coo_local -bs 3 -coo_view ::ascii_info --grep 'the last gathered on the device' --grep 'transfers: .*: ok$' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_coo_err_range_continue --gpu -- test_baijksparse_coo -bs 3 -err range -err_continue -malloc_debug -malloc_dump --grep 'refused' --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
unset pbg_coo_bs bs nb np p t
