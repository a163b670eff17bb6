/* The device kernels of PCVBJACOBI, included by vbjacobi_cuda.cu (compiled by nvcc) and by the host warp emulator
   of the tests (tests/emu/cuda_emu.h, so that CI checks their logic on machines without a GPU): plain CUDA C++
   that uses only PETSc's scalar types and the warp intrinsics.

   The setup is the shared batched Gauss-Jordan component's inversion kernel (src/sys/cuda/gaussjordan.cuh, pbg::gj:
   InvertKernel<P, Source, Store>, one template family on the sub-warp width P, a sub-warp of P lanes per block, 32/P
   blocks a warp; the elimination in registers, the width classes and the size sort) with the PC's two policies here:
   SparseSource, the extraction of the diagonal blocks from CSR/BSR (cached: each lane scans its own row; shared: the
   sub-warp reads each row coalesced into a one-row buffer, so the lanes hold A^T), and StoreSpec, the storage of the
   inverses in double, single, half or adaptive precision. The apply (a batched block GEMV) and the grouping of adaptive
   inverses by type are the PC's own (pbg::vbj). */
#pragma once
#include <petscsys.h>
#include <../src/pc/vbjacobi/vbjacobiprec.h>
#include <../src/sys/cuda/gaussjordan.cuh>
#include <cfloat>
#include <type_traits>
#include <utility>
#ifndef PBG_CUDA_EMULATOR
  #include <cuda_fp16.h>
#endif

namespace pbg::vbj
{
using namespace pbg::gj; /* the batched Gauss-Jordan inversion, width classes, size sort */

/* ------------------------------------------------------------------------------------------- storage types */
/* IEEE binary16 <-> FP64: the device's own conversions (round to nearest even, directly from FP64), and in the host
   emulator the portable ones of vbjacobiprec.h, which the emulator test checks bit for bit against the compiler's
   _Float16 and the GPU tests against the device */
__device__ __forceinline__ unsigned short DoubleToHalfBits(double v)
{
#ifdef PBG_CUDA_EMULATOR
  return PCVBJacobiDoubleToHalfBits(v);
#else
  return __half_as_ushort(__double2half(v));
#endif
}
__device__ __forceinline__ double HalfBitsToDouble(unsigned short h)
{
#ifdef PBG_CUDA_EMULATOR
  return PCVBJacobiHalfBitsToDouble(h);
#else
  return (double)__half2float(__ushort_as_half(h)); /* exact: half -> float -> double */
#endif
}

/* How the setup stores the inverses (vbjacobiprec.h). mode is the rule that picks the type of a block
   (PCVBJacobiChooseType(): DOUBLE, the default, stored as pbg::gj::DoubleStore stores it; SINGLE or HALF, the
   narrowest type; ADAPTIVE); layout is where it goes: compact in one type (DOUBLE, SINGLE or HALF: entry offset * 8, 4 or 2 bytes), or
   ADAPTIVE (FP64 slots, each block at the start of its own in the type picked for it). A fixed reduced mode is first
   set up in its compact layout; a block that needs a wider type is counted in nwider (and stored in the layout's type
   all the same), and the setup is then made again in the ADAPTIVE layout. The inverse is computed in FP64 registers
   either way. StoreSpec is the Store policy of the setup's inversion kernel (pbg::gj::InvertKernel). */
struct StoreSpec {
  int            mode   = PBG_STORE_DOUBLE;
  int            layout = PBG_STORE_DOUBLE;
  double         tol    = 0.0;     /* of the adaptive choice */
  unsigned char *prec   = nullptr; /* [nblocks] the type of each block (ADAPTIVE layout), else NULL */
  short         *sexp   = nullptr; /* [nblocks] the scale exponent of each block (reduced storage), else NULL */
  int           *nwider = nullptr; /* compact layout: the count of blocks whose type is wider than the layout's */

