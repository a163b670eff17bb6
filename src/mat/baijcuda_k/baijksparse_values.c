/* MATSEQBAIJKSPARSE value operations on the device copy (cuBLAS and our kernels in cuda/baijksparse_values.cu): MatScale,
   MatZeroEntries, MatAXPY (same pattern, and a subset), MatCopy, MatShift, MatDiagonalSet, MatGetDiagonal,
   MatDiagonalScale, MatZeroRows, MatZeroRowsColumns, MatDuplicate. Each runs on the device when
   MatSeqBAIJKSPARSEValuesOnDevice_Private() says the values may live there (and, for those that write diagonal entries,
   every diagonal block is stored: a missing one is a new nonzero, which only the host can insert), and then leaves the
   device copy newer (MatBAIJKSPARSEMarkDeviceNewer_Private()) without touching the host copy; otherwise BAIJ's host
   method runs after the host copy is brought up to date. Vectors on the host are uploaded (their n entries, not the matrix).
   Operations that change values also advance the object state themselves, whether or not PETSc's wrapper does (a second
   increase is harmless; a missing one would leave a PC believing the matrix unchanged). The MPI type runs them part by
   part (mpibaijksparse.c). */
#include "baijksparse_device.h"
#include <petscdevice_cuda.h>

/* ---------------------------------------------------------------------------------------------- values on the device */
/* The entries of the device values (nz blocks of bs^2) and the cuBLAS handle on PETSc's stream */
static PetscErrorCode DeviceValues(Mat A, PetscScalar **val, PetscInt64 *len, cublasHandle_t *cb)
{
  MatBAIJKSPARSEDevice *d;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(A)); /* uploads the values when the host is newer */
  d    = ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev;
  *val = d->val;
  *len = (PetscInt64)d->nz * d->bs * d->bs;
  if (cb) PetscCall(PetscCUBLASGetHandle(cb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuBLAS takes int lengths: calls f(offset, count) on chunks of at most 2^30 entries */
#define PBG_CHUNKS(len, f) \
  do { \
    for (PetscInt64 off_ = 0; off_ < (len); off_ += ((PetscInt64)1 << 30)) { \
      const int cnt_ = (int)PetscMin((len)-off_, ((PetscInt64)1 << 30)); \
      f(off_, cnt_); \
    } \
  } while (0)

PetscErrorCode MatScale_SeqBAIJKSPARSE(Mat A, PetscScalar a)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscBool           dev;
  PetscScalar        *val;
  PetscInt64          len;
  cublasHandle_t      cb;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
  if (!dev) {
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.scale)(A, a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DeviceValues(A, &val, &len, &cb));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
#define PBG_SCAL(off, cnt) PetscCallCUBLAS(cublasDscal(cb, cnt, &a, val + off, 1))
  PBG_CHUNKS(len, PBG_SCAL);
#undef PBG_SCAL
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)len));
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, 0, 0, 0));
  MatBAIJKSPARSEMarkDeviceNewer_Private(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroEntries_SeqBAIJKSPARSE(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscBool           dev;
  PetscScalar        *val;
  PetscInt64          len;
  cudaStream_t        stream;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
  if (!dev) {
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.zeroentries)(A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* no upload first: every value is overwritten (the pattern and kernel choice still come up to date) */
  if (A->offloadmask == PETSC_OFFLOAD_CPU) MatBAIJKSPARSEMarkDeviceNewer_Private(A);
  PetscCall(DeviceValues(A, &val, &len, NULL));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (len) PetscCall(MatBAIJKSPARSEDeviceZero_Private(val, (size_t)len * sizeof(PetscScalar), stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, 0, 0, 0));
  MatBAIJKSPARSEMarkDeviceNewer_Private(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether X and Y (both seqbaijksparse) have the same block pattern on the device */
static PetscErrorCode SameDevicePattern(Mat X, Mat Y, PetscBool *same)
{
  PetscBool isk, ondev;

  PetscFunctionBegin;
  *same = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQBAIJKSPARSE, &isk));
  if (!isk || X->rmap->bs != Y->rmap->bs || X->rmap->n != Y->rmap->n || X->cmap->n != Y->cmap->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(X, &ondev));
  if (!ondev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(X));
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(Y));
  *same = (PetscBool)(((Mat_SeqBAIJKSPARSE *)X->spptr)->dev->nz == ((Mat_SeqBAIJKSPARSE *)Y->spptr)->dev->nz);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether X (seqbaij or seqbaijksparse) has Y's block pattern, compared on the host arrays as AIJ's MatAXPY() compares
   them for UNKNOWN_NONZERO_PATTERN (what TS passes at every step: without it, the generic row-by-row MatAXPY_Basic()
   ran, slowly, at every step). MatGetRowIJ() of our type touches no values.
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
PetscErrorCode MatBAIJKSPARSESameBlockPattern_Private(Mat X, Mat Y, PetscBool *same)
{
  PetscBool       isbaij, dx = PETSC_FALSE, dy = PETSC_FALSE;
  PetscInt        mx, my;
  const PetscInt *xi, *xj, *yi, *yj;

  PetscFunctionBegin;
  *same = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &isbaij, MATSEQBAIJKSPARSE, MATSEQBAIJ, ""));
  if (!isbaij || X->rmap->bs != Y->rmap->bs || X->rmap->n != Y->rmap->n || X->cmap->n != Y->cmap->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetRowIJ(X, 0, PETSC_FALSE, PETSC_TRUE, &mx, &xi, &xj, &dx));
  PetscCall(MatGetRowIJ(Y, 0, PETSC_FALSE, PETSC_TRUE, &my, &yi, &yj, &dy));
  if (dx && dy && mx == my && xi[mx] == yi[my]) {
    PetscCall(PetscArraycmp(xi, yi, mx + 1, same));
    if (*same) PetscCall(PetscArraycmp(xj, yj, xi[mx], same));
  }
  if (dx) PetscCall(MatRestoreRowIJ(X, 0, PETSC_FALSE, PETSC_TRUE, &mx, &xi, &xj, &dx));
  if (dy) PetscCall(MatRestoreRowIJ(Y, 0, PETSC_FALSE, PETSC_TRUE, &my, &yi, &yj, &dy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X. BAIJ's MatAXPY() with another pattern builds a new matrix and merges it into Y with MatHeaderMerge(), which
   keeps Y's methods but not its private data: the subclass would lose its state (and leak it). So Y runs the operation as
   a plain BAIJ, converted in place and back. The same pattern runs on the device when both live there; a subset is
   BAIJ's direct update of the host values. */
PetscErrorCode MatAXPY_SeqBAIJKSPARSE(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_SeqBAIJKSPARSE *k   = (Mat_SeqBAIJKSPARSE *)Y->spptr;
  PetscBool           dev = PETSC_FALSE;

  PetscFunctionBegin;
  if (str == UNKNOWN_NONZERO_PATTERN && X != Y) {
    PetscBool same;

    PetscCall(MatBAIJKSPARSESameBlockPattern_Private(X, Y, &same));
    if (same) str = SAME_NONZERO_PATTERN;
  }
  if (str == SAME_NONZERO_PATTERN) {
    PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(Y, &dev));
    if (dev) PetscCall(SameDevicePattern(X, Y, &dev));
  } else if (str == SUBSET_NONZERO_PATTERN) {
    PetscBool ondev;

    PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(Y, &ondev));
    if (ondev) PetscCall(SameDevicePattern(X, Y, &dev)); /* a subset with as many blocks is the same pattern */
    if (ondev && !dev) {
      PetscCall(MatSeqBAIJKSPARSEAXPYSubset_Private(Y, a, X, NULL, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (dev) {
    PetscScalar       *y;
    const PetscScalar *x;
    PetscInt64         len;
    cublasHandle_t     cb;

    PetscCall(DeviceValues(Y, &y, &len, &cb));
    x = ((Mat_SeqBAIJKSPARSE *)X->spptr)->dev->val;
    PetscCall(PetscLogEventBegin(PBG_BAIJKValues, Y, X, 0, 0));
    PetscCall(PetscLogGpuTimeBegin());
#define PBG_AXPY(off, cnt) PetscCallCUBLAS(cublasDaxpy(cb, cnt, &a, x + off, 1, y + off, 1))
    PBG_CHUNKS(len, PBG_AXPY);
#undef PBG_AXPY
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)len));
    PetscCall(PetscLogEventEnd(PBG_BAIJKValues, Y, X, 0, 0));
    MatBAIJKSPARSEMarkDeviceNewer_Private(Y);
    PetscCall(PetscObjectStateIncrease((PetscObject)Y)); /* as BAIJ's MatAXPY() does: PETSc's wrapper does not */
  } else if (str == SAME_NONZERO_PATTERN || str == SUBSET_NONZERO_PATTERN) {
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(Y, PETSC_TRUE));
    if (X->spptr && X != Y) { /* X may be a baijksparse whose device copy is newer */
      PetscBool isk;

      PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQBAIJKSPARSE, &isk));
      if (isk) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(X, PETSC_FALSE));
    }
    PetscCall((*k->host.axpy)(Y, a, X, str));
  } else {
    PetscCall(MatConvert_SeqBAIJKSPARSE_SeqBAIJ(Y, MATSEQBAIJ, MAT_INPLACE_MATRIX, &Y));
    PetscCall(MatAXPY(Y, a, X, str));
    PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(Y, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &Y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#undef PBG_CHUNKS

/* B = A: on the device when both live there with the same pattern; else BAIJ's (or PETSc's generic) copy on the host */
PetscErrorCode MatCopy_SeqBAIJKSPARSE(Mat A, Mat B, MatStructure str)
{
  PetscBool dev = PETSC_FALSE;

  PetscFunctionBegin;
  if (str == SAME_NONZERO_PATTERN) {
    PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
    if (dev) {
      PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBAIJKSPARSE, &dev));
      if (dev) PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(B, &dev));
      if (dev) PetscCall(SameDevicePattern(A, B, &dev));
    }
  }
  if (dev) {
    PetscScalar *b, *a;
    PetscInt64   len;
    cudaStream_t stream;

    if (B->offloadmask == PETSC_OFFLOAD_CPU) MatBAIJKSPARSEMarkDeviceNewer_Private(B); /* every value is overwritten */
    PetscCall(DeviceValues(B, &b, &len, NULL));
    PetscCall(DeviceValues(A, &a, &len, NULL));
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, B, 0, 0));
    PetscCall(PetscLogGpuTimeBegin());
    if (len) PetscCall(MatBAIJKSPARSEDeviceCopy_Private(b, a, (size_t)len * sizeof(PetscScalar), stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, B, 0, 0));
    MatBAIJKSPARSEMarkDeviceNewer_Private(B);
    PetscCall(PetscObjectStateIncrease((PetscObject)B));
  } else {
    PetscBool isk;

    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBAIJKSPARSE, &isk));
    if (isk) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(B, PETSC_TRUE));
    PetscCall((*((Mat_SeqBAIJKSPARSE *)A->spptr)->host.copy)(A, B, str));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- vectors and scratch */
