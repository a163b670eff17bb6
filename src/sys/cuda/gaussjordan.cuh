/* Batched Gauss-Jordan elimination with implicit pivoting, by sub-warp width: the device functions that every batched
   inversion of the project is built from (PCVBJACOBI's merged extraction + inversion, PetscBlockGPUInvertBatched()),
   the width classes of a batch and the counting sort of its blocks by size. Header-only device code in pbg::gj (the
   namespace rule of pbgimpl.h), included by a component's own kernels and by the host warp emulator of the tests
   (tests/emu/cuda_emu.h): plain CUDA C++ on PETSc's scalar types and the warp intrinsics. A sub-warp of P lanes owns
   one block, lane i holds row i in registers; all 32 lanes of a warp run every shuffle and __syncwarp(). */
#pragma once
#include <petscsys.h>
#include <cfloat>
#include <utility>

#define PBG_CTA 128 /* threads per thread block in every kernel here */

namespace pbg::gj
{
/* ------------------------------------------------------------------------------------------- sub-warp helpers */
template <int P>
__device__ __forceinline__ double SubwarpMax(double v)
{
#pragma unroll
  for (int m = P / 2; m >= 1; m /= 2) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, m, P));
  return v;
}

/* ------------------------------------------------------------------------------------------- Gauss-Jordan */
/* The pivot of a step: the lowest lane of the sub-warp holding the largest |f| among the rows not yet used as
   pivots (the host's choice). best receives that |f|. At P = 32 it is two 32-bit warp max-reductions on the bits of
   |f| (IEEE order = unsigned integer order for non-negative doubles) and a ballot; narrower sub-warps reduce by
   shuffles and take the lowest lane of a ballot. */
template <int P>
__device__ __forceinline__ int PivotLane(double f, bool used, double &best)
{
  const double a = fabs(f);
  unsigned     hit;

  if constexpr (P == 32) {
    const unsigned hi = used ? 0u : (unsigned)__double2hiint(a) + 1u; /* used rows lose to every unused one */
    const unsigned mh = __reduce_max_sync(0xffffffffu, hi);
    const unsigned lo = hi == mh ? (unsigned)__double2loint(a) : 0u;
    const unsigned ml = __reduce_max_sync(0xffffffffu, lo);
    hit               = __ballot_sync(0xffffffffu, hi == mh && lo == ml);
    best              = mh ? __hiloint2double((int)(mh - 1u), (int)ml) : -1.0;
  } else {
    best            = SubwarpMax<P>(used ? -1.0 : a);
    const int first = (int)(threadIdx.x % 32) & ~(P - 1); /* the sub-warp's first lane in the warp */
    hit             = (__ballot_sync(0xffffffffu, !used && a == best) >> first) & ((1u << P) - 1u);
  }
  return hit ? __ffs(hit) - 1 : 0; /* no hit only for NaN, whose block has already failed */
}

/* Widths up to which the step loop is unrolled. A warp runs the instance of its largest block, so a batch of mixed
   sizes runs all instances at once: unrolled ones up to 16 made mixed 1..16 batches 3x slower than with the loop
   rolled beyond 8 on an H100 (instruction-cache misses), and with the rotating columns a rolled loop costs only its
   counter. Rolled beyond 4 against beyond 8: mixed 1..8 1.29x and mixed 1..16 1.17x faster, uniform 8..16 within
   0.96x. */
#ifndef PBG_GJ_UNROLL_MAX
  #define PBG_GJ_UNROLL_MAX 4
#endif
constexpr int GaussJordanUnrollMax = PBG_GJ_UNROLL_MAX; /* (pragma arguments are not macro-expanded) */

