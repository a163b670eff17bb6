/* MATSEQBAIJKSPARSE: MATSEQBAIJ subclassed in place (the way PETSc's MATSEQBAIJMKL is).

   Host logic of the GPU path: the lazy copy of the BSR arrays to the device (tracked with A->offloadmask and the
   object state), the segments of balanced rows, and MatMult(), MatMultAdd(), MatMultTranspose(),
   MatMultTransposeAdd() on device vectors (the kernel choice is in baijksparse_tuning.c). The kernels are in cuda/
   (baijksparsecuda.h). Without a device, when bound to the CPU, or with host vectors, the products are BAIJ's own host
   kernels.

   Offload state (A->offloadmask): the value operations of baijksparse_values.c (scale, shift, diagonal set/get/scale,
   axpy, copy, duplicate, zero entries/rows/rows and columns) run on the device when the matrix already has a device
   copy (and is not bound to the CPU), and leave the device copy newer (PETSC_OFFLOAD_GPU), as aijcusparse does. Every other method is BAIJ's, reached through a forwarder generated
   from PETSc's list of methods (conf/gen_matops.py): it refreshes the host copy first when the device copy is newer
   (one device-to-host copy of the values, logged as GpuToCpu) and, unless the method only reads, leaves the host
   newer, so that the next device use uploads the values again. */
#include <petscblockgpu/private/baijksparsecuda.h> /*I "petscblockgpu.h" I*/
#include <petscdevice_cuda.h>

PetscErrorCode MatSeqBAIJKSPARSESetOptions_Private(Mat A, const MatBAIJKSPARSEOptions *o)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATSEQBAIJKSPARSE);
  k->opts = *o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_SeqBAIJKSPARSE(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  if (k->host.setfromoptions) PetscCall((*k->host.setfromoptions)(A, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "MATSEQBAIJKSPARSE options");
  PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, PetscOptionsObject, &k->opts));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- device copy */
