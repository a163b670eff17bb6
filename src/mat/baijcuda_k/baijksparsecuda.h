/* What the host logic of MATBAIJKSPARSE (the .c files beside this header) asks of the kernels in cuda/ (device memory is
   asked of the device floor, baijksparse_device.h; the emulator tests include this header with a stub runtime). Every launcher runs on the
   stream it is given (PETSc's current CUDA stream) and returns without synchronising; they check their launch with
   cudaGetLastError(). */
#pragma once

#include "baijksparseimpl.h"
#include <cuda_runtime_api.h>

/* One product y = A x (+ z) of a MATSEQBAIJKSPARSE matrix. Work items are block rows (segptr == NULL) or segments
   of balanced rows (see MatBAIJKSPARSEDevice). z may be NULL (y = A x) and may equal y. */
typedef struct {
  int                bs, mbs, nwork;
  const int         *rowptr, *colidx;
  const int         *segptr, *segrow;
  const PetscScalar *val, *x, *z;
  PetscScalar       *y, *work;
} MatBAIJKSPARSEMultArgs;

/* Checks that the parameters can be launched for block size bs (and, when msg is not NULL, says why not) */
PETSC_INTERN PetscBool MatBAIJKSPARSEParamsValid(const MatBAIJKSPARSEParams *, int bs, char *msg, size_t len);

/* y (+)= A x with the kernel and parameters p */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMult_CUDA(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t);
/* Combines the partial results of split rows: y[row] = sum of its slots (+ z[row]) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEReduce_CUDA(int bs, int nsplit, const int *splitrow, const int *splitslot, const PetscScalar *work, const PetscScalar *z, PetscScalar *y, cudaStream_t);
/* y += A^T x by atomicAdd (y already holds 0 or z); x has mbs*bs entries, y nbs*bs */
/* The values of the explicit transpose: block p of A^T is block perm[p] of A transposed (nz blocks of bs x bs) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSETransposeBlocks_CUDA(int bs, int nz, const int *perm, const PetscScalar *val, PetscScalar *tval, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMultTransposeAtomic_CUDA(int bs, int mbs, const int *rowptr, const int *colidx, const PetscScalar *val, const PetscScalar *x, PetscScalar *y, cudaStream_t);

/* Value operations (cuda/baijksparse_values.cu): rows are local rows, diagpos as in MatBAIJKSPARSEDevice */
/* the diagonal entry of every row with a diagonal block: val = v (insert) or val + v, v = d[row] (d not NULL) or a */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDiagonalUpdate_CUDA(int bs, int mbs, const int *diagpos, const PetscScalar *d, PetscScalar a, PetscBool insert, PetscScalar *val, cudaStream_t);
/* w[k] = sum of |entry| (absval; else of the entries' real parts) of block k over the rows and columns i with bit i of
   mask set (bs <= 64) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockWeights_CUDA(int bs, int nz, unsigned long long mask, PetscBool absval, const PetscScalar *val, PetscScalar *w, cudaStream_t);
/* v[row] = the diagonal entry (0 in a block row without a diagonal block) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGetDiagonal_CUDA(int bs, int mbs, const int *diagpos, const PetscScalar *val, PetscScalar *v, cudaStream_t);
/* val(row, col) *= l[row] r[col]; l or r may be NULL */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDiagonalScale_CUDA(int bs, int mbs, int nz, const int *rowptr, const int *colidx, const PetscScalar *l, const PetscScalar *r, PetscScalar *val, cudaStream_t);
/* Y += a X where X's blocks are among Y's (same block rows; xcolmap: Y's block column of each of X's, NULL: the same
   numbering); *missing (device) is set to 1 when a block of X is not in Y */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEAXPYSubset_CUDA(int bs, int mbs, int xnz, PetscScalar a, const int *xrowptr, const int *xcolidx, const int *xcolmap, const PetscScalar *xval, const int *yrowptr, const int *ycolidx, PetscScalar *yval, int *missing, cudaStream_t);
