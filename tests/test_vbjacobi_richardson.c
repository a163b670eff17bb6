static char help[] = "PCApplyRichardson() of PCVBJACOBI (issue 40): KSPRICHARDSON with vbjacobi's own damped sweeps (fused on the GPU\n"
                     "where the blocks are the matrix's BSR blocks) against KSPRICHARDSON's loop with the same damping as its scale\n"
                     "(-pc_vbjacobi_richardson false), on a random block matrix with every diagonal block: 1, 2 and 3 sweeps, zero\n"
                     "and nonzero initial guess, the solutions compared (max |difference| / max |reference|). With -method chebyshev:\n"
                     "KSPCHEBYSHEV with vbjacobi, its steps fused (src/ksp/chebyshev) against its own loop (-pc_vbjacobi_chebyshev\n"
                     "false), 1-4 steps, with the eigenvalue bounds given (-emin, -emax) and, with -estimate, estimated by the KSP.\n"
                     "The solver of the first solve is viewed, so that the output says whether the sweeps were fused.\n"
                     "Options: -bs <3>, -nb <block rows per rank, 40>, -empty_last (the last rank holds no rows), -damping <0.6>, -seed <1>, -vec_type (cuda: on the device),\n"
                     "-method <richardson|chebyshev>, -emin <0.3>, -emax <1.7>, -estimate, -tol <1e-12: the largest relative difference\n"
                     "allowed>. Last, the values of A change (scaled by 3) under a solver already used: its result is compared with a new one's.\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include "test_rng.h"

/* A random block matrix: a dominant diagonal block in every block row, 0-5 more blocks (one long row on rank 0) */
static PetscErrorCode FillA(PetscInt bs, PetscInt nb, PetscBool empty_last, PetscInt64 seed, Mat *A)
{
  PetscInt     rstart, Nb;
  PetscInt64   s = seed;
  PetscScalar *v;
  PetscMPIInt  rank, size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (empty_last && size > 1 && rank == size - 1) nb = 0;
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

typedef struct {
  PetscBool chebyshev, estimate;
  PetscReal emin, emax;
} Method;

/* A KSP that runs its Richardson (Chebyshev) steps on A x = b, as a smoother runs them (no norms) */
static PetscErrorCode SmootherCreate(Mat A, PetscInt its, const char *prefix, PetscReal scale, const Method *m, KSP *pksp)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  if (m->chebyshev) {
    PetscCall(KSPSetType(ksp, KSPCHEBYSHEV));
    if (m->estimate) PetscCall(KSPChebyshevEstEigSet(ksp, 0.0, 0.1, 0.0, 1.1));
    else PetscCall(KSPChebyshevSetEigenvalues(ksp, m->emax, m->emin));
  } else {
    PetscCall(KSPSetType(ksp, KSPRICHARDSON));
    PetscCall(KSPRichardsonSetScale(ksp, scale));
  }
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCVBJacobiSetBlocking(pc, PC_VBJACOBI_BLOCKING_MATRIX));
  PetscCall(KSPSetTolerances(ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, its));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPSetFromOptions(ksp));
  *pksp = ksp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = the steps from x0 (NULL: a zero guess) */
static PetscErrorCode SmootherSolve(KSP ksp, Vec b, Vec x0, PetscInt its, PetscBool view, Vec x)
{
  PetscInt           kits;
  KSPConvergedReason reason;
  const char        *prefix;

  PetscFunctionBeginUser;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(KSPSetInitialGuessNonzero(ksp, (PetscBool)(x0 != NULL)));
  if (x0) { PetscCall(VecCopy(x0, x)); }
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &kits));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(kits == its && reason == KSP_CONVERGED_ITS, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " steps asked, %" PetscInt_FMT " run, reason %s", prefix, its, kits, KSPConvergedReasons[reason]);
  if (view) PetscCall(KSPView(ksp, PETSC_VIEWER_STDOUT_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Smooth(Mat A, Vec b, Vec x0, PetscInt its, const char *prefix, PetscReal scale, const Method *m, PetscBool view, Vec x)
{
  KSP ksp;

  PetscFunctionBeginUser;
  PetscCall(SmootherCreate(A, its, prefix, scale, m, &ksp));
  PetscCall(SmootherSolve(ksp, b, x0, its, view, x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |x - xref|_inf / |xref|_inf, reported against tol */
static PetscErrorCode Compare(const char *what, Vec x, Vec xref, PetscReal tol, PetscInt *nfail)
{
  PetscReal d, r;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(xref, NORM_INFINITY, &r));
  PetscCall(VecAXPY(x, -1.0, xref));
  PetscCall(VecNorm(x, NORM_INFINITY, &d));
  d = r > 0 ? d / r : d;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: rel diff %.2e %s\n", what, (double)d, d <= tol ? "ok" : "FAILED"));
  if (!(d <= tol)) (*nfail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  bs = 3, nb = 40, seed = 1, nfail = 0, maxits = 3;
  PetscReal damping = 0.6, tol  = 1e-12;
  char      buf[64], method[32] = "richardson";
  Method    m = {PETSC_FALSE, PETSC_FALSE, 0.3, 1.7};
  Mat       A;
  Vec       b, x0, x, xref;
  PetscBool viewed = PETSC_FALSE, empty_last = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-empty_last", &empty_last, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-damping", &damping, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-method", method, sizeof(method), NULL));
  PetscCall(PetscStrcmp(method, "chebyshev", &m.chebyshev));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-emin", &m.emin, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-emax", &m.emax, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-estimate", &m.estimate, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  if (m.chebyshev) maxits = 4;
  PetscCall(FillA(bs, nb, empty_last, seed, &A));
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
  PetscCall(PetscOptionsSetValue(NULL, "-ref_pc_vbjacobi_chebyshev", "false"));
  for (PetscInt its = 1; its <= maxits; its++)
    for (int guess = 0; guess < 2; guess++) {
      PetscCall(Smooth(A, b, guess ? x0 : NULL, its, "ours_", 1.0, &m, (PetscBool)!viewed, x));
      viewed = PETSC_TRUE;
      PetscCall(Smooth(A, b, guess ? x0 : NULL, its, "ref_", damping, &m, PETSC_FALSE, xref));
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: %" PetscInt_FMT " sweep%s, %s guess", method, its, its > 1 ? "s" : "", guess ? "nonzero" : "zero"));
      PetscCall(Compare(buf, x, xref, tol, &nfail));
    }
  { /* A's values change under a solver already used (its setup, the single-precision copy of the sweeps must follow) */
    KSP ksp;

    PetscCall(SmootherCreate(A, 2, "ours_", 1.0, &m, &ksp));
    PetscCall(SmootherSolve(ksp, b, x0, 2, PETSC_FALSE, x));
    PetscCall(MatScale(A, 3.0));
    PetscCall(SmootherSolve(ksp, b, x0, 2, PETSC_FALSE, x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(Smooth(A, b, x0, 2, "ref_", damping, &m, PETSC_FALSE, xref));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: 2 sweeps after A's values changed", method));
    PetscCall(Compare(buf, x, xref, tol, &nfail));
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
