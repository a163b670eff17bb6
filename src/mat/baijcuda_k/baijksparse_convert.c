/* MatConvert() between MATSEQAIJCUSPARSE and MATSEQBAIJKSPARSE with the values staying on the device. The host builds
   the target's pattern from the source's index arrays only (the values are not read there), the target's device copy
   gets that pattern, and a kernel (cuda/baijksparse_convert.cu) moves the values from the source's device arrays.
   When the source's values are newer on the host, or no device is usable, or a matrix is bound to the CPU, the host
   conversions run (through MATSEQBAIJ / MATSEQAIJ). MPI matrices always convert on the host. Also here: the BAIJ
   conversions that baijksparse re-exports (to seqaij, seqsbaij), which first bring the host values up to date. */
#include "baijksparsecuda.h" /*I "petscblockgpu.h" I*/
#include <petscdevice_cuda.h>

/* ---------------------------------------------------------------------------------------------- patterns */
/* The block pattern of the CSR pattern (ai, aj) of an m x n matrix: block row r holds the block columns, sorted, that
   an entry of its bs rows falls in. bi[m/bs + 1] and bj[bi[m/bs]], to be freed by the caller. */
static PetscErrorCode BlockPatternOfCSR(PetscInt m, PetscInt n, PetscInt bs, const PetscInt *ai, const PetscInt *aj, PetscInt **bi, PetscInt **bj)
{
  const PetscInt mbs = m / bs, nbs = n / bs;
  PetscInt      *mark, cnt         = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(mbs + 1, bi));
  PetscCall(PetscMalloc1(PetscMax(nbs, 1), &mark));
  for (PetscInt c = 0; c < nbs; c++) mark[c] = -1;
  (*bi)[0] = 0;
  for (PetscInt r = 0; r < mbs; r++) {
    for (PetscInt k = ai[r * bs]; k < ai[(r + 1) * bs]; k++) {
      const PetscInt c = aj[k] / bs;

      if (mark[c] != r) {
        mark[c] = r;
        cnt++;
      }
    }
    (*bi)[r + 1] = cnt;
  }
  PetscCall(PetscMalloc1(PetscMax(cnt, 1), bj));
  for (PetscInt c = 0; c < nbs; c++) mark[c] = -1;
  for (PetscInt r = 0, t = 0; r < mbs; r++) {
    for (PetscInt k = ai[r * bs]; k < ai[(r + 1) * bs]; k++) {
      const PetscInt c = aj[k] / bs;

      if (mark[c] != r) {
        mark[c]    = r;
        (*bj)[t++] = c;
      }
    }
    PetscCall(PetscSortInt((*bi)[r + 1] - (*bi)[r], *bj + (*bi)[r]));
  }
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR pattern holding every entry of every block of the block pattern (ia, ja) of mbs block rows of rbs x cbs
   blocks, rows sorted: what MatConvert_SeqBAIJ_SeqAIJ() produces (rbs = cbs). ci[mbs rbs + 1], cj[ia[mbs] rbs cbs], to
   be freed by the caller. */
static PetscErrorCode ExpandBlockPattern(PetscInt mbs, PetscInt rbs, PetscInt cbs, const PetscInt *ia, const PetscInt *ja, PetscInt **ci, PetscInt **cj)
{
  const PetscInt64 nnz = (PetscInt64)(mbs ? ia[mbs] : 0) * rbs * cbs;
  PetscInt         q   = 0;

  PetscFunctionBegin;
  PetscCheck(nnz <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The AIJ matrix would have %" PetscInt64_FMT " entries, more than its 32-bit indices hold", nnz);
  PetscCall(PetscMalloc1(mbs * rbs + 1, ci));
  PetscCall(PetscMalloc1(PetscMax(nnz, 1), cj));
  (*ci)[0] = 0;
  for (PetscInt r = 0; r < mbs; r++) {
    for (PetscInt ii = 0; ii < rbs; ii++) {
      for (PetscInt t = ia[r]; t < ia[r + 1]; t++)
        for (PetscInt jj = 0; jj < cbs; jj++) (*cj)[q++] = ja[t] * cbs + jj;
      (*ci)[r * rbs + ii + 1] = q;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BAIJ's own block row pattern of a seqbaijksparse matrix (the forwarder of MatGetRowIJ() copies no values) */
static PetscErrorCode BlockRowIJ(Mat B, PetscBool restore, PetscInt *mbs, const PetscInt **ia, const PetscInt **ja)
{
  PetscBool done;

  PetscFunctionBegin;
  if (restore) PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_TRUE, mbs, ia, ja, &done));
  else PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_TRUE, mbs, ia, ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Checks the target of MAT_REUSE_MATRIX: its type, sizes and block size (the messages of MatConvert_Any_BAIJKSPARSE()) */
static PetscErrorCode CheckReuseTarget(Mat A, Mat B, MatType type, PetscInt bs)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)A);
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, type, &flg));
  PetscCheck(flg, comm, PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: the matrix to reuse must be %s, not %s", type, ((PetscObject)B)->type_name);
  PetscCheck(A->rmap->N == B->rmap->N && A->cmap->N == B->cmap->N && A->rmap->n == B->rmap->n && A->cmap->n == B->cmap->n, comm, PETSC_ERR_ARG_SIZ, "MAT_REUSE_MATRIX: the matrix to reuse is %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT "), the input %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT ")",
             B->rmap->N, B->cmap->N, B->rmap->n, B->cmap->n, A->rmap->N, A->cmap->N, A->rmap->n, A->cmap->n);
  PetscCheck(bs == B->rmap->bs, comm, PETSC_ERR_ARG_SIZ, "MAT_REUSE_MATRIX: the matrix to reuse has block size %" PetscInt_FMT ", the input %" PetscInt_FMT, B->rmap->bs, bs);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- aijcusparse -> baijksparse */