/* zeroes the n listed rows (rows: device, local), diag on their diagonal entries (each needs its diagonal block unless
   diag is 0); nz: the blocks of the matrix (for the lanes per row) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEZeroRows_CUDA(int bs, int mbs, int nz, int n, const int *rows, const int *rowptr, const int *diagpos, PetscScalar diag, PetscScalar *val, cudaStream_t);
/* b[rows[q]] = diag x[rows[q]], q < n */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEFixRHS_CUDA(int n, const int *rows, PetscScalar diag, const PetscScalar *x, PetscScalar *b, cudaStream_t);
/* mask[rows[q]] = 1, q < n */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMarkRows_CUDA(int n, const int *rows, int *mask, cudaStream_t);
/* square matrix: zeroes the rows and columns whose mask is set, diag on their diagonal entries; with x and b (both or
   neither) b[row] -= A(row, col) x[col] first for unmasked rows and masked columns */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEZeroRowsColumns_CUDA(int bs, int mbs, int nz, const int *rowptr, const int *colidx, const int *mask, PetscScalar diag, const PetscScalar *x, PetscScalar *b, PetscScalar *val, cudaStream_t);

/* Launchers of the K2 instances, split over two files to build in parallel: bs 2..23 and 24..45 */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMultK2Lo_CUDA(const MatBAIJKSPARSEParams *, const MatBAIJKSPARSEMultArgs *, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMultK2Hi_CUDA(const MatBAIJKSPARSEParams *, const MatBAIJKSPARSEMultArgs *, cudaStream_t);
#define MAT_BAIJKSPARSE_K2_LO_MAX_BS 23

/* COO assembly (baijksparse_coo.c): for t in [0, n), with s = imap ? imap[t] : t,
   val[s] = (add ? val[s] : 0) + sum of v[perm[p]] over p in [jmap[t], jmap[t+1]) (jmap NULL: the single v[perm[t]]).
   A thread per t, no atomics. With add, a t without entries leaves val[s] alone. */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSECOOGather_CUDA(PetscCount n, const int *imap, const int *jmap, const int *perm, const PetscScalar *v, PetscScalar *val, PetscBool add, cudaStream_t);

/* Block diagonals (baijksparse_blockdiag.c, cuda/baijksparse_blockdiag.cu). Uniform: block r of blocks (bs^2 entries at
   r * bs^2) = the diagonal block of block row r as stored (column-major), zeros where diagpos[r] < 0. */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEExtractBlockDiag_CUDA(int bs, int mbs, const int *diagpos, const PetscScalar *val, PetscScalar *blocks, cudaStream_t);
/* Variable: block b = the rows and columns starts[b] .. starts[b+1]-1 of the BSR matrix (any alignment with bs), k x k
   column-major at blocks + offsets[b], zeros outside the pattern; maxk: the largest k */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEExtractVarBlockDiag_CUDA(int bs, int nblocks, int maxk, const int *rowptr, const int *colidx, const PetscScalar *val, const int *starts, const PetscInt64 *offsets, PetscScalar *blocks, cudaStream_t);
/* After PetscBlockGPUInvertBatched(): fills every block whose info is not 0 with NaN and sets *outcome (device) to
   (first such block) << 32 | (unsigned)(its info), all ones when none. Sizes and offsets NULL: uniform blocks of ku. */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockDiagFailures_CUDA(int nblocks, int ku, const PetscInt *sizes, const PetscInt64 *offsets, const PetscInt *info, PetscScalar *blocks, unsigned long long *outcome, cudaStream_t);

/* MatConvert() between aijcusparse and baijksparse on the device (baijksparse_convert.cu). CSR -> BSR: val (nzb blocks) is
   zeroed, then each CSR entry (row pointers ci[0..m], columns cj, values ca) lands in its block; BSR -> CSR: a (nzb bs^2
   entries) receives the values in the order of a CSR holding every entry of every block, rows sorted */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEConvertCSRToBSR_CUDA(int bs, int m, PetscInt64 nnz, const int *ci, const int *cj, const PetscScalar *ca, int nzb, const int *rowptr, const int *colidx, PetscScalar *val, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEConvertBSRToCSR_CUDA(int bs, int mbs, int nzb, const int *rowptr, const PetscScalar *val, PetscScalar *a, cudaStream_t);

/* Blocked sparse products on the device (cuda/baijksparse_galerkin.cu, host logic in baijksparse_galerkin.c): matrices of
   mb x nb rectangular blocks of rbs x cbs values (column-major, like BAIJ's), sorted block columns, device arrays. A
   seqbaijksparse operand is viewed as one (rbs = cbs = bs) without a copy. The pattern launchers allocate rowptr
   (mb + 1) and colidx (nz) and synchronise the stream (they read counts back). */
typedef struct {
  int          rbs, cbs, mb, nb, nz;
  int         *rowptr, *colidx;
  PetscScalar *val;
} MatBAIJKSPARSEBlockCSR;
/* b (rbs, cbs, mb, nb set) gets the pattern of the CSR (ci, cj) of m = mb rbs rows: every block holding an entry */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockPatternOfCSR_CUDA(int m, PetscInt64 nnz, const int *ci, const int *cj, MatBAIJKSPARSEBlockCSR *b, cudaStream_t);
/* b's values from the CSR's (zeros where a block has no entry); val allocated when NULL */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockValuesOfCSR_CUDA(int m, PetscInt64 nnz, const int *ci, const int *cj, const PetscScalar *ca, MatBAIJKSPARSEBlockCSR *b, cudaStream_t);
/* The block pattern of c = a b (a->cbs = b->rbs), and of c = p^T q (p and q of the same block rows), with room for c's
   values when asked; *ncontrib: the block products they take */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockProductPattern_CUDA(const MatBAIJKSPARSEBlockCSR *a, const MatBAIJKSPARSEBlockCSR *b, PetscBool values, MatBAIJKSPARSEBlockCSR *c, PetscInt64 *ncontrib, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockTransposeProductPattern_CUDA(const MatBAIJKSPARSEBlockCSR *p, const MatBAIJKSPARSEBlockCSR *q, PetscBool values, MatBAIJKSPARSEBlockCSR *c, PetscInt64 *ncontrib, cudaStream_t);
/* Their values into c's pattern made above */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockProduct_CUDA(const MatBAIJKSPARSEBlockCSR *a, const MatBAIJKSPARSEBlockCSR *b, MatBAIJKSPARSEBlockCSR *c, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockTransposeProduct_CUDA(const MatBAIJKSPARSEBlockCSR *p, const MatBAIJKSPARSEBlockCSR *q, MatBAIJKSPARSEBlockCSR *c, cudaStream_t);
/* b's values in the order of the CSR holding every entry of every block, rows sorted (nz rbs cbs entries) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlocksToCSR_CUDA(const MatBAIJKSPARSEBlockCSR *b, PetscScalar *a, cudaStream_t);
/* b's pattern to the host (rowptr[mb + 1], colidx[nz]); b's device arrays freed by the second */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockCSRDownload_CUDA(const MatBAIJKSPARSEBlockCSR *b, PetscInt *rowptr, PetscInt *colidx, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockCSRFree_CUDA(MatBAIJKSPARSEBlockCSR *b, cudaStream_t);
/* The block view of a seqbaijksparse matrix's device copy (baijksparse_galerkin.c): its values current (uploaded when the
   host is newer) or, for a result the product writes, its pattern only */
PETSC_INTERN PetscErrorCode MatSeqBAIJKSPARSEBlockView_Private(Mat, PetscBool, MatBAIJKSPARSEBlockCSR *);
/* The MPI products (baijksparse_galerkin_mpi.c): c = an operator's diagonal part d and off-diagonal part o side by side
   (d's columns shifted by glo; o's ghost column g kept below glo, moved to g + nown above; o may be NULL), its
   pattern and arrays made when asked, else only its values refreshed; and dst block d = the sum of the source blocks
   perm[jmap[d]..jmap[d+1]) (jmap NULL: perm[d] alone), a source below nloc from loc, the others from rcv */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockCSRJoinColumns_CUDA(const MatBAIJKSPARSEBlockCSR *d, const MatBAIJKSPARSEBlockCSR *o, int glo, int nown, PetscBool pattern, MatBAIJKSPARSEBlockCSR *c, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEBlockGather_CUDA(int ndst, int blk, const int *jmap, const int *perm, const PetscScalar *loc, PetscInt64 nloc, const PetscScalar *rcv, PetscScalar *dst, cudaStream_t);