  /* the Store policy of pbg::gj::InvertKernel (gaussjordan.cuh); defined below */
  __device__ __forceinline__ bool NeedsNorm() const { return mode != PBG_STORE_DOUBLE; } /* ||A||_1 picks the type */
  template <int P>
  __device__ __forceinline__ void Tile(int k, int lane, const double *tile, PetscScalar *inv, PetscInt64 off, int b, double anorm) const;
  __device__ __forceinline__ void Small(int k, const double (&v)[4], double anorm, PetscScalar *inv, PetscInt64 off, int b) const;
  __device__ __forceinline__ void Identity(int k, int lane, int P, PetscScalar *inv, PetscInt64 off, int b) const;
};

/* Where the block whose inverse starts at entry offset off is stored */
__device__ __forceinline__ void *BlockStore(PetscScalar *inv, int layout, PetscInt64 off)
{
  return (char *)inv + (size_t)PCVBJacobiSlotBytes(layout) * (size_t)off;
}

/* The type a block of condition estimate cond is stored in: the mode's choice, or, in a compact layout that cannot take
   it, the layout's type, the block counted (count: by one lane of the block) */
__device__ __forceinline__ int StoredType(const StoreSpec &spec, double cond, bool count)
{
  const int t = PCVBJacobiChooseType(spec.mode, spec.tol, cond);

  if (PCVBJacobiLayoutTakes(spec.layout, t)) return t;
  if (count && spec.nwider) atomicAdd(spec.nwider, 1);
  return spec.layout;
}

/* Entry e of a block stored in type t: v already scaled */
__device__ __forceinline__ void StoreEntry(void *base, int t, int e, double v)
{
  if (t == PBG_STORE_SINGLE) ((float *)base)[e] = (float)v; /* round to nearest, as the host's cast */
  else if (t == PBG_STORE_HALF) ((unsigned short *)base)[e] = DoubleToHalfBits(v);
  else ((double *)base)[e] = v;
}

/* The k x k column-major inverse of block b (entry offset off) from the sub-warp's tile, in the storage spec asks for.
   Reduced storage: the tile gives ||A^{-1}||_1 and max|entry| (column c summed by lane c in row order, as on the host),
   which pick the type (adaptive, with anorm = ||A||_1) and the power-of-two scale; lane 0 records them. Every store is
   coalesced, in the block's own type. Every lane of the warp takes part (k = 0 for a lane with no block to store). */
template <int P>
__device__ __forceinline__ void StoreSpec::Tile(int k, int lane, const double *tile, PetscScalar *inv, PetscInt64 off, int b, double anorm) const
{
  if (mode == PBG_STORE_DOUBLE) {
    StoreTileDouble<P>(k, lane, tile, inv + off);
    return;
  }
  /* reduced storage (the mode is the launch's: every lane of the warp reduces) */
  double s = 0.0, m = 0.0;
  if (lane < k)
    for (int r = 0; r < k; r++) {
      const double a = fabs(tile[lane * (P + 1) + r]);
      s += a;
      m = fmax(m, a);
    }
  const double ainv = SubwarpMax<P>(s), maxabs = SubwarpMax<P>(m);
  const int    t = StoredType(*this, anorm * ainv, k && lane == 0), x = PCVBJacobiScaleExponent(t, maxabs);
  void        *base = BlockStore(inv, layout, off);
  for (int e = lane; e < k * k; e += P) {
    const int c = e / k, r = e - c * k;
    StoreEntry(base, t, e, ldexp(tile[c * (P + 1) + r], -x));
  }
  if (k && lane == 0) {
    if (prec) prec[b] = (unsigned char)t;
    if (sexp) sexp[b] = (short)x;
  }
}

/* The identity, for a singular block under PC_VBJACOBI_SINGULAR_IDENTITY, in the storage of a block of condition 1 and
   largest entry 1 (what the host path's store picks for it) */
__device__ __forceinline__ void StoreSpec::Identity(int k, int lane, int P, PetscScalar *inv, PetscInt64 off, int b) const
{
  const int t = StoredType(*this, 1.0, false), x = PCVBJacobiScaleExponent(t, 1.0);
  void     *base = BlockStore(inv, layout, off);

  for (int e = lane; e < k * k; e += P) StoreEntry(base, t, e, (e % (k + 1) == 0) ? ldexp(1.0, -x) : 0.0);
  if (lane == 0) {
    if (prec) prec[b] = (unsigned char)t;
    if (sexp) sexp[b] = (short)x;
  }
}

/* The store of a block of k <= 2 rows by one thread: v its FP64 inverse (column-major), anorm ||A||_1; as Tile() */
__device__ __forceinline__ void StoreSpec::Small(int k, const double (&v)[4], double anorm, PetscScalar *inv, PetscInt64 off, int b) const
{
  double ainv = 0.0, maxabs = 0.0;

  for (int c = 0; c < k; c++) {
    double s = 0.0;
    for (int r = 0; r < k; r++) {
      s += fabs(v[r + c * k]);
      maxabs = fmax(maxabs, fabs(v[r + c * k]));
    }
    ainv = fmax(ainv, s);
  }
  const int t = StoredType(*this, anorm * ainv, true), x = PCVBJacobiScaleExponent(t, maxabs);
  void     *base = BlockStore(inv, layout, off);
  for (int e = 0; e < k * k; e++) StoreEntry(base, t, e, ldexp(v[e], -x));
  if (prec) prec[b] = (unsigned char)t;
  if (sexp) sexp[b] = (short)x;
}

/* ------------------------------------------------------------------------------------------- block sources */
/* Where the setup reads its blocks from: the sparse matrix (CSR with bs = 1, or BSR with column-major blocks). (Dense
   blocks already on the device are pbg::gj::DenseSource, PetscBlockGPUInvertBatched().) */
struct SparseRows {
  int                nrows, bs;
  const int         *rowptr, *colidx;
  const PetscScalar *values;
};

/* First entry in [lo, hi) of a sorted column list whose (block) column is >= c: the block's columns are found by
   bisection, so a long row (an arrow matrix's dense row) costs log(length), not its length */
__device__ __forceinline__ int FirstEntryAtLeast(const int *__restrict__ colidx, int lo, int hi, int c)
{
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (__ldg(colidx + mid) < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* row[t] = A(s + lane, s + t), t < k: each thread scans its own row (cached extraction) */
template <int P>
__device__ __forceinline__ void ExtractOwnRow(const SparseRows &M, int s, int k, int lane, double (&row)[P])
{
#pragma unroll
  for (int t = 0; t < P; t++) row[t] = 0.0;
  if (lane >= k) return;
  const int r = s + lane, br = r / M.bs, ri = r - br * M.bs, bs = M.bs, bs2 = bs * bs, end = M.rowptr[br + 1];
  for (int e = FirstEntryAtLeast(M.colidx, M.rowptr[br], end, s / bs); e < end; e++) {
    const int c0 = __ldg(M.colidx + e) * bs;
    if (c0 >= s + k) break;
    for (int c = 0; c < bs; c++) {
      const int t = c0 + c - s;
      if (t < 0 || t >= k) continue;
      const double v = __ldg(M.values + (size_t)e * bs2 + ri + (size_t)c * bs);
#pragma unroll
      for (int u = 0; u < P; u++)
        if (u == t) row[u] += v;
    }
  }
}

/* row[i] = A(s + i, s + lane), i < k: the sub-warp reads each row of the block coalesced into the one-row
   buffer rowbuf[P] and every lane takes its column (shared extraction: the lanes hold A^T) */
template <int P>
__device__ __forceinline__ void ExtractRowsShared(const SparseRows &M, int s, int k, int lane, double *rowbuf, double (&row)[P])
{
  const int bs = M.bs, bs2 = bs * bs;
#pragma unroll
  for (int i = 0; i < P; i++) {
    rowbuf[lane] = 0.0;
    __syncwarp();
    if (i < k) {
      const int r = s + i, br = r / bs, ri = r - br * bs, end = M.rowptr[br + 1];
      const int e0 = FirstEntryAtLeast(M.colidx, M.rowptr[br], end, s / bs), len = (FirstEntryAtLeast(M.colidx, e0, end, (s + k - 1) / bs + 1) - e0) * bs;
      for (int q = lane; q < len; q += P) { /* entry q of the scalar row: block e0 + q / bs, column q % bs in it */
        const int e = e0 + q / bs, c = q - (q / bs) * bs, t = __ldg(M.colidx + e) * bs + c - s;
        if (t >= 0 && t < k) rowbuf[t] += __ldg(M.values + (size_t)e * bs2 + ri + (size_t)c * bs);
      }
    }
    __syncwarp();
    row[i] = (i < k && lane < k) ? rowbuf[lane] : 0.0;
    __syncwarp();
  }
}

enum SourceKind {
  SOURCE_CACHED,
  SOURCE_SHARED
};

/* The Source policy of the setup's inversion kernel (pbg::gj::InvertKernel): the diagonal block [s, s + k) of the
   matrix, by the cached or the shared extraction (the lanes then hold A^T). A block of k <= 2 rows read by one thread
   (no sub-warp to share a row with) scans its rows itself under both; the bisection in the row keeps a long row at
   log(length). */
template <SourceKind SRC>
struct SparseSource {
  static constexpr bool transposed = SRC == SOURCE_SHARED;
  SparseRows            M;

  template <int P>
  __device__ __forceinline__ void Rows(int s, int k, int lane, const PetscScalar *, double *rowbuf, double (&row)[P]) const
  {
    if constexpr (SRC == SOURCE_CACHED) ExtractOwnRow<P>(M, s, k, lane, row);
    else ExtractRowsShared<P>(M, s, k, lane, rowbuf, row);
  }
  template <int P>
  __device__ __forceinline__ void Small(int s, int k, const PetscScalar *, double &a00, double &a10, double &a01, double &a11) const
  {
    double r0[P];
    ExtractOwnRow<P>(M, s, k, 0, r0);
    a00 = r0[0];
    if constexpr (P == 2) {
      double r1[P];
      ExtractOwnRow<P>(M, s, k, 1, r1);
      a01 = r0[1];
      a10 = r1[0];
      a11 = r1[1];
    }
  }
};

/* The outcome of a setup: the inversion's (first failure, blocks replaced by the identity), and the blocks that a
   compact reduced layout cannot take (StoreSpec::nwider points here) */
struct SetupOutcome : Outcome {
  int nwider;
};

/* The group of a block under adaptive storage (its stored type): half first, then single, then double, so that the
   apply reads each group with its own type (ApplyGroupedKernel) */
constexpr int                  NumTypeGroups = 3;
__device__ __forceinline__ int TypeGroup(int t)
{
  return t == PBG_STORE_HALF ? 0 : t == PBG_STORE_SINGLE ? 1 : 2;
}
/* Bytes of one entry of group g (half, single, double) */
__host__ __device__ constexpr int GroupEntryBytes(int g)
{
  return g == 0 ? 2 : g == 1 ? 4 : 8;
}
struct TypeKey {
  static constexpr int           count = NumTypeGroups;
  const unsigned char           *prec;
  __device__ __forceinline__ int operator()(int b) const { return TypeGroup(prec[b]); }
};

/* ------------------------------------------------------------------------------------------- the apply */
/* One halving step of a reduce-scatter over a sub-warp: lane l holds v[0..2H) of its own and keeps the half named by
   its bit H (upper or lower), adding in the partner's (l ^ H) values of that half. After the steps H = P/2 .. 1 lane l
   holds, in v[0], the sum over the sub-warp's lanes of their v[l]. P - 1 shuffles in all. */
template <int P, int H>
__device__ __forceinline__ void ReduceScatterStep(int lane, double (&v)[P])
{
  if constexpr (H >= 1) {
    const bool upper = lane & H;
#pragma unroll
    for (int t = 0; t < H; t++) {
      double keep = v[t], give = v[t + H];
      if (upper) { /* a swap of values, not a run-time index: v stays in registers */
        const double tmp = keep;
        keep             = give;
        give             = tmp;
      }
      v[t] = keep + __shfl_xor_sync(0xffffffffu, give, H);
    }
    ReduceScatterStep<P, H / 2>(lane, v);
  }
}

/* One stored entry as FP64 (exact for every type) */
__device__ __forceinline__ double StoredToDouble(double v)
{
  return v;
}
__device__ __forceinline__ double StoredToDouble(float v)
{
  return (double)v;
}
__device__ __forceinline__ double StoredToDouble(unsigned short v)
{
  return HalfBitsToDouble(v);
}

/* y = D x (or D^T x) for each block: a sub-warp per block, lane i reads row i of D (column-major, so consecutive
   lanes read consecutive entries: coalesced) into registers with x_i. Plain: y_i = sum_j D(i,j) x_j, x_j by shuffle.
   Transposed: y_j = sum_i D(i,j) x_i, lane i's terms D(i,j) x_i summed over the lanes by a reduce-scatter, so the
   transposed apply reads D coalesced too (reading each lane's column instead, k doubles apart, measured well below
   this way's fraction of triad at k = 32).
   D is read once per apply, with the evict-first hint: it streams through L2 without evicting the vectors, which a
   Krylov method reads again at once (at 1M rows x and y together fit in L2 with room to spare: with x just written
   by the previous kernel, mixed blocks 1..8 got clearly faster; with cold vectors, rotated among 12 pairs, slightly).
   The loads are predicated, not guarded by a break at the block size: so all P of them are in flight at once (with a
   break each waited for its FMA; measured well below triad at block sizes 8..32).
   Tried and dropped (1M rows):
   - a lane per row, a warp on 32 consecutive rows (no lane idles on mixed sizes), the block found by bisection and
     x through the cache: slower; with the block instead from a per-warp mask of block starts and x by shuffle, no
     better overall (a little faster on mixed sizes 1..12, a little slower on 1..8);
   - rounds (a warp on R x 32/P blocks, their starts read by one coalesced load and handed out by shuffles, the loads
     of all R rounds issued before the first FMA): slower at P = 8, R = 4 (48 registers, fewer resident warps), no
     faster at P = 16, R = 2.
   This kernel runs close to a plain stream that reads the same bytes (mixed sizes 1..8, back to back): what is left
   above the triad of a large vector is the fixed cost of a kernel of that size.
   T: the stored type (double, float, or the bits of IEEE half). Every entry is converted to FP64 and the sums are
   FP64. Reduced storage: the FP64 result is scaled back by 2^sexp[b] (exact).
   Tried and dropped (bench_vbjacobi, 1M rows): skipping, in the plain apply of reduced types, the columns past
   the largest block of the warp (their conversions to FP64, which issue at a quarter of the FMA rate, shuffles and
   FMAs, by a warp-uniform branch): the branches made the kernel hold all P raw loads at once (single at P = 32: 64
   registers instead of 34) and it got no faster: half about the same (arrow, max block size 32 and 16); single
   slower: it saved the work of the skipped columns but added a compare and a branch per column and the registers.
   What bounds reduced types on mixed sizes is instruction issue (ncu, arrow, max block size 24, P = 32,
   bench/results/ncu_vbjacobi_apply_h100.txt): half reads under a third of double's bytes, at a small fraction of
   DRAM bandwidth, in about the time double takes for all of its own; it executes more warp instructions than double,
   and the schedulers issue less than one a cycle, with 'not selected' the largest stall: eligible warps wait for the
   issue slot. Per column j every lane spends a predicate, a 64-bit address, a load, two conversions (half -> float ->
   double), a shuffle and an FMA, for all P columns whatever the block size. Cutting the columns alone does not pay: a
   loop in chunks of 8 columns up to the warp's largest block (P = 16, 32) made arrow 24 half faster but tridiagonal
   32 and 16 half much slower (8 loads in flight a warp instead of P), and took the grouped adaptive kernel to 80
   registers. The lever left is fewer instructions a column with all loads in flight: a row-major reduced layout
   (lane i's row contiguous, 8 halves a 16-byte load).
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
template <int P, bool TRANS, class T>
__device__ __forceinline__ double BlockProduct(int lane, int k, const T *__restrict__ D, double xi)
{
  double dj[P], sum = 0.0;

  /* the loads are predicated, not cut at k: all P in flight at once; streamed with the evict-first hint */
#pragma unroll
  for (int j = 0; j < P; j++) dj[j] = (j < k && lane < k) ? StoredToDouble(__ldcs(D + lane + (size_t)j * k)) : 0.0;
  if constexpr (TRANS) {
#pragma unroll
    for (int j = 0; j < P; j++) dj[j] *= xi;
    ReduceScatterStep<P, P / 2>(lane, dj);
    sum = dj[0];
  } else {
#pragma unroll
    for (int j = 0; j < P; j++) sum = fma(dj[j], __shfl_sync(0xffffffffu, xi, j, P), sum);
  }
  return sum;
}

/* The blocks of one stored type: a fixed storage mode, inverses compact at offsets[b] entries */
template <int S>
struct StoredTypeOf {
  using type = double;
};
template <>
struct StoredTypeOf<PBG_STORE_SINGLE> {
  using type = float;
};
template <>
struct StoredTypeOf<PBG_STORE_HALF> {
  using type = unsigned short;
};

/* y[s..s+k) of block b from the product of a sub-warp (a double block is not scaled) */
template <class T>
__device__ __forceinline__ void StoreBlockResult(int lane, int s, int k, double sum, const short *__restrict__ sexp, int b, PetscScalar *__restrict__ y)
{
  if (lane < k) y[s + lane] = std::is_same_v<T, double> ? sum : ldexp(sum, sexp[b]);
}

template <int P, bool TRANS, int S = PBG_STORE_DOUBLE>
__global__ void __launch_bounds__(PBG_CTA) ApplyKernel(int nblocks, const int *__restrict__ starts, const PetscInt64 *__restrict__ offsets, const PetscScalar *__restrict__ inv, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, const short *__restrict__ sexp = nullptr)
{
  using T           = typename StoredTypeOf<S>::type;
  const int    lane = threadIdx.x % P, b = blockIdx.x * (PBG_CTA / P) + threadIdx.x / P;
  const bool   valid = b < nblocks;
  const int    s = valid ? starts[b] : 0, k = valid ? starts[b + 1] - s : 0;
  const T     *D   = (const T *)inv + (valid ? offsets[b] : 0);
  const double xi  = lane < k ? x[s + lane] : 0.0;
  const double sum = BlockProduct<P, TRANS, T>(lane, k, D, xi);

  StoreBlockResult<T>(lane, s, k, sum, sexp, b, y);
}

/* Adaptive storage grouped by type (built after the setup by RepackGroupedKernel): the blocks order[first[g] ..
   first[g+1]) are stored in type g (TypeGroup: half, single, double), compact from byte base[g] of the grouped
   array, the block at position p at entry entry[p] - entry0[g] of its group. The thread blocks cta[g] .. cta[g+1]
   of the apply take group g, so every warp reads one type and runs one instance of BlockProduct: no branch per
   block, and the registers of one type (a branch per block on its type, with the three instances inlined, took 91
   registers at P = 32 and ran at 0.77x double). */
struct GroupedApply {
  const int        *order;                    /* [nblocks] block ids, grouped */
  const PetscInt64 *entry;                    /* [nblocks + 1] exclusive sum of k^2 over the grouped order */
  const char       *grouped;                  /* the grouped inverses */
  int               first[NumTypeGroups + 1]; /* positions of each group */
  unsigned          cta[NumTypeGroups + 1];   /* thread blocks of each group */
  PetscInt64        entry0[NumTypeGroups];    /* entry[first[g]] */
  size_t            base[NumTypeGroups];      /* byte offset of each group, 16-byte aligned */
};

template <int P, bool TRANS, class T>
__device__ __forceinline__ void ApplyGroup(const GroupedApply &g, int grp, const int *__restrict__ starts, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, const short *__restrict__ sexp)
{
  const int    lane = threadIdx.x % P, p = g.first[grp] + (int)(blockIdx.x - g.cta[grp]) * (PBG_CTA / P) + threadIdx.x / P;
  const bool   valid = p < g.first[grp + 1];
  const int    b     = valid ? g.order[p] : 0;
  const int    s = valid ? starts[b] : 0, k = valid ? starts[b + 1] - s : 0;
  const T     *D   = (const T *)(g.grouped + g.base[grp]) + (valid ? g.entry[p] - g.entry0[grp] : 0);
  const double xi  = lane < k ? x[s + lane] : 0.0;
  const double sum = BlockProduct<P, TRANS, T>(lane, k, D, xi);

  StoreBlockResult<T>(lane, s, k, sum, sexp, b, y);
}

template <int P, bool TRANS>
__global__ void __launch_bounds__(PBG_CTA) ApplyGroupedKernel(GroupedApply g, const int *__restrict__ starts, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, const short *__restrict__ sexp)
{
  if (blockIdx.x < g.cta[1]) ApplyGroup<P, TRANS, unsigned short>(g, 0, starts, x, y, sexp);
  else if (blockIdx.x < g.cta[2]) ApplyGroup<P, TRANS, float>(g, 1, starts, x, y, sexp);
  else ApplyGroup<P, TRANS, double>(g, 2, starts, x, y, sexp);
}

/* The grouped copy of adaptive inverses: a warp per position p copies block order[p] from the start of its FP64
   slot (where the setup stored it, offsets[b] entries into inv) to its place in the grouped array, in 2-byte units
   (every type is a multiple of them); the stored bits are moved, not converted */
__global__ void __launch_bounds__(PBG_CTA) RepackGroupedKernel(GroupedApply g, const int *__restrict__ starts, const PetscInt64 *__restrict__ offsets, const PetscScalar *__restrict__ inv, char *__restrict__ grouped)
{
  const int p = (int)(blockIdx.x * (PBG_CTA / 32) + threadIdx.x / 32), lane = threadIdx.x % 32;

  if (p >= g.first[NumTypeGroups]) return;
  const int             grp = p < g.first[1] ? 0 : p < g.first[2] ? 1 : 2, tb = GroupEntryBytes(grp);
  const int             b = g.order[p], k = starts[b + 1] - starts[b];
  const unsigned short *src   = (const unsigned short *)(inv + offsets[b]);
  unsigned short       *dst   = (unsigned short *)(grouped + g.base[grp] + (size_t)tb * (size_t)(g.entry[p] - g.entry0[grp]));
  const int             units = k * k * tb / 2;

  for (int u = lane; u < units; u += 32) dst[u] = src[u];
}
} // namespace pbg::vbj
