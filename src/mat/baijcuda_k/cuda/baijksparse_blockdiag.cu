/* Block diagonals of MATSEQBAIJKSPARSE on the device (host logic in ../baijksparse_blockdiag.c): the extraction of the
   diagonal blocks from the device BSR copy into a dense batch that PetscBlockGPUInvertBatched() inverts in place, and the
   scan of its info for the first failure. */
#include "../baijksparsecuda.h"
#include <petscdevice_cuda.h>
#include <math_constants.h>
#include <type_traits>

static_assert(std::is_same<PetscScalar, double>::value, "the block diagonal kernels are written for real double scalars");

#define PBG_BD_CTA 256 /* threads per thread block of these kernels */

namespace pbg
{
namespace baijk
{
/* Uniform blocks: block r of the batch is the diagonal block of block row r, copied as stored (column-major, BAIJ's
   layout); zeros where the block row stores none. A thread per entry, reads and writes in order. */
__global__ static void __launch_bounds__(PBG_BD_CTA) UniformExtractKernel(long long n, int bs2, const int *__restrict__ diagpos, const PetscScalar *__restrict__ val, PetscScalar *__restrict__ blocks)
{
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n; t += (long long)gridDim.x * blockDim.x) {
    const long long r = t / bs2, e = t - r * bs2;
    const int       p = diagpos[r];

    blocks[t] = p >= 0 ? val[(long long)p * bs2 + e] : 0.0;
  }
}

/* The entry (row, col) of the BSR matrix: a binary search of block column col / bs in block row row / bs (BAIJ's columns
   are sorted), 0 outside the pattern */
__device__ static inline PetscScalar BSREntry(int bs, const int *__restrict__ rowptr, const int *__restrict__ colidx, const PetscScalar *__restrict__ val, int row, int col)
{
  const int R = row / bs, C = col / bs;
  int       lo = rowptr[R], hi = rowptr[R + 1] - 1;

  while (lo <= hi) {
    const int mid = (lo + hi) / 2, c = colidx[mid];

    if (c == C) return val[(long long)mid * bs * bs + (row - R * bs) + (long long)(col - C * bs) * bs];
    if (c < C) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0.0;
}

/* Variable blocks: block b covers the rows and columns starts[b] .. starts[b+1]-1, whatever their place in the BAIJ blocks;
   stored k x k column-major at offsets[b]. P lanes per block (P = the next power of two of the largest k^2, at most a
   warp), each lane a strided share of the entries in column-major order, so that consecutive lanes write consecutive
   entries. */
template <int P>
__global__ static void __launch_bounds__(PBG_BD_CTA) VariableExtractKernel(int nblocks, int bs, const int *__restrict__ rowptr, const int *__restrict__ colidx, const PetscScalar *__restrict__ val, const int *__restrict__ starts, const PetscInt64 *__restrict__ offsets, PetscScalar *__restrict__ blocks)
{
  const int lane = (int)(threadIdx.x % P);

  for (long long b = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / P; b < nblocks; b += (long long)gridDim.x * blockDim.x / P) {
    const int    s = starts[b], k = starts[b + 1] - s;
    PetscScalar *out = blocks + offsets[b];

    for (int e = lane; e < k * k; e += P) {
      const int j = e / k, i = e - j * k;

      out[e] = BSREntry(bs, rowptr, colidx, val, s + i, s + j);
    }
  }
}

/* A thread per block: a failed block (info != 0) is filled with NaN, as PETSc's LU leaves Inf/NaN in a singular block, and
   the smallest (block, info) packed as block << 32 | info goes to *outcome by atomicMin (all ones beforehand: none) */
__global__ static void __launch_bounds__(PBG_BD_CTA) FailureKernel(int nblocks, int ku, const PetscInt *__restrict__ sizes, const PetscInt64 *__restrict__ offsets, const PetscInt *__restrict__ info, PetscScalar *__restrict__ blocks, unsigned long long *outcome)
{
  for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < nblocks; b += (long long)gridDim.x * blockDim.x) {
    const int f = (int)info[b];

    if (f) {
      const int       k   = sizes ? (int)sizes[b] : ku;
      const long long off = offsets ? (long long)offsets[b] : b * ku * ku;

      for (int e = 0; e < k * k; e++) blocks[off + e] = CUDART_NAN;
      atomicMin(outcome, ((unsigned long long)b << 32) | (unsigned long long)(unsigned)f);
    }
  }
}

} // namespace baijk
} // namespace pbg

using namespace pbg::baijk;

static unsigned GridFor(long long n, long long perblock)
{
  return (unsigned)PetscMax(1LL, PetscMin((n + perblock - 1) / perblock, (long long)1 << 20)); /* grid-stride beyond */
}

PetscErrorCode MatBAIJKSPARSEExtractBlockDiag_CUDA(int bs, int mbs, const int *diagpos, const PetscScalar *val, PetscScalar *blocks, cudaStream_t stream)
{
  const long long n = (long long)mbs * bs * bs;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  UniformExtractKernel<<<GridFor(n, PBG_BD_CTA), PBG_BD_CTA, 0, stream>>>(n, bs * bs, diagpos, val, blocks);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int P>
static PetscErrorCode VariableExtractLaunch(int nblocks, int bs, const int *rowptr, const int *colidx, const PetscScalar *val, const int *starts, const PetscInt64 *offsets, PetscScalar *blocks, cudaStream_t stream)
{
  PetscFunctionBegin;
  VariableExtractKernel<P><<<GridFor(nblocks, PBG_BD_CTA / P), PBG_BD_CTA, 0, stream>>>(nblocks, bs, rowptr, colidx, val, starts, offsets, blocks);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEExtractVarBlockDiag_CUDA(int bs, int nblocks, int maxk, const int *rowptr, const int *colidx, const PetscScalar *val, const int *starts, const PetscInt64 *offsets, PetscScalar *blocks, cudaStream_t stream)
{
  const int k2 = maxk * maxk;

  PetscFunctionBegin;
  if (!nblocks || !maxk) PetscFunctionReturn(PETSC_SUCCESS);
  if (k2 <= 1) PetscCall(VariableExtractLaunch<1>(nblocks, bs, rowptr, colidx, val, starts, offsets, blocks, stream));
  else if (k2 <= 2) PetscCall(VariableExtractLaunch<2>(nblocks, bs, rowptr, colidx, val, starts, offsets, blocks, stream));
  else if (k2 <= 4) PetscCall(VariableExtractLaunch<4>(nblocks, bs, rowptr, colidx, val, starts, offsets, blocks, stream));
  else if (k2 <= 8) PetscCall(VariableExtractLaunch<8>(nblocks, bs, rowptr, colidx, val, starts, offsets, blocks, stream));
  else if (k2 <= 16) PetscCall(VariableExtractLaunch<16>(nblocks, bs, rowptr, colidx, val, starts, offsets, blocks, stream));
  else PetscCall(VariableExtractLaunch<32>(nblocks, bs, rowptr, colidx, val, starts, offsets, blocks, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockDiagFailures_CUDA(int nblocks, int ku, const PetscInt *sizes, const PetscInt64 *offsets, const PetscInt *info, PetscScalar *blocks, unsigned long long *outcome, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemsetAsync(outcome, 0xff, sizeof(*outcome), stream));
  if (!nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  FailureKernel<<<GridFor(nblocks, PBG_BD_CTA), PBG_BD_CTA, 0, stream>>>(nblocks, ku, sizes, offsets, info, blocks, outcome);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
