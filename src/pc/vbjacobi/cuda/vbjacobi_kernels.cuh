/* The device kernels of PCVBJACOBI, included by vbjacobi_cuda.cu (compiled by nvcc) and by the host warp emulator
   of the tests (tests/emu/cuda_emu.h, so that CI checks their logic on machines without a GPU): plain CUDA C++
   that uses only PETSc's scalar types and the warp intrinsics.

   One template family on the sub-warp width P (the next power of two >= the largest block): a sub-warp of P
   lanes owns one block, so 32/P blocks share a warp when the blocks are small (MPW). Lane i holds row i of the
   block in registers (row i of A^T with the shared extraction); Gauss-Jordan with implicit pivoting (Anzt,
   Dongarra, Flegar, Quintana-Orti, Parallel Computing 2018) runs in registers and communicates through warp
   shuffles; the inverse goes out through a shared-memory tile, column by column, so every store is coalesced.
   All 32 lanes of a warp run every shuffle and __syncwarp(): lanes past the last block or the block size only
   mask their updates. The elimination itself, the width classes and the size sort are the shared batched Gauss-Jordan
   component (src/sys/cuda/gaussjordan.cuh, pbg::gj); the extraction from CSR/BSR, the storage of the inverses and the
   apply are the PC's (pbg::vbj). */
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

/* the dynamic shared memory of a kernel (the host warp emulator of the tests defines it otherwise) */
#ifndef PBG_EXTERN_SHARED
  #define PBG_EXTERN_SHARED extern __shared__
#endif

