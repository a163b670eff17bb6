static char help[] = "MATSOLVERPBGDENSE (issue 40's coarse-grid solve) against PETSc's own LU of the same MATSEQBAIJKSPARSE matrix:\n"
                     "MatSolve(), MatSolveTranspose(), MatMatSolve() and MatMatSolveTranspose() on random right-hand sides (the\n"
                     "solutions poisoned with NaN first), relative to the reference solution; a second numeric factorization after\n"
                     "the values change; -singular: a zero row gives PETSc's factor error (MAT_FACTOR_NUMERIC_ZEROPIVOT), and in\n"
                     "PCLU a KSP that stops with DIVERGED_PC_FAILED. With -vec_type cuda the values are on the device first and\n"
                     "the vectors there. Options: -bs <3>, -mb <block rows, 40>, -seed <1>, -nrhs <3>, -singular, -repeat <N>: the time of a\n"
                     "MatSolve() over N calls (after a warm-up; a VecNorm() ends the timed run), pbgdense and PETSc's LU\n";

#include <petscksp.h>
#include <petscblockgpu.h>
#include "test_rng.h"

/* A random nonsingular block-sparse matrix: a dominant diagonal block and a few random blocks a block row */
static PetscErrorCode Fill(Mat A, PetscInt bs, PetscInt mb, PetscInt64 *s, PetscBool singular)
{
  PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt r = 0; r < mb; r++) {
    PetscInt ncol = 1 + RandInt(s, 4);

    for (PetscInt k = 0; k < ncol; k++) {
      PetscInt c = k == 0 ? r : RandInt(s, mb);

      for (PetscInt i = 0; i < bs * bs; i++) v[i] = RandReal(s) + (k == 0 && i % (bs + 1) == 0 ? 4.0 * bs + 8.0 : 0.0);
      PetscCall(MatSetValuesBlocked(A, 1, &r, 1, &c, v, ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  if (singular) { /* the middle row becomes zero */
    PetscInt row = (mb * bs) / 2;

    PetscCall(MatZeroRows(A, 1, &row, 0.0, NULL, NULL));
  }
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDiff(Vec x, Vec r, PetscReal *e)
{
  Vec       d;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &d));
  PetscCall(VecWAXPY(d, -1.0, r, x));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(r, NORM_INFINITY, &nr));
  *e = (nd == nd) ? nd / nr : PETSC_INFINITY; /* NaN left in x: infinite */
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       bs = 3, mb = 40, nrhs = 3, nfail = 0, repeat = 0;
  PetscInt       iseed = 1;
  PetscInt64     seed;
  PetscBool      singular  = PETSC_FALSE, dev;
  char           vtype[64] = VECSTANDARD;
  Mat            A, F, R, B, X, Xr;
  Vec            b, x, xr;
  MatFactorInfo  info;
  MatFactorError err;
  PetscReal      e[4];
  PetscInt       n;
  MatType        ftype;
  IS             rowp, colp;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mb", &mb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nrhs", &nrhs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &iseed, NULL));
  seed = iseed;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-singular", &singular, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", vtype, sizeof(vtype), &dev));
  n = bs * mb;
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, n, n, n, n));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetType(A, MATSEQBAIJKSPARSE));
  PetscCall(MatSetUp(A));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(Fill(A, bs, mb, &seed, singular));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetType(x, vtype));
  PetscCall(VecSetType(b, vtype));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(VecSetRandom(b, NULL));
  if (dev) PetscCall(MatMult(A, b, x)); /* the values on the device */
  PetscCall(MatFactorInfoInitialize(&info));

  if (singular) { /* the factor error, then PCLU's failure */
    KSP                ksp;
    PC                 pc;
    KSPConvergedReason reason;

    PetscCall(MatGetFactor(A, MATSOLVERPBGDENSE, MAT_FACTOR_LU, &F));
    PetscCall(MatLUFactorSymbolic(F, A, NULL, NULL, &info));
    PetscCall(MatLUFactorNumeric(F, A, &info));
    PetscCall(MatFactorGetError(F, &err));
    {
      PetscReal zv;
      PetscInt  zr;

      PetscCall(MatFactorGetErrorZeroPivot(F, &zv, &zr));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "singular: factor error %s, zero pivot row %" PetscInt_FMT "\n", err == MAT_FACTOR_NUMERIC_ZEROPIVOT ? "MAT_FACTOR_NUMERIC_ZEROPIVOT" : "other", zr));
    }
    if (err != MAT_FACTOR_NUMERIC_ZEROPIVOT) nfail++;
    PetscCall(MatDestroy(&F));
    PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCLU));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERPBGDENSE));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "singular: KSP %s\n", KSPConvergedReasons[reason]));
    if (reason != KSP_DIVERGED_PC_FAILED) nfail++;
    PetscCall(KSPDestroy(&ksp));
  } else {
    for (int pass = 0; pass < 2; pass++) { /* the second after the values change: a new numeric factorization */
      if (pass == 0) {
        PetscCall(MatGetFactor(A, MATSOLVERPBGDENSE, MAT_FACTOR_LU, &F));
        PetscCall(MatLUFactorSymbolic(F, A, NULL, NULL, &info));
      } else {
        PetscCall(MatScale(A, -0.5));
        PetscCall(MatShift(A, 1.0));
      }
      PetscCall(MatLUFactorNumeric(F, A, &info));
      PetscCall(MatFactorGetError(F, &err));
      if (err) nfail++;
      PetscCall(MatGetType(F, &ftype));
      /* the reference: PETSc's LU of the same values (its host factor of baijksparse) */
      PetscCall(MatGetFactor(A, MATSOLVERPETSC, MAT_FACTOR_LU, &R));
      PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &rowp, &colp));
      PetscCall(MatLUFactorSymbolic(R, A, rowp, colp, &info));
      PetscCall(ISDestroy(&rowp));
      PetscCall(ISDestroy(&colp));
      PetscCall(MatLUFactorNumeric(R, A, &info));
      for (int t = 0; t < 2; t++) {
        PetscCall(VecSet(x, NAN));
        if (t) PetscCall(MatSolveTranspose(F, b, x));
        else PetscCall(MatSolve(F, b, x));
        if (t) PetscCall(MatSolveTranspose(R, b, xr));
        else PetscCall(MatSolve(R, b, xr));
        PetscCall(VecDiff(x, xr, &e[t]));
      }
      PetscCall(MatCreateDense(PETSC_COMM_SELF, n, nrhs, n, nrhs, NULL, &B));
      if (dev) PetscCall(MatConvert(B, MATSEQDENSECUDA, MAT_INPLACE_MATRIX, &B));
      PetscCall(MatSetRandom(B, NULL));
      PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
      PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &Xr));
      for (int t = 0; t < 2; t++) {
        PetscReal nd, nr;

        PetscCall(MatZeroEntries(X));
        PetscCall(MatShift(X, NAN));
        if (t) PetscCall(MatMatSolveTranspose(F, B, X));
        else PetscCall(MatMatSolve(F, B, X));
        for (PetscInt j = 0; j < nrhs; j++) { /* the reference a column at a time */
          Vec bj, xj;

          PetscCall(MatDenseGetColumnVecRead(B, j, &bj));
          PetscCall(MatDenseGetColumnVecWrite(Xr, j, &xj));
          if (t) PetscCall(MatSolveTranspose(R, bj, xj));
          else PetscCall(MatSolve(R, bj, xj));
          PetscCall(MatDenseRestoreColumnVecWrite(Xr, j, &xj));
          PetscCall(MatDenseRestoreColumnVecRead(B, j, &bj));
        }
        PetscCall(MatNorm(Xr, NORM_FROBENIUS, &nr));
        PetscCall(MatAXPY(X, -1.0, Xr, SAME_NONZERO_PATTERN));
        PetscCall(MatNorm(X, NORM_FROBENIUS, &nd));
        e[2 + t] = (nd == nd) ? nd / nr : PETSC_INFINITY;
      }
      PetscCall(MatDestroy(&B));
      PetscCall(MatDestroy(&X));
      PetscCall(MatDestroy(&Xr));
      if (repeat > 0 && pass == 1) { /* the time of a solve, each factor */
        for (int f = 0; f < 2; f++) {
          Mat            S = f ? R : F;
          PetscLogDouble t0, t1;
          PetscReal      nx;

          for (PetscInt k = 0; k < 10; k++) PetscCall(MatSolve(S, b, x));
          PetscCall(VecNorm(x, NORM_2, &nx));
          PetscCall(PetscTime(&t0));
          for (PetscInt k = 0; k < repeat; k++) PetscCall(MatSolve(S, b, x));
          PetscCall(VecNorm(x, NORM_2, &nx));
          PetscCall(PetscTime(&t1));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "time of a MatSolve, n %" PetscInt_FMT ", %s: %.1f us (%" PetscInt_FMT " solves)\n", n, f ? "PETSc's LU" : "pbgdense", 1e6 * (t1 - t0) / repeat, repeat));
        }
      }
      PetscCall(MatDestroy(&R));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "pbgdense bs %" PetscInt_FMT " n %" PetscInt_FMT " factor %d (%s): solve %.1e, transpose %.1e, matsolve %.1e, transpose %.1e: %s\n", bs, n, pass + 1, ftype, (double)e[0], (double)e[1], (double)e[2], (double)e[3], (e[0] < 1e-10 && e[1] < 1e-10 && e[2] < 1e-10 && e[3] < 1e-10) ? "ok" : "FAILED"));
      if (!(e[0] < 1e-10 && e[1] < 1e-10 && e[2] < 1e-10 && e[3] < 1e-10)) nfail++;
    }
    PetscCall(MatDestroy(&F));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, nfail ? "FAILED\n" : "OK\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
