/* The agglomeration kernels of PCVBJACOBI's supervariable blocking, included by vbjacobi_blocks.cu (nvcc) and by the
   host warp emulator of the tests (tests/test_emu_blocking.cxx), so that CI checks them without a GPU.

   The paper's blocking (MAGMA-sparse; Ginkgo's Jacobi does the same, in a single thread) merges adjacent natural
   blocks ("units") greedily from the first while the merged block stays within maxbs rows. That scan is serial as
   written, but it has a parallel form:
   - the successor of unit u is next(u), the furthest unit start within maxbs rows of u's start (a bisection over at
     most maxbs unit starts, since every unit has at least one row): a block that starts at u ends at next(u);
   - the blocks chosen are the units on the successor chain from unit 0: 0, next(0), next(next(0)), ...
   The chain is marked by pointer jumping, four ways: after round r, jump[u] = next^(4^(r+1))(u) and every unit of the
   chain within 4^(r+1) steps of unit 0 is marked. A round marks jump[u], jump^2[u] and jump^3[u] for each marked u and
   quadruples the jumps (doubling took twice the rounds: at 1M rows of 1 x 1 supervariables and bound 16, 17 launches
   and more than twice the time of the natural detection); marks are only ever set on chain units, so a mark that a
   round sets and another thread of the same round reads early does no harm. The chain has at most 2 ceil(n/maxbs) + 1
   blocks (two neighbouring blocks together exceed maxbs rows), which bounds the rounds without reading the unit count
   back. (measured: doc/benchmarks.md, "Measurements behind design choices") */
#pragma once

namespace pbg::vbj
{

/* The units, their count and the work arrays of the agglomeration (all device memory, nunits_ptr[0] = U) */
struct AgglomerateWork {
  const int *units;      /* [U+1] first row of each unit, units[U] = n */
  const int *nunits_ptr; /* [1] U, written by the natural detection on the device */
  int       *next;       /* [U+1] successor of each unit; next[U] = U */
  int       *jump_a, *jump_b;
  int       *mark; /* [U+1] 1 on the chain from unit 0 */
};

/* next[u] = the largest v in (u, min(U, u + maxbs)] with units[v] - units[u] <= maxbs; starts the jumps and marks.
   Threads u in 0..limit, limit >= U (the count lives on the device). */
__global__ void AgglomerateNextKernel(AgglomerateWork w, int limit, int maxbs)
{
  const int u = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (u > limit) return;
  const int U = *w.nunits_ptr;
  if (u > U) return;
  int v = U;
  if (u < U) {
    const int s  = w.units[u];
    int       lo = u + 1, hi = u + maxbs < U ? u + maxbs : U; /* answer in [lo, hi]: units[lo] - s <= maxbs holds */
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (w.units[mid] - s <= maxbs) lo = mid;
      else hi = mid - 1;
    }
    v = lo;
  }
  w.next[u]   = v;
  w.jump_a[u] = v;
  w.mark[u]   = u == 0;
}

/* One round of pointer jumping: marks the units 1, 2 and 3 jumps (of 4^r chain steps) past each marked one, and makes
   the jumps four times as long */
__global__ void AgglomerateJumpKernel(AgglomerateWork w, int limit, const int *__restrict__ jump_in, int *__restrict__ jump_out)
{
  const int u = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (u > limit) return;
  const int U = *w.nunits_ptr;
  if (u > U) return;
  const int j1 = jump_in[u], j2 = jump_in[j1], j3 = jump_in[j2];
  if (w.mark[u]) {
    w.mark[j1] = 1;
    w.mark[j2] = 1;
    w.mark[j3] = 1;
  }
  jump_out[u] = jump_in[j3];
}

/* Rounds needed to mark a chain of at most 2 ceil(n/maxbs) + 1 blocks (and at most n) from its first: 4^rounds >= that */
__host__ __device__ inline int AgglomerateRounds(int n, int maxbs)
{
  const long long chain = 2LL * ((n + maxbs - 1) / maxbs) + 1, len = chain < n ? chain : n;
  int             r = 0;
  while ((1LL << (2 * r)) < len) r++;
  return r;
}
} // namespace pbg::vbj
