static char help[] = "Tests KSPIDRS (-ksp_type idrs) on PETSc-built matrices: convergence checked on the true residual, iterations\n"
                     "against PETSc's KSPIDR, error paths.\n"
                     "  -problem convdiff|file|zero|line : 2-D upwind convection-diffusion on an n x n grid (nonsymmetric), a\n"
                     "                                matrix loaded from -f (PETSc binary), the zero matrix (IDR(s) must break\n"
                     "                                down), or 1-D upwind convection-diffusion of n unknowns (any size, n >= 1)\n"
                     "  -n <n>, -beta <b>           : grid size and convection speed of convdiff (cell Peclet number b/(2(n+1)))\n"
                     "  -f <file>, -bs <k>          : matrix file and its block size (MatSetBlockSize before the load)\n"
                     "  -nan_rhs                    : b gets a NaN entry (the solve must end with KSP_DIVERGED_NANORINF)\n"
                     "  -zero_rhs                   : b = 0 (the solution is x = 0)\n"
                     "  -compare_exact              : also require ||x - x*||/||x*|| <= 1e-6 for the exact solution x* (what a\n"
                     "                                direct solve gives; for small well-conditioned systems)\n"
                     "  -expect_reason <name>       : the converged reason the solve must end with (e.g. DIVERGED_BREAKDOWN);\n"
                     "                                without it the solve must converge with ||b - A x||/||b|| <= 10 rtol\n"
                     "  -compare_idr                : also solve with PETSc's KSPIDR (same s, angle, side, norm, PC type, tolerances)\n"
                     "                                and require the iterations of idrs within -its_tol (0.15) of KSPIDR's\n"
                     "  -solves <k>                 : solve k times (a second solve reuses the KSP: the work must be kept)\n"
                     "  -nonzero_guess              : start from x0 = exact solution / 2 (KSPSetInitialGuessNonzero)\n"
                     "  -compare_norm_none          : with -ksp_norm_type none -ksp_convergence_test skip (a multigrid smoother's\n"
                     "                                setting): the solve must run exactly max_it iterations (KSP_CONVERGED_ITS),\n"
                     "                                or fewer ending with KSP_CONVERGED_HAPPY_BREAKDOWN on an exactly zero residual\n"
                     "                                (then b - A x = 0 exactly), and give the iterate and iteration count of the\n"
                     "                                same solve with a norm and a test that only a zero residual passes\n"
                     "The matrix type comes from -mat_type (aij, aijcusparse, baijksparse...), the vectors from the matrix.\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include <math.h>

typedef enum {
  PROBLEM_CONVDIFF,
  PROBLEM_FILE,
  PROBLEM_ZERO,
  PROBLEM_LINE
} Problem;
static const char *const Problems[] = {"convdiff", "file", "zero", "line", "Problem", "PROBLEM_", NULL};

