/* Device code of MATSEQBAIJKSPARSE: the BSR SpMV kernel templates after Abdelfattah, Ltaief, Keyes and Dongarra,
   "Performance optimization of SpMV for multi-component PDE-based applications using GPUs" (CCPE 2016, KSPARSE).
   Included by the .cu files of this directory, each of which instantiates its share of the templates.

   Storage (BAIJ's): block k of the block row r holds bs x bs values column-major at val[k*bs*bs ...]; entry
   (i, j) of the block is val[k*bs*bs + j*bs + i] and multiplies x[colidx[k]*bs + j] into y[r*bs + i].

   Every kernel processes "work items": block rows, or with balanced rows segments of them (see
   MatBAIJKSPARSEDevice). A work item whose row is complete writes y (+ z) directly; a segment of a split row
   writes its partial sums to work[], which MatBAIJKSPARSEReduce_CUDA() combines. x and the indices are read
   through the read-only data cache (__ldg). No kernel returns early: the warp-synchronous steps (shuffles,
   __syncwarp, __syncthreads) are reached by every thread of the warp or thread block. */
#pragma once

#include "../baijksparsecuda.h"
#ifndef PBG_CUDA_EMULATOR /* the host warp emulator of the tests (tests/emu/cuda_emu.h) compiles the kernels only */
  #include <petscdevice_cuda.h>
#endif

/* the dynamic shared memory of a kernel (the host warp emulator of the tests defines it otherwise) */
#ifndef PBG_EXTERN_SHARED
  #define PBG_EXTERN_SHARED extern __shared__
#endif

