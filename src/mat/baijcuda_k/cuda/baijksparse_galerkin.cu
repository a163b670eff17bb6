/* Launchers of the blocked sparse products of MATSEQBAIJKSPARSE and MATMPIBAIJKSPARSE (kernels in
   baijksparse_galerkin_kernels.cuh, host logic in ../baijksparse_galerkin.c and ../baijksparse_galerkin_mpi.c): A P and
   P^T (A P) with A in BSR (bs x bs blocks) and P, an AIJ prolongator, taken in blocks of bs x cbs. Every matrix here is
   a MatBAIJKSPARSEBlockCSR: rectangular blocks, column-major, sorted block columns, 32-bit indices.

   Patterns (symbolic): each output block is named by a 64-bit key, row * (block columns) + column. A kernel writes the
   key of every contribution (one a pair of input blocks), cub's radix sort orders them and its unique pass keeps one of
   each; the row pointers are found by binary search in the sorted keys. The memory is that of the contributions at
   block level, a (bs cbs)-th of what a scalar product's intermediate needs.

   Values (numeric): a warp per block row of the left operand. A P: the warp owns its output row, so the lanes add
   into it without atomics (lane t owns entry t of every output block). P^T (A P): fine block row k adds P_kI^T (AP)_kJ
   into the coarse block (I, J), which other warps also reach: atomicAdd. The output block is found by binary search of
   its column in its row. */
#include "baijksparse_galerkin_kernels.cuh" /* the kernels (and the CSR <-> BSR value kernels, RowOf()) */
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>

namespace pbg
{
namespace baijk
{
constexpr int kThreads = 256;
} // namespace baijk
} // namespace pbg

using namespace pbg::baijk;

