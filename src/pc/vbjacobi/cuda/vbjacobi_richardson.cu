/* The fused damped block Jacobi sweep of PCApplyRichardson_VBJacobi() and of the Chebyshev steps (host logic in
   ../richardson.c): for blocks that are the BSR blocks of the matrix, ynew = w (yold + d D^{-1} (b - A yold)) +
   (1 - w) yprev in one kernel (w = 1 and no yprev: a Richardson sweep). LANES lanes (a warp or a part of one) per block
   row: they take the (block, column) pairs of the row in turn (a block's column is BS contiguous values, so consecutive
   lanes read consecutive memory), accumulate the BS row sums in registers, reduce them across the group by shuffles, and
   lanes 0..BS-1 of the group apply the row's inverse (column-major, FP64) to b - A yold. Fewer lanes a row for short
   rows (in pairs): more rows share the fixed cost of a row (the reduction, the inverse). One template family over BS = 2..6, the block sizes
   where a warp a block row pays (bs 1 leaves most of the warp's reduction idle; bs 8 reads slower than the MatMult
   kernels: both stay unfused, doc/benchmarks.md). */
#include <../src/pc/vbjacobi/vbjacobicuda.h>
#include <petscdevice_cuda.h>

namespace pbg
{
namespace vbj
{
template <int BS, int LANES, typename MatScalar>
__global__ static void RichardsonSweepKernel(int mbs, const int *__restrict__ rowptr, const int *__restrict__ colidx, const MatScalar *__restrict__ val, const PetscScalar *__restrict__ dinv, PetscScalar damping, PetscScalar weight, const PetscScalar *__restrict__ b, const PetscScalar *__restrict__ yold, const PetscScalar *yprev, PetscScalar *ynew)
{
  constexpr int rows_per_warp = 32 / LANES;
  const int     lane = threadIdx.x & 31, sub = lane % LANES, group = lane / LANES, nwarps = gridDim.x * (blockDim.x >> 5);

  /* base is the same for every lane of a warp, so every lane reaches the shuffles */
  for (int base = (blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) * rows_per_warp; base < mbs; base += nwarps * rows_per_warp) {
    const int   i      = base + group;
    const bool  active = i < mbs;
    PetscScalar acc[BS];

#pragma unroll
    for (int r = 0; r < BS; r++) acc[r] = 0;
    if (yold) {
      if (active) {
        const long long end = (long long)rowptr[i + 1] * BS;

        for (long long p = (long long)rowptr[i] * BS + sub; p < end; p += LANES) { /* pair p: block p / BS, column p % BS */
          const int         k = (int)(p / BS), c = (int)(p - (long long)k * BS);
          const PetscScalar x = yold[(long long)colidx[k] * BS + c];
          const MatScalar  *a = val + p * BS;

#pragma unroll
          for (int r = 0; r < BS; r++) acc[r] += (PetscScalar)a[r] * x;
        }
      }
#pragma unroll
      for (int r = 0; r < BS; r++)
#pragma unroll
        for (int off = LANES / 2; off > 0; off >>= 1) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], off);
    }
    if (active && sub < BS) {
      const PetscScalar *d   = dinv + (long long)i * BS * BS;
      const long long    row = (long long)i * BS;
      PetscScalar        z   = 0;

#pragma unroll
      for (int c = 0; c < BS; c++) z += d[sub + c * BS] * (b[row + c] - acc[c]);
      const PetscScalar y = (yold ? yold[row + sub] : (PetscScalar)0) + damping * z;

      /* ynew may be yprev: each lane reads its own entry of yprev before writing it */
      ynew[row + sub] = yprev ? weight * y + (1 - weight) * yprev[row + sub] : y;
    }
  }
}

template <int BS, int LANES>
static void LaunchSweepLanes(int mbs, const PCVBJacobiDeviceMat *A, const float *val32, const PetscScalar *dinv, PetscScalar damping, PetscScalar weight, const PetscScalar *b, const PetscScalar *yold, const PetscScalar *yprev, PetscScalar *ynew, cudaStream_t stream)
{
  const int      threads = 256, rows_per_block = threads / LANES;
  const unsigned grid = (unsigned)PetscMax(1, PetscMin((mbs + rows_per_block - 1) / rows_per_block, 1 << 20));

  if (val32) RichardsonSweepKernel<BS, LANES, float><<<grid, threads, 0, stream>>>(mbs, A->d_rowptr, A->d_colidx, val32, dinv, damping, weight, b, yold, yprev, ynew);
  else RichardsonSweepKernel<BS, LANES, PetscScalar><<<grid, threads, 0, stream>>>(mbs, A->d_rowptr, A->d_colidx, A->d_values, dinv, damping, weight, b, yold, yprev, ynew);
}

