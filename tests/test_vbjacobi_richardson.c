static char help[] = "PCApplyRichardson() of PCVBJACOBI (issue 40): KSPRICHARDSON with vbjacobi's own damped sweeps (fused on the GPU\n"
                     "where the blocks are the matrix's BSR blocks) against KSPRICHARDSON's loop with the same damping as its scale\n"
                     "(-pc_vbjacobi_richardson false), on a random block matrix with every diagonal block: 1, 2 and 3 sweeps, zero\n"
                     "and nonzero initial guess, the solutions compared (max |difference| / max |reference|). The solver of the\n"
                     "first solve is viewed, so that the output says whether the sweeps were fused.\n"
                     "Options: -bs <3>, -nb <block rows per rank, 40>, -damping <0.6>, -seed <1>, -vec_type (cuda: on the device)\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include "test_rng.h"

/* A random block matrix: a dominant diagonal block in every block row, 0-5 more blocks (one long row on rank 0) */
static PetscErrorCode FillA(PetscInt bs, PetscInt nb, PetscInt64 seed, Mat *A)
{
  PetscInt     rstart, Nb;
  PetscInt64   s = seed;
  PetscScalar *v;
  PetscMPIInt  rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, nb * bs, nb * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATBAIJKSPARSE));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, NULL));
  PetscCall(MatGetSize(*A, &Nb, NULL));
  rstart /= bs;
  Nb /= bs;
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt r = rstart; r < rstart + nb; r++) {
    PetscInt ncol = 1 + RandInt(&s, 6);

    if (rank == 0 && r == rstart + 1) ncol = PetscMax(2, Nb / 3);
    for (PetscInt k = 0; k < ncol; k++) {
      PetscInt c = k == 0 ? r : RandInt(&s, Nb);

      for (PetscInt i = 0; i < bs * bs; i++) v[i] = 0.3 * RandReal(&s) + (k == 0 && i % (bs + 1) == 0 ? 2.0 * bs + 6.0 : 0.0);
      PetscCall(MatSetValuesBlocked(*A, 1, &r, 1, &c, v, ADD_VALUES));
    }
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = its Richardson steps on A x = b from x0 (NULL: a zero guess), as a smoother runs them (no norms) */
static PetscErrorCode Smooth(Mat A, Vec b, Vec x0, PetscInt its, const char *prefix, PetscReal scale, PetscBool view, Vec x)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPRICHARDSON));
  PetscCall(KSPRichardsonSetScale(ksp, scale));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCVBJacobiSetBlocking(pc, PC_VBJACOBI_BLOCKING_MATRIX));
  PetscCall(KSPSetTolerances(ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, its));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPSetFromOptions(ksp));
  if (x0) {
    PetscCall(VecCopy(x0, x));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  }
  PetscCall(KSPSolve(ksp, b, x));
  if (view) PetscCall(KSPView(ksp, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  bs = 3, nb = 40, seed = 1, nfail = 0;
  PetscReal damping = 0.6;
  char      buf[64];
  Mat       A;
  Vec       b, x0, x, xref;
  PetscBool viewed = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-damping", &damping, NULL));
  PetscCall(FillA(bs, nb, seed, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecSetFromOptions(b));
  PetscCall(VecDuplicate(x, &x0));
  PetscCall(VecDuplicate(x, &xref));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(VecSetRandom(x0, NULL));
  /* ours with the damping; the reference: KSPRICHARDSON's loop with the damping as its scale */
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%g", (double)damping));
  PetscCall(PetscOptionsSetValue(NULL, "-ours_pc_vbjacobi_richardson_damping", buf));
  PetscCall(PetscOptionsSetValue(NULL, "-ref_pc_vbjacobi_richardson", "false"));
  for (PetscInt its = 1; its <= 3; its++)
    for (int guess = 0; guess < 2; guess++) {
      PetscReal d, r;

      PetscCall(Smooth(A, b, guess ? x0 : NULL, its, "ours_", 1.0, (PetscBool)!viewed, x));
      viewed = PETSC_TRUE;
      PetscCall(Smooth(A, b, guess ? x0 : NULL, its, "ref_", damping, PETSC_FALSE, xref));
      PetscCall(VecNorm(xref, NORM_INFINITY, &r));
      PetscCall(VecAXPY(x, -1.0, xref));
      PetscCall(VecNorm(x, NORM_INFINITY, &d));
      d = r > 0 ? d / r : d;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " sweep%s, %s guess: rel diff %.2e %s\n", its, its > 1 ? "s" : "", guess ? "nonzero" : "zero", (double)d, d <= 1e-12 ? "ok" : "FAILED"));
      if (!(d <= 1e-12)) nfail++;
    }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&A));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %" PetscInt_FMT " checks\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
