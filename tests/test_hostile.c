static char help[] = "Regressions of the hostile-input sweep (issue 37): each -case runs a sequence that gave a silent wrong result, a crash,\n"
                     "a leak or a hang, compared with MATAIJ or PETSc's own PCs on the same input.\n"
                     "  -case transpose:   MatTranspose() MAT_INITIAL_MATRIX, then the values changed (MatScale, MatShift) and\n"
                     "                     MAT_REUSE_MATRIX, then MAT_INPLACE_MATRIX, each against AIJ's transpose (-err_pattern: a\n"
                     "                     block added before the reuse, which must be refused)\n"
                     "  -case submat:      MatCreateSubMatrix() with whole-block index sets that repeat a block row (-repeat rows) or a\n"
                     "                     block column (-repeat cols; on several ranks a column block of rank 0 also on the last rank)\n"
                     "  -case lu_inplace:  MatLUFactor() in place, MatSolve() against AIJ's LU, then MatDestroy(); and KSPPREONLY with\n"
                     "                     -pc_type lu -pc_factor_in_place on a second matrix\n"
                     "  -case submatrices: MatCreateSubMatrices() (each rank's rows and the next rank's first block row), INITIAL and\n"
                     "                     REUSE after MatScale, each against AIJ's, then MatDestroySubMatrices() (run with -malloc_dump)\n"
                     "  -case vbj_scaled:  three diagonally dominant 7 x 7 blocks a rank, coupled weakly, one scaled by -scale (1e15):\n"
                     "                     GMRES with the default vbjacobi (which merges the three) must converge as pbjacobi does\n"
                     "  -case nonsquare:   PCSetUp() of vbjacobi on a matrix whose local diagonal part is square on rank 0 only: refused\n"
                     "                     on every rank, with the error handler returning (no rank left waiting)\n"
                     "  -bs <3>, -nb <block rows a rank, 4>, -seed <1>, -mat_type <baijksparse> (the matrix under test)\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include "test_refusal.h"
#include "test_rng.h"

typedef struct {
  PetscInt    bs, nb, seed;
  char        mtype[64];
  PetscBool   err_pattern, repeat_rows; /* -err_pattern, -repeat rows */
  PetscReal   scale;                    /* -scale */
  PetscMPIInt rank, size;
  PetscInt    nfail;
} Ctx;

/* A nonsymmetric diagonally dominant block matrix of type c->mtype (and its AIJ copy): couplings to the block rows 1
   and 2 ahead (wrapping, so across ranks), dense blocks from the seed */