/* The entries of a vector an operation reads on the device: its device array, or its host array uploaded into scratch */
typedef struct {
  Vec                v;
  const PetscScalar *a;   /* what VecGetArrayReadAndMemType() gave */
  PetscScalar       *tmp; /* device scratch of an uploaded host array */
  const PetscScalar *dev; /* the device entries (NULL without a vector) */
} DeviceVecRead;

static PetscErrorCode DeviceVecReadBegin(Vec v, PetscInt n, const char *what, cudaStream_t stream, DeviceVecRead *r)
{
  PetscMemType mt;
  PetscInt     nl;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  if (!v) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetLocalSize(v, &nl));
  PetscCheck(nl == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the %s vector has %" PetscInt_FMT " local entries, the matrix needs %" PetscInt_FMT, MATSEQBAIJKSPARSE, what, nl, n);
  r->v = v;
  PetscCall(VecGetArrayReadAndMemType(v, &r->a, &mt));
  if (PetscMemTypeDevice(mt)) r->dev = r->a;
  else if (n) { /* a host vector: its entries go up (from pageable memory the copy has left the array when it returns) */ PetscCall(MatBAIJKSPARSEScratchUpload_Private((void **)&r->tmp, r->a, (size_t)n * sizeof(PetscScalar), stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(PetscScalar)));
    r->dev = r->tmp;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceVecReadEnd(DeviceVecRead *r, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!r->v) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEScratchRelease_Private(r->tmp, stream));
  PetscCall(VecRestoreArrayReadAndMemType(r->v, &r->a));
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pinned host staging for the row lists of MatZeroRows()/MatZeroRowsColumns() (the device floor's staging), composed on
   the matrix and reused: the rows go up by one asynchronous DMA instead of a copy from pageable memory (which the driver
   stages itself, holding the caller). The staging waits for the end of the last upload from it before it is written
   again. */
static PetscErrorCode RowStagingDestroy(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEStagingDestroy_Private((MatBAIJKSPARSEStaging *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's staging and its buffer with room for n rows, the previous upload from it finished */
static PetscErrorCode RowStagingGet(Mat A, PetscInt n, MatBAIJKSPARSEStaging *stp, int **rows)
{
  static const char     name[] = "MatBAIJKSPARSE_RowStaging";
  MatBAIJKSPARSEStaging st     = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, name, (PetscCtxRt)&st));
  if (!st) {
    PetscCall(MatBAIJKSPARSEStagingCreate_Private(&st));
    PetscCall(PetscObjectContainerCompose((PetscObject)A, name, st, RowStagingDestroy));
  }
  PetscCall(MatBAIJKSPARSEStagingGet_Private(st, (size_t)n * sizeof(int), (void **)rows));
  *stp = st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every row of a MatZeroRows()/MatZeroRowsColumns() list in [0, m): BAIJ's host methods index with them unchecked */
static PetscErrorCode CheckRowRange(Mat A, PetscInt n, const PetscInt rows[])
{
  const PetscInt m = A->rmap->n;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) PetscCheck(rows[i] >= 0 && rows[i] < m, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: row %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", MATSEQBAIJKSPARSE, rows[i], m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n local row numbers of A (any order, repeats allowed), checked, on the device (index traffic, logged as such), in
   scratch that the caller releases (MatBAIJKSPARSEScratchRelease_Private()). One pass over rows both checks them and
   fills the pinned staging, then one asynchronous upload: nothing else on the host is O(n), and a bad row is refused
   before anything is sent or changed. */
static PetscErrorCode UploadRows(Mat A, PetscInt n, const PetscInt rows[], cudaStream_t stream, int **drows)
{
  const PetscInt        m      = A->rmap->n;
  MatBAIJKSPARSEStaging st     = NULL;
  int                  *staged = NULL;
  PetscBool             bad    = PETSC_FALSE;

  PetscFunctionBegin;
  *drows = NULL;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(n <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt_FMT " rows at once", MATSEQBAIJKSPARSE, n);
  PetscCall(RowStagingGet(A, n, &st, &staged));
  { /* branch-free: the loop vectorises (PetscInt is int here: pbgimpl.h refuses 64-bit indices) */
    int *PETSC_RESTRICT       dst = staged;
    const int *PETSC_RESTRICT src = rows;
    unsigned                  out = 0;

    for (PetscInt i = 0; i < n; i++) {
      dst[i] = src[i];
      out |= (unsigned)((unsigned)src[i] >= (unsigned)m);
    }
    bad = (PetscBool)(out != 0);
  }
  if (bad) PetscCall(CheckRowRange(A, n, rows));
  PetscCall(MatBAIJKSPARSEStagingUpload_Private(st, (size_t)n * sizeof(int), (void **)drows, stream));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(int)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- diagonal */
/* MatDiagonalSet() as PETSc does it for a type without its own: MatSetValues() of each local diagonal entry, assembled */
PetscErrorCode MatBAIJKSPARSEDiagonalSetDefault_Private(Mat Y, Vec D, InsertMode is)
{
  PetscInt           start, end, vstart, vend;
  const PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(D, &vstart, &vend));
  PetscCall(MatGetOwnershipRange(Y, &start, &end));
  PetscCheck(vstart == start && vend == end, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vector ownership range [%" PetscInt_FMT ", %" PetscInt_FMT ") not compatible with the matrix rows [%" PetscInt_FMT ", %" PetscInt_FMT ")", vstart, vend, start, end);
  PetscCall(VecGetArrayRead(D, &v));
  for (PetscInt i = start; i < end; i++) PetscCall(MatSetValues(Y, 1, &i, 1, &i, v + i - start, is));
  PetscCall(VecRestoreArrayRead(D, &v));
  PetscCall(MatAssemblyBegin(Y, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Y, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal entries = v or += v, v = D's entries (D not NULL) or a, on the device (the caller checked
   MatSeqBAIJKSPARSEDiagonalOnDevice_Private()) */
static PetscErrorCode DiagonalUpdateDevice(Mat A, Vec D, PetscScalar a, PetscBool insert)
{
  MatBAIJKSPARSEDevice *d;
  PetscScalar          *val;
  PetscInt64            len;
  cudaStream_t          stream;
  DeviceVecRead         dr;

  PetscFunctionBegin;
  PetscCall(DeviceValues(A, &val, &len, NULL));
  d = ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, D, 0, 0));
  PetscCall(DeviceVecReadBegin(D, A->rmap->n, "diagonal", stream, &dr));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEDiagonalUpdate_CUDA(d->bs, d->mbs, d->diagpos, dr.dev, a, insert, val, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(DeviceVecReadEnd(&dr, stream));
  if (!insert) PetscCall(PetscLogGpuFlops((PetscLogDouble)A->rmap->n));
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, D, 0, 0));
  MatBAIJKSPARSEMarkDeviceNewer_Private(A);
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A += a I on the host values when every diagonal block is stored (*done), in one pass: BAIJ's MatShift() is PETSc's
   MatShift_Basic(), a MatSetValues() a row and an assembly at every TS step. The diagonal blocks' positions are kept
   for the nonzero state (a TS shifts the same pattern at every step: a search a row each time cost as much as the
   shift itself) */
static PetscErrorCode ShiftHost(Mat A, PetscScalar a, PetscBool *done)
{
  Mat_SeqBAIJKSPARSE *k  = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscInt            bs = A->rmap->bs, bs2 = bs * bs, mbs = A->rmap->n / PetscMax(bs, 1);
  PetscScalar        *val;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!A->assembled || A->rmap->n != A->cmap->n || A->cmap->bs != bs) PetscFunctionReturn(PETSC_SUCCESS);
  if (!k->hostdiag || k->hostdiag_state != A->nonzerostate) {
    const PetscInt *ia, *ja;
    PetscInt        n;
    PetscBool       rowij, all = PETSC_TRUE;

    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &rowij));
    if (!rowij) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscFree(k->hostdiag));
    PetscCall(PetscMalloc1(PetscMax(mbs, 1), &k->hostdiag));
    for (PetscInt r = 0; r < mbs && all; r++) {
      PetscCall(PetscFindInt(r, ia[r + 1] - ia[r], ja + ia[r], &k->hostdiag[r]));
      if (k->hostdiag[r] < 0) all = PETSC_FALSE; /* a new nonzero: BAIJ's MatShift() inserts it */
      else k->hostdiag[r] += ia[r];
    }
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &rowij));
    if (!all) PetscCall(PetscFree(k->hostdiag));
    else k->hostdiag_state = A->nonzerostate;
  }
  if (!k->hostdiag) PetscFunctionReturn(PETSC_SUCCESS);
  *done = PETSC_TRUE;
  PetscCall(MatSeqBAIJGetArray(A, &val)); /* the host values, current (and newer afterwards) */
  for (PetscInt r = 0; r < mbs; r++)
    for (PetscInt c = 0; c < bs; c++) val[(PetscInt64)k->hostdiag[r] * bs2 + c * bs + c] += a;
  PetscCall(MatSeqBAIJRestoreArray(A, &val));
  PetscCall(PetscLogFlops((PetscLogDouble)A->rmap->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatShift_SeqBAIJKSPARSE(Mat A, PetscScalar a)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscBool           dev, done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEDiagonalOnDevice_Private(A, &dev));
  if (dev) PetscCall(DiagonalUpdateDevice(A, NULL, a, PETSC_FALSE));
  else {
    PetscCall(ShiftHost(A, a, &done));
    if (!done) { /* a missing diagonal block is a new nonzero: BAIJ inserts it */
      PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
      PetscCall((*k->host.shift)(A, a));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagonalSet_SeqBAIJKSPARSE(Mat A, Vec D, InsertMode is)
{
  PetscBool dev;

  PetscFunctionBegin;
  PetscCheck(is == INSERT_VALUES || is == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: MatDiagonalSet() takes INSERT_VALUES or ADD_VALUES", MATSEQBAIJKSPARSE);
  PetscCall(MatSeqBAIJKSPARSEDiagonalOnDevice_Private(A, &dev));
  if (dev) PetscCall(DiagonalUpdateDevice(A, D, 0.0, (PetscBool)(is == INSERT_VALUES)));
  else PetscCall(MatBAIJKSPARSEDiagonalSetDefault_Private(A, D, is)); /* BAIJ has no MatDiagonalSet() of its own */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads only. A device vector gets the diagonal from the device values; a host vector from the host values when they are
   current, else from the device values (n entries come down, not all values) */
PetscErrorCode MatGetDiagonal_SeqBAIJKSPARSE(Mat A, Vec v)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  PetscBool             dev, cuda;
  PetscScalar          *val, *p, *tmp = NULL;
  PetscInt64            len;
  PetscInt              n;
  PetscMemType          mt;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCheck(n == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the vector has %" PetscInt_FMT " local entries, the matrix %" PetscInt_FMT " rows", MATSEQBAIJKSPARSE, n, A->rmap->n);
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
  if (dev && A->offloadmask == PETSC_OFFLOAD_CPU) dev = PETSC_FALSE; /* the host values are newer: no upload to read n */
  if (dev && A->offloadmask == PETSC_OFFLOAD_BOTH) {
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    dev = cuda;
  }
  if (!dev) {
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    PetscCall((*k->host.getdiagonal)(A, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DeviceValues(A, &val, &len, NULL));
  d = k->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, v, 0, 0));
  PetscCall(VecGetArrayWriteAndMemType(v, &p, &mt));
  if (!PetscMemTypeDevice(mt) && n) PetscCall(MatBAIJKSPARSEScratchGet_Private((void **)&tmp, (size_t)n * sizeof(PetscScalar), stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEGetDiagonal_CUDA(d->bs, d->mbs, d->diagpos, val, tmp ? tmp : p, stream));
  PetscCall(PetscLogGpuTimeEnd());
  if (tmp) {
    PetscCall(MatBAIJKSPARSEDownloadAsync_Private(p, tmp, (size_t)n * sizeof(PetscScalar), stream));
    PetscCall(MatBAIJKSPARSEScratchRelease_Private(tmp, stream));
    PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)n * sizeof(PetscScalar)));
  }
  PetscCall(VecRestoreArrayWriteAndMemType(v, &p));
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, v, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- row and column scaling */
PetscErrorCode MatDiagonalScale_SeqBAIJKSPARSE(Mat A, Vec l, Vec r)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  PetscBool             dev;
  PetscScalar          *val;
  PetscInt64            len;
  cudaStream_t          stream;
  DeviceVecRead         dl, dr;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
  if (!dev) {
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.diagonalscale)(A, l, r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DeviceValues(A, &val, &len, NULL));
  d = k->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, l, r, 0));
  PetscCall(DeviceVecReadBegin(l, A->rmap->n, "left", stream, &dl));
  PetscCall(DeviceVecReadBegin(r, A->cmap->n, "right", stream, &dr));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEDiagonalScale_CUDA(d->bs, d->mbs, d->nz, d->rowptr, d->colidx, dl.dev, dr.dev, val, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(DeviceVecReadEnd(&dl, stream));
  PetscCall(DeviceVecReadEnd(&dr, stream));
  PetscCall(PetscLogGpuFlops((PetscLogDouble)len * ((l ? 1 : 0) + (r ? 1 : 0))));
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, l, r, 0));
  if (l || r) {
    MatBAIJKSPARSEMarkDeviceNewer_Private(A);
    PetscCall(PetscObjectStateIncrease((PetscObject)A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- Y += a X, X a subset */
/* The device path when Y's values and X's (seqbaijksparse, same sizes and block size) may live on the device; otherwise
   BAIJ's host method (only without xcolmap: the MPI caller checks that both parts can run here first) */
PetscErrorCode MatSeqBAIJKSPARSEAXPYSubset_Private(Mat Y, PetscScalar a, Mat X, const PetscInt xcolmap[], PetscInt nxcol)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)Y->spptr;
  MatBAIJKSPARSEDevice *dx, *dy;
  PetscBool             dev, isk = PETSC_FALSE;
  PetscScalar          *yval;
  PetscInt64            len;
  int                  *dmap = NULL, *dmissing, missing = 0;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(Y, &dev));
  if (dev) PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQBAIJKSPARSE, &isk));
  dev = (PetscBool)(dev && isk && X->rmap->bs == Y->rmap->bs && X->rmap->n == Y->rmap->n && (xcolmap || X->cmap->n == Y->cmap->n));
  if (dev) PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(X, &dev));
  if (!dev) {
    PetscCheck(!xcolmap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatAXPY() of parts with different column numberings needs both on the device", MATSEQBAIJKSPARSE);
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(Y, PETSC_TRUE));
    if (isk && X != Y) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(X, PETSC_FALSE));
    PetscCall((*k->host.axpy)(Y, a, X, SUBSET_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(X)); /* X's values go up only if its host copy is newer */
  PetscCall(DeviceValues(Y, &yval, &len, NULL));
  dx = ((Mat_SeqBAIJKSPARSE *)X->spptr)->dev;
  dy = k->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, Y, X, 0, 0));
  if (xcolmap && nxcol) {
    for (PetscInt c = 0; c < nxcol; c++) PetscCheck(xcolmap[c] >= 0 && xcolmap[c] < dy->nbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: column map entry %" PetscInt_FMT " out of range", MATSEQBAIJKSPARSE, xcolmap[c]);
    PetscCall(MatBAIJKSPARSEScratchUpload_Private((void **)&dmap, xcolmap, (size_t)nxcol * sizeof(int), stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)nxcol * sizeof(int)));
  }
  PetscCall(MatBAIJKSPARSEScratchGetZeroed_Private((void **)&dmissing, sizeof(int), stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEAXPYSubset_CUDA(dy->bs, dy->mbs, dx->nz, a, dx->rowptr, dx->colidx, dmap, dx->val, dy->rowptr, dy->colidx, yval, dmissing, stream));
  PetscCall(PetscLogGpuTimeEnd());
  /* the check of the promise that X's pattern is a subset of Y's: one int comes back */
  PetscCall(MatBAIJKSPARSEDownloadAsync_Private(&missing, dmissing, sizeof(int), stream));
  PetscCall(MatBAIJKSPARSEScratchRelease_Private(dmissing, stream));
  PetscCall(MatBAIJKSPARSEScratchRelease_Private(dmap, stream));
  PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
  PetscCall(PetscLogGpuToCpuScalar(sizeof(int)));
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)dx->nz * dx->bs * dx->bs));
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, Y, X, 0, 0));
  MatBAIJKSPARSEMarkDeviceNewer_Private(Y);
  PetscCall(PetscObjectStateIncrease((PetscObject)Y));
  PetscCheck(!missing, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MatAXPY() with SUBSET_NONZERO_PATTERN on %s: a block of X is not in the nonzero pattern of Y (the blocks found were added)", MATSEQBAIJKSPARSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- zero rows (and columns) */

/* b[rows] = diag x[rows]: on the device when both vectors are there, else on the host arrays as BAIJ does */
static PetscErrorCode FixRHS(PetscInt n, const PetscInt rows[], const int *drows, PetscScalar diag, Vec x, Vec b, cudaStream_t stream)
{
  const PetscScalar *xx;
  PetscScalar       *bb;
  PetscMemType       mx, mb;

  PetscFunctionBegin;
  if (!x || !b) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayReadAndMemType(x, &xx, &mx));
  PetscCall(VecGetArrayAndMemType(b, &bb, &mb));
  if (PetscMemTypeDevice(mx) && PetscMemTypeDevice(mb) && drows) {
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatBAIJKSPARSEFixRHS_CUDA((int)n, drows, diag, xx, bb, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((PetscLogDouble)n));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xx));
    PetscCall(VecRestoreArrayAndMemType(b, &bb));
  } else {
    PetscCall(VecRestoreArrayReadAndMemType(x, &xx));
    PetscCall(VecRestoreArrayAndMemType(b, &bb));
    PetscCall(VecGetArrayRead(x, &xx));
    PetscCall(VecGetArray(b, &bb));
    for (PetscInt i = 0; i < n; i++) bb[rows[i]] = diag * xx[rows[i]];
    PetscCall(VecRestoreArrayRead(x, &xx));
    PetscCall(VecRestoreArray(b, &bb));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On the device the nonzero pattern is kept (zeros stay stored): the documented policy of MATSEQBAIJKSPARSE. A diagonal
   value needs every diagonal block (else BAIJ's host method inserts it). */
PetscErrorCode MatZeroRows_SeqBAIJKSPARSE(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  PetscBool             dev;
  PetscScalar          *val;
  PetscInt64            len;
  int                  *drows;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCheck(n >= 0 && (!n || rows), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: MatZeroRows() with %" PetscInt_FMT " rows and no row array", MATSEQBAIJKSPARSE, n);
  /* a diagonal value to place needs every diagonal block stored (a missing one is a new nonzero, the host's to insert) */
  PetscCall(diag != (PetscScalar)0.0 ? MatSeqBAIJKSPARSEDiagonalOnDevice_Private(A, &dev) : MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
  if (!dev) {
    PetscCall(CheckRowRange(A, n, rows));
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.zerorows)(A, n, rows, diag, x, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(UploadRows(A, n, rows, stream, &drows));
  PetscCall(DeviceValues(A, &val, &len, NULL));
  d = k->dev;
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, x, b, 0));
  PetscCall(FixRHS(n, rows, drows, diag, x, b, stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEZeroRows_CUDA(d->bs, d->mbs, d->nz, (int)n, drows, d->rowptr, d->diagpos, diag, val, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MatBAIJKSPARSEScratchRelease_Private(drows, stream));
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, x, b, 0));
  MatBAIJKSPARSEMarkDeviceNewer_Private(A);
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A square matrix on the device: a mask of the rows (and so columns) marks them; one pass over the values updates b for
   the kept rows and zeroes the rows and columns; then b[rows] = diag x[rows]. Host vectors: BAIJ's host method. */
PetscErrorCode MatZeroRowsColumns_SeqBAIJKSPARSE(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  PetscBool             dev;
  PetscScalar          *val, *bb = NULL;
  const PetscScalar    *xx = NULL;
  PetscMemType          mx = PETSC_MEMTYPE_DEVICE, mb = PETSC_MEMTYPE_DEVICE;
  PetscInt64            len;
  int                  *drows, *mask = NULL;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCheck(n >= 0 && (!n || rows), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: MatZeroRowsColumns() with %" PetscInt_FMT " rows and no row array", MATSEQBAIJKSPARSE, n);
  /* a diagonal value to place needs every diagonal block stored (a missing one is a new nonzero, the host's to insert) */
  PetscCall(diag != (PetscScalar)0.0 ? MatSeqBAIJKSPARSEDiagonalOnDevice_Private(A, &dev) : MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
  dev = (PetscBool)(dev && A->rmap->n == A->cmap->n);
  if (dev && x && b) {
    PetscCall(VecGetArrayReadAndMemType(x, &xx, &mx));
    PetscCall(VecGetArrayAndMemType(b, &bb, &mb));
    if (!PetscMemTypeDevice(mx) || !PetscMemTypeDevice(mb)) {
      PetscCall(VecRestoreArrayReadAndMemType(x, &xx));
      PetscCall(VecRestoreArrayAndMemType(b, &bb));
      dev = PETSC_FALSE;
    }
  }
  if (!dev) {
    PetscCall(CheckRowRange(A, n, rows));
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.zerorowscolumns)(A, n, rows, diag, x, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(UploadRows(A, n, rows, stream, &drows));
  PetscCall(DeviceValues(A, &val, &len, NULL));
  d = k->dev;
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, x, b, 0));
  if (A->rmap->n) PetscCall(MatBAIJKSPARSEScratchGetZeroed_Private((void **)&mask, (size_t)A->rmap->n * sizeof(int), stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEMarkRows_CUDA((int)n, drows, mask, stream));
  PetscCall(MatBAIJKSPARSEZeroRowsColumns_CUDA(d->bs, d->mbs, d->nz, d->rowptr, d->colidx, mask, diag, (x && b) ? xx : NULL, (x && b) ? bb : NULL, val, stream));
  if (x && b) PetscCall(MatBAIJKSPARSEFixRHS_CUDA((int)n, drows, diag, xx, bb, stream));
  PetscCall(PetscLogGpuTimeEnd());
  if (x && b) {
    PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)len + (PetscLogDouble)n));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xx));
    PetscCall(VecRestoreArrayAndMemType(b, &bb));
  }
  PetscCall(MatBAIJKSPARSEScratchRelease_Private(mask, stream));
  PetscCall(MatBAIJKSPARSEScratchRelease_Private(drows, stream));
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, x, b, 0));
  MatBAIJKSPARSEMarkDeviceNewer_Private(A);
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- duplicate */
/* A device copy for the duplicate M of A, made on the device from A's (pattern and values, or zero values): no host to
   device traffic. The kernel choice is made again at M's first product. */
