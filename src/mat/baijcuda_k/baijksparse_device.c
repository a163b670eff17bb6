/* The device floor of MATBAIJKSPARSE: the device copy of a MATSEQBAIJKSPARSE matrix (its allocation through the cuda/
   launchers, the upload of the pattern and the values, the download of the values, A->offloadmask) and the one set of
   residency predicates every operation asks "where do the values live, where does this run":

     MatBAIJKSPARSEUseDevice_Private()          a device is present and A is not bound to the CPU (products, COO, views)
     MatSeqBAIJKSPARSEValuesOnDevice_Private()  the value operations of A run on its device copy
     MatSeqBAIJKSPARSEDiagonalOnDevice_Private() the same, and every diagonal entry is stored (square, no missing block)
     MatSeqBAIJKSPARSEDeviceCurrent_Private()   the device copy holds the current values for the current pattern
     MatMPIBAIJKSPARSEValuesOnDevice_Private(), MatMPIBAIJKSPARSEDiagonalOnDevice_Private()  the same for both parts of
                                                an MPI matrix, agreed on every process

   Offload state (A->offloadmask): the value operations (baijksparse_values.c) run on the device when the matrix already
   has a device copy (and is not bound to the CPU), and leave the device copy newer (PETSC_OFFLOAD_GPU), as aijcusparse
   does. Every other method is BAIJ's, reached through a generated forwarder that calls the HostAccess functions here
   first: they refresh the host copy when the device copy is newer (one device-to-host copy of the values, logged as
   GpuToCpu) and, unless the method only reads, leave the host newer, so that the next device use uploads the values
   again. Nothing here calls a file above it: the kernel choice (baijksparse_tuning.c), the feature files and the types
   build on this floor. */
#include "baijksparse_device.h"
#include <petscdevice_cuda.h>

/* Where A's newest values are, said by what just happened to them: the only writes of A->offloadmask. Written on the
   device (the host copy is now older), written on the host, the same on both, none yet. */
void MatBAIJKSPARSEMarkDeviceNewer_Private(Mat A)
{
  A->offloadmask = PETSC_OFFLOAD_GPU;
}

void MatBAIJKSPARSEMarkHostNewer_Private(Mat A)
{
  A->offloadmask = PETSC_OFFLOAD_CPU;
}

void MatBAIJKSPARSEMarkBothCurrent_Private(Mat A)
{
  A->offloadmask = PETSC_OFFLOAD_BOTH;
}

void MatBAIJKSPARSEMarkNoValues_Private(Mat A)
{
  A->offloadmask = PETSC_OFFLOAD_UNALLOCATED;
}

PetscErrorCode MatMPIBAIJKSPARSEGetSeqBAIJ_Private(Mat A, Mat *Ad, Mat *Ao, const PetscInt *garray[])
{
  PetscBool      isk;
  char          *name = ((PetscObject)A)->type_name;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  /* MatMPIBAIJGetSeqBAIJ() checks for the exact type name MATMPIBAIJ; the data of the subclass is the same. Every
     forwarded method of the mpi type comes here (MatSetValues() included): the name is lent for the call, not
     reallocated (PetscObjectChangeTypeName() cost two allocations each way) */
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &isk));
  if (isk) ((PetscObject)A)->type_name = (char *)MATMPIBAIJ;
  ierr                        = MatMPIBAIJGetSeqBAIJ(A, Ad, Ao, garray);
  ((PetscObject)A)->type_name = name;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- device copy */
