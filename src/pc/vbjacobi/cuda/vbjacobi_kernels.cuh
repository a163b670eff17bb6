/* The device kernels of PCVBJACOBI, included by vbjacobi_cuda.cu (compiled by nvcc) and by the host warp emulator
   of the tests (tests/emu/cuda_emu.h, so that CI checks their logic on machines without a GPU): plain CUDA C++
   that uses only PETSc's scalar types and the warp intrinsics.

   One template family on the sub-warp width P (the next power of two >= the largest block): a sub-warp of P
   lanes owns one block, so 32/P blocks share a warp when the blocks are small (MPW). Lane i holds row i of the
   block in registers (row i of A^T with the shared extraction); Gauss-Jordan with implicit pivoting (Anzt,
   Dongarra, Flegar, Quintana-Orti, Parallel Computing 2018) runs in registers and communicates through warp
   shuffles; the inverse goes out through a shared-memory tile, column by column, so every store is coalesced.
   All 32 lanes of a warp run every shuffle and __syncwarp(): lanes past the last block or the block size only
   mask their updates. */
#pragma once
#include <petscsys.h>
#include <cfloat>
#include <utility>

/* the dynamic shared memory of a kernel (the host warp emulator of the tests defines it otherwise) */
#ifndef PBG_EXTERN_SHARED
  #define PBG_EXTERN_SHARED extern __shared__
#endif

#define PBG_CTA 128 /* threads per thread block in every kernel here */

/* ------------------------------------------------------------------------------------------- sub-warp helpers */
template <int P>
__device__ __forceinline__ double SubwarpMax(double v)
{
#pragma unroll
  for (int m = P / 2; m >= 1; m /= 2) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, m, P));
  return v;
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
    best = SubwarpMax<P>(used ? -1.0 : a);
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

/* Calls GaussJordan<P, W> for the run-time W = kwarp (1..P, warp-uniform): W is a template parameter so that the
   rotation of the columns is fixed at compile time */
template <int P, int... Ws>
__device__ __forceinline__ int GaussJordanDispatch(std::integer_sequence<int, Ws...>, int kwarp, int k, int lane, double (&row)[P], int &pivstep, double &scale, int *sipiv)
{
  int info = 0;
  (void)((kwarp == Ws + 1 && ((info = GaussJordan<P, Ws + 1>(k, lane, row, pivstep, scale, sipiv)), true)) || ...);
  return info;
}

/* Writes the k x k column-major inverse at out, from the lanes' rows, through the sub-warp's tile (P x (P+1)).
   transposed: the lanes inverted A^T, so the inverse of A is the transpose of what they hold. */
template <int P>
__device__ __forceinline__ void StoreInverse(int k, int lane, const double (&row)[P], int pivstep, double scale, const int *ipiv, bool transposed, double *tile, PetscScalar *out)
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
  for (int e = lane; e < k * k; e += P) {
    const int c = e / k, r = e - c * k;
    out[e] = tile[c * (P + 1) + r];
  }
  __syncwarp();
}

/* The identity, for a singular block under PC_VBJACOBI_SINGULAR_IDENTITY */
__device__ __forceinline__ void StoreIdentity(int k, int lane, int P, PetscScalar *out)
{
  for (int e = lane; e < k * k; e += P) out[e] = (e % (k + 1) == 0) ? 1.0 : 0.0;
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
};

/* The merged setup kernel: extraction (per SRC), inversion and insertion, one sub-warp per block. SOURCE_DENSE
   inverts the blocks at inv in place (their sizes from sizes[], or from starts[] when sizes is NULL). */
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

