/* Sub-matrices of MATBAIJKSPARSE: MatCreateSubMatrix() and MatCreateSubMatrices() of the seq and mpi types.

   BAIJ's own methods take index sets in whole blocks: they compress the indices to block indices, so an index set that
   splits a block silently yields the whole block (a sub-matrix of the wrong size: PCFIELDSPLIT then failed deep in
   VecScatterCreate()). PETSc's guard against that ("Cannot use MATBAIJ with PCFIELDSPLIT ...") compares the exact type
   names MATSEQBAIJ and MATMPIBAIJ, which the subclass does not have. Here index sets of whole blocks, each block's rows in
   order and no block twice, go to BAIJ and the result is baijksparse; any other index set is taken from an AIJ copy of the matrix and the
   result is AIJ, which holds a part of a block (fields inside a block, as PCFIELDSPLIT splits them).

   MPIBAIJ returns plain MATSEQBAIJ and MATMPIBAIJ sub-matrices: they are subclassed in place, so that the sub-solvers
   of PCASM (MatCreateSubMatrices()) keep the device products without -pc_asm_sub_mat_type. BAIJ refills a reused
   sub-matrix through its arrays, behind the offload state: the sub-matrix is marked host-newer first. */
#include "baijksparseimpl.h" /*I "petscblockgpu.h" I*/

/* Whether the local indices of is are whole blocks of bs, each block's indices in order (BAIJ's sub-matrix methods
   compress anything else to whole blocks) */
static PetscErrorCode ISInWholeBlocks(IS is, PetscInt bs, PetscBool *whole)
{
  const PetscInt *idx;
  PetscInt        n;

  PetscFunctionBegin;
  *whole = PETSC_TRUE;
  if (bs == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ISGetLocalSize(is, &n));
  if (n % bs) {
    *whole = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ISGetIndices(is, &idx));
  for (PetscInt i = 0; i < n && *whole; i += bs) {
    if (idx[i] % bs) *whole = PETSC_FALSE;
    for (PetscInt j = 1; j < bs && *whole; j++)
      if (idx[i + j] != idx[i] + j) *whole = PETSC_FALSE;
  }
  PetscCall(ISRestoreIndices(is, &idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether is repeats no index: BAIJ compresses its index sets to block indices keeping each block once, so a repeated
   block gave a smaller sub-matrix with no error (and repeated columns on several ranks an error on one rank only).
   collective: over every rank of the index set's communicator (the columns of MatCreateSubMatrix() on MPI are all
   ranks' together), else this rank's indices */
static PetscErrorCode ISWithoutRepeats(IS is, PetscBool collective, PetscBool *unique)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)is), &size));
  PetscCall(ISGetInfo(is, IS_UNIQUE, collective && size > 1 ? IS_GLOBAL : IS_LOCAL, PETSC_TRUE, unique));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether all n pairs of index sets are in whole blocks without repeats, so that BAIJ's methods take them; with
   collective, on every process of A (the two paths communicate differently, so every process must take the same), and
   repeats looked for over each index set's communicator (every rank checks every set: the check communicates) */
