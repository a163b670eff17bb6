# MATSOLVERPBGDENSE, the coarse-grid solve on the GPU (issue 40; sourced by tests/run.sh): test_pbgdense against PETSc's
# LU of the same baijksparse matrix (MatSolve, its transpose, MatMatSolve, its transpose; a second numeric factorization
# after the values change), bs 1..5; a zero pivot gives PETSc's factor error and PCLU's DIVERGED_PC_FAILED; refusals;
# and snes ex19's geometric multigrid with it as the coarse solve (1 rank, and under PCREDUNDANT on 2): the same linear
# iterations as PETSc's LU.
# shellcheck shell=bash
for a in "1 9" "2 25" "3 40" "4 17" "5 30"; do
  read -r bs mb <<< "$a"
  tcase pbgdense_bs$bs -- test_pbgdense -bs $bs -mb $mb -seed $bs --grep "^pbgdense bs $bs n $((bs * mb)) factor 2 \(seqdense\): .*: ok$" --grep '^OK'
  tcase pbgdense_gpu_bs$bs --gpu -- test_pbgdense -bs $bs -mb $mb -seed $bs -vec_type cuda --grep "^pbgdense bs $bs n $((bs * mb)) factor 2 \(seqdensecuda\): .*: ok$" --grep '^OK'
done
tcase pbgdense_gpu_n2000 --gpu -- test_pbgdense -bs 4 -mb 500 -vec_type cuda -nrhs 5 --grep '^pbgdense bs 4 n 2000 factor 2 \(seqdensecuda\): .*: ok$' --grep '^OK'
tcase pbgdense_singular -- test_pbgdense -bs 2 -mb 20 -singular --grep '^singular: factor error MAT_FACTOR_NUMERIC_ZEROPIVOT, zero pivot row' --grep '^singular: KSP DIVERGED_PC_FAILED' --grep '^OK'
tcase pbgdense_gpu_singular --gpu -- test_pbgdense -bs 3 -mb 20 -singular -vec_type cuda --grep '^singular: factor error MAT_FACTOR_NUMERIC_ZEROPIVOT, zero pivot row' --grep '^singular: KSP DIVERGED_PC_FAILED' --grep '^OK'
tcase pbgdense_singular_error --fail -- test_pbgdense -bs 2 -mb 20 -singular -ksp_error_if_not_converged --grep 'KSPSolve has not converged with PCFailedReason FACTOR_NUMERIC_ZEROPIVOT'
tcase pbgdense_malloc_dump -- test_pbgdense -bs 3 -mb 10 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
# snes ex19, 5-level PCMG on baijksparse, the coarse LU by PETSc and by pbgdense: the same linear iterations
pbg_ex19_coarse_same_its() { # NP OPTION-PREFIX (mg_coarse_, or mg_coarse_redundant_ under PCREDUNDANT) extra options...
  local np=$1 pfx=$2 a b
  shift 2
  local base=(ex19 -da_refine 4 -dll_append "$PBG_LIB" -snes_converged_reason -ksp_converged_reason -pc_type mg -pc_mg_levels 5 -dm_mat_type baijksparse -mg_levels_pc_type vbjacobi -ksp_type fgmres "$@")
  a=$(pbg_run "$np" "${base[@]}") || { echo "$a"; return 1; }
  b=$(pbg_run "$np" "${base[@]}" -${pfx}pc_factor_mat_solver_type pbgdense -mg_coarse_ksp_view) || { echo "$b"; return 1; }
  grep -E 'solver type|package used|type: redundant' <<< "$b" | sort | uniq -c
  a=$(grep -oE 'Linear solve converged due to [A-Z_]+ iterations [0-9]+' <<< "$a")
  echo "PETSc's LU: $(awk '{s += $NF} END {print s}' <<< "$a") linear iterations, pbgdense: $(grep -oE 'Linear solve converged due to [A-Z_]+ iterations [0-9]+' <<< "$b" | awk '{s += $NF} END {print s}')"
  grep -qE 'package used to perform factorization: pbgdense' <<< "$b" || return 1
  [ -n "$a" ] && [ "$a" = "$(grep -oE 'Linear solve converged due to [A-Z_]+ iterations [0-9]+' <<< "$b")" ]
}
if [ -x "$PBG_ROOT/bench/bin/ex19" ]; then
  tcheck tut_ex19_mg_coarse_pbgdense -- pbg_ex19_coarse_same_its 1 mg_coarse_
  tcheck tut_gpu_ex19_mg_coarse_pbgdense --gpu -- pbg_ex19_coarse_same_its 1 mg_coarse_ -dm_vec_type cuda
  # 2 ranks: PCMG's coarse solve is PCREDUNDANT, whose copy of the coarse operator on each rank is seqbaijksparse
  tcheck tut_ex19_mg_coarse_pbgdense_redundant_np2 -- pbg_ex19_coarse_same_its 2 mg_coarse_redundant_
  tcheck tut_gpu_ex19_mg_coarse_pbgdense_redundant_np2 --gpu -- pbg_ex19_coarse_same_its 2 mg_coarse_redundant_ -dm_vec_type cuda -use_gpu_aware_mpi 0
fi
# the time of a solve on the device, n 1156 (snes ex19's 17^2 coarse grid with 4 fields) and 4096, against PETSc's LU
tcase pbgdense_gpu_time_n1156 --gpu -- test_pbgdense -bs 4 -mb 289 -vec_type cuda -repeat 2000 --grep '^time of a MatSolve, n 1156, pbgdense: [0-9.]+ us' --grep '^OK'
tcase pbgdense_gpu_time_n4096 --gpu -- test_pbgdense -bs 4 -mb 1024 -vec_type cuda -repeat 1000 --grep '^time of a MatSolve, n 4096, pbgdense: [0-9.]+ us' --grep '^OK'
# chosen by name only: PETSc's LU stays the default for baijksparse; a plain seqbaij takes the host path by name
pbg_pbgdense_not_default() {
  local out
  out=$(pbg_run 1 ex19 -da_refine 2 -dll_append "$PBG_LIB" -pc_type mg -dm_mat_type baijksparse -mg_levels_pc_type vbjacobi -mg_coarse_ksp_view -snes_max_it 1) || { echo "$out"; return 1; }
  grep -E 'package used to perform factorization' <<< "$out" | sort | uniq -c
  grep -qE 'package used to perform factorization: petsc' <<< "$out" && ! grep -qE 'package used to perform factorization: pbgdense' <<< "$out"
}
[ -x "$PBG_ROOT/bench/bin/ex19" ] && tcheck pbgdense_not_default -- pbg_pbgdense_not_default
tcase pbgdense_seqbaij_host -- ex19 -da_refine 2 -dll_append "$PBG_LIB" -pc_type mg -dm_mat_type baij -mg_coarse_pc_factor_mat_solver_type pbgdense -mg_coarse_ksp_view -snes_max_it 1 --grep 'package used to perform factorization: pbgdense' --grep 'type: seqdense$'
