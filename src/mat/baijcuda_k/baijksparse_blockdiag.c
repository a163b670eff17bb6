/* MatInvertBlockDiagonal() and MatInvertVariableBlockDiagonal() of MATBAIJKSPARSE, so that PETSc's unchanged PCPBJACOBI
   and PCVPBJACOBI set up on the device on our matrix.

   Device path (a device is usable and the matrix is not bound to the CPU, blocks of at most 32 rows): the diagonal blocks
   are extracted from the device values (cuda/baijksparse_blockdiag.cu) into a dense batch that PetscBlockGPUInvertBatched()
   (src/sys/cuda/invert_batched.cu) inverts in place (Gauss-Jordan with implicit pivoting); one device-to-host copy brings the inverses back (page-locked
   memory for MatInvertBlockDiagonal(), the caller's array for the variable blocks), and one of 8 bytes the first failure. The values are not copied back and the offload state stays as it was: the method only
   reads. When the host copy is the newer one, the values are uploaded first: the next device product needs that upload
   anyway, and even when none follows, the upload of O(nnz bs^2) values costs about what the host pass over the blocks
   and their O(mbs bs^3) inversion would (and far less for large blocks), so the device path is taken whenever it can be.

   Host path (no device, bound to the CPU, blocks larger than 32 rows): MATSEQBAIJ's own MatInvertBlockDiagonal(), after
   the host copy is brought up to date; but where a block row stores no diagonal block (BAIJ would then read another
   block's values), and for MatInvertVariableBlockDiagonal() (which MATSEQBAIJ lacks), the host implementation here.

   Failures follow MATSEQBAIJ: a singular block (our pivot test: below k eps max|block|; or an inverse that overflows, or
   a block holding NaN/Inf) is an error "Zero pivot, row ..." when MatSetErrorIfFailure() was set on the (sequential)
   matrix; otherwise the failure is recorded (MatFactorGetError(): MAT_FACTOR_NUMERIC_ZEROPIVOT, the error kept until a
   later failure overwrites it, as BAIJ does) and the block's inverse is NaN. A block row without a stored diagonal block
   has an all-zero, so singular, diagonal block. The MPI type inverts the diagonal part, as MATMPIBAIJ does. */
#include "baijksparse_device.h"
#include <petscblockgpu.h> /* PetscBlockGPUInvertBatched(): the batched Gauss-Jordan of src/sys/cuda, not the PC's */
#include <petscblaslapack.h>
#include <petscdevice_cuda.h>

struct _n_MatBAIJKSPARSEBlockDiag {
  /* MatInvertBlockDiagonal(): the inverses handed out (computed again at every call: PCSetUp() calls only after a change,
     and a method of MPIBAIJ that changes the diagonal part through its ops leaves that part's object state as it was) */
  PetscScalar *h_inv;
  size_t       cap_h_inv;
  PetscBool    h_pinned; /* page-locked (the device path's): the copy from the device runs at full speed, no staging */
  /* device scratch: the batch (inverted in place), the info of its blocks, the first failure */
  PetscScalar        *d_blocks;
  PetscInt           *d_info;
  unsigned long long *d_outcome;
  size_t              cap_blocks, cap_info;
  /* MatInvertVariableBlockDiagonal(): the block sizes last uploaded, and on the device the sizes, the first row and the
     offset of each block */
  PetscInt   *h_sizes;
  PetscInt    nsizes, maxk;
  PetscInt64  len;
  PetscInt   *d_sizes;
  int        *d_starts;
  PetscInt64 *d_offsets;
  size_t      cap_var;
};