PetscErrorCode MatBAIJKSPARSEDeviceRealloc_Private(void **ptr, size_t *cap, size_t n, size_t size)
{
  PetscFunctionBegin;
  if (n > *cap || !*ptr) {
    if (*ptr) PetscCall(MatBAIJKSPARSEDeviceFree_Private(*ptr));
    *ptr = NULL;
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private(ptr, PetscMax(n, 1) * size));
    *cap = PetscMax(n, 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqBAIJKSPARSEDeviceDestroy_Private(MatBAIJKSPARSEDevice **pd)
{
  MatBAIJKSPARSEDevice *d = *pd;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->rowptr));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->colidx));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->val));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->diagpos));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->segptr));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->segrow));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->splitrow));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->splitslot));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->work));
  PetscCall(PetscFree(*pd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Room on the device for the BSR arrays of mbs block rows, nz blocks of bs x bs: rowptr grows alone, colidx and val
   share cap_nz and are made again together (a new bs changes the size of val) */
PetscErrorCode MatBAIJKSPARSEDeviceReserve_Private(MatBAIJKSPARSEDevice *d, PetscInt mbs, PetscInt nz, PetscInt bs)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEDeviceRealloc_Private((void **)&d->rowptr, &d->cap_rows, (size_t)mbs + 1, sizeof(int)));
  if ((size_t)PetscMax(nz, 1) > d->cap_nz || !d->colidx || !d->val || d->cap_bs != (int)bs) {
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->colidx));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->val));
    d->colidx = NULL;
    d->val    = NULL;
    d->cap_nz = (size_t)PetscMax(nz, 1);
    d->cap_bs = (int)bs;
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->colidx, d->cap_nz * sizeof(int)));
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->val, d->cap_nz * bs * bs * sizeof(PetscScalar)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Room for at least one int, so that a kept array exists even for n = 0 */
PetscErrorCode MatBAIJKSPARSEUploadInts_Private(int **d, const int *h, PetscCount n, cudaStream_t stream, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)d, (size_t)PetscMax(n, 1) * sizeof(int)));
  if (n) PetscCall(MatBAIJKSPARSEUpload_Private(*d, h, (size_t)n * sizeof(int), stream));
  if (bytes) *bytes += (PetscLogDouble)n * sizeof(int);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Uploads n PetscInt as int: the same width (pbgimpl.h refuses 64-bit indices), a plain copy; the caller synchronizes
   before the host array changes */