static PetscErrorCode Build(Ctx *c, Mat *A, Mat *R)
{
  PetscInt     rstart, rend, Nb, bs = c->bs;
  PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, c->nb * bs, c->nb * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, c->mtype));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatXAIJSetPreallocation(*A, bs, NULL, NULL, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetSize(*A, &Nb, NULL));
  Nb /= bs;
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt ib = rstart / bs; ib < rend / bs; ib++) {
    for (PetscInt k = 0; k < 3; k++) {
      PetscInt   jb = (ib + k) % Nb;
      PetscInt64 s  = (PetscInt64)c->seed + 1000003 * ib + 7 * k + 1;

      for (PetscInt e = 0; e < bs * bs; e++) v[e] = (k ? 0.2 : 0.5) * RandReal(&s);
      if (!k)
        for (PetscInt e = 0; e < bs; e++) v[e * bs + e] += 3.0 + 0.1 * (PetscReal)e;
      PetscCall(MatSetValuesBlocked(*A, 1, &ib, 1, &jb, v, ADD_VALUES));
    }
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (R) PetscCall(MatConvert(*A, MATAIJ, MAT_INITIAL_MATRIX, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||X - Y||_F / ||Y||_F through AIJ copies (any types, same sizes required), printed with what; above 1e-13 fails */
static PetscErrorCode Compare(Ctx *c, Mat X, Mat Y, const char *what)
{
  Mat       Xa, Ya;
  PetscInt  m[2], n[2];
  PetscReal d = 0, ny;
  MatType   t;
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(X, &m[0], &n[0]));
  PetscCall(MatGetSize(Y, &m[1], &n[1]));
  PetscCall(MatGetType(X, &t));
  if (m[0] != m[1] || n[0] != n[1]) {
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)X), "%s: %s %" PetscInt_FMT " x %" PetscInt_FMT ", AIJ's %" PetscInt_FMT " x %" PetscInt_FMT ": FAILED\n", what, t, m[0], n[0], m[1], n[1]));
    c->nfail++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &Xa));
  PetscCall(MatConvert(Y, MATAIJ, MAT_INITIAL_MATRIX, &Ya));
  PetscCall(MatNorm(Ya, NORM_FROBENIUS, &ny));
  PetscCall(MatAXPY(Xa, -1.0, Ya, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Xa, NORM_FROBENIUS, &d));
  d  = ny > 0 ? d / ny : d;
  ok = (PetscBool)(d <= 1e-13);
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)X), "%s: %s %" PetscInt_FMT " x %" PetscInt_FMT ", rel diff from AIJ's %.2e: %s\n", what, t, m[0], n[0], (double)d, ok ? "ok" : "FAILED"));
  if (!ok) c->nfail++;
  PetscCall(MatDestroy(&Xa));
  PetscCall(MatDestroy(&Ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseTranspose(Ctx *c)
{
  Mat A, R, T, TR;

  PetscFunctionBeginUser;
  PetscCall(Build(c, &A, &R));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &T));
  PetscCall(MatTranspose(R, MAT_INITIAL_MATRIX, &TR));
  PetscCall(Compare(c, T, TR, "transpose initial"));
  for (PetscInt round = 0; round < 2; round++) { /* new values, the pattern kept (on a GPU: changed on the device) */
    PetscCall(MatScale(A, -3.0 + round));
    PetscCall(MatShift(A, 1.5));
    PetscCall(MatScale(R, -3.0 + round));
    PetscCall(MatShift(R, 1.5));
    if (c->err_pattern) { /* a block outside the pattern: the transpose to reuse no longer fits */
      PetscInt    i   = 0, j, N;
      PetscScalar one = 1;

      PetscCall(MatGetSize(A, &N, NULL));
      j = N - 1;
      if (!c->rank) PetscCall(MatSetValues(A, 1, &i, 1, &j, &one, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatTranspose(A, MAT_REUSE_MATRIX, &T));
    }
    PetscCall(MatTranspose(A, MAT_REUSE_MATRIX, &T));
    PetscCall(MatTranspose(R, MAT_REUSE_MATRIX, &TR));
    PetscCall(Compare(c, T, TR, round ? "transpose reused twice" : "transpose reused"));
  }
  PetscCall(MatTranspose(A, MAT_INPLACE_MATRIX, &A));
  PetscCall(Compare(c, A, TR, "transpose in place"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&T));
  PetscCall(MatDestroy(&TR));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows: each rank's block rows with its first one again at the end; cols: every column, and on several ranks rank 0's
   first column block also on the last rank (a column repeated across ranks), on one rank block 0 twice */
static PetscErrorCode CaseSubmat(Ctx *c)
{
  const PetscBool repeat_rows = c->repeat_rows;
  Mat             A, R, S, SR;
  IS              isr, isc;
  PetscInt        rstart, rend, bs = c->bs, n = 0, *idx;
  PetscBool       repeat_here;

  PetscFunctionBeginUser;
  PetscCall(Build(c, &A, &R));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(PetscMalloc1(rend - rstart + bs, &idx));
  for (PetscInt r = rstart; r < rend; r++) idx[n++] = r;
  if (repeat_rows)
    for (PetscInt q = 0; q < bs; q++) idx[n++] = rstart + q;
  PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, n, idx, PETSC_COPY_VALUES, &isr));
  n           = 0;
  repeat_here = (PetscBool)(!repeat_rows && c->rank == c->size - 1);
  for (PetscInt r = rstart; r < rend; r++) idx[n++] = r;
  if (repeat_here)
    for (PetscInt q = 0; q < bs; q++) idx[n++] = q;
  PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, n, idx, PETSC_COPY_VALUES, &isc));
  PetscCall(PetscFree(idx));
  PetscCall(MatCreateSubMatrix(R, isr, isc, MAT_INITIAL_MATRIX, &SR));
  PetscCall(MatCreateSubMatrix(A, isr, isc, MAT_INITIAL_MATRIX, &S));
  PetscCall(Compare(c, S, SR, repeat_rows ? "sub-matrix, a block row repeated" : "sub-matrix, a block column repeated"));
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(R, 2.0));
  PetscCall(MatCreateSubMatrix(R, isr, isc, MAT_REUSE_MATRIX, &SR));
  PetscCall(MatCreateSubMatrix(A, isr, isc, MAT_REUSE_MATRIX, &S));
  PetscCall(Compare(c, S, SR, "sub-matrix reused"));
  PetscCall(ISDestroy(&isr));
  PetscCall(ISDestroy(&isc));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&SR));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseLUInPlace(Ctx *c)
{
  Mat           A, R, F;
  Vec           b, x, xr;
  IS            row, col;
  MatFactorInfo info;
  PetscReal     d, nx;
  MatType       t;
  KSP           ksp;

  PetscFunctionBeginUser;
  PetscCheck(c->size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-case lu_inplace runs on one rank");
  PetscCall(Build(c, &A, &R));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(MatGetFactor(R, MATSOLVERPETSC, MAT_FACTOR_LU, &F));
  PetscCall(MatGetOrdering(R, MATORDERINGNATURAL, &row, &col));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatLUFactorSymbolic(F, R, row, col, &info));
  PetscCall(MatLUFactorNumeric(F, R, &info));
  PetscCall(MatSolve(F, b, xr));
  PetscCall(MatLUFactor(A, row, col, &info));
  PetscCall(MatSolve(A, b, x));
  PetscCall(MatGetType(A, &t));
  PetscCall(VecNorm(xr, NORM_2, &nx));
  PetscCall(VecAXPY(x, -1.0, xr));
  PetscCall(VecNorm(x, NORM_2, &d));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatLUFactor in place (now %s): rel diff of the solve from AIJ's LU %.2e: %s\n", t, (double)(d / nx), d <= 1e-12 * nx ? "ok" : "FAILED"));
  if (!(d <= 1e-12 * nx)) c->nfail++;
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the factored matrix destroyed\n"));
  /* the PC's in-place factor of a second matrix */
  PetscCall(Build(c, &A, NULL));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPSetOptionsPrefix(ksp, "inplace_"));
  PetscCall(PetscOptionsSetValue(NULL, "-inplace_pc_type", "lu"));
  PetscCall(PetscOptionsSetValue(NULL, "-inplace_pc_factor_in_place", NULL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecAXPY(x, -1.0, xr));
  PetscCall(VecNorm(x, NORM_2, &d));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-pc_type lu -pc_factor_in_place: rel diff from AIJ's LU %.2e: %s\n", (double)(d / nx), d <= 1e-12 * nx ? "ok" : "FAILED"));
  if (!(d <= 1e-12 * nx)) c->nfail++;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the PC's factored matrix destroyed\n"));
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&R));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseSubMatrices(Ctx *c)
{
  Mat     *S, *SR, A, R;
  IS       is[2];
  PetscInt rstart, rend, N, bs = c->bs, *idx, n;

  PetscFunctionBeginUser;
  PetscCall(Build(c, &A, &R));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(PetscMalloc1(rend - rstart + bs, &idx));
  for (PetscInt t = 0; t < 2; t++) { /* this rank's rows; and the same with the next block row (wrapping) */
    n = 0;
    for (PetscInt r = rstart; r < rend; r++) idx[n++] = r;
    if (t)
      for (PetscInt q = 0; q < bs; q++) idx[n++] = (rend + q) % N;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, idx, PETSC_COPY_VALUES, &is[t]));
    PetscCall(ISSort(is[t]));
  }
  PetscCall(PetscFree(idx));
  PetscCall(MatCreateSubMatrices(A, 2, is, is, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatCreateSubMatrices(R, 2, is, is, MAT_INITIAL_MATRIX, &SR));
  for (PetscInt t = 0; t < 2; t++) PetscCall(Compare(c, S[t], SR[t], t ? "sub-matrices: rows and the next block row" : "sub-matrices: the rank's rows"));
  PetscCall(MatScale(A, -2.0));
  PetscCall(MatScale(R, -2.0));
  PetscCall(MatCreateSubMatrices(A, 2, is, is, MAT_REUSE_MATRIX, &S));
  PetscCall(MatCreateSubMatrices(R, 2, is, is, MAT_REUSE_MATRIX, &SR));
  for (PetscInt t = 0; t < 2; t++) PetscCall(Compare(c, S[t], SR[t], "sub-matrices reused"));
  PetscCall(MatDestroySubMatrices(2, &S));
  PetscCall(MatDestroySubMatrices(2, &SR));
  for (PetscInt t = 0; t < 2; t++) PetscCall(ISDestroy(&is[t]));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* nblk 7 x 7 blocks a rank, block-tridiagonal (coupled to the neighbouring blocks, across ranks too), diagonally
   dominant; block 1 of each rank scaled by `scale`, row by row (a row scaling: the solution is the same) */
static PetscErrorCode CaseVBJScaled(Ctx *c)
{
  const PetscReal    scale = c->scale;
  const PetscInt     nblk = 3, k = 7;
  Mat                A;
  Vec                x, b;
  PetscInt           rstart, N, its[2];
  KSPConvergedReason reason[2];
  const char        *pcs[2] = {PCVBJACOBI, PCPBJACOBI};

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, nblk * k, nblk * k, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(A, k));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  for (PetscInt bi = 0; bi < nblk; bi++) {
    const PetscInt  gb = rstart / k + bi;
    const PetscReal s  = bi == 1 ? scale : 1.0;

    for (PetscInt i = 0; i < k; i++) {
      PetscInt   row = gb * k + i;
      PetscInt64 sd  = (PetscInt64)c->seed + 7919 * row + 1;

      for (PetscInt nbr = -1; nbr <= 1; nbr++) {
        PetscInt cb = gb + nbr;

        if (cb < 0 || cb * k >= N) continue;
        for (PetscInt j = 0; j < k; j++) {
          PetscInt    col = cb * k + j;
          PetscScalar v   = s * (nbr ? 0.05 : 0.5) * RandReal(&sd);

          if (col == row) v += s * 6.0;
          PetscCall(MatSetValue(A, row, col, v, INSERT_VALUES));
        }
      }
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  for (PetscInt p = 0; p < 2; p++) {
    KSP ksp;
    PC  pc;

    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, pcs[p]));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 200));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its[p]));
    PetscCall(KSPGetConvergedReason(ksp, &reason[p]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s in %" PetscInt_FMT " iterations\n", pcs[p], KSPConvergedReasons[reason[p]], its[p]));
    if (!p) PetscCall(KSPView(ksp, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(KSPDestroy(&ksp));
  }
  if (!(reason[0] > 0 && reason[1] > 0 && its[0] <= its[1])) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "vbjacobi did not converge as pbjacobi did: FAILED\n"));
    c->nfail++;
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 8 x 9 on two ranks (rows 4 + 4, columns 4 + 5): the local diagonal part is square on rank 0 only */
static PetscErrorCode CaseNonSquare(Ctx *c)
{
  Mat            A;
  PC             pc;
  PetscErrorCode ierr;
  PetscInt       rstart, rend;

  PetscFunctionBeginUser;
  PetscCheck(c->size == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-case nonsquare runs on two ranks");
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, 4, c->rank ? 5 : 4, 8, 9, 1, NULL, 1, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) PetscCall(MatSetValue(A, r, r, 2.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCSetOperators(pc, A, A));
  PBG_TEST_REFUSE(ierr, PCSetUp(pc));
  PetscCall(PBGTestRefused(PETSC_COMM_WORLD, ierr, "PCSetUp()"));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const struct {
  const char *name;
  PetscErrorCode (*run)(Ctx *);
} Cases[] = {
  {"transpose", CaseTranspose}, {"submat", CaseSubmat}, {"lu_inplace", CaseLUInPlace}, {"submatrices", CaseSubMatrices}, {"vbj_scaled", CaseVBJScaled}, {"nonsquare", CaseNonSquare},
};

int main(int argc, char **argv)
{
  Ctx       c;
  char      name[32] = "", repeat[16] = "rows";
  PetscBool found = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.bs    = 3;
  c.nb    = 4;
  c.seed  = 1;
  c.scale = 1e15;
  PetscCall(PetscStrncpy(c.mtype, MATBAIJKSPARSE, sizeof(c.mtype)));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &c.bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &c.nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &c.seed, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", c.mtype, sizeof(c.mtype), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", name, sizeof(name), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-repeat", repeat, sizeof(repeat), NULL));
  PetscCall(PetscStrcmp(repeat, "rows", &c.repeat_rows));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-err_pattern", &c.err_pattern, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-scale", &c.scale, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &c.rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &c.size));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(Cases) && !found; i++) {
    PetscCall(PetscStrcmp(name, Cases[i].name, &found));
    if (found) PetscCall(Cases[i].run(&c));
  }
  PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown -case '%s'", name);
  if (!c.nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %" PetscInt_FMT " checks\n", c.nfail));
  PetscCall(PetscFinalize());
  return c.nfail ? 1 : 0;
}
