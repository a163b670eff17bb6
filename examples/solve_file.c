/*
  NAME
    solve_file - solve A x = b with A (and optionally b) read from a PETSc binary file

  SYNOPSIS
    solve_file -f FILE [-mat_type TYPE] [-mat_block_size BS] [-use_gpu <bool>] [-repeat N]
               [-check_converged] [-compare_host [-compare_host_tol N]] [KSP and PC options]
    solve_file -write_example FILE [-example_n N] [-example_bs BS] [-example_rhs <bool>]

  DESCRIPTION
    With -f, reads a matrix with MatLoad() (the matrix is created with MatSetFromOptions(), so
    -mat_type baijksparse, -mat_type aijcusparse, ... select its type, and -mat_block_size its block
    size; the .info file that PETSc writes beside a binary file may also carry -matload_block_size).
    If the file holds a vector after the matrix, it is the right-hand side; otherwise b = A * ones.
    The system is solved with KSPSetFromOptions() (e.g. -ksp_type idr -pc_type vbjacobi), and the
    iterations, converged reason, true relative residual ||b - A x|| / ||b||, and the setup and solve
    times are printed. When a CUDA device is present and the matrix type has no explicit vector type,
    CUDA vectors are used (-use_gpu 0 keeps them on the host).

    With -compare_host, the system is then solved again with the same KSP and PC options and the same
    right-hand side, but with the matrix loaded as a host matrix (aij, or baij for the block types, with
    the same block size) and host vectors, so that the whole solve, the preconditioner included, takes
    the host path; the two iteration counts are printed, and the program fails when they differ by
    more than -compare_host_tol (default 2) or when only one of the solves converged.

    With -write_example FILE, writes a small nonsymmetric block-structured test matrix (a 2-D
    convection-diffusion operator on an N x N grid with BS coupled components per grid point, dense
    nonsymmetric BS x BS coupling blocks) and, unless -example_rhs 0, a right-hand side, so that a
    test can round-trip through a file without external data.

  EXAMPLES
    solve_file -write_example /tmp/ex.bin
    solve_file -f /tmp/ex.bin -mat_type baijksparse -ksp_type idr -pc_type vbjacobi
    solve_file -f /tmp/ex.bin -mat_type aijcusparse -ksp_type gmres -pc_type vbjacobi -compare_host
    mpiexec -n 2 solve_file -f matrix.petsc -mat_type aijcusparse -ksp_type gmres -pc_type vbjacobi
*/
static char help[] = "Solves A x = b with A (and optionally b) loaded from a PETSc binary file.\n"
                     "Options:\n"
                     "  -f <file>                PETSc binary file holding a matrix, optionally followed by a vector\n"
                     "  -mat_type <type>         type of the loaded matrix (e.g. baijksparse, aij, aijcusparse)\n"
                     "  -mat_block_size <bs>     block size of the loaded matrix\n"
                     "  -use_gpu <bool>          CUDA vectors when a device is present (default true)\n"
                     "  -repeat <n>              solve n times, report the first and the best solve time\n"
                     "  -check_converged         exit with an error when the KSP does not converge\n"
                     "  -compare_host            solve again on the host (host matrix and vectors), compare the iterations\n"
                     "  -compare_host_tol <n>    largest allowed difference of the iteration counts (default 2)\n"
                     "  -write_example <file>    write a small test matrix (and rhs) to <file> and exit\n"
                     "  -example_n <n>           grid points per direction of the example (default 20)\n"
                     "  -example_bs <bs>         components per grid point of the example (default 3)\n"
                     "  -example_rhs <bool>      also write a right-hand side (default true)\n\n";

#include <petscksp.h>
#include <petscblockgpu.h>
#include <cuda_runtime_api.h>

static PetscReal Hash01(PetscInt a, PetscInt b)
{
  unsigned int h = 2166136261u;
  h              = (h ^ (unsigned int)(a + 3)) * 16777619u;
  h              = (h ^ (unsigned int)(b + 11)) * 16777619u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (PetscReal)(h & 0xffffff) / (PetscReal)0x1000000;
}

