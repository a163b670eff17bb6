/* MATBAIJKSPARSE, the root type over the sequential and parallel ones: MatCreate_BAIJKSPARSE() (which picks
   MATSEQBAIJKSPARSE or MATMPIBAIJKSPARSE by the communicator) and MatCreateBAIJKSPARSE(). The top floor: the types are in
   seqbaijksparse.c and mpibaijksparse.c, the conversions in baijksparse_convert.c (see doc/design.md). */
#include "baijksparseimpl.h" /*I "petscblockgpu.h" I*/

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

   `PCGAMG` runs on it: `MatCreateGraph()` weighs each block (sum of the absolute values of its entries, or of the
   sub-block of `-pc_gamg_mat_coarsen_strength_index`; on the device where the values live) and hands PETSc's AIJ graph
   code a host AIJ matrix of one entry a block. The sparse products (`MatMatMult()`, `MatPtAP()`, and the other
   `MatProductType`s with AIJ, MAIJ or `MATBAIJKSPARSE` operands) convert the operands of this type to `MATAIJCUSPARSE`
   (`MATAIJ` without a usable device) and run PETSc's AIJ product; `MatPtAP()` and `MatRARt()` give `MATBAIJKSPARSE`
   with the block size of the prolongator's columns, so that GAMG's coarse operators are blocked. A matrix asked for as
   this type whose row and column block sizes differ (GAMG's prolongators) is made `MATAIJCUSPARSE` (`MATAIJ` without a
   device): BSR blocks are square. The interpolation between two `DMDA`s of this matrix type is `MATAIJCUSPARSE` where
   the device is usable, so that `PCMG`'s transfers run there.

   Factorizations (`PCLU`, `PCILU`, `PCCHOLESKY`, `PCICC`, and the subdomain solvers of `PCBJACOBI` and `PCASM`) are
   `MATBAIJ`'s, on the host, with PETSc's own solver type: it brings the host copy of values changed on the device
   (`MatScale()`, `MatShift()`, ...) up to date before each factorization. Other solver types (MUMPS, SuperLU, ...) read
   the host copy as it is: see doc/known_issues.md.

   Applications that load petscblockgpu with `-dll_append` reach this type through `-mat_type` and `MatSetType()`;
   those that link it call `PetscBlockGPUInitializePackage()` first.

.seealso: [](ch_matrices), `Mat`, `MATSEQBAIJKSPARSE`, `MATMPIBAIJKSPARSE`, `MATBAIJ`, `MatCreateBAIJKSPARSE()`, `PCVBJACOBI`
M*/
/* BSR stores square blocks. A matrix asked for as baijksparse whose row and column block sizes differ (PCGAMG's
   prolongators, created with the operator's type: bs x the number of near-null-space vectors) is made the AIJ type
   that holds such blocks, on the device where it is usable (*rect) */
PetscErrorCode MatBAIJKSPARSERectangularBlocks_Private(Mat A, MatType devtype, MatType hosttype, PetscBool *rect)
{
  PetscBool avail;

  PetscFunctionBegin;
  *rect = (PetscBool)(A->rmap->bs > 0 && A->cmap->bs > 0 && A->rmap->bs != A->cmap->bs);
  if (!*rect) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  PetscCall(PetscInfo(A, "block sizes %" PetscInt_FMT " x %" PetscInt_FMT ": not square, so %s instead of %s\n", A->rmap->bs, A->cmap->bs, avail ? devtype : hosttype, MATBAIJKSPARSE));
  PetscCall(MatSetType(A, avail ? devtype : hosttype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
