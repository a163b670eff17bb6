/* The explicit transpose of MATSEQBAIJKSPARSE for MatMultTranspose() on the GPU (-mat_baijksparse_transpose).

   The atomic kernel adds A_ij^T x_i into y with atomicAdd: no extra memory, but every entry of A is an atomic on y, and a
   restriction (the transpose of a multigrid interpolation, many fine rows onto each coarse entry) contends on the same
   addresses. The explicit copy is A^T in BSR on the device, multiplied by the kernels of MatMult() with a kernel choice
   of its own: its pattern and the source block of each of its blocks are made on the host once per pattern of A (a
   counting sort by block column: each row of A^T lists A's block rows in ascending order, so the product is
   deterministic), its values gathered on the device from A's device copy after each change of A's values. It costs the
   memory of A's values and indices again. */
#include "baijksparse_device.h"
#include <petscdevice_cuda.h>

struct _n_MatBAIJKSPARSEExplicitT {
  MatBAIJKSPARSEDevice *dev;        /* A^T: rowptr, colidx, val, the kernel choice and segments */
  int                  *perm;       /* [nz] block of A that block p of A^T comes from (device) */
  size_t                cap_perm;   /* allocated length of perm */
  PetscObjectState      nzstate;    /* the pattern of A's device copy when the pattern of A^T was made */
  PetscObjectState      state;      /* A's object state when the values were gathered */
  PetscBool             pattern_ok; /* the pattern matches nzstate */
  PetscBool             values_ok;  /* the values match state */
  PetscInt              npatterns, ngathers, nexplicit, natomic;
};

PetscErrorCode MatBAIJKSPARSEExplicitTDestroy_Private(MatBAIJKSPARSEExplicitT *pt)
{
  MatBAIJKSPARSEExplicitT t = *pt;

  PetscFunctionBegin;
  if (!t) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqBAIJKSPARSEDeviceDestroy_Private(&t->dev));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(t->perm));
  PetscCall(PetscFree(*pt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pattern of A^T from A's host pattern (BAIJ's block CSR), uploaded, with its kernel choice */
static PetscErrorCode BuildPattern(Mat A, MatBAIJKSPARSEExplicitT t)
{
  Mat_SeqBAIJKSPARSE   *k  = (Mat_SeqBAIJKSPARSE *)A->spptr;
  const PetscInt        bs = A->rmap->bs;
  MatBAIJKSPARSEDevice *d;
  const PetscInt       *ia, *ja;
  PetscInt              mbs, nbs = A->cmap->n / bs, nz, *tia, *next, *tja, *perm;
  PetscBool             done;
  cudaStream_t          stream;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  nz = mbs ? ia[mbs] : 0;
  PetscCall(PetscCalloc2(nbs + 1, &tia, nbs + 1, &next));
  PetscCall(PetscMalloc2(PetscMax(nz, 1), &tja, PetscMax(nz, 1), &perm));
  for (PetscInt q = 0; q < nz; q++) tia[ja[q] + 1]++;
  for (PetscInt c = 0; c < nbs; c++) tia[c + 1] += tia[c];
  for (PetscInt c = 0; c < nbs; c++) next[c] = tia[c];
  for (PetscInt r = 0; r < mbs; r++) /* rows ascending: each row of A^T comes out sorted */
    for (PetscInt q = ia[r]; q < ia[r + 1]; q++) {
      const PetscInt p = next[ja[q]]++;

      tja[p]  = r;
      perm[p] = q;
    }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));

  if (!t->dev) PetscCall(PetscNew(&t->dev));
  d = t->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatBAIJKSPARSEDeviceReserve_Private(d, nbs, nz, bs));
  PetscCall(MatBAIJKSPARSEDeviceRealloc_Private((void **)&t->perm, &t->cap_perm, (size_t)nz, sizeof(int)));
  /* PetscInt is int here (pbgimpl.h refuses 64-bit indices): plain copies */
  PetscCall(MatBAIJKSPARSEUpload_Private(d->rowptr, tia, ((size_t)nbs + 1) * sizeof(int), stream));
  if (nz) {
    PetscCall(MatBAIJKSPARSEUpload_Private(d->colidx, tja, (size_t)nz * sizeof(int), stream));
    PetscCall(MatBAIJKSPARSEUpload_Private(t->perm, perm, (size_t)nz * sizeof(int), stream));
  }
  d->bs           = (int)bs;
  d->mbs          = (int)nbs;
  d->nbs          = (int)mbs;
  d->nz           = (int)nz;
  d->choice_valid = PETSC_FALSE;
  PetscCall(MatSeqBAIJKSPARSEPrepareDevice_Private(A, d, nbs, tia));
  PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream)); /* before the host arrays go */
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)((2 * (size_t)nz + nbs + 1) * sizeof(int))));
  PetscCall(PetscFree2(tia, next));
  PetscCall(PetscFree2(tja, perm));
  t->nzstate    = k->dev->nzstate;
  t->pattern_ok = PETSC_TRUE;
  t->values_ok  = PETSC_FALSE;
  t->npatterns++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AUTO follows MatSetOption(MAT_FORM_EXPLICIT_TRANSPOSE), as PETSc's MATAIJCUSPARSE does */
