static char help[] = "Regression test: a set-up PCVBJACOBI given another matrix of the same size by KSPSetOperators() finds its blocks\n"
                     "again, also when the new matrix's nonzero-state counter equals the old one's (the PC kept the old blocks and\n"
                     "applied 2-row blocks to a matrix of 4-row blocks: preonly error 0.13).\n"
                     "A and B are block diagonal with dense blocks of 2 and of 4 rows, assembled the same way, so block Jacobi with\n"
                     "natural supervariables is their exact inverse: KSPPREONLY must solve both to rounding.\n"
                     "  -n <rows per rank> (a multiple of 4; default 400), plus -mat_type / -vec_type\n";

#include <petscblockgpu.h>
#include <petscksp.h>

/* Block diagonal, dense diagonally dominant blocks of k rows */
static PetscErrorCode BlockDiagonal(PetscInt n, PetscInt k, PetscInt seed, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, k, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, k, NULL, 0, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt    b0 = r - (r - rstart) % k, cols[4];
    PetscScalar vals[4];

    for (PetscInt c = 0; c < k; c++) {
      cols[c] = b0 + c;
      vals[c] = (b0 + c == r) ? 10.0 + (PetscScalar)k : 1.0 + 0.1 * (PetscScalar)((r * 7 + c * 3 + seed) % 5);
    }
    PetscCall(MatSetValues(*A, 1, &r, k, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* preonly with the PC on M: returns ||x - x_exact|| / ||x_exact|| */
static PetscErrorCode SolveError(KSP ksp, Mat M, PetscReal *err)
{
  Vec       x, xe, b;
  PetscReal nx;

  PetscFunctionBeginUser;
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(MatCreateVecs(M, &x, &b));
  PetscCall(VecDuplicate(x, &xe));
  PetscCall(VecSetRandom(xe, NULL));
  PetscCall(MatMult(M, xe, b));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecAXPY(x, -1.0, xe));
  PetscCall(VecNorm(x, NORM_2, err));
  PetscCall(VecNorm(xe, NORM_2, &nx));
  *err /= nx;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xe));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat              A, B;
  KSP              ksp;
  PC               pc;
  PetscInt         n = 400, nb;
  PetscReal        errA, errB;
  PetscObjectState sA, sB;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCheck(n > 0 && n % 4 == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be a positive multiple of 4");
  PetscCall(BlockDiagonal(n, 2, 1, &A));
  PetscCall(BlockDiagonal(n, 4, 2, &B));
  PetscCall(MatGetNonzeroState(A, &sA));
  PetscCall(MatGetNonzeroState(B, &sB));
  /* the defect needs equal counters: otherwise the test would pass for the wrong reason */
  PetscCheck(sA == sB, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the two matrices have nonzero states %" PetscInt64_FMT " and %" PetscInt64_FMT "; the test needs them equal", (PetscInt64)sA, (PetscInt64)sB);

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCVBJacobiSetBlocking(pc, PC_VBJACOBI_BLOCKING_NATURAL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(SolveError(ksp, A, &errA));
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "A (blocks of 2): local blocks %" PetscInt_FMT ", preonly error %.2e\n", nb, (double)errA));
  PetscCall(SolveError(ksp, B, &errB));
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "B (blocks of 4), same PC: local blocks %" PetscInt_FMT ", preonly error %.2e\n", nb, (double)errB));
  PetscCheck(nb == n / 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "after KSPSetOperators(B) the PC has %" PetscInt_FMT " local blocks, B has %" PetscInt_FMT " (stale blocks of A)", nb, n / 4);
  PetscCheck(errA < 1e-12 && errB < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "preonly errors %g (A) and %g (B): block Jacobi is these matrices' exact inverse", (double)errA, (double)errB);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  return 0;
}
