/* Device side of PCVBJACOBI (the blocks are found in vbjacobi_blocks.cu): the merged extraction + Gauss-Jordan setup kernel, the
   batched block GEMV of the apply, and the public batched inversion PetscBlockGPUInvertBatched().

   One template family on the sub-warp width P (the next power of two >= the largest block): a
   sub-warp of P lanes owns one block, so 32/P blocks share a warp when the blocks are small (MPW). Lane i
   holds row i of the block in registers (row i of A^T with the shared extraction); Gauss-Jordan with implicit
   pivoting (Anzt, Dongarra, Flegar, Quintana-Orti, Parallel Computing 2018) runs in registers and
   communicates through warp shuffles; the inverse goes out through a shared-memory tile, column by column,
   so every store is coalesced. All 32 lanes of a warp run every shuffle and __syncwarp(): lanes past the
   last block or the block size only mask their updates. */
#include <petscblockgpu/private/vbjacobicuda.h>
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <cfloat>
#include <type_traits>

#define PBG_CTA 128 /* threads per thread block in every kernel here */

/* ------------------------------------------------------------------------------------------- sub-warp helpers */
/* Lowest lane of the sub-warp holding the largest value (ties to the lowest lane), as the host loop picks it. */
template <int P>
__device__ __forceinline__ void SubwarpArgmax(double &v, int &lane)
{
#pragma unroll
  for (int m = P / 2; m >= 1; m /= 2) {
    double ov = __shfl_xor_sync(0xffffffffu, v, m, P);
    int    ol = __shfl_xor_sync(0xffffffffu, lane, m, P);
    if (ov > v || (ov == v && ol < lane)) {
      v    = ov;
      lane = ol;
    }
  }
}

template <int P>
__device__ __forceinline__ double SubwarpMax(double v)
{
#pragma unroll
  for (int m = P / 2; m >= 1; m /= 2) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, m, P));
  return v;
}