namespace pbg::vbj
{
using namespace pbg::gj; /* the batched Gauss-Jordan elimination, width classes, size sort */

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
   (PCVBJacobiChooseType(): DOUBLE, PetscBlockGPUInvertBatched() and the default; SINGLE or HALF, the narrowest type;
   ADAPTIVE); layout is where it goes: compact in one type (DOUBLE, SINGLE or HALF: entry offset * 8, 4 or 2 bytes), or
   ADAPTIVE (FP64 slots, each block at the start of its own in the type picked for it). A fixed reduced mode is first
   set up in its compact layout; a block that needs a wider type is counted in nwider (and stored in the layout's type
   all the same), and the setup is then made again in the ADAPTIVE layout. The inverse is computed in FP64 registers
   either way. */
struct StoreSpec {
  int            mode   = PBG_STORE_DOUBLE;
  int            layout = PBG_STORE_DOUBLE;
  double         tol    = 0.0;     /* of the adaptive choice */
  unsigned char *prec   = nullptr; /* [nblocks] the type of each block (ADAPTIVE layout), else NULL */
  short         *sexp   = nullptr; /* [nblocks] the scale exponent of each block (reduced storage), else NULL */
  int           *nwider = nullptr; /* compact layout: the count of blocks whose type is wider than the layout's */
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

/* ------------------------------------------------------------------------------------------- block sources */
/* Where a kernel reads its blocks from: the sparse matrix (CSR with bs = 1, or BSR with column-major blocks), or
   dense k x k column-major blocks already on the device (PetscBlockGPUInvertBatched). */
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

/* Writes the k x k column-major inverse of block b (entry offset off) from the lanes' rows, through the sub-warp's
   tile (P x (P+1)), in the storage spec asks for. transposed: the lanes inverted A^T, so the inverse of A is the
   transpose of what they hold. Reduced storage: the tile gives ||A^{-1}||_1 and max|entry| (column c summed by lane c
   in row order, as on the host), which pick the type (adaptive, with anorm = ||A||_1) and the power-of-two scale; lane 0
   records them. The tile holds FP64 values, so the conversion happens once, on the way out: every store is coalesced,
   in the block's own type. Every lane of the warp takes part (k = 0 for a lane with no block to store). */
template <int P>
__device__ __forceinline__ void StoreInverse(int k, int lane, const double (&row)[P], int pivstep, double scale, const int *ipiv, bool transposed, double *tile, PetscScalar *inv, PetscInt64 off, const StoreSpec &spec, int b, double anorm)
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
  if (spec.mode == PBG_STORE_DOUBLE) {
    PetscScalar *out = inv + off;
    for (int e = lane; e < k * k; e += P) {
      const int c = e / k, r = e - c * k;
      out[e] = tile[c * (P + 1) + r];
    }
  } else { /* (the mode is the launch's: every lane of the warp reduces) */
    double s = 0.0, m = 0.0;
    if (lane < k)
      for (int r = 0; r < k; r++) {
        const double a = fabs(tile[lane * (P + 1) + r]);
        s += a;
        m = fmax(m, a);
      }
    const double ainv = SubwarpMax<P>(s), maxabs = SubwarpMax<P>(m);
    const int    t = StoredType(spec, anorm * ainv, k && lane == 0), x = PCVBJacobiScaleExponent(t, maxabs);
    void        *base = BlockStore(inv, spec.layout, off);
    for (int e = lane; e < k * k; e += P) {
      const int c = e / k, r = e - c * k;
      StoreEntry(base, t, e, ldexp(tile[c * (P + 1) + r], -x));
    }
    if (k && lane == 0) {
      if (spec.prec) spec.prec[b] = (unsigned char)t;
      if (spec.sexp) spec.sexp[b] = (short)x;
    }
  }
  __syncwarp();
}

/* The identity, for a singular block under PC_VBJACOBI_SINGULAR_IDENTITY, in the storage of a block of condition 1 and
   largest entry 1 (what the host path's store picks for it) */
__device__ __forceinline__ void StoreIdentity(int k, int lane, int P, PetscScalar *inv, PetscInt64 off, const StoreSpec &spec, int b)
{
  const int t = StoredType(spec, 1.0, false), x = PCVBJacobiScaleExponent(t, 1.0);
  void     *base = BlockStore(inv, spec.layout, off);

  for (int e = lane; e < k * k; e += P) StoreEntry(base, t, e, (e % (k + 1) == 0) ? ldexp(1.0, -x) : 0.0);
  if (lane == 0) {
    if (spec.prec) spec.prec[b] = (unsigned char)t;
    if (spec.sexp) spec.sexp[b] = (short)x;
  }
}

/* The store of a block of k <= 2 rows by one thread: v its FP64 inverse (column-major), anorm ||A||_1; as StoreInverse */
__device__ __forceinline__ void StoreSmall(int k, const double (&v)[4], double anorm, PetscScalar *inv, PetscInt64 off, const StoreSpec &spec, int b)
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
  const int t = StoredType(spec, anorm * ainv, true), x = PCVBJacobiScaleExponent(t, maxabs);
  void     *base = BlockStore(inv, spec.layout, off);
  for (int e = 0; e < k * k; e++) StoreEntry(base, t, e, ldexp(v[e], -x));
  if (spec.prec) spec.prec[b] = (unsigned char)t;
  if (spec.sexp) spec.sexp[b] = (short)x;
}

/* Shared memory of a sub-warp, in doubles: the P x (P+1) output tile, a one-row buffer, P pivot indices */
__host__ __device__ constexpr int SubwarpSharedDoubles(int P)
{
  return P * (P + 1) + P + (P + 1) / 2;
}

enum SourceKind {
  SOURCE_CACHED,
  SOURCE_SHARED,
  SOURCE_DENSE
};