/* Whether the values of the seqaijcusparse A are current on the device and may be used there */
static PetscErrorCode AIJValuesOnDevice(Mat A, PetscBool *on)
{
  PetscBool avail;

  PetscFunctionBegin;
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  *on = (PetscBool)(avail && A->assembled && !A->boundtocpu && (A->offloadmask == PETSC_OFFLOAD_GPU || A->offloadmask == PETSC_OFFLOAD_BOTH));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MATSEQBAIJ B (sizes and block size set) gets the block pattern (bi, bj) with zero values, assembled */
static PetscErrorCode SetZeroBlocks(Mat B, PetscInt bs, const PetscInt *bi, const PetscInt *bj)
{
  const PetscInt mbs = B->rmap->n / bs;
  PetscInt      *nnz, maxlen = 0;
  PetscScalar   *zeros;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(mbs, 1), &nnz));
  for (PetscInt r = 0; r < mbs; r++) {
    nnz[r] = bi[r + 1] - bi[r];
    maxlen = PetscMax(maxlen, nnz[r]);
  }
  PetscCall(MatSeqBAIJSetPreallocation(B, bs, 0, nnz));
  PetscCall(PetscCalloc1(PetscMax(maxlen * bs * bs, 1), &zeros));
  for (PetscInt r = 0; r < mbs; r++) PetscCall(MatSetValuesBlocked(B, 1, &r, nnz[r], bj + bi[r], zeros, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(zeros));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of the seqaijcusparse A (nnz entries, current on the device) into the seqbaijksparse B, whose block pattern
   is that of A: B's device pattern (uploaded when B has none: indices only), zeroed values, the scatter kernel. The
   device copy of B is then the newer one. */
static PetscErrorCode ScatterAIJToBAIJKSPARSE(Mat A, PetscInt nnz, Mat B)
{
  MatBAIJKSPARSEDevice *d;
  const PetscInt       *ci, *cj;
  const PetscScalar    *ca;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  PetscCall(MatSeqBAIJKSPARSECopyPatternToGPU_Private(B));
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  d = ((Mat_SeqBAIJKSPARSE *)B->spptr)->dev;
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ci, &cj)); /* full row offsets, even when A compresses its rows */
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &ca));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvert, A, B, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEConvertCSRToBSR_CUDA(d->bs, (int)A->rmap->n, (PetscInt64)nnz, (const int *)ci, (const int *)cj, ca, d->nz, d->rowptr, d->colidx, d->val, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvert, A, B, 0, 0));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &ca));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ci, &cj));
  MatBAIJKSPARSEMarkDeviceNewer_Private(B);
  PetscCall(PetscObjectStateIncrease((PetscObject)B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatConvert_SeqAIJCUSPARSE_SeqBAIJKSPARSE - composed on every seqbaijksparse matrix as
  "MatConvert_seqaijcusparse_seqbaijksparse_C", which MatConvert() finds for MATBAIJKSPARSE and MATSEQBAIJKSPARSE.
  The block size is |A->rmap->bs| (as MatConvert_SeqAIJ_SeqBAIJ()); the block pattern is every block that holds an entry
  of A (entries of a block that A lacks are 0). With A's values on the device: no value crosses between host and device.
*/
PetscErrorCode MatConvert_SeqAIJCUSPARSE_SeqBAIJKSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  const PetscInt  m = A->rmap->n, n = A->cmap->n, bs = PetscAbs(A->rmap->bs);
  const PetscInt *ai, *aj;
  PetscInt       *bi, *bj, mm, nnz;
  PetscBool       on = PETSC_FALSE, flg, done;
  Mat             B  = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &flg));
  PetscCheck(flg, comm, PETSC_ERR_ARG_WRONG, "Expected a %s matrix, not %s", MATSEQAIJCUSPARSE, ((PetscObject)A)->type_name);
  PetscCall(PetscStrcmpAny(type, &flg, MATBAIJKSPARSE, MATSEQBAIJKSPARSE, ""));
  PetscCheck(flg, comm, PETSC_ERR_SUP, "Cannot convert a %s matrix to %s: use %s or %s", ((PetscObject)A)->type_name, type, MATBAIJKSPARSE, MATSEQBAIJKSPARSE);
  PetscCall(AIJValuesOnDevice(A, &on));
  if (on && reuse == MAT_REUSE_MATRIX) {
    PetscValidHeaderSpecific(*newmat, MAT_CLASSID, 4);
    PetscCall(PetscObjectTypeCompare((PetscObject)*newmat, MATSEQBAIJKSPARSE, &flg));
    on = (PetscBool)(flg && !(*newmat)->boundtocpu); /* else the host path (which refuses a wrong type) */
  }
  if (!on) { /* the values are newer on the host, or stay there */
    PetscCall(MatConvert_Any_BAIJKSPARSE(A, type, reuse, newmat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(reuse != MAT_INPLACE_MATRIX || *newmat == A, comm, PETSC_ERR_ARG_WRONG, "MAT_INPLACE_MATRIX requires the same input and output matrix");

  if (reuse != MAT_REUSE_MATRIX) { /* B's layout refuses a block size that does not divide the sizes, as BAIJ does */
    PetscCall(MatCreate(comm, &B));
    PetscCall(MatSetSizes(B, m, n, m, n));
    PetscCall(MatSetBlockSize(B, bs));
    PetscCall(MatSetType(B, MATSEQBAIJ));
  } else PetscCall(CheckReuseTarget(A, *newmat, MATSEQBAIJKSPARSE, bs));
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  /* the host copy of A's pattern is current even when its values are not (aijcusparse keeps i, j on the host) */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));
  PetscCheck(done && mm == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the %s matrix", MATSEQAIJCUSPARSE);
  nnz = ai[m];
  PetscCall(BlockPatternOfCSR(m, n, bs, ai, aj, &bi, &bj));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));

  if (reuse == MAT_REUSE_MATRIX) {
    const PetscInt *ia, *ja;
    PetscInt        mbs;
    PetscBool       same;

    B = *newmat;
    PetscCall(BlockRowIJ(B, PETSC_FALSE, &mbs, &ia, &ja));
    same = (PetscBool)(mbs == m / bs);
    if (same) PetscCall(PetscArraycmp(ia, bi, mbs + 1, &same));
    if (same) PetscCall(PetscArraycmp(ja, bj, bi[mbs], &same));
    PetscCall(BlockRowIJ(B, PETSC_TRUE, &mbs, &ia, &ja));
    PetscCheck(same, comm, PETSC_ERR_ARG_INCOMP, "MAT_REUSE_MATRIX: the matrix to reuse does not have the block pattern of the input (%" PetscInt_FMT " blocks of the input)", bi[m / bs]);
  } else {
    PetscCall(SetZeroBlocks(B, bs, bi, bj));
    PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(B, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &B));
  }
  PetscCall(PetscFree(bi));
  PetscCall(PetscFree(bj));
  /* as MatConvert_Any_BAIJKSPARSE(), while the host copy is current (its MatGetRowIJ() would fetch device values) */
  if (reuse != MAT_REUSE_MATRIX) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(B));
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  if (nnz) PetscCall(ScatterAIJToBAIJKSPARSE(A, nnz, B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of the AIJ matrix A into the baijksparse B made from it by MatConvert(), when the caller knows that A's
   pattern has not changed since (a product's result, baijksparse_product.c): the scatter kernel alone where A is a
   seqaijcusparse matrix with its values on the device and B seqbaijksparse, else the host conversion copied in */
PetscErrorCode MatSeqAIJCUSPARSEBAIJKSPARSERefresh_Private(Mat A, Mat B)
{
  PetscBool on;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &on));
  if (on) PetscCall(AIJValuesOnDevice(A, &on));
  if (on) PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBAIJKSPARSE, &on));
  if (on) on = (PetscBool)!B->boundtocpu;
  if (on) {
    const PetscInt *ai, *aj;
    PetscInt        mm;
    PetscBool       done;
    PetscInt        nnz;

    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the %s matrix", MATSEQAIJCUSPARSE);
    nnz = ai[mm];
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));
    if (nnz) PetscCall(ScatterAIJToBAIJKSPARSE(A, nnz, B));
  } else {
    Mat T;

    PetscCall(MatConvert(A, ((PetscObject)B)->type_name, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatCopy(T, B, SAME_NONZERO_PATTERN));
    PetscCall(MatDestroy(&T));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- baijksparse -> aijcusparse */
/* The host conversion: BAIJ's MatConvert_SeqBAIJ_SeqAIJ() on the host values, then aijcusparse in place */
static PetscErrorCode ConvertToAIJCUSPARSEOnHost(Mat A, MatReuse reuse, Mat *newmat)
{
  PetscErrorCode (*f)(Mat, MatType, MatReuse, Mat *) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatConvert_seqbaij_seqaij_C", &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without BAIJ's MatConvert_seqbaij_seqaij_C", MATSEQBAIJKSPARSE);
  /* aijcusparse needs a usable device: without one (no driver) its error comes here, before the AIJ intermediate exists
     (it leaked) or A is converted in place */
  if (reuse != MAT_REUSE_MATRIX) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  if (reuse == MAT_REUSE_MATRIX) PetscCall((*f)(A, MATSEQAIJ, MAT_REUSE_MATRIX, newmat)); /* MatSetValues() into *newmat */
  else if (reuse == MAT_INITIAL_MATRIX) {
    Mat B;

    PetscCall((*f)(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatConvert(B, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &B));
    *newmat = B;
  } else {
    PetscCall((*f)(A, MATSEQAIJ, MAT_INPLACE_MATRIX, &A)); /* MatHeaderReplace(): the same object */
    PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &A));
    *newmat = A;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Arrays a matrix made "with arrays" reads; it does not free them: the object does, through this (composed) */
typedef struct {
  PetscInt    *i, *j;
  PetscScalar *a;
} OwnedCSR;

static PetscErrorCode OwnedCSRDestroy(void **ctx)
{
  OwnedCSR *o = (OwnedCSR *)*ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(o->i));
  PetscCall(PetscFree(o->j));
  PetscCall(PetscFree(o->a));
  PetscCall(PetscFree(o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new seqaijcusparse B with the CSR pattern (ci, cj) (taken over: freed here or by B) and zero values, block sizes
   those of A. AIJ's MatSeqAIJSetPreallocationCSR() inserts the pattern entry by entry (ksp ex56 -ne 79: slow, with
   the 121M entries of the operator); an AIJ "with arrays" is made in O(rows). Such a matrix refuses new nonzeros and,
   once made to accept them, frees the arrays it was given when it reallocates: a private copy (products) keeps the
   arrays and refuses new nonzeros; one the user gets (MatConvert()) is a duplicate, which owns its arrays and accepts
   them, as MatConvert_SeqBAIJ_SeqAIJ() leaves it.
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
static PetscErrorCode NewAIJCUSPARSEOfPattern(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt rbs, PetscInt cbs, PetscInt *ci, PetscInt *cj, PetscBool private_copy, Mat *B)
{
  PetscScalar *ca;
  Mat          T;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax(ci[m], 1), &ca));
  PetscCall(MatCreateSeqAIJWithArrays(comm, m, n, ci, cj, ca, &T));
  if (private_copy) {
    OwnedCSR *o;

    PetscCall(PetscNew(&o));
    o->i = ci, o->j = cj, o->a = ca;
    PetscCall(PetscObjectContainerCompose((PetscObject)T, "PBG_OwnedCSR", o, (PetscCtxDestroyFn *)OwnedCSRDestroy));
    *B = T;
  } else {
    PetscCall(MatDuplicate(T, MAT_COPY_VALUES, B));
    PetscCall(MatDestroy(&T));
    PetscCall(PetscFree(ci));
    PetscCall(PetscFree(cj));
    PetscCall(PetscFree(ca));
    PetscCall(MatSetOption(*B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
  }
  PetscCall(MatSetBlockSizes(*B, rbs, cbs));
  PetscCall(MatConvert(*B, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of the seqbaijksparse A (current on the device) into the seqaijcusparse B, whose pattern is every entry of
   every block of A's, by a kernel */
static PetscErrorCode BSRValuesToAIJCUSPARSE(Mat A, Mat B)
{
  MatBAIJKSPARSEDevice *d;
  const PetscInt       *bi, *bj;
  PetscScalar          *bv;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(A)); /* nothing to send: the device copy is current */
  d = ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev;
  if (!d->nz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(B, PETSC_FALSE, &bi, &bj)); /* B's device arrays (built from its host copy when new) */
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(B, PETSC_FALSE, &bi, &bj));
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(B, &bv));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvert, A, B, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatBAIJKSPARSEConvertBSRToCSR_CUDA(d->bs, d->mbs, d->nz, d->rowptr, d->val, bv, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvert, A, B, 0, 0));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(B, &bv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the values of the seqbaijksparse A can go to an aijcusparse matrix on the device */
static PetscErrorCode BAIJValuesOnDevice(Mat A, PetscBool *on)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, on));
  *on = (PetscBool)(*on && A->offloadmask != PETSC_OFFLOAD_CPU);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatConvert_SeqBAIJKSPARSE_SeqAIJCUSPARSE - composed on every seqbaijksparse matrix as
  "MatConvert_seqbaijksparse_seqaijcusparse_C", which MatConvert() finds for MATAIJCUSPARSE and MATSEQAIJCUSPARSE.
  The AIJ pattern is every entry of every block, as MatConvert_SeqBAIJ_SeqAIJ() makes it. With A's values on the device,
  none of A's values crosses between host and device: the host builds the AIJ pattern from the block pattern,
  aijcusparse makes its device copy of that pattern (sending its own zero-filled values once, for a new matrix: it
  builds its device arrays only from its host copy), and a kernel writes the values.
*/
PetscErrorCode MatConvert_SeqBAIJKSPARSE_SeqAIJCUSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  const PetscInt *ia, *ja;
  PetscInt       *ci, *cj, mbs, bs = A->rmap->bs, m = A->rmap->n;
  PetscInt64      nnz;
  PetscBool       on = PETSC_FALSE, flg;
  Mat             B;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &flg));
  PetscCheck(flg, comm, PETSC_ERR_ARG_WRONG, "Expected a %s matrix, not %s", MATSEQBAIJKSPARSE, ((PetscObject)A)->type_name);
  PetscCall(PetscStrcmpAny(type, &flg, MATAIJCUSPARSE, MATSEQAIJCUSPARSE, ""));
  PetscCheck(flg, comm, PETSC_ERR_SUP, "Cannot convert a %s matrix to %s: use %s or %s", ((PetscObject)A)->type_name, type, MATAIJCUSPARSE, MATSEQAIJCUSPARSE);
  PetscCall(BAIJValuesOnDevice(A, &on));
  if (on && reuse == MAT_REUSE_MATRIX) {
    PetscValidHeaderSpecific(*newmat, MAT_CLASSID, 4);
    PetscCall(PetscObjectTypeCompare((PetscObject)*newmat, MATSEQAIJCUSPARSE, &flg));
    PetscCheck(flg, comm, PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: the matrix to reuse must be %s, not %s", MATSEQAIJCUSPARSE, ((PetscObject)*newmat)->type_name);
    on = (PetscBool) !(*newmat)->boundtocpu;
  }
  if (!on) {
    PetscCall(ConvertToAIJCUSPARSEOnHost(A, reuse, newmat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(reuse != MAT_INPLACE_MATRIX || *newmat == A, comm, PETSC_ERR_ARG_WRONG, "MAT_INPLACE_MATRIX requires the same input and output matrix");

  PetscCall(PetscLogEventBegin(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  PetscCall(BlockRowIJ(A, PETSC_FALSE, &mbs, &ia, &ja));
  nnz = (PetscInt64)(mbs ? ia[mbs] : 0) * bs * bs;
  PetscCall(ExpandBlockPattern(mbs, bs, bs, ia, ja, &ci, &cj));
  PetscCall(BlockRowIJ(A, PETSC_TRUE, &mbs, &ia, &ja));
  if (reuse == MAT_REUSE_MATRIX) {
    const PetscInt *bi, *bj;
    PetscInt        mm;
    PetscBool       done, same;

    B = *newmat;
    PetscCall(CheckReuseTarget(A, B, MATSEQAIJCUSPARSE, B->rmap->bs));
    PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &mm, &bi, &bj, &done));
    PetscCheck(done && mm == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the %s matrix", MATSEQAIJCUSPARSE);
    PetscCall(PetscArraycmp(bi, ci, m + 1, &same));
    if (same) PetscCall(PetscArraycmp(bj, cj, (PetscInt)nnz, &same));
    PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &mm, &bi, &bj, &done));
    PetscCall(PetscFree(ci));
    PetscCall(PetscFree(cj));
    PetscCheck(same, comm, PETSC_ERR_ARG_INCOMP, "MAT_REUSE_MATRIX: the matrix to reuse does not have the pattern of the input (every entry of its %" PetscInt_FMT " blocks)", mbs ? ia[mbs] : 0);
  } else PetscCall(NewAIJCUSPARSEOfPattern(comm, m, A->cmap->n, A->rmap->bs, A->cmap->bs, ci, cj, PETSC_FALSE, &B));
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  PetscCall(BSRValuesToAIJCUSPARSE(A, B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a product may take the values of the seqbaijksparse A from the device: where the device is usable, A's
   values are sent first when the host has newer ones (a matrix assembled on the host and not used on the device yet:
   PCGAMG's fine operator), one upload of the block values in place of a host conversion that inserts every entry,
   which is slower (ksp ex56 -ne 79; measured: doc/benchmarks.md, "Measurements behind design choices") */
static PetscErrorCode ValuesOnDeviceForProduct(Mat A, PetscBool *on)
{
  PetscBool dev;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &dev));
  if (dev && A->assembled && !A->boundtocpu) PetscCall(MatSeqBAIJKSPARSECopyToGPU(A));
  PetscCall(BAIJValuesOnDevice(A, on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The seqaijcusparse copy of the seqbaijksparse A that a product keeps (baijksparse_product.c): as MatConvert()
   (MAT_INITIAL_MATRIX), but private: its arrays are kept, new nonzeros are refused. With A's values on the host, or no
   usable device: MatConvert() itself. */
PetscErrorCode MatSeqBAIJKSPARSEAIJCUSPARSECopy_Private(Mat A, Mat *B)
{
  const PetscInt *ia, *ja;
  PetscInt       *ci, *cj, mbs;
  PetscBool       on;

  PetscFunctionBegin;
  PetscCall(ValuesOnDeviceForProduct(A, &on));
  if (!on) {
    PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  PetscCall(BlockRowIJ(A, PETSC_FALSE, &mbs, &ia, &ja));
  PetscCall(ExpandBlockPattern(mbs, A->rmap->bs, A->rmap->bs, ia, ja, &ci, &cj));
  PetscCall(BlockRowIJ(A, PETSC_TRUE, &mbs, &ia, &ja));
  PetscCall(NewAIJCUSPARSEOfPattern(PetscObjectComm((PetscObject)A), A->rmap->n, A->cmap->n, A->rmap->bs, A->cmap->bs, ci, cj, PETSC_TRUE, B));
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvertPattern, A, 0, 0, 0));
  PetscCall(BSRValuesToAIJCUSPARSE(A, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of the seqbaijksparse A into B, its copy made by MatSeqBAIJKSPARSEAIJCUSPARSECopy_Private() or
   MatConvert(), when the caller knows that A's pattern has not changed since (the product checks A's nonzero state):
   the kernel alone, or MatConvert() with MAT_REUSE_MATRIX where the values are on the host */
PetscErrorCode MatSeqBAIJKSPARSEAIJCUSPARSERefresh_Private(Mat A, Mat B)
{
  PetscBool on;

  PetscFunctionBegin;
  PetscCall(ValuesOnDeviceForProduct(A, &on));
  if (on) PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJCUSPARSE, &on));
  if (on) on = (PetscBool)!B->boundtocpu;
  if (on) PetscCall(BSRValuesToAIJCUSPARSE(A, B));
  else PetscCall(MatConvert(A, ((PetscObject)B)->type_name, MAT_REUSE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- results of blocked products */
/* The results of the blocked products (baijksparse_galerkin.c), made from a block pattern (bi, bj) of mb block rows and
   nb block columns (host arrays, only read); their values are written on the device by the caller. */
/* a seqbaijksparse of bs x bs blocks, its device copy holding the pattern (the values left to the caller, who then
   marks the device copy newer) */
PetscErrorCode MatSeqBAIJKSPARSEOfBlockPattern_Private(MPI_Comm comm, PetscInt bs, PetscInt mb, PetscInt nb, const PetscInt *bi, const PetscInt *bj, Mat *B)
{
  Mat T;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvertPattern, 0, 0, 0, 0));
  PetscCall(MatCreate(comm, &T));
  PetscCall(MatSetSizes(T, mb * bs, nb * bs, mb * bs, nb * bs));
  PetscCall(MatSetBlockSize(T, bs));
  PetscCall(MatSetType(T, MATSEQBAIJ));
  PetscCall(SetZeroBlocks(T, bs, bi, bj));
  PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(T, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &T));
  PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(T));
  PetscCall(MatSeqBAIJKSPARSECopyPatternToGPU_Private(T));
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvertPattern, 0, 0, 0, 0));
  *B = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a seqaijcusparse holding every entry of every rbs x cbs block, block sizes rbs x cbs, its device arrays made (the
   values then written by MatSeqAIJCUSPARSEGetArrayWrite()) */
PetscErrorCode MatSeqAIJCUSPARSEOfBlockPattern_Private(MPI_Comm comm, PetscInt rbs, PetscInt cbs, PetscInt mb, PetscInt nb, const PetscInt *bi, const PetscInt *bj, Mat *B)
{
  PetscInt       *ci, *cj;
  const PetscInt *di, *dj;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PBG_BAIJKConvertPattern, 0, 0, 0, 0));
  PetscCall(ExpandBlockPattern(mb, rbs, cbs, bi, bj, &ci, &cj));
  PetscCall(NewAIJCUSPARSEOfPattern(comm, mb * rbs, nb * cbs, rbs, cbs, ci, cj, PETSC_FALSE, B));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(*B, PETSC_FALSE, &di, &dj)); /* its device arrays, built from its host copy */
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(*B, PETSC_FALSE, &di, &dj));
  PetscCall(PetscLogEventEnd(PBG_BAIJKConvertPattern, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- BAIJ's, re-exported */
/* BAIJ's conversion of a seq- or mpibaijksparse matrix to `type` (aij, sbaij; composed as
   "MatConvert_{seq,mpi}baijksparse_{seq,mpi}<type>_C"), after the host values are brought up to date: BAIJ's converters
   read them */
PetscErrorCode MatConvert_BAIJKSPARSE_HostForward(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscErrorCode (*f)(Mat, MatType, MatReuse, Mat *) = NULL;
  char        name[128];
  const char *prefix;
  PetscBool   mpi, has;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &mpi));
  prefix = mpi ? "mpi" : "seq";
  PetscCall(PetscStrbeginswith(type, prefix, &has));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s%s_C", mpi ? MATMPIBAIJ : MATSEQBAIJ, has ? "" : prefix, type));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, name, &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s has no conversion to %s (no %s)", ((PetscObject)A)->type_name, type, name);
  if (mpi) PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  else PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  PetscCall((*f)(A, type, reuse, newmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* To mpiaijcusparse (or aijcusparse): each part converted on the device (the sequential conversion), then put together
   by MatCreateMPIAIJWithSeqAIJ() with the off-diagonal part's columns expanded from the block garray. MatConvert() finds
   no converter of its own for this pair and would fall back to MatConvert_Basic(): a row at a time into a matrix with no
   preallocation (PCGAMG's products on several ranks go through such copies of the operators). MAT_REUSE_MATRIX converts
   each part into the target's part (the sequential reuse checks its pattern), with no new matrix. */
PetscErrorCode MatConvert_MPIBAIJKSPARSE_MPIAIJCUSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             T, parts[2], conv[2];
  const PetscInt *bgarray;
  PetscInt        bs     = A->rmap->bs, *garray, nghost;
  PetscBool       isk[2] = {PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert an unassembled %s matrix", MATMPIBAIJKSPARSE);
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &parts[0], &parts[1], &bgarray));
  for (PetscInt k = 0; k < 2; k++)
    if (parts[k]) PetscCall(PetscObjectTypeCompare((PetscObject)parts[k], MATSEQBAIJKSPARSE, &isk[k]));
  PetscCheck(isk[0] && isk[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "An assembled %s matrix without its two %s parts", MATMPIBAIJKSPARSE, MATSEQBAIJKSPARSE);
  nghost = parts[1]->cmap->n / bs;
  if (reuse == MAT_REUSE_MATRIX) {
    const PetscInt *tgarray;
    PetscBool       same;

    PetscValidHeaderSpecific(*newmat, MAT_CLASSID, 4);
    PetscCall(PetscObjectTypeCompare((PetscObject)*newmat, MATMPIAIJCUSPARSE, &same));
    PetscCheck(same, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: the matrix to reuse must be %s, not %s", MATMPIAIJCUSPARSE, ((PetscObject)*newmat)->type_name);
    PetscCall(MatMPIAIJGetSeqAIJ(*newmat, &conv[0], &conv[1], &tgarray));
    same = (PetscBool)(conv[1]->cmap->n == nghost * bs);
    for (PetscInt g = 0; g < nghost && same; g++)
      for (PetscInt c = 0; c < bs && same; c++) same = (PetscBool)(tgarray[g * bs + c] == bgarray[g] * bs + c);
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MAT_REUSE_MATRIX: the off-diagonal columns of the matrix to reuse are not those of the input");
    for (PetscInt k = 0; k < 2; k++) PetscCall(MatConvert(parts[k], MATSEQAIJCUSPARSE, MAT_REUSE_MATRIX, &conv[k])); /* MatConvert() raises *newmat's state */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 0; k < 2; k++) PetscCall(MatConvert(parts[k], MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &conv[k]));
  PetscCall(PetscMalloc1(PetscMax(nghost * bs, 1), &garray)); /* not NULL even when empty: the columns are local ones */
  for (PetscInt g = 0; g < nghost; g++)
    for (PetscInt c = 0; c < bs; c++) garray[g * bs + c] = bgarray[g] * bs + c;
  PetscCall(MatCreateMPIAIJWithSeqAIJ(PetscObjectComm((PetscObject)A), A->rmap->N, A->cmap->N, conv[0], conv[1], garray, &T));
  PetscCall(MatSetOption(T, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE)); /* as a converted matrix is left */
  PetscCall(PetscInfo(A, "%s converted to %s from its parts, each converted on the device\n", MATMPIBAIJKSPARSE, type));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &T));
  else *newmat = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- any type -> baijksparse */
/* A MATSEQBAIJ of block size 1 with the pattern and host values of the seqaij A. BAIJ's conversion inserts entry by
   entry; a BAIJ "with arrays" (block size 1 only) on A's arrays, duplicated, is a copy of the arrays (ksp ex45 at 100^3
   on the host: faster than a row at a time). The duplicate owns its arrays (a BAIJ with arrays does not, until
   a new nonzero makes it reallocate: then it frees the arrays it was given), and A's are only read. A DMDA with one
   field builds its matrix through AIJ (issue 38): this is what makes that route pay.
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
static PetscErrorCode SeqBAIJOfSeqAIJBlockSize1(Mat A, Mat *B)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           m = A->rmap->n, mm;
  PetscBool          done;
  Mat                T;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));
  PetscCheck(done && mm == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the %s matrix", ((PetscObject)A)->type_name);
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(MatCreateSeqBAIJWithArrays(PetscObjectComm((PetscObject)A), 1, m, A->cmap->n, (PetscInt *)ai, (PetscInt *)aj, (PetscScalar *)aa, &T));
  PetscCall(MatDuplicate(T, MAT_COPY_VALUES, B));
  for (PetscInt k = 0; k < 2; k++) { /* BAIJ's block size 1 host kernels, which its preallocation picks, not its duplicate */
    const MatOperation op = k ? MATOP_MULT_ADD : MATOP_MULT;
    void (*f)(void)       = NULL;

    PetscCall(MatGetOperation(T, op, &f));
    PetscCall(MatSetOperation(*B, op, f));
  }
  PetscCall(MatDestroy(&T));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));
  PetscCall(MatSetOption(*B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE)); /* as after MatConvert_SeqAIJ_SeqBAIJ() */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MATMPIBAIJ with the entries of the assembled matrix A, a subclass of MPIAIJ other than MPIAIJ itself
   (mpiaijcusparse: a product's result on several ranks): preallocated by the block pattern of A's two parts, then
   filled a row at a time from their host arrays. MatConvert() knows no converter from such a type to MPIBAIJ and would
   fall back to MatConvert_Basic(): the same rows into a matrix without preallocation. */
static PetscErrorCode MPIBAIJOfAIJSubclass(Mat A, Mat *B)
{
  Mat                Ad, Ao;
  const PetscScalar *da, *oa;
  const PetscInt    *garray, *di, *dj, *oi, *oj;
  PetscInt           bs = PetscAbs(A->rmap->bs), m = A->rmap->n, mbs, nbc, nob = 0, cstart = A->cmap->rstart, nd, no, *d_nnz, *o_nnz, *mark, *ob, *gcols, maxo = 0;
  PetscScalar       *gvals;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert an unassembled %s matrix to %s", ((PetscObject)A)->type_name, MATMPIBAIJKSPARSE);
  PetscCheck(m % bs == 0 && A->cmap->n % bs == 0 && cstart % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Cannot convert a %s matrix with local sizes %" PetscInt_FMT " x %" PetscInt_FMT " to block size %" PetscInt_FMT, ((PetscObject)A)->type_name, m,
             A->cmap->n, bs);
  mbs = m / bs;
  nbc = A->cmap->n / bs;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatSeqAIJGetArrayRead(Ad, &da)); /* the host values brought up to date */
  PetscCall(MatSeqAIJGetArrayRead(Ao, &oa));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscCheck(done && nd == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the diagonal part");
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));
  PetscCheck(done && no == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the off-diagonal part");
  /* the off-diagonal part's columns (ascending global indices, garray) by block: ob[c] numbers the distinct blocks */
  PetscCall(PetscMalloc1(Ao->cmap->n + 1, &ob));
  for (PetscInt c = 0; c < Ao->cmap->n; c++) {
    if (c == 0 || garray[c] / bs != garray[c - 1] / bs) nob++;
    ob[c] = nob - 1;
  }
  PetscCall(PetscCalloc3(mbs, &d_nnz, mbs, &o_nnz, nbc + nob, &mark));
  for (PetscInt ib = 0; ib < mbs; ib++) { /* stamp ib + 1: each block column counted once a block row */
    for (PetscInt i = ib * bs; i < (ib + 1) * bs; i++) {
      for (PetscInt p = di[i]; p < di[i + 1]; p++)
        if (mark[dj[p] / bs] != ib + 1) {
          mark[dj[p] / bs] = ib + 1;
          d_nnz[ib]++;
        }
      for (PetscInt p = oi[i]; p < oi[i + 1]; p++)
        if (mark[nbc + ob[oj[p]]] != ib + 1) {
          mark[nbc + ob[oj[p]]] = ib + 1;
          o_nnz[ib]++;
        }
      maxo = PetscMax(maxo, oi[i + 1] - oi[i]);
    }
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
  PetscCall(MatSetSizes(*B, m, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetType(*B, MATMPIBAIJ));
  PetscCall(MatMPIBAIJSetPreallocation(*B, bs, 0, d_nnz, 0, o_nnz));
  PetscCall(MatSetOption(*B, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(PetscMalloc2(maxo + A->cmap->n + 1, &gcols, maxo + A->cmap->n + 1, &gvals));
  for (PetscInt i = 0; i < m; i++) { /* a row in one call: its diagonal part's entries, then its off-diagonal part's */
    const PetscInt row = A->rmap->rstart + i, nrd = di[i + 1] - di[i], nro = oi[i + 1] - oi[i];

    for (PetscInt p = 0; p < nrd; p++) {
      gcols[p] = dj[di[i] + p] + cstart;
      gvals[p] = da[di[i] + p];
    }
    for (PetscInt p = 0; p < nro; p++) {
      gcols[nrd + p] = garray[oj[oi[i] + p]];
      gvals[nrd + p] = oa[oi[i] + p];
    }
    PetscCall(MatSetValues(*B, 1, &row, nrd + nro, gcols, gvals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*B, MAT_NO_OFF_PROC_ENTRIES, PETSC_FALSE));
  PetscCall(PetscFree2(gcols, gvals));
  PetscCall(PetscFree3(d_nnz, o_nnz, mark));
  PetscCall(PetscFree(ob));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &oa));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &da));
  PetscCall(PetscInfo(A, "%s converted to %s through a MATMPIBAIJ preallocated by the block pattern of its parts\n", ((PetscObject)A)->type_name, MATMPIBAIJKSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_Any_BAIJKSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt size;
  PetscBool   ismpi, flg, isk, isbase;
  MatType     base, ktype;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, "mpi", &ismpi));
  if (size > 1) ismpi = PETSC_TRUE;
  base  = ismpi ? MATMPIBAIJ : MATSEQBAIJ;
  ktype = ismpi ? MATMPIBAIJKSPARSE : MATSEQBAIJKSPARSE;
  PetscCall(PetscStrcmpAny(type, &flg, MATBAIJKSPARSE, ktype, ""));
  PetscCheck(flg, comm, PETSC_ERR_SUP, "Cannot convert a %s matrix to %s: use %s or %s", ((PetscObject)A)->type_name, type, MATBAIJKSPARSE, ktype);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, ktype, &isk));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, base, &isbase));

  if (reuse == MAT_REUSE_MATRIX) {
    Mat B = *newmat, T;

    PetscValidHeaderSpecific(B, MAT_CLASSID, 4);
    PetscCall(PetscObjectTypeCompare((PetscObject)B, ktype, &flg));
    PetscCheck(flg, comm, PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: the matrix to reuse must be %s, not %s", ktype, ((PetscObject)B)->type_name);
    PetscCheck(A->rmap->N == B->rmap->N && A->cmap->N == B->cmap->N && A->rmap->n == B->rmap->n && A->cmap->n == B->cmap->n, comm, PETSC_ERR_ARG_SIZ, "MAT_REUSE_MATRIX: the matrix to reuse is %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT "), the input %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT ")",
               B->rmap->N, B->cmap->N, B->rmap->n, B->cmap->n, A->rmap->N, A->cmap->N, A->rmap->n, A->cmap->n);
    PetscCheck(A->rmap->bs == B->rmap->bs, comm, PETSC_ERR_ARG_SIZ, "MAT_REUSE_MATRIX: the matrix to reuse has block size %" PetscInt_FMT ", the input %" PetscInt_FMT, B->rmap->bs, A->rmap->bs);
    if (isk || isbase) PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    else {
      PetscCall(MatConvert(A, base, MAT_INITIAL_MATRIX, &T));
      PetscCall(MatCopy(T, B, SAME_NONZERO_PATTERN));
      PetscCall(MatDestroy(&T));
    }
  } else if (reuse == MAT_INITIAL_MATRIX) {
    Mat B;

    PetscBool seqaij = PETSC_FALSE, aijsub = PETSC_FALSE;

    if (!ismpi && PetscAbs(A->rmap->bs) == 1 && PetscAbs(A->cmap->bs) == 1) PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
    if (ismpi && !isk && !isbase) {
      PetscBool mpiaij;

      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij)); /* MPIAIJ itself has BAIJ's preallocated converter */
      if (!mpiaij) PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &aijsub));
    }
    if (isk || isbase) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    else if (seqaij && A->assembled) PetscCall(SeqBAIJOfSeqAIJBlockSize1(A, &B));
    else if (aijsub) PetscCall(MPIBAIJOfAIJSubclass(A, &B));
    else PetscCall(MatConvert(A, base, MAT_INITIAL_MATRIX, &B));
    if (ismpi) PetscCall(MatConvert_MPIBAIJ_MPIBAIJKSPARSE(B, ktype, MAT_INPLACE_MATRIX, &B));
    else PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(B, ktype, MAT_INPLACE_MATRIX, &B));
    *newmat = B;
  } else {
    PetscCheck(*newmat == A, comm, PETSC_ERR_ARG_WRONG, "MAT_INPLACE_MATRIX requires the same input and output matrix");
    if (!isk) {
      if (!isbase) PetscCall(MatConvert(A, base, MAT_INPLACE_MATRIX, &A)); /* MatHeaderReplace(): same object */
      if (ismpi) PetscCall(MatConvert_MPIBAIJ_MPIBAIJKSPARSE(A, ktype, MAT_INPLACE_MATRIX, &A));
      else PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(A, ktype, MAT_INPLACE_MATRIX, &A));
    }
    *newmat = A;
  }
  if ((*newmat)->assembled) { /* an assembled matrix is not assembled again: check its kernel choice now, on every path */
    if (ismpi) PetscCall(MatMPIBAIJKSPARSECheckOptions_Private(*newmat));
    else PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(*newmat));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
