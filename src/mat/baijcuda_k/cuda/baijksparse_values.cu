/* Kernels and launchers of the value operations of MATSEQBAIJKSPARSE (host logic in ../baijksparse_values.c).

   Storage (BAIJ's): block k holds bs x bs values column-major at val[k*bs*bs ...]; entry (i, j) of block k of block row
   r is val[k*bs*bs + j*bs + i], in row r*bs + i and column colidx[k]*bs + j.

   Two shapes:
   - diagonal kernels: a thread per row (the diagonal entry of its diagonal block, found through diagpos);
   - row kernels (diagonal scale, Y += a X on a subset pattern, zeroing rows and columns): a group of G lanes (a power
     of two up to 32, from the mean entries per block row) per block row, striding over the row's values, which are
     contiguous: consecutive groups read consecutive memory, so the loads coalesce whatever the row lengths, and the
     row of every entry is known without a search. One template family over the block size: bs 1..8 have the index
     arithmetic folded at compile time (their rows are flattened across blocks), larger bs take the generic instance
     (the lanes stride within one block at a time: bs^2 >= 81 entries keep the group busy).
   Offsets into the values are 64-bit (nz*bs*bs can exceed 2^31). */
#include "../baijksparsecuda.h"
#include <petscdevice_cuda.h>