/* a 2-D convection-diffusion operator with bs coupled components: diagonal blocks dense and nonsymmetric */
static PetscErrorCode WriteExample(const char file[], PetscInt n, PetscInt bs, PetscBool withrhs)
{
  Mat          A;
  Vec          b;
  PetscViewer  viewer;
  PetscInt     rstart, rend, nb = n * n;
  PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCheck(n >= 2 && bs >= 1 && bs <= 32, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "need -example_n >= 2 and 1 <= -example_bs <= 32");
  PetscCall(MatCreateBAIJ(PETSC_COMM_WORLD, bs, PETSC_DECIDE, PETSC_DECIDE, nb * bs, nb * bs, 5, NULL, 4, NULL, &A));
  PetscCall(MatSetOption(A, MAT_ROW_ORIENTED, PETSC_TRUE));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt row = rstart / bs; row < rend / bs; row++) {
    PetscInt i = row % n, j = row / n, nbr[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
    /* diagonal block: 4 (diffusion) + dense coupling strong enough that point Jacobi is poor */
    for (PetscInt r = 0; r < bs; r++) {
      PetscReal rowsum = 0;
      for (PetscInt s = 0; s < bs; s++) {
        if (r == s) continue;
        v[r * bs + s] = -(1.0 + 3.0 * Hash01(r * 37 + s, row % 17)) * (r > s ? 1.0 : 0.5);
        rowsum += PetscAbsScalar(v[r * bs + s]);
      }
      v[r * bs + r] = 4.0 + 0.1 + 0.9 * rowsum;
    }
    PetscCall(MatSetValuesBlocked(A, 1, &row, 1, &row, v, INSERT_VALUES));
    /* neighbour blocks: diffusion + upwind convection, diagonal in the components */
    for (PetscInt d = 0; d < 4; d++) {
      PetscInt ni = nbr[d][0], nj = nbr[d][1], col;
      if (ni < 0 || ni >= n || nj < 0 || nj >= n) continue;
      col = nj * n + ni;
      for (PetscInt q = 0; q < bs * bs; q++) v[q] = 0;
      for (PetscInt r = 0; r < bs; r++) v[r * bs + r] = (d == 0) ? -1.5 : -0.5 - (d == 1 ? 0.0 : 0.5 * Hash01(r, d));
      PetscCall(MatSetValuesBlocked(A, 1, &row, 1, &col, v, INSERT_VALUES));
    }
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_WRITE, &viewer));
  PetscCall(MatView(A, viewer));
  if (withrhs) {
    PetscCall(MatCreateVecs(A, NULL, &b));
    PetscCall(VecGetOwnershipRange(b, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) PetscCall(VecSetValue(b, i, 1.0 + PetscSinReal(0.01 * i), INSERT_VALUES));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    PetscCall(VecView(b, viewer));
    PetscCall(VecDestroy(&b));
  }
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wrote %s: %" PetscInt_FMT " x %" PetscInt_FMT " matrix, block size %" PetscInt_FMT "%s\n", file, nb * bs, nb * bs, bs, withrhs ? ", with a right-hand side" : ", no right-hand side"));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -compare_host: the same solve (same options, same right-hand side) with the matrix loaded again from the file as a
   host matrix, aij or baij with the block size of A, and host vectors, so that every part of it takes the host path */
static PetscErrorCode SolveOnHost(const char file[], Mat A, Vec b, PC pcd, PetscInt *its, KSPConvergedReason *reason, PetscReal *relres, char htype[], size_t len, PetscInt *blocks_differ)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Mat                Ah;
  Vec                xh, bh, rh;
  KSP                ksp;
  PetscViewer        viewer;
  PetscInt           m, n, M, N, bs, nb, nbh;
  const char        *tname;
  const PetscScalar *src;
  PetscScalar       *dst;
  PetscReal          rn, bn;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscObjectGetType((PetscObject)A, &tname));
  PetscCall(MatCreate(comm, &Ah));
  PetscCall(MatSetSizes(Ah, m, n, M, N));
  PetscCall(MatSetBlockSize(Ah, bs));
  PetscCall(MatSetType(Ah, (tname && strstr(tname, "baij")) ? MATBAIJ : MATAIJ));
  PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &viewer));
  PetscCall(MatLoad(Ah, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(PetscObjectGetType((PetscObject)Ah, &tname));
  PetscCall(PetscStrncpy(htype, tname, len));
  PetscCall(MatCreateVecs(Ah, &xh, &bh));
  PetscCall(VecDuplicate(bh, &rh));
  PetscCall(VecGetLocalSize(b, &nb));
  PetscCall(VecGetLocalSize(bh, &nbh));
  PetscCheck(nb == nbh, PETSC_COMM_SELF, PETSC_ERR_PLIB, "host vector has %" PetscInt_FMT " local rows, the original %" PetscInt_FMT, nbh, nb);
  PetscCall(VecGetArrayRead(b, &src));
  PetscCall(VecGetArrayWrite(bh, &dst));
  PetscCall(PetscArraycpy(dst, src, nb));
  PetscCall(VecRestoreArrayWrite(bh, &dst));
  PetscCall(VecRestoreArrayRead(b, &src));

  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, Ah, Ah));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  *blocks_differ = -1; /* not vbjacobi */
  {
    PC        pch;
    PetscBool vbd, vbh;

    PetscCall(KSPGetPC(ksp, &pch));
    PetscCall(PetscObjectTypeCompare((PetscObject)pcd, PCVBJACOBI, &vbd));
    PetscCall(PetscObjectTypeCompare((PetscObject)pch, PCVBJACOBI, &vbh));
    if (vbd && vbh) { /* the blocks of both paths, rank by rank: the number of ranks whose blocks differ */
      PetscInt        nd, nh;
      const PetscInt *sd, *sh;
      PetscBool       same;

      PetscCall(PCVBJacobiGetBlocks(pcd, &nd, &sd));
      PetscCall(PCVBJacobiGetBlocks(pch, &nh, &sh));
      same = (PetscBool)(nd == nh);
      if (same) PetscCall(PetscArraycmp(sd, sh, nd + 1, &same));
      nd = same ? 0 : 1;
      PetscCallMPI(MPIU_Allreduce(&nd, blocks_differ, 1, MPIU_INT, MPI_SUM, comm));
    }
  }
  PetscCall(VecSet(xh, 0.0));
  PetscCall(KSPSolve(ksp, bh, xh));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(MatMult(Ah, xh, rh));
  PetscCall(VecAYPX(rh, -1.0, bh));
  PetscCall(VecNorm(rh, NORM_2, &rn));
  PetscCall(VecNorm(bh, NORM_2, &bn));
  *relres = bn > 0 ? rn / bn : rn;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&rh));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&bh));
  PetscCall(MatDestroy(&Ah));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Synchronize(PetscBool gpu)
{
  PetscFunctionBeginUser;
  if (gpu) {
    cudaError_t err = cudaDeviceSynchronize();
    PetscCheck(err == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "cudaDeviceSynchronize(): %s", cudaGetErrorString(err));
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char               file[PETSC_MAX_PATH_LEN] = "", out[PETSC_MAX_PATH_LEN] = "";
  PetscBool          flg, wflg, use_gpu = PETSC_TRUE, gpu = PETSC_FALSE, withrhs = PETSC_TRUE, check = PETSC_FALSE, haverhs = PETSC_FALSE, compare = PETSC_FALSE;
  PetscInt           n = 20, ebs = 3, M, bs, its, repeat = 1, hdr[2], cnt = 0, cmp_tol = 2;
  Mat                A;
  Vec                b, x, r;
  KSP                ksp;
  PC                 pc;
  PetscViewer        viewer;
  KSPConvergedReason reason;
  PetscReal          rnorm, bnorm;
  PetscLogDouble     t0, t_load, t_pc, t_ksp, t_first = 0, t_best = 0;
  MatType            mattype;
  VecType            vectype;
  KSPType            ksptype;
  PCType             pctype;
  PetscMPIInt        size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Solve a linear system from a file", "solve_file");
  PetscCall(PetscOptionsString("-f", "PETSc binary file with the matrix (and optionally the rhs)", "solve_file", file, file, sizeof(file), &flg));
  PetscCall(PetscOptionsString("-write_example", "write a small test matrix to this file and exit", "solve_file", out, out, sizeof(out), &wflg));
  PetscCall(PetscOptionsInt("-example_n", "grid points per direction of the example", "solve_file", n, &n, NULL));
  PetscCall(PetscOptionsInt("-example_bs", "components per grid point of the example", "solve_file", ebs, &ebs, NULL));
  PetscCall(PetscOptionsBool("-example_rhs", "also write a right-hand side", "solve_file", withrhs, &withrhs, NULL));
  PetscCall(PetscOptionsBool("-use_gpu", "CUDA vectors when a device is present", "solve_file", use_gpu, &use_gpu, NULL));
  PetscCall(PetscOptionsInt("-repeat", "number of solves", "solve_file", repeat, &repeat, NULL));
  PetscCall(PetscOptionsBool("-check_converged", "error exit when the KSP does not converge", "solve_file", check, &check, NULL));
  PetscCall(PetscOptionsBool("-compare_host", "solve again on the host and compare the iteration counts", "solve_file", compare, &compare, NULL));
  PetscCall(PetscOptionsInt("-compare_host_tol", "largest allowed difference of the iteration counts", "solve_file", cmp_tol, &cmp_tol, NULL));
  PetscOptionsEnd();

  if (wflg) {
    PetscCall(WriteExample(out, n, ebs, withrhs));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCheck(flg, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Give a matrix file with -f FILE (or -write_example FILE to make one); see -help");
  PetscCheck(repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeat must be >= 1");

  if (use_gpu) {
    int      ndev = 0;
    PetscInt mine, all;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess) {
      ndev = 0;
      (void)cudaGetLastError();
    }
    mine = ndev;
    PetscCallMPI(MPIU_Allreduce(&mine, &all, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
    gpu = (PetscBool)(all > 0);
  }

  PetscCall(PetscTime(&t0));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &viewer));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatLoad(A, viewer));
  /* a vector after the matrix? Read its header with a count, so that the end of the file is no error */
  PetscCall(PetscViewerBinaryRead(viewer, hdr, 2, &cnt, PETSC_INT));
  PetscCall(MatGetSize(A, &M, NULL));
  if (gpu) {
    PetscCall(MatGetVecType(A, &vectype));
    if (!vectype || !strcmp(vectype, VECSTANDARD)) PetscCall(MatSetVecType(A, VECCUDA));
  }
  PetscCall(MatCreateVecs(A, &x, &b));
  if (cnt == 2 && hdr[0] == VEC_FILE_CLASSID) {
    PetscCheck(hdr[1] == M, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED, "vector in %s has %" PetscInt_FMT " rows, the matrix %" PetscInt_FMT, file, hdr[1], M);
    PetscCall(PetscViewerBinarySetSkipHeader(viewer, PETSC_TRUE));
    PetscCall(VecLoad(b, viewer));
    haverhs = PETSC_TRUE;
  } else {
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, b));
  }
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t_load));
  t_load -= t0;

  PetscCall(MatGetType(A, &mattype));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(VecGetType(b, &vectype));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t0));
  PetscCall(PCSetUp(pc));
  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t_pc));
  t_pc -= t0;
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t_ksp));
  t_ksp -= t0;
  for (PetscInt k = 0; k < repeat; k++) {
    PetscLogDouble t1;
    PetscCall(VecSet(x, 0.0));
    PetscCall(Synchronize(gpu));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(Synchronize(gpu));
    PetscCall(PetscTime(&t1));
    t1 -= t0;
    if (k == 0) t_first = t_best = t1;
    else t_best = PetscMin(t_best, t1);
  }
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve_file: %s\n", file));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  matrix                %s, %" PetscInt_FMT " rows, block size %" PetscInt_FMT ", %d MPI rank%s, loaded in %.4f s\n", mattype, M, bs, size, size > 1 ? "s" : "", t_load));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  right-hand side       %s\n", haverhs ? "from the file" : "b = A * ones (none in the file)"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  vectors               %s (%s)\n", vectype, gpu ? "GPU" : "host"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  KSP type              %s\n", ksptype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  PC type               %s\n", pctype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  iterations            %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  converged reason      %s\n", KSPConvergedReasons[reason]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  true residual         ||b-Ax||/||b|| = %.3e\n", (double)(bnorm > 0 ? rnorm / bnorm : rnorm)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  setup time            %.4f s (PCSetUp %.4f s, KSPSetUp %.4f s)\n", t_pc + t_ksp, t_pc, t_ksp));
  if (repeat > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solve time            %.4f s (best of %" PetscInt_FMT "; first %.4f s)\n", t_best, repeat, t_first));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solve time            %.4f s\n", t_first));
  PetscCheck(!check || reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "KSP did not converge: %s after %" PetscInt_FMT " iterations", KSPConvergedReasons[reason], its);
  if (compare) {
    PetscInt           hits;
    KSPConvergedReason hreason;
    PetscReal          hres;
    char               htype[64];
    PetscInt           bdiff;

    PetscCall(SolveOnHost(file, A, b, pc, &hits, &hreason, &hres, htype, sizeof(htype), &bdiff));
    if (bdiff >= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  compare with host     vbjacobi blocks: %s\n", bdiff ? "DIFFER" : "identical"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  host path             %s matrix, host vectors: iterations %" PetscInt_FMT ", %s, true residual %.3e\n", htype, hits, KSPConvergedReasons[hreason], (double)hres));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  compare with host     iterations %" PetscInt_FMT " here, %" PetscInt_FMT " on the host, difference %" PetscInt_FMT " (tolerance %" PetscInt_FMT "): %s\n", its, hits, PetscAbsInt(its - hits), cmp_tol, (PetscAbsInt(its - hits) <= cmp_tol && (reason > 0) == (hreason > 0) && bdiff <= 0) ? "MATCH" : "MISMATCH"));
    PetscCheck(bdiff <= 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "vbjacobi found other blocks on %" PetscInt_FMT " rank(s) than its host path", bdiff);
    PetscCheck((reason > 0) == (hreason > 0), PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "this solve %s (%s) but the host solve %s (%s)", reason > 0 ? "converged" : "did not converge", KSPConvergedReasons[reason], hreason > 0 ? "converged" : "did not converge", KSPConvergedReasons[hreason]);
    PetscCheck(PetscAbsInt(its - hits) <= cmp_tol, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "iterations %" PetscInt_FMT " differ from the host path's %" PetscInt_FMT " by more than %" PetscInt_FMT, its, hits, cmp_tol);
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
