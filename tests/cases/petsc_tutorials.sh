# PETSc's own tutorial ksp/ex2 (5-point Laplacian), built unmodified, with our library loaded by -dll_append.
# A 5-point Laplacian has only 1x1 natural supervariables, so vbjacobi with natural blocking must take exactly as
# many iterations as jacobi (the default blocking merges them into larger blocks).
pbg_iterations() { sed -n 's/.*iterations \([0-9][0-9]*\).*/\1/p' | tail -n 1; }

check_ex2_matches_jacobi() { # NP EXTRA-ARGS...
  local np=$1 its_vb its_j out
  shift
  out=$(pbg_run "$np" ex2 -m 40 -n 40 -dll_append "$PBG_LIB" -pc_type vbjacobi -pc_vbjacobi_blocking natural -ksp_view "$@") || { echo "$out"; return 1; }
  echo "$out"
  grep -q 'type: vbjacobi' <<< "$out" || { echo "vbjacobi was not used"; return 1; }
  grep -q 'histogram (size:count): 1:' <<< "$out" || { echo "expected 1x1 blocks"; return 1; }
  its_vb=$(pbg_iterations <<< "$out")
  out=$(pbg_run "$np" ex2 -m 40 -n 40 -pc_type jacobi "$@") || { echo "$out"; return 1; }
  echo "$out"
  its_j=$(pbg_iterations <<< "$out")
  echo "iterations: vbjacobi $its_vb, jacobi $its_j"
  [ -n "$its_vb" ] && [ "$its_vb" = "$its_j" ]
}
tcheck ex2_dll_append_vbjacobi_eq_jacobi -- check_ex2_matches_jacobi 1
tcheck ex2_dll_append_vbjacobi_eq_jacobi_mpi2 -- check_ex2_matches_jacobi 2
tcheck ex2_dll_append_idr -- check_ex2_matches_jacobi 1 -ksp_type idr
tcase ex2_dll_append_help -- ex2 -dll_append "$PBG_LIB" -pc_type vbjacobi -help --grep 'pc_vbjacobi_max_block_size' --grep 'pc_vbjacobi_blocking'
tcase ex2_dll_append_baijksparse -- ex2 -dll_append "$PBG_LIB" -mat_type baijksparse -pc_type vbjacobi -ksp_converged_reason --grep 'CONVERGED'
tcase ex2_dll_append_log_view -- ex2 -dll_append "$PBG_LIB" -pc_type vbjacobi -log_view --grep 'VBJacInvert' --grep 'VBJacApply'
# the same on the GPU: aijcusparse matrix and CUDA vectors, setup on the host
tcheck ex2_gpu_aijcusparse_vbjacobi_eq_jacobi --gpu -- check_ex2_matches_jacobi 1 -mat_type aijcusparse -vec_type cuda
tcase ex2_gpu_pc_view_says_gpu --gpu -- ex2 -dll_append "$PBG_LIB" -pc_type vbjacobi -mat_type aijcusparse -vec_type cuda -ksp_view --grep 'setup ran on: GPU \(device CSR of the seqaijcusparse' --grep 'setup kernel: merged extract\+GJE'
tcase ex2_gpu_pc_view_host_forced --gpu -- ex2 -dll_append "$PBG_LIB" -pc_type vbjacobi -pc_vbjacobi_use_gpu 0 -mat_type aijcusparse -vec_type cuda -ksp_view --grep 'setup ran on: host \(values read from the host copy of the seqaijcusparse'
# the default blocking merges the Laplacian's rows into blocks of up to 32 rows: fewer iterations than jacobi
check_ex2_merged_beats_jacobi() {
  local its_vb its_j out
  out=$(pbg_run 1 ex2 -m 40 -n 40 -dll_append "$PBG_LIB" -pc_type vbjacobi -ksp_view) || { echo "$out"; return 1; }
  echo "$out"
  grep -q 'blocks from: supervariable' <<< "$out" || { echo "expected merged supervariables"; return 1; }
  grep -q 'block sizes: min [0-9]*, mean 3[0-9]\.' <<< "$out" || { echo "expected a mean block of 30..32 rows"; return 1; }
  its_vb=$(pbg_iterations <<< "$out")
  out=$(pbg_run 1 ex2 -m 40 -n 40 -pc_type jacobi) || { echo "$out"; return 1; }
  its_j=$(pbg_iterations <<< "$out")
  echo "iterations: vbjacobi (merged) $its_vb, jacobi $its_j"
  [ -n "$its_vb" ] && [ -n "$its_j" ] && [ "$its_vb" -lt "$its_j" ]
}
tcheck ex2_dll_append_merged_beats_jacobi -- check_ex2_merged_beats_jacobi
