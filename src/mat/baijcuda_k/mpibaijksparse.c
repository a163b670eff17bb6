/* MATMPIBAIJKSPARSE: MATMPIBAIJ subclassed in place, its diagonal and off-diagonal parts MATSEQBAIJKSPARSE (the
   way PETSc's MATMPIBAIJLIBXSMM converts the parts of MPIBAIJ).

   MPIBAIJ (re)creates its parts as MATSEQBAIJ in MatMPIBAIJSetPreallocation() and in MatSetUp() (hash-based
   assembly without preallocation), so the parts are converted after the wrapped "MatMPIBAIJSetPreallocation_C"
   and again at the end of every assembly; MatDisAssemble_MPIBAIJ() recreates the off-diagonal part with the
   part's own type name, so that one stays MATSEQBAIJKSPARSE by itself. The options of the matrix (and its binding
   to the CPU) are pushed into the parts each time they are converted or reassembled.

   Products on device vectors: the ghost values go through our own scatter into our own CUDA vector (MPIBAIJ's
   lvec and Mvctx are in its private struct, which an installed PETSc does not expose), built from MPIBAIJ's
   garray at assembly. MatMult() starts the scatter, runs A x on the GPU meanwhile, ends the scatter and adds
   B lvec (MatMultAdd of the off-diagonal part); the transposed products run B^T x into lvec and A^T x, then
   add lvec back with a reverse scatter. With host vectors, without a device or bound to the CPU, MPIBAIJ's own
   products run (host kernels on both parts). */
#include <petscblockgpu/private/baijksparseimpl.h> /*I "petscblockgpu.h" I*/

static const char *const MPIForwardedTargets[] = {MATMPIAIJ, MATMPISBAIJ};

PetscErrorCode MatMPIBAIJKSPARSEGetSeqBAIJ_Private(Mat A, Mat *Ad, Mat *Ao, const PetscInt *garray[])
{
  PetscBool isk;

  PetscFunctionBegin;
  /* MatMPIBAIJGetSeqBAIJ() checks for the exact type name MATMPIBAIJ; the data of the subclass is the same */
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &isk));
  if (isk) PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBAIJ));
  PetscCall(MatMPIBAIJGetSeqBAIJ(A, Ad, Ao, garray));
  if (isk) PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBAIJKSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Converts the existing parts (in place: the pointers held by MPIBAIJ stay valid). The parts are converted
   without MatConvert(), which refuses unassembled matrices; parts in hash-based assembly are left alone, they are
   converted at the end of the assembly. */
