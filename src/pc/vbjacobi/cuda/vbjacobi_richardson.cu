/* The fused damped block Jacobi sweep of PCApplyRichardson_VBJacobi() (host logic in ../richardson.c): for blocks that
   are the BSR blocks of the matrix, ynew = yold + d D^{-1} (b - A yold) in one kernel. A warp per block row: its lanes
   take the (block, column) pairs of the row in turn (a block's column is BS contiguous values, so consecutive lanes read
   consecutive memory), accumulate the BS row sums in registers, reduce them across the warp by shuffles, and lanes
   0..BS-1 apply the row's inverse (column-major, FP64) to b - A yold. One template family over BS = 2..6, the block sizes
   where a warp a block row pays (bs 1 leaves most of the warp's reduction idle; bs 8 reads slower than the MatMult
   kernels: both stay unfused, doc/benchmarks.md). */
#include <../src/pc/vbjacobi/vbjacobicuda.h>
#include <petscdevice_cuda.h>

namespace pbg
{
namespace vbj
{
template <int BS>
__global__ static void RichardsonSweepKernel(int mbs, const int *__restrict__ rowptr, const int *__restrict__ colidx, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ dinv, PetscScalar damping, const PetscScalar *__restrict__ b, const PetscScalar *__restrict__ yold, PetscScalar *__restrict__ ynew)
{
  const int lane = threadIdx.x & 31, nwarps = gridDim.x * (blockDim.x >> 5);

  for (int i = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); i < mbs; i += nwarps) {
    PetscScalar acc[BS];

#pragma unroll
    for (int r = 0; r < BS; r++) acc[r] = 0;
    if (yold) {
      const long long end = (long long)rowptr[i + 1] * BS;

      for (long long p = (long long)rowptr[i] * BS + lane; p < end; p += 32) { /* pair p: block p / BS, column p % BS */
        const int          k = (int)(p / BS), c = (int)(p - (long long)k * BS);
        const PetscScalar  x = yold[(long long)colidx[k] * BS + c];
        const PetscScalar *a = val + p * BS;

#pragma unroll
        for (int r = 0; r < BS; r++) acc[r] += a[r] * x;
      }
#pragma unroll
      for (int r = 0; r < BS; r++)
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], off);
    }
    if (lane < BS) {
      const PetscScalar *d   = dinv + (long long)i * BS * BS;
      const long long    row = (long long)i * BS;
      PetscScalar        z   = 0;

#pragma unroll
      for (int c = 0; c < BS; c++) z += d[lane + c * BS] * (b[row + c] - acc[c]);
      ynew[row + lane] = (yold ? yold[row + lane] : (PetscScalar)0) + damping * z;
    }
  }
}

template <int BS>
static PetscErrorCode LaunchSweep(int mbs, const PCVBJacobiDeviceMat *A, const PetscScalar *dinv, PetscScalar damping, const PetscScalar *b, const PetscScalar *yold, PetscScalar *ynew, cudaStream_t stream)
{
  const int      threads = 256, warps = threads / 32;
  const unsigned grid = (unsigned)PetscMax(1, PetscMin((mbs + warps - 1) / warps, 1 << 20));

  PetscFunctionBegin;
  RichardsonSweepKernel<BS><<<grid, threads, 0, stream>>>(mbs, A->d_rowptr, A->d_colidx, A->d_values, dinv, damping, b, yold, ynew);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace vbj
} // namespace pbg

using namespace pbg::vbj;

PetscErrorCode PCVBJacobiRichardsonSweep_CUDA(const PCVBJacobiDeviceMat *A, const PCVBJacobiBlocks *blocks, PetscReal damping, const PetscScalar *b, const PetscScalar *yold, PetscScalar *ynew)
{
  const int          bs = (int)A->bs, mbs = (int)(A->nrows / A->bs);
  const PetscScalar *inv = blocks->dev ? blocks->dev->d_inv : NULL;
  cudaStream_t       stream;
  PetscErrorCode (*launch)(int, const PCVBJacobiDeviceMat *, const PetscScalar *, PetscScalar, const PetscScalar *, const PetscScalar *, PetscScalar *, cudaStream_t) = NULL;

  PetscFunctionBegin;
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
  PetscCall((*launch)(mbs, A, inv, (PetscScalar)damping, b, yold, ynew, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((yold ? 2.0 * A->mean_row_len * A->nrows : 0.0) + 2.0 * bs * A->nrows + 2.0 * A->nrows));
  PetscFunctionReturn(PETSC_SUCCESS);
}