PetscErrorCode MatBAIJKSPARSEBlockDiagDestroy_Private(MatBAIJKSPARSEBlockDiag *pbd)
{
  MatBAIJKSPARSEBlockDiag bd = *pbd;

  PetscFunctionBegin;
  if (!bd) PetscFunctionReturn(PETSC_SUCCESS);
  if (bd->h_pinned) PetscCall(MatBAIJKSPARSEPinnedFree_Private(bd->h_inv));
  else PetscCall(PetscFree(bd->h_inv));
  PetscCall(PetscFree(bd->h_sizes));
  if (bd->d_outcome) { /* the host path allocates nothing on the device (and without a driver cudaFree() fails) */
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_blocks));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_info));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_outcome));
  }
  if (bd->d_sizes) {
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_sizes));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_starts));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_offsets));
  }
  PetscCall(PetscFree(*pbd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BlockDiagGet(Mat A, MatBAIJKSPARSEBlockDiag *bd)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATSEQBAIJKSPARSE);
  if (!k->bdiag) PetscCall(PetscNew(&k->bdiag));
  *bd = k->bdiag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host array of len inverses that MatInvertBlockDiagonal() hands out: page-locked for the device path (pinned) */
static PetscErrorCode HostInverses(MatBAIJKSPARSEBlockDiag bd, PetscInt64 len, PetscBool pinned)
{
  PetscFunctionBegin;
  if ((size_t)len > bd->cap_h_inv || !bd->h_inv || bd->h_pinned != pinned) {
    if (bd->h_pinned) PetscCall(MatBAIJKSPARSEPinnedFree_Private(bd->h_inv));
    else PetscCall(PetscFree(bd->h_inv));
    bd->h_inv = NULL;
    if (pinned) PetscCall(MatBAIJKSPARSEPinnedAlloc_Private((void **)&bd->h_inv, (size_t)PetscMax(len, 1) * sizeof(PetscScalar)));
    else PetscCall(PetscMalloc1(PetscMax(len, 1), &bd->h_inv));
    bd->cap_h_inv = (size_t)PetscMax(len, 1);
    bd->h_pinned  = pinned;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Device scratch for a batch of len entries in nblocks blocks */
static PetscErrorCode DeviceScratch(MatBAIJKSPARSEBlockDiag bd, PetscInt64 len, PetscInt nblocks)
{
  PetscFunctionBegin;
  if ((size_t)len > bd->cap_blocks || !bd->d_blocks) {
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_blocks));
    bd->d_blocks = NULL;
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bd->d_blocks, (size_t)PetscMax(len, 1) * sizeof(PetscScalar)));
    bd->cap_blocks = (size_t)PetscMax(len, 1);
  }
  if ((size_t)nblocks > bd->cap_info || !bd->d_info) {
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_info));
    bd->d_info = NULL;
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bd->d_info, (size_t)PetscMax(nblocks, 1) * sizeof(PetscInt)));
    bd->cap_info = (size_t)PetscMax(nblocks, 1);
  }
  if (!bd->d_outcome) PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bd->d_outcome, sizeof(*bd->d_outcome)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A failed block (first row `row`, k rows, info as PetscBlockGPUInvertBatched() gives it, or LAPACK's getrf's > 0): an
   error with MatSetErrorIfFailure(), else recorded in A as BAIJ records a zero pivot */