static PetscErrorCode DuplicateDevice(Mat A, Mat M, PetscBool copyvalues)
{
  MatBAIJKSPARSEDevice *s    = ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev, *d;
  const size_t          nval = (size_t)s->nz * s->bs * s->bs;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  ((Mat_SeqBAIJKSPARSE *)M->spptr)->dev = d;
  d->bs                                 = s->bs;
  d->mbs                                = s->mbs;
  d->nbs                                = s->nbs;
  d->nz                                 = s->nz;
  d->cap_rows                           = (size_t)s->mbs + 1;
  d->cap_nz                             = (size_t)PetscMax(s->nz, 1);
  d->cap_bs                             = s->bs;
  d->cap_diag                           = (size_t)PetscMax(s->mbs, 1);
  PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->rowptr, d->cap_rows * sizeof(int)));
  PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->colidx, d->cap_nz * sizeof(int)));
  PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->val, d->cap_nz * s->bs * s->bs * sizeof(PetscScalar)));
  PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->diagpos, d->cap_diag * sizeof(int)));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, M, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEDeviceCopy_Private(d->rowptr, s->rowptr, ((size_t)s->mbs + 1) * sizeof(int), stream));
  if (s->nz) PetscCall(MatBAIJKSPARSEDeviceCopy_Private(d->colidx, s->colidx, (size_t)s->nz * sizeof(int), stream));
  if (s->mbs) PetscCall(MatBAIJKSPARSEDeviceCopy_Private(d->diagpos, s->diagpos, (size_t)s->mbs * sizeof(int), stream));
  if (nval) {
    if (copyvalues) PetscCall(MatBAIJKSPARSEDeviceCopy_Private(d->val, s->val, nval * sizeof(PetscScalar), stream));
    else PetscCall(MatBAIJKSPARSEDeviceZero_Private(d->val, nval * sizeof(PetscScalar), stream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, M, 0, 0));
  d->ndiagmissing  = s->ndiagmissing;
  d->nzstate       = M->nonzerostate;
  d->pattern_valid = PETSC_TRUE;
  d->choice_valid  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BAIJ's duplicate creates a MATSEQBAIJ: subclass the result in place, with the same options. When A's values are on the
   device (newer there, or current on both sides) the duplicate's device copy is made there: the host values of A are
   copied by BAIJ only when current (else the host copy of M holds zeros and M's device copy is the newer). The COO maps
   are shared (the same pattern), so that MatSetValuesCOO() works on M as on AIJ's duplicate. */
PetscErrorCode MatDuplicate_SeqBAIJKSPARSE(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr, *kn;
  PetscBool           dev;
  MatDuplicateOption  hostop = op;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, &dev));
  dev = (PetscBool)(dev && (A->offloadmask == PETSC_OFFLOAD_GPU || A->offloadmask == PETSC_OFFLOAD_BOTH));
  if (!dev) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  else if (op == MAT_COPY_VALUES && A->offloadmask == PETSC_OFFLOAD_GPU) hostop = MAT_DO_NOT_COPY_VALUES;
  PetscCall((*k->host.duplicate)(A, hostop, M));
  /* BAIJ's duplicate copied A's composed functions, ours among them: give the copy BAIJ's back */
  PetscCall(PetscObjectComposeFunction((PetscObject)*M, "MatSeqBAIJSetPreallocation_C", k->setpreallocation));
  PetscCall(PetscObjectComposeFunction((PetscObject)*M, "MatSeqBAIJGetArray_C", k->getarray));
  PetscCall(PetscObjectComposeFunction((PetscObject)*M, "MatSeqBAIJRestoreArray_C", k->restorearray));
  PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(*M, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, M));
  kn       = (Mat_SeqBAIJKSPARSE *)(*M)->spptr;
  kn->opts = k->opts;
  /* BAIJ's duplicate keeps the generic host products; take the block-size-specific ones of A (same layout) */
  kn->host.mult    = k->host.mult;
  kn->host.multadd = k->host.multadd;
  PetscCall(MatBAIJKSPARSECOODuplicate_Private(k->coo, &kn->coo));
  if (dev) { /* (M is not bound to the CPU: a new baijksparse matrix on a machine with a device) */
    const PetscBool copyvalues = (PetscBool)(op == MAT_COPY_VALUES);

    PetscCall(DuplicateDevice(A, *M, copyvalues));
    if (copyvalues && A->offloadmask == PETSC_OFFLOAD_GPU) MatBAIJKSPARSEMarkDeviceNewer_Private((*M));
    else { /* both copies hold A's values, or zeros */ kn->dev->state = ((PetscObject)*M)->state;
      MatBAIJKSPARSEMarkBothCurrent_Private((*M));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- block weights */
PetscErrorCode MatSeqBAIJKSPARSEBlockWeights_Private(Mat A, PetscInt nidx, const PetscInt idx[], PetscBool absval, PetscScalar w[])
{
  Mat_SeqBAIJKSPARSE *k  = (Mat_SeqBAIJKSPARSE *)A->spptr;
  const PetscInt      bs = A->rmap->bs, bs2 = bs * bs;
  unsigned long long  mask = 0;
  PetscBool           dev;
  MatInfo             info;
  PetscInt            nz;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  nz = (PetscInt)info.nz_used / bs2;
  if (!nz) PetscFunctionReturn(PETSC_SUCCESS);
  if (bs <= 64) {
    for (PetscInt i = 0; i < (nidx ? nidx : bs); i++) mask |= 1ULL << (nidx ? idx[i] : i);
  }
  /* on the device where its copy is the current one (a download of one scalar a block, not the blocks) */
  dev = (PetscBool)(bs <= 64 && MatSeqBAIJKSPARSEDeviceCurrent_Private(A));
  if (dev) {
    PetscScalar *val, *wd;
    PetscInt64   len;
    cudaStream_t stream;

    PetscCall(DeviceValues(A, &val, &len, NULL));
    PetscCheck(len == (PetscInt64)nz * bs2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt64_FMT " device values for %" PetscInt_FMT " blocks", MATSEQBAIJKSPARSE, len, nz);
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, 0, 0, 0));
    PetscCall(MatBAIJKSPARSEScratchGet_Private((void **)&wd, (size_t)nz * sizeof(PetscScalar), stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatBAIJKSPARSEBlockWeights_CUDA((int)bs, (int)nz, mask, absval, val, wd, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatBAIJKSPARSEDownloadAsync_Private(w, wd, (size_t)nz * sizeof(PetscScalar), stream));
    PetscCall(MatBAIJKSPARSEScratchRelease_Private(wd, stream));
    PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)nz * sizeof(PetscScalar)));
    PetscCall(PetscLogGpuFlops((PetscLogDouble)len));
    PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, 0, 0, 0));
  } else {
    PetscScalar *a;

    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    PetscCheck(k->getarray && k->restorearray, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without MatSeqBAIJGetArray_C", MATSEQBAIJKSPARSE);
    PetscCall((*k->getarray)(A, &a)); /* BAIJ's own: a read, the object state unchanged */
    for (PetscInt b = 0; b < nz; b++) {
      const PetscScalar *blk = a + (PetscInt64)b * bs2;
      PetscReal          s   = 0;

      for (PetscInt jj = 0; jj < (nidx ? nidx : bs); jj++) {
        const PetscInt j = nidx ? idx[jj] : jj;

        for (PetscInt ii = 0; ii < (nidx ? nidx : bs); ii++) {
          const PetscReal x = PetscRealPart(blk[j * bs + (nidx ? idx[ii] : ii)]);

          s += absval ? PetscAbsReal(x) : x;
        }
      }
      w[b] = s;
    }
    PetscCall((*k->restorearray)(A, &a));
    PetscCall(PetscLogFlops((PetscLogDouble)nz * bs2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
