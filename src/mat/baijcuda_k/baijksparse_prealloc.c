/* Preallocation of baijksparse from AIJ row counts (issue 38).

   Programs written for AIJ preallocate with MatSeqAIJSetPreallocation() / MatMPIAIJSetPreallocation() only, which
   PETSc's BAIJ ignores: it then assembles through MatSetUp()'s hash table (two hash insertions per scalar entry and a
   second pass into BAIJ), ten times slower than AIJ on ksp ex56. Our types accept the AIJ calls and turn each block
   row's scalar counts into a block count:

     blocks of block row I = min(block columns of the part, ceil(max over the rows i of I of nnz[i] / bs))

   This is exact when every row's entries lie in whole dense bs x bs blocks (a finite-element matrix with a block size,
   a DMDA with dof = bs): such a row has nnz[i] = bs x (its blocks). It reserves no more than AIJ would for the same
   counts (8 bytes a scalar against AIJ's 12), so the memory is that of the assembled matrix when the counts are exact.
   It is a lower bound otherwise (a row whose entries are scattered over more blocks than nnz[i] / bs): such a row
   grows as BAIJ grows a row without room (a reallocation, counted as a malloc in -mat_view and MatGetInfo()), and
   MAT_NEW_NONZERO_ALLOCATION_ERR is left off after the AIJ call, so an entry the AIJ counts allowed never fails.
   Block counts (MatSeqBAIJSetPreallocation(), MatXAIJSetPreallocation(), a DM) are exact and win: AIJ counts given
   after them are ignored. */
#include "baijksparseimpl.h"

/* DMDA picks its preallocation routine by the functions the matrix has: with MatSeqAIJSetPreallocation_C it takes the
   scalar (AIJ) route, which for one rank in 1-D writes Mat_SeqAIJ fields directly (MatSeqAIJSetTotalPreallocation()).
   src/dm/da hides ours while a DMDA makes its matrix, so that the DMDA keeps its BAIJ route, and composes them after. */
static PetscBool AIJPreallocationHidden = PETSC_FALSE;

PetscBool MatBAIJKSPARSEAIJPreallocationHidden_Private(void)
{
  return AIJPreallocationHidden;
}

PetscErrorCode MatBAIJKSPARSEHideAIJPreallocation_Private(PetscBool hide)
{
  PetscFunctionBegin;
  AIJPreallocationHidden = hide;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Composes the AIJ preallocation of a baijksparse matrix made while it was hidden (any other matrix: nothing) */
PetscErrorCode MatBAIJKSPARSEComposeAIJPreallocation_Private(Mat A)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &mpi));
  if (seq) PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSeqAIJSetPreallocation_C", MatSeqAIJSetPreallocation_SeqBAIJKSPARSE));
  if (mpi) PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", MatMPIAIJSetPreallocation_MPIBAIJKSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ's checks of one part's counts (at most rowlength: AIJ's off-diagonal part has the global number of columns, so
   MPIAIJ lets o_nnz reach it); made before anything is allocated, so that a refusal leaks nothing */