static PetscErrorCode BlockFailure(Mat A, PetscInt row, PetscInt k, PetscInt info)
{
  const PetscInt prow = row + (info > 0 ? info - 1 : 0);

  PetscFunctionBegin;
  if (A->erroriffailure) {
    PetscCheck(info <= 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot, row %" PetscInt_FMT ": the diagonal block of rows %" PetscInt_FMT "..%" PetscInt_FMT " is singular (pivot of its column %" PetscInt_FMT " zero or below %" PetscInt_FMT " eps max|block|)", prow, row, row + k - 1, info - 1, k);
    PetscCheck(info != PC_VBJACOBI_INFO_INVERSE_NOT_FINITE, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot, row %" PetscInt_FMT ": the inverse of the diagonal block of rows %" PetscInt_FMT "..%" PetscInt_FMT " overflows (the block is singular to working precision)", prow, row, row + k - 1);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot, row %" PetscInt_FMT ": the diagonal block of rows %" PetscInt_FMT "..%" PetscInt_FMT " holds NaN or Inf (info %" PetscInt_FMT ")", prow, row, row + k - 1, info);
  }
  PetscCall(PetscInfo(A, "Zero pivot, row %" PetscInt_FMT " (diagonal block of rows %" PetscInt_FMT "..%" PetscInt_FMT ", info %" PetscInt_FMT ")\n", prow, row, row + k - 1, info));
  A->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
  A->factorerror_zeropivot_value = 0.0;
  A->factorerror_zeropivot_row   = prow;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first failure of a device batch (outcome: block << 32 | info, all ones when none) */
static PetscErrorCode DeviceOutcome(Mat A, unsigned long long outcome, PetscInt bs, const PetscInt *h_sizes)
{
  PetscInt b, info, row = 0;

  PetscFunctionBegin;
  if (outcome == ~0ULL) PetscFunctionReturn(PETSC_SUCCESS);
  b    = (PetscInt)(outcome >> 32);
  info = (PetscInt)(int)(unsigned)(outcome & 0xffffffffULL);
  if (h_sizes) {
    for (PetscInt i = 0; i < b; i++) row += h_sizes[i];
    PetscCall(BlockFailure(A, row, h_sizes[b], info));
  } else PetscCall(BlockFailure(A, b * bs, bs, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ----------------------------------------------------------------------------------------------- host path */
/* The diagonal blocks of the given sizes from the host values (k->host.getvalues: zeros outside the pattern), each
   inverted by LAPACK (getrf + getri) and stored k x k column-major; a singular block is a failure and reads NaN */
static PetscErrorCode InvertVariableHost(Mat A, PetscInt nblocks, const PetscInt *bsizes, PetscScalar *diag)
{
  Mat_SeqBAIJKSPARSE *k    = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscInt            maxk = 0, row = 0, *idx;
  PetscBLASInt       *ipiv, lwork;
  PetscScalar        *w, *work;
  PetscLogDouble      flops = 0;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  PetscCheck(k->host.getvalues, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without BAIJ's MatGetValues()", MATSEQBAIJKSPARSE);
  for (PetscInt i = 0; i < nblocks; i++) maxk = PetscMax(maxk, bsizes[i]);
  PetscCall(PetscBLASIntCast(PetscMax(maxk * maxk, 1), &lwork));
  PetscCall(PetscMalloc4(maxk, &idx, maxk, &ipiv, maxk * maxk, &w, lwork, &work));
  for (PetscInt i = 0; i < nblocks; i++) {
    const PetscInt kb = bsizes[i];
    PetscBLASInt   n, info = 0;

    if (kb) {
      for (PetscInt j = 0; j < kb; j++) idx[j] = row + j;
      PetscCall((*k->host.getvalues)(A, kb, idx, kb, idx, w)); /* row-major */
      for (PetscInt r = 0; r < kb; r++)
        for (PetscInt c = 0; c < kb; c++) diag[r + c * kb] = w[r * kb + c];
      PetscCall(PetscBLASIntCast(kb, &n));
      PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&n, &n, diag, &n, ipiv, &info));
      if (!info) PetscCallBLAS("LAPACKgetri", LAPACKgetri_(&n, diag, &n, ipiv, work, &lwork, &info));
      if (info) {
        for (PetscInt e = 0; e < kb * kb; e++) diag[e] = (PetscScalar)NAN;
        PetscCall(BlockFailure(A, row, kb, info > 0 ? (PetscInt)info : -1));
      }
      flops += 2.0 * kb * kb * kb;
    }
    row += kb;
    diag += kb * kb;
  }
  PetscCall(PetscFree4(idx, ipiv, w, work));
  PetscCall(PetscLogFlops(flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ----------------------------------------------------------------------------------------------- device path */
/* Whether this call runs on the device: a device, not bound to the CPU, blocks of at most 32 rows */
static PetscErrorCode UseDevice(Mat A, PetscInt maxk, PetscBool *use)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, use));
  if (*use && maxk > PC_VBJACOBI_MAX_BLOCK_SIZE) {
    PetscCall(PetscInfo(A, "Blocks of %" PetscInt_FMT " rows exceed the %d of the batched inversion: inverting them on the host\n", maxk, PC_VBJACOBI_MAX_BLOCK_SIZE));
    *use = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inverts the batch in bd->d_blocks (nblocks blocks; h_sizes NULL: uniform of bs, else the uploaded sizes), then brings
   the inverses (len entries) into h_inv: one copy, and one of the failure record */
static PetscErrorCode InvertBatchToHost(Mat A, MatBAIJKSPARSEBlockDiag bd, PetscInt nblocks, PetscInt bs, PetscInt maxk, const PetscInt *h_sizes, PetscInt64 len, PetscScalar *h_inv, cudaStream_t stream)
{
  unsigned long long outcome;

  PetscFunctionBegin;
  PetscCall(PetscBlockGPUInvertBatched(nblocks, maxk, h_sizes ? bd->d_sizes : NULL, h_sizes ? bd->d_offsets : NULL, bd->d_blocks, bd->d_info));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEBlockDiagFailures_CUDA((int)nblocks, (int)bs, h_sizes ? bd->d_sizes : NULL, h_sizes ? bd->d_offsets : NULL, bd->d_info, bd->d_blocks, bd->d_outcome, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MatBAIJKSPARSEDownloadAsync_Private(&outcome, bd->d_outcome, sizeof(outcome), stream));
  if (len) PetscCall(MatBAIJKSPARSEDownloadAsync_Private(h_inv, bd->d_blocks, (size_t)len * sizeof(PetscScalar), stream));
  PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)(len * sizeof(PetscScalar) + sizeof(outcome))));
  PetscCall(DeviceOutcome(A, outcome, bs, h_sizes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a block row of the square part stores no diagonal block (the device copy counts them when it has the pattern) */
static PetscErrorCode MissingDiagonalBlock(Mat A, PetscBool *missing)
{
  MatBAIJKSPARSEDevice *d = ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev;
  const PetscInt       *ia, *ja;
  PetscInt              mbs, nbs = A->cmap->n / A->rmap->bs;
  PetscBool             done;

  PetscFunctionBegin;
  *missing = PETSC_FALSE;
  if (d && d->pattern_valid && d->nzstate == A->nonzerostate && d->bs == A->rmap->bs) {
    *missing = (PetscBool)(d->ndiagmissing > 0);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  for (PetscInt r = 0; r < PetscMin(mbs, nbs) && !*missing; r++) {
    PetscInt loc;

    PetscCall(PetscFindInt(r, ia[r + 1] - ia[r], ja + ia[r], &loc));
    *missing = (PetscBool)(loc < 0);
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ----------------------------------------------------------------------------------------------- the methods */
PetscErrorCode MatInvertBlockDiagonal_SeqBAIJKSPARSE(Mat A, const PetscScalar **values)
{
  Mat_SeqBAIJKSPARSE     *k  = (Mat_SeqBAIJKSPARSE *)A->spptr;
  const PetscInt          bs = A->rmap->bs, mbs = A->rmap->n / bs;
  const PetscInt64        len = (PetscInt64)mbs * bs * bs;
  MatBAIJKSPARSEBlockDiag bd;
  MatBAIJKSPARSEDevice   *d;
  PetscBool               use;
  cudaStream_t            stream;

  PetscFunctionBegin;
  PetscCall(BlockDiagGet(A, &bd));
  PetscCall(UseDevice(A, bs, &use));
  if (!use) {
    PetscBool missing;

    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    /* BAIJ would take another block for a missing diagonal block: the host implementation takes a zero block */
    PetscCall(MissingDiagonalBlock(A, &missing));
    if (!missing) {
      PetscCheck(k->host.invertblockdiagonal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without BAIJ's MatInvertBlockDiagonal()", MATSEQBAIJKSPARSE);
      PetscCall((*k->host.invertblockdiagonal)(A, values));
    } else {
      PetscInt *sizes;

      PetscCall(PetscLogEventBegin(PBG_BAIJKInvertDiag, A, 0, 0, 0));
      PetscCall(HostInverses(bd, len, PETSC_FALSE));
      PetscCall(PetscMalloc1(mbs, &sizes));
      for (PetscInt i = 0; i < mbs; i++) sizes[i] = bs;
      PetscCall(InvertVariableHost(A, mbs, sizes, bd->h_inv));
      PetscCall(PetscFree(sizes));
      if (values) *values = bd->h_inv;
      PetscCall(PetscLogEventEnd(PBG_BAIJKInvertDiag, A, 0, 0, 0));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(A)); /* uploads the values only when the host is newer */
  d = k->dev;
  PetscCall(PetscLogEventBegin(PBG_BAIJKInvertDiag, A, 0, 0, 0));
  PetscCall(HostInverses(bd, len, PETSC_TRUE));
  PetscCall(DeviceScratch(bd, len, mbs));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEExtractBlockDiag_CUDA((int)bs, (int)mbs, d->diagpos, d->val, bd->d_blocks, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(InvertBatchToHost(A, bd, mbs, bs, bs, NULL, len, bd->h_inv, stream));
  PetscCall(PetscLogEventEnd(PBG_BAIJKInvertDiag, A, 0, 0, 0));
  if (values) *values = bd->h_inv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block sizes on the device (sizes, first rows, offsets of the inverses), uploaded when they differ from the last */
static PetscErrorCode UploadSizes(MatBAIJKSPARSEBlockDiag bd, PetscInt nblocks, const PetscInt *bsizes, cudaStream_t stream)
{
  int        *starts;
  PetscInt64 *offsets;
  PetscBool   same = PETSC_FALSE;

  PetscFunctionBegin;
  if (bd->h_sizes && bd->nsizes == nblocks) PetscCall(PetscArraycmp(bd->h_sizes, bsizes, nblocks, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(bd->h_sizes));
  PetscCall(PetscMalloc1(PetscMax(nblocks, 1), &bd->h_sizes));
  PetscCall(PetscArraycpy(bd->h_sizes, bsizes, nblocks));
  bd->nsizes = nblocks;
  if ((size_t)nblocks + 1 > bd->cap_var || !bd->d_sizes) {
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_sizes));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_starts));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bd->d_offsets));
    bd->cap_var = (size_t)nblocks + 1;
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bd->d_sizes, bd->cap_var * sizeof(PetscInt)));
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bd->d_starts, bd->cap_var * sizeof(int)));
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bd->d_offsets, bd->cap_var * sizeof(PetscInt64)));
  }
  PetscCall(PetscMalloc2(nblocks + 1, &starts, nblocks + 1, &offsets));
  starts[0]  = 0;
  offsets[0] = 0;
  bd->maxk   = 0;
  for (PetscInt i = 0; i < nblocks; i++) {
    starts[i + 1]  = starts[i] + (int)bsizes[i];
    offsets[i + 1] = offsets[i] + (PetscInt64)bsizes[i] * bsizes[i];
    bd->maxk       = PetscMax(bd->maxk, bsizes[i]);
  }
  bd->len = offsets[nblocks];
  if (nblocks) PetscCall(MatBAIJKSPARSEUpload_Private(bd->d_sizes, bsizes, (size_t)nblocks * sizeof(PetscInt), stream));
  PetscCall(MatBAIJKSPARSEUpload_Private(bd->d_starts, starts, ((size_t)nblocks + 1) * sizeof(int), stream));
  PetscCall(MatBAIJKSPARSEUpload_Private(bd->d_offsets, offsets, ((size_t)nblocks + 1) * sizeof(PetscInt64), stream));
  PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream)); /* before the host arrays go */
  PetscCall(PetscFree2(starts, offsets));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)((size_t)nblocks * (sizeof(PetscInt) + sizeof(int) + sizeof(PetscInt64)) + sizeof(int) + sizeof(PetscInt64))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatInvertVariableBlockDiagonal_SeqBAIJKSPARSE(Mat A, PetscInt nblocks, const PetscInt *bsizes, PetscScalar *diag)
{
  Mat_SeqBAIJKSPARSE     *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEBlockDiag bd;
  MatBAIJKSPARSEDevice   *d;
  PetscInt                n = 0, maxk = 0;
  PetscBool               use;
  cudaStream_t            stream;

  PetscFunctionBegin;
  PetscCheck(nblocks >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative number of blocks %" PetscInt_FMT, nblocks);
  PetscCheck(!nblocks || bsizes, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "NULL block sizes for %" PetscInt_FMT " blocks", nblocks);
  for (PetscInt i = 0; i < nblocks; i++) {
    PetscCheck(bsizes[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block %" PetscInt_FMT " has negative size %" PetscInt_FMT, i, bsizes[i]);
    n += bsizes[i];
    maxk = PetscMax(maxk, bsizes[i]);
  }
  PetscCheck(n == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Total blocksizes %" PetscInt_FMT " doesn't match number matrix rows %" PetscInt_FMT, n, A->rmap->n);
  PetscCheck(n <= A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The blocks cover %" PetscInt_FMT " rows, more than the %" PetscInt_FMT " columns", n, A->cmap->n);
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(diag, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "NULL array for the inverses");
  PetscCall(BlockDiagGet(A, &bd));
  PetscCall(UseDevice(A, maxk, &use));
  PetscCall(PetscLogEventBegin(PBG_BAIJKInvertDiag, A, 0, 0, 0));
  if (!use) PetscCall(InvertVariableHost(A, nblocks, bsizes, diag));
  else {
    PetscCall(MatSeqBAIJKSPARSECopyToGPU(A));
    d = k->dev;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(UploadSizes(bd, nblocks, bsizes, stream));
    PetscCall(DeviceScratch(bd, bd->len, nblocks));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatBAIJKSPARSEExtractVarBlockDiag_CUDA(d->bs, (int)nblocks, (int)bd->maxk, d->rowptr, d->colidx, d->val, bd->d_starts, bd->d_offsets, bd->d_blocks, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(InvertBatchToHost(A, bd, nblocks, 0, bd->maxk, bd->h_sizes, bd->len, diag, stream));
  }
  PetscCall(PetscLogEventEnd(PBG_BAIJKInvertDiag, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPI: the diagonal part, as MATMPIBAIJ (and MATMPIAIJ for the variable blocks) do, its failure copied to A */
static PetscErrorCode CopyFailure(Mat A, Mat Ad)
{
  PetscFunctionBegin;
  A->factorerrortype             = Ad->factorerrortype;
  A->factorerror_zeropivot_value = Ad->factorerror_zeropivot_value;
  A->factorerror_zeropivot_row   = Ad->factorerror_zeropivot_row;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatInvertBlockDiagonal_MPIBAIJKSPARSE(Mat A, const PetscScalar **values)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, &garray));
  PetscCall(MatInvertBlockDiagonal(Ad, values));
  PetscCall(CopyFailure(A, Ad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatInvertVariableBlockDiagonal_MPIBAIJKSPARSE(Mat A, PetscInt nblocks, const PetscInt *bsizes, PetscScalar *diag)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, &garray));
  PetscCall(MatInvertVariableBlockDiagonal(Ad, nblocks, bsizes, diag));
  PetscCall(CopyFailure(A, Ad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------- PCPBJACOBI's device path */
/* PETSc's PCPBJACOBI applies on the device only when the matrix, or the block-diagonal matrix that the getblockdiagonal
   method returns, is aijcusparse (pbjacobi.c); on any other matrix it applies on the host, moving both vectors at every
   apply (snes ex19 512^2: KSPSolve several times slower than on aijcusparse). PCPBJACOBI is the only caller of that
   method, and of the returned matrix it reads the size, the block size, MatInvertBlockDiagonal() and the failure. So
   ours returns an aijcusparse matrix of A's sizes and block size that stores no entries and whose
   MatInvertBlockDiagonal() is A's (the device inversion above): PETSc's CUDA PBJacobi then copies A's inverses to the
   device once and applies them there. Without a usable device on every rank it returns none (PCPBJACOBI reads A).
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
static PetscErrorCode MatInvertBlockDiagonal_BlockDiagonalCarrier(Mat D, const PetscScalar **values)
{
  Mat A = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)D, "PBG_BlockDiagonalOf", (PetscObject *)&A));
  PetscCheck(A, PetscObjectComm((PetscObject)D), PETSC_ERR_PLIB, "the block-diagonal matrix of a %s matrix lost it", MATBAIJKSPARSE);
  PetscCall(MatInvertBlockDiagonal(A, values));
  PetscCall(CopyFailure(D, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGetBlockDiagonal_BAIJKSPARSE(Mat A, Mat *D)
{
  PetscBool use;

  PetscFunctionBegin;
  *D = NULL;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &use, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (!use) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), D));
  PetscCall(MatSetSizes(*D, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(*D, A, A));
  PetscCall(MatSetType(*D, MATAIJCUSPARSE));
  PetscCall(MatSeqAIJSetPreallocation(*D, 0, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*D, 0, NULL, 0, NULL));
  PetscCall(MatAssemblyBegin(*D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOperation(*D, MATOP_INVERT_BLOCK_DIAGONAL, (PetscErrorCodeFn *)MatInvertBlockDiagonal_BlockDiagonalCarrier));
  PetscCall(PetscObjectCompose((PetscObject)*D, "PBG_BlockDiagonalOf", (PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