static PetscErrorCode MatMPIBAIJKSPARSEConvertParts(Mat A, PetscBool toksparse)
{
  Mat parts[2];

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &parts[0], &parts[1], NULL));
  for (PetscInt i = 0; i < 2; i++) {
    Mat       P = parts[i];
    PetscBool isk;

    if (!P || P->hash_active) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQBAIJKSPARSE, &isk));
    if (toksparse && !isk) PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(P, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &P));
    else if (!toksparse && isk) PetscCall(MatConvert_SeqBAIJKSPARSE_SeqBAIJ(P, MATSEQBAIJ, MAT_INPLACE_MATRIX, &P));
    PetscCheck(P == parts[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "In-place conversion replaced the local part");
    if (toksparse && A->spptr) {
      Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

      /* the parts have no options prefix: read the options (quietly) with the prefix of the matrix */
      if (!k->opts.read) PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, NULL, &k->opts));
      PetscCall(MatSeqBAIJKSPARSESetOptions_Private(P, &k->opts));
      PetscCall(MatBindToCPU(P, A->boundtocpu));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIBAIJSetPreallocation_MPIBAIJKSPARSE(Mat B, PetscInt bs, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)B->spptr;

  PetscFunctionBegin;
  PetscCall((*k->setpreallocation)(B, bs, d_nz, d_nnz, o_nz, o_nnz));
  PetscCall(MatMPIBAIJKSPARSEConvertParts(B, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* set: compose ours; otherwise remove them, and with restore put MPIBAIJ's preallocation back (a conversion back); a
   destroy restores nothing (see MatSeqBAIJKSPARSEComposeFunctions()) */
static PetscErrorCode MatMPIBAIJKSPARSEComposeFunctions(Mat B, PetscBool set, PetscBool restore)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)B->spptr;
  char                name[128], base[128];

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIBAIJSetPreallocation_C", set ? MatMPIBAIJSetPreallocation_MPIBAIJKSPARSE : (restore ? k->setpreallocation : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpibaijksparse_mpibaij_C", set ? MatConvert_MPIBAIJKSPARSE_MPIBAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpiaij_mpibaijksparse_C", set ? MatConvert_Any_BAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpibaij_mpibaijksparse_C", set ? MatConvert_Any_BAIJKSPARSE : NULL));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(MPIForwardedTargets); i++) {
    PetscErrorCode (*f)(Mat, MatType, MatReuse, Mat *) = NULL;

    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", MATMPIBAIJKSPARSE, MPIForwardedTargets[i]));
    if (set) {
      PetscCall(PetscSNPrintf(base, sizeof(base), "MatConvert_%s_%s_C", MATMPIBAIJ, MPIForwardedTargets[i]));
      PetscCall(PetscObjectQueryFunction((PetscObject)B, base, &f));
    }
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, f));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIBAIJKSPARSE(Mat A)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscErrorCode (*destroy)(Mat);

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATMPIBAIJKSPARSE);
  destroy = k->destroy;
  PetscCall(MatMPIBAIJKSPARSEComposeFunctions(A, PETSC_FALSE, PETSC_FALSE));
  PetscCall(VecDestroy(&k->lvec));
  PetscCall(VecScatterDestroy(&k->Mvctx));
  PetscCall(PetscFree(A->spptr));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBAIJ));
  PetscCall((*destroy)(A)); /* destroys the parts through their own (MATSEQBAIJKSPARSE) destroy */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X, as the seq type does it (MatAXPY_SeqBAIJKSPARSE): another pattern through a plain MPIBAIJ, converted in place
   and back, since MPIBAIJ merges a new matrix into Y with MatHeaderMerge(), which drops the subclass's private data (the
   next MatMult or MatAssemblyEnd then crashed; MatCopy() with another pattern comes here through MatAYPX()) */
