/* Batched Gauss-Jordan elimination with implicit pivoting, by sub-warp width: the device code that every batched
   inversion of the project is built from (PCVBJACOBI's merged extraction + inversion, PetscBlockGPUInvertBatched()).
   Header-only device code in pbg::gj (the namespace rule of pbgimpl.h), included by a component's own kernels and by
   the host warp emulator of the tests (tests/emu/cuda_emu.h): plain CUDA C++ on PETSc's scalar types and the warp
   intrinsics. A sub-warp of P lanes owns one block, lane i holds row i in registers; all 32 lanes of a warp run every
   shuffle and __syncwarp().
   - the elimination (GaussJordan, by block width) and its pivot search;
   - the width classes of a batch and the counting sort of its blocks by size (KeyCountKernel, KeyPermKernel);
   - the batched inversion kernel InvertKernel<P, Source, Store>: one template family on the sub-warp width, whose
     Source policy says where a block comes from and whose Store policy where its inverse goes. This header holds the
     dense ones (DenseSource, DoubleStore: blocks already on the device, inverted in place, PetscBlockGPUInvertBatched());
     PCVBJACOBI brings its own (the extraction from CSR/BSR, the storage of reduced precisions: vbjacobi_kernels.cuh).
   The launches by width class are in invert_batched.cuh (host side, nvcc only). */
#pragma once
#include <petscsys.h>
#include <cfloat>
#include <utility>

#define PBG_CTA 128 /* threads per thread block in every kernel here */

/* the dynamic shared memory of a kernel (the host warp emulator of the tests defines it otherwise) */
#ifndef PBG_EXTERN_SHARED
  #define PBG_EXTERN_SHARED extern __shared__
#endif

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
   sizes runs all instances at once: unrolled ones up to 16 made mixed 1..16 batches several times slower than with
   the loop rolled beyond 8 (instruction-cache misses), and with the rotating columns a rolled loop costs only its
   counter. Rolled beyond 4 against beyond 8: mixed 1..8 and mixed 1..16 faster, uniform 8..16 a little slower at
   most. (measured: doc/benchmarks.md, "Measurements behind design choices") */
#ifndef PBG_GJ_UNROLL_MAX
  #define PBG_GJ_UNROLL_MAX 4
#endif
constexpr int GaussJordanUnrollMax = PBG_GJ_UNROLL_MAX; /* (pragma arguments are not macro-expanded) */

/* Gauss-Jordan elimination with implicit pivoting, in place, of the W x W matrix whose row `lane` this lane holds
   in row[0..W-1], as PCVBJacobiInvertBlock_Host() does it (same pivots, same failure rule: a pivot is tiny below
   k eps times the largest entry of its own row, so that blocks of very different scale merged into one do not fail
   each other); a block of k < W rows
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
  double rowmax = 0.0, bad = 0.0;
  bool   used = lane >= W; /* lanes past the padded block never pivot */

#pragma unroll
  for (int t = 0; t < W; t++) {
    if (t < k && lane < k) {
      if (!isfinite(row[t])) bad = 1.0;
      rowmax = fmax(rowmax, fabs(row[t]));
    }
  }
  bad = SubwarpMax<P>(bad);
#pragma unroll
  for (int t = 0; t < W; t++)
    if (t == lane && lane >= k) row[t] = 1.0;           /* the identity padding (row[] was zeroed) */
  const double tiny = (double)k * DBL_EPSILON * rowmax; /* this row's: the rule is relative to the pivot's own row */
  int          info = bad > 0.0 ? -1 : 0;
  pivstep           = -1;
  scale             = 1.0;

