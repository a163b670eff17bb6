# The host memory check (sourced by tests/run.sh): host-path cases of the preconditioner and the matrix, their failure
# paths and MPI runs, under valgrind (memcheck, definite leaks). 0 errors and 0 definite leaks from our library: the
# suppressions in conf/valgrind.supp cover only system-library noise (the dynamic loader, MPICH's init), each with
# its reason. Skipped where valgrind is missing (the GPU node); PBG_MEMCHECK=0 skips it too.
if [ "${PBG_MEMCHECK:-1}" = 1 ] && command -v valgrind > /dev/null 2>&1; then
  # --vex-guest-chase=no: the JIT builds shorter superblocks; the same checks, and 15% less of the ~33 s of CPU that
  # each process spends in the static initialisers of PETSc's CUDA libraries before main() (32.1 -> 27.0 s, session 15)
  pbg_vg=(valgrind -q --vex-guest-chase=no --error-exitcode=77 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite
          --suppressions="$PBG_ROOT/conf/valgrind.supp")
  pbg_tb=$PBG_ROOT/tests/bin
  # memcheck's error kinds, as valgrind prints them (a group member passes only with no memcheck error at all: multirun
  # counts them; the cases that fail on purpose also say so with --nogrep)
  pbg_vg_kinds='==[0-9]+== (Invalid|Conditional|Syscall|Mismatched|Use of)'
  # Cases that end in success run in valgrind groups (tests/run.sh: tvg_begin), a process each: a process that loads
  # PETSc's CUDA libraries costs about 30 s of CPU under valgrind before main(), once per group instead of once per case
  tvg_begin vg_group_pc -- "${pbg_vg[@]}"
  tvg vg_vbj_merged -- test_vbjacobi -mode super -maxgen 9 -maxbs 8 -nblocks_local 30 -pc_vbjacobi_blocking supervariable --grep '^OK'
  tvg vg_vbj_natural_mixed -- test_vbjacobi -mode mixed -maxgen 12 -nblocks_local 30 -pivot -compare_petsc --grep '^OK'
  tvg vg_vbj_uniform_baijksparse -- test_vbjacobi -mode uniform -bs 5 -mat_type baijksparse -nblocks_local 20 --grep '^OK'
  tvg vg_vbj_singular_fails -- test_vbjacobi -mode mixed -singular_block 3 --grep 'DIVERGED_PC_FAILED'
  tvg vg_vbj_overflow_identity -- test_vbjacobi -mode mixed -maxgen 8 -overflow_block 3 -pc_vbjacobi_singular identity --grep '^OK'
  tvg vg_vbj_nan_fails -- test_vbjacobi -mode mixed -nan_block 0 --grep 'holds NaN or Inf'
  tvg vg_vbj_reuse -- test_vbjacobi_reuse -n 80 --grep '^OK'
  tvg vg_vbjp_half_cond -- test_vbjacobi_precision -mode cond -nblocks_local 60 -maxgen 6 -pc_vbjacobi_precision half -check_error -ksp_pc_side left --grep '^OK'
  # issue 26: half/single storage widened for the blocks it cannot hold
  tvg vg_vbjp_single_cond_solve -- test_vbjacobi_precision -mode cond -nblocks_local 60 -maxgen 6 -pc_vbjacobi_precision single -check_error -ksp_type gmres -ksp_pc_side left -ksp_rtol 1e-12 -compare_host --grep 'relative error of the solution' --grep '^OK'
  # Cases whose call fails on purpose: the program catches the error (-err_continue, tests/test_refusal.h), prints its
  # message, frees what it made and exits 0, so that they run in a group too (an error that reaches main() ends the
  # process through MPI_Abort, which frees nothing); the group's leak check then covers the error path as well
  tvg vg_vbj_singular_error -- test_vbjacobi -mode uniform -bs 2 -pc_vbjacobi_blocking matrix -singular_block 7 -ksp_error_if_not_converged -err_continue --grep 'KSPSetUp\(\) refused .*zero or tiny pivot' --grep '^OK' --nogrep "$pbg_vg_kinds"
  tvg_end
  tvg_begin vg_group_mat -- "${pbg_vg[@]}"
  tvg vg_bk_route -- test_baijksparse -bs 3 --grep '^OK'
  for op in axpy copy; do
    tvg vg_bk_${op}_different -- test_baijksparse_axpy -op $op --grep '^OK'
  done
  tvg vg_bk_coo -- test_baijksparse_coo -bs 3 -nb 4 --grep '^OK'
  # session 20: the wrapped factorizations (the saved phases in a container of the factor, freed with it)
  tvg vg_bk_factor -- test_baijksparse_factor -bs 3 -nb 5 --grep 'factors of Y refresh the host copy: yes' --grep '^OK'
  # issue 26: a new block before MatSetValuesCOO() refused, the error caught and the matrix used again
  tvg vg_bk_coo_insert_unassembled_seq -- test_baijksparse_coo -mat_type seqbaijksparse -err insert_unassembled -bs 3 -nb 3 --grep '^\[0\] refused' --grep '^OK'
  tvg vg_bk_coo_err_range_continue -- test_baijksparse_coo -bs 2 -nb 3 -err range -err_continue --grep 'refused' --grep '^OK'
  # failing on purpose, caught (as in vg_group_pc): a bad kernel option; the zero-rows range check on the seq host path
  # (the steps then run on the same matrix)
  tvg vg_bk_bad_ept -- test_baijksparse -bs 3 -mat_baijksparse_ept 7 -err_continue --grep 'MatConvert\(\) refused .*cannot run this matrix' --grep '^OK' --nogrep "$pbg_vg_kinds"
  for op in "" -bad_row_columns; do
    tvg vg_bk_values_err_zerorows${op:+columns}_row18 -- test_baijksparse_values -bs 3 -nb 6 -bad_row 18 $op -err_continue --grep 'refused .*row 18 out of range \[0, 18\)' --grep '^OK' --nogrep 'did not fail' --nogrep "$pbg_vg_kinds"
  done
  tvg_end
  # issue 26: vbjacobi's setters and options after a setup (a failed setup recovered with the identity policy), zero
  # variable block sizes, the size-check error path
  tvg_begin vg_group_pc_setters -- "${pbg_vg[@]}"
  for c in setters options zerosizes; do
    tvg vg_vbjs_$c -- test_vbjacobi_setters -case $c -n 32 --grep '^OK'
  done
  tvg vg_vbjs_badsizes -- test_vbjacobi_setters -case badsizes -n 32 -malloc_dump --grep 'larger than the maximum block size 2' --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
  tvg_end
  # issue 26: KSPIDRS with KSP_NORM_NONE ending in a happy breakdown, and as GAMG's level smoother in PETSc's ksp ex2
  tvg_begin vg_group_ksp -- "${pbg_vg[@]}"
  tvg vg_idrs_norm_none_exact -- test_idrs -problem line -n 1 -beta 3 -ksp_idrs_s 4 -pc_type jacobi -ksp_norm_type none -ksp_convergence_test skip -ksp_max_it 5 -compare_norm_none --grep 'PASS no norm' --grep '^OK'
  tvg vg_idrs_gamg_smoother -- ex2 -m 16 -n 16 -dll_append "$PBG_LIB" -ksp_type fgmres -pc_type gamg -mg_levels_ksp_type idrs -ksp_converged_reason --grep 'Linear solve converged'
  tvg_end
  tvg_begin vg_group_mpi2 -n 2 -- "${pbg_vg[@]}"
  tvg vg_vbjp_half_cond_solve_mpi2 -- test_vbjacobi_precision -mode cond -nblocks_local 40 -maxgen 6 -pc_vbjacobi_precision half -check_error -ksp_type gmres -ksp_pc_side left -ksp_rtol 1e-12 --grep '^OK'
  tvg vg_vbjs_options_mpi2 -- test_vbjacobi_setters -case options -n 32 --grep '^OK'
  tvg vg_idrs_s_capped_mpi2 -- test_idrs -problem line -n 3 -beta 3 -ksp_idrs_s 4 -pc_type jacobi -compare_exact -compare_idr -ksp_view --grep 'the last solve ran with s = 3' --grep '^OK'
  tvg vg_vbj_mpi2_merged -- test_vbjacobi -mode super -maxgen 6 -maxbs 12 -nblocks_local 20 --grep '^OK'
  tvg_end
  tvg_begin vg_group_mpi2_mat -n 2 -- "${pbg_vg[@]}"
  tvg vg_bk_coo_insert_unassembled_mpi2 -- test_baijksparse_coo -err insert_unassembled -bs 2 -nb 3 --grep '^\[1\] refused .*on another rank' --grep '^OK'
  tvg vg_bk_route_mpi2 -- test_baijksparse -bs 4 -seed 1 --grep '^OK'
  for op in axpy copy; do
    tvg vg_bk_${op}_different_mpi2 -- test_baijksparse_axpy -op $op -x_mat_type baijksparse --grep '^OK'
  done
  tvg vg_bk_coo_mpi2 -- test_baijksparse_coo -bs 2 -nb 4 --grep '^OK'
  tvg vg_bk_coo_new_mpi2 -- test_baijksparse_coo -bs 2 -nb 3 -assemble_between -duplicate --grep '^OK'
  # issue 26 (matrix): the COO pattern guard with the ghost columns moved on 2 ranks, failing on purpose, caught (as in
  # vg_group_pc): refused on both ranks, then the steps run on the same matrix
  tvg vg_bk_coo_repattern_ghost_mpi2 -- test_baijksparse_coo -err repattern_ghost -bs 2 -nb 3 -err_continue --grep '^\[0\] MatSetValuesCOO\(\) refused .*as many blocks' --grep '^\[1\] MatSetValuesCOO\(\) refused .*as many blocks' --grep '^OK' --nogrep "$pbg_vg_kinds"
  tvg_end
  # the groups' own check: multirun charges a leak and an invalid read to the case that made them, and the next case
  # of the group still passes
  pbg_multirun_selfcheck() {
    local cases=$PBG_WORKDIR/multirun_selfcheck.cases out
    printf '%s\n' 'leaky test_multirun_selfcheck -leak' 'badread test_multirun_selfcheck -invalid_read' 'clean test_multirun_selfcheck' > "$cases"
    out=$(pbg_run 1 "${pbg_vg[@]}" "$pbg_tb/multirun" "$cases")
    echo "$out"
    grep -qE '^#### multirun end leaky status 0 errors [1-9][0-9]* leaked 1000 ' <<< "$out" \
      && grep -qE '^#### multirun end badread status 0 errors [1-9][0-9]* leaked 0 ' <<< "$out" \
      && grep -qE '^#### multirun end clean status 0 errors 0 leaked 0 ' <<< "$out"
  }
  tcheck vg_multirun_selfcheck -- pbg_multirun_selfcheck
  unset pbg_vg pbg_vg_kinds pbg_tb op c
else
  pbg_begin memcheck_host && pbg_report memcheck_host SKIP "no valgrind (or PBG_MEMCHECK=0)"
fi