static PetscErrorCode MatAXPY_MPIBAIJKSPARSE(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)Y->spptr;

  PetscFunctionBegin;
  if (str == SAME_NONZERO_PATTERN || str == SUBSET_NONZERO_PATTERN) PetscCall((*k->axpy)(Y, a, X, str));
  else {
    PetscCall(MatConvert_MPIBAIJKSPARSE_MPIBAIJ(Y, MATMPIBAIJ, MAT_INPLACE_MATRIX, &Y));
    PetscCall(MatAXPY(Y, a, X, str));
    PetscCall(MatConvert_MPIBAIJ_MPIBAIJKSPARSE(Y, MATMPIBAIJKSPARSE, MAT_INPLACE_MATRIX, &Y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Our ghost scatter x -> lvec (VECSEQCUDA) from MPIBAIJ's garray. check (at the end of a final assembly): rebuild
   if the ghost columns of any rank changed (collective, as MatAssemblyEnd() is); otherwise build only if missing
   (collective too: every rank lacks it or none does). Only when the device products can run. */
static PetscErrorCode MatMPIBAIJKSPARSESetUpScatter(Mat A, PetscBool check)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad, Ao;
  const PetscInt     *garray;
  PetscInt            bs = A->rmap->bs, nghost;
  PetscBool           use, rebuild;
  IS                  from, to;
  Vec                 gvec;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use));
  /* check: called from MatAssemblyEnd(), which marks the matrix assembled only after its ops->assemblyend */
  if (!use || (!check && !A->assembled)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, &garray));
  if (!Ao) PetscFunctionReturn(PETSC_SUCCESS);
  nghost  = Ao->cmap->n / bs;
  rebuild = (PetscBool)!k->Mvctx;
  if (check && !rebuild) {
    rebuild = (PetscBool)(nghost != k->nghost || A->nonzerostate != k->nzstate);
    if (!rebuild && nghost) {
      PetscCall(PetscArraycmp(garray, k->garray, nghost, &use));
      rebuild = (PetscBool)!use;
    }
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &rebuild, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  }
  if (!rebuild) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDestroy(&k->lvec));
  PetscCall(VecScatterDestroy(&k->Mvctx));
  PetscCall(PetscFree(k->garray));
  PetscCall(VecCreate(PETSC_COMM_SELF, &k->lvec));
  PetscCall(VecSetSizes(k->lvec, nghost * bs, nghost * bs));
  PetscCall(VecSetType(k->lvec, VECSEQCUDA));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, nghost, garray, PETSC_COPY_VALUES, &from));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, nghost * bs, 0, 1, &to));
  PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), bs, A->cmap->n, A->cmap->N, NULL, &gvec));
  PetscCall(VecScatterCreate(gvec, from, k->lvec, to, &k->Mvctx));
  PetscCall(VecDestroy(&gvec));
  PetscCall(ISDestroy(&from));
  PetscCall(ISDestroy(&to));
  PetscCall(PetscMalloc1(nghost, &k->garray));
  PetscCall(PetscArraycpy(k->garray, garray, nghost));
  k->nghost  = nghost;
  k->nzstate = A->nonzerostate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the products of A run on the device with these vectors: CUDA vectors. The vector type, not the memory
   type of the local array (which a rank with no rows may report differently), so that every rank takes the same
   path: the two paths use different scatters. */
static PetscErrorCode MatMPIBAIJKSPARSEDevicePath(Mat A, Vec x, Vec y, PetscBool *use)
{
  PetscBool cx, cy;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, use));
  if (!*use) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cx, VECMPICUDA, VECSEQCUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &cy, VECMPICUDA, VECSEQCUDA, ""));
  *use = (PetscBool)(cx && cy);
  if (*use) PetscCall(MatMPIBAIJKSPARSESetUpScatter(A, PETSC_FALSE));
  if (*use && !((Mat_MPIBAIJKSPARSE *)A->spptr)->Mvctx) *use = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x + y (y NULL: z = A x): the ghost scatter overlaps the product of the diagonal part */
