# Sub-matrices of MATBAIJKSPARSE (sourced by tests/run.sh): test_baijksparse_submat takes each sub-matrix of a baijksparse
# matrix and of its AIJ copy and compares sizes and products, then changes the values and compares the reused ones.
# Index sets of whole blocks give baijksparse (MPIBAIJ's plain seqbaij/mpibaij results are subclassed), index sets that
# split blocks give AIJ (BAIJ's own methods silently took whole blocks). The solve cases run PCASM, PCBJACOBI and
# PCFIELDSPLIT on baijksparse and on AIJ with the same options: the same iteration counts (within 1) and solutions
# (within 1e-7), in two solves with new values in between (the PC reuses its sub-matrices), and the type of each
# sub-solver's matrix.
# shellcheck shell=bash

for np in 1 2 3; do
  sfx=$([ $np = 1 ] || echo _mpi$np)
  seq=$([ $np = 1 ] && echo seq || echo mpi)
  tcase bk_submat_bs3$sfx -n $np -- test_baijksparse_submat -mode submatrix -bs 3 \
    --grep "rows blocks, columns blocks, reused: ${seq}baijksparse" --grep "rows split, columns split, reused: ${seq}aij" \
    --grep "rows mixed, columns blocks, reused: ${seq}aij" --grep "rows all, columns split, reused: ${seq}aij" --grep '^OK'
  # PCASM's sub-matrices (each rank's rows and overlap): seqbaijksparse without -pc_asm_sub_mat_type
  tcase bk_submats_bs4$sfx -n $np -- test_baijksparse_submat -mode submatrices -bs 4 -nb 5 \
    --grep '^\[0\] submatrices rows all, reused: seqbaijksparse' --grep '^\[0\] submatrices rows split, reused: seqaij' --grep '^OK'
  tcase bk_submat_asm$sfx -n $np -- test_baijksparse_submat -mode solve -pc_type asm -pc_asm_overlap 2 \
    --grep "sub-solver 0 matrix seqbaijksparse" --grep 'solve 1: iterations' --grep '^OK'
  # fields inside the blocks (bs 3, a field per component): AIJ sub-matrices
  tcase bk_submat_fieldsplit$sfx -n $np -- test_baijksparse_submat -mode solve -pc_type fieldsplit \
    --grep "${seq}baijksparse: sub-solver 2 matrix ${seq}aij" --grep 'solve 1: iterations' --grep '^OK'
done
tcase bk_submat_bs2_mpi2 -n 2 -- test_baijksparse_submat -mode submatrix -bs 2 -nb 7 --grep 'rows split, columns split, reused: mpiaij' --grep '^OK'
tcase bk_submat_bjacobi_mpi2 -n 2 -- test_baijksparse_submat -mode solve -pc_type bjacobi --grep 'mpibaijksparse: sub-solver 0 matrix seqbaijksparse' --grep 'solve 1: iterations' --grep '^OK'
# the explicit sub-matrix type still wins
tcase bk_submat_asm_sub_mat_type_mpi2 -n 2 -- test_baijksparse_submat -mode solve -pc_type asm -pc_asm_sub_mat_type aij --grep 'mpibaijksparse: sub-solver 0 matrix seqaij' --grep '^OK'
# Schur complement: the off-diagonal sub-matrices (rows of one field, columns of the other) split blocks too
tcase bk_submat_fieldsplit_schur_mpi2 -n 2 -- test_baijksparse_submat -mode solve -pc_type fieldsplit -pc_fieldsplit_type schur \
  -pc_fieldsplit_0_fields 0,1 -pc_fieldsplit_1_fields 2 -pc_fieldsplit_schur_precondition selfp \
  --grep 'mpibaijksparse: sub-solver 1 matrix mpiaij' --grep 'solve 1: iterations' --grep '^OK'
unset np sfx seq
