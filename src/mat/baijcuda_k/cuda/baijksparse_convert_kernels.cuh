/* Device code of MatConvert() between MATSEQAIJCUSPARSE and MATSEQBAIJKSPARSE (host logic in ../baijksparse_convert.c,
   launchers in baijksparse_convert.cu): the values move on the device, between the CSR arrays of aijcusparse and the
   BSR arrays of baijksparse (blocks bs x bs, column-major), with patterns that the host built from the index arrays.
   One kernel per direction, for every bs (bs is a run-time value: the work is index arithmetic and one read and one
   write per value). Included by baijksparse_convert.cu and by the host warp emulator test (tests/test_emu_convert.cxx). */
#pragma once

#include "../baijksparsecuda.h"
#ifndef PBG_CUDA_EMULATOR
  #include <petscdevice_cuda.h>
#endif

namespace pbg
{
namespace baijk
{

typedef PetscScalar Scalar;

/* The row of position q of a row pointer array ptr[0..n] (ptr[0] <= q < ptr[n]): the last r with ptr[r] <= q, which
   skips empty rows */
__device__ __forceinline__ int RowOf(const int *__restrict__ ptr, int n, long long q)
{
  int lo = 0, hi = n; /* ptr[lo] <= q < ptr[hi] */

  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;

    if ((long long)ptr[mid] <= q) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* CSR -> BSR of rbs x cbs blocks (column-major; square for the conversions, rectangular for the prolongators of the
   blocked products, baijksparse_galerkin.cu), a thread per CSR entry (coalesced reads of the column indices and
   values): entry (i, j) goes to the block (i/rbs, j/cbs), found by binary search in the block row's sorted block
   columns, at slot (i%rbs) + (j%cbs)*rbs. val was zeroed first: the slots no entry reaches (partial blocks) stay 0. An
   entry whose block is missing is not written (the host built or checked the block pattern from the same CSR
   pattern, so none is). */
__global__ static void CSRToBSRKernel(int rbs, int cbs, int m, long long nnz, const int *__restrict__ ci, const int *__restrict__ cj, const Scalar *__restrict__ ca, const int *__restrict__ rowptr, const int *__restrict__ colidx, Scalar *__restrict__ val)
{
  for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < nnz; q += (long long)gridDim.x * blockDim.x) {
    const int i = RowOf(ci, m, q), j = cj[q], r = i / rbs, c = j / cbs;
    int       lo = rowptr[r], hi = rowptr[r + 1]; /* the block column c is in [lo, hi) if present */

    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;

      if (colidx[mid] <= c) lo = mid;
      else hi = mid;
    }
    if (lo < rowptr[r + 1] && colidx[lo] == c) val[(long long)lo * rbs * cbs + (i % rbs) + (long long)(j % cbs) * rbs] = ca[q];
  }
}

/* BSR of rbs x cbs blocks -> CSR whose pattern is every entry of every block (what MatConvert_SeqBAIJ_SeqAIJ() makes):
   a thread per CSR entry (coalesced writes). Block row r holds CSR entries [rowptr[r] rbs cbs, rowptr[r+1] rbs cbs):
   its rbs rows of len*cbs entries each, the blocks of the row in order, the cbs columns of a block in order. */
__global__ static void BSRToCSRKernel(int rbs, int cbs, int mbs, long long n, const int *__restrict__ rowptr, const Scalar *__restrict__ val, Scalar *__restrict__ a)
{
  const long long blk = (long long)rbs * cbs;

  for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < n; q += (long long)gridDim.x * blockDim.x) {
    const int       r     = RowOf(rowptr, mbs, q / blk);
    const long long first = rowptr[r], len = rowptr[r + 1] - first, local = q - first * blk;
    const long long ii = local / (len * cbs), rest = local - ii * len * cbs, t = rest / cbs, jj = rest - t * cbs;

    a[q] = val[(first + t) * blk + ii + jj * rbs];
  }
}

} // namespace baijk
} // namespace pbg
