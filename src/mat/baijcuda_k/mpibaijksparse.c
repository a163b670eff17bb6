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
   products run (host kernels on both parts).

   Value operations: MatScale(), MatZeroEntries(), MatShift(), MatDiagonalSet(), MatGetDiagonal(), MatDiagonalScale(),
   MatZeroRows(), MatDuplicate(), MatAXPY() (same or subset pattern) and MatCopy() (same pattern) are those of the parts
   (on the device where the parts live there; the ghost values of MatDiagonalScale() come through our scatter, the rows
   of MatZeroRows() go to their owners first); when a part cannot (a missing diagonal block, a part on the host) every
   process takes MPIBAIJ's host method, which is collective. MatZeroRowsColumns() is MPIBAIJ's. Every other method is MPIBAIJ's, through a generated forwarder that
   first brings the host copies of both parts up to date (MPIBAIJ reaches into its parts' arrays directly) and, unless
   the method only reads, leaves them host-newer. */
#include "baijksparseimpl.h" /*I "petscblockgpu.h" I*/
#include "baijksparse_ghost.h"
#include <petscdevice_cuda.h>

static const char *const MPIForwardedTargets[] = {MATMPIAIJ, MATMPISBAIJ};

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
      P->form_explicit_transpose = A->form_explicit_transpose; /* the parts make the transposed products */
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
  PetscCall(MatBAIJKSPARSEPreallocNoted_Private(B, &k->prealloc, MAT_BAIJKSPARSE_PREALLOC_BAIJ, -1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* set: compose ours; otherwise remove them, and with restore put MPIBAIJ's preallocation back (a conversion back); a
   destroy restores nothing (see MatSeqBAIJKSPARSEComposeFunctions()) */
/* The device view of the local rows: the diagonal part's arrays, and the pattern of the off-diagonal part when it has
   entries (vbjacobi's supervariables compare whole rows) */
static PetscErrorCode MatGetDeviceMatView_MPIBAIJKSPARSE(Mat A, PetscBlockGPUDeviceMatView *v)
{
  Mat                        Ad, Ao;
  PetscBlockGPUDeviceMatView ov;
  MatInfo                    info;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  PetscCheck(Ad, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "%s: the matrix has no local part yet (not preallocated)", MATMPIBAIJKSPARSE);
  PetscCall(MatGetDeviceMatView_SeqBAIJKSPARSE(Ad, v));
  if (v->mtype != PETSC_MEMTYPE_CUDA || !Ao) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetInfo(Ao, MAT_LOCAL, &info));
  if (info.nz_used > 0) {
    PetscCall(MatGetDeviceMatView_SeqBAIJKSPARSE(Ao, &ov));
    if (ov.mtype != PETSC_MEMTYPE_CUDA) { /* a part bound to the CPU on its own: no device view of the whole */
      v->mtype  = PETSC_MEMTYPE_HOST;
      v->rowptr = v->colidx = NULL;
      v->values             = NULL;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    v->o_rowptr = ov.rowptr;
    v->o_colidx = ov.colidx;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatOffProcessRhs_MPIBAIJKSPARSE(Mat, Vec, Vec, Vec, Vec *);

static PetscErrorCode MatMPIBAIJKSPARSEComposeFunctions(Mat B, PetscBool set, PetscBool restore)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)B->spptr;
  char                name[128], base[128];

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIBAIJSetPreallocation_C", set ? MatMPIBAIJSetPreallocation_MPIBAIJKSPARSE : (restore ? k->setpreallocation : NULL)));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIAIJSetPreallocation_C", set && !MatBAIJKSPARSEAIJPreallocationHidden_Private() ? MatMPIAIJSetPreallocation_MPIBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpibaijksparse_mpibaij_C", set ? MatConvert_MPIBAIJKSPARSE_MPIBAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpibaijksparse_mpiaijcusparse_C", set ? MatConvert_MPIBAIJKSPARSE_MPIAIJCUSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", set ? MatSetPreallocationCOO_MPIBAIJKSPARSE : NULL)); /* MPIBAIJ has none */
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", set ? MatSetValuesCOO_MPIBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOOLocal_C", set ? MatSetPreallocationCOOLocal_BAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpiaij_mpibaijksparse_C", set ? MatConvert_Any_BAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_mpibaij_mpibaijksparse_C", set ? MatConvert_Any_BAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, PBG_GET_DEVICE_MAT_VIEW, set ? MatGetDeviceMatView_MPIBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, PBG_OFF_PROCESS_RHS, set ? MatOffProcessRhs_MPIBAIJKSPARSE : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", set ? MatProductSetFromOptions_BAIJKSPARSE : NULL));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(MPIForwardedTargets); i++) {
    PetscErrorCode (*f)(Mat, MatType, MatReuse, Mat *) = NULL;

    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", MATMPIBAIJKSPARSE, MPIForwardedTargets[i]));
    if (set) {
      PetscCall(PetscSNPrintf(base, sizeof(base), "MatConvert_%s_%s_C", MATMPIBAIJ, MPIForwardedTargets[i]));
      PetscCall(PetscObjectQueryFunction((PetscObject)B, base, &f));
    }
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, f ? MatConvert_BAIJKSPARSE_HostForward : NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the subclass's own state (A->spptr and all it holds): the one place for MatDestroy() and the conversion back */
static PetscErrorCode MatMPIBAIJKSPARSEFreePrivate(Mat A)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&k->lvec));
  PetscCall(VecScatterDestroy(&k->Mvctx));
  PetscCall(MatMPIBAIJKSPARSEGhostDestroy_Private(&k->ghost));
  PetscCall(PetscFree(k->garray));
  PetscCall(MatBAIJKSPARSECOODestroy_Private(&k->coo));
  PetscCall(PetscFree(A->spptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIBAIJKSPARSE(Mat A)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscErrorCode (*destroy)(Mat);

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATMPIBAIJKSPARSE);
  destroy = k->host.destroy;
  PetscCall(MatMPIBAIJKSPARSEComposeFunctions(A, PETSC_FALSE, PETSC_FALSE));
  PetscCall(MatMPIBAIJKSPARSEFreePrivate(A));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBAIJ));
  PetscCall((*destroy)(A)); /* destroys the parts through their own (MATSEQBAIJKSPARSE) destroy */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value operations of the parts (each on the device where it lives there) */
static PetscErrorCode MatScale_MPIBAIJKSPARSE(Mat A, PetscScalar a)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  PetscCall(MatScale(Ad, a));
  PetscCall(MatScale(Ao, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatZeroEntries_MPIBAIJKSPARSE(Mat A)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  PetscCall(MatZeroEntries(Ad));
  PetscCall(MatZeroEntries(Ao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCopy_MPIBAIJKSPARSE(Mat A, Mat B, MatStructure str)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           isk;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIBAIJKSPARSE, &isk));
  if (str == SAME_NONZERO_PATTERN && isk) {
    Mat Ad, Ao, Bd, Bo;

    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(B, &Bd, &Bo, NULL));
    PetscCall(MatCopy(Ad, Bd, str));
    PetscCall(MatCopy(Ao, Bo, str));
    PetscCall(PetscObjectStateIncrease((PetscObject)B));
  } else {
    PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    if (isk) PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(B, PETSC_TRUE));
    PetscCall((*k->host.copy)(A, B, str));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X, as the seq type does it (MatAXPY_SeqBAIJKSPARSE): another pattern through a plain MPIBAIJ, converted in place
   and back, since MPIBAIJ merges a new matrix into Y with MatHeaderMerge(), which drops the subclass's private data (the
   next MatMult or MatAssemblyEnd then crashed; MatCopy() with another pattern comes here through MatAYPX()) */
static PetscErrorCode MatAXPY_MPIBAIJKSPARSE(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)Y->spptr;

  PetscBool isk;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATMPIBAIJKSPARSE, &isk));
  if (str == UNKNOWN_NONZERO_PATTERN && isk && X != Y) { /* TS passes it at every step: the same pattern on every rank? */
    Mat             Yd, Yo, Xd, Xo;
    const PetscInt *yg, *xg;
    PetscBool       same = PETSC_FALSE;

    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(Y, &Yd, &Yo, &yg));
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(X, &Xd, &Xo, &xg));
    if (Yd && Xd && Yo && Xo) {
      PetscCall(MatBAIJKSPARSESameBlockPattern_Private(Xd, Yd, &same));
      if (same) PetscCall(MatBAIJKSPARSESameBlockPattern_Private(Xo, Yo, &same));
      if (same && Yo->cmap->n) PetscCall(PetscArraycmp(xg, yg, Yo->cmap->n / Y->rmap->bs, &same)); /* the ghost columns */
    }
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)Y)));
    if (same) str = SAME_NONZERO_PATTERN;
  }
  if (str == SAME_NONZERO_PATTERN && isk) { /* part by part: on the device where both live there */
    Mat Yd, Yo, Xd, Xo;

    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(Y, &Yd, &Yo, NULL));
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(X, &Xd, &Xo, NULL));
    PetscCall(MatAXPY(Yd, a, Xd, str));
    PetscCall(MatAXPY(Yo, a, Xo, str));
    PetscCall(PetscObjectStateIncrease((PetscObject)Y));
  } else if (str == SAME_NONZERO_PATTERN || str == SUBSET_NONZERO_PATTERN) {
    PetscBool dev     = PETSC_FALSE;
    PetscInt *xcolmap = NULL, nxo = 0;
    Mat       Yd = NULL, Yo = NULL, Xd = NULL, Xo = NULL;

    if (str == SUBSET_NONZERO_PATTERN && isk) { /* part by part on the device, X's ghost columns renumbered as Y's */
      const PetscInt *ygarray, *xgarray;
      PetscInt        nyo, bs = Y->rmap->bs;
      PetscBool       local = (PetscBool)(X->rmap->bs == bs && X->rmap->n == Y->rmap->n && X->cmap->n == Y->cmap->n);

      PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(Y, &Yd, &Yo, &ygarray));
      PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(X, &Xd, &Xo, &xgarray));
      local = (PetscBool)(local && Yd && Xd && Yo && Xo);
      if (local) {
        nxo = Xo->cmap->n / bs;
        nyo = Yo->cmap->n / bs;
        PetscCall(PetscMalloc1(nxo, &xcolmap));
        for (PetscInt c = 0; c < nxo && local; c++) { /* garray is sorted */
          PetscCall(PetscFindInt(xgarray[c], nyo, ygarray, &xcolmap[c]));
          if (xcolmap[c] < 0) local = PETSC_FALSE; /* not a subset: MPIBAIJ's host method */
        }
      }
      PetscCall(MatMPIBAIJKSPARSEValuesOnDevice_Private(Y, local, &dev));
      if (dev) PetscCall(MatMPIBAIJKSPARSEValuesOnDevice_Private(X, PETSC_TRUE, &dev));
    }
    if (dev) {
      PetscCall(MatAXPY(Yd, a, Xd, str));
      if (nxo) PetscCall(MatSeqBAIJKSPARSEAXPYSubset_Private(Yo, a, Xo, xcolmap, nxo));
      PetscCall(PetscObjectStateIncrease((PetscObject)Y));
    } else {
      PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(Y, PETSC_TRUE));
      if (isk && X != Y) PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(X, PETSC_FALSE));
      PetscCall((*k->host.axpy)(Y, a, X, str));
    }
    PetscCall(PetscFree(xcolmap));
  } else {
    PetscCall(MatConvert_MPIBAIJKSPARSE_MPIBAIJ(Y, MATMPIBAIJ, MAT_INPLACE_MATRIX, &Y));
    PetscCall(MatAXPY(Y, a, X, str));
    PetscCall(MatConvert_MPIBAIJ_MPIBAIJKSPARSE(Y, MATMPIBAIJKSPARSE, MAT_INPLACE_MATRIX, &Y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A + a I: the diagonal part's diagonal on the device; else MPIBAIJ's (which inserts missing diagonal entries) */
static PetscErrorCode MatShift_MPIBAIJKSPARSE(Mat A, PetscScalar a)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad;
  PetscBool           dev;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDiagonalOnDevice_Private(A, &dev));
  if (dev) {
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, NULL, NULL));
    PetscCall(MatShift(Ad, a));
  } else {
    PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.shift)(A, a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIBAIJ has no MatDiagonalSet() of its own: PETSc's default (MatSetValues(), assembly) when not on the device */
static PetscErrorCode MatDiagonalSet_MPIBAIJKSPARSE(Mat A, Vec D, InsertMode is)
{
  Mat       Ad;
  PetscBool dev;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDiagonalOnDevice_Private(A, &dev));
  if (dev) {
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, NULL, NULL));
    PetscUseTypeMethod(Ad, diagonalset, D, is); /* the local entries of D */
  } else PetscCall(MatBAIJKSPARSEDiagonalSetDefault_Private(A, D, is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal part's diagonal (its own method picks the device or the host); other layouts: MPIBAIJ's */
static PetscErrorCode MatGetDiagonal_MPIBAIJKSPARSE(Mat A, Vec v)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad;
  PetscBool           cong, isk = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatHasCongruentLayouts(A, &cong));
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, NULL, NULL));
  if (cong && Ad) PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQBAIJKSPARSE, &isk));
  if (isk) PetscUseTypeMethod(Ad, getdiagonal, v);
  else {
    PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
    PetscCall((*k->host.getdiagonal)(A, v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIBAIJKSPARSESetUpScatter(Mat, PetscBool);

/* diag(l) A diag(r), as MPIBAIJ does it but on the device: the ghost values of r go into our lvec while the diagonal part
   is scaled; the off-diagonal part is then scaled by l and the ghost values in one pass */
static PetscErrorCode MatDiagonalScale_MPIBAIJKSPARSE(Mat A, Vec l, Vec r)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad, Ao;
  PetscBool           dev;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &dev));
  if (dev) PetscCall(MatMPIBAIJKSPARSESetUpScatter(A, PETSC_FALSE));
  PetscCall(MatMPIBAIJKSPARSEValuesOnDevice_Private(A, (PetscBool)(dev && (k->Mvctx || !r)), &dev));
  if (!dev) {
    PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.diagonalscale)(A, l, r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  if (r) PetscCall(VecScatterBegin(k->Mvctx, r, k->lvec, INSERT_VALUES, SCATTER_FORWARD)); /* on every rank, as in MatMult() */
  PetscUseTypeMethod(Ad, diagonalscale, l, r);
  if (r) PetscCall(VecScatterEnd(k->Mvctx, r, k->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (Ao && Ao->cmap->n && (l || (r && k->nghost))) PetscUseTypeMethod(Ao, diagonalscale, l, (r && k->nghost) ? k->lvec : NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Global rows (any process may name any row) routed to their owners, then zeroed in both parts on the device, the
   pattern kept (MATSEQBAIJKSPARSE's policy), diag in the diagonal part; b = diag x on the local zeroed rows. A diagonal
   value with other layouts or a missing diagonal block: MPIBAIJ's (it inserts) */
static PetscErrorCode MatZeroRows_MPIBAIJKSPARSE(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 Ad, Ao;
  PetscBool           dev = PETSC_TRUE;
  PetscInt            len, *lrows;

  PetscFunctionBegin;
  if (diag != (PetscScalar)0.0) PetscCall(MatMPIBAIJKSPARSEDiagonalOnDevice_Private(A, &dev));
  if (dev) PetscCall(MatMPIBAIJKSPARSEValuesOnDevice_Private(A, PETSC_TRUE, &dev));
  if (!dev) {
    PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    PetscCall((*k->host.zerorows)(A, N, rows, diag, x, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < N; i++) PetscCheck(rows[i] >= 0 && rows[i] < A->rmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: row %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", MATMPIBAIJKSPARSE, rows[i], A->rmap->N);
  PetscCall(PetscLayoutMapLocal(A->rmap, N, rows, &len, &lrows, NULL));
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  if (Ao && Ao->cmap->n) PetscUseTypeMethod(Ao, zerorows, len, lrows, 0.0, NULL, NULL);
  PetscUseTypeMethod(Ad, zerorows, len, lrows, diag, x, b); /* x, b: their local entries */
  PetscCall(PetscFree(lrows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIBAIJ duplicates the parts with MatDuplicate(), which is ours (MatDuplicate_SeqBAIJKSPARSE): device values are copied
   on the device, so no host copy of the parts is brought up to date first. The parts keep their patterns (and Ao its
   compressed columns), so the COO maps are shared */
static PetscErrorCode MatDuplicate_MPIBAIJKSPARSE(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*k->host.duplicate)(A, op, M));
  PetscCall(MatBAIJKSPARSECOODuplicate_Private(k->coo, &((Mat_MPIBAIJKSPARSE *)(*M)->spptr)->coo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_baijksparse_ghost_exchange from the database, once, when MatSetFromOptions() did not set it: read at the final
   assembly and conversion on every path (MatMPIBAIJKSPARSECheckOptions_Private(): an unknown value is refused on host
   runs too) and by the device products */
static PetscErrorCode ReadGhostExchange(Mat A)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscEnum           e = (PetscEnum)k->ghost_want;

  PetscFunctionBegin;
  if (k->ghost_set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsGetEnum(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_baijksparse_ghost_exchange", MatBAIJKSPARSEGhostExchanges, &e, NULL));
  k->ghost_want = (MatBAIJKSPARSEGhostExchange)e;
  k->ghost_set  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of an assembled A checked on every path: its parts' kernel choices and the ghost exchange */
PetscErrorCode MatMPIBAIJKSPARSECheckOptions_Private(Mat A)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, NULL));
  if (Ad) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(Ad));
  if (Ao) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(Ao));
  PetscCall(ReadGhostExchange(A));
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
  if (check) { /* the scatter is built collectively: every rank takes part in the decision, whatever it found itself */
    if (!rebuild) rebuild = (PetscBool)(nghost != k->nghost || A->nonzerostate != k->nzstate);
    if (!rebuild && nghost) {
      PetscCall(PetscArraycmp(garray, k->garray, nghost, &use));
      rebuild = (PetscBool)!use;
    }
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &rebuild, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  }
  if (!rebuild) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDestroy(&k->lvec));
  PetscCall(VecScatterDestroy(&k->Mvctx));
  PetscCall(MatMPIBAIJKSPARSEGhostDestroy_Private(&k->ghost));
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
  /* the engine: the VecScatter above stays as the fallback (and the host path's); NCCL's plan for the same ghosts */
  PetscCall(ReadGhostExchange(A));
  PetscCall(MatMPIBAIJKSPARSEGhostSetUp_Private(A, bs, k->ghost_want, nghost, k->garray, &k->ghost, k->ghost_why, sizeof(k->ghost_why)));
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

/* A's parts and ghost exchange, for the shared device products of baijksparse_ghost.c */
static PetscErrorCode GhostParts(Mat A, MatBAIJKSPARSEGhostParts *g)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  g->A = A;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &g->Ad, &g->Ao, NULL));
  g->nghost = k->nghost;
  g->lvec   = k->lvec;
  g->plan   = k->ghost;
  g->sf     = k->Mvctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x + y (y NULL: z = A x): the ghost exchange overlaps the product of the diagonal part */
static PetscErrorCode MatMultAdd_MPIBAIJKSPARSE_Device(Mat A, Vec x, Vec y, Vec z)
{
  MatBAIJKSPARSEGhostParts g;

  PetscFunctionBegin;
  PetscCall(GhostParts(A, &g));
  PetscCall(MatBAIJKSPARSEGhostMultAdd_Private(&g, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The right-hand side b - A_o x, A_o the off-process columns (PBG_OFF_PROCESS_RHS): with the diagonal part of the device
   view it makes the residual b - A x that a fused smoother forms a block row at a time. *rhs is t, where the ghosts
   (negated: a short vector) times A_o with b added were written; b itself on a process with no ghosts (the exchange
   still runs: others may need its values); NULL (nothing exchanged, on every rank alike: the vector types decide) where
   the products of A run on the host. */
static PetscErrorCode MatOffProcessRhs_MPIBAIJKSPARSE(Mat A, Vec b, Vec x, Vec t, Vec *rhs)
{
  MatBAIJKSPARSEGhostParts g;
  PetscBool                use;

  PetscFunctionBegin;
  *rhs = NULL;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, t, &use));
  if (!use) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GhostParts(A, &g));
  PetscCall(MatBAIJKSPARSEGhostsBegin_Private(&g, x));
  PetscCall(MatBAIJKSPARSEGhostsEnd_Private(&g, x));
  *rhs = b;
  if (!g.nghost) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecScale(g.lvec, -1.0));
  PetscUseTypeMethod(g.Ao, multadd, g.lvec, b, t);
  *rhs = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A^T x + y (y NULL: z = A^T x) */
static PetscErrorCode MatMultTransposeAdd_MPIBAIJKSPARSE_Device(Mat A, Vec x, Vec y, Vec z)
{
  MatBAIJKSPARSEGhostParts g;

  PetscFunctionBegin;
  PetscCall(GhostParts(A, &g));
  PetscCall(MatBAIJKSPARSEGhostMultTransposeAdd_Private(&g, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIBAIJKSPARSE(Mat A, Vec x, Vec y)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, y, &use));
  if (use) PetscCall(MatMultAdd_MPIBAIJKSPARSE_Device(A, x, NULL, y));
  else PetscCall((*k->host.mult)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIBAIJKSPARSE(Mat A, Vec x, Vec y, Vec z)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, z, &use));
  if (use) PetscCall(MatMultAdd_MPIBAIJKSPARSE_Device(A, x, y, z));
  else PetscCall((*k->host.multadd)(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_MPIBAIJKSPARSE(Mat A, Vec x, Vec y)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, y, &use));
  if (use) PetscCall(MatMultTransposeAdd_MPIBAIJKSPARSE_Device(A, x, NULL, y));
  else PetscCall((*k->host.multtranspose)(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_MPIBAIJKSPARSE(Mat A, Vec x, Vec y, Vec z)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEDevicePath(A, x, z, &use));
  if (use) PetscCall(MatMultTransposeAdd_MPIBAIJKSPARSE_Device(A, x, y, z));
  else PetscCall((*k->host.multtransposeadd)(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIBAIJKSPARSE(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  if (k->host.setfromoptions) PetscCall((*k->host.setfromoptions)(A, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "MATMPIBAIJKSPARSE options");
  PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, PetscOptionsObject, &k->opts));
  {
    PetscEnum e = (PetscEnum)k->ghost_want;
    PetscBool flg;

    PetscCall(PetscOptionsEnum("-mat_baijksparse_ghost_exchange", "Ghost exchange of the device products: auto (NCCL when every rank has a GPU of its own and libnccl.so.2 loads, else sf), nccl, or sf (PETSc's VecScatter)", "MATMPIBAIJKSPARSE", MatBAIJKSPARSEGhostExchanges, e, &e, &flg));
    if (flg) {
      /* another engine than the one built with the scatter: the next device product builds both again */
      if ((MatBAIJKSPARSEGhostExchange)e != k->ghost_want) PetscCall(VecScatterDestroy(&k->Mvctx));
      k->ghost_want = (MatBAIJKSPARSEGhostExchange)e;
      k->ghost_set  = PETSC_TRUE;
    }
  }
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
  { /* when every rank changed values on the device only (no MatSetValues(): nothing stashed, nothing to disassemble),
       MPIBAIJ's assembly reads no values and each part keeps its device copy (MatAssemblyEnd_SeqBAIJKSPARSE()) */
    Mat       parts[2];
    PetscBool current = PETSC_TRUE, isk;

    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &parts[0], &parts[1], NULL));
    for (PetscInt i = 0; i < 2; i++) {
      if (!parts[i]) continue;
      PetscCall(PetscObjectTypeCompare((PetscObject)parts[i], MATSEQBAIJKSPARSE, &isk));
      current = (PetscBool)(current && isk && MatSeqBAIJKSPARSEDeviceCurrent_Private(parts[i]));
    }
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &current, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
    if (!current) PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
  }
  PetscCall((*k->host.assemblyend)(A, mode));
  PetscCall(MatMPIBAIJKSPARSEConvertParts(A, PETSC_TRUE)); /* parts made by MatSetUp()'s hash-based assembly */
  if (mode == MAT_FINAL_ASSEMBLY) {
    /* parts converted just now were assembled as MATSEQBAIJ: check their kernel choice here, on every path */
    PetscCall(MatMPIBAIJKSPARSECheckOptions_Private(A));
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
    PetscBool           isk, gpu;

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
    PetscCall(MatBAIJKSPARSEPreallocView_Private(A, &k->prealloc, viewer));
    /* the kernels of rank 0's parts (each rank chooses from its own rows) */
    PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQBAIJKSPARSE, &isk));
    if (isk) PetscCall(MatSeqBAIJKSPARSEViewKernel_Private(Ad, viewer, "diagonal part: ", &gpu));
    if (isk && gpu) PetscCall(MatSeqBAIJKSPARSETransposeView_Private(Ad, viewer, "diagonal part: "));
    PetscCall(PetscObjectTypeCompare((PetscObject)Ao, MATSEQBAIJKSPARSE, &isk));
    if (isk) PetscCall(MatSeqBAIJKSPARSEViewKernel_Private(Ao, viewer, "off-diagonal part: ", &gpu));
    if (isk && gpu) PetscCall(MatSeqBAIJKSPARSETransposeView_Private(Ao, viewer, "off-diagonal part: "));
    PetscCall(MatBAIJKSPARSECOOView_Private(k->coo, viewer));
    if (k->Mvctx) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: ghost values: %" PetscInt_FMT " block columns on rank 0, into a CUDA vector while the diagonal part multiplies; ", k->nghost));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
      PetscCall(MatMPIBAIJKSPARSEGhostView_Private(k->ghost, k->ghost_why, viewer));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    }
  }
  PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  k->viewing = PETSC_TRUE;
  PetscCall((*k->host.view)(A, viewer));
  k->viewing = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The forwarders: MPIBAIJ's method `name`, after the host copies of the parts are brought up to date */
#define PBG_MPI_FORWARDER(name, params, args, M) PBG_DEFINE_FORWARDER(Mat_MPIBAIJKSPARSE, MatMPIBAIJKSPARSEHostAccess_Private, MPIHost_, name, params, args, M)
PBG_MATOPS(PBG_MPI_FORWARDER)
#undef PBG_MPI_FORWARDER

/* MPIBAIJ ignores MAT_FORM_EXPLICIT_TRANSPOSE; the parts' transposed products read it (baijksparse_transpose.c) */
static PetscErrorCode MatSetOption_MPIBAIJKSPARSE(Mat A, MatOption op, PetscBool flg)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  if (k->host.setoption) PetscCall((*k->host.setoption)(A, op, flg));
  if (op == MAT_FORM_EXPLICIT_TRANSPOSE) {
    Mat parts[2];

    A->form_explicit_transpose = flg;
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &parts[0], &parts[1], NULL));
    for (PetscInt i = 0; i < 2; i++)
      if (parts[i]) parts[i]->form_explicit_transpose = flg;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatTranspose(). MPIBAIJ's refills a reused transpose through MatSetValues_MPIBAIJ() into the assembled matrix, which
   gave wrong values on several ranks (max |A^T - T| about 1 at bs 3; PETSc's MPIBAIJ does the same) and crashed at
   bs 33 on 3 ranks. A new transpose is always made (MPIBAIJ's MAT_INITIAL_MATRIX, which is right), and a reused one
   gets its values by MatCopy() with the same pattern, checked as MPIBAIJ checks it: A's nonzero pattern unchanged
   (MatTranspose() has already checked that *B was made from A and holds its "MatTransposeParent" record). */
static PetscErrorCode MatTranspose_MPIBAIJKSPARSE(Mat A, MatReuse reuse, Mat *B)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  Mat                 T;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    MatState *rb = NULL;

    PetscCall(PetscObjectContainerQuery((PetscObject)*B, "MatTransposeParent", (void **)&rb));
    PetscCheck(rb->nonzerostate == A->nonzerostate, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "MatTranspose() with MAT_REUSE_MATRIX: the nonzero pattern of the %s matrix changed since its transpose was made; use MAT_INITIAL_MATRIX", MATMPIBAIJKSPARSE);
  }
  PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  PetscCall((*k->host.transpose)(A, MAT_INITIAL_MATRIX, &T));
  if (reuse == MAT_INITIAL_MATRIX) *B = T;
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(T, *B, SAME_NONZERO_PATTERN));
    PetscCall(MatDestroy(&T));
  } else PetscCall(MatHeaderReplace(A, &T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetUp() without a preallocation: MPIBAIJ's hash-based assembly, noted for -mat_view */
static PetscErrorCode MatSetUp_MPIBAIJKSPARSE(Mat A)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  PetscCall((*k->host.setup)(A));
  if (A->hash_active) PetscCall(MatBAIJKSPARSEPreallocNoted_Private(A, &k->prealloc, MAT_BAIJKSPARSE_PREALLOC_HASH, -1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static struct _MatOps MPIOurs;
/* Before BAIJ's insertion: the host copies of the parts current, once an insertion phase. Programs written for AIJ call
   MatSetValues() an entry at a time (ksp ex2: 10M calls a rank), and finding the parts costs four type-name compares.
   The object state moves at every MatAssemblyEnd() and every value change through the interface, and PETSc refuses
   products and value operations on an unassembled matrix: while the state is the one recorded at the phase's first
   insertion and the matrix is unassembled, no device copy can have become newer since. */
static PetscErrorCode InsertionAccess(Mat A)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;

  PetscFunctionBegin;
  if (A->assembled || !k->inserting || k->inserting_state != ((PetscObject)A)->state) {
    PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_TRUE));
    k->inserting       = (PetscBool)!A->assembled;
    k->inserting_state = ((PetscObject)A)->state;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValues_MPIBAIJKSPARSE(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode addv)
{
  PetscFunctionBegin;
  PetscCall(InsertionAccess(A));
  PetscCall((*((Mat_MPIBAIJKSPARSE *)A->spptr)->host.setvalues)(A, m, im, n, in, v, addv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesBlocked_MPIBAIJKSPARSE(Mat A, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode addv)
{
  PetscFunctionBegin;
  PetscCall(InsertionAccess(A));
  PetscCall((*((Mat_MPIBAIJKSPARSE *)A->spptr)->host.setvaluesblocked)(A, m, im, n, in, v, addv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIOursInitialize(void)
{
  static PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  MPIOurs.destroy                     = MatDestroy_MPIBAIJKSPARSE;
  MPIOurs.setvalues                   = MatSetValues_MPIBAIJKSPARSE;
  MPIOurs.setvaluesblocked            = MatSetValuesBlocked_MPIBAIJKSPARSE;
  MPIOurs.axpy                        = MatAXPY_MPIBAIJKSPARSE;
  MPIOurs.view                        = MatView_MPIBAIJKSPARSE;
  MPIOurs.assemblyend                 = MatAssemblyEnd_MPIBAIJKSPARSE;
  MPIOurs.convertfrom                 = MatConvert_Any_BAIJKSPARSE;
  MPIOurs.creategraph                 = MatCreateGraph_BAIJKSPARSE;
  MPIOurs.productsetfromoptions       = MatProductSetFromOptions_BAIJKSPARSE;
  MPIOurs.mult                        = MatMult_MPIBAIJKSPARSE;
  MPIOurs.multadd                     = MatMultAdd_MPIBAIJKSPARSE;
  MPIOurs.multtranspose               = MatMultTranspose_MPIBAIJKSPARSE;
  MPIOurs.multtransposeadd            = MatMultTransposeAdd_MPIBAIJKSPARSE;
  MPIOurs.setfromoptions              = MatSetFromOptions_MPIBAIJKSPARSE;
  MPIOurs.setoption                   = MatSetOption_MPIBAIJKSPARSE;
  MPIOurs.bindtocpu                   = MatBindToCPU_MPIBAIJKSPARSE;
  MPIOurs.scale                       = MatScale_MPIBAIJKSPARSE;
  MPIOurs.zeroentries                 = MatZeroEntries_MPIBAIJKSPARSE;
  MPIOurs.copy                        = MatCopy_MPIBAIJKSPARSE;
  MPIOurs.shift                       = MatShift_MPIBAIJKSPARSE;
  MPIOurs.diagonalset                 = MatDiagonalSet_MPIBAIJKSPARSE;
  MPIOurs.getdiagonal                 = MatGetDiagonal_MPIBAIJKSPARSE;
  MPIOurs.diagonalscale               = MatDiagonalScale_MPIBAIJKSPARSE;
  MPIOurs.zerorows                    = MatZeroRows_MPIBAIJKSPARSE;
  MPIOurs.duplicate                   = MatDuplicate_MPIBAIJKSPARSE;
  MPIOurs.getblockdiagonal            = MatGetBlockDiagonal_BAIJKSPARSE;
  MPIOurs.invertblockdiagonal         = MatInvertBlockDiagonal_MPIBAIJKSPARSE;
  MPIOurs.invertvariableblockdiagonal = MatInvertVariableBlockDiagonal_MPIBAIJKSPARSE;
  MPIOurs.createsubmatrix             = MatCreateSubMatrix_MPIBAIJKSPARSE;
  MPIOurs.createsubmatrices           = MatCreateSubMatrices_MPIBAIJKSPARSE;
  MPIOurs.transpose                   = MatTranspose_MPIBAIJKSPARSE;
  MPIOurs.setup                       = MatSetUp_MPIBAIJKSPARSE;
  done                                = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIBAIJ's methods into k->host, ours or the forwarders in their place (see MatSeqBAIJKSPARSEInstallOps()) */
static PetscErrorCode MatMPIBAIJKSPARSEInstallOps(Mat B)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)B->spptr;

  PetscFunctionBegin;
  PetscCall(MPIOursInitialize());
#define PBG_INSTALL(name, params, args, M) PBG_INSTALL_METHOD(B, k, MPIOurs, MPIHost_, name)
  PBG_MATOPS(PBG_INSTALL)
#undef PBG_INSTALL
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIBAIJKSPARSE_MPIBAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B;
  Mat_MPIBAIJKSPARSE *k;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEConvertStart_Private(A, MATMPIBAIJ, MATMPIBAIJKSPARSE, PETSC_FALSE, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!B->hash_active, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert a matrix during hash-based assembly; assemble it first");
  k = (Mat_MPIBAIJKSPARSE *)B->spptr;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATMPIBAIJKSPARSE);
  PetscCall(MatMPIBAIJKSPARSEConvertParts(B, PETSC_FALSE));
  PetscCall(MatMPIBAIJKSPARSEComposeFunctions(B, PETSC_FALSE, PETSC_TRUE)); /* puts MPIBAIJ's preallocation back */
  *B->ops = k->host;
  PetscCall(MatMPIBAIJKSPARSEFreePrivate(B));
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIBAIJ));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIBAIJ_MPIBAIJKSPARSE(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                 B;
  Mat_MPIBAIJKSPARSE *k;
  PetscBool           flg, avail;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEConvertStart_Private(A, MATMPIBAIJ, MATMPIBAIJKSPARSE, PETSC_TRUE, reuse, newmat, &B));
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIBAIJKSPARSE, &flg));
  if (!flg) {
    PetscCheck(!B->hash_active, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Cannot convert a matrix during hash-based assembly; assemble it first");
    PetscCheck(!B->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Mat->spptr of the %s matrix is already in use", ((PetscObject)B)->type_name);
    PetscCall(PetscNew(&k));
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatMPIBAIJSetPreallocation_C", &k->setpreallocation));
    PetscCheck(k->setpreallocation, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without MatMPIBAIJSetPreallocation_C", MATMPIBAIJ);
    k->host         = *B->ops;
    k->opts.kernel  = MAT_BAIJKSPARSE_KERNEL_AUTO;
    k->opts.balance = MAT_BAIJKSPARSE_BALANCE_AUTO;
    B->spptr        = k;
    PetscCall(PetscBlockGPUDeviceAvailable(&avail));
    if (avail) { /* a device: vectors from MatCreateVecs() live there, and the matrix is not bound to the CPU */
      PetscCall(PetscFree(B->defaultvectype));
      PetscCall(PetscStrallocpy(VECCUDA, &B->defaultvectype));
      B->boundtocpu = PETSC_FALSE;
    }

    PetscCall(MatMPIBAIJKSPARSEConvertParts(B, PETSC_TRUE)); /* the parts of a preallocated matrix */
    PetscCall(MatMPIBAIJKSPARSEInstallOps(B));
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
  PetscBool rect;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSERectangularBlocks_Private(A, MATMPIAIJCUSPARSE, MATMPIAIJ, &rect));
  if (rect) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSetType(A, MATMPIBAIJ));
  PetscCall(MatConvert_MPIBAIJ_MPIBAIJKSPARSE(A, MATMPIBAIJKSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