/* Gauss-Jordan elimination with implicit pivoting, in place, of the W x W matrix whose row `lane` this lane holds
   in row[0..W-1], as PCVBJacobiInvertBlock_Host() does it (same pivots, same failure rule); a block of k < W rows
   (a smaller block in a warp whose largest has W rows) is padded with the identity, which adds steps that change
   nothing. Returns the host's info: 0, the failing column + 1, or -1 for NaN/Inf.

   Two changes to the textbook loop keep it to one shuffle and one FMA per entry and step, with no selects:
   - the columns rotate: the pivot column is always row[0], and the new column of the inverse enters at row[W-1],
     so after W steps row[j] is column j again; the step loop can stay rolled (beyond PBG_GJ_UNROLL_MAX, where
     unrolling costs instruction-cache misses) with every register index known at compile time;
   - the pivot row is not scaled when it pivots; its scale 1/pivot is kept aside (`scale`) and applied when the
     inverse is stored: the other rows subtract (f/pivot) times the raw pivot row, and the pivot row itself,
     with factor 0, stays as it is.
   On success scale*row[j] is entry (pivstep, ipiv[j]) of the inverse: pivstep is the step at which this row was
   the pivot and ipiv[j] the pivot row of step j. */
template <int P, int W>
__device__ __forceinline__ int GaussJordan(int k, int lane, double (&row)[P], int &pivstep, double &scale, int *sipiv)
{
  double amax = 0.0, bad = 0.0;
  bool   used = lane >= W; /* lanes past the padded block never pivot */

#pragma unroll
  for (int t = 0; t < W; t++) {
    if (t < k && lane < k) {
      if (!isfinite(row[t])) bad = 1.0;
      amax = fmax(amax, fabs(row[t]));
    }
  }
  bad  = SubwarpMax<P>(bad);
  amax = SubwarpMax<P>(amax);
#pragma unroll
  for (int t = 0; t < W; t++)
    if (t == lane && lane >= k) row[t] = 1.0; /* the identity padding (row[] was zeroed) */
  const double tiny = (double)k * DBL_EPSILON * amax;
  int          info = bad > 0.0 ? -1 : 0;
  pivstep           = -1;
  scale             = 1.0;

#pragma unroll(W <= GaussJordanUnrollMax ? W : 1)
  for (int kk = 0; kk < W; kk++) {
    const double f = row[0];
    double       best;
    const int    p = PivotLane<P>(f, used, best);
    if (info == 0 && kk < k && !(best > tiny)) info = kk + 1;
    const bool   pivot = lane == p;
    const double d     = 1.0 / __shfl_sync(0xffffffffu, f, p, P);
    const double g     = pivot ? 0.0 : f * d;
    if (pivot) {
      used    = true;
      pivstep = kk;
      scale   = d;
      if (info == 0) sipiv[kk] = p;
    }
#pragma unroll
    for (int j = 1; j < W; j++) row[j - 1] = fma(-g, __shfl_sync(0xffffffffu, row[j], p, P), row[j]);
    row[W - 1] = pivot ? 1.0 : -g;
  }
  __syncwarp(); /* sipiv, written by the pivot lanes, is read by all */
  return info;
}

/* Calls GaussJordan<P, W> for the run-time W = kwarp (warp-uniform). The launches are made per width class, so a
   sub-warp of P lanes holds blocks of P/2+1..P rows: only those P/2 instances exist (half the code of all 1..P, and a
   warp switching between instances misses the instruction cache less). A warp of smaller blocks (a block source whose
   classes disagree with WidthClass(), or a test launching any size at any width) runs the W = P instance, which pads
   them with the identity: slower, still exact. kwarp = 0 (no block in the warp) runs nothing. */
template <int P, int... Ws>
__device__ __forceinline__ int GaussJordanDispatch(std::integer_sequence<int, Ws...>, int kwarp, int k, int lane, double (&row)[P], int &pivstep, double &scale, int *sipiv)
{
  constexpr int W0   = P / 2 + 1; /* the smallest size of the class */
  int           info = 0;
  if (kwarp > 0 && kwarp < W0) kwarp = P;
  (void)((kwarp == W0 + Ws && ((info = GaussJordan<P, W0 + Ws>(k, lane, row, pivstep, scale, sipiv)), true)) || ...);
  return info;
}

