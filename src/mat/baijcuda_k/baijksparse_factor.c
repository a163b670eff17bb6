/* PETSc's own factorizations (LU, ILU, Cholesky, ICC: solver type "petsc") of a MATSEQBAIJKSPARSE matrix.

   They are BAIJ's, and their symbolic and numeric phases read the matrix's host arrays directly, not through a method
   of the matrix that our forwarders could refresh. When the values were last changed on the device (MatScale(),
   MatShift(), MatAXPY(), COO assembly, ... after a product: TS scales and shifts each Jacobian so), that host copy is
   stale, and the factor would silently be of the old values. So the factory that PETSc registered for MATSEQBAIJ under
   "petsc" (the default for a MATSEQBAIJKSPARSE matrix too: MatGetFactor() matches base types) is wrapped here: for a
   MATSEQBAIJKSPARSE matrix, the factor's symbolic and numeric phases first bring the host copy up to date (a download
   only when the device copy is newer). Any other matrix gets PETSc's factor untouched. The diagonal blocks of a
   MATMPIBAIJKSPARSE matrix are MATSEQBAIJKSPARSE, so PCBJACOBI's and PCASM's subdomain ILU/LU are covered too.
   Other packages (MUMPS, SuperLU, ...) read BAIJ's arrays the same way and are not wrapped: known_issues.md.

   A small matrix (at most -mat_baijksparse_dense_factor_max_rows rows, default MAT_BAIJKSPARSE_DENSE_FACTOR_ROWS) on a
   CUDA device gets a complete factorization (LU, Cholesky) on the GPU instead: PETSc's MATSEQDENSECUDA factor (cuSOLVER
   getrf/potrf), made from a dense copy of the matrix, whose solves then multiply by A^{-1} computed from the factors
   (MatMatSolve() of the identity). That is the coarse grid of a multigrid: BAIJ's host triangular solves there copied
   the vector to the host and back in every V-cycle. */
#include "baijksparseimpl.h"

#define PBG_FACTOR_OPS "PBG_BAIJKSPARSE_FactorOps"

/* PETSc's factories of MATSEQBAIJ under "petsc", by MatFactorType, saved when the wrapper is registered */
static PetscErrorCode (*PetscSeqBAIJFactory[MAT_FACTOR_NUM_TYPES])(Mat, MatFactorType, Mat *);

/* BAIJ's phases of one factor matrix, replaced in its method table by the wrappers below */
typedef struct {
  PetscErrorCode (*lufactorsymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*ilufactorsymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*choleskyfactorsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*iccfactorsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*lufactornumeric)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*choleskyfactornumeric)(Mat, Mat, const MatFactorInfo *);
  PetscBool densepath; /* the factor is MATSEQDENSECUDA: its phases are given a dense copy of the matrix */
  Mat       dense;     /* that MATSEQDENSE copy */
  Mat       inverse;   /* MATSEQDENSECUDA: A^{-1} from the factors, which MatSolve() multiplies by */
} FactorOps;

static PetscErrorCode FactorOpsDestroy(PetscCtxRt ctx) /* ctx: the address of the FactorOps pointer */
{
  FactorOps **ops = (FactorOps **)ctx;

  PetscFunctionBegin;
  if (*ops) PetscCall(MatDestroy(&(*ops)->dense));
  if (*ops) PetscCall(MatDestroy(&(*ops)->inverse));
  PetscCall(PetscFree(*ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetFactorOps(Mat fact, FactorOps **ops)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)fact, PBG_FACTOR_OPS, (void **)ops));
  PetscCheck(*ops, PETSC_COMM_SELF, PETSC_ERR_PLIB, "factor of a %s matrix without its saved BAIJ phases", MATSEQBAIJKSPARSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host copy of A's values up to date, when A is a MATSEQBAIJKSPARSE matrix (MatLUFactorNumeric() may be given
   another matrix of the same pattern than the one the factor was made from) */
static PetscErrorCode RefreshHost(Mat A)
{
  PetscBool isk;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &isk));
  if (isk) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix the saved phase is to be given: A with its host copy current, or on the dense path A's dense copy made
   again from it (initial: a new copy, for a symbolic phase; else the same copy refilled, the pattern being the same) */