#pragma unroll(W <= GaussJordanUnrollMax ? W : 1)
  for (int kk = 0; kk < W; kk++) {
    const double f = row[0];
    double       best;
    const int    p     = PivotLane<P>(f, used, best);
    const double tinyp = __shfl_sync(0xffffffffu, tiny, p, P); /* (every lane: other sub-warps of the warp too) */
    if (info == 0 && kk < k && !(best > tinyp)) info = kk + 1;
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
   (InvertSmall). Blocks stay where they are stored (offsets[]): a class launch takes its blocks through a
   permutation that groups them by class, so only the order of the work changes. */
constexpr int NumWidthClasses = 6; /* P = 1, 2, 4, 8, 16, 32 */

__host__ __device__ constexpr int WidthClass(int k)
{
  return k <= 1 ? 0 : k <= 2 ? 1 : k <= 4 ? 2 : k <= 8 ? 3 : k <= 16 ? 4 : 5;
}

/* The work order sorts the blocks by size, not only by class: a warp runs the GaussJordan<P, W> instance of its
   largest block, W = P/2+1..P, and warps running different instances at once on an SM miss the instruction cache
   (16 instances of sizeable code at P = 32). Measured (bench_invert, 500000 blocks, against the bandwidth floor) on
   mixed 1..16 and 1..32: one launch at the largest width the furthest from the floor; grouped by class, random sizes
   within a class, nearer; sorted by size, by far the nearest, close to the uniform batches. The sort costs the same
   as the grouping (a count and a scatter, one pass each), with 33 keys instead of 6.
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
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

/* ------------------------------------------------------------------------------------------- the batched inversion */
/* The outcome of a batch (may be NULL: PetscBlockGPUInvertBatched() reads only the infos) */
struct Outcome {
  int first_bad; /* lowest failing block, INT_MAX when none */
  int nsingular; /* blocks replaced by the identity */
};

/* Whether the identity policy replaces a block that failed with this info: singular or an overflowing inverse */
__device__ __forceinline__ bool IdentityReplaces(int info)
{
  return info > 0 || info == InfoInverseNotFinite;
}

/* Records a block's outcome: info, the lowest failing block, the blocks replaced by the identity (outcome may be
   NULL). Returns whether the identity must be stored. */
__device__ __forceinline__ bool RecordOutcome(int b, int info, int identity_policy, PetscInt *info_out, Outcome *outcome)
{
  info_out[b] = info;
  if (IdentityReplaces(info) && identity_policy) {
    if (outcome) atomicAdd(&outcome->nsingular, 1);
    return true;
  }
  if (info && outcome) atomicMin(&outcome->first_bad, b);
  return false;
}

/* ||A||_1 of the block the lanes hold (row[t] = A(lane, t), or A(t, lane) when transposed): the largest column sum of
   |A|, each summed in row order as the host sums it (PCVBJacobiStoreBlock_Host()); through the tile when the lanes hold
   rows. Every lane of the warp takes part. */
template <int P>
__device__ __forceinline__ double BlockNorm1(int k, int lane, const double (&row)[P], bool transposed, double *tile)
{
  double s = 0.0;

  if (transposed) {
#pragma unroll
    for (int i = 0; i < P; i++)
      if (i < k && lane < k) s += fabs(row[i]);
  } else {
    if (lane < k) {
#pragma unroll
      for (int t = 0; t < P; t++)
        if (t < k) tile[t * (P + 1) + lane] = fabs(row[t]);
    }
    __syncwarp();
    if (lane < k)
      for (int r = 0; r < k; r++) s += tile[lane * (P + 1) + r];
    __syncwarp();
  }
  return SubwarpMax<P>(s);
}

/* Shared memory of a sub-warp, in doubles: the P x (P+1) output tile, a one-row buffer, P pivot indices */
__host__ __device__ constexpr int SubwarpSharedDoubles(int P)
{
  return P * (P + 1) + P + (P + 1) / 2;
}

/* The policies of InvertKernel. A Source gives the blocks (blk: where block b's inverse is stored, inv + its offset; a
   source that inverts in place reads the block there):
     static constexpr bool transposed;   the lanes hold A^T (then the inverse of A is stored transposed back)
     template <int P> void Rows(int s, int k, int lane, const PetscScalar *blk, double *rowbuf, double (&row)[P]) const;
                                          row[t] = A(s + lane, s + t) (A(s + t, s + lane) when transposed) for lane, t < k,
                                          0 elsewhere; every lane of the warp calls it (rowbuf: P doubles of the sub-warp)
     template <int P> void Small(int s, int k, const PetscScalar *blk, double &a00, double &a10, double &a01, double &a11) const;
                                          the block of k <= P <= 2 rows read by one thread (entries past k left as they are)
   A Store writes the inverses (off: the entry offset of block b in inv):
     bool NeedsNorm() const;              whether Tile() and Small() need ||A||_1 (anorm; 0 otherwise)
     template <int P> void Tile(int k, int lane, const double *tile, PetscScalar *inv, PetscInt64 off, int b, double anorm) const;
                                          the k x k inverse from the tile (entry (r, c) at tile[c * (P + 1) + r]); every
                                          lane of the warp calls it (k = 0 for a lane with no block to store)
     void Small(int k, const double (&v)[4], double anorm, PetscScalar *inv, PetscInt64 off, int b) const;
                                          the inverse v (k x k column-major) of a block of k <= 2 rows, by one thread
     void Identity(int k, int lane, int P, PetscScalar *inv, PetscInt64 off, int b) const;
                                          the identity in place of a failed block (the identity policy), by P lanes */

/* Dense k x k column-major blocks already on the device, inverted in place (PetscBlockGPUInvertBatched()) */
struct DenseSource {
  static constexpr bool transposed = false;
  template <int P>
  __device__ __forceinline__ void Rows(int, int k, int lane, const PetscScalar *blk, double *, double (&row)[P]) const
  {
#pragma unroll
    for (int t = 0; t < P; t++) row[t] = (lane < k && t < k) ? blk[lane + t * k] : 0.0;
  }
  template <int P>
  __device__ __forceinline__ void Small(int, int k, const PetscScalar *blk, double &a00, double &a10, double &a01, double &a11) const
  {
    a00 = blk[0];
    if (P == 2 && k == 2) {
      a10 = blk[1];
      a01 = blk[2];
      a11 = blk[3];
    }
  }
};

/* The k x k column-major inverse in FP64 at out, from the tile: lane e of the sub-warp takes entries e, e + P, ..., so
   every store is coalesced */
template <int P>
__device__ __forceinline__ void StoreTileDouble(int k, int lane, const double *tile, PetscScalar *out)
{
  for (int e = lane; e < k * k; e += P) {
    const int c = e / k, r = e - c * k;
    out[e] = tile[c * (P + 1) + r];
  }
}

/* The inverses in FP64, k x k column-major at their offsets (PetscBlockGPUInvertBatched()) */
struct DoubleStore {
  __device__ __forceinline__ bool NeedsNorm() const { return false; }
  template <int P>
  __device__ __forceinline__ void Tile(int k, int lane, const double *tile, PetscScalar *inv, PetscInt64 off, int, double) const
  {
    StoreTileDouble<P>(k, lane, tile, inv + off);
  }
  __device__ __forceinline__ void Small(int k, const double (&v)[4], double, PetscScalar *inv, PetscInt64 off, int) const
  {
    for (int e = 0; e < k * k; e++) inv[off + e] = v[e];
  }
  __device__ __forceinline__ void Identity(int k, int lane, int P, PetscScalar *inv, PetscInt64 off, int) const
  {
    for (int e = lane; e < k * k; e += P) inv[off + e] = (e % (k + 1) == 0) ? 1.0 : 0.0;
  }
};

/* Writes the inverse of block b (entry offset off) from the lanes' rows through the sub-warp's tile (P x (P+1)): entry
   (r, c) of the inverse goes to tile[c * (P + 1) + r], then the store takes it out. transposed: the lanes inverted A^T,
   so the inverse of A is the transpose of what they hold. The tile holds FP64 values, so a conversion happens once, on
   the way out. Every lane of the warp takes part (k = 0 for a lane with no block to store). */
template <int P, class Store>
__device__ __forceinline__ void StoreInverse(const Store &store, int k, int lane, const double (&row)[P], int pivstep, double scale, const int *ipiv, bool transposed, double *tile, PetscScalar *inv, PetscInt64 off, int b, double anorm)
{
  if (lane < k) {
#pragma unroll
    for (int j = 0; j < P; j++) {
      if (j < k) {
        const int r = pivstep, c = ipiv[j]; /* entry (r, c) of the inverse of what the lanes hold */
        if (transposed) tile[r * (P + 1) + c] = scale * row[j];
        else tile[c * (P + 1) + r] = scale * row[j];
      }
    }
  }
  __syncwarp();
  store.template Tile<P>(k, lane, tile, inv, off, b, anorm);
  __syncwarp();
}

/* Blocks of 1 or 2 rows (classes 0 and 1), a thread per block, the inverse in closed form: the operations of
   PCVBJacobiInvertBlock_Host() on k <= 2 written out (same pivot: row 1 only when |a10| > |a00|, same tiny-pivot
   rule and info, same rounding but for FMA contraction).
   Why not the sub-warp kernel at P = 1, 2 (500000 blocks, bench_invert): it stayed far from the floor and was slower
   than cuBLAS getrf+getri at n = 1 and at n = 2. The floor counts 16 k^2 bytes a block, but a block also moves
   its offset (8 bytes), size (4) and info (4): 32 bytes at n = 1 (2x the floor's 16), 80 at n = 2 (1.25x its 64), so
   the kernel alone can reach at most 50% / 80% of the floor. The sub-warp kernel added to that a shared-memory tile
   (one per thread block even at P = 1), the warp reductions and shuffles of the pivot search, a 2-lane sub-warp per
   2 x 2 block, and its caller a host round trip for the outcome record (a copy to the device before, a copy back and a
   second copy of the failing block's info after). Here: loads and stores of the thread's own block only, no shared
   memory, no warp traffic, and PetscBlockGPUInvertBatched() skips the outcome record.
   Expected: the kernel at the floor of those bytes, well ahead of cuBLAS getrf+getri and of the sub-warp kernel.
   Measured (bench_invert, 500000 blocks): n = 1 a little behind getrf+getri, n = 2 and mixed 1..2 ahead of it, with
   a final synchronization in the call; without it (the call ends with none since) n = 1 was ahead too, and n = 2
   further ahead. (measured: doc/benchmarks.md, "Measurements behind design choices") */
template <int P, class Source, class Store>
__device__ __forceinline__ void InvertSmall(const Source &src, const Store &store, int nwork, int kmax, const int *__restrict__ perm, const int *__restrict__ starts, const int *__restrict__ sizes, const PetscInt64 *__restrict__ offsets, PetscScalar *inv, int identity_policy, PetscInt *info_out, Outcome *outcome)
{
  const int i = (int)(blockIdx.x * PBG_CTA + threadIdx.x);
  if (i >= nwork) return; /* no warp intrinsics below: a thread may leave */
  const int b = perm ? perm[i] : i, s = starts ? starts[b] : 0, ksrc = BlockSize(b, kmax, starts, sizes);
  if (ksrc < 0 || ksrc > kmax || ksrc > P) { /* (> P: a block of another class, never launched here) */
    RecordOutcome(b, -2, 0, info_out, outcome);
    return;
  }
  const int        k   = ksrc;
  const PetscInt64 off = BlockOffset(b, kmax, offsets);
  double           a00 = 0.0, a10 = 0.0, a01 = 0.0, a11 = 0.0; /* A(i, j) = aij */

  if (!k) {
    RecordOutcome(b, 0, 0, info_out, outcome);
    return;
  }
  src.template Small<P>(s, k, inv + off, a00, a10, a01, a11);
  const double tiny0 = (double)k * DBL_EPSILON * fmax(fabs(a00), fabs(a01)), tiny1 = (double)k * DBL_EPSILON * fmax(fabs(a10), fabs(a11)); /* per row */
  const double anorm = k == 1 ? fabs(a00) : fmax(fabs(a00) + fabs(a10), fabs(a01) + fabs(a11));                                            /* ||A||_1 */
  int          info  = 0;
  if (!isfinite(a00) || !isfinite(a10) || !isfinite(a01) || !isfinite(a11)) info = -1;
  else if (k == 1) {
    if (!(fabs(a00) > tiny0)) info = 1;
    else if (!isfinite(1.0 / a00)) info = InfoInverseNotFinite;
    else {
      const double v[4] = {1.0 / a00, 0.0, 0.0, 0.0};
      store.Small(1, v, anorm, inv, off, b);
      RecordOutcome(b, 0, 0, info_out, outcome);
      return;
    }
  } else {
    /* step 0: pivot row p (lowest index on ties), the other row q */
    const bool   p1  = fabs(a10) > fabs(a00);
    const double ap0 = p1 ? a10 : a00, ap1 = p1 ? a11 : a01, aq0 = p1 ? a00 : a10, aq1 = p1 ? a01 : a11;
    if (!(fabs(ap0) > (p1 ? tiny1 : tiny0))) info = 1;
    else {
      const double d = 1.0 / ap0, u = ap1 * d, t = -aq0 * d, w = aq1 - aq0 * u; /* row p: (d, u); row q: (t, w) */
      if (!(fabs(w) > (p1 ? tiny0 : tiny1))) info = 2;
      else {
        const double d2 = 1.0 / w, sq0 = t * d2, sp0 = d - u * sq0, sp1 = -u * d2; /* step 1: row q pivots */
        const int    p = p1, q = !p1;                                              /* inv(0, ipiv[j]) = S(p, j), inv(1, ipiv[j]) = S(q, j), ipiv = (p, q) */
        if (!isfinite(sp0) || !isfinite(sp1) || !isfinite(sq0) || !isfinite(d2)) info = InfoInverseNotFinite;
        else {
          double v[4];
          v[0 + 2 * p] = sp0;
          v[0 + 2 * q] = sp1;
          v[1 + 2 * p] = sq0;
          v[1 + 2 * q] = d2;
          store.Small(2, v, anorm, inv, off, b);
          RecordOutcome(b, 0, 0, info_out, outcome);
          return;
        }
      }
    }
  }
  if (RecordOutcome(b, info, identity_policy, info_out, outcome)) store.Identity(k, 0, 1, inv, off, b);
}

/* Thread blocks of the inversion kernel that must fit on an SM: at P = 32 ptxas otherwise takes ~146 registers
   (shuffles hoisted for ILP) and leaves 12 warps per SM; 4 (128 registers) is faster at k = 32 and at k = 17
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
#ifndef PBG_INVERT_MIN_CTAS_32
  #define PBG_INVERT_MIN_CTAS_32 4
#endif
__host__ __device__ constexpr int InvertMinCtas(int P)
{
  return P == 32 ? PBG_INVERT_MIN_CTAS_32 : 1;
}

/* Blocks a thread block of the inversion kernel takes */
__host__ __device__ constexpr int InvertBlocksPerCta(int P)
{
  return P <= 2 ? PBG_CTA : PBG_CTA / P;
}

/* Dynamic shared memory of a thread block of the inversion kernel: the sub-warps' tiles; none for the thread-per-block
   path (P <= 2) */
__host__ __device__ constexpr size_t InvertSharedBytes(int P)
{
  return P <= 2 ? 0 : (size_t)(PBG_CTA / P) * SubwarpSharedDoubles(P) * sizeof(double);
}

/* The batched inversion: each block read (Source), inverted by Gauss-Jordan with implicit pivoting and written
   (Store), one sub-warp of P lanes per block, or a thread per block at P <= 2. The launch works on nwork blocks:
   perm[0..nwork) (one width class of a batch grouped by class), or 0..nwork when perm is NULL. Block b has
   BlockSize(b, kmax, starts, sizes) rows (a size outside 0..min(kmax, P): info -2), starts at row starts[b] of a
   source that reads a matrix (0 when starts is NULL) and its inverse at entry BlockOffset(b, kmax, offsets) of inv.
   info_out[b] receives its info; a failed block is left as it was, or replaced by the identity when identity_policy
   is set and it is singular or its inverse overflows. */
template <int P, class Source, class Store>
__global__ void __launch_bounds__(PBG_CTA, InvertMinCtas(P)) InvertKernel(Source src, Store store, int nwork, int kmax, const int *__restrict__ perm, const int *__restrict__ starts, const int *__restrict__ sizes, const PetscInt64 *__restrict__ offsets, PetscScalar *inv, int identity_policy, PetscInt *info_out, Outcome *outcome)
{
  if constexpr (P <= 2) InvertSmall<P>(src, store, nwork, kmax, perm, starts, sizes, offsets, inv, identity_policy, info_out, outcome);
  else {
    PBG_EXTERN_SHARED double smem[];
    const int                lane = threadIdx.x % P, sub = threadIdx.x / P, i = blockIdx.x * (PBG_CTA / P) + sub;
    double                  *tile = smem + (size_t)sub * SubwarpSharedDoubles(P), *rowbuf = tile + P * (P + 1);
    int                     *sipiv = reinterpret_cast<int *>(rowbuf + P); /* ipiv[j]: the row of step j's pivot */
    const bool               valid = i < nwork;
    const int                b     = !valid ? 0 : perm ? perm[i] : i;
    const int                s     = valid && starts ? starts[b] : 0;
    const int                ksrc  = !valid ? 0 : BlockSize(b, kmax, starts, sizes);
    const bool               badk  = ksrc < 0 || ksrc > kmax || ksrc > P; /* only a caller of PetscBlockGPUInvertBatched() can give such sizes */
    const int                k     = badk ? 0 : ksrc;
    double                   row[P];
    int                      pivstep = -1, info;

    src.template Rows<P>(s, k, lane, valid ? inv + BlockOffset(b, kmax, offsets) : inv, rowbuf, row);
    /* ||A||_1 for the store's choice of a type, before the elimination overwrites the block (the same for the launch) */
    const double anorm = store.NeedsNorm() ? BlockNorm1<P>(k, lane, row, Source::transposed, tile) : 0.0;
    const int    kwarp = __reduce_max_sync(0xffffffffu, k); /* every lane of the warp runs the same steps */
    double       scale = 1.0;
    info               = GaussJordanDispatch<P>(std::make_integer_sequence<int, P - P / 2>(), kwarp, k, lane, row, pivstep, scale, sipiv);
    { /* an inverse that overflowed (every lane of the warp takes part in the reduction) */
      double nonfinite = 0.0;
#pragma unroll
      for (int j = 0; j < P; j++)
        if (j < k && lane < k && !isfinite(scale * row[j])) nonfinite = 1.0;
      if (SubwarpMax<P>(nonfinite) > 0.0 && info == 0) info = InfoInverseNotFinite;
    }
    if (badk) info = -2;
    if (valid && lane == 0) RecordOutcome(b, info, identity_policy, info_out, outcome); /* (info is the sub-warp's) */
    if (valid && IdentityReplaces(info) && identity_policy) store.Identity(k, lane, P, inv, BlockOffset(b, kmax, offsets), b);
    /* every lane of the warp takes part in the tile's __syncwarp(), also those of failed or missing blocks */
    StoreInverse<P>(store, valid && !info ? k : 0, lane, row, pivstep, scale, sipiv, Source::transposed, tile, inv, valid ? BlockOffset(b, kmax, offsets) : 0, b, anorm);
  }
}
} // namespace pbg::gj
