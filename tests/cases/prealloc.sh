# AIJ preallocation on baijksparse (issue 38), sourced by tests/run.sh: test_prealloc builds one random block pattern
# into MATAIJ (exact counts) and into baijksparse with the preallocation of -prealloc, through ADD/INSERT phases with
# flush assemblies, both orientations, blocked and scalar calls, off-process and repeated entries, then refills it twice
# (INSERT; MatZeroEntries + ADD) and compares values and MatMult after each final assembly, and the -mat_view line (blocks
# reserved by the rule, stored, mallocs) with MatGetInfo. -scatter: entries that fill only part of most blocks (the AIJ
# counts then reserve fewer blocks than stored: the rows grow, never an error).
# shellcheck shell=bash

pbg_ok=(--grep '^OK' --nogrep 'FAILED')
# the start of the lines of the last assembly: MODE [" scatter"] (bs, np: the loop's)
pbg_pfx() { echo "^prealloc $1 bs $bs np $np${2:-} assembly 3:"; }
for np in 1 2 3; do
  for bs in 1 3 7 33; do
    # exact AIJ counts on dense blocks: reserved = stored, 0 mallocs (the view's own line, and the program's check)
    view=(); [ $bs = 7 ] && view=(-mat_view ::ascii_info --grep '^ +baijksparse: preallocated from AIJ row counts')
    tcase prealloc_aij_bs${bs}_np$np -n $np -- test_prealloc -prealloc aij -bs $bs "${view[@]}" \
      --grep "$(pbg_pfx aij) max \|A - R\| = .* ok$" --grep "$(pbg_pfx aij) MatMult .* ok$" \
      --grep "$(pbg_pfx aij) view: .*preallocated from AIJ row counts .*: ([0-9]+) blocks reserved, \1 stored, 0 mallocs$" "${pbg_ok[@]}"
    # over-estimated counts (2 x + 3, o_nnz up to the global column count as MPIAIJ allows): 0 mallocs (bs 7: the
    # other modes cover it; the case list is kept short)
    [ $bs != 7 ] && tcase prealloc_aij_over_bs${bs}_np$np -n $np -- test_prealloc -prealloc aij_over -bs $bs \
      --grep "$(pbg_pfx aij_over) max \|A - R\| = .* ok$" --grep "$(pbg_pfx aij_over) view: .*blocks reserved, [0-9]+ stored, 0 mallocs$" "${pbg_ok[@]}"
    # half the counts: fewer blocks reserved than stored, the rows grow (mallocs > 0), the values stay right
    tcase prealloc_aij_under_bs${bs}_np$np -n $np -- test_prealloc -prealloc aij_under -bs $bs \
      --grep "$(pbg_pfx aij_under) max \|A - R\| = .* ok$" --grep "$(pbg_pfx aij_under) view: .*blocks reserved, [0-9]+ stored, [1-9][0-9]* mallocs$" "${pbg_ok[@]}"
    # no preallocation: BAIJ's hash-based assembly (MatSetUp())
    tcase prealloc_none_bs${bs}_np$np -n $np -- test_prealloc -prealloc none -bs $bs \
      --grep "$(pbg_pfx none) max \|A - R\| = .* ok$" --grep "$(pbg_pfx none) view: baijksparse: not preallocated: hash-based assembly \(MatSetUp\(\)\), [0-9]+ blocks stored$" "${pbg_ok[@]}"
    # exact block counts
    [ $bs != 7 ] && tcase prealloc_baij_bs${bs}_np$np -n $np -- test_prealloc -prealloc baij -bs $bs \
      --grep "$(pbg_pfx baij) max \|A - R\| = .* ok$" --grep "$(pbg_pfx baij) view: baijksparse: preallocated from block counts: [0-9]+ blocks stored, 0 mallocs$" "${pbg_ok[@]}"
    # scattered entries (bs 1 has no partial block): exact AIJ counts, half counts, hash assembly
    if [ $bs != 1 ]; then
      for mode in aij aij_under none; do
        tcase prealloc_${mode}_scatter_bs${bs}_np$np -n $np -- test_prealloc -prealloc $mode -scatter -bs $bs \
          --grep "$(pbg_pfx $mode ' scatter') max \|A - R\| = .* ok$" --grep "$(pbg_pfx $mode ' scatter') MatMult .* ok$" "${pbg_ok[@]}"
      done
    fi
  done
  # block counts first, then AIJ counts of zero: ignored (0 mallocs, the view says block counts)
  for bs in 3 7; do
    for mode in baij_then_aij xaij_then_aij; do
      [ $bs = 7 ] && [ $mode = baij_then_aij ] && continue
      tcase prealloc_${mode}_bs${bs}_np$np -n $np -- test_prealloc -prealloc $mode -bs $bs \
        --grep "^prealloc $mode bs $bs np $np assembly 3: max \|A - R\| = .* ok$" --grep "^prealloc $mode bs $bs np $np assembly 3: view: baijksparse: preallocated from block counts: [0-9]+ blocks stored, 0 mallocs$" "${pbg_ok[@]}"
    done
  done
  # the test itself on the reference type
  tcase prealloc_mat_aij_np$np -n $np -- test_prealloc -mat_type aij -prealloc aij -scatter -bs 3 --grep "^prealloc aij bs 3 np $np scatter assembly 3: max \|A - R\| = .* ok$" "${pbg_ok[@]}"