static PetscErrorCode PhaseMatrix(FactorOps *ops, Mat A, PetscBool initial, Mat *M)
{
  PetscFunctionBegin;
  PetscCall(RefreshHost(A));
  *M = A;
  if (!ops->densepath) PetscFunctionReturn(PETSC_SUCCESS);
  if (initial || (ops->dense && A->rmap->n != ops->dense->rmap->n)) PetscCall(MatDestroy(&ops->dense));
  PetscCall(MatConvert(A, MATSEQDENSE, ops->dense ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &ops->dense));
  *M = ops->dense;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The dense path's solves: one product with the inverse (a cuBLAS gemv), where cuSOLVER's getrs/potrs for one right-hand
   side are triangular solves of many dependent launches (ex17's 1029-row coarse grid: KSPSolve 13.9 ms against 11.9 ms
   with BAIJ's host solves, H100) */
static PetscErrorCode DenseInverseSolve(Mat fact, Vec b, Vec x)
{
  FactorOps *ops;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(MatMult(ops->inverse, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DenseInverseSolveTranspose(Mat fact, Vec b, Vec x)
{
  FactorOps *ops;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(MatMultTranspose(ops->inverse, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the dense path's numeric phase: A^{-1} = the factors applied to the identity (getrs/potrs with n right-hand
   sides, efficient), and MatSolve() made a product with it. A failed factorization (a zero pivot, not positive
   definite) keeps PETSc's solves, which report it. */
static PetscErrorCode DenseInverse(Mat fact, FactorOps *ops)
{
  Mat      identity;
  PetscInt n = fact->rmap->n;

  PetscFunctionBegin;
  if (!ops->densepath || fact->factorerrortype != MAT_FACTOR_NOERROR) PetscFunctionReturn(PETSC_SUCCESS);
  if (ops->inverse && ops->inverse->rmap->n != n) PetscCall(MatDestroy(&ops->inverse));
  if (!ops->inverse) PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, n, n, NULL, &ops->inverse));
  PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, n, n, NULL, &identity));
  PetscCall(MatZeroEntries(identity));
  PetscCall(MatShift(identity, 1.0));
  PetscCall(MatMatSolve(fact, identity, ops->inverse));
  PetscCall(MatDestroy(&identity));
  fact->ops->solve          = DenseInverseSolve;
  fact->ops->solvetranspose = DenseInverseSolveTranspose;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LUFactorNumeric_Refreshed(Mat fact, Mat A, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        M;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(PhaseMatrix(ops, A, PETSC_FALSE, &M));
  PetscCall((*ops->lufactornumeric)(fact, M, info));
  PetscCall(DenseInverse(fact, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CholeskyFactorNumeric_Refreshed(Mat fact, Mat A, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        M;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(PhaseMatrix(ops, A, PETSC_FALSE, &M));
  PetscCall((*ops->choleskyfactornumeric)(fact, M, info));
  PetscCall(DenseInverse(fact, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a symbolic phase, which sets the numeric phase BAIJ chose (by block size and ordering): save it and put the
   refreshing one in its place */
static PetscErrorCode WrapNumeric(Mat fact, FactorOps *ops)
{
  PetscFunctionBegin;
  if (fact->ops->lufactornumeric && fact->ops->lufactornumeric != LUFactorNumeric_Refreshed) {
    ops->lufactornumeric       = fact->ops->lufactornumeric;
    fact->ops->lufactornumeric = LUFactorNumeric_Refreshed;
  }
  if (fact->ops->choleskyfactornumeric && fact->ops->choleskyfactornumeric != CholeskyFactorNumeric_Refreshed) {
    ops->choleskyfactornumeric       = fact->ops->choleskyfactornumeric;
    fact->ops->choleskyfactornumeric = CholeskyFactorNumeric_Refreshed;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LUFactorSymbolic_Refreshed(Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        M;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(PhaseMatrix(ops, A, PETSC_TRUE, &M));
  PetscCall((*ops->lufactorsymbolic)(fact, M, row, col, info));
  PetscCall(WrapNumeric(fact, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ILUFactorSymbolic_Refreshed(Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        M;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(PhaseMatrix(ops, A, PETSC_TRUE, &M));
  PetscCall((*ops->ilufactorsymbolic)(fact, M, row, col, info));
  PetscCall(WrapNumeric(fact, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CholeskyFactorSymbolic_Refreshed(Mat fact, Mat A, IS perm, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        M;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(PhaseMatrix(ops, A, PETSC_TRUE, &M));
  PetscCall((*ops->choleskyfactorsymbolic)(fact, M, perm, info));
  PetscCall(WrapNumeric(fact, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ICCFactorSymbolic_Refreshed(Mat fact, Mat A, IS perm, const MatFactorInfo *info)
{
  FactorOps *ops;
  Mat        M;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(PhaseMatrix(ops, A, PETSC_TRUE, &M));
  PetscCall((*ops->iccfactorsymbolic)(fact, M, perm, info));
  PetscCall(WrapNumeric(fact, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The dense GPU path: complete factorizations (LU, Cholesky) of a matrix of at most -mat_baijksparse_dense_factor_max_rows
   rows (0: never) that runs on a CUDA device */
static PetscErrorCode UseDenseFactor(Mat A, MatFactorType ftype, PetscBool *dense)
{
  PetscInt    maxrows = MAT_BAIJKSPARSE_DENSE_FACTOR_ROWS;
  const char *prefix;
  PetscBool   use;

  PetscFunctionBegin;
  *dense = PETSC_FALSE;
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(PetscOptionsGetInt(((PetscObject)A)->options, prefix, "-mat_baijksparse_dense_factor_max_rows", &maxrows, NULL));
  PetscCheck(maxrows >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_baijksparse_dense_factor_max_rows %" PetscInt_FMT ": give 0 (never) or more rows", maxrows);
  if (ftype != MAT_FACTOR_LU && ftype != MAT_FACTOR_CHOLESKY) PetscFunctionReturn(PETSC_SUCCESS);
  if (A->rmap->n > maxrows || A->rmap->n != A->cmap->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use));
  *dense = use;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factory registered for MATSEQBAIJ under "petsc" in place of PETSc's: PETSc's factor, whose phases refresh the
   host copy first when A is MATSEQBAIJKSPARSE */
static PetscErrorCode MatGetFactor_SeqBAIJ_PETSc_Refreshed(Mat A, MatFactorType ftype, Mat *F)
{
  PetscBool  isk, dense = PETSC_FALSE;
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCheck(PetscSeqBAIJFactory[ftype], PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc has no %s factorization of %s matrices", MatFactorTypes[ftype], MATSEQBAIJ);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &isk));
  if (isk) PetscCall(UseDenseFactor(A, ftype, &dense));
  if (dense) {
    PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;

    PetscCall(MatSolverTypeGet(MATSOLVERCUDA, MATSEQDENSECUDA, ftype, NULL, NULL, &create));
    PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc has no %s factorization of %s matrices", MatFactorTypes[ftype], MATSEQDENSECUDA);
    PetscCall((*create)(A, ftype, F));
  } else PetscCall((*PetscSeqBAIJFactory[ftype])(A, ftype, F));
  B = *F;
  if (!isk || !B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&ops));
  ops->lufactorsymbolic       = B->ops->lufactorsymbolic;
  ops->ilufactorsymbolic      = B->ops->ilufactorsymbolic;
  ops->choleskyfactorsymbolic = B->ops->choleskyfactorsymbolic;
  ops->iccfactorsymbolic      = B->ops->iccfactorsymbolic;
  ops->densepath = dense;
  PetscCall(PetscObjectContainerCompose((PetscObject)B, PBG_FACTOR_OPS, ops, FactorOpsDestroy));
  if (ops->lufactorsymbolic) B->ops->lufactorsymbolic = LUFactorSymbolic_Refreshed;
  if (ops->ilufactorsymbolic) B->ops->ilufactorsymbolic = ILUFactorSymbolic_Refreshed;
  if (ops->choleskyfactorsymbolic) B->ops->choleskyfactorsymbolic = CholeskyFactorSymbolic_Refreshed;
  if (ops->iccfactorsymbolic) B->ops->iccfactorsymbolic = ICCFactorSymbolic_Refreshed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called by PetscBlockGPUInitializePackage() (again after each PetscInitialize(): PETSc's registry is rebuilt then) */
PetscErrorCode MatBAIJKSPARSERegisterFactors_Private(void)
{
  const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_ILU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ICC};

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ftypes); i++) {
    PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;
    PetscBool foundtype, foundmtype;

    PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQBAIJ, ftypes[i], &foundtype, &foundmtype, &create));
    if (!create || create == MatGetFactor_SeqBAIJ_PETSc_Refreshed) continue; /* none, or ours already */
    PetscSeqBAIJFactory[ftypes[i]] = create;
    PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQBAIJ, ftypes[i], MatGetFactor_SeqBAIJ_PETSc_Refreshed));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