static PetscErrorCode SubMatricesInWholeBlocks(Mat A, PetscInt n, const IS isrow[], const IS iscol[], PetscBool collective, PetscBool *whole)
{
  PetscBool all = PETSC_TRUE, w;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt t = 0; t < 2; t++) {
      IS is = t ? iscol[i] : isrow[i];

      if (t && iscol[i] == isrow[i]) continue;
      PetscCall(ISWithoutRepeats(is, collective, &w));
      all = (PetscBool)(all && w);
      if (all) PetscCall(ISInWholeBlocks(is, t ? A->cmap->bs : A->rmap->bs, &w));
      all = (PetscBool)(all && w);
    }
  }
  if (collective) PetscCallMPI(MPIU_Allreduce(&all, whole, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  else *whole = all;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before BAIJ refills a reused sub-matrix through its arrays: the sub-matrix's host copy is current and newer after */
static PetscErrorCode ReusedHostNewer(Mat S)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATSEQBAIJKSPARSE, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATMPIBAIJKSPARSE, &mpi));
  if (seq) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(S, PETSC_TRUE));
  else if (mpi) PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(S, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new sub-matrix that BAIJ made plain MATSEQBAIJ or MATMPIBAIJ becomes baijksparse, in place */
static PetscErrorCode SubclassInPlace(Mat S)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATSEQBAIJ, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATMPIBAIJ, &mpi));
  if (seq) PetscCall(MatConvert_SeqBAIJ_SeqBAIJKSPARSE(S, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &S));
  else if (mpi) PetscCall(MatConvert_MPIBAIJ_MPIBAIJKSPARSE(S, MATMPIBAIJKSPARSE, MAT_INPLACE_MATRIX, &S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatDestroySubMatrices() of sub-matrices made by BAIJ and subclassed here. MPIBAIJ's carry BAIJ's reuse data
   (Mat_SubSppt), and BAIJ's MatDestroySubMatrices() frees each by the destroy saved there when it was made, not by the
   matrix's method: the subclass's data of each leaked (PCASM: every setup). So each sub-matrix this call frees (no other
   reference) leaves the subclass first, and BAIJ's method, saved at the subclassing, does the rest. */
static PetscErrorCode MatDestroySubMatrices_BAIJKSPARSE(PetscInt n, Mat *mat[])
{
  PetscErrorCode (*destroy)(PetscInt, Mat *[]) = NULL;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    Mat       S = (*mat)[i];
    PetscBool isk;

    if (!S) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)S, MATSEQBAIJKSPARSE, &isk));
    if (!isk) continue;
    if (!destroy) destroy = ((Mat_SeqBAIJKSPARSE *)S->spptr)->host.destroysubmatrices;
    if (((PetscObject)S)->refct <= 1) PetscCall(MatConvert_SeqBAIJKSPARSE_SeqBAIJ(S, MATSEQBAIJ, MAT_INPLACE_MATRIX, &S));
  }
  if (destroy) PetscCall((*destroy)(n, mat));
  else PetscCall(MatDestroyMatrices(n, mat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Index sets that split blocks: the sub-matrices of an AIJ copy of A. The copy is made per call and costs one pass
   over the values; such sub-matrices are taken at a PC's setup (PCFIELDSPLIT), not per iteration. A reused AIJ
   sub-matrix carries what AIJ needs to refill it from a new copy. */
static PetscErrorCode MatCreateSubMatrices_BAIJKSPARSE_AIJ(Mat A, PetscInt n, const IS isrow[], const IS iscol[], MatReuse scall, Mat *submat[])
{
  Mat T;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &T));
  PetscCall(MatCreateSubMatrices(T, n, isrow, iscol, scall, submat));
  PetscCall(MatDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateSubMatrix_BAIJKSPARSE_AIJ(Mat A, IS isrow, IS iscol, MatReuse scall, Mat *B)
{
  Mat T;

  PetscFunctionBegin;
  if (scall == MAT_REUSE_MATRIX) {
    PetscBool isaij;

    PetscCall(PetscObjectTypeCompareAny((PetscObject)*B, &isaij, MATSEQAIJ, MATMPIAIJ, ""));
    PetscCheck(isaij, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX: index sets that split the blocks of a %s matrix give an AIJ sub-matrix, and the one to reuse is %s", ((PetscObject)A)->type_name, ((PetscObject)*B)->type_name);
  }
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &T));
  PetscCall(MatCreateSubMatrix(T, isrow, iscol, scall, B));
  PetscCall(MatDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrix_SeqBAIJKSPARSE(Mat A, IS isrow, IS iscol, MatReuse scall, Mat *B)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscBool           whole;

  PetscFunctionBegin;
  PetscCall(SubMatricesInWholeBlocks(A, 1, &isrow, &iscol, PETSC_FALSE, &whole));
  if (!whole) {
    PetscCall(MatCreateSubMatrix_BAIJKSPARSE_AIJ(A, isrow, iscol, scall, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  if (scall == MAT_REUSE_MATRIX) PetscCall(ReusedHostNewer(*B));
  PetscCall((*k->host.createsubmatrix)(A, isrow, iscol, scall, B));
  if (scall == MAT_INITIAL_MATRIX) PetscCall(SubclassInPlace(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrix_MPIBAIJKSPARSE(Mat A, IS isrow, IS iscol, MatReuse scall, Mat *B)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  PetscBool           whole;

  PetscFunctionBegin;
  PetscCall(SubMatricesInWholeBlocks(A, 1, &isrow, &iscol, PETSC_TRUE, &whole));
  if (!whole) {
    PetscCall(MatCreateSubMatrix_BAIJKSPARSE_AIJ(A, isrow, iscol, scall, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  if (scall == MAT_REUSE_MATRIX) PetscCall(ReusedHostNewer(*B));
  PetscCall((*k->host.createsubmatrix)(A, isrow, iscol, scall, B));
  /* MPIBAIJ's MatView() gathers the matrix with MatCreateSubMatrix() and reads the result with MatMPIBAIJGetSeqBAIJ(),
     which takes only the exact type MATMPIBAIJ */
  if (scall == MAT_INITIAL_MATRIX && !k->viewing) PetscCall(SubclassInPlace(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The seq and mpi MatCreateSubMatrices(): index sets in whole blocks go to BAIJ's method host (after the host copy is
   brought up to date; reused results are marked host-newer first) and new results are subclassed; others get AIJ */
static PetscErrorCode CreateSubMatrices_BAIJKSPARSE(Mat A, PetscBool mpi, PetscErrorCode (*host)(Mat, PetscInt, const IS[], const IS[], MatReuse, Mat *[]), PetscInt n, const IS isrow[], const IS iscol[], MatReuse scall, Mat *submat[])
{
  PetscBool whole;

  PetscFunctionBegin;
  PetscCall(SubMatricesInWholeBlocks(A, n, isrow, iscol, mpi, &whole));
  if (!whole) {
    PetscCall(MatCreateSubMatrices_BAIJKSPARSE_AIJ(A, n, isrow, iscol, scall, submat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (mpi) PetscCall(MatMPIBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  else PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  if (scall == MAT_REUSE_MATRIX)
    for (PetscInt i = 0; i < n; i++) PetscCall(ReusedHostNewer((*submat)[i]));
  PetscCall((*host)(A, n, isrow, iscol, scall, submat));
  if (scall == MAT_INITIAL_MATRIX)
    for (PetscInt i = 0; i < n; i++) {
      PetscBool isk;

      PetscCall(SubclassInPlace((*submat)[i]));
      PetscCall(PetscObjectTypeCompare((PetscObject)(*submat)[i], MATSEQBAIJKSPARSE, &isk));
      if (isk) (*submat)[i]->ops->destroysubmatrices = MatDestroySubMatrices_BAIJKSPARSE;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrices_SeqBAIJKSPARSE(Mat A, PetscInt n, const IS isrow[], const IS iscol[], MatReuse scall, Mat *submat[])
{
  PetscFunctionBegin;
  PetscCall(CreateSubMatrices_BAIJKSPARSE(A, PETSC_FALSE, ((Mat_SeqBAIJKSPARSE *)A->spptr)->host.createsubmatrices, n, isrow, iscol, scall, submat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrices_MPIBAIJKSPARSE(Mat A, PetscInt n, const IS isrow[], const IS iscol[], MatReuse scall, Mat *submat[])
{
  PetscFunctionBegin;
  PetscCall(CreateSubMatrices_BAIJKSPARSE(A, PETSC_TRUE, ((Mat_MPIBAIJKSPARSE *)A->spptr)->host.createsubmatrices, n, isrow, iscol, scall, submat));
  PetscFunctionReturn(PETSC_SUCCESS);
}