template <int P, SourceKind SRC>
__global__ void __launch_bounds__(PBG_CTA, SetupMinCtas(P)) SetupKernel(SparseRows M, int nblocks, int kmax, const int *__restrict__ starts, const int *__restrict__ sizes, const PetscInt64 *__restrict__ offsets, PetscScalar *inv, int identity_policy, PetscInt *info_out, SetupOutcome *outcome)
{
  PBG_EXTERN_SHARED double smem[];
  const int lane = threadIdx.x % P, sub = threadIdx.x / P, b = blockIdx.x * (PBG_CTA / P) + sub;
  double   *tile = smem + (size_t)sub * SubwarpSharedDoubles(P), *rowbuf = tile + P * (P + 1);
  int      *sipiv = reinterpret_cast<int *>(rowbuf + P); /* ipiv[j]: the row of step j's pivot */
  const bool valid = b < nblocks;
  const int  s     = valid && starts ? starts[b] : 0;
  const int  ksrc  = !valid ? 0 : (sizes ? sizes[b] : starts[b + 1] - s);
  const bool badk  = ksrc < 0 || ksrc > kmax; /* only a caller of PetscBlockGPUInvertBatched() can give such sizes */
  const int  k     = badk ? 0 : ksrc;
  double     row[P];
  int        pivstep = -1, info;

  if (SRC == SOURCE_CACHED) ExtractOwnRow<P>(M, s, k, lane, row);
  else if (SRC == SOURCE_SHARED) ExtractRowsShared<P>(M, s, k, lane, rowbuf, row);
  else {
    const PetscScalar *blk = valid ? inv + offsets[b] : inv;
#pragma unroll
    for (int t = 0; t < P; t++) row[t] = (lane < k && t < k) ? blk[lane + t * k] : 0.0;
  }
  const int kwarp = __reduce_max_sync(0xffffffffu, k); /* every lane of the warp runs the same steps */
  double    scale = 1.0;
  info = GaussJordanDispatch<P>(std::make_integer_sequence<int, P>(), kwarp, k, lane, row, pivstep, scale, sipiv);
  if (badk) info = -2;
  if (valid) {
    PetscScalar *out = inv + offsets[b];
    if (info > 0 && identity_policy) {
      StoreIdentity(k, lane, P, out);
      if (lane == 0) {
        atomicAdd(&outcome->nsingular, 1);
        info_out[b] = info;
      }
    } else if (info) {
      if (lane == 0) {
        info_out[b] = info;
        atomicMin(&outcome->first_bad, b);
      }
    } else if (lane == 0) info_out[b] = 0;
  }
  /* every lane of the warp takes part in the tile's __syncwarp(), also those of failed or missing blocks */
  StoreInverse<P>(valid && !info ? k : 0, lane, row, pivstep, scale, sipiv, SRC == SOURCE_SHARED, tile, valid ? inv + offsets[b] : inv);
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
   back to back): what is left above the triad of a large vector is the fixed cost of a 50..100 MB kernel. */
template <int P, bool TRANS>
__global__ void __launch_bounds__(PBG_CTA) ApplyKernel(int nblocks, const int *__restrict__ starts, const PetscInt64 *__restrict__ offsets, const PetscScalar *__restrict__ inv, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  const int  lane = threadIdx.x % P, b = blockIdx.x * (PBG_CTA / P) + threadIdx.x / P;
  const bool valid = b < nblocks;
  const int  s = valid ? starts[b] : 0, k = valid ? starts[b + 1] - s : 0;
  const PetscScalar *D = valid ? inv + offsets[b] : inv;
  const double xi = lane < k ? x[s + lane] : 0.0;
  double       dj[P], sum = 0.0;

#pragma unroll
  for (int j = 0; j < P; j++) dj[j] = (j < k && lane < k) ? __ldcs(D + lane + (size_t)j * k) : 0.0;
  if (TRANS) {
#pragma unroll
    for (int j = 0; j < P; j++) dj[j] *= xi;
    ReduceScatterStep<P, P / 2>(lane, dj);
    sum = dj[0];
  } else {
#pragma unroll
    for (int j = 0; j < P; j++) sum = fma(dj[j], __shfl_sync(0xffffffffu, xi, j, P), sum);
  }
  if (lane < k) y[s + lane] = sum;
}