done

# error paths: each ends the program with the message (under MPI, on every rank)
for np in 1 2; do
  p=; [ $np = 2 ] && p=d_
  tcase prealloc_err_negative_np$np --fail -n $np -- test_prealloc -err negative --grep "(^|[^_a-z])${p}nnz cannot be less than 0: local row 0 value -1"
  tcase prealloc_err_toolong_np$np --fail -n $np -- test_prealloc -err toolong --grep "(^|[^_a-z])${p}nnz cannot be greater than row length"
  tcase prealloc_err_bs_np$np --fail -n $np -- test_prealloc -err bs --grep 'Local size [0-9]+ not compatible with block size 3|are not multiples of the block size 3'
  # rectangular blocks (3 x 1) asked for as baijksparse: an AIJ matrix (BSR's blocks are square), which takes them
  tcase prealloc_bs_cols_aij_np$np -n $np -- test_prealloc -err bs_cols --grep 'block sizes 3 x 1 asked for as baijksparse: the matrix is (seq|mpi)aij(cusparse)?: ok' --grep '^OK'
  # the user's MAT_NEW_NONZERO_ALLOCATION_ERR after the AIJ counts: BAIJ's error
  tcase prealloc_err_allocerr_np$np --fail -n $np -- test_prealloc -err allocerr --grep '[Nn]ew nonzero at \([0-9]+,[0-9]+\) caused a malloc' --nogrep 'was accepted'
  # the test's own check: one entry of A perturbed by 1e-8 must fail it
  tcase prealloc_err_corrupt_np$np --fail -n $np -- test_prealloc -err corrupt -bs 3 --grep "^prealloc aij bs 3 np $np assembly 1: max \|A - R\| = .* FAILED$" --grep '^FAILED: [1-9]'
done
tcase prealloc_err_toolong_o_np2 --fail -n 2 -- test_prealloc -err toolong_o --grep 'o_nnz cannot be greater than row length'
tcase prealloc_err_toolong_o_np3 --fail -n 3 -- test_prealloc -err toolong_o --grep 'o_nnz cannot be greater than row length'
tcase prealloc_err_corrupt_scatter_np3 --fail -n 3 -- test_prealloc -err corrupt -prealloc aij_under -scatter -bs 7 --grep '^FAILED: [1-9]'