/* upwind convection-diffusion -lap(u) + beta (u_x + u_y) on the unit square, Dirichlet boundary, scaled by h^2 */
static PetscErrorCode AssembleConvDiff(Mat A, PetscInt n, PetscReal beta)
{
  PetscInt  lo, hi;
  PetscReal h = 1.0 / (PetscReal)(n + 1), ch = beta * h;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt row = lo; row < hi; row++) {
    PetscInt    i = row % n, j = row / n, cols[5], nc = 0;
    PetscScalar v[5];

    cols[nc] = row;
    v[nc++]  = 4.0 + 2.0 * ch;
    if (i > 0) {
      cols[nc] = row - 1;
      v[nc++]  = -1.0 - ch;
    }
    if (i < n - 1) {
      cols[nc] = row + 1;
      v[nc++]  = -1.0;
    }
    if (j > 0) {
      cols[nc] = row - n;
      v[nc++]  = -1.0 - ch;
    }
    if (j < n - 1) {
      cols[nc] = row + n;
      v[nc++]  = -1.0;
    }
    PetscCall(MatSetValues(A, 1, &row, nc, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* upwind convection-diffusion -u'' + beta u' on (0, 1) with n unknowns, Dirichlet boundary, scaled by h^2 */
static PetscErrorCode AssembleLine(Mat A, PetscInt n, PetscReal beta)
{
  PetscInt  lo, hi;
  PetscReal ch = beta / (PetscReal)(n + 1);

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt row = lo; row < hi; row++) {
    PetscInt    cols[3], nc = 0;
    PetscScalar v[3];

    cols[nc] = row;
    v[nc++]  = 2.0 + ch;
    if (row > 0) {
      cols[nc] = row - 1;
      v[nc++]  = -1.0 - ch;
    }
    if (row < n - 1) {
      cols[nc] = row + 1;
      v[nc++]  = -1.0;
    }
    PetscCall(MatSetValues(A, 1, &row, nc, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the zero matrix, with its diagonal stored (explicit zeros) */
static PetscErrorCode AssembleZero(Mat A)
{
  PetscInt lo, hi;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt row = lo; row < hi; row++) PetscCall(MatSetValue(A, row, row, 0.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* exact solution by global index (the same on any number of ranks) */
static PetscErrorCode FillExact(Vec x)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  PetscCall(VecGetArrayWrite(x, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = 1.0 + 0.5 * PetscSinReal(0.37 * (PetscReal)i);
  PetscCall(VecRestoreArrayWrite(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TrueResidual(Mat A, Vec b, Vec x, PetscReal *rel)
{
  Vec       r;
  PetscReal nr, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *rel = nb > 0.0 ? nr / nb : nr; /* b = 0: the absolute residual */
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Problem            problem = PROBLEM_CONVDIFF;
  PetscInt           n = 32, bs = 1, solves = 1, s, seed, its = 0, its_idr = 0;
  PetscReal          beta = 100.0, its_tol = 0.15, rtol, rel = 0.0, angle;
  char               file[PETSC_MAX_PATH_LEN] = "", expect[64] = "";
  PetscBool          nonzero_guess = PETSC_FALSE, nan_rhs = PETSC_FALSE, zero_rhs = PETSC_FALSE, compare_exact = PETSC_FALSE, compare_idr = PETSC_FALSE, compare_norm_none = PETSC_FALSE, smoothing, replacement, ok = PETSC_TRUE, isidrs;
  Mat                A;
  Vec                x, b, xe;
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;
  MPI_Comm           comm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "test_idrs options", NULL);
  PetscCall(PetscOptionsEnum("-problem", "Problem", NULL, Problems, (PetscEnum)problem, (PetscEnum *)&problem, NULL));
  PetscCall(PetscOptionsInt("-n", "Grid size", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-beta", "Convection speed", NULL, beta, &beta, NULL));
  PetscCall(PetscOptionsString("-f", "Matrix file", NULL, file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsInt("-bs", "Block size of the loaded matrix", NULL, bs, &bs, NULL));
  PetscCall(PetscOptionsBool("-nan_rhs", "NaN in b", NULL, nan_rhs, &nan_rhs, NULL));
  PetscCall(PetscOptionsBool("-zero_rhs", "b = 0", NULL, zero_rhs, &zero_rhs, NULL));
  PetscCall(PetscOptionsBool("-compare_exact", "Require the error against the exact solution below 1e-6", NULL, compare_exact, &compare_exact, NULL));
  PetscCall(PetscOptionsString("-expect_reason", "Expected converged reason", NULL, expect, expect, sizeof(expect), NULL));
  PetscCall(PetscOptionsBool("-compare_idr", "Compare with KSPIDR", NULL, compare_idr, &compare_idr, NULL));
  PetscCall(PetscOptionsReal("-its_tol", "Relative iteration tolerance against KSPIDR", NULL, its_tol, &its_tol, NULL));
  PetscCall(PetscOptionsInt("-solves", "Number of solves", NULL, solves, &solves, NULL));
  PetscCall(PetscOptionsBool("-nonzero_guess", "Start from half the exact solution", NULL, nonzero_guess, &nonzero_guess, NULL));
  PetscCall(PetscOptionsBool("-compare_norm_none", "With -ksp_norm_type none: max_it iterations, the iterate of a solve with a norm", NULL, compare_norm_none, &compare_norm_none, NULL));
  PetscOptionsEnd();

  PetscCall(MatCreate(comm, &A));
  PetscCall(MatSetFromOptions(A));
  if (problem == PROBLEM_FILE) {
    PetscViewer viewer;

    PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &viewer));
    if (bs > 1) PetscCall(MatSetBlockSize(A, bs));
    PetscCall(MatLoad(A, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
  } else if (problem == PROBLEM_LINE) {
    PetscCheck(n >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-problem line needs -n >= 1, got %" PetscInt_FMT, n);
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetUp(A));
    PetscCall(AssembleLine(A, n, beta));
  } else {
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
    PetscCall(MatSetUp(A));
    if (problem == PROBLEM_CONVDIFF) PetscCall(AssembleConvDiff(A, n, beta));
    else PetscCall(AssembleZero(A));
  }
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xe));
  if (zero_rhs) PetscCall(VecSet(xe, 0.0));
  else PetscCall(FillExact(xe));
  if (problem == PROBLEM_ZERO) PetscCall(VecCopy(xe, b)); /* A x = b != 0 has no solution */
  else PetscCall(MatMult(A, xe, b));
  if (nan_rhs) PetscCall(VecSetValue(b, 0, (PetscScalar)NAN, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));

  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPIDRS));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 10000));
  if (nonzero_guess) PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPIDRS, &isidrs));
  PetscCheck(isidrs, comm, PETSC_ERR_ARG_WRONG, "this test solves with -ksp_type idrs only");
  PetscCall(KSPIDRSGetS(ksp, &s));
  PetscCall(KSPIDRSGetAngle(ksp, &angle));
  PetscCall(KSPIDRSGetSmoothing(ksp, &smoothing));
  PetscCall(KSPIDRSGetReplacement(ksp, &replacement));
  PetscCall(KSPIDRSGetSeed(ksp, &seed));
  PetscCall(PetscPrintf(comm, "idrs settings: s %" PetscInt_FMT ", angle %g, smoothing %d, replacement %d, seed %" PetscInt_FMT "\n", s, (double)angle, (int)smoothing, (int)replacement, seed));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));

  for (PetscInt k = 0; k < solves; k++) {
    if (nonzero_guess) PetscCall(VecAXPBY(x, 0.5, 0.0, xe));
    else PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(TrueResidual(A, b, x, &rel));
    PetscCall(PetscPrintf(comm, "idrs solve %" PetscInt_FMT ": reason %s, iterations %" PetscInt_FMT ", true residual %g (rtol %g)\n", k, KSPConvergedReasons[reason], its, (double)rel, (double)rtol));
    if (compare_exact) { /* against the exact solution, what a direct solve gives */
      Vec       e;
      PetscReal ne, nx;

      PetscCall(VecDuplicate(x, &e));
      PetscCall(VecWAXPY(e, -1.0, xe, x));
      PetscCall(VecNorm(e, NORM_2, &ne));
      PetscCall(VecNorm(xe, NORM_2, &nx));
      PetscCall(VecDestroy(&e));
      if (nx > 0.0) ne /= nx;
      if (ne <= 1e-6) PetscCall(PetscPrintf(comm, "PASS error against the exact solution %.1e <= 1e-6\n", (double)ne));
      else {
        ok = PETSC_FALSE;
        PetscCall(PetscPrintf(comm, "FAILED: error against the exact solution %g > 1e-6\n", (double)ne));
      }
    }
    if (compare_norm_none) { /* checked below */
    } else if (expect[0]) {
      PetscBool same;

      PetscCall(PetscStrcmp(KSPConvergedReasons[reason], expect, &same));
      if (!same) {
        ok = PETSC_FALSE;
        PetscCall(PetscPrintf(comm, "FAILED: reason %s, expected %s\n", KSPConvergedReasons[reason], expect));
      }
    } else if (reason <= 0 || !(rel <= 10.0 * rtol)) {
      ok = PETSC_FALSE;
      PetscCall(PetscPrintf(comm, "FAILED: not converged, or true residual %g > 10 rtol\n", (double)rel));
    }
  }
  if (compare_norm_none) {
    KSP         kref;
    KSPNormType normtype;
    PCSide      side;
    PCType      pctype;
    PetscInt    maxit, its_ref;
    Vec         xref;
    PetscReal   nd, nr;

    PetscCall(KSPGetNormType(ksp, &normtype));
    PetscCall(KSPGetPCSide(ksp, &side));
    PetscCall(KSPGetTolerances(ksp, NULL, NULL, NULL, &maxit));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCGetType(pc, &pctype));
    PetscCheck(normtype == KSP_NORM_NONE, comm, PETSC_ERR_ARG_WRONG, "-compare_norm_none needs -ksp_norm_type none");
    if (!(reason == KSP_CONVERGED_ITS && its == maxit) && !(reason == KSP_CONVERGED_HAPPY_BREAKDOWN && its < maxit && rel == 0.0)) {
      ok = PETSC_FALSE;
      PetscCall(PetscPrintf(comm, "FAILED: with no norm, reason %s after %" PetscInt_FMT " iterations; expected CONVERGED_ITS after max_it = %" PetscInt_FMT " (or CONVERGED_HAPPY_BREAKDOWN before, with b - A x = 0)\n", KSPConvergedReasons[reason], its, maxit));
    }
    /* the same recurrences with a norm that converges only at a zero residual */
    PetscCall(KSPCreate(comm, &kref));
    PetscCall(KSPSetOperators(kref, A, A));
    PetscCall(KSPSetType(kref, KSPIDRS));
    PetscCall(KSPIDRSSetS(kref, s));
    PetscCall(KSPIDRSSetAngle(kref, angle));
    PetscCall(KSPIDRSSetSeed(kref, seed));
    PetscCall(KSPIDRSSetSmoothing(kref, smoothing));
    PetscCall(KSPIDRSSetReplacement(kref, PETSC_FALSE));
    PetscCall(KSPSetPCSide(kref, side));
    PetscCall(KSPSetNormType(kref, side == PC_LEFT ? KSP_NORM_PRECONDITIONED : KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(kref, 1e-300, 0.0, PETSC_CURRENT, maxit));
    PetscCall(KSPGetPC(kref, &pc));
    PetscCall(PCSetType(pc, pctype));
    PetscCall(VecDuplicate(x, &xref));
    PetscCall(VecSet(xref, 0.0));
    PetscCall(KSPSolve(kref, b, xref));
    PetscCall(KSPGetIterationNumber(kref, &its_ref));
    PetscCall(VecAXPY(xref, -1.0, x));
    PetscCall(VecNorm(xref, NORM_2, &nd));
    PetscCall(VecNorm(x, NORM_2, &nr));
    PetscCall(PetscPrintf(comm, "no norm: %s after %" PetscInt_FMT " iterations; the solve with a norm (%" PetscInt_FMT " iterations) differs by %.1e\n", KSPConvergedReasons[reason], its, its_ref, (double)(nr > 0.0 ? nd / nr : nd)));
    if (its_ref != its || !(nd <= 1e-10 * nr || (nr == 0.0 && nd == 0.0))) {
      ok = PETSC_FALSE;
      PetscCall(PetscPrintf(comm, "FAILED: the iterate without a norm is not that of the solve with one\n"));
    }
    PetscCall(VecDestroy(&xref));
    PetscCall(KSPDestroy(&kref));
    if (ok) PetscCall(PetscPrintf(comm, "PASS no norm: %s iterations, the same iterate\n", reason == KSP_CONVERGED_ITS ? "max_it" : "exact after fewer"));
  } else if (ok && !expect[0]) PetscCall(PetscPrintf(comm, "PASS true residual %g <= 10 rtol\n", (double)rel));
  if (ok && expect[0]) PetscCall(PetscPrintf(comm, "PASS reason %s\n", expect));

  if (compare_idr) {
    KSP         kidr;
    PC          pidr;
    PCType      pctype;
    PCSide      side;
    KSPNormType normtype;
    PetscInt    maxit;
    PetscReal   atol, dtol;

    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCGetType(pc, &pctype));
    PetscCall(KSPGetPCSide(ksp, &side));
    PetscCall(KSPGetNormType(ksp, &normtype));
    PetscCall(KSPGetTolerances(ksp, &rtol, &atol, &dtol, &maxit));
    PetscCheck(!(side == PC_LEFT && normtype == KSP_NORM_UNPRECONDITIONED), comm, PETSC_ERR_SUP, "-compare_idr: PETSc's KSPIDR has no left preconditioning with the unpreconditioned norm");
    PetscCall(KSPCreate(comm, &kidr));
    PetscCall(KSPSetOperators(kidr, A, A));
    PetscCall(KSPSetType(kidr, KSPIDR));
    PetscCall(KSPIDRSetS(kidr, s));
    PetscCall(KSPIDRSetCosine(kidr, angle));
    PetscCall(KSPSetPCSide(kidr, side));
    PetscCall(KSPSetNormType(kidr, normtype));
    PetscCall(KSPSetTolerances(kidr, rtol, atol, dtol, maxit));
    PetscCall(KSPGetPC(kidr, &pidr));
    PetscCall(PCSetType(pidr, pctype));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(kidr, b, x));
    PetscCall(KSPGetConvergedReason(kidr, &reason));
    PetscCall(KSPGetIterationNumber(kidr, &its_idr));
    PetscCall(PetscPrintf(comm, "KSPIDR (%s, %s side, %s norm): reason %s, iterations %" PetscInt_FMT "; idrs: %" PetscInt_FMT "\n", pctype, PCSides[side], KSPNormTypes[normtype], KSPConvergedReasons[reason], its_idr, its));
    if (reason <= 0) PetscCall(PetscPrintf(comm, "KSPIDR did not converge: iterations not compared\n"));
    else if (PetscAbsReal((PetscReal)(its - its_idr)) > its_tol * (PetscReal)its_idr) {
      ok = PETSC_FALSE;
      PetscCall(PetscPrintf(comm, "FAILED: idrs %" PetscInt_FMT " iterations, KSPIDR %" PetscInt_FMT ": more than %g apart\n", its, its_idr, (double)its_tol));
    } else PetscCall(PetscPrintf(comm, "PASS iterations within %g of KSPIDR: idrs %" PetscInt_FMT ", idr %" PetscInt_FMT "\n", (double)its_tol, its, its_idr));
    PetscCall(KSPDestroy(&kidr));
  }
  if (ok) PetscCall(PetscPrintf(comm, "OK\n"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&xe));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}
