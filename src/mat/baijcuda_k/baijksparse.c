/* MATBAIJKSPARSE, the type that the sequential and parallel ones share: the root type and MatCreateBAIJKSPARSE(), the
   general converter MatConvert_Any_BAIJKSPARSE(), whether the device is in use, and the block-row statistics printed by
   MatView(). The sequential type is in seqbaijksparse.c, the parallel one in mpibaijksparse.c, the tuning in
   baijksparse_tuning.c. */
#include <petscblockgpu/private/baijksparseimpl.h> /*I "petscblockgpu.h" I*/

PetscErrorCode MatBAIJKSPARSEUseDevice_Private(Mat A, PetscBool *use)
{
  PetscBool avail;

  PetscFunctionBegin;
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  *use = (PetscBool)(avail && !A->boundtocpu);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGetStats_Private(Mat Ad, Mat Ao, MatBAIJKSPARSEStats *s)
{
  const PetscInt *ia, *ja, *ib = NULL, *jb = NULL;
  PetscInt        n, nb = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(MatGetBlockSize(Ad, &s->bs));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the block rows of a %s matrix", ((PetscObject)Ad)->type_name);
  if (Ao) {
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ib, &jb, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the block rows of a %s matrix", ((PetscObject)Ao)->type_name);
    PetscCheck(nb == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Diagonal part has %" PetscInt_FMT " block rows, off-diagonal part %" PetscInt_FMT, n, nb);
  }
  s->mbs       = n;
  s->minblocks = PETSC_INT_MAX;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt len = ia[i + 1] - ia[i] + (ib ? ib[i + 1] - ib[i] : 0);

    s->nblocks += len;
    s->minblocks = PetscMin(s->minblocks, len);
    s->maxblocks = PetscMax(s->maxblocks, len);
    if (!len) s->nempty++;
  }
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  if (Ao) PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ib, &jb, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEViewStats_Private(PetscViewer viewer, const MatBAIJKSPARSEStats *s)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: bs %" PetscInt_FMT ", block rows %" PetscInt_FMT ", nonzero blocks %" PetscInt_FMT "\n", s->bs, s->mbs, s->nblocks));
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: blocks per block row: min %" PetscInt_FMT ", mean %.2f, max %" PetscInt_FMT "; empty block rows %" PetscInt_FMT "\n", s->mbs ? s->minblocks : 0,
                                   s->mbs ? (double)s->nblocks / (double)s->mbs : 0.0, s->maxblocks, s->nempty));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
    PetscCheck(A->rmap->N == B->rmap->N && A->cmap->N == B->cmap->N && A->rmap->n == B->rmap->n && A->cmap->n == B->cmap->n, comm, PETSC_ERR_ARG_SIZ,
               "MAT_REUSE_MATRIX: the matrix to reuse is %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT "), the input %" PetscInt_FMT " x %" PetscInt_FMT " (local %" PetscInt_FMT " x %" PetscInt_FMT ")",
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

    if (isk || isbase) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
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
    if (ismpi) {
      Mat Ad, Ao;

      PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(*newmat, &Ad, &Ao, NULL));
      if (Ad) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(Ad));
      if (Ao) PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(Ao));
    } else PetscCall(MatSeqBAIJKSPARSECheckOptions_Private(*newmat));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATBAIJKSPARSE - "baijksparse" - A block sparse (BSR) matrix whose `MatMult()` is meant to run block-size-specialised
   GPU kernels: `MATSEQBAIJKSPARSE` on a single-process communicator and `MATMPIBAIJKSPARSE` otherwise.

   Options Database Keys:
+ -mat_type baijksparse    - sets the matrix type to `MATBAIJKSPARSE` during a call to `MatSetFromOptions()`
- -dm_mat_type baijksparse - makes `DMCreateMatrix()` of a `DMDA` (with dof > 1, dimension 2 or 3) create a `MATBAIJKSPARSE` matrix

   Level: beginner

   Notes:
   It is `MATBAIJ` subclassed in place: preallocation (`MatXAIJSetPreallocation()`, `MatSeqBAIJSetPreallocation()`,
   `MatMPIBAIJSetPreallocation()`), assembly and all other operations are `MATBAIJ`'s. `MatConvert()` to it works from
   `MATAIJ` (keeping the block size of the AIJ matrix), `MATBAIJ` and other types that convert to `MATBAIJ`; converting
   back to `MATBAIJ` is done in place. Between `MATSEQAIJCUSPARSE` and `MATSEQBAIJKSPARSE` (`MatConvert()` to
   `MATBAIJKSPARSE`, `MATSEQBAIJKSPARSE`, `MATAIJCUSPARSE` or `MATSEQAIJCUSPARSE`, every `MatReuse`) the values move on the
   GPU when the source's are current there: the target's pattern is built on the host from the source's pattern alone
   (baijksparse: every block holding an entry, the entries a block lacks being 0; aijcusparse: every entry of every
   block, as from `MATBAIJ`), and a kernel fills the target's device values (event BAIJKConvert); no value of the source
   is copied between host and device (a new aijcusparse matrix still sends its own zero-filled values once, as it makes
   its device copy). Otherwise, and always for `MATMPIBAIJKSPARSE` and `MATMPIAIJCUSPARSE`, the conversion runs on the host.

   `MatCreateSubMatrix()` and `MatCreateSubMatrices()` with index sets of whole blocks (each block's rows in order) give
   `MATBAIJKSPARSE` (`MATSEQBAIJKSPARSE` from `MatCreateSubMatrices()`, so that the sub-solvers of `PCASM`, like those of
   `PCBJACOBI`, keep it); index sets that split blocks, such as the fields inside a block of `PCFIELDSPLIT`, give `MATAIJ`,
   taken from an AIJ copy of the matrix (`MATBAIJ` itself would return the whole blocks).

   With a CUDA device the products run on the GPU on device vectors (see `MATSEQBAIJKSPARSE` for the kernels and the
   -mat_baijksparse_* options; `MATMPIBAIJKSPARSE` overlaps the ghost exchange with the product of the diagonal part);
   without one, or when bound to the CPU, they are `MATBAIJ`'s host kernels. `MatView()` with `PETSC_VIEWER_ASCII_INFO`
   prints the block-row statistics (block size, block rows, nonzero blocks, minimum, mean and maximum blocks per block
   row, empty block rows) and the kernel `MatMult()` uses with its parameters.

   Applications that load petscblockgpu with `-dll_append` reach this type through `-mat_type` and `MatSetType()`;
   those that link it call `PetscBlockGPUInitializePackage()` first.

.seealso: [](ch_matrices), `Mat`, `MATSEQBAIJKSPARSE`, `MATMPIBAIJKSPARSE`, `MATBAIJ`, `MatCreateBAIJKSPARSE()`, `PCVBJACOBI`
M*/
PetscErrorCode MatCreate_BAIJKSPARSE(Mat A)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatSetType(A, size == 1 ? MATSEQBAIJKSPARSE : MATMPIBAIJKSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCreateBAIJKSPARSE - Creates a sparse block matrix of type `MATBAIJKSPARSE` (`MATSEQBAIJKSPARSE` on one process,
  `MATMPIBAIJKSPARSE` otherwise), with the arguments of `MatCreateBAIJ()`

  Collective

  Input Parameters:
+ comm  - MPI communicator
. bs    - size of the (square) blocks
. m     - number of local rows (or `PETSC_DECIDE` to have it calculated if `M` is given)
. n     - number of local columns (or `PETSC_DECIDE` to have it calculated if `N` is given)
. M     - number of global rows (or `PETSC_DETERMINE` to have it calculated if `m` is given)
. N     - number of global columns (or `PETSC_DETERMINE` to have it calculated if `n` is given)
. d_nz  - number of nonzero blocks per block row in the diagonal portion of the local submatrix (same for all local rows)
. d_nnz - number of nonzero blocks in each block row of the diagonal portion of the local submatrix, or `NULL`
. o_nz  - number of nonzero blocks per block row in the off-diagonal portion of the local submatrix (same for all local rows)
- o_nnz - number of nonzero blocks in each block row of the off-diagonal portion of the local submatrix, or `NULL`

  Output Parameter:
. A - the matrix

  Level: intermediate

  Notes:
  On a single process `o_nz` and `o_nnz` are ignored, as with `MatCreateBAIJ()`. The local and global sizes must be
  multiples of `bs`.

  It is recommended to use `MatCreate()`, `MatSetType()` (or `-mat_type baijksparse` with `MatSetFromOptions()`) and
  `MatXAIJSetPreallocation()` instead.

  See `MATBAIJKSPARSE` for where the products run.

.seealso: [](ch_matrices), `Mat`, `MATBAIJKSPARSE`, `MATSEQBAIJKSPARSE`, `MATMPIBAIJKSPARSE`, `MatCreateBAIJ()`, `MatXAIJSetPreallocation()`
@*/
PetscErrorCode MatCreateBAIJKSPARSE(MPI_Comm comm, PetscInt bs, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[], Mat *A)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscAssertPointer(A, 11);
  PetscCheck(bs >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "Block size %" PetscInt_FMT " must be positive", bs);
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) {
    PetscCall(MatSetType(*A, MATMPIBAIJKSPARSE));
    PetscCall(MatMPIBAIJSetPreallocation(*A, bs, d_nz, d_nnz, o_nz, o_nnz));
  } else {
    PetscCall(MatSetType(*A, MATSEQBAIJKSPARSE));
    PetscCall(MatSeqBAIJSetPreallocation(*A, bs, d_nz, d_nnz));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

