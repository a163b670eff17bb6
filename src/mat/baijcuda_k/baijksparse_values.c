/* MATSEQBAIJKSPARSE value operations on the device copy (cuBLAS and our kernels in cuda/baijksparse_values.cu). Each runs
   on the device when MatSeqBAIJKSPARSEValuesOnDevice_Private() says the values may live there, and then leaves the
   device copy newer (A->offloadmask = PETSC_OFFLOAD_GPU) without touching the host copy; otherwise BAIJ's host method
   runs after the host copy is brought up to date. The MPI type runs them part by part (mpibaijksparse.c). */
#include <petscblockgpu/private/baijksparsecuda.h>
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
      const int cnt_ = (int)PetscMin((len) - off_, ((PetscInt64)1 << 30)); \
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
  A->offloadmask = PETSC_OFFLOAD_GPU;
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
  if (A->offloadmask == PETSC_OFFLOAD_CPU) A->offloadmask = PETSC_OFFLOAD_GPU;
  PetscCall(DeviceValues(A, &val, &len, NULL));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (len) PetscCallCUDA(cudaMemsetAsync(val, 0, (size_t)len * sizeof(PetscScalar), stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, 0, 0, 0));
  A->offloadmask = PETSC_OFFLOAD_GPU;
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

/* Y += a X. BAIJ's MatAXPY() with another pattern builds a new matrix and merges it into Y with MatHeaderMerge(), which
   keeps Y's methods but not its private data: the subclass would lose its state (and leak it). So Y runs the operation as
   a plain BAIJ, converted in place and back. The same pattern runs on the device when both live there; a subset is
   BAIJ's direct update of the host values. */
PetscErrorCode MatAXPY_SeqBAIJKSPARSE(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)Y->spptr;
  PetscBool           dev = PETSC_FALSE;

  PetscFunctionBegin;
  if (str == SAME_NONZERO_PATTERN) {
    PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(Y, &dev));
    if (dev) PetscCall(SameDevicePattern(X, Y, &dev));
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
    Y->offloadmask = PETSC_OFFLOAD_GPU;
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
    PetscScalar  *b, *a;
    PetscInt64    len;
    cudaStream_t  stream;

    if (B->offloadmask == PETSC_OFFLOAD_CPU) B->offloadmask = PETSC_OFFLOAD_GPU; /* every value is overwritten */
    PetscCall(DeviceValues(B, &b, &len, NULL));
    PetscCall(DeviceValues(A, &a, &len, NULL));
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogEventBegin(PBG_BAIJKValues, A, B, 0, 0));
    PetscCall(PetscLogGpuTimeBegin());
    if (len) PetscCallCUDA(cudaMemcpyAsync(b, a, (size_t)len * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(PBG_BAIJKValues, A, B, 0, 0));
    B->offloadmask = PETSC_OFFLOAD_GPU;
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