/* ------------------------------------------------------------------------------------------- width classes */
/* The setup is launched once per width class: class c holds the blocks of k in (2^c / 2, 2^c] rows (class 0: k <= 1)
   and runs at P = 2^c lanes per block, so a warp holds blocks of similar size and runs about their own number of
   steps (one launch at the width of the largest block made a 1 x 1 block take a whole warp in a batch of sizes
   1..32, and every warp run the steps of its largest block). Classes 0 and 1 run together, a thread per block
   (SetupSmall). Blocks stay where they are stored (offsets[]): a class launch takes its blocks through a
   permutation that groups them by class, so only the order of the work changes. */
constexpr int NumWidthClasses = 6; /* P = 1, 2, 4, 8, 16, 32 */

__host__ __device__ constexpr int WidthClass(int k)
{
  return k <= 1 ? 0 : k <= 2 ? 1 : k <= 4 ? 2 : k <= 8 ? 3 : k <= 16 ? 4 : 5;
}

/* The work order sorts the blocks by size, not only by class: a warp runs the GaussJordan<P, W> instance of its
   largest block, W = P/2+1..P, and warps running different instances at once on an SM miss the instruction cache
   (16 instances of up to ~2 KB at P = 32). Measured (H100, bench_invert, 500000 blocks, % of the bandwidth floor):
   one launch at the largest width: mixed 1..16 11.1%, 1..32 8.6%; grouped by class, random sizes within a class:
   23.6% and 13.3%; sorted by size: 39.6% and 37.9% (mixed 1..8 36.9%, uniform 16 and 32: 55% and 47%). The sort costs
   the same as the grouping (a count and a scatter, one pass each), with 33 keys instead of 6. */
constexpr int NumSizeKeys = 33; /* sizes 0..32 */

/* The size and the storage offset of block b. sizes[] wins, then starts[]; with neither, every block has kmax rows
   (a uniform batch of PetscBlockGPUInvertBatched() called with NULL sizes). With NULL offsets the blocks are packed
   back to back, kmax x kmax each: a uniform batch then reads no metadata at all (n = 1 read 32 bytes a block with
   them, 8 of them the block itself). */
__device__ __forceinline__ int BlockSize(int b, int kmax, const int *__restrict__ starts, const int *__restrict__ sizes)
{
  return sizes ? sizes[b] : starts ? starts[b + 1] - starts[b] : kmax;
}
__device__ __forceinline__ PetscInt64 BlockOffset(int b, int kmax, const PetscInt64 *__restrict__ offsets)
{
  return offsets ? offsets[b] : (PetscInt64)b * kmax * kmax;
}

/* The sort key of block b: its size; a size outside 0..kmax (a bad argument of PetscBlockGPUInvertBatched(), info -2)
   gets key 0, class 0: its launch is the cheapest that writes the info */
struct SizeKey {
  static constexpr int           count = NumSizeKeys;
  int                            kmax;
  const int                     *starts, *sizes;
  __device__ __forceinline__ int operator()(int b) const
  {
    const int k = BlockSize(b, kmax, starts, sizes);
    return k < 0 || k > kmax ? 0 : k;
  }
};

#define PBG_CLASS_ITEMS 8 /* blocks per thread in the sort kernels: a thread block takes 1024 consecutive blocks */

/* f(block, key) for each of the thread block's blocks (block -1, key -1 past the end), one round of PBG_CTA at a time */
template <class Key, class F>
__device__ __forceinline__ void ForKeyRounds(int nblocks, const Key &key, F f)
{
  for (int j = 0; j < PBG_CLASS_ITEMS; j++) {
    const int b = ((int)blockIdx.x * PBG_CLASS_ITEMS + j) * PBG_CTA + (int)threadIdx.x;
    f(b < nblocks ? b : -1, b < nblocks ? key(b) : -1);
  }
}

