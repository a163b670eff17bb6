/* MATSOLVERPBGDENSE: an LU "factorization" of a small MATSEQBAIJKSPARSE matrix (a multigrid coarse grid) that is its
   explicit inverse, made on the device by cuSOLVER (LU with partial pivoting, then the solve of the identity) and
   applied by one GEMV a solve, with no host step: PCMG's and PCGAMG's default coarse solve factors on the host and
   moves the vectors there every V-cycle (issue 40). The factor is a MATSEQDENSECUDA matrix holding the inverse
   (MATSEQDENSE, LAPACK getrf + getri, where no device is usable: the host path, the reference of the tests).
   Device code in cuda/pbgdense.cu. */
#include <petscblaslapack.h>
#include <petsc/private/matimpl.h>
#include <petscblockgpu.h>
#include "pbgdense.h"

/* What a factor keeps beside its dense storage (composed: the dense type owns the matrix's data); where the inverse
   lives is the factor's type (InverseOnDevice()) */
typedef struct {
  PBGDenseWork work; /* device work of the factorization */
} PBGDense;

static PetscErrorCode PBGDenseDestroy(void **ctx)
{
  PBGDense *p = (PBGDense *)*ctx;

  PetscFunctionBegin;
  if (p->work) PetscCall(PBGDenseWorkDestroy_CUDA(&p->work));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the inverse lives on the device: the factor is then a MATSEQDENSECUDA matrix (chosen when it was made) */
static PetscErrorCode InverseOnDevice(Mat F, PetscBool *dev)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)F, MATSEQDENSECUDA, dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PBGDenseGet(Mat F, PBGDense **p)
{
  PetscContainer c = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)F, "PBGDense", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a %s factor", MATSOLVERPBGDENSE);
  PetscCall(PetscContainerGetPointer(c, (void **)p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A zero pivot: PETSc's factor error, as its own LU reports it (an error where the factor must not fail) */
static PetscErrorCode ZeroPivot(Mat F, PetscInt row)
{
  PetscFunctionBegin;
  PetscCheck(!F->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot in row %" PetscInt_FMT " (%s)", row, MATSOLVERPBGDENSE);
  PetscCall(PetscInfo(F, "Zero pivot in row %" PetscInt_FMT "\n", row));
  F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
  F->factorerror_zeropivot_value = 0.0;
  F->factorerror_zeropivot_row   = row;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inverse on the host: A's values as a dense matrix, LAPACK getrf, getri */
static PetscErrorCode InvertOnHost(Mat F, Mat A)
{
  Mat                D;
  const PetscScalar *d;
  PetscScalar       *a, wq;
  PetscBLASInt       n, info = 0, lwork = -1, *ipiv;
  PetscScalar       *work;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(A->rmap->n, &n));
  PetscCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatDenseGetArrayRead(D, &d));
  PetscCall(MatDenseGetArrayWrite(F, &a));
  PetscCall(PetscArraycpy(a, d, (size_t)n * n));
  PetscCall(MatDenseRestoreArrayRead(D, &d));
  PetscCall(MatDestroy(&D));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &ipiv));
  if (n) PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&n, &n, a, &n, ipiv, &info));
  PetscCheck(info >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrf: argument %d is wrong", (int)-info);
  if (info > 0) PetscCall(ZeroPivot(F, (PetscInt)info - 1));
  else if (n) {
    PetscCallBLAS("LAPACKgetri", LAPACKgetri_(&n, a, &n, ipiv, &wq, &lwork, &info));
    PetscCall(PetscBLASIntCast((PetscInt)PetscRealPart(wq), &lwork));
    PetscCall(PetscMalloc1(PetscMax(lwork, 1), &work));
    PetscCallBLAS("LAPACKgetri", LAPACKgetri_(&n, a, &n, ipiv, work, &lwork, &info));
    PetscCall(PetscFree(work));
    PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getri failed: %d", (int)info);
    PetscCall(PetscLogFlops(2.0 * n * n * n / 3.0 + 4.0 * n * n * n / 3.0));
  }
  PetscCall(PetscFree(ipiv));
  PetscCall(MatDenseRestoreArrayWrite(F, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inverse on the device: A's device BSR (its composed view) scattered into the factor's array, inverted there */
static PetscErrorCode InvertOnDevice(Mat F, Mat A, PBGDense *p)
{
  PetscErrorCode (*getview)(Mat, PetscBlockGPUDeviceMatView *) = NULL;
  PetscBlockGPUDeviceMatView v;
  PetscScalar               *a;
  PetscInt                   zrow;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, PBG_GET_DEVICE_MAT_VIEW, &getview));
  PetscCheck(getview, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s needs a %s matrix, not %s", MATSOLVERPBGDENSE, MATSEQBAIJKSPARSE, ((PetscObject)A)->type_name);
  PetscCall((*getview)(A, &v));
  if (v.mtype != PETSC_MEMTYPE_CUDA) { /* A is bound to the CPU since the factor was made: its host values */
    Mat D;

    PetscCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
    PetscCall(MatConvert(D, MATSEQDENSECUDA, MAT_INPLACE_MATRIX, &D));
    PetscCall(MatDenseCUDAGetArrayWrite(F, &a));
    {
      const PetscScalar *d;

      PetscCall(MatDenseCUDAGetArrayRead(D, &d));
      PetscCall(PBGDenseCopy_CUDA(A->rmap->n, d, a));
      PetscCall(MatDenseCUDARestoreArrayRead(D, &d));
    }
    PetscCall(MatDestroy(&D));
  } else {
    PetscCheck(v.itype == PETSC_INT32, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: 32-bit indices expected", MATSOLVERPBGDENSE);
    PetscCall(MatDenseCUDAGetArrayWrite(F, &a));
    PetscCall(PBGDenseFromBSR_CUDA(v.bs, v.mbs, v.nz, (const int *)v.rowptr, (const int *)v.colidx, v.values, a));
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(PBGDenseInvert_CUDA(A->rmap->n, a, &p->work, &zrow));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MatDenseCUDARestoreArrayWrite(F, &a));
  if (zrow >= 0) PetscCall(ZeroPivot(F, zrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = op(inv) b for the columns of dense B into X (nrhs 1: vectors), on the device where the inverse and both operands
   are there, else on the host */
static PetscErrorCode ApplyInverse(Mat F, PetscBool trans, PetscInt nrhs, const PetscScalar *b, PetscMemType mb, PetscInt ldb, PetscScalar *x, PetscMemType mx, PetscInt ldx, PetscBool *done)
{
  const PetscScalar *inv;
  PetscBool          dev;

  PetscFunctionBegin;
  PetscCall(InverseOnDevice(F, &dev));
  *done = PETSC_FALSE;
  if (!dev || !PetscMemTypeDevice(mb) || !PetscMemTypeDevice(mx)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatDenseCUDAGetArrayRead(F, &inv));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(PBGDenseApply_CUDA(F->rmap->n, inv, trans, nrhs, b, ldb, x, ldx));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MatDenseCUDARestoreArrayRead(F, &inv));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ApplyInverseOnHost(Mat F, PetscBool trans, PetscInt nrhs, const PetscScalar *b, PetscInt ldb, PetscScalar *x, PetscInt ldx)
{
  const PetscScalar *inv;
  PetscBLASInt       n, nr, lb, lx;
  const PetscScalar  one = 1.0, zero = 0.0;
  PetscBLASInt       ione = 1;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(F->rmap->n, &n));
  PetscCall(PetscBLASIntCast(nrhs, &nr));
  PetscCall(PetscBLASIntCast(ldb, &lb));
  PetscCall(PetscBLASIntCast(ldx, &lx));
  if (!n || !nr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatDenseGetArrayRead(F, &inv));
  if (nr == 1) PetscCallBLAS("BLASgemv", BLASgemv_(trans ? "T" : "N", &n, &n, &one, inv, &n, b, &ione, &zero, x, &ione));
  else PetscCallBLAS("BLASgemm", BLASgemm_(trans ? "T" : "N", "N", &n, &nr, &n, &one, inv, &n, b, &lb, &zero, x, &lx));
  PetscCall(MatDenseRestoreArrayRead(F, &inv));
  PetscCall(PetscLogFlops(2.0 * n * n * nr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolveVec(Mat F, Vec b, Vec x, PetscBool trans)
{
  const PetscScalar *pb;
  PetscScalar       *px;
  PetscMemType       mb, mx;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(VecGetArrayReadAndMemType(b, &pb, &mb));
  PetscCall(VecGetArrayWriteAndMemType(x, &px, &mx));
  PetscCall(ApplyInverse(F, trans, 1, pb, mb, F->rmap->n, px, mx, F->rmap->n, &done));
  PetscCall(VecRestoreArrayWriteAndMemType(x, &px));
  PetscCall(VecRestoreArrayReadAndMemType(b, &pb));
  if (!done) { /* host vectors (or a host inverse): the host arrays */
    PetscCall(VecGetArrayRead(b, &pb));
    PetscCall(VecGetArrayWrite(x, &px));
    PetscCall(ApplyInverseOnHost(F, trans, 1, pb, F->rmap->n, px, F->rmap->n));
    PetscCall(VecRestoreArrayWrite(x, &px));
    PetscCall(VecRestoreArrayRead(b, &pb));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_PBGDense(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(SolveVec(F, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_PBGDense(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(SolveVec(F, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveDense(Mat F, Mat B, Mat X, PetscBool trans)
{
  const PetscScalar *pb;
  PetscScalar       *px;
  PetscMemType       mb, mx;
  PetscInt           ldb, ldx, nrhs;
  PetscBool          done, dense;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &dense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCheck(dense, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the right-hand sides must be a dense matrix, not %s", MATSOLVERPBGDENSE, ((PetscObject)B)->type_name);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &dense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCheck(dense, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the solutions must be a dense matrix, not %s", MATSOLVERPBGDENSE, ((PetscObject)X)->type_name);
  PetscCall(MatGetSize(B, NULL, &nrhs));
  PetscCall(MatDenseGetLDA(B, &ldb));
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(MatDenseGetArrayReadAndMemType(B, &pb, &mb));
  PetscCall(MatDenseGetArrayWriteAndMemType(X, &px, &mx));
  PetscCall(ApplyInverse(F, trans, nrhs, pb, mb, ldb, px, mx, ldx, &done));
  PetscCall(MatDenseRestoreArrayWriteAndMemType(X, &px));
  PetscCall(MatDenseRestoreArrayReadAndMemType(B, &pb));
  if (!done) {
    PetscCall(MatDenseGetArrayRead(B, &pb));
    PetscCall(MatDenseGetArrayWrite(X, &px));
    PetscCall(ApplyInverseOnHost(F, trans, nrhs, pb, ldb, px, ldx));
    PetscCall(MatDenseRestoreArrayWrite(X, &px));
    PetscCall(MatDenseRestoreArrayRead(B, &pb));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolve_PBGDense(Mat F, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatSolveDense(F, B, X, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMatSolveTranspose_PBGDense(Mat F, Mat B, Mat X)
{
  PetscFunctionBegin;
  PetscCall(MatSolveDense(F, B, X, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_PBGDense(Mat F, Mat A, const MatFactorInfo *info)
{
  PBGDense *p;
  PetscBool dev;

  PetscFunctionBegin;
  (void)info; /* pivoting is partial and exact: no shift, no ordering */
  PetscCall(PBGDenseGet(F, &p));
  F->factorerrortype = MAT_FACTOR_NOERROR;
  PetscCall(InverseOnDevice(F, &dev));
  if (dev) PetscCall(InvertOnDevice(F, A, p));
  else PetscCall(InvertOnHost(F, A));
  F->ops->solve             = MatSolve_PBGDense;
  F->ops->solvetranspose    = MatSolveTranspose_PBGDense;
  F->ops->matsolve          = MatMatSolve_PBGDense;
  F->ops->matsolvetranspose = MatMatSolveTranspose_PBGDense;
  F->assembled              = PETSC_TRUE;
  F->preallocated           = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorSymbolic_PBGDense(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  (void)row, (void)col, (void)info;
  PetscCheck(A->rmap->n == F->rmap->n && A->cmap->n == F->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the matrix is %" PetscInt_FMT " x %" PetscInt_FMT ", the factor %" PetscInt_FMT " x %" PetscInt_FMT, MATSOLVERPBGDENSE, A->rmap->n, A->cmap->n,
             F->rmap->n, F->cmap->n);
  F->ops->lufactornumeric = MatLUFactorNumeric_PBGDense;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFactorGetSolverType_PBGDense(Mat F, MatSolverType *type)
{
  PetscFunctionBegin;
  (void)F;
  *type = MATSOLVERPBGDENSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest matrix this solver takes: its inverse is dense (n^2 values) */
#define PBGDENSE_MAX_ROWS 16384

static PetscErrorCode MatGetFactor_SeqBAIJKSPARSE_PBGDense(Mat A, MatFactorType ftype, Mat *F)
{
  PBGDense *p;
  PetscBool dev;
  PetscInt  n = A->rmap->n;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_LU, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "%s makes only LU factors (an explicit inverse), not %s", MATSOLVERPBGDENSE, MatFactorTypes[ftype]);
  PetscCheck(A->rmap->n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the matrix is not square (%" PetscInt_FMT " x %" PetscInt_FMT ")", MATSOLVERPBGDENSE, A->rmap->n, A->cmap->n);
  PetscCheck(n <= PBGDENSE_MAX_ROWS, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s is for small (coarse-grid) matrices: %" PetscInt_FMT " rows, at most %d (its inverse is dense)", MATSOLVERPBGDENSE, n, PBGDENSE_MAX_ROWS);
  PetscCall(PetscBlockGPUDeviceAvailable(&dev));
  if (dev) PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &dev)); /* the device path reads its device copy */
  dev = (PetscBool)(dev && !A->boundtocpu);
  PetscCall(MatCreate(PETSC_COMM_SELF, F));
  PetscCall(MatSetSizes(*F, n, n, n, n));
  PetscCall(MatSetType(*F, dev ? MATSEQDENSECUDA : MATSEQDENSE));
  PetscCall(MatSetUp(*F));
  PetscCall(PetscNew(&p));
  PetscCall(PetscObjectContainerCompose((PetscObject)*F, "PBGDense", p, (PetscCtxDestroyFn *)PBGDenseDestroy));
  (*F)->factortype                  = MAT_FACTOR_LU;
  (*F)->canuseordering              = PETSC_FALSE;
  (*F)->ops->lufactorsymbolic       = MatLUFactorSymbolic_PBGDense;
  (*F)->ops->lufactornumeric        = NULL;
  (*F)->ops->solve                  = NULL; /* until the numeric factorization */
  (*F)->ops->solvetranspose         = NULL;
  (*F)->ops->matsolve               = NULL;
  (*F)->ops->matsolvetranspose      = NULL;
  (*F)->ops->choleskyfactorsymbolic = NULL;
  (*F)->ops->iccfactorsymbolic      = NULL;
  (*F)->ops->ilufactorsymbolic      = NULL;
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatFactorGetSolverType_C", MatFactorGetSolverType_PBGDense)); /* not the dense type's */
  PetscCall(PetscFree((*F)->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERPBGDENSE, &(*F)->solvertype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  MATSOLVERPBGDENSE - "pbgdense" - an LU factorization of a small `MATSEQBAIJKSPARSE` matrix that is its explicit inverse,
  made and applied on the GPU: cuSOLVER's LU with partial pivoting and the solve of the identity once per numeric
  factorization, then one GEMV (cuBLAS) per `MatSolve()` and one GEMM per `MatMatSolve()`, with no host step and no
  vector copy. Meant for the coarse grid of `PCMG` and `PCGAMG` (up to some thousands of unknowns; at most 16384 rows);
  the host path (LAPACK getrf, getri; BLAS) runs where no CUDA device is usable.

  Options Database Keys:
+ -pc_factor_mat_solver_type pbgdense - use it with `PCLU`
- -mg_coarse_pc_type lu -mg_coarse_pc_factor_mat_solver_type pbgdense - as the coarse solve of `PCMG` / `PCGAMG`

  Notes:
  It is chosen by name only: the default LU of `MATSEQBAIJKSPARSE` is PETSc's host one below 16384 rows and cuSPARSE's
  from there (`-mat_baijksparse_factor_device_rows`). A plain `MATSEQBAIJ`
  matrix, or one bound to the CPU, takes the host path. A zero pivot gives PETSc's factor error (`MAT_FACTOR_NUMERIC_ZEROPIVOT`, `PC_FACTOR_NUMERIC_ZEROPIVOT` in `PCLU`); pivots
  are exact: no shift, no ordering. The factor is a `MATSEQDENSECUDA` (or `MATSEQDENSE`) matrix holding the inverse.

  Level: intermediate

.seealso: `PCLU`, `PCMG`, `PCGAMG`, `MatGetFactor()`, `MATBAIJKSPARSE`, `MATSOLVERPETSC`
M*/

PetscErrorCode MatPBGDenseRegister_Private(void)
{
  PetscFunctionBegin;
  /* under BAIJ's name: asked for by name, it serves MATSEQBAIJKSPARSE (a name beginning with "seqbaij"), and a plain
     MATSEQBAIJ by the host path; it is never the default (MatGetFactor() with no solver type takes the first
     registered for the exact type, baijksparse_factor.c's, then for its base) */
  PetscCall(MatSolverTypeRegister(MATSOLVERPBGDENSE, MATSEQBAIJ, MAT_FACTOR_LU, MatGetFactor_SeqBAIJKSPARSE_PBGDense));
  PetscFunctionReturn(PETSC_SUCCESS);
}