static PetscErrorCode CheckCounts(Mat B, const char *part, PetscInt rowlength, PetscInt nz, const PetscInt nnz[])
{
  PetscFunctionBegin;
  if (nz != PETSC_DEFAULT && nz != PETSC_DECIDE && nz != MAT_SKIP_ALLOCATION) PetscCheck(nz >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%snz cannot be less than 0: value %" PetscInt_FMT, part, nz);
  if (!nnz || nz == MAT_SKIP_ALLOCATION) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < B->rmap->n; i++) {
    PetscCheck(nnz[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%snnz cannot be less than 0: local row %" PetscInt_FMT " value %" PetscInt_FMT, part, i, nnz[i]);
    PetscCheck(nnz[i] <= rowlength, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%snnz cannot be greater than row length: local row %" PetscInt_FMT " value %" PetscInt_FMT " rowlength %" PetscInt_FMT, part, i, nnz[i], rowlength);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block counts of one part (ncols scalar columns) from its checked scalar row counts. nz and *bnz: PETSC_DEFAULT /
   PETSC_DECIDE and MAT_SKIP_ALLOCATION pass through to BAIJ. *bnnz is NULL without nnz. */
static PetscErrorCode BlockCounts(Mat B, PetscInt bs, PetscInt ncols, PetscInt nz, const PetscInt nnz[], PetscInt *bnz, PetscInt **bnnz, PetscCount *reserved)
{
  const PetscInt mbs = B->rmap->n / bs, nbcols = ncols / bs;

  PetscFunctionBegin;
  *bnnz = NULL;
  if (nz == PETSC_DEFAULT || nz == PETSC_DECIDE || nz == MAT_SKIP_ALLOCATION) *bnz = nz;
  else *bnz = PetscMin(nbcols, (nz + bs - 1) / bs);
  *reserved = (PetscCount)mbs * (*bnz >= 0 ? *bnz : 5); /* BAIJ's default: 5 blocks a block row */
  if (nnz && nz != MAT_SKIP_ALLOCATION) {
    PetscCall(PetscMalloc1(mbs, bnnz));
    *reserved = 0;
    for (PetscInt brow = 0; brow < mbs; brow++) {
      PetscInt most = 0;

      for (PetscInt i = brow * bs; i < (brow + 1) * bs; i++) most = PetscMax(most, nnz[i]);
      (*bnnz)[brow] = PetscMin(nbcols, (most + bs - 1) / bs);
      *reserved += (*bnnz)[brow];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block size the AIJ counts are read with: the layout's (MatSetBlockSize(), the DM), which must divide the local sizes */
static PetscErrorCode AIJCountsBlockSize(Mat B, PetscInt *bs)
{
  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(B->rmap));
  PetscCall(PetscLayoutSetUp(B->cmap));
  PetscCall(MatGetBlockSize(B, bs));
  if (*bs < 1) *bs = 1;
  PetscCheck(B->rmap->n % *bs == 0 && B->cmap->n % *bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the local sizes %" PetscInt_FMT " x %" PetscInt_FMT " are not multiples of the block size %" PetscInt_FMT "; set the block size with MatSetBlockSize() before the preallocation",
             ((PetscObject)B)->type_name, B->rmap->n, B->cmap->n, *bs);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Records a preallocation (the BAIJ wrappers and the AIJ translation) */
PetscErrorCode MatBAIJKSPARSEPreallocNoted_Private(Mat B, MatBAIJKSPARSEPrealloc *p, MatBAIJKSPARSEPreallocSource source, PetscCount reserved)
{
  PetscFunctionBegin;
  p->source   = source;
  p->reserved = reserved;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   MatSeqAIJSetPreallocation_SeqBAIJKSPARSE - MatSeqAIJSetPreallocation() on a MATSEQBAIJKSPARSE matrix: the scalar
   row counts become block counts (see the head of this file)
*/
PetscErrorCode MatSeqAIJSetPreallocation_SeqBAIJKSPARSE(Mat B, PetscInt nz, const PetscInt nnz[])
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)B->spptr;
  PetscInt            bs, bnz, *bnnz;
  PetscCount          reserved;

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATSEQBAIJKSPARSE);
  if (k->prealloc.source == MAT_BAIJKSPARSE_PREALLOC_BAIJ) {
    PetscCall(PetscInfo(B, "Block counts were given: the AIJ row counts are ignored\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AIJCountsBlockSize(B, &bs));
  PetscCall(CheckCounts(B, "", B->cmap->n, nz, nnz));
  PetscCall(BlockCounts(B, bs, B->cmap->n, nz, nnz, &bnz, &bnnz, &reserved));
  PetscCall(MatSeqBAIJSetPreallocation(B, bs, bnz, bnnz));
  PetscCall(PetscFree(bnnz));
  /* the block counts may fall short of what the AIJ counts allowed (scattered entries): grow rather than fail */
  if (nz != MAT_SKIP_ALLOCATION) PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatBAIJKSPARSEPreallocNoted_Private(B, &k->prealloc, MAT_BAIJKSPARSE_PREALLOC_AIJ, reserved));
  PetscCall(PetscInfo(B, "AIJ row counts as block counts (bs %" PetscInt_FMT "): %" PetscCount_FMT " blocks reserved\n", bs, reserved));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   MatMPIAIJSetPreallocation_MPIBAIJKSPARSE - MatMPIAIJSetPreallocation() on a MATMPIBAIJKSPARSE matrix: the scalar row
   counts of the diagonal and off-diagonal parts become block counts (see the head of this file)
*/
PetscErrorCode MatMPIAIJSetPreallocation_MPIBAIJKSPARSE(Mat B, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)B->spptr;
  PetscInt            bs, dbnz, obnz, *dbnnz, *obnnz;
  PetscCount          dres, ores;

  PetscFunctionBegin;
  PetscCheck(k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s matrix without its private data", MATMPIBAIJKSPARSE);
  if (k->prealloc.source == MAT_BAIJKSPARSE_PREALLOC_BAIJ) {
    PetscCall(PetscInfo(B, "Block counts were given: the AIJ row counts are ignored\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AIJCountsBlockSize(B, &bs));
  if (o_nz == MAT_SKIP_ALLOCATION) o_nz = PETSC_DEFAULT;
  if (d_nz == MAT_SKIP_ALLOCATION) d_nz = PETSC_DEFAULT;
  PetscCall(CheckCounts(B, "d_", B->cmap->n, d_nz, d_nnz));
  PetscCall(CheckCounts(B, "o_", B->cmap->N, o_nz, o_nnz));
  PetscCall(BlockCounts(B, bs, B->cmap->n, d_nz, d_nnz, &dbnz, &dbnnz, &dres));
  PetscCall(BlockCounts(B, bs, B->cmap->N - B->cmap->n, o_nz, o_nnz, &obnz, &obnnz, &ores));
  if (!o_nnz && (obnz == PETSC_DEFAULT || obnz == PETSC_DECIDE)) ores = (PetscCount)(B->rmap->n / bs) * 2; /* MPIBAIJ's default: 2 */
  PetscCall(MatMPIBAIJSetPreallocation(B, bs, dbnz, dbnnz, obnz, obnnz));
  PetscCall(PetscFree(dbnnz));
  PetscCall(PetscFree(obnnz));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatBAIJKSPARSEPreallocNoted_Private(B, &k->prealloc, MAT_BAIJKSPARSE_PREALLOC_AIJ, dres + ores));
  PetscCall(PetscInfo(B, "AIJ row counts as block counts (bs %" PetscInt_FMT "): %" PetscCount_FMT " + %" PetscCount_FMT " blocks reserved\n", bs, dres, ores));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line for -mat_view ::ascii_info: how the matrix was preallocated, the blocks reserved and stored, and the
   mallocs of its assemblies (collective on A) */
PetscErrorCode MatBAIJKSPARSEPreallocView_Private(Mat A, const MatBAIJKSPARSEPrealloc *p, PetscViewer viewer)
{
  MatInfo     info;
  PetscInt    bs2      = A->rmap->bs * A->cmap->bs;
  PetscCount  reserved = p->reserved;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetInfo(A, size > 1 ? MAT_GLOBAL_SUM : MAT_LOCAL, &info));
  if (size > 1) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &reserved, 1, MPIU_COUNT, MPI_SUM, PetscObjectComm((PetscObject)A)));
  switch (p->source) {
  case MAT_BAIJKSPARSE_PREALLOC_AIJ:
    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: preallocated from AIJ row counts (a block row: ceil(its largest row count / bs) blocks): %" PetscCount_FMT " blocks reserved, %.0f stored, %.0f mallocs\n", reserved, info.nz_used / bs2, info.mallocs));
    break;
  case MAT_BAIJKSPARSE_PREALLOC_BAIJ:
    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: preallocated from block counts: %.0f blocks stored, %.0f mallocs\n", info.nz_used / bs2, info.mallocs));
    break;
  case MAT_BAIJKSPARSE_PREALLOC_HASH:
    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: not preallocated: hash-based assembly (MatSetUp()), %.0f blocks stored\n", info.nz_used / bs2));
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