namespace pbg
{
namespace baijk
{

typedef PetscScalar Scalar;
static_assert(sizeof(PetscScalar) == sizeof(PetscReal), "MATBAIJKSPARSE device kernels support real scalars only");

/* A work item: blocks [beg, end) of the block row; out >= 0: the block row, < 0: -(slot+1) */
struct Item {
  int beg, end, out;
};

__device__ __forceinline__ Item GetItem(const MatBAIJKSPARSEMultArgs &a, int w)
{
  Item it;
  if (w >= a.nwork) {
    it.beg = it.end = 0;
    it.out          = 0;
  } else if (a.segptr) {
    it.beg = __ldg(a.segptr + w);
    it.end = __ldg(a.segptr + w + 1);
    it.out = __ldg(a.segrow + w);
  } else {
    it.beg = __ldg(a.rowptr + w);
    it.end = __ldg(a.rowptr + w + 1);
    it.out = w;
  }
  return it;
}

/* Stores the sum s of component i of the work item */
__device__ __forceinline__ void Store(const MatBAIJKSPARSEMultArgs &a, int out, int bs, int i, Scalar s)
{
  if (out >= 0) {
    const size_t o = (size_t)out * bs + i;
    a.y[o]         = a.z ? s + a.z[o] : s;
  } else a.work[(size_t)(-out - 1) * bs + i] = s;
}

/* ------------------------------------------------------------------ bs = 1: G lanes per row (CSR) */
template <int G>
__global__ void __launch_bounds__(1024) ScalarKernel(const MatBAIJKSPARSEMultArgs a)
{
  const int     lane = threadIdx.x % G;
  const int     w    = blockIdx.x * (blockDim.x / G) + threadIdx.x / G;
  const Item    it   = GetItem(a, w);
  const int    *col  = a.colidx;
  const Scalar *val  = a.val;
  Scalar        s    = 0;

  for (int k = it.beg + lane; k < it.end; k += G) s += val[k] * __ldg(a.x + __ldg(col + k));
#pragma unroll
  for (int off = G / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off, G);
  if (w < a.nwork && lane == 0) Store(a, it.out, 1, 0, s);
}

/* ------------------------------------------------------------------ K1: bs 1..5, truncated (sub-)warps
   A sub-warp of S lanes (S = 8, 16 or 32, S >= bs^2; 32/S work items per warp) takes one work item; nb = floor(S / bs^2)
   whole blocks per load: lane l < nb*bs^2 of the sub-warp owns element e = l % bs^2 (row i = l % bs, column
   j = (l % bs^2) / bs) of block l / bs^2, so one load instruction reads nb consecutive blocks, coalesced. The lanes of
   the same row i (l = i + bs*m) are summed through shared memory. (A K1 streaming the values of 1, 2 or 4 block rows
   as K2 does, nb = S/bs column groups, 8 columns per sweep, so no lane idles at bs 3, was slower at bs 2 and at bs 3,
   summed over 3d7, 3d27, 2d5; measured: doc/benchmarks.md, "Measurements behind design choices".) */
template <int BS, int S>
__global__ void __launch_bounds__(1024) K1Kernel(const MatBAIJKSPARSEMultArgs a)
{
  constexpr int BS2  = BS * BS;
  constexpr int NB   = S / BS2;
  constexpr int USED = NB * BS2;
  static_assert(NB >= 1 && 32 % S == 0, "K1: the sub-warp must hold a block");
  __shared__ Scalar red[32][33];
  const int         lane = threadIdx.x & 31, wib = threadIdx.x >> 5, sub = lane / S, sl = lane % S;
  const int         w  = (blockIdx.x * (blockDim.x >> 5) + wib) * (32 / S) + sub;
  const Item        it = GetItem(a, w);
  const int         b = sl / BS2, e = sl % BS2, j = e / BS;
  const bool        act = sl < USED;
  const int        *col = a.colidx;
  const Scalar     *val = a.val;
  Scalar            s0 = 0, s1 = 0;

  if (act) {
    int k = it.beg + b;
    /* two independent loads in flight per lane */
    for (; k + NB < it.end; k += 2 * NB) {
      const int    c0 = __ldg(col + k), c1 = __ldg(col + k + NB);
      const Scalar v0 = val[(size_t)k * BS2 + e], v1 = val[(size_t)(k + NB) * BS2 + e];
      s0 += v0 * __ldg(a.x + (size_t)c0 * BS + j);
      s1 += v1 * __ldg(a.x + (size_t)c1 * BS + j);
    }
    if (k < it.end) s0 += val[(size_t)k * BS2 + e] * __ldg(a.x + (size_t)__ldg(col + k) * BS + j);
  }
  red[wib][lane] = s0 + s1;
  __syncwarp();
  if (w < a.nwork && sl < BS) {
    Scalar s = 0;
#pragma unroll
    for (int m = 0; m < NB * BS; m++) s += red[wib][sub * S + sl + BS * m];
    Store(a, it.out, BS, sl, s);
  }
}

/* ------------------------------------------------------------------ K1 with a column per lane (ept = bs)
   A sub-warp of S lanes (S = 8, 16 or 32 >= bs) takes one work item, floor(S / bs) blocks per round: lane l <
   nb*bs holds column c = l % bs of block l / bs, its bs values consecutive in memory, and the one x entry of that
   column; two rounds in flight per lane. Each lane sums bs rows; the sub-warp adds them by an xor tree (bs*log2(S)
   shuffles), and lane i < bs stores row i. Where bs^2 does not fill the element-per-lane sub-warp this leaves fewer
   lanes idle (bs 3: 15 of 16 lanes busy, not 9) and a block row of a 2-D 5-point stencil takes one round instead
   of five: on 2d5 it is faster than K1 per element at bs 3 and 4, and faster than K1 per element and K2 at bs 5, but
   a little slower at bs 2. (measured: doc/benchmarks.md, "Measurements behind design choices") */
template <int BS, int S>
__global__ void __launch_bounds__(1024) K1ColumnKernel(const MatBAIJKSPARSEMultArgs a)
{
  constexpr int BS2 = BS * BS;
  constexpr int NB  = S / BS;
  static_assert(NB >= 1 && 32 % S == 0, "K1 by columns: the sub-warp must hold a block's columns");
  const int     lane = threadIdx.x & 31, sub = lane / S, sl = lane % S;
  const int     w  = (blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) * (32 / S) + sub;
  const Item    it = GetItem(a, w);
  const int     b = sl / BS, c = sl % BS;
  const int    *col = a.colidx;
  const Scalar *val = a.val + (size_t)c * BS;
  Scalar        s0[BS], s1[BS], mine;

#pragma unroll
  for (int i = 0; i < BS; i++) s0[i] = s1[i] = 0;
  if (sl < NB * BS) {
    int k = it.beg + b;
    /* two rounds in flight per lane: all 2 bs values and both x entries loaded before the first FMA */
    for (; k + NB < it.end; k += 2 * NB) {
      const int c0 = __ldg(col + k), c1 = __ldg(col + k + NB);
      Scalar    v0[BS], v1[BS];
#pragma unroll
      for (int i = 0; i < BS; i++) {
        v0[i] = val[(size_t)k * BS2 + i];
        v1[i] = val[(size_t)(k + NB) * BS2 + i];
      }
      const Scalar x0 = __ldg(a.x + (size_t)c0 * BS + c), x1 = __ldg(a.x + (size_t)c1 * BS + c);
#pragma unroll
      for (int i = 0; i < BS; i++) {
        s0[i] += v0[i] * x0;
        s1[i] += v1[i] * x1;
      }
    }
    if (k < it.end) {
      const Scalar x0 = __ldg(a.x + (size_t)__ldg(col + k) * BS + c);
#pragma unroll
      for (int i = 0; i < BS; i++) s0[i] += val[(size_t)k * BS2 + i] * x0;
    }
  }
#pragma unroll
  for (int i = 0; i < BS; i++) s0[i] += s1[i];
#pragma unroll
  for (int m = S / 2; m >= 1; m /= 2)
#pragma unroll
    for (int i = 0; i < BS; i++) s0[i] += __shfl_xor_sync(0xffffffffu, s0[i], m);
  mine = s0[0];
#pragma unroll
  for (int i = 1; i < BS; i++) mine = sl == i ? s0[i] : mine;
  if (w < a.nwork && sl < BS) Store(a, it.out, BS, sl, mine);
}

/* Loads in flight per thread and sweep of K2: U columns of EPT values each, about 4 values */
__host__ __device__ constexpr int K2Columns(int ept)
{
  return ept >= 3 ? 1 : 4 / ept;
}

/* ------------------------------------------------------------------ K2: bs 2..45
   The values of a block row (blocks beg..end-1) are contiguous in BSR and, read block after block and column after
   column, form one dense bs x (nblocks*bs) column-major matrix V: column m is column m % bs of block beg + m / bs and
   multiplies x[colidx[beg + m/bs]*bs + m % bs]. A team of T = 32*warps threads per work item is a thread array of
   nb = floor(T / N_tg) column groups of N_tg = ceil(bs/EPT) threads (lane l: group g = l / N_tg, t = l % N_tg; the
   last T % N_tg threads idle). Thread (g, t) owns rows t, t + N_tg, ... (EPT of them) and takes the columns
   g, g + nb, g + 2 nb, ...; U = K2Columns(EPT) of them per sweep, their loads issued before any FMA. With EPT = 1 a
   load instruction of the team reads nb*bs consecutive values, a fully coalesced slice of the row's value stream.
   (The previous K2 gave each group a whole block, so a warp's load was nb pieces of one column each, bs*bs*8 bytes
   apart, with one or two loads in flight per thread, and synchronised its teams with named barriers: 40-60% of triad
   at bs 6..32. The barriers were most of that loss, see the reduction below; with them this layout was no faster.)
   The nb partial sums of a row are added by shuffles over lanes N_tg, 2 N_tg, 4 N_tg, ... apart inside each warp;
   with several warps the first lane of each row in each warp (its "head") puts the warp's sum in shared memory and,
   after a barrier of the thread block (warps is the same for all its teams), the sums of the warps are added in warp
   order (deterministic). Values are read
   with the streaming hint (read once: keep x in the caches), x and the indices through the read-only cache. */
template <int BS, int EPT>
__global__ void __launch_bounds__(512) K2Kernel(const MatBAIJKSPARSEMultArgs a, const int warps)
{
  constexpr int            NTG = (BS + EPT - 1) / EPT;
  constexpr int            BS2 = BS * BS;
  constexpr int            U   = K2Columns(EPT);
  PBG_EXTERN_SHARED Scalar smem[];
  const int                ts = 32 * warps, nb = ts / NTG;
  const int                team = threadIdx.x / ts, tl = threadIdx.x % ts, lane = threadIdx.x & 31;
  const int                g = tl / NTG, t = tl % NTG;
  const int                w     = blockIdx.x * (blockDim.x / ts) + team;
  const Item               it    = GetItem(a, w);
  const int                ncols = (it.end - it.beg) * BS;
  const int               *col   = a.colidx + it.beg;
  const Scalar            *vrow  = a.val + (size_t)it.beg * BS2 + t;
  Scalar                   acc[EPT];

#pragma unroll
  for (int e = 0; e < EPT; e++) acc[e] = 0;
  for (int m0 = g < nb ? g : ncols; m0 < ncols; m0 += U * nb) {
    /* all loads of the sweep first, unconditional (a column past the row reads column m0 again, a row past bs reads
       row bs-1; both are zeroed afterwards), so that no load waits behind a branch or behind the x load of an
       earlier column */
    Scalar v[U][EPT], xv[U];
    int    cb[U], c[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int m  = m0 + u * nb < ncols ? m0 + u * nb : m0;
      const int kb = m / BS;

      c[u]  = m - kb * BS;
      cb[u] = __ldg(col + kb);
#pragma unroll
      for (int e = 0; e < EPT; e++) v[u][e] = __ldcs(vrow + (size_t)m * BS + (t + NTG * e < BS ? NTG * e : BS - 1 - t));
    }
#pragma unroll
    for (int u = 0; u < U; u++) xv[u] = __ldg(a.x + (size_t)cb[u] * BS + c[u]);
#pragma unroll
    for (int u = 0; u < U; u++)
#pragma unroll
      for (int e = 0; e < EPT; e++) acc[e] += (m0 + u * nb < ncols && t + NTG * e < BS) ? v[u][e] * xv[u] : 0;
  }
  /* lanes N_tg*j apart hold the same rows: a shuffle tree over j inside the warp (all 32 lanes take part) */
#pragma unroll
  for (int off = NTG; off < 32; off *= 2)
#pragma unroll
    for (int e = 0; e < EPT; e++) {
      const Scalar o = __shfl_down_sync(0xffffffffu, acc[e], off);
      if (lane + off < 32) acc[e] += o;
    }
  if (warps == 1) {
    if (w < a.nwork && g == 0) {
#pragma unroll
      for (int e = 0; e < EPT; e++)
        if (t + NTG * e < BS) Store(a, it.out, BS, t + NTG * e, acc[e]);
    }
  } else {
    /* the head of row t in warp q is the team's first lane l >= 32 q with l % N_tg == t; its sum goes to red[e][l] */
    Scalar *red = smem + (size_t)team * EPT * ts;
    if (lane < NTG && g < nb) {
#pragma unroll
      for (int e = 0; e < EPT; e++) red[e * ts + tl] = acc[e];
    }
    /* one barrier for the thread block, not a named barrier per team: with a run-time barrier id ptxas reserves all
       16 barriers for the thread block, and the time then fell only in proportion to the teams per thread block
       (fewer resident thread blocks): far below triad with 1 team, still well below it with 4
       (measured: doc/benchmarks.md, "Measurements behind design choices") */
    __syncthreads();
    if (w < a.nwork) {
      for (int i = tl; i < BS; i += ts) {
        const int r = i % NTG, e = i / NTG;
        Scalar    s = 0;
        for (int q = 0; q < warps; q++) {
          const int l = 32 * q + (r - 32 * q % NTG + NTG) % NTG;
          if (l < 32 * q + 32 && l < nb * NTG) s += red[e * ts + l];
        }
        Store(a, it.out, BS, i, s);
      }
    }
  }
}

/* ------------------------------------------------------------------ K3: any bs (meant for bs > 45)
   A 2-D grid: blockIdx.x is the work item, blockIdx.y a tile of 32*EPT rows of the blocks, so ceil(bs/(32 EPT))
   thread blocks share a block row. Warp q of the thread block takes blocks beg+q, beg+q+warps, ...; lane l owns
   the rows tile + l + 32 e and reads each column of the block coalesced (32 consecutive values). The x segment of
   a warp's next block is staged in shared memory while it works on the current one (double buffer, private to
   the warp: __syncwarp only). The warps' partial sums are added through shared memory at the end. */
template <int EPT>
__global__ void __launch_bounds__(512) K3Kernel(const MatBAIJKSPARSEMultArgs a)
{
  PBG_EXTERN_SHARED Scalar smem[];
  const int                bs = a.bs, warps = blockDim.x >> 5, q = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int                tile = blockIdx.y * 32 * EPT;
  const int                w    = blockIdx.x;
  const Item               it   = GetItem(a, w);
  const int               *col  = a.colidx;
  const Scalar            *val  = a.val;
  const size_t             bs2  = (size_t)bs * bs;
  Scalar                  *xs   = smem + (size_t)q * 2 * bs;     /* this warp's double buffer: 2 x bs */
  Scalar                  *red  = smem + (size_t)warps * 2 * bs; /* warps x 32*EPT partial sums */
  Scalar                   acc[EPT];

#pragma unroll
  for (int e = 0; e < EPT; e++) acc[e] = 0;
  int k   = it.beg + q;
  int buf = 0;
  if (k < it.end) {
    const int c = __ldg(col + k);
    for (int i = lane; i < bs; i += 32) xs[i] = __ldg(a.x + (size_t)c * bs + i);
  }
  __syncwarp();
  for (; k < it.end; k += warps) {
    const int kn = k + warps;
    if (kn < it.end) { /* stage the next block's x in the other buffer */
      const int cn = __ldg(col + kn);
      for (int i = lane; i < bs; i += 32) xs[(buf ^ 1) * bs + i] = __ldg(a.x + (size_t)cn * bs + i);
    }
    const Scalar *vb = val + (size_t)k * bs2;
    const Scalar *xb = xs + buf * bs;
    int           j  = 0;
    for (; j + 2 <= bs; j += 2) {
      const Scalar x0 = xb[j], x1 = xb[j + 1];
#pragma unroll
      for (int e = 0; e < EPT; e++) {
        const int r = tile + lane + 32 * e;
        if (r < bs) acc[e] += vb[(size_t)j * bs + r] * x0 + vb[(size_t)(j + 1) * bs + r] * x1;
      }
    }
    if (j < bs) {
      const Scalar x0 = xb[j];
#pragma unroll
      for (int e = 0; e < EPT; e++) {
        const int r = tile + lane + 32 * e;
        if (r < bs) acc[e] += vb[(size_t)j * bs + r] * x0;
      }
    }
    buf ^= 1;
    __syncwarp(); /* the next buffer is written before it is read, and read before it is written again */
  }
#pragma unroll
  for (int e = 0; e < EPT; e++) red[q * 32 * EPT + lane + 32 * e] = acc[e];
  __syncthreads();
  if (w < a.nwork) {
    for (int l = threadIdx.x; l < 32 * EPT; l += blockDim.x) {
      const int r = tile + l;
      if (r < bs) {
        Scalar s = 0;
        for (int p = 0; p < warps; p++) s += red[p * 32 * EPT + l];
        Store(a, it.out, bs, r, s);
      }
    }
  }
}

#ifndef PBG_CUDA_EMULATOR
/* ------------------------------------------------------------------ K2 dispatch: one table of instances per file */
typedef PetscErrorCode (*K2Launcher)(const MatBAIJKSPARSEParams *, const MatBAIJKSPARSEMultArgs *, cudaStream_t);

template <int BS, int EPT>
static PetscErrorCode K2Launch(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  const int      ts    = 32 * p->warps;
  const int      teams = p->teams;
  const size_t   shm   = p->warps > 1 ? (size_t)teams * EPT * ts * sizeof(Scalar) : 0;
  const unsigned grid  = (unsigned)((a->nwork + teams - 1) / teams);

  PetscFunctionBegin;
  K2Kernel<BS, EPT><<<grid, ts * teams, shm, stream>>>(*a, p->warps);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* EPT 1..4 for bs >= 6; 1..2 for the small bs that K2 serves only when forced */
template <int BS, int EPT>
constexpr K2Launcher K2Pick()
{
  if constexpr (EPT <= (BS >= 6 ? 4 : 2)) return K2Launch<BS, EPT>;
  else return nullptr;
}

template <int BS0, int... I>
struct K2Table {
  static constexpr K2Launcher fn[sizeof...(I)][MAT_BAIJKSPARSE_MAX_EPT + 1] = {{nullptr, K2Pick<BS0 + I, 1>(), K2Pick<BS0 + I, 2>(), K2Pick<BS0 + I, 3>(), K2Pick<BS0 + I, 4>()}...};
};

template <int BS0, int... I>
static PetscErrorCode K2DispatchImpl(std::integer_sequence<int, I...>, const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  const int bs = a->bs;

  PetscFunctionBegin;
  PetscCheck(bs >= BS0 && bs < BS0 + (int)sizeof...(I) && p->ept >= 1 && p->ept <= MAT_BAIJKSPARSE_MAX_EPT, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No K2 instance for bs %d, ept %d", bs, p->ept);
  {
    const K2Launcher f = K2Table<BS0, I...>::fn[bs - BS0][p->ept];
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_SUP, "K2 has no instance for bs %d with ept %d (ept <= 2 for bs < 6)", bs, p->ept);
    PetscCall((*f)(p, a, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif

/* ------------------------------------------------- the transposed products (launched by baijksparse_mult.cu) */

/* The values of the explicit transpose, a thread per value: entry (i, j) of block p of A^T (column-major,
   tval[p*bs*bs + j*bs + i]) is entry (j, i) of block perm[p] of A. Reads of A gather by block, writes are contiguous.
   BS: a compiled bs, or 0 for any. */
template <int BS>
__global__ void TransposeBlocksKernel(int bs_arg, long long n, const int *__restrict__ perm, const Scalar *__restrict__ val, Scalar *__restrict__ tval)
{
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;

  if (t < n) {
    const int       bs  = BS ? BS : bs_arg;
    const int       bs2 = bs * bs;
    const long long p   = t / bs2;
    const int       e = (int)(t - p * bs2), j = e / bs, i = e - j * bs;

    tval[t] = __ldg(val + (size_t)__ldg(perm + p) * bs2 + (size_t)i * bs + j);
  }
}

/* y += A^T x, a warp per block row: the lanes take the (block, column) pairs of the row, each a dot product of a
   column of the block (contiguous: column-major) with the row's x segment, added to y by atomicAdd. Simple and
   correct for every bs; the summation order, and so the last bits, may vary from run to run. A zero product is not
   added (y + 0 is y): stored zeros, as in PETSc's multigrid interpolations (snes ex17: ~90% of the entries), then cost
   their read but no atomic, which is what a restriction by atomics spends its time on. BS: 1 compiled for bs 1 (no
   division in the index), 0 for any bs. */
template <int BS>
__global__ void MultTransposeAtomicKernel(int bs_arg, int mbs, const int *__restrict__ rowptr, const int *__restrict__ colidx, const Scalar *__restrict__ val, const Scalar *__restrict__ x, Scalar *y)
{
  const int bs   = BS ? BS : bs_arg;
  const int lane = threadIdx.x & 31;
  const int r    = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);

  if (r < mbs) {
    const int     beg = __ldg(rowptr + r), end = __ldg(rowptr + r + 1);
    const size_t  n  = (size_t)(end - beg) * bs;
    const Scalar *xr = x + (size_t)r * bs;

    for (size_t idx = lane; idx < n; idx += 32) {
      const int     k = beg + (int)(idx / bs), j = (int)(idx % bs);
      const Scalar *vc = val + (size_t)k * bs * bs + (size_t)j * bs;
      Scalar        s  = 0;

      for (int i = 0; i < bs; i++) s += vc[i] * __ldg(xr + i);
      if (s != (Scalar)0) atomicAdd(y + (size_t)__ldg(colidx + k) * bs + j, s);
    }
  }
}

} // namespace baijk
} // namespace pbg
