# DMCreateMatrix() of a DMDA with baijksparse (sourced by tests/run.sh): test_dmda_matrix fills the same stencil into
# the DMDA's AIJ matrix and ours and compares the products. 1-D has no BAIJ route in PETSc: its AIJ route's matrix is
# converted (src/dm/da/dmda_baijksparse.c), as is that of one field on one rank (faster there); else 2-D and 3-D keep
# the block route while ours also accepts AIJ preallocation.
# shellcheck shell=bash
for np in 1 2 3; do
  for a in "1 1" "1 2" "1 3"; do
    read -r dim dof <<< "$a"
    tcase dmda_${dim}d_dof${dof}_np$np -n $np -- test_dmda_matrix -dim $dim -dof $dof --grep "^dmda ${dim}-D dof ${dof}: (seq|mpi)baijksparse, .* ok$" --grep '^OK'
  done
  tcase dmda_1d_periodic_np$np -n $np -- test_dmda_matrix -dim 1 -periodic -stencil_width 2 --grep '^dmda 1-D dof 2 periodic: (seq|mpi)baijksparse, .* ok$' --grep '^OK'
  tcase dmda_2d_dof3_np$np -n $np -- test_dmda_matrix -dim 2 -dof 3 --grep '^dmda 2-D dof 3: (seq|mpi)baijksparse, .* ok$' --grep '^OK'
  tcase dmda_2d_dof1_np$np -n $np -- test_dmda_matrix -dim 2 -dof 1 --grep '^dmda 2-D dof 1: (seq|mpi)baijksparse, .* ok$' --grep '^OK'
  tcase dmda_3d_dof1_np$np -n $np -- test_dmda_matrix -dim 3 -dof 1 -m 7 --grep '^dmda 3-D dof 1: (seq|mpi)baijksparse, .* ok$' --grep '^OK'
  tcase dmda_3d_dof2_np$np -n $np -- test_dmda_matrix -dim 3 -dof 2 -m 7 --grep '^dmda 3-D dof 2: (seq|mpi)baijksparse, .* ok$' --grep '^OK'
done
tcase dmda_1d_view_natural_np2 -n 2 -- test_dmda_matrix -dim 1 -dof 1 -m 4 -view_J --grep 'row 3: +\(2, -0\.25\) +\(3, 5\.\) *$' --grep '^OK'
# (on several ranks DMDA views its matrices in natural ordering, through a sub-matrix: one rank shows our statistics)
tcase dmda_2d_view_prealloc -- test_dmda_matrix -dim 2 -dof 3 -view_J ::ascii_info --grep 'baijksparse: preallocated from block counts: 1377 blocks stored, 0 mallocs' --grep '^OK'
tcase dmda_1d_reference_aij -- test_dmda_matrix -dim 1 -mat_type aij --grep '^dmda 1-D dof 2: seqaij, .* ok$'
tcase dmda_gpu_1d_dof2 --gpu -- test_dmda_matrix -dim 1 -dof 2 -m 100001 -dm_vec_type cuda --grep '^dmda 1-D dof 2: seqbaijksparse, .* ok$' --grep '^OK'
tcase dmda_gpu_1d_dof3_np2 --gpu -n 2 -- test_dmda_matrix -dim 1 -dof 3 -m 100001 --grep '^dmda 1-D dof 3: mpibaijksparse, .* ok$' --grep '^OK'
tcase dmda_gpu_3d_dof1 --gpu -- test_dmda_matrix -dim 3 -dof 1 -m 65 -dm_vec_type cuda --grep '^dmda 3-D dof 1: seqbaijksparse, .* ok$' --grep '^OK'
tcase dmda_gpu_2d_dof4 --gpu -- test_dmda_matrix -dim 2 -dof 4 -m 257 --grep '^dmda 2-D dof 4: seqbaijksparse, .* ok$' --grep '^OK'