static PetscErrorCode UploadInt(int *dst, const PetscInt *src, PetscInt n, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEUpload_Private(dst, src, n * sizeof(int), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatSeqBAIJKSPARSECopyToGPU - Brings the device copy of a `MATSEQBAIJKSPARSE` matrix up to date: the pattern (BSR
  indices and the position of each diagonal block) when the nonzero state changed, the values when the host is newer
  (`A->offloadmask` is `PETSC_OFFLOAD_CPU` or `PETSC_OFFLOAD_UNALLOCATED`, or the object state moved since the last
  copy). Afterwards `A->offloadmask` is `PETSC_OFFLOAD_BOTH`, or still `PETSC_OFFLOAD_GPU`. The kernel choice of the
  products is not made here (MatSeqBAIJKSPARSEPrepareMult_Private(), baijksparse_tuning.c): a consumer of the arrays (the PC) needs none.
  With pattern_only, the values are not sent and A->offloadmask is left as it is: the caller then writes every value on
  the device (MatSeqBAIJKSPARSECopyPatternToGPU_Private()).
*/
static PetscErrorCode MatSeqBAIJKSPARSECopyToGPU_Internal(Mat A, PetscBool pattern_only)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  const PetscInt       *ia, *ja;
  PetscInt              mbs, nz, bs = A->rmap->bs, nbs;
  PetscBool             done, pattern, values;
  cudaStream_t          stream;
  PetscInt64            bytes = 0;

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATSEQBAIJKSPARSE);
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "%s: the matrix must be assembled before it goes to the GPU", MATSEQBAIJKSPARSE);
  d       = k->dev;
  pattern = (PetscBool)(!d || !d->pattern_valid || d->nzstate != A->nonzerostate || d->bs != bs);
  /* the device copy is newer after a device value operation (the object state moved after it): nothing to send */
  values = (PetscBool)(pattern || (A->offloadmask != PETSC_OFFLOAD_GPU && (A->offloadmask != PETSC_OFFLOAD_BOTH || d->state != ((PetscObject)A)->state)));
  PetscCheck(!pattern || A->offloadmask != PETSC_OFFLOAD_GPU, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the pattern changed while the device copy was newer", MATSEQBAIJKSPARSE);
  if (pattern_only) values = pattern;
  if (!values) PetscFunctionReturn(PETSC_SUCCESS);

  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* PETSc picks this rank's GPU before we allocate */
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKCopyToGPU, A, 0, 0, 0));
  if (!d) {
    PetscCall(PetscNew(&k->dev));
    d = k->dev;
  }
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  nz  = mbs ? ia[mbs] : 0;
  nbs = A->cmap->n / bs;
  PetscCheck(nz <= PETSC_INT32_MAX && mbs * bs <= PETSC_INT32_MAX && nbs * bs <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt_FMT " blocks, %" PetscInt_FMT " rows or %" PetscInt_FMT " columns do not fit the 32-bit device indices", MATSEQBAIJKSPARSE, nz, mbs * bs, nbs * bs);
  if (pattern) { /* the BSR indices and the diagonal blocks */
    int *diag;

    d->bs  = (int)bs;
    d->mbs = (int)mbs;
    d->nbs = (int)nbs;
    d->nz  = (int)nz;
    PetscCall(MatBAIJKSPARSEDeviceReserve_Private(d, mbs, nz, bs));
    PetscCall(UploadInt(d->rowptr, ia, mbs + 1, stream));
    PetscCall(UploadInt(d->colidx, ja, nz, stream));
    /* the diagonal block of block row r is column r (BAIJ's columns are sorted): for shifts, diagonals and the block
       diagonal on the device */
    PetscCall(MatBAIJKSPARSEDeviceRealloc_Private((void **)&d->diagpos, &d->cap_diag, PetscMax(mbs, 1), sizeof(int)));
    PetscCall(PetscMalloc1(PetscMax(mbs, 1), &diag));
    d->ndiagmissing = 0;
    for (PetscInt r = 0; r < mbs; r++) {
      PetscInt loc = -1;

      if (r < nbs) {
        PetscCall(PetscFindInt(r, ia[r + 1] - ia[r], ja + ia[r], &loc));
        if (loc < 0) d->ndiagmissing++;
      }
      diag[r] = loc < 0 ? -1 : (int)(ia[r] + loc);
    }
    if (mbs) PetscCall(MatBAIJKSPARSEUpload_Private(d->diagpos, diag, (size_t)mbs * sizeof(int), stream));
    PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream)); /* one wait for the three index arrays, before diag goes */
    PetscCall(PetscFree(diag));
    bytes += (PetscInt64)(2 * mbs + 1 + nz) * (PetscInt64)sizeof(int);
    d->nzstate       = A->nonzerostate;
    d->pattern_valid = PETSC_TRUE;
    d->choice_valid  = PETSC_FALSE;
  }
  if (values && nz && !pattern_only) {
    PetscScalar *a                                  = NULL;
    PetscErrorCode (*getarray)(Mat, PetscScalar **) = NULL, (*restorearray)(Mat, PetscScalar **) = NULL;

    /* BAIJ's own accessors: MatSeqBAIJRestoreArray() would advance the object state (and so make every PC think the
       matrix changed) after a mere read */
    getarray     = k->getarray;
    restorearray = k->restorearray;
    PetscCheck(getarray && restorearray, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without MatSeqBAIJGetArray_C", MATSEQBAIJKSPARSE);
    PetscCall((*getarray)(A, &a));
    PetscCall(MatBAIJKSPARSEUpload_Private(d->val, a, (size_t)nz * bs * bs * sizeof(PetscScalar), stream));
    PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
    PetscCall((*restorearray)(A, &a));
    bytes += (PetscInt64)nz * bs * bs * (PetscInt64)sizeof(PetscScalar);
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  if (!pattern_only) d->ncopies++;
  if (!pattern_only && A->offloadmask != PETSC_OFFLOAD_GPU) {
    d->state = ((PetscObject)A)->state;
    MatBAIJKSPARSEMarkBothCurrent_Private(A);
  }
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
  PetscCall(PetscLogEventEnd(PBG_BAIJKCopyToGPU, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqBAIJKSPARSECopyToGPU(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToGPU_Internal(A, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqBAIJKSPARSECopyPatternToGPU_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToGPU_Internal(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host copy of the values from the device copy, when the device copy is newer; afterwards both are current */
PetscErrorCode MatSeqBAIJKSPARSECopyToHost_Private(Mat A)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d = k->dev;
  PetscScalar          *a;
  size_t                len;
  cudaStream_t          stream;

  PetscFunctionBegin;
  if (A->offloadmask != PETSC_OFFLOAD_GPU) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(d && d->pattern_valid && d->nzstate == A->nonzerostate, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the device copy is newer but does not match the pattern", MATSEQBAIJKSPARSE);
  len = (size_t)d->nz * d->bs * d->bs;
  if (len) {
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogEventBegin(PBG_BAIJKCopyFromGPU, A, 0, 0, 0));
    PetscCall((*k->getarray)(A, &a));
    PetscCall(MatBAIJKSPARSEDownloadAsync_Private(a, d->val, len * sizeof(PetscScalar), stream));
    PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
    PetscCall((*k->restorearray)(A, &a));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)(len * sizeof(PetscScalar))));
    PetscCall(PetscLogEventEnd(PBG_BAIJKCopyFromGPU, A, 0, 0, 0));
  }
  d->state = ((PetscObject)A)->state;
  MatBAIJKSPARSEMarkBothCurrent_Private(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqBAIJKSPARSEHostAccess_Private(Mat A, PetscBool write)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToHost_Private(A));
  if (write && A->offloadmask != PETSC_OFFLOAD_UNALLOCATED) MatBAIJKSPARSEMarkHostNewer_Private(A);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Methods of BAIJ that neither read nor change values (sizes, pattern, options): forwarding them copies nothing, so that
   a consumer asking for the pattern or MatGetInfo() of a matrix whose values live on the device (the PC's re-setup after
   a device MatScale()) does not bring all of them to the host; MatAssemblyBegin() sends only the stash, not the
   matrix's values. Methods that only read values keep the device copy
   current; any other leaves the host newer, which costs at most an upload that was not needed */
PBGValuesAccess MatBAIJKSPARSEMethodAccess_Private(const char name[])
{
  static const char *const untouched[] = {"assemblybegin",           "getinfo",   "setoption",       "getrowij",      "restorerowij",   "getcolumnij", "restorecolumnij", "getdiagonalblock", "getownershiprange", "getsize", "getlocalsize",
                                          "isstructurallysymmetric", "getghosts", "getnonzerostate", "setblocksizes", "missingdiagonal"};
  static const char *const readonly[]  = {"getrow", "restorerow", "mult", "multadd", "multtranspose", "multtransposeadd", "solve", "solveadd", "solvetranspose", "solvetransposeadd", "equal", "getdiagonal", "norm", "getvalues", "createsubmatrices", "createsubmatrix", "view", "duplicate", "getrowmaxabs", "getrowmax", "getrowmin", "getrowminabs", "getrowsum", "invertblockdiagonal", "invertvariableblockdiagonal", "getblockdiagonal", "getvblockdiagonal", "getlocalsubmatrix", "multdiagonalblock", "issymmetric", "ishermitian", "getrowuppertriangular", "restorerowuppertriangular", "getcolumnnorms", "getcolumnreductions", "viewnative", "fdcoloringcreate", "fdcoloringsetup", "productsetfromoptions", "productsymbolic", "productnumeric", "setfromoptions", "setup", "getlocalmatcondensed", "findzerodiagonals", "findoffblockdiagonalentries", "findnonzerorows"};

  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(untouched); i++)
    if (!strcmp(name, untouched[i])) return PBG_VALUES_UNTOUCHED;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(readonly); i++)
    if (!strcmp(name, readonly[i])) return PBG_VALUES_READ;
  return PBG_VALUES_WRITTEN;
}

/* Before a host method of MPIBAIJ: the host copies of both parts up to date; with write they are host-newer after it */
PetscErrorCode MatMPIBAIJKSPARSEHostAccess_Private(Mat A, PetscBool write)
{
  Mat       parts[2];
  PetscBool isk;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &parts[0], &parts[1], NULL));
  for (PetscInt i = 0; i < 2; i++) {
    if (!parts[i]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)parts[i], MATSEQBAIJKSPARSE, &isk));
    if (isk) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(parts[i], write));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- residency */
