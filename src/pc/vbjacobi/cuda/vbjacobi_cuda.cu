/* Device side of PCVBJACOBI, host half: launches of the kernels in vbjacobi_kernels.cuh (merged extraction +
   Gauss-Jordan setup, batched block GEMV apply) and the public batched inversion PetscBlockGPUInvertBatched().
   The blocks are found in vbjacobi_blocks.cu. */
#include <petscblockgpu/private/vbjacobicuda.h>
#include <petscdevice_cuda.h>
#include <type_traits>
#include "vbjacobi_kernels.cuh"
#include "subwarp_width.cuh"

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
  PetscCallCUDA(cudaFree(dev->d_scratch));
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