namespace pbg
{
namespace baijk
{
typedef PetscScalar Scalar;
typedef long long   I64;

constexpr int kThreads = 256;

/* ------------------------------------------------------------------------------------------------ diagonal kernels */
/* a thread per row: the diagonal entry of its diagonal block gets v (insert) or v added, v = d[row] or a */
__global__ static void DiagonalUpdateKernel(int bs, int mbs, const int *__restrict__ diagpos, const Scalar *__restrict__ d, Scalar a, int insert, Scalar *val)
{
  const I64 n = (I64)mbs * bs;

  for (I64 row = (I64)blockIdx.x * blockDim.x + threadIdx.x; row < n; row += (I64)gridDim.x * blockDim.x) {
    const int r = (int)(row / bs), i = (int)(row - (I64)r * bs), p = diagpos[r];

    if (p >= 0) {
      Scalar      *e = val + (I64)p * bs * bs + (I64)i * bs + i;
      const Scalar v = d ? d[row] : a;

      *e = insert ? v : *e + v;
    }
  }
}

__global__ static void GetDiagonalKernel(int bs, int mbs, const int *__restrict__ diagpos, const Scalar *__restrict__ val, Scalar *__restrict__ v)
{
  const I64 n = (I64)mbs * bs;

  for (I64 row = (I64)blockIdx.x * blockDim.x + threadIdx.x; row < n; row += (I64)gridDim.x * blockDim.x) {
    const int r = (int)(row / bs), i = (int)(row - (I64)r * bs), p = diagpos[r];

    v[row] = p >= 0 ? val[(I64)p * bs * bs + (I64)i * bs + i] : (Scalar)0;
  }
}

/* ------------------------------------------------------------------------------------------------ row kernels */
/* Calls f(e, k, j, i) for every entry of blocks [beg, end) of a block row: e the index into the values, k the block,
   (i, j) the entry of the block; the lane-th of G lanes takes every G-th entry */
template <int BS, class F>
__device__ __forceinline__ void ForRowEntries(int bs, int beg, int end, int lane, int G, F &&f)
{
  if constexpr (BS > 0) {
    constexpr int BS2  = BS * BS;
    const I64     base = (I64)beg * BS2, n = (I64)(end - beg) * BS2;

    for (I64 t = lane; t < n; t += G) {
      const I64 e = base + t;
      const int k = (int)(e / BS2), c = (int)(e % BS2);

      f(e, k, c / BS, c % BS);
    }
  } else {
    const int bs2 = bs * bs;

    for (int k = beg; k < end; k++) {
      const I64 base = (I64)k * bs2;

      for (int c = lane; c < bs2; c += G) {
        const int j = c / bs;

        f(base + c, k, j, c - j * bs);
      }
    }
  }
}

/* the block row of this group and the group's lane (G lanes a block row, G a power of two) */
__device__ __forceinline__ bool GroupRow(int mbs, int G, int *r, int *lane)
{
  const I64 tid = (I64)blockIdx.x * blockDim.x + threadIdx.x;

  *r    = (int)(tid / G);
  *lane = (int)(tid & (G - 1));
  return *r < mbs;
}

/* val(row, col) *= l[row] * r[col] (either may be NULL) */
template <int BS>
__global__ static void DiagonalScaleKernel(int bs, int mbs, int G, const int *__restrict__ rowptr, const int *__restrict__ colidx, const Scalar *__restrict__ l, const Scalar *__restrict__ rv, Scalar *val)
{
  int r, lane;

  if (!GroupRow(mbs, G, &r, &lane)) return;
  ForRowEntries<BS>(bs, rowptr[r], rowptr[r + 1], lane, G, [&](I64 e, int k, int j, int i) {
    Scalar s = l ? l[(I64)r * bs + i] : (Scalar)1;

    if (rv) s *= rv[(I64)colidx[k] * bs + j];
    val[e] *= s;
  });
}

/* Position of block column c in ycol[beg, end) (sorted), -1 if absent */
__device__ __forceinline__ int FindBlock(const int *__restrict__ ycol, int beg, int end, int c)
{
  int lo = beg, hi = end;

  while (lo < hi) { /* the first position whose column is not below c */
    const int mid = lo + ((hi - lo) >> 1);

    if (ycol[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return (lo < end && ycol[lo] == c) ? lo : -1;
}

/* Y += a X, X's blocks a subset of Y's: each block of X's row r is found in Y's row r (binary search; xcolmap maps X's
   block columns to Y's when they are numbered differently); a block not found sets *missing */
template <int BS>
__global__ static void AXPYSubsetKernel(int bs, int mbs, int G, Scalar a, const int *__restrict__ xrowptr, const int *__restrict__ xcolidx, const int *__restrict__ xcolmap, const Scalar *__restrict__ xval, const int *__restrict__ yrowptr, const int *__restrict__ ycolidx, Scalar *yval, int *missing)
{
  int r, lane, lastk = -1, pos = -1;

  if (!GroupRow(mbs, G, &r, &lane)) return;
  const int ybeg = yrowptr[r], yend = yrowptr[r + 1];
  const I64 bs2 = (I64)bs * bs;
  ForRowEntries<BS>(bs, xrowptr[r], xrowptr[r + 1], lane, G, [&](I64 e, int k, int j, int i) {
    if (k != lastk) { /* a lane meets the same block for several entries in a row */
      const int c = xcolmap ? xcolmap[xcolidx[k]] : xcolidx[k];

      pos   = FindBlock(ycolidx, ybeg, yend, c);
      lastk = k;
      if (pos < 0) *missing = 1;
    }
    if (pos >= 0) yval[(I64)pos * bs2 + (I64)j * bs + i] += a * xval[e];
  });
}

/* Zeroes the rows and columns whose mask is set (a square matrix), with diag on their diagonal; with b: first
   b[row] -= A(row, col) x[col] for unmasked rows and masked columns (atomic: the lanes of a row share b[row]) */
template <int BS>
__global__ static void ZeroRowsColumnsKernel(int bs, int mbs, int G, const int *__restrict__ rowptr, const int *__restrict__ colidx, const int *__restrict__ mask, Scalar diag, const Scalar *__restrict__ x, Scalar *b, Scalar *val)
{
  int r, lane;

  if (!GroupRow(mbs, G, &r, &lane)) return;
  ForRowEntries<BS>(bs, rowptr[r], rowptr[r + 1], lane, G, [&](I64 e, int k, int j, int i) {
    const I64 row = (I64)r * bs + i, col = (I64)colidx[k] * bs + j;
    const int mr = mask[row], mc = mask[col];

    if (mr || mc) {
      if (!mr && b) atomicAdd(b + row, -val[e] * x[col]);
      val[e] = row == col ? diag : (Scalar)0;
    }
  });
}

/* Zeroes the listed rows (local row numbers), diag on their diagonal entries (diagpos: every listed row has its
   diagonal block when diag is not 0): G lanes per listed row, striding over its (block, column) pairs */
__global__ static void ZeroRowsKernel(int bs, int n, int G, const int *__restrict__ rows, const int *__restrict__ rowptr, const int *__restrict__ diagpos, Scalar diag, Scalar *val)
{
  const I64 tid = (I64)blockIdx.x * blockDim.x + threadIdx.x;
  const int q = (int)(tid / G), lane = (int)(tid & (G - 1));

  if (q >= n) return;
  const int row = rows[q], r = row / bs, i = row - r * bs, beg = rowptr[r], p = diagpos[r];
  const I64 cnt = (I64)(rowptr[r + 1] - beg) * bs, bs2 = (I64)bs * bs;

  for (I64 t = lane; t < cnt; t += G) {
    const int k = beg + (int)(t / bs), j = (int)(t % bs);

    val[(I64)k * bs2 + (I64)j * bs + i] = (k == p && j == i) ? diag : (Scalar)0;
  }
}

/* b[rows[q]] = diag x[rows[q]] */
__global__ static void FixRHSKernel(int n, const int *__restrict__ rows, Scalar diag, const Scalar *__restrict__ x, Scalar *b)
{
  for (I64 q = (I64)blockIdx.x * blockDim.x + threadIdx.x; q < n; q += (I64)gridDim.x * blockDim.x) b[rows[q]] = diag * x[rows[q]];
}

__global__ static void MarkRowsKernel(int n, const int *__restrict__ rows, int *mask)
{
  for (I64 q = (I64)blockIdx.x * blockDim.x + threadIdx.x; q < n; q += (I64)gridDim.x * blockDim.x) mask[rows[q]] = 1;
}

/* ------------------------------------------------------------------------------------------------ launch helpers */
/* grid of a grid-stride loop over n items */
static unsigned StrideGrid(I64 n)
{
  const I64 g = (n + kThreads - 1) / kThreads;

  return (unsigned)(g < 1 ? 1 : (g > (I64)65535 * 64 ? (I64)65535 * 64 : g));
}

/* lanes per block row (or listed row): the mean number of entries a row holds, rounded up to a power of two, 2..32 */
static int GroupLanes(I64 entries, I64 rows)
{
  const I64 mean = rows > 0 ? (entries + rows - 1) / rows : 1;
  int       G    = 2;

  while (G < 32 && G < mean) G *= 2;
  return G;
}

/* grid of a row kernel: one group of G lanes per row */
static PetscErrorCode RowGrid(int nrows, int G, unsigned *grid)
{
  const I64 g = ((I64)nrows * G + kThreads - 1) / kThreads;

  PetscFunctionBegin;
  PetscCheck(g <= (I64)INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %d rows need too many thread blocks", MATSEQBAIJKSPARSE, nrows);
  *grid = (unsigned)PetscMax(g, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the instance of a row kernel for the block size: bs 1..8 folded at compile time, else the generic one */
#define PBG_ROW_KERNEL_DISPATCH(KERNEL, bs, grid, stream, ...) \
  do { \
    switch (bs) { \
    case 1: \
      KERNEL<1><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    case 2: \
      KERNEL<2><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    case 3: \
      KERNEL<3><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    case 4: \
      KERNEL<4><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    case 5: \
      KERNEL<5><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    case 6: \
      KERNEL<6><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    case 7: \
      KERNEL<7><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    case 8: \
      KERNEL<8><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
      break; \
    default: \
      KERNEL<0><<<grid, kThreads, 0, stream>>>(__VA_ARGS__); \
    } \
  } while (0)
/* ------------------------------------------------------------------------------------------------ block weights */
/* a thread per block: the sum of |entry| (absval) or of the entries (real parts) over the entries (i, j) whose rows i
   and columns j are both in the mask (bit i; all bits set: every entry), the edge weight of PCGAMG's graph */
__global__ static void BlockWeightsKernel(int bs, int nz, unsigned long long mask, int absval, const Scalar *__restrict__ val, Scalar *__restrict__ w)
{
  const int bs2 = bs * bs;

  for (I64 k = (I64)blockIdx.x * blockDim.x + threadIdx.x; k < nz; k += (I64)gridDim.x * blockDim.x) {
    const Scalar *b = val + k * bs2;
    double        s = 0;

    for (int j = 0; j < bs; j++) {
      if (!(mask >> j & 1ULL)) continue;
      for (int i = 0; i < bs; i++)
        if (mask >> i & 1ULL) s += absval ? fabs(PetscRealPart(b[j * bs + i])) : PetscRealPart(b[j * bs + i]);
    }
    w[k] = s;
  }
}

} // namespace baijk
} // namespace pbg

using namespace pbg::baijk;

PetscErrorCode MatBAIJKSPARSEDiagonalUpdate_CUDA(int bs, int mbs, const int *diagpos, const PetscScalar *d, PetscScalar a, PetscBool insert, PetscScalar *val, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!mbs) PetscFunctionReturn(PETSC_SUCCESS);
  DiagonalUpdateKernel<<<StrideGrid((I64)mbs * bs), kThreads, 0, stream>>>(bs, mbs, diagpos, d, a, insert ? 1 : 0, val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGetDiagonal_CUDA(int bs, int mbs, const int *diagpos, const PetscScalar *val, PetscScalar *v, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!mbs) PetscFunctionReturn(PETSC_SUCCESS);
  GetDiagonalKernel<<<StrideGrid((I64)mbs * bs), kThreads, 0, stream>>>(bs, mbs, diagpos, val, v);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEDiagonalScale_CUDA(int bs, int mbs, int nz, const int *rowptr, const int *colidx, const PetscScalar *l, const PetscScalar *r, PetscScalar *val, cudaStream_t stream)
{
  const int G = GroupLanes((I64)nz * bs * bs, mbs);
  unsigned  grid;

  PetscFunctionBegin;
  if (!mbs || !nz || (!l && !r)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(RowGrid(mbs, G, &grid));
  PBG_ROW_KERNEL_DISPATCH(DiagonalScaleKernel, bs, grid, stream, bs, mbs, G, rowptr, colidx, l, r, val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEAXPYSubset_CUDA(int bs, int mbs, int xnz, PetscScalar a, const int *xrowptr, const int *xcolidx, const int *xcolmap, const PetscScalar *xval, const int *yrowptr, const int *ycolidx, PetscScalar *yval, int *missing, cudaStream_t stream)
{
  const int G = GroupLanes((I64)xnz * bs * bs, mbs);
  unsigned  grid;

  PetscFunctionBegin;
  if (!mbs || !xnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(RowGrid(mbs, G, &grid));
  PBG_ROW_KERNEL_DISPATCH(AXPYSubsetKernel, bs, grid, stream, bs, mbs, G, a, xrowptr, xcolidx, xcolmap, xval, yrowptr, ycolidx, yval, missing);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEZeroRows_CUDA(int bs, int mbs, int nz, int n, const int *rows, const int *rowptr, const int *diagpos, PetscScalar diag, PetscScalar *val, cudaStream_t stream)
{
  const int G = GroupLanes((I64)nz * bs, mbs);
  unsigned  grid;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(RowGrid(n, G, &grid));
  ZeroRowsKernel<<<grid, kThreads, 0, stream>>>(bs, n, G, rows, rowptr, diagpos, diag, val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEFixRHS_CUDA(int n, const int *rows, PetscScalar diag, const PetscScalar *x, PetscScalar *b, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FixRHSKernel<<<StrideGrid(n), kThreads, 0, stream>>>(n, rows, diag, x, b);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEMarkRows_CUDA(int n, const int *rows, int *mask, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  MarkRowsKernel<<<StrideGrid(n), kThreads, 0, stream>>>(n, rows, mask);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEZeroRowsColumns_CUDA(int bs, int mbs, int nz, const int *rowptr, const int *colidx, const int *mask, PetscScalar diag, const PetscScalar *x, PetscScalar *b, PetscScalar *val, cudaStream_t stream)
{
  const int G = GroupLanes((I64)nz * bs * bs, mbs);
  unsigned  grid;

  PetscFunctionBegin;
  if (!mbs || !nz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(RowGrid(mbs, G, &grid));
  PBG_ROW_KERNEL_DISPATCH(ZeroRowsColumnsKernel, bs, grid, stream, bs, mbs, G, rowptr, colidx, mask, diag, x, b, val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEBlockWeights_CUDA(int bs, int nz, unsigned long long mask, PetscBool absval, const PetscScalar *val, PetscScalar *w, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!nz) PetscFunctionReturn(PETSC_SUCCESS);
  BlockWeightsKernel<<<StrideGrid((I64)nz), kThreads, 0, stream>>>(bs, nz, mask, absval ? 1 : 0, val, w);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
