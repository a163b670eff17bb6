# PETSc's factorizations (solver type "petsc": LU, ILU, Cholesky, ICC; PCBJACOBI's subdomain ones under MPI) and
# cuSPARSE's (solver type "cusparse", LU and Cholesky: the default of those two on a GPU) of a MATBAIJKSPARSE matrix
# against MATBAIJ (sourced by tests/run.sh). BAIJ's factorizations read the matrix's host arrays
# directly; on a GPU, after a device MatScale()/MatShift(), those are older than the device copy, and the factor was
# silently of the old values (session 20). test_baijksparse_factor solves with a KSPPREONLY per PC reused over rounds
# of new values (numeric refactorizations), and compares x with baij's and, for lu and cholesky, Y x with b. The --gpu
# cases must see the device copy newer before each factorization ("values newer on the device ...: yes").
# shellcheck shell=bash

# The --gpu cases take cuSPARSE's LU and Cholesky as the default at any size (-mat_baijksparse_factor_device_rows 0)
pbg_factor_sizes=("1 24" "2 12" "3 10" "5 8" "7 6" "16 4")
for p in "${pbg_factor_sizes[@]}"; do
  read -r bs nb <<< "$p"
  tcase bk_factor_bs$bs -- test_baijksparse_factor -bs $bs -nb $nb -seed $bs --grep '^round 2 icc ' --grep '^Y is still seqbaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_factor_bs$bs --gpu -- test_baijksparse_factor -vec_type cuda -mat_baijksparse_factor_device_rows 0 -bs $bs -nb $nb -seed $bs --grep 'values newer on the device before each factorization: yes' --grep '^lu: factor of Y seqaijcusparse, of Yref seqbaij' --grep '^cholesky: factor of Y seqaijcusparse' --grep '^ilu: factor of Y seqbaij,' --grep '^round 2 icc ' --grep '^Y is still seqbaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
done
# -pc_factor_mat_solver_type petsc named: PETSc's lookup by name finds the MATSEQBAIJ factory, the one wrapped
tcase bk_factor_named_petsc -- test_baijksparse_factor -bs 4 -nb 6 -pcs lu,ilu -solver_type petsc --grep '^round 2 ilu ' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_factor_named_petsc --gpu -- test_baijksparse_factor -vec_type cuda -bs 4 -nb 6 -pcs lu,ilu -solver_type petsc -rounds 3 --grep 'values newer on the device before each factorization: yes' --grep '^round 3 ilu ' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
# -pc_factor_mat_solver_type cusparse named: on a GPU cuSPARSE's factor of the operator converted on the device (the
# block orderings expanded to rows: bs 3 and 5), three rounds of numeric refactorizations; with no device PETSc's host factor
for bs in 3 5; do
  tcase bk_gpu_factor_named_cusparse_bs$bs --gpu -- test_baijksparse_factor -vec_type cuda -bs $bs -nb 9 -pcs lu,cholesky -solver_type cusparse -solver_type_ref petsc -rounds 3 --grep 'values newer on the device before each factorization: yes' --grep '^lu: factor of Y seqaijcusparse' --grep '^cholesky: factor of Y seqaijcusparse' --grep '^round 3 cholesky ' --grep '^OK' --nogrep 'FAILED'
done
# host vectors: cuSPARSE's solves (plain and transposed, over refactorizations) through CUDA work vectors
tcase bk_gpu_factor_cusparse_host_vectors --gpu -- test_baijksparse_factor -host_vecs -mat_baijksparse_factor_device_rows 0 -bs 3 -nb 8 -pcs lu,cholesky -rounds 3 -info :mat --grep '^lu: factor of Y seqaijcusparse' --grep 'solves of host vectors through CUDA work vectors' --grep '^round 3 cholesky ' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_factor_named_cusparse_natural --gpu -- test_baijksparse_factor -vec_type cuda -bs 4 -nb 7 -pcs lu -solver_type cusparse -solver_type_ref petsc -pc_factor_mat_ordering_type natural --grep '^lu: factor of Y seqaijcusparse' --grep '^round 2 lu ' --grep '^OK' --nogrep 'FAILED'
tcase bk_factor_named_cusparse -- test_baijksparse_factor -bs 3 -nb 8 -pcs lu,cholesky -solver_type cusparse -solver_type_ref petsc --grep '^lu: factor of Y seqbaij,' --grep '^round 2 cholesky ' --grep '^OK' --nogrep 'FAILED'
# the default below -mat_baijksparse_factor_device_rows (16384): PETSc's host factor, on a GPU too; at 0 on the host
# (no device): PETSc's host factor
tcase bk_gpu_factor_default_small --gpu -- test_baijksparse_factor -vec_type cuda -bs 2 -nb 10 -pcs lu,cholesky --grep '^lu: factor of Y seqbaij,' --grep '^cholesky: factor of Y seqsbaij,' --grep '^OK' --nogrep 'FAILED'
tcase bk_factor_default_device_rows0 -- test_baijksparse_factor -mat_baijksparse_factor_device_rows 0 -bs 2 -nb 10 -pcs lu,cholesky --grep '^lu: factor of Y seqbaij,' --grep '^OK' --nogrep 'FAILED'
tcase bk_factor_help -- test_baijksparse_factor -bs 2 -nb 4 -pcs lu -help --grep 'mat_baijksparse_factor_device_rows: <now 16384'
# ILU and ICC are not cuSPARSE's for this type (a point ILU(0) of the converted matrix is another preconditioner)
tcase bk_factor_err_cusparse_ilu --fail -- test_baijksparse_factor -bs 2 -nb 4 -pcs ilu -solver_type cusparse -solver_type_ref petsc --grep 'cusparse does not support factorization type ILU for matrix type seqbaijksparse'
# MPI: PCBJACOBI with each PC on the rank's diagonal block (a MATSEQBAIJKSPARSE matrix, whose options prefix is sub_)
for p in "2 3 6" "3 2 5"; do
  read -r np bs nb <<< "$p"
  tcase bk_factor_bs${bs}_mpi$np -n $np -- test_baijksparse_factor -bs $bs -nb $nb --grep '^round 2 icc ' --grep '^Y is still mpibaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_factor_bs${bs}_mpi$np --gpu -n $np -- test_baijksparse_factor -vec_type cuda -sub_mat_baijksparse_factor_device_rows 0 -use_gpu_aware_mpi 0 -bs $bs -nb $nb --grep 'values newer on the device before each factorization: yes' --grep '^lu: factor of Y seqaijcusparse' --grep '^round 2 icc ' --grep '^Y is still mpibaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
done
# error path: a PC that is no factorization is PETSc's error, not a crash
tcase bk_factor_err_unknown_pc --fail -- test_baijksparse_factor -bs 2 -nb 4 -pcs nosuchpc --grep 'nosuchpc'
