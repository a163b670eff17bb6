/* Device side of PCVBJACOBI, the blocks: supervariable detection on the device (warp-per-row pattern compare and
   CUB scans, no serial loops), block starts given by the host, and the sizing of the inverses' storage. */
#include <petscblockgpu/private/vbjacobicuda.h>
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>

#define PBG_CTA 128 /* threads per thread block of the warp-per-row kernel */

/* flag[r] = 1 when (block) row r starts a new pattern: r == 0, or its columns differ from those of row r - 1, in
   the diagonal part or the off-diagonal part. A warp per row compares the two column lists. */
__global__ void __launch_bounds__(PBG_CTA) PatternChangeKernel(int mrows, const int *__restrict__ rp, const int *__restrict__ ci, const int *__restrict__ orp, const int *__restrict__ oci, int *flag)
{
  const int lane = threadIdx.x % 32, r = blockIdx.x * (PBG_CTA / 32) + threadIdx.x / 32;
  if (r >= mrows) return; /* whole warps leave together */
  int differ = 0;
  if (r == 0) differ = 1;
  else {
    for (int part = 0; part < 2 && !differ; part++) {
      const int *p = part ? orp : rp, *c = part ? oci : ci;
      if (!p) continue;
      const int a0 = p[r - 1], a1 = p[r], b1 = p[r + 1];
      if (a1 - a0 != b1 - a1) differ = 1;
      else {
        int mine = 0;
        for (int q = lane; q < a1 - a0; q += 32) mine |= (__ldg(c + a0 + q) != __ldg(c + a1 + q));
        differ = __any_sync(0xffffffffu, mine);
      }
    }
  }
  if (lane == 0) flag[r] = differ;
}

/* v[i] = i where scalar row i starts a run of identical patterns, else 0 (a max-scan then gives each row its run) */
__global__ void RunStartKernel(int n, int bs, const int *__restrict__ flag, int *v)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = (i % bs == 0 && flag[i / bs]) ? i : 0;
}

/* isstart[i] = 1 where a block starts: the runs are cut greedily into chunks of maxbs rows */
__global__ void BlockStartKernel(int n, int maxbs, const int *__restrict__ runstart, int *isstart)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) isstart[i] = ((i - runstart[i]) % maxbs) == 0;
}

__global__ void ScatterStartsKernel(int n, const int *__restrict__ isstart, const int *__restrict__ pos, int *starts)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && isstart[i]) starts[pos[i]] = i;
  if (i == n) starts[pos[n - 1] + isstart[n - 1]] = n;
}

/* sq[b] = k_b^2 (the entries of block b's inverse); an exclusive scan of sq gives the offsets */
__global__ void SquaresKernel(int nblocks, const int *__restrict__ starts, PetscInt64 *sq)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nblocks) {
    const PetscInt64 k = starts[b + 1] - starts[b];
    sq[b]              = k * k;
  } else if (b == nblocks) sq[b] = 0;
}

struct MaxOp {
  __device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; }
};

static unsigned Grid1(PetscInt n)
{
  return (unsigned)((n + 255) / 256);
}

