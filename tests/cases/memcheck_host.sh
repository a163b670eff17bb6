# The host memory check (sourced by tests/run.sh): host-path cases of the preconditioner and the matrix, their failure
# paths and MPI runs, under valgrind (memcheck, definite leaks). 0 errors and 0 definite leaks from our library: the
# suppressions in conf/valgrind.supp cover only system-library noise (the dynamic loader, MPICH's init), each with
# its reason. Skipped where valgrind is missing (the GPU node); PBG_MEMCHECK=0 skips it too.
if [ "${PBG_MEMCHECK:-1}" = 1 ] && command -v valgrind > /dev/null 2>&1; then
  pbg_vg=(valgrind -q --error-exitcode=77 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite
          --suppressions="$PBG_ROOT/conf/valgrind.supp")
  pbg_tb=$PBG_ROOT/tests/bin
  tcase vg_vbj_merged -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi" -mode super -maxgen 9 -maxbs 8 -nblocks_local 30 -pc_vbjacobi_blocking supervariable --grep '^OK'
  tcase vg_vbj_natural_mixed -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi" -mode mixed -maxgen 12 -nblocks_local 30 -pivot -compare_petsc --grep '^OK'
  tcase vg_vbj_uniform_baijksparse -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi" -mode uniform -bs 5 -mat_type baijksparse -nblocks_local 20 --grep '^OK'
  tcase vg_vbj_singular_fails -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi" -mode mixed -singular_block 3 --grep 'DIVERGED_PC_FAILED'
  tcase vg_vbj_singular_error --fail -- valgrind -q --leak-check=no --suppressions="$PBG_ROOT/conf/valgrind.supp" "$pbg_tb/test_vbjacobi" -mode uniform -bs 2 -pc_vbjacobi_blocking matrix -singular_block 7 -ksp_error_if_not_converged --grep 'zero or tiny pivot' --nogrep '==[0-9]+== (Invalid|Conditional|Syscall|Mismatched|Use of)'
  tcase vg_vbj_overflow_identity -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi" -mode mixed -maxgen 8 -overflow_block 3 -pc_vbjacobi_singular identity --grep '^OK'
  tcase vg_vbj_nan_fails -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi" -mode mixed -nan_block 0 --grep 'holds NaN or Inf'
  tcase vg_vbj_reuse -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi_reuse" -n 80 --grep '^OK'
  tcase vg_vbj_mpi2_merged -n 2 -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi" -mode super -maxgen 6 -maxbs 12 -nblocks_local 20 --grep '^OK'
  tcase vg_bk_route -- "${pbg_vg[@]}" "$pbg_tb/test_baijksparse" -bs 3 --grep '^OK'
  tcase vg_bk_route_mpi2 -n 2 -- "${pbg_vg[@]}" "$pbg_tb/test_baijksparse" -bs 4 -seed 1 --grep '^OK'
  # a refused option ends the program through PetscError/MPI_Abort, which frees nothing (MPICH's UCX worker among it):
  # memory errors only there, no leak check
  tcase vg_bk_bad_ept --fail -- valgrind -q --leak-check=no --suppressions="$PBG_ROOT/conf/valgrind.supp" "$pbg_tb/test_baijksparse" -bs 3 -mat_baijksparse_ept 7 --grep 'cannot run this matrix' --nogrep '==[0-9]+== (Invalid|Conditional|Syscall|Mismatched|Use of)'
  for op in axpy copy; do
    tcase vg_bk_${op}_different -- "${pbg_vg[@]}" "$pbg_tb/test_baijksparse_axpy" -op $op --grep '^OK'
    tcase vg_bk_${op}_different_mpi2 -n 2 -- "${pbg_vg[@]}" "$pbg_tb/test_baijksparse_axpy" -op $op -x_mat_type baijksparse --grep '^OK'
  done
  # issue 26 (helper pc): vbjacobi's half/single storage widened for blocks it cannot hold, setters and options after a
  # setup (a failed setup recovered with the identity policy), zero variable block sizes, the size-check error path
  tcase vg_vbjp_single_cond_solve -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi_precision" -mode cond -nblocks_local 60 -maxgen 6 -pc_vbjacobi_precision single -check_error -ksp_type gmres -ksp_pc_side left -ksp_rtol 1e-12 -compare_host --grep 'relative error of the solution' --grep '^OK'
  tcase vg_vbjp_half_cond_solve_mpi2 -n 2 -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi_precision" -mode cond -nblocks_local 40 -maxgen 6 -pc_vbjacobi_precision half -check_error -ksp_type gmres -ksp_pc_side left -ksp_rtol 1e-12 --grep '^OK'
  for c in setters options zerosizes; do
    tcase vg_vbjs_$c -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi_setters" -case $c -n 32 --grep '^OK'
  done
  tcase vg_vbjs_options_mpi2 -n 2 -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi_setters" -case options -n 32 --grep '^OK'
  tcase vg_vbjs_badsizes -- "${pbg_vg[@]}" "$pbg_tb/test_vbjacobi_setters" -case badsizes -n 32 -malloc_dump --grep 'larger than the maximum block size 2' --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
  unset pbg_vg pbg_tb op c
else
  pbg_begin memcheck_host && pbg_report memcheck_host SKIP "no valgrind (or PBG_MEMCHECK=0)"
fi