static MatBAIJKSPARSETranspose TransposeMode(Mat A)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;

  if (k->opts.transpose != MAT_BAIJKSPARSE_TRANSPOSE_AUTO) return k->opts.transpose;
  return A->form_explicit_transpose ? MAT_BAIJKSPARSE_TRANSPOSE_EXPLICIT : MAT_BAIJKSPARSE_TRANSPOSE_ATOMIC;
}

PetscErrorCode MatSeqBAIJKSPARSETransposeGet_Private(Mat A, MatBAIJKSPARSEDevice **dt)
{
  Mat_SeqBAIJKSPARSE     *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSETranspose mode;
  MatBAIJKSPARSEExplicitT t;
  PetscObjectState        state;

  PetscFunctionBegin;
  *dt  = NULL;
  mode = TransposeMode(A);
  if (!k->trans) PetscCall(PetscNew(&k->trans));
  t = k->trans;
  if (mode == MAT_BAIJKSPARSE_TRANSPOSE_ATOMIC) {
    t->natomic++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (t->pattern_ok && t->nzstate != k->dev->nzstate) t->pattern_ok = PETSC_FALSE;
  if (t->values_ok && t->state != state) t->values_ok = PETSC_FALSE;
  if (!t->pattern_ok || !t->values_ok) {
    cudaStream_t stream;

    PetscCall(PetscLogEventBegin(PBG_BAIJKTranspose, A, 0, 0, 0));
    if (!t->pattern_ok) PetscCall(BuildPattern(A, t));
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatBAIJKSPARSETransposeBlocks_CUDA(t->dev->bs, t->dev->nz, t->perm, k->dev->val, t->dev->val, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(PBG_BAIJKTranspose, A, 0, 0, 0));
    t->state     = state;
    t->values_ok = PETSC_TRUE;
    t->ngathers++;
  }
  t->nexplicit++;
  *dt = t->dev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The -mat_view ::ascii_info line: the mode, and what the transposed products have used so far */
PetscErrorCode MatSeqBAIJKSPARSETransposeView_Private(Mat A, PetscViewer viewer, const char *what)
{
  Mat_SeqBAIJKSPARSE     *k    = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEExplicitT t    = k->trans;
  MatBAIJKSPARSETranspose mode = TransposeMode(A);

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %sMatMultTranspose: %s%s", what, mode == MAT_BAIJKSPARSE_TRANSPOSE_ATOMIC ? "atomic kernel" : "explicit transpose on the GPU", k->opts.transpose == MAT_BAIJKSPARSE_TRANSPOSE_AUTO ? (A->form_explicit_transpose ? " (auto: MAT_FORM_EXPLICIT_TRANSPOSE set)" : " (auto)") : ""));
  if (t) {
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
    PetscCall(PetscViewerASCIIPrintf(viewer, "; products so far: %" PetscInt_FMT " atomic, %" PetscInt_FMT " explicit (transpose patterns made %" PetscInt_FMT ", values gathered %" PetscInt_FMT ")", t->natomic, t->nexplicit, t->npatterns, t->ngathers));
    if (t->dev && t->pattern_ok) PetscCall(PetscViewerASCIIPrintf(viewer, "; kernel of the transpose %s", MatBAIJKSPARSEKernels[t->dev->params.kernel]));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
