/* Device code of the blocked sparse products of MATSEQBAIJKSPARSE and MATMPIBAIJKSPARSE (launchers in
   baijksparse_galerkin.cu, host logic in ../baijksparse_galerkin.c and ../baijksparse_galerkin_mpi.c): the block-pair
   keys of the patterns, the pattern of sorted keys, the values of A B and P^T Q, and the two kernels of the MPI products
   (an operator's parts side by side, the fixed-order block gather). Included by baijksparse_galerkin.cu and by the host
   warp emulator test (tests/test_emu_galerkin.cxx). */
#pragma once

#include "baijksparse_convert_kernels.cuh" /* RowOf(), and the CSR <-> BSR value kernels of rectangular blocks */

namespace pbg
{
namespace baijk
{
typedef PetscScalar        Scalar;
typedef long long          I64;
typedef unsigned long long Key;

/* the position of column c among colidx[lo, hi) (sorted), -1 when absent */
__device__ __forceinline__ int GalerkinFind(const int *__restrict__ colidx, int lo, int end, int c)
{
  int hi = end;

  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;

    if (colidx[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && colidx[lo] == c ? lo : -1;
}

/* key of every CSR entry: its block row and block column */
__global__ static void CSRBlockKeysKernel(int m, I64 nnz, int rbs, int cbs, Key nb, const int *__restrict__ ci, const int *__restrict__ cj, Key *__restrict__ keys)
{
  for (I64 q = blockIdx.x * (I64)blockDim.x + threadIdx.x; q < nnz; q += (I64)gridDim.x * blockDim.x) {
    const int r = pbg::baijk::RowOf(ci, m, q);

    keys[q] = (Key)(r / rbs) * nb + (Key)(cj[q] / cbs);
  }
}

/* rowptr[r] = the first sorted key of row r or later; colidx[q] = the column of key q */
__global__ static void PatternOfKeysKernel(int mb, I64 nz, Key nb, const Key *__restrict__ keys, int *__restrict__ rowptr, int *__restrict__ colidx)
{
  for (I64 t = blockIdx.x * (I64)blockDim.x + threadIdx.x; t < nz + mb + 1; t += (I64)gridDim.x * blockDim.x) {
    if (t < nz) colidx[t] = (int)(keys[t] % nb);
    else {
      const Key r = (Key)(t - nz), first = r * nb;
      I64       lo = 0, hi = nz;

      while (lo < hi) {
        const I64 mid = lo + (hi - lo) / 2;

        if (keys[mid] < first) lo = mid + 1;
        else hi = mid;
      }
      rowptr[r] = (int)lo;
    }
  }
}

/* A B: the number of contributions of each block of A (the blocks of B's row that it meets) */
__global__ static void ProductCountsKernel(int nza, const int *__restrict__ acol, const int *__restrict__ browptr, I64 *__restrict__ counts)
{
  for (I64 e = blockIdx.x * (I64)blockDim.x + threadIdx.x; e < nza; e += (I64)gridDim.x * blockDim.x) counts[e] = browptr[acol[e] + 1] - browptr[acol[e]];
}

__global__ static void ProductKeysKernel(int mba, int nza, const int *__restrict__ arowptr, const int *__restrict__ acol, const int *__restrict__ browptr, const int *__restrict__ bcol, Key nb, const I64 *__restrict__ offsets, Key *__restrict__ keys)
{
  for (I64 e = blockIdx.x * (I64)blockDim.x + threadIdx.x; e < nza; e += (I64)gridDim.x * blockDim.x) {
    const int i = pbg::baijk::RowOf(arowptr, mba, e), k = acol[e];
    I64       o = offsets[e];

    for (int f = browptr[k]; f < browptr[k + 1]; f++) keys[o++] = (Key)i * nb + (Key)bcol[f];
  }
}

/* P^T Q: block row k contributes |P_k| |Q_k| pairs */
__global__ static void TransposeCountsKernel(int mb, const int *__restrict__ prowptr, const int *__restrict__ qrowptr, I64 *__restrict__ counts)
{
  for (I64 k = blockIdx.x * (I64)blockDim.x + threadIdx.x; k < mb; k += (I64)gridDim.x * blockDim.x) counts[k] = (I64)(prowptr[k + 1] - prowptr[k]) * (qrowptr[k + 1] - qrowptr[k]);
}

__global__ static void TransposeKeysKernel(int mb, const int *__restrict__ prowptr, const int *__restrict__ pcol, const int *__restrict__ qrowptr, const int *__restrict__ qcol, Key nb, const I64 *__restrict__ offsets, Key *__restrict__ keys)
{
  for (I64 k = blockIdx.x * (I64)blockDim.x + threadIdx.x; k < mb; k += (I64)gridDim.x * blockDim.x) {
    I64 o = offsets[k];

    for (int f = prowptr[k]; f < prowptr[k + 1]; f++)
      for (int g = qrowptr[k]; g < qrowptr[k + 1]; g++) keys[o++] = (Key)pcol[f] * nb + (Key)qcol[g];
  }
}

/* C = A B, a warp per block row i of A; C's values were zeroed. Entry t = a + c rbs of a C block (a < A's rbs, c < B's
   cbs) belongs to lane t % 32. */
__global__ static void BlockProductKernel(int mba, int rbs, int kbs, int cbs, const int *__restrict__ arowptr, const int *__restrict__ acol, const Scalar *__restrict__ aval, const int *__restrict__ browptr, const int *__restrict__ bcol, const Scalar *__restrict__ bval, const int *__restrict__ crowptr, const int *__restrict__ ccol, Scalar *__restrict__ cval)
{
  const int lane = threadIdx.x % 32, nwarps = gridDim.x * (blockDim.x / 32);
  const int ablk = rbs * kbs, bblk = kbs * cbs, cblk = rbs * cbs;

  for (int i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; i < mba; i += nwarps) {
    for (int e = arowptr[i]; e < arowptr[i + 1]; e++) {
      const Scalar *ab = aval + (I64)e * ablk;
      const int     k  = acol[e];

      for (int f = browptr[k]; f < browptr[k + 1]; f++) {
        const Scalar *bb = bval + (I64)f * bblk;
        const int     p  = GalerkinFind(ccol, crowptr[i], crowptr[i + 1], bcol[f]);
        Scalar       *cb = cval + (I64)p * cblk;

        if (p < 0) continue; /* not reached: C's pattern was made from the same operands */

        for (int t = lane; t < cblk; t += 32) {
          const int a = t % rbs, c = t / rbs;
          Scalar    s = 0;

          for (int b = 0; b < kbs; b++) s += ab[a + b * rbs] * bb[b + c * kbs];
          cb[t] += s;
        }
      }
    }
  }
}

/* C = P^T Q, a warp per block row k of P and Q (kbs rows each); C's values were zeroed. Entry t = a + c pcbs of C's
   block (P's column a, Q's column c). */
__global__ static void BlockTransposeProductKernel(int mb, int kbs, int pcbs, int qcbs, const int *__restrict__ prowptr, const int *__restrict__ pcol, const Scalar *__restrict__ pval, const int *__restrict__ qrowptr, const int *__restrict__ qcol, const Scalar *__restrict__ qval, const int *__restrict__ crowptr, const int *__restrict__ ccol, Scalar *__restrict__ cval)
{
  const int lane = threadIdx.x % 32, nwarps = gridDim.x * (blockDim.x / 32);
  const int pblk = kbs * pcbs, qblk = kbs * qcbs, cblk = pcbs * qcbs;

  for (int k = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; k < mb; k += nwarps) {
    for (int f = prowptr[k]; f < prowptr[k + 1]; f++) {
      const Scalar *pb = pval + (I64)f * pblk;
      const int     I  = pcol[f];

      for (int g = qrowptr[k]; g < qrowptr[k + 1]; g++) {
        const Scalar *qb = qval + (I64)g * qblk;
        const int     p  = GalerkinFind(ccol, crowptr[I], crowptr[I + 1], qcol[g]);
        Scalar       *cb = cval + (I64)p * cblk;

        if (p < 0) continue; /* not reached: C's pattern was made from the same operands */

        for (int t = lane; t < cblk; t += 32) {
          const int a = t % pcbs, c = t / pcbs;
          Scalar    s = 0;

          for (int b = 0; b < kbs; b++) s += pb[b + a * kbs] * qb[b + c * kbs];
          atomicAdd(cb + t, s);
        }
      }
    }
  }
}

/* The two parts of an MPI operator side by side (block row i: d's blocks, columns shifted by glo, then o's, ghost column g
   at g below glo, at g + nown above): crow = drow + orow first; a warp per block row copies the columns (when ccol) and
   the values */
__global__ static void JoinRowPtrKernel(int mb, const int *__restrict__ drow, const int *__restrict__ orow, int *__restrict__ crow)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= mb; i += gridDim.x * blockDim.x) crow[i] = drow[i] + (orow ? orow[i] : 0);
}

__global__ static void JoinColumnsKernel(int mb, int blk, int glo, int nown, const int *__restrict__ drow, const int *__restrict__ dcol, const Scalar *__restrict__ dval, const int *__restrict__ orow, const int *__restrict__ ocol, const Scalar *__restrict__ oval, const int *__restrict__ crow, int *__restrict__ ccol, Scalar *__restrict__ cval)
{
  const int lane = threadIdx.x % 32, nwarps = gridDim.x * (blockDim.x / 32);

  for (int i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; i < mb; i += nwarps) {
    const int d0 = drow[i], nd = drow[i + 1] - d0, o0 = orow ? orow[i] : 0, no = orow ? orow[i + 1] - o0 : 0;
    const I64 c0 = crow[i];

    if (ccol) {
      for (int e = lane; e < nd; e += 32) ccol[c0 + e] = dcol[d0 + e] + glo;
      for (int e = lane; e < no; e += 32) {
        const int g = ocol[o0 + e];

        ccol[c0 + nd + e] = g < glo ? g : g + nown;
      }
    }
    for (I64 t = lane; t < (I64)nd * blk; t += 32) cval[c0 * blk + t] = dval[(I64)d0 * blk + t];
    for (I64 t = lane; t < (I64)no * blk; t += 32) cval[(c0 + nd) * blk + t] = oval[(I64)o0 * blk + t];
  }
}

/* dst block d = the sum of the source blocks perm[p], p in [jmap[d], jmap[d+1]) (jmap NULL: the one block perm[d]); a
   source below nloc is loc's, the others rcv's (received from other ranks). A thread per value, a fixed order: no atomics */
__global__ static void BlockGatherKernel(I64 n, int blk, const int *__restrict__ jmap, const int *__restrict__ perm, const Scalar *__restrict__ loc, I64 nloc, const Scalar *__restrict__ rcv, Scalar *__restrict__ dst)
{
  for (I64 q = blockIdx.x * (I64)blockDim.x + threadIdx.x; q < n; q += (I64)gridDim.x * blockDim.x) {
    const I64 d = q / blk, t = q % blk;
    const int p0 = jmap ? jmap[d] : (int)d, p1 = jmap ? jmap[d + 1] : (int)d + 1;
    Scalar    s = 0;

    for (int p = p0; p < p1; p++) {
      const I64 src = perm[p];

      s += src < nloc ? loc[src * blk + t] : rcv[(src - nloc) * blk + t];
    }
    dst[q] = s;
  }
}

} // namespace baijk
} // namespace pbg