# GPU: MatMult on CUDA vectors (the device copy of A) against MATAIJ's, after each assembly (INSERT refill, MatZeroEntries)
for np in 1 2; do
  for bs in 3 33; do
    for mode in aij none; do
      tcase prealloc_gpu_${mode}_bs${bs}_np$np --gpu -n $np -- test_prealloc -prealloc $mode -bs $bs -vec_type cuda -use_gpu_aware_mpi 0 \
        --grep "^prealloc $mode bs $bs np $np assembly 3: MatMult \(cuda|seqcuda|mpicuda\): .* ok$" "${pbg_ok[@]}"
    done
    tcase prealloc_gpu_aij_under_scatter_bs${bs}_np$np --gpu -n $np -- test_prealloc -prealloc aij_under -scatter -bs $bs -vec_type cuda -use_gpu_aware_mpi 0 \
      --grep "^prealloc aij_under bs $bs np $np scatter assembly 3: MatMult \(cuda|seqcuda|mpicuda\): .* ok$" "${pbg_ok[@]}"
  done
done
unset pbg_ok np bs p view mode
unset -f pbg_pfx

# under valgrind (as memcheck_host.sh; its array is unset by then): a group a rank count, the error paths caught
# (-err_continue) so that their leak check runs too
if [ "${PBG_MEMCHECK:-1}" = 1 ] && command -v valgrind > /dev/null 2>&1; then
  pbg_vg=(valgrind -q --vex-guest-chase=no --error-exitcode=77 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite
          --suppressions="$PBG_ROOT/conf/valgrind.supp")
  tvg_begin vg_group_prealloc -- "${pbg_vg[@]}"
  tvg vg_prealloc_aij_bs3 -- test_prealloc -prealloc aij -bs 3 -nb 4 --grep 'assembly 3: view: .* ([0-9]+) blocks reserved, \1 stored, 0 mallocs$' --grep '^OK'
  tvg vg_prealloc_aij_under_scatter_bs7 -- test_prealloc -prealloc aij_under -scatter -bs 7 -nb 3 --grep 'assembly 3: max \|A - R\| = .* ok$' --grep '^OK'
  tvg vg_prealloc_none_bs3 -- test_prealloc -prealloc none -bs 3 -nb 4 --grep 'hash-based assembly' --grep '^OK'
  tvg vg_prealloc_xaij_then_aij_bs3 -- test_prealloc -prealloc xaij_then_aij -bs 3 -nb 4 --grep 'from block counts: [0-9]+ blocks stored, 0 mallocs$' --grep '^OK'
  tvg vg_prealloc_err_negative -- test_prealloc -err negative -err_continue --grep 'refused .*nnz cannot be less than 0' --grep '^OK'
  tvg vg_prealloc_bs_cols_aij -- test_prealloc -err bs_cols --grep 'the matrix is seqaij(cusparse)?: ok' --grep '^OK'
  tvg vg_prealloc_err_allocerr -- test_prealloc -err allocerr -err_continue --grep 'refused .*[Nn]ew nonzero at' --grep 'assembly 3: max \|A - R\| = .* ok$' --grep '^OK'
  tvg_end
  tvg_begin vg_group_prealloc_mpi2 -n 2 -- "${pbg_vg[@]}"
  tvg vg_prealloc_aij_scatter_mpi2 -- test_prealloc -prealloc aij -scatter -bs 3 -nb 3 --grep 'assembly 3: max \|A - R\| = .* ok$' --grep '^OK'
  tvg vg_prealloc_none_mpi2 -- test_prealloc -prealloc none -bs 3 -nb 3 --grep 'hash-based assembly' --grep '^OK'
  tvg vg_prealloc_err_toolong_o_mpi2 -- test_prealloc -err toolong_o -err_continue --grep '^\[1\] .*refused .*o_nnz cannot be greater than row length' --grep '^OK'
  tvg vg_prealloc_err_allocerr_mpi2 -- test_prealloc -err allocerr -err_continue --grep '^\[1\] .*refused .*[Nn]ew nonzero at' --grep '^OK'
  tvg_end
  unset pbg_vg
else
  pbg_begin vg_group_prealloc && pbg_report vg_group_prealloc SKIP "no valgrind (or PBG_MEMCHECK=0)"
fi