static PetscErrorCode EnsureBlockCapacity(PCVBJacobiDevice *dev, PetscInt nblocks)
{
  PetscFunctionBegin;
  if ((size_t)nblocks + 1 > dev->cap_blocks) {
    PetscCallCUDA(cudaFree(dev->d_starts));
    PetscCallCUDA(cudaFree(dev->d_inv_offsets));
    PetscCallCUDA(cudaFree(dev->d_info));
    dev->cap_blocks = (size_t)nblocks + 1;
    PetscCallCUDA(cudaMalloc((void **)&dev->d_starts, dev->cap_blocks * sizeof(PetscInt)));
    PetscCallCUDA(cudaMalloc((void **)&dev->d_inv_offsets, dev->cap_blocks * sizeof(PetscInt64)));
    PetscCallCUDA(cudaMalloc((void **)&dev->d_info, dev->cap_blocks * sizeof(PetscInt)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d_inv_offsets, inv_len, maxk and the storage of the inverses, from the block starts on the device and host */
static PetscErrorCode SizeInverses(PCVBJacobiDevice *dev, const PetscInt *h_starts, cudaStream_t stream)
{
  size_t tmp_bytes = 0;
  void  *tmp       = NULL;

  PetscFunctionBegin;
  dev->maxk        = 0;
  dev->setup_flops = 0.0;
  for (PetscInt b = 0; b < dev->nblocks; b++) {
    const PetscInt k = h_starts[b + 1] - h_starts[b];

    dev->maxk = PetscMax(dev->maxk, k);
    dev->setup_flops += 2.0 * k * k * k;
  }
  PetscCheck(dev->maxk <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: a block of %" PetscInt_FMT " rows exceeds %d", dev->maxk, PC_VBJACOBI_MAX_BLOCK_SIZE);
  SquaresKernel<<<Grid1(dev->nblocks + 1), 256, 0, stream>>>((int)dev->nblocks, dev->d_starts, dev->d_inv_offsets);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, tmp_bytes, dev->d_inv_offsets, dev->d_inv_offsets, (int)dev->nblocks + 1, stream));
  PetscCallCUDA(cudaMallocAsync(&tmp, tmp_bytes, stream));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, dev->d_inv_offsets, dev->d_inv_offsets, (int)dev->nblocks + 1, stream));
  PetscCallCUDA(cudaFreeAsync(tmp, stream));
  PetscCallCUDA(cudaMemcpyAsync(&dev->inv_len, dev->d_inv_offsets + dev->nblocks, sizeof(PetscInt64), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  if ((size_t)dev->inv_len > dev->cap_inv) {
    PetscCallCUDA(cudaFree(dev->d_inv));
    dev->cap_inv = (size_t)dev->inv_len;
    PetscCallCUDA(cudaMalloc((void **)&dev->d_inv, dev->cap_inv * sizeof(PetscScalar)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiDetectSupervariables_CUDA(const PCVBJacobiDeviceMat *A, PetscInt maxbs, PCVBJacobiDevice *dev, PetscInt **h_starts)
{
  const int    n = (int)A->nrows, bs = (int)A->bs, mrows = n / bs;
  int         *flag = NULL, *v = NULL, *runstart = NULL, *isstart = NULL, *pos = NULL, last[2];
  size_t       b1 = 0, b2 = 0;
  void        *tmp = NULL;
  cudaStream_t stream;
  PetscInt     nb;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "PCVBJACOBI GPU path needs 32-bit PetscInt");
  PetscCheck(bs >= 1 && n % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCVBJACOBI: %d rows are not a multiple of the block size %d", n, bs);
  PetscCheck(maxbs >= 1 && maxbs <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: maximum block size %" PetscInt_FMT " outside 1..%d", maxbs, PC_VBJACOBI_MAX_BLOCK_SIZE);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (n == 0) {
    PetscCall(EnsureBlockCapacity(dev, 0));
    dev->nblocks = 0;
    PetscCallCUDA(cudaMemsetAsync(dev->d_starts, 0, sizeof(PetscInt), stream));
    PetscCall(PetscCalloc1(1, h_starts));
    PetscCall(SizeInverses(dev, *h_starts, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(cudaMallocAsync((void **)&flag, sizeof(int) * mrows, stream));
  PetscCallCUDA(cudaMallocAsync((void **)&v, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync((void **)&runstart, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync((void **)&isstart, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync((void **)&pos, sizeof(int) * n, stream));
  PatternChangeKernel<<<(unsigned)((mrows + PBG_CTA / 32 - 1) / (PBG_CTA / 32)), PBG_CTA, 0, stream>>>(mrows, A->d_rowptr, A->d_colidx, A->d_o_rowptr, A->d_o_colidx, flag);
  PetscCallCUDA(cudaGetLastError());
  RunStartKernel<<<Grid1(n), 256, 0, stream>>>(n, bs, flag, v);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceScan::InclusiveScan(NULL, b1, v, runstart, MaxOp(), n, stream));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, b2, isstart, pos, n, stream));
  PetscCallCUDA(cudaMallocAsync(&tmp, PetscMax(b1, b2), stream));
  PetscCallCUDA(cub::DeviceScan::InclusiveScan(tmp, b1, v, runstart, MaxOp(), n, stream));
  BlockStartKernel<<<Grid1(n), 256, 0, stream>>>(n, (int)maxbs, runstart, isstart);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, b2, isstart, pos, n, stream));
  PetscCallCUDA(cudaMemcpyAsync(&last[0], pos + n - 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(&last[1], isstart + n - 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  nb = last[0] + last[1];
  PetscCall(EnsureBlockCapacity(dev, nb));
  ScatterStartsKernel<<<Grid1(n + 1), 256, 0, stream>>>(n, isstart, pos, dev->d_starts);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaFreeAsync(tmp, stream));
  PetscCallCUDA(cudaFreeAsync(flag, stream));
  PetscCallCUDA(cudaFreeAsync(v, stream));
  PetscCallCUDA(cudaFreeAsync(runstart, stream));
  PetscCallCUDA(cudaFreeAsync(isstart, stream));
  PetscCallCUDA(cudaFreeAsync(pos, stream));
  PetscCall(PetscLogGpuTimeEnd());
  dev->nblocks = nb;
  PetscCall(PetscMalloc1(nb + 1, h_starts));
  PetscCallCUDA(cudaMemcpyAsync(*h_starts, dev->d_starts, sizeof(PetscInt) * (nb + 1), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu(sizeof(PetscInt) * (nb + 1)));
  PetscCall(SizeInverses(dev, *h_starts, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiSetBlocks_CUDA(PetscInt nblocks, const PetscInt *h_starts, PCVBJacobiDevice *dev)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "PCVBJACOBI GPU path needs 32-bit PetscInt");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(EnsureBlockCapacity(dev, nblocks));
  dev->nblocks = nblocks;
  PetscCallCUDA(cudaMemcpyAsync(dev->d_starts, h_starts, sizeof(PetscInt) * (nblocks + 1), cudaMemcpyHostToDevice, stream));
  PetscCall(PetscLogCpuToGpu(sizeof(PetscInt) * (nblocks + 1)));
  PetscCall(SizeInverses(dev, h_starts, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