struct SetupOutcome {
  int first_bad; /* lowest failing block, INT_MAX when none */
  int nsingular; /* blocks replaced by the identity */
  int nwider;    /* blocks that a compact reduced layout cannot take (StoreSpec) */
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

/* ------------------------------------------------------------------------------------------- the setup kernel */
/* Whether the identity policy replaces a block that failed with this info: singular or an overflowing inverse */
__device__ __forceinline__ bool IdentityReplaces(int info)
{
  return info > 0 || info == InfoInverseNotFinite;
}

/* Records a block's outcome: info, the lowest failing block, the blocks replaced by the identity (outcome may be
   NULL: PetscBlockGPUInvertBatched() reads only d_info). Returns whether the identity must be stored. */
__device__ __forceinline__ bool RecordOutcome(int b, int info, int identity_policy, PetscInt *info_out, SetupOutcome *outcome)
{
  info_out[b] = info;
  if (IdentityReplaces(info) && identity_policy) {
    if (outcome) atomicAdd(&outcome->nsingular, 1);
    return true;
  }
  if (info && outcome) atomicMin(&outcome->first_bad, b);
  return false;
}

/* Blocks of 1 or 2 rows (classes 0 and 1), a thread per block, the inverse in closed form: the operations of
   PCVBJacobiInvertBlock_Host() on k <= 2 written out (same pivot: row 1 only when |a10| > |a00|, same tiny-pivot
   rule and info, same rounding but for FMA contraction).
   Why not the sub-warp kernel at P = 1, 2 (H100, 500000 blocks, bench_invert): it reached 8.8% (n = 1) and 30% (n = 2)
   of the floor, 0.44x and 0.84x cuBLAS getrf+getri. The floor counts 16 k^2 bytes a block, but a block also moves
   its offset (8 bytes), size (4) and info (4): 32 bytes at n = 1 (2x the floor's 16), 80 at n = 2 (1.25x its 64), so
   the kernel alone can reach at most 50% / 80% of the floor. The sub-warp kernel added to that a shared-memory tile
   (4 KB a thread block at P = 1), the warp reductions and shuffles of the pivot search, a 2-lane sub-warp per 2 x 2
   block, and its caller a host round trip for the outcome record (a copy to the device before, a copy back and a
   second copy of the failing block's info after). Here: loads and stores of the thread's own block only, no shared
   memory, no warp traffic, and PetscBlockGPUInvertBatched() skips the outcome record.
   Expected: kernel ~6 us (n = 1) and ~15 us (n = 2) for 500000 blocks (16 and 40 MB at ~2.7 TB/s), against cuBLAS
   getrf+getri 14.0 and 30.9 us; before: 31.7 and 36.7 us.
   Measured (H100, bench_invert, 500000 blocks): n = 1 14.3 us (0.91x getrf+getri, 13.0 us in that run), n = 2 20.6 us
   (1.53x), mixed 1..2 20.1 us (1.53x). What is left is the call's final cudaStreamSynchronize() (its contract): built
   without it, n = 1 took 11.5 us (1.50x), n = 2 15.2 us (2.04x). */
template <int P, SourceKind SRC>
__device__ __forceinline__ void SetupSmall(const SparseRows &M, int nwork, int kmax, const int *__restrict__ perm, const int *__restrict__ starts, const int *__restrict__ sizes, const PetscInt64 *__restrict__ offsets, PetscScalar *inv, int identity_policy, PetscInt *info_out, SetupOutcome *outcome, const StoreSpec &spec)
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
  PetscScalar     *out = inv + off;                            /* (the source of SOURCE_DENSE, always FP64) */
  double           a00 = 0.0, a10 = 0.0, a01 = 0.0, a11 = 0.0; /* A(i, j) = aij */