template <int BS>
static PetscErrorCode LaunchSweep(int mbs, int lanes, const PCVBJacobiDeviceMat *A, const float *val32, const PetscScalar *dinv, PetscScalar damping, PetscScalar weight, const PetscScalar *b, const PetscScalar *yold, const PetscScalar *yprev, PetscScalar *ynew, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (lanes == 8) LaunchSweepLanes<BS, 8>(mbs, A, val32, dinv, damping, weight, b, yold, yprev, ynew, stream);
  else if (lanes == 16) LaunchSweepLanes<BS, 16>(mbs, A, val32, dinv, damping, weight, b, yold, yprev, ynew, stream);
  else LaunchSweepLanes<BS, 32>(mbs, A, val32, dinv, damping, weight, b, yold, yprev, ynew, stream);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace vbj
} // namespace pbg

using namespace pbg::vbj;

PetscErrorCode PCVBJacobiRichardsonSweep_CUDA(const PCVBJacobiDeviceMat *A, const float *val32, PetscInt lanes, const PCVBJacobiBlocks *blocks, PetscReal damping, PetscReal weight, const PetscScalar *b, const PetscScalar *yold, const PetscScalar *yprev, PetscScalar *ynew)
{
  const int          bs = (int)A->bs, mbs = (int)(A->nrows / A->bs);
  const PetscScalar *inv = blocks->dev ? blocks->dev->d_inv : NULL;
  cudaStream_t       stream;
  PetscErrorCode (*launch)(int, int, const PCVBJacobiDeviceMat *, const float *, const PetscScalar *, PetscScalar, PetscScalar, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, cudaStream_t) = NULL;

  PetscFunctionBegin;
  if (mbs == 0) PetscFunctionReturn(PETSC_SUCCESS); /* a process with no rows (its blocks may never have reached the device) */
  PetscCheck(PetscOffloadDevice(blocks->inv_mask) && inv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the device inverses are not current");
  PetscCheck(blocks->precision == PC_VBJACOBI_PRECISION_DOUBLE && blocks->maxk == A->bs && blocks->nblocks == mbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the fused sweep needs FP64 inverses of the matrix's own blocks");
  switch (bs) {
  case 2:
    launch = LaunchSweep<2>;
    break;
  case 3:
    launch = LaunchSweep<3>;
    break;
  case 4:
    launch = LaunchSweep<4>;
    break;
  case 5:
    launch = LaunchSweep<5>;
    break;
  case 6:
    launch = LaunchSweep<6>;
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: no fused sweep for block size %d (%d..%d)", bs, PC_VBJACOBI_RICHARDSON_MIN_BS, PC_VBJACOBI_RICHARDSON_MAX_BS);
  }
  if (mbs == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCheck(!yold || (yold != ynew && yold != yprev), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the fused sweep's output must not be its input");
  if (lanes <= 0) { /* auto, from the (block, column) pairs of an average row: measured on 27-block rows, 8 lanes won
                       up to bs 4 (108 pairs), 16 and 32 tied at bs 5-6 (bench_richardson -fused_pc_vbjacobi_sweep_lanes) */
    const PetscReal pairs = A->mean_row_len;

    lanes = pairs <= 128 ? 8 : (pairs <= 256 ? 16 : 32);
  }
  PetscCheck(lanes == 8 || lanes == 16 || lanes == 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: %" PetscInt_FMT " lanes a block row for the fused sweep: 8, 16 or 32", lanes);
  PetscCall((*launch)(mbs, (int)lanes, A, val32, inv, (PetscScalar)damping, (PetscScalar)weight, b, yold, yprev, ynew, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((yold ? 2.0 * A->mean_row_len * A->nrows : 0.0) + 2.0 * bs * A->nrows + (yprev ? 5.0 : 2.0) * A->nrows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace pbg
{
namespace vbj
{
__global__ static void RoundToSingleKernel(PetscInt64 n, const PetscScalar *__restrict__ x, float *__restrict__ y)
{
  for (PetscInt64 i = blockIdx.x * (PetscInt64)blockDim.x + threadIdx.x; i < n; i += (PetscInt64)gridDim.x * blockDim.x) y[i] = (float)x[i];
}
} // namespace vbj
} // namespace pbg

PetscErrorCode PCVBJacobiSweepValuesSingle_CUDA(const PCVBJacobiDeviceMat *A, PCVBJacobiSweepValues *sv)
{
  const size_t n = (size_t)A->nvalues;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (sv->cap < n) {
    PetscCallCUDA(cudaFree(sv->d_val));
    sv->d_val = NULL;
    sv->cap   = 0;
    PetscCallCUDA(cudaMalloc((void **)&sv->d_val, PetscMax(n, (size_t)1) * sizeof(float)));
    sv->cap = PetscMax(n, (size_t)1);
  }
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  RoundToSingleKernel<<<(unsigned)PetscMin((n + 255) / 256, (size_t)1 << 16), 256, 0, stream>>>((PetscInt64)n, A->d_values, sv->d_val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiSweepValuesFree_CUDA(PCVBJacobiSweepValues *sv)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(sv->d_val));
  PetscCall(PetscMemzero(sv, sizeof(*sv)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