/* The thread block's count of each key, in cnt[Key::count] (shared); ends with a __syncthreads() */
template <class Key>
__device__ __forceinline__ void CountKeys(int nblocks, const Key &key, int *cnt)
{
  if (threadIdx.x < Key::count) cnt[threadIdx.x] = 0;
  __syncthreads();
  ForKeyRounds(nblocks, key, [&](int, int k) {
    const unsigned peers = __match_any_sync(0xffffffffu, k); /* one shared atomic per key and warp */
    if (k >= 0 && ((int)threadIdx.x % 32) == __ffs(peers) - 1) atomicAdd(&cnt[k], __popc(peers));
  });
  __syncthreads();
}

/* counts[key] += the number of blocks with that key: one atomic per key and thread block. counts[] must start at
   zero. */
template <class Key>
__global__ void __launch_bounds__(PBG_CTA) KeyCountKernel(int nblocks, Key key, int *counts)
{
  __shared__ int cnt[Key::count];

  CountKeys(nblocks, key, cnt);
  if (threadIdx.x < Key::count && cnt[threadIdx.x]) atomicAdd(&counts[threadIdx.x], cnt[threadIdx.x]);
}

/* perm[] = the block ids sorted by key, from counts[] (KeyCountKernel's, complete) and cursor[] (zero at the start): a
   counting sort. Each thread block reserves, with one atomic per key on cursor[key], a run of that key's positions and
   fills its runs in ascending block order (ranks among the warp's peers, warp totals through shared memory). Runs of
   different thread blocks follow in the order they reserved: the order of the work, which changes no result. Reads
   the keys twice (the second time from cache) and writes perm: 8 bytes a block, against the 4 to 5 kernels and
   temporary storage of cub::DeviceRadixSort for the same. */
template <class Key>
__global__ void __launch_bounds__(PBG_CTA) KeyPermKernel(int nblocks, Key key, const int *__restrict__ counts, int *cursor, int *__restrict__ perm)
{
  constexpr int  NK = Key::count;
  __shared__ int cnt[NK], pos[NK], wcnt[PBG_CTA / 32][NK];
  const int      lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;

  CountKeys(nblocks, key, cnt);
  if (threadIdx.x < NK) {
    int begin = 0; /* the key's first position: the blocks of smaller keys */
    for (int q = 0; q < (int)threadIdx.x; q++) begin += counts[q];
    pos[threadIdx.x] = cnt[threadIdx.x] ? begin + atomicAdd(&cursor[threadIdx.x], cnt[threadIdx.x]) : 0;
  }
  ForKeyRounds(nblocks, key, [&](int b, int k) {
    for (int e = (int)threadIdx.x; e < (PBG_CTA / 32) * NK; e += PBG_CTA) wcnt[e / NK][e % NK] = 0;
    __syncthreads();
    const unsigned peers = __match_any_sync(0xffffffffu, k);
    const int      rank  = __popc(peers & ((1u << lane) - 1u));
    if (k >= 0 && rank == 0) wcnt[warp][k] = __popc(peers);
    __syncthreads();
    if (k >= 0) {
      int at = pos[k] + rank;
      for (int w = 0; w < warp; w++) at += wcnt[w][k];
      perm[at] = b;
    }
    __syncthreads();
    if (threadIdx.x < NK)
      for (int w = 0; w < PBG_CTA / 32; w++) pos[threadIdx.x] += wcnt[w][threadIdx.x];
    __syncthreads(); /* wcnt is read before the next round clears it */
  });
}

/* info of a finite block whose inverse overflows (PC_VBJACOBI_INFO_INVERSE_NOT_FINITE of petscblockgpu.h): a block of
   entries near 1e-310 passes the relative pivot rule and its reciprocals are Inf. It fails like a singular block (or
   takes the identity under that policy): a non-finite inverse must never reach the apply. */
constexpr int InfoInverseNotFinite = -3;
} // namespace pbg::gj
