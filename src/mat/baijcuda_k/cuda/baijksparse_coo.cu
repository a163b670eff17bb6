/* The gather of MatSetValuesCOO() on MATBAIJKSPARSE (host logic in ../baijksparse_coo.c): one template family for the
   three uses (the local entries of a part with or without summation, the entries received from other ranks, the
   packing of the entries sent to them). A thread per output slot: the slots, jmap and the output are read and written
   in order (coalesced); only v is read through the permutation. No atomics: the summation order is fixed. */
#include "../baijksparsecuda.h"
#include <petscdevice_cuda.h>

namespace pbg
{
namespace baijk
{
/* ADD: val[s] += sum, else val[s] = sum; SUM: sum over jmap[t]..jmap[t+1] (else one entry perm[t]); IMAP: s = imap[t] */
template <bool ADD, bool SUM, bool IMAP>
__global__ static void COOGatherKernel(long long n, const int *__restrict__ imap, const int *__restrict__ jmap, const int *__restrict__ perm, const PetscScalar *__restrict__ v, PetscScalar *__restrict__ val)
{
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n; t += (long long)gridDim.x * blockDim.x) {
    const long long s = IMAP ? (long long)imap[t] : t;
    PetscScalar     sum;

    if (SUM) {
      const int beg = jmap[t], end = jmap[t + 1];

      if (ADD && beg == end) continue; /* untouched: no read-modify-write */
      sum = 0;
      for (int p = beg; p < end; p++) sum += v[perm[p]];
    } else sum = v[perm[t]];
    val[s] = ADD ? val[s] + sum : sum;
  }
}

} // namespace baijk
} // namespace pbg

using namespace pbg::baijk;

template <bool ADD, bool SUM, bool IMAP>
static PetscErrorCode Launch(long long n, const int *imap, const int *jmap, const int *perm, const PetscScalar *v, PetscScalar *val, cudaStream_t stream)
{
  const int       threads = 256;
  const long long blocks  = PetscMin((n + threads - 1) / threads, (long long)1 << 30); /* grid-stride beyond */

  PetscFunctionBegin;
  COOGatherKernel<ADD, SUM, IMAP><<<(unsigned)blocks, threads, 0, stream>>>(n, imap, jmap, perm, v, val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSECOOGather_CUDA(PetscCount n, const int *imap, const int *jmap, const int *perm, const PetscScalar *v, PetscScalar *val, PetscBool add, cudaStream_t stream)
{
  const long long nn = (long long)n;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (imap) { /* entries from other ranks: always added (after the local ones), always summed */
    PetscCheck(add && jmap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO gather through imap must add and sum");
    PetscCall((Launch<true, true, true>(nn, imap, jmap, perm, v, val, stream)));
  } else if (jmap) {
    if (add) PetscCall((Launch<true, true, false>(nn, NULL, jmap, perm, v, val, stream)));
    else PetscCall((Launch<false, true, false>(nn, NULL, jmap, perm, v, val, stream)));
  } else {
    if (add) PetscCall((Launch<true, false, false>(nn, NULL, NULL, perm, v, val, stream)));
    else PetscCall((Launch<false, false, false>(nn, NULL, NULL, perm, v, val, stream)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