PetscErrorCode MatBAIJKSPARSEUseDevice_Private(Mat A, PetscBool *use)
{
  PetscBool avail;

  PetscFunctionBegin;
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  *use = (PetscBool)(avail && !A->boundtocpu);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqBAIJKSPARSEValuesOnDevice_Private(Mat A, PetscBool *on)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  *on = PETSC_FALSE;
  /* a pattern changed since the device copy (new nonzeros, zeroed rows) is the host's to run: the next device use
     uploads it all anyway, and a device copy made newer now would not match it */
  if (!k || !k->dev || !k->dev->pattern_valid || k->dev->nzstate != A->nonzerostate || k->dev->bs != A->rmap->bs || !A->assembled || A->boundtocpu || A->offloadmask == PETSC_OFFLOAD_UNALLOCATED) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool MatSeqBAIJKSPARSEDeviceCurrent_Private(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  return (PetscBool)(k && k->dev && (A->offloadmask == PETSC_OFFLOAD_GPU || A->offloadmask == PETSC_OFFLOAD_BOTH) && k->dev->pattern_valid && k->dev->nzstate == A->nonzerostate && k->dev->bs == A->rmap->bs);
}

PetscErrorCode MatSeqBAIJKSPARSEDiagonalOnDevice_Private(Mat A, PetscBool *ok)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(A, ok));
  /* the pattern of the device copy is current (ValuesOnDevice), and so is its count of missing diagonal blocks */
  if (*ok) *ok = (PetscBool)(A->rmap->n == A->cmap->n && ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev->ndiagmissing == 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether both parts of A hold a device copy the value operations may use (local: a further condition of the caller), on
   every process: MPIBAIJ's host methods are collective, so every process takes the same path. An off-diagonal part
   without columns has nothing to change. */
PetscErrorCode MatMPIBAIJKSPARSEValuesOnDevice_Private(Mat A, PetscBool local, PetscBool *all)
{
  Mat       parts[2];
  PetscBool on = local, isk;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &parts[0], &parts[1], NULL));
  for (PetscInt i = 0; i < 2 && on; i++) {
    if (!parts[i]) on = (PetscBool)(i == 1);
    else if (i == 0 || parts[i]->cmap->n) {
      PetscCall(PetscObjectTypeCompare((PetscObject)parts[i], MATSEQBAIJKSPARSE, &isk));
      if (isk) PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(parts[i], &on));
      else on = PETSC_FALSE;
    }
  }
  PetscCallMPI(MPIU_Allreduce(&on, all, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the diagonal entries of A are those of the diagonal part, each stored, on every process */
PetscErrorCode MatMPIBAIJKSPARSEDiagonalOnDevice_Private(Mat A, PetscBool *all)
{
  Mat       Ad;
  PetscBool cong, ok = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatHasCongruentLayouts(A, &cong));
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, NULL, NULL));
  if (cong && Ad) {
    PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQBAIJKSPARSE, &ok));
    if (ok) PetscCall(MatSeqBAIJKSPARSEDiagonalOnDevice_Private(Ad, &ok));
  }
  PetscCallMPI(MPIU_Allreduce(&ok, all, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- device view */
PetscErrorCode MatGetDeviceMatView_SeqBAIJKSPARSE(Mat A, PetscBlockGPUDeviceMatView *v)
{
  MatBAIJKSPARSEDevice *d;
  PetscBool             use;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  v->mtype = PETSC_MEMTYPE_HOST;
  v->itype = PETSC_INT32;
  v->bs    = A->rmap->bs;
  v->mbs   = A->rmap->n / PetscMax(A->rmap->bs, 1);
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use));
  if (!use) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(A));
  d         = ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev;
  v->mtype  = PETSC_MEMTYPE_CUDA;
  v->bs     = d->bs;
  v->mbs    = d->mbs;
  v->nz     = d->nz;
  v->rowptr = d->rowptr;
  v->colidx = d->colidx;
  v->values = d->val;
  PetscFunctionReturn(PETSC_SUCCESS);
}