  if (!k) {
    RecordOutcome(b, 0, 0, info_out, outcome);
    return;
  }
  if (SRC == SOURCE_DENSE) {
    a00 = out[0];
    if (P == 2 && k == 2) {
      a10 = out[1];
      a01 = out[2];
      a11 = out[3];
    }
  } else { /* a thread scans the block's rows itself (both extractions: there is no sub-warp to share a row with;
              the bisection in the row keeps a long row at log(length)) */
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
  const double amax  = fmax(fmax(fabs(a00), fabs(a10)), fmax(fabs(a01), fabs(a11)));
  const double tiny  = (double)k * DBL_EPSILON * amax;
  const double anorm = k == 1 ? fabs(a00) : fmax(fabs(a00) + fabs(a10), fabs(a01) + fabs(a11)); /* ||A||_1 */
  int          info  = 0;
  if (!isfinite(a00) || !isfinite(a10) || !isfinite(a01) || !isfinite(a11)) info = -1;
  else if (k == 1) {
    if (!(fabs(a00) > tiny)) info = 1;
    else if (!isfinite(1.0 / a00)) info = InfoInverseNotFinite;
    else {
      const double v[4] = {1.0 / a00, 0.0, 0.0, 0.0};
      StoreSmall(1, v, anorm, inv, off, spec, b);
      RecordOutcome(b, 0, 0, info_out, outcome);
      return;
    }
  } else {
    /* step 0: pivot row p (lowest index on ties), the other row q */
    const bool   p1  = fabs(a10) > fabs(a00);
    const double ap0 = p1 ? a10 : a00, ap1 = p1 ? a11 : a01, aq0 = p1 ? a00 : a10, aq1 = p1 ? a01 : a11;
    if (!(fabs(ap0) > tiny)) info = 1;
    else {
      const double d = 1.0 / ap0, u = ap1 * d, t = -aq0 * d, w = aq1 - aq0 * u; /* row p: (d, u); row q: (t, w) */
      if (!(fabs(w) > tiny)) info = 2;
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
          StoreSmall(2, v, anorm, inv, off, spec, b);
          RecordOutcome(b, 0, 0, info_out, outcome);
          return;
        }
      }
    }
  }
  if (RecordOutcome(b, info, identity_policy, info_out, outcome)) StoreIdentity(k, 0, 1, inv, off, spec, b);
}

/* The merged setup kernel: extraction (per SRC), inversion and insertion, one sub-warp of P lanes per block, or a
   thread per block at P <= 2. The launch works on nwork blocks: perm[0..nwork) (one width class of a batch grouped
   by class), or 0..nwork when perm is NULL. SOURCE_DENSE inverts the blocks at inv in place (their sizes from
   sizes[], or from starts[] when sizes is NULL). */
/* Thread blocks of the setup kernel that must fit on an SM: at P = 32 ptxas otherwise takes ~146 registers
   (shuffles hoisted for ILP) and leaves 12 warps per SM; 4 (128 registers) measured 1.13x faster at k = 32 and
   1.18x at k = 17 on an H100 */
#ifndef PBG_SETUP_MIN_CTAS_32
  #define PBG_SETUP_MIN_CTAS_32 4
#endif
__host__ __device__ constexpr int SetupMinCtas(int P)
{
  return P == 32 ? PBG_SETUP_MIN_CTAS_32 : 1;
}

/* Blocks of the setup a thread block takes */
__host__ __device__ constexpr int SetupBlocksPerCta(int P)
{
  return P <= 2 ? PBG_CTA : PBG_CTA / P;
}