static PetscErrorCode MatMultAdd_MPIBAIJKSPARSE_Device(Mat A, Vec x, Vec y, Vec z)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  if (k->nghost) PetscCall(VecScatterBegin(k->Mvctx, x, k->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (y) PetscUseTypeMethod(Ad, multadd, x, y, z);
  else PetscUseTypeMethod(Ad, mult, x, z);
  if (k->nghost) {
    PetscCall(VecScatterEnd(k->Mvctx, x, k->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PetscUseTypeMethod(Ao, multadd, k->lvec, z, z);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A^T x + y (y NULL: z = A^T x) */
static PetscErrorCode MatMultTransposeAdd_MPIBAIJKSPARSE_Device(Mat A, Vec x, Vec y, Vec z)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  if (k->nghost) PetscUseTypeMethod(Ao, multtranspose, x, k->lvec);
  if (y) PetscUseTypeMethod(Ad, multtransposeadd, x, y, z);
  else PetscUseTypeMethod(Ad, multtranspose, x, z);
  if (k->nghost) {
    PetscCall(VecScatterBegin(k->Mvctx, k->lvec, z, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(k->Mvctx, k->lvec, z, ADD_VALUES, SCATTER_REVERSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIBAIJKSPARSE(Mat A, Vec x, Vec y)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, y, &use));
  if (use) PetscCall(MatMultAdd_MPIBAIJKSPARSE_Device(A, x, NULL, y));
  else PetscCall((*k->mult)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIBAIJKSPARSE(Mat A, Vec x, Vec y, Vec z)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, z, &use));
  if (use) PetscCall(MatMultAdd_MPIBAIJKSPARSE_Device(A, x, y, z));
  else PetscCall((*k->multadd)(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_MPIBAIJKSPARSE(Mat A, Vec x, Vec y)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, y, &use));
  if (use) PetscCall(MatMultTransposeAdd_MPIBAIJKSPARSE_Device(A, x, NULL, y));
  else PetscCall((*k->multtranspose)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_MPIBAIJKSPARSE(Mat A, Vec x, Vec y, Vec z)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, z, &use));
  if (use) PetscCall(MatMultTransposeAdd_MPIBAIJKSPARSE_Device(A, x, y, z));
  else PetscCall((*k->multtransposeadd)(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIBAIJKSPARSE(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  if (k->setfromoptions) PetscCall((*k->setfromoptions)(A, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "MATMPIBAIJKSPARSE options");
  PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, PetscOptionsObject, &k->opts));
  PetscOptionsHeadEnd();
  PetscCall(MatMPIBAIJKSPARSEConvertParts(A, PETSC_TRUE)); /* pushes the options into the parts */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBindToCPU_MPIBAIJKSPARSE(Mat A, PetscBool flg)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  if (Ad) PetscCall(MatBindToCPU(Ad, flg));
  if (Ao) PetscCall(MatBindToCPU(Ao, flg));
  if (k->lvec) PetscCall(VecBindToCPU(k->lvec, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIBAIJKSPARSE(Mat A, MatAssemblyType mode)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATMPIBAIJKSPARSE);
  PetscCall((*k->assemblyend)(A, mode));
  PetscCall(MatMPIBAIJKSPARSEConvertParts(A, PETSC_TRUE)); /* parts made by MatSetUp()'s hash-based assembly */
  if (mode == MAT_FINAL_ASSEMBLY) {
    Mat Ad, Ao;

    /* parts converted just now were assembled as MATSEQBAIJ: check their kernel choice here, on every path */
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
    if (Ad) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(Ad));
    if (Ao) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(Ao));
    PetscCall(MatMPIBAIJKSPARSESetUpScatter(A, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIBAIJKSPARSE(Mat A, PetscViewer viewer)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           isascii;
  PetscViewerFormat   format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (isascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    MatBAIJKSPARSEStats s;
    Mat                 Ad, Ao;
    PetscInt            sums[3], ext[2];
    PetscBool           isk;

    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
    PetscCall(MatBAIJKSPARSEGetStats_Private(Ad, Ao, &s));
    sums[0] = s.mbs;
    sums[1] = s.nblocks;
    sums[2] = s.nempty;
    ext[0]  = -s.minblocks; /* PETSC_INT_MAX on ranks without rows: ignored by the max */
    ext[1]  = s.maxblocks;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sums, 3, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)A)));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, ext, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    s.mbs       = sums[0];
    s.nblocks   = sums[1];
    s.nempty    = sums[2];
    s.minblocks = -ext[0];
    s.maxblocks = ext[1];
    PetscCall(MatBAIJKSPARSEViewStats_Private(viewer, &s));
    /* the kernels of rank 0's parts (each rank chooses from its own rows) */
    PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQBAIJKSPARSE, &isk));
    if (isk) PetscCall(MatSeqBAIJKSPARSEViewKernel_Private(Ad, viewer, "diagonal part: "));
    PetscCall(PetscObjectTypeCompare((PetscObject)Ao, MATSEQBAIJKSPARSE, &isk));
    if (isk) PetscCall(MatSeqBAIJKSPARSEViewKernel_Private(Ao, viewer, "off-diagonal part: "));
    if (k->Mvctx) PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: ghost values: %" PetscInt_FMT " block columns on rank 0, scattered into a CUDA vector while the diagonal part multiplies\n", k->nghost));
  }
  PetscCall((*k->view)(A, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIBAIJKSPARSE_MPIBAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B = *newmat;
  Mat_MPIBAIJKSPARSE *k;
  PetscBool           flg;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &flg));
  PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Expected a %s matrix, not %s", MATMPIBAIJKSPARSE, ((PetscObject)A)->type_name);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscValidHeaderSpecific(B, MAT_CLASSID, 4);
    PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIBAIJ, &flg));
    PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: the matrix to reuse must be %s, not %s", MATMPIBAIJ, ((PetscObject)B)->type_name);
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else PetscCheck(B == A, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_INPLACE_MATRIX requires the same input and output matrix");
  PetscCheck(!B->hash_active, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert a matrix during hash-based assembly; assemble it first");
  k = (Mat_MPIBAIJKSPARSE *)B->spptr;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATMPIBAIJKSPARSE);
  PetscCall(MatMPIBAIJKSPARSEConvertParts(B, PETSC_FALSE));
  PetscCall(MatMPIBAIJKSPARSEComposeFunctions(B, PETSC_FALSE, PETSC_TRUE)); /* puts MPIBAIJ's preallocation back */
  B->ops->destroy          = k->destroy;
  B->ops->axpy             = k->axpy;
  B->ops->view             = k->view;
  B->ops->assemblyend      = k->assemblyend;
  B->ops->convertfrom      = k->convertfrom;
  B->ops->mult             = k->mult;
  B->ops->multadd          = k->multadd;
  B->ops->multtranspose    = k->multtranspose;
  B->ops->multtransposeadd = k->multtransposeadd;
  B->ops->setfromoptions   = k->setfromoptions;
  B->ops->bindtocpu        = k->bindtocpu;
  PetscCall(VecDestroy(&k->lvec));
  PetscCall(VecScatterDestroy(&k->Mvctx));
  PetscCall(PetscFree(k->garray));
  PetscCall(PetscFree(B->spptr));
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIBAIJ));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIBAIJ_MPIBAIJKSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B = *newmat;
  Mat_MPIBAIJKSPARSE *k;
  PetscBool           flg, avail;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATMPIBAIJ, MATMPIBAIJKSPARSE, ""));
  PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Converts %s matrices, not %s; use MatConvert()", MATMPIBAIJ, ((PetscObject)A)->type_name);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscValidHeaderSpecific(B, MAT_CLASSID, 4);
    PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIBAIJKSPARSE, &flg));
    PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: the matrix to reuse must be %s, not %s", MATMPIBAIJKSPARSE, ((PetscObject)B)->type_name);
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else PetscCheck(B == A, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_INPLACE_MATRIX requires the same input and output matrix");
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIBAIJKSPARSE, &flg));
  if (!flg) {
    PetscCheck(!B->hash_active, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert a matrix during hash-based assembly; assemble it first");
    PetscCheck(!B->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Mat->spptr of the %s matrix is already in use", ((PetscObject)B)->type_name);
    PetscCall(PetscNew(&k));
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatMPIBAIJSetPreallocation_C", &k->setpreallocation));
    PetscCheck(k->setpreallocation, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without MatMPIBAIJSetPreallocation_C", MATMPIBAIJ);
    k->destroy          = B->ops->destroy;
    k->axpy             = B->ops->axpy;
    k->view             = B->ops->view;
    k->assemblyend      = B->ops->assemblyend;
    k->convertfrom      = B->ops->convertfrom;
    k->mult             = B->ops->mult;
    k->multadd          = B->ops->multadd;
    k->multtranspose    = B->ops->multtranspose;
    k->multtransposeadd = B->ops->multtransposeadd;
    k->setfromoptions   = B->ops->setfromoptions;
    k->bindtocpu        = B->ops->bindtocpu;
    k->opts.kernel      = MAT_BAIJKSPARSE_KERNEL_AUTO;
    k->opts.balance     = MAT_BAIJKSPARSE_BALANCE_AUTO;
    B->spptr            = k;
    PetscCall(PetscBlockGPUDeviceAvailable(&avail));
    if (avail) { /* a device: vectors from MatCreateVecs() live there, and the matrix is not bound to the CPU */
      PetscCall(PetscFree(B->defaultvectype));
      PetscCall(PetscStrallocpy(VECCUDA, &B->defaultvectype));
      B->boundtocpu = PETSC_FALSE;
    }

    PetscCall(MatMPIBAIJKSPARSEConvertParts(B, PETSC_TRUE)); /* the parts of a preallocated matrix */
    B->ops->destroy     = MatDestroy_MPIBAIJKSPARSE;
    B->ops->axpy        = MatAXPY_MPIBAIJKSPARSE;
    B->ops->view        = MatView_MPIBAIJKSPARSE;
    B->ops->assemblyend      = MatAssemblyEnd_MPIBAIJKSPARSE;
    B->ops->convertfrom      = MatConvert_Any_BAIJKSPARSE;
    B->ops->mult             = MatMult_MPIBAIJKSPARSE;
    B->ops->multadd          = MatMultAdd_MPIBAIJKSPARSE;
    B->ops->multtranspose    = MatMultTranspose_MPIBAIJKSPARSE;
    B->ops->multtransposeadd = MatMultTransposeAdd_MPIBAIJKSPARSE;
    B->ops->setfromoptions   = MatSetFromOptions_MPIBAIJKSPARSE;
    B->ops->bindtocpu        = MatBindToCPU_MPIBAIJKSPARSE;
    PetscCall(MatMPIBAIJKSPARSEComposeFunctions(B, PETSC_TRUE, PETSC_FALSE));
    PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIBAIJKSPARSE));
    if (B->assembled) PetscCall(MatMPIBAIJKSPARSESetUpScatter(B, PETSC_FALSE));
  }
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIBAIJKSPARSE - "mpibaijksparse" - A parallel block sparse (BSR) matrix: `MATMPIBAIJ` whose diagonal and
   off-diagonal parts are `MATSEQBAIJKSPARSE`, so that `MatMult()` can run block-size-specialised GPU kernels on them.

   Options Database Key:
. -mat_type mpibaijksparse - sets the matrix type to `MATMPIBAIJKSPARSE` during a call to `MatSetFromOptions()`

   Level: beginner

   Notes:
   The storage, assembly and every operation are those of `MATMPIBAIJ`; the matrix can be converted to and from
   `MATMPIBAIJ` in place, and `MatConvert()` from `MATMPIAIJ` keeps the block size set on the AIJ matrix.
   `MatMPIBAIJGetSeqBAIJ()` of PETSc accepts only `MATMPIBAIJ`; use `MatGetDiagonalBlock()` for the diagonal part.

   With a CUDA device and device vectors, `MatMult()` starts the ghost scatter into a CUDA vector, multiplies the
   diagonal part on the GPU meanwhile, then adds the off-diagonal part times the ghost values; the transposed
   products go the other way with a reverse scatter. Each rank uses the GPU that PETSc selected for it (rank modulo
   the visible devices, or -device_select). The -mat_baijksparse_* options (see `MATSEQBAIJKSPARSE`) are passed
   to both parts. With Debian's MPICH, which is not CUDA-aware, run with -use_gpu_aware_mpi 0. Without a device, when
   bound to the CPU or with host vectors, `MATMPIBAIJ`'s host products run. `MatView()` with `PETSC_VIEWER_ASCII_INFO`
   prints the block-row statistics summed over all processes and the kernels of rank 0's parts.

.seealso: [](ch_matrices), `Mat`, `MATBAIJKSPARSE`, `MATSEQBAIJKSPARSE`, `MATMPIBAIJ`, `MatCreateBAIJKSPARSE()`
M*/
PetscErrorCode MatCreate_MPIBAIJKSPARSE(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATMPIBAIJ));
  PetscCall(MatConvert_MPIBAIJ_MPIBAIJKSPARSE(A, MATMPIBAIJKSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
