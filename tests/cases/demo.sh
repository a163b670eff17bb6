# Cases for the example programs: examples/demo (multi-species reaction-diffusion as a block matrix)
# and examples/solve_file (linear system from a PETSc binary file). Sourced by tests/run.sh.
# shellcheck shell=bash

# --- demo: the main job -----------------------------------------------------------------------------
tcase demo_vbjacobi --grep 'converged reason +CONVERGED' --grep 'iterations +[0-9]+' \
      --grep 'matrix +seqbaijksparse, block size 4' --grep 'PC type +vbjacobi' \
      -- demo -ksp_type idr -pc_type vbjacobi -check_converged

tcase demo_jacobi --grep 'converged reason +CONVERGED' --grep 'iterations +[0-9]+' --grep 'PC type +jacobi' \
      -- demo -ksp_type idr -pc_type jacobi -use_gpu 0

# iterations of one demo run (args: demo options) on stdout; the run's output goes to stderr (the log)
demo_iterations() {
  local out
  out=$(pbg_run 1 demo "$@") || { echo "$out" >&2; return 1; }
  echo "$out" >&2
  sed -n 's/^  iterations  *\([0-9][0-9]*\).*/\1/p' <<< "$out" | head -n 1
}
demo_check_fewer_iterations() {
  local vb j
  vb=$(demo_iterations -ksp_type idr -pc_type vbjacobi -use_gpu 0 -da_grid_x 64 -da_grid_y 64) || return 1
  j=$(demo_iterations -ksp_type idr -pc_type jacobi -use_gpu 0 -da_grid_x 64 -da_grid_y 64) || return 1
  echo "iterations: vbjacobi ${vb:-?}, jacobi ${j:-?}"
  [[ "$vb" =~ ^[0-9]+$ && "$j" =~ ^[0-9]+$ ]] || { echo "could not parse the iteration counts"; return 1; }
  # "clearly weaker": point Jacobi needs at least 1.5 times the iterations of block Jacobi
  [ $((2 * j)) -ge $((3 * vb)) ] || { echo "vbjacobi is not clearly better than jacobi"; return 1; }
}
tcheck demo_vbjacobi_fewer_iterations_than_jacobi -- demo_check_fewer_iterations

tcase demo_mpi2_vbjacobi -n 2 --grep 'converged reason +CONVERGED' --grep '2 MPI ranks' \
      --grep 'matrix +mpibaijksparse' -- demo -ksp_type idr -pc_type vbjacobi -check_converged

tcase demo_aij_vbjacobi --grep 'converged reason +CONVERGED' --grep 'matrix +seqaij, block size 4' \
      -- demo -dm_mat_type aij -ksp_type idr -pc_type vbjacobi -check_converged

# on an AIJ matrix, natural supervariable detection must find the K x K cell blocks: same blocks, same iterations
demo_check_supervariable() {
  local blk sv
  blk=$(demo_iterations -dm_mat_type baijksparse -da_grid_x 64 -da_grid_y 64 -ksp_type idr -pc_type vbjacobi -pc_vbjacobi_blocking matrix) || return 1
  sv=$(demo_iterations -dm_mat_type aij -da_grid_x 64 -da_grid_y 64 -ksp_type idr -pc_type vbjacobi -pc_vbjacobi_blocking natural -ksp_view) || return 1
  echo "iterations: matrix blocking on baijksparse ${blk:-?}, natural supervariable blocking on aij ${sv:-?}"
  [[ "$blk" =~ ^[0-9]+$ ]] && [ "$blk" = "$sv" ]
}
tcheck demo_aij_supervariable_same_as_matrix_blocks -- demo_check_supervariable

tcase demo_baij_gmres_k8 --grep 'converged reason +CONVERGED' --grep 'block size 8' \
      -- demo -nspecies 8 -da_grid_x 48 -da_grid_y 48 -dm_mat_type baij -ksp_type gmres -pc_type vbjacobi -check_converged

tcase demo_3d_k3_bcgs --grep 'converged reason +CONVERGED' --grep '\(3-D\)' --grep 'block size 3' \
      -- demo -dim 3 -nspecies 3 -da_grid_x 20 -da_grid_y 20 -da_grid_z 20 -ksp_type bcgs -pc_type vbjacobi -check_converged

tcase demo_bad_nspecies --fail --grep 'nspecies' -- demo -nspecies 0

# GPU vectors (skipped on machines without a CUDA device)
tcase demo_gpu_vbjacobi --gpu --grep 'GPU +yes' --grep 'vectors seqcuda' --grep 'converged reason +CONVERGED' \
      -- demo -ksp_type idr -pc_type vbjacobi -check_converged
tcase demo_gpu_mpi2_vbjacobi --gpu -n 2 --grep 'GPU +yes' --grep 'vectors mpicuda' --grep 'converged reason +CONVERGED' \
      -- demo -ksp_type idr -pc_type vbjacobi -check_converged

# --- solve_file: round trip through a PETSc binary file ------------------------------------------------
demo_check_solve_file_roundtrip() {
  local f="$PBG_LOGDIR/demo_solve_file_example.bin" g="$PBG_LOGDIR/demo_solve_file_norhs.bin" out
  rm -f "$f" "$f.info" "$g" "$g.info"
  pbg_run 1 solve_file -write_example "$f" || return 1
  out=$(pbg_run 1 solve_file -f "$f" -mat_type baijksparse -ksp_type idr -pc_type vbjacobi -check_converged) || { echo "$out"; return 1; }
  echo "$out"
  grep -qE 'right-hand side +from the file' <<< "$out" || { echo "rhs not read from the file"; return 1; }
  grep -qE 'block size 3' <<< "$out" || { echo "block size 3 not kept"; return 1; }
  grep -qE 'converged reason +CONVERGED' <<< "$out" || return 1
  # no right-hand side in the file: b = A * ones; MPI with 2 ranks and a point-block Jacobi comparison
  pbg_run 1 solve_file -write_example "$g" -example_rhs 0 -example_bs 5 -example_n 16 || return 1
  out=$(pbg_run 2 solve_file -f "$g" -mat_type baijksparse -ksp_type gmres -pc_type vbjacobi -check_converged) || { echo "$out"; return 1; }
  echo "$out"
  grep -qE 'b = A \* ones' <<< "$out" || { echo "expected b = A * ones"; return 1; }
  grep -qE 'block size 5' <<< "$out" || { echo "block size 5 not kept"; return 1; }
  rm -f "$f" "$f.info" "$g" "$g.info"
}
tcheck demo_solve_file_roundtrip -- demo_check_solve_file_roundtrip

tcase demo_solve_file_nofile --fail --grep '\-f FILE' -- solve_file