template <int P, SourceKind SRC>
__global__ void __launch_bounds__(PBG_CTA, SetupMinCtas(P)) SetupKernel(SparseRows M, int nwork, int kmax, const int *__restrict__ perm, const int *__restrict__ starts, const int *__restrict__ sizes, const PetscInt64 *__restrict__ offsets, PetscScalar *inv, int identity_policy, PetscInt *info_out, SetupOutcome *outcome, StoreSpec spec = StoreSpec())
{
  if constexpr (P <= 2) SetupSmall<P, SRC>(M, nwork, kmax, perm, starts, sizes, offsets, inv, identity_policy, info_out, outcome, spec);
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

    if (SRC == SOURCE_CACHED) ExtractOwnRow<P>(M, s, k, lane, row);
    else if (SRC == SOURCE_SHARED) ExtractRowsShared<P>(M, s, k, lane, rowbuf, row);
    else {
      const PetscScalar *blk = valid ? inv + BlockOffset(b, kmax, offsets) : inv;
#pragma unroll
      for (int t = 0; t < P; t++) row[t] = (lane < k && t < k) ? blk[lane + t * k] : 0.0;
    }
    /* ||A||_1 for the choice of a reduced type, before the elimination overwrites the block (the mode is the launch's) */
    const double anorm = spec.mode != PBG_STORE_DOUBLE ? BlockNorm1<P>(k, lane, row, SRC == SOURCE_SHARED, tile) : 0.0;
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
    if (valid && IdentityReplaces(info) && identity_policy) StoreIdentity(k, lane, P, inv, BlockOffset(b, kmax, offsets), spec, b);
    /* every lane of the warp takes part in the tile's __syncwarp(), also those of failed or missing blocks */
    StoreInverse<P>(valid && !info ? k : 0, lane, row, pivstep, scale, sipiv, SRC == SOURCE_SHARED, tile, inv, valid ? BlockOffset(b, kmax, offsets) : 0, spec, b, anorm);
  }
}

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
   transposed apply reads D coalesced too (reading each lane's column instead, k doubles apart, measured 64% of
   triad at k = 32 on an H100, against 94% this way).
   D is read once per apply, with the evict-first hint: it streams through L2 without evicting the vectors, which a
   Krylov method reads again at once (at 1M rows x and y are 16 MB of the 50 MB L2: with x just written by the
   previous kernel, mixed blocks 1..8 went from 27.9 to 22.3 us; with cold vectors, rotated among 12 pairs, from
   29.6 to 28.8 us).
   The loads are predicated, not guarded by a break at the block size: so all P of them are in flight at once (with a
   break each waited for its FMA; measured 50..63% of triad at block sizes 8..32 on an H100).
   Tried and dropped (H100, 1M rows):
   - a lane per row, a warp on 32 consecutive rows (no lane idles on mixed sizes), the block found by bisection and
     x through the cache: 1.1x..1.6x slower; with the block instead from a per-warp mask of block starts and x by
     shuffle, within 3% either way (mixed sizes 1..12: 5% faster, 1..8: 2% slower);
   - rounds (a warp on R x 32/P blocks, their starts read by one coalesced load and handed out by shuffles, the loads
     of all R rounds issued before the first FMA): up to 8% slower at P = 8, R = 4 (48 registers, fewer resident
     warps), within 1% at P = 16, R = 2.
   This kernel runs within 2% of a plain stream that reads the same bytes (mixed sizes 1..8: 25.0 against 24.4 us
   back to back): what is left above the triad of a large vector is the fixed cost of a 50..100 MB kernel.
   T: the stored type (double, float, or the bits of IEEE half). Every entry is converted to FP64 and the sums are
   FP64. Reduced storage: the FP64 result is scaled back by 2^sexp[b] (exact).
   Tried and dropped (H100, bench_vbjacobi, 1M rows): skipping, in the plain apply of reduced types, the columns past
   the largest block of the warp (their conversions to FP64, which issue at a quarter of the FMA rate, shuffles and
   FMAs, by a warp-uniform branch): the branches made the kernel hold all P raw loads at once (single at P = 32: 64
   registers instead of 34) and it got no faster: half 43 -> 44 us (arrow, max block size 32), 30 -> 28 (16); single
   slower, 45 -> 52 and 30 -> 37 us: it saved the work of the skipped columns but added a compare and a branch per
   column and the registers.
   What bounds reduced types on mixed sizes is instruction issue (ncu on the H100, arrow, max block size 24, P = 32,
   bench/results/ncu_vbjacobi_apply_h100.txt): half reads its 42 MB at 26% of DRAM bandwidth in 51 us, the time of
   double's 139 MB at 82%; it executes 41M warp instructions (double 33M), about 510 a warp, and the schedulers issue
   0.81 a cycle, with 'not selected' the largest stall: eligible warps wait for the issue slot. Per column j every
   lane spends a predicate, a 64-bit address, a load, two conversions (half -> float -> double), a shuffle and an FMA,
   for all P columns whatever the block size. Cutting the columns alone does not pay: a loop in chunks of 8 columns up
   to the warp's largest block (P = 16, 32) took arrow 24 half from 54 to 49 us but tridiagonal 32 half from 32 to
   43 us and 16 from 20 to 31 us (8 loads in flight a warp instead of P), and the grouped adaptive kernel to 80
   registers. The lever left is fewer instructions a column with all loads in flight: a row-major reduced layout
   (lane i's row contiguous, 8 halves a 16-byte load). */
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