static PetscErrorCode DeviceRealloc(void **ptr, size_t *cap, size_t n, size_t size)
{
  PetscFunctionBegin;
  if (n > *cap || !*ptr) {
    if (*ptr) PetscCallCUDA(cudaFree(*ptr));
    *ptr = NULL;
    PetscCallCUDA(cudaMalloc(ptr, PetscMax(n, 1) * size));
    *cap = PetscMax(n, 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSeqBAIJKSPARSEDeviceDestroy(MatBAIJKSPARSEDevice **pd)
{
  MatBAIJKSPARSEDevice *d = *pd;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(d->rowptr));
  PetscCallCUDA(cudaFree(d->colidx));
  PetscCallCUDA(cudaFree(d->val));
  PetscCallCUDA(cudaFree(d->diagpos));
  PetscCallCUDA(cudaFree(d->segptr));
  PetscCallCUDA(cudaFree(d->segrow));
  PetscCallCUDA(cudaFree(d->splitrow));
  PetscCallCUDA(cudaFree(d->splitslot));
  PetscCallCUDA(cudaFree(d->work));
  PetscCall(PetscFree(*pd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Uploads n PetscInt as int: the same width (pbgimpl.h refuses 64-bit indices), a plain copy; the caller synchronizes
   before the host array changes */
static PetscErrorCode UploadInt(int *dst, const PetscInt *src, PetscInt n, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaMemcpyAsync(dst, src, n * sizeof(int), cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Segments of balanced rows (see MatBAIJKSPARSEDevice), built on the host and uploaded */
static PetscErrorCode BuildSegments(MatBAIJKSPARSEDevice *d, PetscInt mbs, const PetscInt *ia, PetscInt lambda, cudaStream_t stream, PetscInt64 *bytes)
{
  PetscInt nseg = 0, nsplit = 0, nslots = 0, s = 0, t = 0, q = 0;
  int     *segptr, *segrow, *splitrow, *splitslot;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < mbs; r++) {
    PetscInt len = ia[r + 1] - ia[r], parts = len > lambda ? (len + lambda - 1) / lambda : 1;

    nseg += parts;
    if (parts > 1) {
      nsplit++;
      nslots += parts;
    }
  }
  PetscCheck(nseg <= PETSC_INT32_MAX && (PetscInt64)nslots * d->bs <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: too many segments", MATSEQBAIJKSPARSE);
  PetscCall(PetscMalloc4(nseg + 1, &segptr, nseg, &segrow, nsplit, &splitrow, nsplit + 1, &splitslot));
  for (PetscInt r = 0; r < mbs; r++) {
    PetscInt len = ia[r + 1] - ia[r], parts = len > lambda ? (len + lambda - 1) / lambda : 1;

    if (parts == 1) {
      segptr[s] = (int)ia[r];
      segrow[s] = (int)r;
      s++;
    } else {
      splitrow[t]  = (int)r;
      splitslot[t] = (int)q;
      t++;
      for (PetscInt p = 0; p < parts; p++) { /* equal pieces of at most lambda blocks */
        segptr[s] = (int)(ia[r] + (PetscInt)(((PetscInt64)len * p) / parts));
        segrow[s] = (int)(-(q + 1));
        s++;
        q++;
      }
    }
  }
  segptr[nseg]      = (int)(mbs ? ia[mbs] : 0);
  splitslot[nsplit] = (int)nslots;
  d->nseg           = (int)nseg;
  d->nsplit         = (int)nsplit;
  d->nslots         = (int)nslots;
  PetscCall(DeviceRealloc((void **)&d->segptr, &d->cap_seg, nseg + 1, sizeof(int)));
  { /* segrow shares the capacity of segptr (one fewer) */
    size_t cap = d->cap_seg;

    if (d->segrow) PetscCallCUDA(cudaFree(d->segrow));
    PetscCallCUDA(cudaMalloc((void **)&d->segrow, cap * sizeof(int)));
  }
  PetscCall(DeviceRealloc((void **)&d->splitrow, &d->cap_split, nsplit + 1, sizeof(int)));
  {
    size_t cap = d->cap_split;

    if (d->splitslot) PetscCallCUDA(cudaFree(d->splitslot));
    PetscCallCUDA(cudaMalloc((void **)&d->splitslot, cap * sizeof(int)));
  }
  PetscCall(DeviceRealloc((void **)&d->work, &d->cap_work, (size_t)nslots * d->bs, sizeof(PetscScalar)));
  PetscCallCUDA(cudaMemcpyAsync(d->segptr, segptr, (nseg + 1) * sizeof(int), cudaMemcpyHostToDevice, stream));
  if (nseg) PetscCallCUDA(cudaMemcpyAsync(d->segrow, segrow, nseg * sizeof(int), cudaMemcpyHostToDevice, stream));
  if (nsplit) PetscCallCUDA(cudaMemcpyAsync(d->splitrow, splitrow, nsplit * sizeof(int), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMemcpyAsync(d->splitslot, splitslot, (nsplit + 1) * sizeof(int), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* before the host arrays go */
  *bytes += (PetscInt64)(2 * nseg + 2 * nsplit + 2) * (PetscInt64)sizeof(int);
  PetscCall(PetscFree4(segptr, segrow, splitrow, splitslot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool ConfigChanged(const MatBAIJKSPARSEDevice *d, const MatBAIJKSPARSEOptions *o)
{
  return (PetscBool)(d->cfg_balance != (PetscInt)o->balance || d->cfg_lambda != o->lambda || d->cfg_kernel != (PetscInt)o->kernel || d->cfg_ept != o->ept || d->cfg_warps != o->warps || d->cfg_teams != o->teams || d->cfg_lanes != o->lanes);
}

/*
  MatSeqBAIJKSPARSECopyToGPU - Brings the device copy of a `MATSEQBAIJKSPARSE` matrix up to date: the pattern (BSR
  indices and the position of each diagonal block) when the nonzero state changed, the values when the host is newer
  (`A->offloadmask` is `PETSC_OFFLOAD_CPU` or `PETSC_OFFLOAD_UNALLOCATED`, or the object state moved since the last
  copy). Afterwards `A->offloadmask` is `PETSC_OFFLOAD_BOTH`, or still `PETSC_OFFLOAD_GPU`. The kernel choice of the
  products is not made here (MatSeqBAIJKSPARSEPrepareMult()): a consumer of the arrays (the PC) needs none.
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
  if (!k->opts.read) PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, NULL, &k->opts));
  d       = k->dev;
  pattern = (PetscBool)(!d || !d->pattern_valid || d->nzstate != A->nonzerostate || d->bs != bs);
  /* the device copy is newer after a device value operation (the object state moved after it): nothing to send */
  values  = (PetscBool)(pattern || (A->offloadmask != PETSC_OFFLOAD_GPU && (A->offloadmask != PETSC_OFFLOAD_BOTH || d->state != ((PetscObject)A)->state)));
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
    PetscCall(DeviceRealloc((void **)&d->rowptr, &d->cap_rows, mbs + 1, sizeof(int)));
    if ((size_t)PetscMax(nz, 1) > d->cap_nz || !d->colidx || !d->val || d->cap_bs != (int)bs) {
      PetscCallCUDA(cudaFree(d->colidx));
      PetscCallCUDA(cudaFree(d->val));
      d->colidx = NULL;
      d->val    = NULL;
      d->cap_nz = (size_t)PetscMax(nz, 1);
      d->cap_bs = (int)bs;
      PetscCallCUDA(cudaMalloc((void **)&d->colidx, d->cap_nz * sizeof(int)));
      PetscCallCUDA(cudaMalloc((void **)&d->val, d->cap_nz * bs * bs * sizeof(PetscScalar)));
    }
    PetscCall(UploadInt(d->rowptr, ia, mbs + 1, stream));
    PetscCall(UploadInt(d->colidx, ja, nz, stream));
    /* the diagonal block of block row r is column r (BAIJ's columns are sorted): for shifts, diagonals and the block
       diagonal on the device */
    PetscCall(DeviceRealloc((void **)&d->diagpos, &d->cap_diag, PetscMax(mbs, 1), sizeof(int)));
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
    if (mbs) PetscCallCUDA(cudaMemcpyAsync(d->diagpos, diag, (size_t)mbs * sizeof(int), cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream)); /* one wait for the three index arrays, before diag goes */
    PetscCall(PetscFree(diag));
    bytes += (PetscInt64)(2 * mbs + 1 + nz) * (PetscInt64)sizeof(int);
    d->nzstate       = A->nonzerostate;
    d->pattern_valid = PETSC_TRUE;
    d->choice_valid  = PETSC_FALSE;
  }
  if (values && nz && !pattern_only) {
    PetscScalar *a = NULL;
    PetscErrorCode (*getarray)(Mat, PetscScalar **) = NULL, (*restorearray)(Mat, PetscScalar **) = NULL;

    /* BAIJ's own accessors: MatSeqBAIJRestoreArray() would advance the object state (and so make every PC think the
       matrix changed) after a mere read */
    getarray     = k->getarray;
    restorearray = k->restorearray;
    PetscCheck(getarray && restorearray, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without MatSeqBAIJGetArray_C", MATSEQBAIJKSPARSE);
    PetscCall((*getarray)(A, &a));
    PetscCallCUDA(cudaMemcpyAsync(d->val, a, (size_t)nz * bs * bs * sizeof(PetscScalar), cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall((*restorearray)(A, &a));
    bytes += (PetscInt64)nz * bs * bs * (PetscInt64)sizeof(PetscScalar);
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  if (!pattern_only) d->ncopies++;
  if (!pattern_only && A->offloadmask != PETSC_OFFLOAD_GPU) {
    d->state       = ((PetscObject)A)->state;
    A->offloadmask = PETSC_OFFLOAD_BOTH;
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
static PetscErrorCode MatSeqBAIJKSPARSECopyToHost(Mat A)
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
    PetscCallCUDA(cudaMemcpyAsync(a, d->val, len * sizeof(PetscScalar), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall((*k->restorearray)(A, &a));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)(len * sizeof(PetscScalar))));
    PetscCall(PetscLogEventEnd(PBG_BAIJKCopyFromGPU, A, 0, 0, 0));
  }
  d->state       = ((PetscObject)A)->state;
  A->offloadmask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqBAIJKSPARSEHostAccess_Private(Mat A, PetscBool write)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToHost(A));
  if (write && A->offloadmask != PETSC_OFFLOAD_UNALLOCATED) A->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Methods of BAIJ that neither read nor change values (sizes, pattern, options): forwarding them copies nothing, so that
   a consumer asking for the pattern or MatGetInfo() of a matrix whose values live on the device (the PC's re-setup after
   a device MatScale()) does not bring all of them to the host; MatAssemblyBegin() sends only the stash, not the
   matrix's values. Methods that only read values keep the device copy
   current; any other leaves the host newer, which costs at most an upload that was not needed */
PBGValuesAccess MatBAIJKSPARSEMethodAccess_Private(const char name[])
{
  static const char *const untouched[] = {"assemblybegin", "getinfo", "setoption", "getrowij", "restorerowij", "getcolumnij", "restorecolumnij", "getdiagonalblock", "getownershiprange", "getsize", "getlocalsize", "isstructurallysymmetric", "getghosts", "getnonzerostate", "setblocksizes", "missingdiagonal"};
  static const char *const readonly[]  = {"getrow", "restorerow", "mult", "multadd", "multtranspose", "multtransposeadd", "solve", "solveadd", "solvetranspose", "solvetransposeadd", "equal", "getdiagonal", "norm", "getvalues", "createsubmatrices", "createsubmatrix", "view", "duplicate", "getrowmaxabs", "getrowmax", "getrowmin", "getrowminabs", "getrowsum", "invertblockdiagonal", "invertvariableblockdiagonal", "getblockdiagonal", "getvblockdiagonal", "getlocalsubmatrix", "multdiagonalblock", "issymmetric", "ishermitian", "getrowuppertriangular", "restorerowuppertriangular", "getcolumnnorms", "getcolumnreductions", "viewnative", "fdcoloringcreate", "fdcoloringsetup", "productsetfromoptions", "productsymbolic", "productnumeric", "setfromoptions", "setup", "getlocalmatcondensed", "findzerodiagonals", "findoffblockdiagonalentries", "findnonzerorows"};

  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(untouched); i++)
    if (!strcmp(name, untouched[i])) return PBG_VALUES_UNTOUCHED;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(readonly); i++)
    if (!strcmp(name, readonly[i])) return PBG_VALUES_READ;
  return PBG_VALUES_WRITTEN;
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

/* ---------------------------------------------------------------------------------------------- products */
/* The device copy, and the kernel, parameters and segments of the products for its pattern and the options: made again
   after a change of the pattern or of the options */
static PetscErrorCode MatSeqBAIJKSPARSEPrepareMult(Mat A)
{
  Mat_SeqBAIJKSPARSE  *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  MatBAIJKSPARSEChoice  c;
  const PetscInt       *ia, *ja;
  PetscInt              mbs;
  PetscBool             done;
  cudaStream_t          stream;
  PetscInt64            bytes = 0;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(A));
  d = k->dev;
  if (d->choice_valid && !ConfigChanged(d, &k->opts)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  PetscCall(MatSeqBAIJKSPARSEChoose_Private(A, mbs, ia, &c));
  if (!d->choice_valid || c.balanced != d->balanced || (c.balanced && c.lambda != d->lambda)) {
    if (c.balanced) PetscCall(BuildSegments(d, mbs, ia, c.lambda, stream, &bytes));
    else d->nseg = d->nsplit = d->nslots = 0;
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  d->params       = c.p;
  d->maxlen       = (int)c.maxlen;
  d->lambda       = (int)c.lambda;
  d->balanced     = c.balanced;
  d->cfg_balance  = (PetscInt)k->opts.balance;
  d->cfg_lambda   = k->opts.lambda;
  d->cfg_kernel   = (PetscInt)k->opts.kernel;
  d->cfg_ept      = k->opts.ept;
  d->cfg_warps    = k->opts.warps;
  d->cfg_teams    = k->opts.teams;
  d->cfg_lanes    = k->opts.lanes;
  d->choice_valid = PETSC_TRUE;
  if (bytes) PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSeqBAIJKSPARSEUseDevice(Mat A, PetscBool *use)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, use));
  if (!*use) ((Mat_SeqBAIJKSPARSE *)A->spptr)->kernel = MAT_BAIJKSPARSE_KERNEL_HOST;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x (zz NULL), y = A x + z, or the transposed products; device vectors, else BAIJ's host kernels */
static PetscErrorCode MatProduct_SeqBAIJKSPARSE(Mat A, Vec xx, Vec zz, Vec yy, PetscBool trans)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  const PetscScalar    *x, *z = NULL;
  PetscScalar          *y;
  PetscMemType          mx, mz = PETSC_MEMTYPE_DEVICE, my;
  PetscBool             use;
  PetscInt              ny = trans ? A->cmap->n : A->rmap->n;
  cudaStream_t          stream;
  PetscLogDouble        flops;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEUseDevice(A, &use));
  if (use && ny > 0) {
    PetscCall(VecGetArrayReadAndMemType(xx, &x, &mx));
    if (zz && zz != yy) PetscCall(VecGetArrayReadAndMemType(zz, &z, &mz));
    if (zz == yy) PetscCall(VecGetArrayAndMemType(yy, &y, &my));
    else PetscCall(VecGetArrayWriteAndMemType(yy, &y, &my));
    if (zz == yy) z = y;
    use = (PetscBool)(PetscMemTypeDevice(mx) && PetscMemTypeDevice(mz) && PetscMemTypeDevice(my));
    if (!use) { /* host vectors: no copies, host kernels */
      PetscCall(VecRestoreArrayReadAndMemType(xx, &x));
      if (zz && zz != yy) PetscCall(VecRestoreArrayReadAndMemType(zz, &z));
      if (zz == yy) PetscCall(VecRestoreArrayAndMemType(yy, &y));
      else PetscCall(VecRestoreArrayWriteAndMemType(yy, &y));
      k->kernel = MAT_BAIJKSPARSE_KERNEL_HOST;
    }
  } else if (use) PetscFunctionReturn(PETSC_SUCCESS); /* no entries in y */
  if (!use) {
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    if (trans) {
      if (zz) PetscCall((*k->host.multtransposeadd)(A, xx, zz, yy));
      else PetscCall((*k->host.multtranspose)(A, xx, yy));
    } else if (zz) PetscCall((*k->host.multadd)(A, xx, zz, yy));
    else {
      /* BAIJ's generic MatMult_SeqBAIJ_N (bs >= 8 except 9, 11, 12, 15, and every bs after MatDuplicate()) leaves the
         entries of empty block rows unset when it does not use compressed rows (its BLAS gemv returns at once for
         0 columns) */
      PetscScalar *h;
      PetscInt     n;

      PetscCall(VecGetLocalSize(yy, &n));
      PetscCall(VecGetArrayWrite(yy, &h)); /* the host array that the host kernel writes into */
      PetscCall(PetscArrayzero(h, n));
      PetscCall(VecRestoreArrayWrite(yy, &h));
      PetscCall((*k->host.mult)(A, xx, yy));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscCall(MatSeqBAIJKSPARSEPrepareMult(A));
  d = k->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKMult, A, xx, yy, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (!trans) {
    MatBAIJKSPARSEMultArgs args;

    args.bs     = d->bs;
    args.mbs    = d->mbs;
    args.nwork  = d->balanced ? d->nseg : d->mbs;
    args.rowptr = d->rowptr;
    args.colidx = d->colidx;
    args.segptr = d->balanced ? d->segptr : NULL;
    args.segrow = d->balanced ? d->segrow : NULL;
    args.val    = d->val;
    args.x      = x;
    args.z      = zz ? z : NULL;
    args.y      = y;
    args.work   = d->work;
    PetscCall(MatBAIJKSPARSEMult_CUDA(&d->params, &args, stream));
    if (d->balanced && d->nsplit) PetscCall(MatBAIJKSPARSEReduce_CUDA(d->bs, d->nsplit, d->splitrow, d->splitslot, d->work, zz ? z : NULL, y, stream));
    k->kernel = d->params.kernel;
  } else {
    if (!zz) PetscCallCUDA(cudaMemsetAsync(y, 0, (size_t)ny * sizeof(PetscScalar), stream));
    else if (zz != yy) PetscCallCUDA(cudaMemcpyAsync(y, z, (size_t)ny * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
    PetscCall(MatBAIJKSPARSEMultTransposeAtomic_CUDA(d->bs, d->mbs, d->rowptr, d->colidx, d->val, x, y, stream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  flops = 2.0 * (PetscLogDouble)d->nz * d->bs * d->bs;
  if (!zz) flops = PetscMax(0.0, flops - (PetscLogDouble)(trans ? 0 : d->mbs) * d->bs);
  PetscCall(PetscLogGpuFlops(flops));
  PetscCall(PetscLogEventEnd(PBG_BAIJKMult, A, xx, yy, 0));
  PetscCall(VecRestoreArrayReadAndMemType(xx, &x));
  if (zz && zz != yy) PetscCall(VecRestoreArrayReadAndMemType(zz, &z));
  if (zz == yy) PetscCall(VecRestoreArrayAndMemType(yy, &y));
  else PetscCall(VecRestoreArrayWriteAndMemType(yy, &y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_SeqBAIJKSPARSE(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatProduct_SeqBAIJKSPARSE(A, x, NULL, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqBAIJKSPARSE(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatProduct_SeqBAIJKSPARSE(A, x, z, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_SeqBAIJKSPARSE(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatProduct_SeqBAIJKSPARSE(A, x, NULL, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_SeqBAIJKSPARSE(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatProduct_SeqBAIJKSPARSE(A, x, z, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- host changes */
/* The kernel choice of the assembled pattern, made (and thrown away) on every path, so that an option or tuning table the
   GPU path would refuse (-mat_baijksparse_ept 7, a malformed table line) is refused on a host run too, where the options
   are read, rather than accepted silently until a GPU run */
PetscErrorCode MatSeqBAIJKSPARSECheckOptions_Private(Mat A)
{
  const PetscInt *ia, *ja;
  PetscInt        mbs;
  PetscBool       done;
  MatBAIJKSPARSEChoice c;

  PetscFunctionBegin;
  if (A->hash_active) PetscFunctionReturn(PETSC_SUCCESS); /* (called at the end of an assembly: A->assembled is set after it) */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  PetscCall(MatSeqBAIJKSPARSEChoose_Private(A, mbs, ia, &c));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool MatSeqBAIJKSPARSEDeviceCurrent_Private(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  return (PetscBool)(k && k->dev && (A->offloadmask == PETSC_OFFLOAD_GPU || A->offloadmask == PETSC_OFFLOAD_BOTH) && k->dev->pattern_valid && k->dev->nzstate == A->nonzerostate && k->dev->bs == A->rmap->bs);
}

/* An assembly after changes made on the device only (a device value operation, MatSetValuesCOO(), which PETSc ends with
   an assembly): a host change (MatSetValues() and the like) would have made the host copy the newer one, so BAIJ's
   assembly finds nothing to insert or compress and moves no values; the device copy stays as it is. Otherwise the host
   copy is brought up to date first and is the newer one afterwards. */
static PetscErrorCode MatAssemblyEnd_SeqBAIJKSPARSE(Mat A, MatAssemblyType mode)
{
  Mat_SeqBAIJKSPARSE *k    = (Mat_SeqBAIJKSPARSE *)A->spptr;
  const PetscBool     keep = MatSeqBAIJKSPARSEDeviceCurrent_Private(A);

  PetscFunctionBegin;
  if (!keep) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
  PetscCall((*k->host.assemblyend)(A, mode));
  if (!keep) A->offloadmask = PETSC_OFFLOAD_CPU;
  else PetscCheck(k->dev->nzstate == A->nonzerostate, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the pattern changed in an assembly while the device copy was current", MATSEQBAIJKSPARSE);
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBindToCPU_SeqBAIJKSPARSE(Mat A, PetscBool flg)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  /* bound to the CPU, the host copy is the one in use: bring it up to date */
  if (flg) {
    PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    k->kernel = MAT_BAIJKSPARSE_KERNEL_HOST;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSeqBAIJGetArray() hands out the host values: bring them up to date, and the caller may change them */
static PetscErrorCode MatSeqBAIJGetArray_SeqBAIJKSPARSE(Mat A, PetscScalar **array)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
  PetscCall((*k->getarray)(A, array));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSeqBAIJRestoreArray_SeqBAIJKSPARSE(Mat A, PetscScalar **array)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*k->restorearray)(A, array));
  PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- the subclass */
/* BAIJ conversions that keep working on the subclass (they only read A->data) and are re-exported under the
   subclass name, so that MatConvert(A, MATAIJ, ...) does not fall back to MatConvert_Basic(); through
   MatConvert_BAIJKSPARSE_HostForward(), which brings the host values up to date first */
static const char *const SeqForwardedTargets[] = {MATSEQAIJ, MATSEQSBAIJ};

static PetscErrorCode MatSeqBAIJSetPreallocation_SeqBAIJKSPARSE(Mat, PetscInt, PetscInt, const PetscInt[]);

/* set: compose ours; otherwise remove them, and with restore put BAIJ's back (a conversion back to BAIJ).
   MatDestroy() restores nothing: BAIJ's destroy removes its own, and a function composed here while MatHeaderMerge()
   destroys the matrix would outlive its list (124 bytes lost on every MatAXPY() with another pattern) */
static PetscErrorCode MatSeqBAIJKSPARSEComposeFunctions(Mat B, PetscBool set, PetscBool restore)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)B->spptr;
  char                name[128], base[128];

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqbaijksparse_seqbaij_C", set ? MatConvert_SeqBAIJKSPARSE_SeqBAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaij_seqbaijksparse_C", set ? MatConvert_Any_BAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqbaij_seqbaijksparse_C", set ? MatConvert_Any_BAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijcusparse_seqbaijksparse_C", set ? MatConvert_SeqAIJCUSPARSE_SeqBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqbaijksparse_seqaijcusparse_C", set ? MatConvert_SeqBAIJKSPARSE_SeqAIJCUSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", set ? MatSetPreallocationCOO_SeqBAIJKSPARSE : NULL)); /* BAIJ has none */
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", set ? MatSetValuesCOO_SeqBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSeqBAIJSetPreallocation_C", set ? MatSeqBAIJSetPreallocation_SeqBAIJKSPARSE : (restore ? k->setpreallocation : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSeqBAIJGetArray_C", set ? MatSeqBAIJGetArray_SeqBAIJKSPARSE : (restore ? k->getarray : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSeqBAIJRestoreArray_C", set ? MatSeqBAIJRestoreArray_SeqBAIJKSPARSE : (restore ? k->restorearray : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, PBG_GET_DEVICE_MAT_VIEW, set ? MatGetDeviceMatView_SeqBAIJKSPARSE : NULL));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(SeqForwardedTargets); i++) {
    PetscErrorCode (*f)(Mat, MatType, MatReuse, Mat *) = NULL;

    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", MATSEQBAIJKSPARSE, SeqForwardedTargets[i]));
    if (set) {
      PetscCall(PetscSNPrintf(base, sizeof(base), "MatConvert_%s_%s_C", MATSEQBAIJ, SeqForwardedTargets[i]));
      PetscCall(PetscObjectQueryFunction((PetscObject)B, base, &f));
    }
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, f ? MatConvert_BAIJKSPARSE_HostForward : NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqBAIJKSPARSE(Mat);
static PetscErrorCode MatView_SeqBAIJKSPARSE(Mat, PetscViewer);

/* The forwarders: BAIJ's method `name`, after the host copy is brought up to date (generated for every method) */
#define PBG_SEQ_FORWARDER(name, params, args, M) PBG_DEFINE_FORWARDER(Mat_SeqBAIJKSPARSE, MatSeqBAIJKSPARSEHostAccess_Private, SeqHost_, name, params, args, M)
PBG_MATOPS(PBG_SEQ_FORWARDER)
#undef PBG_SEQ_FORWARDER

/* Our methods, where the device takes part or the subclass needs its own */
static struct _MatOps SeqOurs;
static PetscErrorCode SeqOursInitialize(void)
{
  static PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  SeqOurs.destroy          = MatDestroy_SeqBAIJKSPARSE;
  SeqOurs.duplicate        = MatDuplicate_SeqBAIJKSPARSE;
  SeqOurs.view             = MatView_SeqBAIJKSPARSE;
  SeqOurs.convertfrom      = MatConvert_Any_BAIJKSPARSE;
  SeqOurs.creategraph      = MatCreateGraph_BAIJKSPARSE;
  SeqOurs.mult             = MatMult_SeqBAIJKSPARSE;
  SeqOurs.multadd          = MatMultAdd_SeqBAIJKSPARSE;
  SeqOurs.multtranspose    = MatMultTranspose_SeqBAIJKSPARSE;
  SeqOurs.multtransposeadd = MatMultTransposeAdd_SeqBAIJKSPARSE;
  SeqOurs.assemblyend      = MatAssemblyEnd_SeqBAIJKSPARSE;
  SeqOurs.setfromoptions   = MatSetFromOptions_SeqBAIJKSPARSE;
  SeqOurs.bindtocpu        = MatBindToCPU_SeqBAIJKSPARSE;
  SeqOurs.scale            = MatScale_SeqBAIJKSPARSE;
  SeqOurs.zeroentries      = MatZeroEntries_SeqBAIJKSPARSE;
  SeqOurs.axpy             = MatAXPY_SeqBAIJKSPARSE;
  SeqOurs.copy             = MatCopy_SeqBAIJKSPARSE;
  SeqOurs.shift            = MatShift_SeqBAIJKSPARSE;
  SeqOurs.diagonalset      = MatDiagonalSet_SeqBAIJKSPARSE;
  SeqOurs.getdiagonal      = MatGetDiagonal_SeqBAIJKSPARSE;
  SeqOurs.diagonalscale    = MatDiagonalScale_SeqBAIJKSPARSE;
  SeqOurs.zerorows         = MatZeroRows_SeqBAIJKSPARSE;
  SeqOurs.zerorowscolumns  = MatZeroRowsColumns_SeqBAIJKSPARSE;
  SeqOurs.invertblockdiagonal         = MatInvertBlockDiagonal_SeqBAIJKSPARSE;
  SeqOurs.invertvariableblockdiagonal = MatInvertVariableBlockDiagonal_SeqBAIJKSPARSE;
  SeqOurs.createsubmatrix             = MatCreateSubMatrix_SeqBAIJKSPARSE;
  SeqOurs.createsubmatrices           = MatCreateSubMatrices_SeqBAIJKSPARSE;
  done                     = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Takes the methods BAIJ has set since the last call into k->host (at the conversion, and after BAIJ's preallocation,
   which picks bs-specific products) and puts ours or the forwarders in their place; a method BAIJ lacks stays NULL */
static PetscErrorCode MatSeqBAIJKSPARSEInstallOps(Mat B)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)B->spptr;

  PetscFunctionBegin;
  PetscCall(SeqOursInitialize());
#define PBG_INSTALL(name, params, args, M) PBG_INSTALL_METHOD(B, k, SeqOurs, SeqHost_, name)
  PBG_MATOPS(PBG_INSTALL)
#undef PBG_INSTALL
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSeqBAIJSetPreallocation_SeqBAIJKSPARSE(Mat B, PetscInt bs, PetscInt nz, const PetscInt nnz[])
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)B->spptr;

  PetscFunctionBegin;
  PetscCall((*k->setpreallocation)(B, bs, nz, nnz));
  PetscCall(MatSeqBAIJKSPARSEInstallOps(B));
  B->offloadmask = PETSC_OFFLOAD_CPU;
  /* a new preallocation is a new pattern, whether or not the nonzero state moves (BAIJ's does not move it when the
     new pattern is filled exactly, as MatSeqBAIJSetPreallocationCSR() and COO do): the device pattern is stale */
  if (k->dev) k->dev->pattern_valid = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the subclass's own state (A->spptr and all it holds): the one place for MatDestroy() and the conversion back */
static PetscErrorCode MatSeqBAIJKSPARSEFreePrivate(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEDeviceDestroy(&k->dev));
  PetscCall(MatBAIJKSPARSECOODestroy_Private(&k->coo));
  PetscCall(MatBAIJKSPARSEBlockDiagDestroy_Private(&k->bdiag));
  PetscCall(PetscFree(A->spptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqBAIJKSPARSE(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscErrorCode (*destroy)(Mat);

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATSEQBAIJKSPARSE);
  destroy = k->host.destroy;
  PetscCall(MatSeqBAIJKSPARSEComposeFunctions(A, PETSC_FALSE, PETSC_FALSE));
  PetscCall(MatSeqBAIJKSPARSEFreePrivate(A));
  /* what remains is a MATSEQBAIJ: let BAIJ free it */
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQBAIJ));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SeqBAIJKSPARSE(Mat A, PetscViewer viewer)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscBool           isascii;
  PetscViewerFormat   format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (isascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    MatBAIJKSPARSEStats s;

    PetscCall(MatBAIJKSPARSEGetStats_Private(A, NULL, &s));
    PetscCall(MatBAIJKSPARSEViewStats_Private(viewer, &s));
    PetscCall(MatSeqBAIJKSPARSEViewKernel_Private(A, viewer, ""));
    PetscCall(MatBAIJKSPARSECOOView_Private(k->coo, viewer));
  }
  PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  PetscCall((*k->host.view)(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Strips the subclass: B goes back to a plain MATSEQBAIJ */
PetscErrorCode MatConvert_SeqBAIJKSPARSE_SeqBAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B;
  Mat_SeqBAIJKSPARSE *k;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEConvertStart_Private(A, MATSEQBAIJ, MATSEQBAIJKSPARSE, PETSC_FALSE, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!B->hash_active, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert a matrix during hash-based assembly; assemble it first");
  k = (Mat_SeqBAIJKSPARSE *)B->spptr;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATSEQBAIJKSPARSE);
  PetscCall(MatSeqBAIJKSPARSECopyToHost(B)); /* the host copy becomes the only one */
  *B->ops = k->host;
  PetscCall(MatSeqBAIJKSPARSEComposeFunctions(B, PETSC_FALSE, PETSC_TRUE));
  PetscCall(MatSeqBAIJKSPARSEFreePrivate(B));
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  B->offloadmask = PETSC_OFFLOAD_UNALLOCATED;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQBAIJ));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Subclasses a MATSEQBAIJ (assembled or not, preallocated or not) in place */
PetscErrorCode MatConvert_SeqBAIJ_SeqBAIJKSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B;
  Mat_SeqBAIJKSPARSE *k;
  PetscBool           flg, avail;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEConvertStart_Private(A, MATSEQBAIJ, MATSEQBAIJKSPARSE, PETSC_TRUE, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBAIJKSPARSE, &flg));
  if (!flg) {
    /* the hash-based assembly saves the methods and puts them back at its end, which would undo ours */
    PetscCheck(!B->hash_active, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert a matrix during hash-based assembly; assemble it first");
    PetscCheck(!B->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Mat->spptr of the %s matrix is already in use", ((PetscObject)B)->type_name);
    PetscCall(PetscNew(&k));
    k->host        = *B->ops;
    k->kernel      = MAT_BAIJKSPARSE_KERNEL_HOST;
    k->opts.kernel = MAT_BAIJKSPARSE_KERNEL_AUTO;
    k->opts.balance = MAT_BAIJKSPARSE_BALANCE_AUTO;
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSeqBAIJSetPreallocation_C", &k->setpreallocation));
    PetscCheck(k->setpreallocation && k->setpreallocation != MatSeqBAIJSetPreallocation_SeqBAIJKSPARSE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without BAIJ's MatSeqBAIJSetPreallocation_C", MATSEQBAIJ);
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSeqBAIJGetArray_C", &k->getarray));
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSeqBAIJRestoreArray_C", &k->restorearray));
    PetscCheck(k->getarray && k->restorearray && k->getarray != MatSeqBAIJGetArray_SeqBAIJKSPARSE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without BAIJ's MatSeqBAIJGetArray_C", MATSEQBAIJ);
    B->spptr = k;

    PetscCall(MatSeqBAIJKSPARSEInstallOps(B));
    PetscCall(MatSeqBAIJKSPARSEComposeFunctions(B, PETSC_TRUE, PETSC_FALSE));
    PetscCall(PetscBlockGPUDeviceAvailable(&avail));
    if (avail) { /* a device: vectors from MatCreateVecs() live there, and the matrix is not bound to the CPU */
      PetscCall(PetscFree(B->defaultvectype));
      PetscCall(PetscStrallocpy(VECCUDA, &B->defaultvectype));
      B->boundtocpu = PETSC_FALSE;
    }
    B->offloadmask = PETSC_OFFLOAD_CPU;
    PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQBAIJKSPARSE));
  }
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}


/*MC
   MATSEQBAIJKSPARSE - "seqbaijksparse" - A sequential block sparse (BSR) matrix, `MATSEQBAIJ` subclassed so that
   `MatMult()` runs block-size-specialised GPU kernels (after Abdelfattah, Ltaief, Keyes and Dongarra, "KSPARSE").

   Options Database Keys:
+ -mat_type seqbaijksparse              - sets the matrix type to `MATSEQBAIJKSPARSE` during a call to `MatSetFromOptions()`
. -mat_baijksparse_kernel <auto>        - auto, scalar (bs 1), k1 (bs 1-5), k2 (bs 2-45), k3 (any bs)
. -mat_baijksparse_balance <auto>       - auto, on, off: split block rows longer than lambda into segments
. -mat_baijksparse_lambda <0>           - longest segment in blocks (0: max(32, 4 x the mean block row length))
. -mat_baijksparse_ept <0>              - rows of a block per thread: K1 1 or bs (a column per lane), K2 and K3 1-4
. -mat_baijksparse_warps <0>            - K2: warps per block row; scalar, K1, K3: warps per thread block
. -mat_baijksparse_teams <0>            - K2: block rows per thread block
. -mat_baijksparse_lanes <0>            - scalar kernel: lanes per row (2-32); K1: lanes per block row (8, 16, 32)
- -mat_baijksparse_tuning_file <file>   - the tuning table (default: baijksparse_tuning_sm<XY>.txt found by `MatBAIJKSPARSEGetTuningTable()`; none: built-in defaults)

   Level: beginner

   Notes:
   The storage, assembly and every operation are those of `MATSEQBAIJ`; the matrix can be converted to and from
   `MATSEQBAIJ` in place, and `MatConvert()` from `MATSEQAIJ` keeps the block size set on the AIJ matrix.

   With a CUDA device, `MatCreateVecs()` gives `VECCUDA` vectors and `MatMult()`, `MatMultAdd()`, `MatMultTranspose()`
   and `MatMultTransposeAdd()` on device vectors run on the GPU: the BSR arrays (32-bit indices, blocks column-major as
   BAIJ stores them) are copied to the device at the first product and again whenever the host copy changed
   (`MatSetValues()`, assembly, ...). Once the matrix has a device copy, `MatScale()`, `MatZeroEntries()`, `MatShift()`,
   `MatDiagonalSet()`, `MatGetDiagonal()`, `MatDiagonalScale()`, `MatDuplicate()`, `MatZeroRows()`, `MatZeroRowsColumns()`,
   `MatAXPY()` (same or subset pattern) and `MatCopy()` (same pattern; both operands baijksparse) run on the device and
   leave the device copy newer, with no copy of the values between host and device (host vectors: their entries move). A
   diagonal value needs every diagonal block stored (else the host inserts it). `MatZeroRows()` and
   `MatZeroRowsColumns()` on the device always keep the nonzero pattern (zeroed blocks stay stored, as with
   `MAT_KEEP_NONZERO_PATTERN`). Any other operation brings the host copy up to date first
   (one device-to-host copy of the values, event BAIJKCopyFromGPU, counted as GpuToCpu by -log_view). The kernels: bs 1 a group of lanes per row; K1 (bs 2-5) truncated warps reading several
   whole blocks per load, an element or a column of a block per lane; K2 (bs 6-45) thread arrays nb x N_tg streaming the block row's values as one dense column-major matrix, nb columns per load, ept rows per thread; K3 (bs > 45)
   a 2-D grid where several thread blocks share a block row. Parameters come from the tuning table of the GPU
   architecture (a line per block size, or per block size and row-length class: bs 3 on short rows, a 2-D 5-point
   stencil, is best served by K1 and on long ones, a 3-D 27-point stencil, by K2), else built-in defaults; the options above override them. Block rows longer than lambda are split into
   segments whose partial results a reduction kernel adds up. The transposed products use a simple kernel with
   atomicAdd() (their last bits may vary from run to run).

   `MatInvertBlockDiagonal()` and `MatInvertVariableBlockDiagonal()` (so `PCPBJACOBI` and `PCVPBJACOBI`) extract and invert
   the diagonal blocks (of at most 32 rows) on the device and copy back only the inverses; larger blocks are inverted on the host.

   Without a device, when bound to the CPU (`MatBindToCPU()`), or with host vectors, the products are `MATSEQBAIJ`'s host
   kernels. `MatView()` with `PETSC_VIEWER_ASCII_INFO` prints the block-row statistics, the kernel and its parameters,
   and whether rows are balanced.

.seealso: [](ch_matrices), `Mat`, `MATBAIJKSPARSE`, `MATMPIBAIJKSPARSE`, `MATSEQBAIJ`, `MatCreateBAIJKSPARSE()`
M*/
PetscErrorCode MatCreate_SeqBAIJKSPARSE(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATSEQBAIJ));
  PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(A, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