namespace
{
unsigned GridFor(I64 n, int threads)
{
  return (unsigned)PetscMax(1, PetscMin((n + threads - 1) / threads, (I64)1 << 30));
}

unsigned WarpGridFor(I64 warps)
{
  return GridFor(warps * 32, kThreads);
}

int BitsFor(Key n)
{
  int b = 1;

  while (b < 64 && (n >> b)) b++;
  return b;
}

/* The sorted distinct keys of keys[0..n) (keys is reordered), then b's pattern of mb block rows and nb block columns
   from them (and room for its values); keys freed here */
PetscErrorCode PatternOfKeys(I64 n, Key *keys, int mb, int nb, PetscBool values, MatBAIJKSPARSEBlockCSR *b, cudaStream_t stream)
{
  Key   *sorted    = NULL;
  void  *tmp       = NULL;
  size_t tmp_bytes = 0, bytes;
  I64   *nsel = NULL, nz = 0;
  int    endbit = BitsFor((Key)PetscMax(mb, 1) * (Key)PetscMax(nb, 1));

  PetscFunctionBegin;
  b->mb = mb, b->nb = nb;
  PetscCallCUDA(cudaMallocAsync((void **)&b->rowptr, (size_t)(mb + 1) * sizeof(int), stream));
  if (n > 0) {
    PetscCheck(n <= (I64)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "A blocked product with %lld block contributions: more than cub's 32-bit item counts", (long long)n);
    PetscCallCUDA(cudaMallocAsync((void **)&sorted, (size_t)n * sizeof(Key), stream));
    PetscCallCUDA(cudaMallocAsync((void **)&nsel, sizeof(I64), stream));
    PetscCallCUDA(cub::DeviceRadixSort::SortKeys(NULL, tmp_bytes, keys, sorted, (int)n, 0, endbit, stream));
    PetscCallCUDA(cub::DeviceSelect::Unique(NULL, bytes, sorted, keys, nsel, (int)n, stream));
    tmp_bytes = PetscMax(tmp_bytes, bytes);
    PetscCallCUDA(cudaMallocAsync(&tmp, tmp_bytes, stream));
    bytes = tmp_bytes;
    PetscCallCUDA(cub::DeviceRadixSort::SortKeys(tmp, bytes, keys, sorted, (int)n, 0, endbit, stream));
    bytes = tmp_bytes;
    PetscCallCUDA(cub::DeviceSelect::Unique(tmp, bytes, sorted, keys, nsel, (int)n, stream));
    PetscCallCUDA(cudaMemcpyAsync(&nz, nsel, sizeof(I64), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCallCUDA(cudaFreeAsync(tmp, stream));
    PetscCallCUDA(cudaFreeAsync(sorted, stream));
    PetscCallCUDA(cudaFreeAsync(nsel, stream));
  }
  b->nz = (int)nz;
  PetscCallCUDA(cudaMallocAsync((void **)&b->colidx, (size_t)PetscMax(nz, 1) * sizeof(int), stream));
  PatternOfKeysKernel<<<GridFor(nz + mb + 1, kThreads), kThreads, 0, stream>>>(mb, nz, (Key)PetscMax(nb, 1), keys, b->rowptr, b->colidx);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaFreeAsync(keys, stream));
  b->val = NULL;
  if (values) PetscCallCUDA(cudaMallocAsync((void **)&b->val, (size_t)PetscMax(nz, 1) * b->rbs * b->cbs * sizeof(Scalar), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* counts[0..n) -> exclusive offsets[0..n] in place (counts has n + 1 entries); the total */
PetscErrorCode OffsetsOfCounts(I64 n, I64 *counts, I64 *total, cudaStream_t stream)
{
  void  *tmp       = NULL;
  size_t tmp_bytes = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemsetAsync(counts + n, 0, sizeof(I64), stream));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, tmp_bytes, counts, counts, (int)(n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&tmp, tmp_bytes, stream));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, counts, counts, (int)(n + 1), stream));
  PetscCallCUDA(cudaMemcpyAsync(total, counts + n, sizeof(I64), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(tmp, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode MatBAIJKSPARSEBlockPatternOfCSR_CUDA(int m, PetscInt64 nnz, const int *ci, const int *cj, MatBAIJKSPARSEBlockCSR *b, cudaStream_t stream)
{
  Key *keys = NULL;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync((void **)&keys, (size_t)PetscMax(nnz, 1) * sizeof(Key), stream));
  if (nnz > 0) {
    CSRBlockKeysKernel<<<GridFor(nnz, kThreads), kThreads, 0, stream>>>(m, nnz, b->rbs, b->cbs, (Key)PetscMax(b->nb, 1), ci, cj, keys);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PatternOfKeys(nnz, keys, b->mb, b->nb, PETSC_FALSE, b, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockValuesOfCSR_CUDA(int m, PetscInt64 nnz, const int *ci, const int *cj, const PetscScalar *ca, MatBAIJKSPARSEBlockCSR *b, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!b->val) PetscCallCUDA(cudaMallocAsync((void **)&b->val, (size_t)PetscMax(b->nz, 1) * b->rbs * b->cbs * sizeof(Scalar), stream));
  if (b->nz) PetscCallCUDA(cudaMemsetAsync(b->val, 0, (size_t)b->nz * b->rbs * b->cbs * sizeof(Scalar), stream));
  if (nnz > 0) {
    pbg::baijk::CSRToBSRKernel<<<GridFor(nnz, kThreads), kThreads, 0, stream>>>(b->rbs, b->cbs, m, nnz, ci, cj, ca, b->rowptr, b->colidx, b->val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockProductPattern_CUDA(const MatBAIJKSPARSEBlockCSR *a, const MatBAIJKSPARSEBlockCSR *b, PetscBool values, MatBAIJKSPARSEBlockCSR *c, PetscInt64 *ncontrib, cudaStream_t stream)
{
  I64 *offsets = NULL, total = 0;
  Key *keys = NULL;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync((void **)&offsets, (size_t)(a->nz + 1) * sizeof(I64), stream));
  if (a->nz) {
    ProductCountsKernel<<<GridFor(a->nz, kThreads), kThreads, 0, stream>>>(a->nz, a->colidx, b->rowptr, offsets);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(OffsetsOfCounts(a->nz, offsets, &total, stream));
  PetscCallCUDA(cudaMallocAsync((void **)&keys, (size_t)PetscMax(total, 1) * sizeof(Key), stream));
  if (total) {
    ProductKeysKernel<<<GridFor(a->nz, kThreads), kThreads, 0, stream>>>(a->mb, a->nz, a->rowptr, a->colidx, b->rowptr, b->colidx, (Key)PetscMax(b->nb, 1), offsets, keys);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaFreeAsync(offsets, stream));
  c->rbs = a->rbs, c->cbs = b->cbs, *ncontrib = total;
  PetscCall(PatternOfKeys(total, keys, a->mb, b->nb, values, c, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockTransposeProductPattern_CUDA(const MatBAIJKSPARSEBlockCSR *p, const MatBAIJKSPARSEBlockCSR *q, PetscBool values, MatBAIJKSPARSEBlockCSR *c, PetscInt64 *ncontrib, cudaStream_t stream)
{
  I64 *offsets = NULL, total = 0;
  Key *keys = NULL;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync((void **)&offsets, (size_t)(p->mb + 1) * sizeof(I64), stream));
  if (p->mb) {
    TransposeCountsKernel<<<GridFor(p->mb, kThreads), kThreads, 0, stream>>>(p->mb, p->rowptr, q->rowptr, offsets);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(OffsetsOfCounts(p->mb, offsets, &total, stream));
  PetscCallCUDA(cudaMallocAsync((void **)&keys, (size_t)PetscMax(total, 1) * sizeof(Key), stream));
  if (total) {
    TransposeKeysKernel<<<GridFor(p->mb, kThreads), kThreads, 0, stream>>>(p->mb, p->rowptr, p->colidx, q->rowptr, q->colidx, (Key)PetscMax(q->nb, 1), offsets, keys);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaFreeAsync(offsets, stream));
  c->rbs = p->cbs, c->cbs = q->cbs, *ncontrib = total;
  PetscCall(PatternOfKeys(total, keys, p->nb, q->nb, values, c, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockProduct_CUDA(const MatBAIJKSPARSEBlockCSR *a, const MatBAIJKSPARSEBlockCSR *b, MatBAIJKSPARSEBlockCSR *c, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (c->nz) PetscCallCUDA(cudaMemsetAsync(c->val, 0, (size_t)c->nz * c->rbs * c->cbs * sizeof(Scalar), stream));
  if (a->mb && c->nz) {
    BlockProductKernel<<<WarpGridFor(a->mb), kThreads, 0, stream>>>(a->mb, a->rbs, a->cbs, b->cbs, a->rowptr, a->colidx, a->val, b->rowptr, b->colidx, b->val, c->rowptr, c->colidx, c->val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockTransposeProduct_CUDA(const MatBAIJKSPARSEBlockCSR *p, const MatBAIJKSPARSEBlockCSR *q, MatBAIJKSPARSEBlockCSR *c, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (c->nz) PetscCallCUDA(cudaMemsetAsync(c->val, 0, (size_t)c->nz * c->rbs * c->cbs * sizeof(Scalar), stream));
  if (p->mb && c->nz) {
    BlockTransposeProductKernel<<<WarpGridFor(p->mb), kThreads, 0, stream>>>(p->mb, p->rbs, p->cbs, q->cbs, p->rowptr, p->colidx, p->val, q->rowptr, q->colidx, q->val, c->rowptr, c->colidx, c->val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlocksToCSR_CUDA(const MatBAIJKSPARSEBlockCSR *b, PetscScalar *a, cudaStream_t stream)
{
  const I64 n = (I64)b->nz * b->rbs * b->cbs;

  PetscFunctionBegin;
  if (n > 0) {
    pbg::baijk::BSRToCSRKernel<<<GridFor(n, kThreads), kThreads, 0, stream>>>(b->rbs, b->cbs, b->mb, n, b->rowptr, b->val, a);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockCSRDownload_CUDA(const MatBAIJKSPARSEBlockCSR *b, PetscInt *rowptr, PetscInt *colidx, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(rowptr, b->rowptr, (size_t)(b->mb + 1) * sizeof(int), cudaMemcpyDeviceToHost, stream));
  if (b->nz) PetscCallCUDA(cudaMemcpyAsync(colidx, b->colidx, (size_t)b->nz * sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockCSRFree_CUDA(MatBAIJKSPARSEBlockCSR *b, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (b->rowptr) PetscCallCUDA(cudaFreeAsync(b->rowptr, stream));
  if (b->colidx) PetscCallCUDA(cudaFreeAsync(b->colidx, stream));
  if (b->val) PetscCallCUDA(cudaFreeAsync(b->val, stream));
  b->rowptr = b->colidx = NULL;
  b->val                = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockCSRJoinColumns_CUDA(const MatBAIJKSPARSEBlockCSR *d, const MatBAIJKSPARSEBlockCSR *o, int glo, int nown, PetscBool pattern, MatBAIJKSPARSEBlockCSR *c, cudaStream_t stream)
{
  const int blk = d->rbs * d->cbs;

  PetscFunctionBegin;
  if (pattern) {
    c->rbs = d->rbs, c->cbs = d->cbs, c->mb = d->mb, c->nb = nown + (o ? o->nb : 0), c->nz = d->nz + (o ? o->nz : 0);
    PetscCallCUDA(cudaMallocAsync((void **)&c->rowptr, (size_t)(c->mb + 1) * sizeof(int), stream));
    PetscCallCUDA(cudaMallocAsync((void **)&c->colidx, (size_t)PetscMax(c->nz, 1) * sizeof(int), stream));
    PetscCallCUDA(cudaMallocAsync((void **)&c->val, (size_t)PetscMax(c->nz, 1) * blk * sizeof(Scalar), stream));
    JoinRowPtrKernel<<<GridFor(c->mb + 1, kThreads), kThreads, 0, stream>>>(c->mb, d->rowptr, o ? o->rowptr : NULL, c->rowptr);
    PetscCallCUDA(cudaGetLastError());
  }
  if (c->mb) {
    JoinColumnsKernel<<<WarpGridFor(c->mb), kThreads, 0, stream>>>(c->mb, blk, glo, nown, d->rowptr, d->colidx, d->val, o ? o->rowptr : NULL, o ? o->colidx : NULL, o ? o->val : NULL, c->rowptr, pattern ? c->colidx : NULL, c->val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockGather_CUDA(int ndst, int blk, const int *jmap, const int *perm, const PetscScalar *loc, PetscInt64 nloc, const PetscScalar *rcv, PetscScalar *dst, cudaStream_t stream)
{
  const I64 n = (I64)ndst * blk;

  PetscFunctionBegin;
  if (n > 0) {
    BlockGatherKernel<<<GridFor(n, kThreads), kThreads, 0, stream>>>(n, blk, jmap, perm, loc, (I64)nloc, rcv, dst);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
