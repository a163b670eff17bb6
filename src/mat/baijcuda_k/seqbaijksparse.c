/* MATSEQBAIJKSPARSE: MATSEQBAIJ subclassed in place (the way PETSc's MATSEQBAIJMKL is).

   The type: MatMult(), MatMultAdd(), MatMultTranspose(), MatMultTransposeAdd() on device vectors, assembly, binding,
   destruction, view, the method table and the in-place conversions between MATSEQBAIJ and the subclass. The device copy
   and where the values live are in baijksparse_device.c, the kernel choice in baijksparse_tuning.c, the kernels in cuda/
   (baijksparsecuda.h). Without a device, when bound to the CPU, or with host vectors, the products are BAIJ's own host
   kernels.

   Every method that is not ours is BAIJ's, reached through a forwarder generated from PETSc's list of methods
   (conf/gen_matops.py) that calls MatSeqBAIJKSPARSEHostAccess_Private() first (see baijksparse_device.c). */
#include "baijksparse_device.h" /*I "petscblockgpu.h" I*/
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

/* ---------------------------------------------------------------------------------------------- products */

static PetscErrorCode MatSeqBAIJKSPARSEUseDevice(Mat A, PetscBool *use)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, use));
  if (!*use) ((Mat_SeqBAIJKSPARSE *)A->spptr)->kernel = MAT_BAIJKSPARSE_KERNEL_HOST;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = D x (+ z) with the device copy d (A's own, or its explicit transpose), ny rows; z NULL: none; inplace: z is y */
static PetscErrorCode DeviceProduct(const MatBAIJKSPARSEDevice *d, PetscInt ny, const PetscScalar *x, const PetscScalar *z, PetscBool inplace, PetscScalar *y, cudaStream_t stream)
{
  MatBAIJKSPARSEMultArgs args;
  const PetscBool        segments = (PetscBool)(d->balanced || d->compressed);

  PetscFunctionBegin;
  /* compressed rows: no work item writes the empty rows, so y gets z (or 0) there first, unless y is z */
  if (d->compressed && d->nempty && !inplace) {
    if (!z) PetscCall(MatBAIJKSPARSEDeviceZero_Private(y, (size_t)ny * sizeof(PetscScalar), stream));
    else PetscCall(MatBAIJKSPARSEDeviceCopy_Private(y, z, (size_t)ny * sizeof(PetscScalar), stream));
  }
  args.bs     = d->bs;
  args.mbs    = d->mbs;
  args.nwork  = segments ? d->nseg : d->mbs;
  args.rowptr = d->rowptr;
  args.colidx = d->colidx;
  args.segptr = segments ? d->segptr : NULL;
  args.segrow = segments ? d->segrow : NULL;
  args.val    = d->val;
  args.x      = x;
  args.z      = z;
  args.y      = y;
  args.work   = d->work;
  PetscCall(MatBAIJKSPARSEMult_CUDA(&d->params, &args, stream));
  if (d->balanced && d->nsplit) PetscCall(MatBAIJKSPARSEReduce_CUDA(d->bs, d->nsplit, d->splitrow, d->splitslot, d->work, z, y, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x (zz NULL), y = A x + z, or the transposed products; device vectors, else BAIJ's host kernels */
static PetscErrorCode MatProduct_SeqBAIJKSPARSE(Mat A, Vec xx, Vec zz, Vec yy, PetscBool trans)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d, *dt = NULL;
  const PetscScalar    *x, *z  = NULL;
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

  PetscCall(MatSeqBAIJKSPARSEPrepareMult_Private(A));
  d = k->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (trans) PetscCall(MatSeqBAIJKSPARSETransposeGet_Private(A, &dt)); /* before the event: making the copy is its own */
  PetscCall(PetscLogEventBegin(PBG_BAIJKMult, A, xx, yy, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (!trans) {
    PetscCall(DeviceProduct(d, ny, x, zz ? z : NULL, zz == yy, y, stream));
    k->kernel = d->params.kernel;
  } else if (dt) PetscCall(DeviceProduct(dt, ny, x, zz ? z : NULL, zz == yy, y, stream));
  else {
    if (!zz) PetscCall(MatBAIJKSPARSEDeviceZero_Private(y, (size_t)ny * sizeof(PetscScalar), stream));
    else if (zz != yy) PetscCall(MatBAIJKSPARSEDeviceCopy_Private(y, z, (size_t)ny * sizeof(PetscScalar), stream));
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
  if (!keep) MatBAIJKSPARSEMarkHostNewer_Private(A);
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
/* The start that the in-place conversions between BAIJ (base) and the subclass (sub), seq and mpi, share. A must be sub
   (tosub: base or sub). MAT_REUSE_MATRIX copies the values into *newmat, of the target type, and is done (*B = NULL);
   MAT_INITIAL_MATRIX converts a duplicate of A, MAT_INPLACE_MATRIX A itself (*B). */
PetscErrorCode MatBAIJKSPARSEConvertStart_Private(Mat A, MatType base, MatType sub, PetscBool tosub, MatReuse reuse, Mat *newmat, Mat *B)
{
  MatType   target = tosub ? sub : base;
  PetscBool flg;

  PetscFunctionBegin;
  *B = NULL;
  if (tosub) {
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, base, sub, ""));
    PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Converts %s matrices, not %s; use MatConvert()", base, ((PetscObject)A)->type_name);
  } else {
    PetscCall(PetscObjectTypeCompare((PetscObject)A, sub, &flg));
    PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Expected a %s matrix, not %s", sub, ((PetscObject)A)->type_name);
  }
  if (reuse == MAT_REUSE_MATRIX) {
    PetscValidHeaderSpecific(*newmat, MAT_CLASSID, 4);
    PetscCall(PetscObjectTypeCompare((PetscObject)*newmat, target, &flg));
    PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: the matrix to reuse must be %s, not %s", target, ((PetscObject)*newmat)->type_name);
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  else {
    PetscCheck(*newmat == A, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_INPLACE_MATRIX requires the same input and output matrix");
    *B = A;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOOLocal_C", set ? MatSetPreallocationCOOLocal_BAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSeqBAIJSetPreallocation_C", set ? MatSeqBAIJSetPreallocation_SeqBAIJKSPARSE : (restore ? k->setpreallocation : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSeqAIJSetPreallocation_C", set && !MatBAIJKSPARSEAIJPreallocationHidden_Private() ? MatSeqAIJSetPreallocation_SeqBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSeqBAIJGetArray_C", set ? MatSeqBAIJGetArray_SeqBAIJKSPARSE : (restore ? k->getarray : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSeqBAIJRestoreArray_C", set ? MatSeqBAIJRestoreArray_SeqBAIJKSPARSE : (restore ? k->restorearray : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, PBG_GET_DEVICE_MAT_VIEW, set ? MatGetDeviceMatView_SeqBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", set ? MatProductSetFromOptions_BAIJKSPARSE : NULL));
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

/* BAIJ ignores MAT_FORM_EXPLICIT_TRANSPOSE; the transposed products read it (baijksparse_transpose.c) */
static PetscErrorCode MatSetOption_SeqBAIJKSPARSE(Mat A, MatOption op, PetscBool flg)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  if (op == MAT_FORM_EXPLICIT_TRANSPOSE) A->form_explicit_transpose = flg;
  if (k->host.setoption) PetscCall((*k->host.setoption)(A, op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetUp() without a preallocation: BAIJ's hash-based assembly, noted for -mat_view */
static PetscErrorCode MatSetUp_SeqBAIJKSPARSE(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*k->host.setup)(A));
  if (A->hash_active) PetscCall(MatBAIJKSPARSEPreallocNoted_Private(A, &k->prealloc, MAT_BAIJKSPARSE_PREALLOC_HASH, -1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Our methods, where the device takes part or the subclass needs its own */
static struct _MatOps SeqOurs;
static PetscErrorCode SeqOursInitialize(void)
{
  static PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  SeqOurs.destroy                     = MatDestroy_SeqBAIJKSPARSE;
  SeqOurs.duplicate                   = MatDuplicate_SeqBAIJKSPARSE;
  SeqOurs.view                        = MatView_SeqBAIJKSPARSE;
  SeqOurs.convertfrom                 = MatConvert_Any_BAIJKSPARSE;
  SeqOurs.creategraph                 = MatCreateGraph_BAIJKSPARSE;
  SeqOurs.productsetfromoptions       = MatProductSetFromOptions_BAIJKSPARSE;
  SeqOurs.mult                        = MatMult_SeqBAIJKSPARSE;
  SeqOurs.multadd                     = MatMultAdd_SeqBAIJKSPARSE;
  SeqOurs.multtranspose               = MatMultTranspose_SeqBAIJKSPARSE;
  SeqOurs.multtransposeadd            = MatMultTransposeAdd_SeqBAIJKSPARSE;
  SeqOurs.assemblyend                 = MatAssemblyEnd_SeqBAIJKSPARSE;
  SeqOurs.setfromoptions              = MatSetFromOptions_SeqBAIJKSPARSE;
  SeqOurs.setoption                   = MatSetOption_SeqBAIJKSPARSE;
  SeqOurs.bindtocpu                   = MatBindToCPU_SeqBAIJKSPARSE;
  SeqOurs.scale                       = MatScale_SeqBAIJKSPARSE;
  SeqOurs.zeroentries                 = MatZeroEntries_SeqBAIJKSPARSE;
  SeqOurs.axpy                        = MatAXPY_SeqBAIJKSPARSE;
  SeqOurs.copy                        = MatCopy_SeqBAIJKSPARSE;
  SeqOurs.shift                       = MatShift_SeqBAIJKSPARSE;
  SeqOurs.diagonalset                 = MatDiagonalSet_SeqBAIJKSPARSE;
  SeqOurs.getdiagonal                 = MatGetDiagonal_SeqBAIJKSPARSE;
  SeqOurs.diagonalscale               = MatDiagonalScale_SeqBAIJKSPARSE;
  SeqOurs.zerorows                    = MatZeroRows_SeqBAIJKSPARSE;
  SeqOurs.zerorowscolumns             = MatZeroRowsColumns_SeqBAIJKSPARSE;
  SeqOurs.getblockdiagonal            = MatGetBlockDiagonal_BAIJKSPARSE;
  SeqOurs.invertblockdiagonal         = MatInvertBlockDiagonal_SeqBAIJKSPARSE;
  SeqOurs.invertvariableblockdiagonal = MatInvertVariableBlockDiagonal_SeqBAIJKSPARSE;
  SeqOurs.createsubmatrix             = MatCreateSubMatrix_SeqBAIJKSPARSE;
  SeqOurs.createsubmatrices           = MatCreateSubMatrices_SeqBAIJKSPARSE;
  SeqOurs.lufactor                    = MatLUFactor_SeqBAIJKSPARSE;
  SeqOurs.setup                       = MatSetUp_SeqBAIJKSPARSE;
  done                                = PETSC_TRUE;
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
  /* the end of MatSetUp()'s hash-based assembly preallocates the exact block counts it found (after marking the
     matrix not preallocated): the matrix stays "not preallocated, hash" for -mat_view */
  PetscBool from_hash = (PetscBool)(k->prealloc.source == MAT_BAIJKSPARSE_PREALLOC_HASH && !B->preallocated && !B->hash_active);

  PetscFunctionBegin;
  PetscCall((*k->setpreallocation)(B, bs, nz, nnz));
  if (!from_hash) PetscCall(MatBAIJKSPARSEPreallocNoted_Private(B, &k->prealloc, MAT_BAIJKSPARSE_PREALLOC_BAIJ, -1));
  PetscCall(MatSeqBAIJKSPARSEInstallOps(B));
  MatBAIJKSPARSEMarkHostNewer_Private(B);
  /* a new preallocation is a new pattern, whether or not the nonzero state moves (BAIJ's does not move it when the
     new pattern is filled exactly, as MatSeqBAIJSetPreallocationCSR() and COO do): the device pattern is stale */
  if (k->dev) k->dev->pattern_valid = PETSC_FALSE;
  PetscCall(PetscFree(k->hostdiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the subclass's own state (A->spptr and all it holds): the one place for MatDestroy() and the conversion back */
static PetscErrorCode MatSeqBAIJKSPARSEFreePrivate(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSEDeviceDestroy_Private(&k->dev));
  PetscCall(MatBAIJKSPARSECOODestroy_Private(&k->coo));
  PetscCall(MatBAIJKSPARSEBlockDiagDestroy_Private(&k->bdiag));
  PetscCall(MatBAIJKSPARSEExplicitTDestroy_Private(&k->trans));
  PetscCall(PetscFree(k->hostdiag));
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
    PetscBool           gpu;

    PetscCall(MatBAIJKSPARSEGetStats_Private(A, NULL, &s));
    PetscCall(MatBAIJKSPARSEViewStats_Private(viewer, &s));
    PetscCall(MatBAIJKSPARSEPreallocView_Private(A, &k->prealloc, viewer));
    PetscCall(MatSeqBAIJKSPARSEViewKernel_Private(A, viewer, "", &gpu));
    if (gpu) PetscCall(MatSeqBAIJKSPARSETransposeView_Private(A, viewer, ""));
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
  PetscCall(MatSeqBAIJKSPARSECopyToHost_Private(B)); /* the host copy becomes the only one */
  *B->ops = k->host;
  PetscCall(MatSeqBAIJKSPARSEComposeFunctions(B, PETSC_FALSE, PETSC_TRUE));
  PetscCall(MatSeqBAIJKSPARSEFreePrivate(B));
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  MatBAIJKSPARSEMarkNoValues_Private(B);
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
    k->host         = *B->ops;
    k->kernel       = MAT_BAIJKSPARSE_KERNEL_HOST;
    k->opts.kernel  = MAT_BAIJKSPARSE_KERNEL_AUTO;
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
    MatBAIJKSPARSEMarkHostNewer_Private(B);
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
. -mat_baijksparse_compress_rows <auto> - auto, on, off: launch work only for block rows with blocks (auto: when at least
                                          half of them are empty, as in the off-diagonal part of a `MATMPIBAIJKSPARSE`)
. -mat_baijksparse_ept <0>              - rows of a block per thread: K1 1 or bs (a column per lane), K2 and K3 1-4
. -mat_baijksparse_warps <0>            - K2: warps per block row; scalar, K1, K3: warps per thread block
. -mat_baijksparse_teams <0>            - K2: block rows per thread block
. -mat_baijksparse_lanes <0>            - scalar kernel: lanes per row (2-32); K1: lanes per block row (8, 16, 32)
. -mat_baijksparse_transpose <auto>     - MatMultTranspose() on the GPU: atomic (atomicAdd into y, no extra memory),
                                          explicit (a device copy of the transpose, built once per nonzero pattern,
                                          multiplied like MatMult(), deterministic), auto (explicit when
                                          `MAT_FORM_EXPLICIT_TRANSPOSE` is set, else atomic)
- -mat_baijksparse_tuning_file <file>   - the tuning table (default: baijksparse_tuning_sm<XY>.txt found by `MatBAIJKSPARSEGetTuningTable()`; none: built-in defaults)

   Level: beginner

   Notes:
   The storage, assembly and every operation are those of `MATSEQBAIJ`; the matrix can be converted to and from
   `MATSEQBAIJ` in place, and `MatConvert()` from `MATSEQAIJ` keeps the block size set on the AIJ matrix.

   `MatSeqAIJSetPreallocation()` (and `MatMPIAIJSetPreallocation()` for `MATMPIBAIJKSPARSE`) is honoured, unlike
   `MATSEQBAIJ`: block row I gets ceil(max_{i in I} nnz[i] / bs) blocks (exact for dense bs x bs blocks, no more than
   `MATSEQAIJ` reserves for the same counts); a row that needs more grows (a malloc), `MAT_NEW_NONZERO_ALLOCATION_ERR`
   being off after the AIJ call. Block counts given before (`MatXAIJSetPreallocation()`, `MatSeqBAIJSetPreallocation()`,
   a `DM`) win. `MatView()` with `PETSC_VIEWER_ASCII_INFO` says how the matrix was preallocated.

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
  PetscBool rect;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSERectangularBlocks_Private(A, MATSEQAIJCUSPARSE, MATSEQAIJ, &rect));
  if (rect) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSetType(A, MATSEQBAIJ));
  PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(A, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
