# PETSc's factorizations (solver type "petsc": LU, ILU, Cholesky, ICC; PCBJACOBI's subdomain ones under MPI) of a
# MATBAIJKSPARSE matrix against MATBAIJ (sourced by tests/run.sh). BAIJ's factorizations read the matrix's host arrays
# directly; on a GPU, after a device MatScale()/MatShift(), those are older than the device copy, and the factor was
# silently of the old values (session 20). test_baijksparse_factor solves with a KSPPREONLY per PC reused over rounds
# of new values (numeric refactorizations), and compares x with baij's and, for lu and cholesky, Y x with b. The --gpu
# cases must see the device copy newer before each factorization ("values newer on the device ...: yes").
# shellcheck shell=bash

pbg_factor_sizes=("1 24" "2 12" "3 10" "5 8" "7 6" "16 4")
for p in "${pbg_factor_sizes[@]}"; do
  read -r bs nb <<< "$p"
  tcase bk_factor_bs$bs -- test_baijksparse_factor -bs $bs -nb $nb -seed $bs --grep '^round 2 icc ' --grep '^Y is still seqbaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_factor_bs$bs --gpu -- test_baijksparse_factor -vec_type cuda -bs $bs -nb $nb -seed $bs --grep 'values newer on the device before each factorization: yes' --grep '^round 2 icc ' --grep '^Y is still seqbaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
done
# -pc_factor_mat_solver_type petsc named: PETSc's lookup by name finds the MATSEQBAIJ factory, the one wrapped
tcase bk_factor_named_petsc -- test_baijksparse_factor -bs 4 -nb 6 -pcs lu,ilu -solver_type petsc --grep '^round 2 ilu ' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
tcase bk_gpu_factor_named_petsc --gpu -- test_baijksparse_factor -vec_type cuda -bs 4 -nb 6 -pcs lu,ilu -solver_type petsc -rounds 3 --grep 'values newer on the device before each factorization: yes' --grep '^round 3 ilu ' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
# MPI: PCBJACOBI with each PC on the rank's diagonal block (a MATSEQBAIJKSPARSE matrix)
for p in "2 3 6" "3 2 5"; do
  read -r np bs nb <<< "$p"
  tcase bk_factor_bs${bs}_mpi$np -n $np -- test_baijksparse_factor -bs $bs -nb $nb --grep '^round 2 icc ' --grep '^Y is still mpibaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
  tcase bk_gpu_factor_bs${bs}_mpi$np --gpu -n $np -- test_baijksparse_factor -vec_type cuda -use_gpu_aware_mpi 0 -bs $bs -nb $nb --grep 'values newer on the device before each factorization: yes' --grep '^round 2 icc ' --grep '^Y is still mpibaijksparse' --grep 'factors of Y refresh the host copy: yes; factors of Yref \(baij\) untouched: yes' --grep '^OK' --nogrep 'FAILED'
done
# error path: a PC that is no factorization is PETSc's error, not a crash
tcase bk_factor_err_unknown_pc --fail -- test_baijksparse_factor -bs 2 -nb 4 -pcs nosuchpc --grep 'nosuchpc'