template <int P>
__device__ __forceinline__ double SubwarpSum(double v)
{
#pragma unroll
  for (int m = P / 2; m >= 1; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m, P);
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
/* Step kk of Gauss-Jordan with implicit pivoting on the rows held by the sub-warp; rk = row[kk] of this lane */
template <int P>
__device__ __forceinline__ void GaussJordanStep(int kk, double rk, int k, int kwarp, int lane, double tiny, int &info, bool &used, int &pivstep, double (&row)[P], int *sipiv)
{
  const bool active = kk < k && info == 0; /* uniform over the sub-warp */
  double     best   = (active && !used) ? fabs(rk) : -1.0;
  int        p      = lane;
  SubwarpArgmax<P>(best, p);
  if (active && !(best > tiny)) info = kk + 1;
  const bool   go = active && info == 0;
  const double d  = 1.0 / __shfl_sync(0xffffffffu, rk, p, P), f = rk;
  if (go && lane == p) {
    used      = true;
    pivstep   = kk;
    sipiv[kk] = p;
  }
#pragma unroll
  for (int j = 0; j < P; j++) {
    if (j >= kwarp) break;
    const double pj = (j == kk) ? d : __shfl_sync(0xffffffffu, row[j], p, P) * d;
    if (go && j < k) row[j] = (lane == p) ? pj : (j == kk ? -f * d : row[j] - f * pj);
  }
}

/* Gauss-Jordan elimination with implicit pivoting of the k x k matrix whose row `lane` this lane holds, exactly as
   PCVBJacobiInvertBlock_Host() does it. Returns the host's info: 0, the failing column + 1, or -1 for NaN/Inf.
   On success row[] holds row `lane` of the permuted storage S, pivstep the step at which this row was the pivot
   and ipiv[j] the pivot row of step j: inv[pivstep][ipiv[j]] = row[j]. */
template <int P>
__device__ __forceinline__ int GaussJordan(int k, int kwarp, int lane, double (&row)[P], int &pivstep, int *sipiv)
{
  double amax = 0.0, bad = 0.0;
  bool   used = lane >= k; /* lanes past the block never pivot */

#pragma unroll
  for (int t = 0; t < P; t++) {
    if (t < k && lane < k) {
      if (!isfinite(row[t])) bad = 1.0;
      amax = fmax(amax, fabs(row[t]));
    }
  }
  bad  = SubwarpMax<P>(bad);
  amax = SubwarpMax<P>(amax);
  const double tiny = (double)k * DBL_EPSILON * amax;
  int          info = bad > 0.0 ? -1 : 0;
  pivstep           = -1;
  /* Every step runs on every lane of the warp (the shuffles need them all), up to the largest block of the warp
     (kwarp, warp-uniform); "go" masks the updates. The column loop is unrolled so the row stays in registers. The
     step loop is unrolled too up to P = 16; at P = 32 it is rolled, picking column kk of the own row by selects:
     on an H100 that measured 1.25x faster at k = 32 and 2.3x on mixed 1..32 batches, but 1.3x slower at k = 8
     and 16. (The pivot row through shared memory instead of shuffles was 1.1x slower at k = 32.) */
  if (P >= 32) {
#pragma unroll 1
    for (int kk = 0; kk < kwarp; kk++) {
      double rk = 0.0;
#pragma unroll
      for (int j = 0; j < P; j++)
        if (j == kk) rk = row[j];
      GaussJordanStep<P>(kk, rk, k, kwarp, lane, tiny, info, used, pivstep, row, sipiv);
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < P; kk++) {
      if (kk >= kwarp) break;
      GaussJordanStep<P>(kk, row[kk], k, kwarp, lane, tiny, info, used, pivstep, row, sipiv);
    }
  }
  __syncwarp(); /* sipiv, written by the pivot lanes, is read by all */
  return info;
}

/* Writes the k x k column-major inverse at out, from the lanes' rows, through the sub-warp's tile (P x (P+1)).
   transposed: the lanes inverted A^T, so the inverse of A is the transpose of what they hold. */
template <int P>
__device__ __forceinline__ void StoreInverse(int k, int lane, const double (&row)[P], int pivstep, const int *ipiv, bool transposed, double *tile, PetscScalar *out)
{
  if (lane < k) {
#pragma unroll
    for (int j = 0; j < P; j++) {
      if (j < k) {
        const int r = pivstep, c = ipiv[j]; /* entry (r, c) of the inverse of what the lanes hold */
        if (transposed) tile[r * (P + 1) + c] = row[j];
        else tile[c * (P + 1) + r] = row[j];
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
template <int P, SourceKind SRC>
__global__ void __launch_bounds__(PBG_CTA) SetupKernel(SparseRows M, int nblocks, int kmax, const int *__restrict__ starts, const int *__restrict__ sizes, const PetscInt64 *__restrict__ offsets, PetscScalar *inv, int identity_policy, PetscInt *info_out, SetupOutcome *outcome)
{
  extern __shared__ double smem[];
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
  info            = GaussJordan<P>(k, kwarp, lane, row, pivstep, sipiv);
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
  StoreInverse<P>(valid && !info ? k : 0, lane, row, pivstep, sipiv, SRC == SOURCE_SHARED, tile, valid ? inv + offsets[b] : inv);
}

/* y = D x (or D^T x) for each block: a sub-warp per block, x segment in registers, column-major D read with
   consecutive lanes on consecutive rows (coalesced); the transpose reads each column with one lane. */
template <int P, bool TRANS>
__global__ void __launch_bounds__(PBG_CTA) ApplyKernel(int nblocks, const int *__restrict__ starts, const PetscInt64 *__restrict__ offsets, const PetscScalar *__restrict__ inv, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  const int  lane = threadIdx.x % P, b = blockIdx.x * (PBG_CTA / P) + threadIdx.x / P;
  const bool valid = b < nblocks;
  const int  s = valid ? starts[b] : 0, k = valid ? starts[b + 1] - s : 0;
  const PetscScalar *D = valid ? inv + offsets[b] : inv;
  const double xi = lane < k ? x[s + lane] : 0.0;
  double       sum = 0.0;
  const int    kwarp = __reduce_max_sync(0xffffffffu, k); /* the largest block of the warp bounds the loop */

#pragma unroll
  for (int j = 0; j < P; j++) {
    if (j >= kwarp) break;
    const double xj = __shfl_sync(0xffffffffu, xi, j, P);
    if (j < k && lane < k) sum += (TRANS ? __ldg(D + j + (size_t)lane * k) : __ldg(D + lane + (size_t)j * k)) * xj;
  }
  if (lane < k) y[s + lane] = sum;
}

/* ------------------------------------------------------------------------------------------- launch helpers */
static int SubwarpWidth(PetscInt maxk)
{
  return maxk <= 1 ? 1 : maxk <= 2 ? 2 : maxk <= 4 ? 4 : maxk <= 8 ? 8 : maxk <= 16 ? 16 : 32;
}

static size_t SetupSharedBytes(int P)
{
  return (size_t)(PBG_CTA / P) * SubwarpSharedDoubles(P) * sizeof(double);
}

template <int P>
static PetscErrorCode LaunchSetupP(SourceKind src, const SparseRows &M, int nblocks, int kmax, const int *starts, const int *sizes, const PetscInt64 *offsets, PetscScalar *inv, int identity, PetscInt *info, SetupOutcome *outcome, cudaStream_t stream)
{
  const unsigned grid = (unsigned)((nblocks + PBG_CTA / P - 1) / (PBG_CTA / P));
  const size_t   shm  = SetupSharedBytes(P);

  PetscFunctionBegin;
  if (!nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  switch (src) {
  case SOURCE_CACHED:
    SetupKernel<P, SOURCE_CACHED><<<grid, PBG_CTA, shm, stream>>>(M, nblocks, kmax, starts, sizes, offsets, inv, identity, info, outcome);
    break;
  case SOURCE_SHARED:
    SetupKernel<P, SOURCE_SHARED><<<grid, PBG_CTA, shm, stream>>>(M, nblocks, kmax, starts, sizes, offsets, inv, identity, info, outcome);
    break;
  case SOURCE_DENSE:
    SetupKernel<P, SOURCE_DENSE><<<grid, PBG_CTA, shm, stream>>>(M, nblocks, kmax, starts, sizes, offsets, inv, identity, info, outcome);
    break;
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Calls f(std::integral_constant<int, P>) for the run-time sub-warp width P: the one place that maps widths to
   template instances */
template <class F>
static PetscErrorCode ForSubwarpWidth(int P, F f)
{
  PetscFunctionBegin;
  switch (P) {
  case 1:
    PetscCall(f(std::integral_constant<int, 1>()));
    break;
  case 2:
    PetscCall(f(std::integral_constant<int, 2>()));
    break;
  case 4:
    PetscCall(f(std::integral_constant<int, 4>()));
    break;
  case 8:
    PetscCall(f(std::integral_constant<int, 8>()));
    break;
  case 16:
    PetscCall(f(std::integral_constant<int, 16>()));
    break;
  default:
    PetscCall(f(std::integral_constant<int, 32>()));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LaunchSetup(int P, SourceKind src, const SparseRows &M, int nblocks, int kmax, const int *starts, const int *sizes, const PetscInt64 *offsets, PetscScalar *inv, int identity, PetscInt *info, SetupOutcome *outcome, cudaStream_t stream)
{
  return ForSubwarpWidth(P, [&](auto W) { return LaunchSetupP<decltype(W)::value>(src, M, nblocks, kmax, starts, sizes, offsets, inv, identity, info, outcome, stream); });
}

template <int P>
static PetscErrorCode LaunchApplyP(bool trans, int nblocks, const int *starts, const PetscInt64 *offsets, const PetscScalar *inv, const PetscScalar *x, PetscScalar *y, cudaStream_t stream)
{
  const unsigned grid = (unsigned)((nblocks + PBG_CTA / P - 1) / (PBG_CTA / P));

  PetscFunctionBegin;
  if (!nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  if (trans) ApplyKernel<P, true><<<grid, PBG_CTA, 0, stream>>>(nblocks, starts, offsets, inv, x, y);
  else ApplyKernel<P, false><<<grid, PBG_CTA, 0, stream>>>(nblocks, starts, offsets, inv, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Setup outcome: the first failing block with its info, and the number of blocks replaced by the identity */
static PetscErrorCode ReadOutcome(SetupOutcome *d_outcome, const PetscInt *d_info, PetscInt *nsingular, PetscInt *bad_block, PetscInt *bad_info, cudaStream_t stream)
{
  SetupOutcome h;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(&h, d_outcome, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  *nsingular = h.nsingular;
  *bad_block = -1;
  *bad_info  = 0;
  if (h.first_bad != INT_MAX) {
    *bad_block = h.first_bad;
    PetscCallCUDA(cudaMemcpy(bad_info, d_info + h.first_bad, sizeof(PetscInt), cudaMemcpyDeviceToHost));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (Re)starts an outcome record: no failure seen, no block replaced */
static PetscErrorCode ResetOutcome(SetupOutcome *d_outcome, cudaStream_t stream)
{
  static const SetupOutcome init = {INT_MAX, 0};

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(d_outcome, &init, sizeof(init), cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiSetup_CUDA(const PCVBJacobiDeviceMat *A, PCVBJacobiExtraction extraction, PCVBJacobiSingularPolicy policy, PCVBJacobiDevice *dev, PetscInt *nsingular, PetscInt *bad_block, PetscInt *bad_info)
{
  const int    P = SubwarpWidth(dev->maxk);
  SparseRows   M = {(int)A->nrows, (int)A->bs, A->d_rowptr, A->d_colidx, A->d_values};
  SetupOutcome *d_outcome;
  cudaStream_t stream;
  SourceKind   src;

  PetscFunctionBegin;
  static_assert(sizeof(SetupOutcome) == sizeof(dev->d_outcome), "outcome record size");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (extraction == PC_VBJACOBI_EXTRACTION_AUTO) {
    /* a thread scanning its own row reads it uncoalesced: worth it only for short rows; long rows are read by
       the whole sub-warp, coalesced (the paper's rule of thumb: shared extraction pays off beyond ~ 2P entries) */
    extraction = A->mean_row_len > 2.0 * P ? PC_VBJACOBI_EXTRACTION_SHARED : PC_VBJACOBI_EXTRACTION_CACHED;
  }
  src                  = extraction == PC_VBJACOBI_EXTRACTION_SHARED ? SOURCE_SHARED : SOURCE_CACHED;
  dev->extraction_used = extraction;
  PetscCall(PetscSNPrintf(dev->kernel, sizeof(dev->kernel), "merged extract+GJE, sub-warp %d, %d block%s/warp, %s extraction", P, 32 / P, P < 32 ? "s" : "", src == SOURCE_SHARED ? "shared" : "cached"));
  PetscCall(PetscSNPrintf(dev->apply_kernel, sizeof(dev->apply_kernel), "batched block GEMV, sub-warp %d, %d block%s/warp", P, 32 / P, P < 32 ? "s" : ""));
  if (!dev->d_outcome) PetscCallCUDA(cudaMalloc((void **)&dev->d_outcome, sizeof(SetupOutcome)));
  d_outcome = reinterpret_cast<SetupOutcome *>(dev->d_outcome);
  PetscCall(ResetOutcome(d_outcome, stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(LaunchSetup(P, src, M, (int)dev->nblocks, (int)dev->maxk, dev->d_starts, NULL, dev->d_inv_offsets, dev->d_inv, policy == PC_VBJACOBI_SINGULAR_IDENTITY, dev->d_info, d_outcome, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(ReadOutcome(d_outcome, dev->d_info, nsingular, bad_block, bad_info, stream));
  PetscCall(PetscLogGpuFlops(dev->setup_flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiApply_CUDA(const PCVBJacobiDevice *dev, const PetscScalar *d_x, PetscScalar *d_y, PetscBool transpose)
{
  cudaStream_t stream;
  const int    P = SubwarpWidth(dev->maxk);

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(ForSubwarpWidth(P, [&](auto W) { return LaunchApplyP<decltype(W)::value>(transpose, (int)dev->nblocks, dev->d_starts, dev->d_inv_offsets, dev->d_inv, d_x, d_y, stream); }));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * (double)dev->inv_len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiCopyInversesToHost_CUDA(const PCVBJacobiDevice *dev, PetscScalar *h_inv)
{
  PetscFunctionBegin;
  if (dev->inv_len) PetscCallCUDA(cudaMemcpy(h_inv, dev->d_inv, sizeof(PetscScalar) * dev->inv_len, cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu(sizeof(PetscScalar) * dev->inv_len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiDeviceReset_CUDA(PCVBJacobiDevice *dev)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(dev->d_starts));
  PetscCallCUDA(cudaFree(dev->d_inv_offsets));
  PetscCallCUDA(cudaFree(dev->d_inv));
  PetscCallCUDA(cudaFree(dev->d_info));
  PetscCallCUDA(cudaFree(dev->d_outcome));
  PetscCall(PetscMemzero(dev, sizeof(*dev)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PetscBlockGPUInvertBatched - Inverts, in place, a batch of small dense blocks of sizes 1 to 32 that are already
  on the GPU, by Gauss-Jordan elimination with implicit pivoting (the kernels of `PCVBJACOBI`).

  Not Collective

  Input Parameters:
+ nblocks   - number of blocks
. maxk      - the largest block size in the batch, 1 to 32 (chooses the kernel: one sub-warp of the next power of two
              >= maxk per block)
. d_sizes   - device array [nblocks]: the size k of each block
- d_offsets - device array [nblocks]: where each block starts in `d_blocks`

  Input/Output Parameters:
+ d_blocks - device array: each block k x k, column-major, at its offset; replaced by its inverse
- d_info   - device array [nblocks]: 0 on success, j+1 when the pivot of column j was zero or tiny (below
             k * eps * max|block|), -1 when the block holds NaN or Inf, -2 when its size is outside 0..maxk;
             a block with info != 0 is left as it was

  Level: advanced

  Notes:
  Runs on PETSc's current CUDA stream and returns when the inversion is done. The blocks may lie anywhere in
  `d_blocks` but must not overlap.

.seealso: `PCVBJACOBI`, `PCVBJacobiGetInverses()`
@*/
PetscErrorCode PetscBlockGPUInvertBatched(PetscInt nblocks, PetscInt maxk, const PetscInt d_sizes[], const PetscInt64 d_offsets[], PetscScalar d_blocks[], PetscInt d_info[])
{
  SparseRows    none = {0, 1, NULL, NULL, NULL};
  SetupOutcome *d_outcome;
  cudaStream_t  stream;
  PetscInt      nsingular, bad_block, bad_info;

  PetscFunctionBegin;
  PetscCheck(nblocks >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PetscBlockGPUInvertBatched: negative number of blocks %" PetscInt_FMT, nblocks);
  PetscCheck(maxk >= 1 && maxk <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PetscBlockGPUInvertBatched: maxk %" PetscInt_FMT " is outside 1..%d", maxk, PC_VBJACOBI_MAX_BLOCK_SIZE);
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "PetscBlockGPUInvertBatched needs 32-bit PetscInt");
  if (!nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(d_sizes && d_offsets && d_blocks && d_info, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PetscBlockGPUInvertBatched: NULL device array");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync((void **)&d_outcome, sizeof(SetupOutcome), stream));
  PetscCall(ResetOutcome(d_outcome, stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(LaunchSetup(SubwarpWidth(maxk), SOURCE_DENSE, none, (int)nblocks, (int)maxk, NULL, d_sizes, d_offsets, d_blocks, 0, d_info, d_outcome, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(ReadOutcome(d_outcome, d_info, &nsingular, &bad_block, &bad_info, stream));
  PetscCallCUDA(cudaFreeAsync(d_outcome, stream));
  PetscCall(PetscLogGpuFlops(2.0 * (double)nblocks * maxk * maxk * maxk));
  PetscFunctionReturn(PETSC_SUCCESS);
}
