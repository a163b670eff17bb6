/* The batched Gauss-Jordan component, host half (src/sys/cuda): the counting and the sort of a batch's blocks by size
   that every batched inversion uses (declared in invert_batched.cuh, with the launches by width class), and the public
   PetscBlockGPUInvertBatched(), which inverts dense blocks already on the device through them (pbg::gj::DenseSource,
   DoubleStore). MATBAIJKSPARSE's block diagonals (baijksparse_blockdiag.c) call it; PCVBJACOBI's setup launches the
   same kernels with its own extraction and storage (src/pc/vbjacobi/cuda/vbjacobi_cuda.cu). */
#include <petscblockgpu.h>
#include <../src/sys/cuda/invert_batched.cuh>

using namespace pbg::gj;

static_assert(InfoInverseNotFinite == PC_VBJACOBI_INFO_INVERSE_NOT_FINITE, "one info code for an overflowing inverse");
static_assert(PC_VBJACOBI_MAX_BLOCK_SIZE <= 32 && NumSizeKeys == PC_VBJACOBI_MAX_BLOCK_SIZE + 1, "a block of at most a warp's rows, a sort key per size");

static unsigned SortGrid(PetscInt nblocks)
{
  return (unsigned)((nblocks + PBG_CLASS_ITEMS * PBG_CTA - 1) / (PBG_CLASS_ITEMS * PBG_CTA));
}

PetscErrorCode PetscBlockGPUCountSizes_CUDA(PetscInt nblocks, int kmax, const int *starts, const int *sizes, int *d_count, cudaStream_t stream)
{
  PetscFunctionBegin;
  KeyCountKernel<<<SortGrid(nblocks), PBG_CTA, 0, stream>>>((int)nblocks, SizeKey{kmax, starts, sizes}, d_count);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscBlockGPUSizePerm_CUDA(PetscInt nblocks, int kmax, const int *starts, const int *sizes, const int *d_count, int *d_cursor, int *perm, cudaStream_t stream)
{
  PetscFunctionBegin;
  KeyPermKernel<<<SortGrid(nblocks), PBG_CTA, 0, stream>>>((int)nblocks, SizeKey{kmax, starts, sizes}, d_count, d_cursor, perm);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Page-locked host copy of the size counts: a small copy back from the device that does not go through a staging
   buffer; allocated once, freed at PetscFinalize() */
static int *h_size_counts = NULL;

static PetscErrorCode FreeSizeCounts(void)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFreeHost(h_size_counts));
  h_size_counts = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscBlockGPUReadClassCounts_CUDA(const int *d_count, PetscInt count[], cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!h_size_counts) {
    PetscCallCUDA(cudaMallocHost((void **)&h_size_counts, sizeof(int) * NumSizeKeys));
    PetscCall(PetscRegisterFinalize(FreeSizeCounts));
  }
  PetscCallCUDA(cudaMemcpyAsync(h_size_counts, d_count, sizeof(int) * NumSizeKeys, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  for (int c = 0; c < NumWidthClasses; c++) count[c] = 0;
  for (int k = 0; k < NumSizeKeys; k++) count[WidthClass(k)] += h_size_counts[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PetscBlockGPUInvertBatched - Inverts, in place, a batch of small dense blocks of sizes 1 to 32 that are already
  on the GPU, by Gauss-Jordan elimination with implicit pivoting (the batched Gauss-Jordan kernels that `PCVBJACOBI`
  also sets up with).

  Not Collective

  Input Parameters:
+ nblocks   - number of blocks
. maxk      - the largest block size in the batch, 1 to 32 (sizes above it are rejected with info -2; at most 4: one
              launch, nothing to count)
. d_sizes   - device array [nblocks]: the size k of each block, or NULL: every block has maxk rows (a uniform batch)
- d_offsets - device array [nblocks]: where each block starts in `d_blocks`, or NULL (only with NULL `d_sizes`): the
              blocks are packed back to back, block b at b * maxk * maxk

  Input/Output Parameters:
+ d_blocks - device array: each block k x k, column-major, at its offset; replaced by its inverse
- d_info   - device array [nblocks]: 0 on success, j+1 when the pivot of column j was zero or tiny (below
             k * eps * max|block|), -1 when the block holds NaN or Inf, -2 when its size is outside 0..maxk,
             `PC_VBJACOBI_INFO_INVERSE_NOT_FINITE` (-3) when the block is finite but its inverse overflows;
             a block with info != 0 is left as it was

  Level: advanced

  Notes:
  Runs on PETSc's current CUDA stream, ordered with the other work on it, as cuBLAS's batched routines do: the
  inverses and `d_info` are ready for later work on that stream; synchronize it (`PetscDeviceContextSynchronize()`,
  or `cudaStreamSynchronize()`) before reading them on the host. The blocks may lie anywhere in `d_blocks` but must
  not overlap.

  A uniform batch (NULL `d_sizes`) needs no counting and no synchronization for any maxk; with NULL `d_offsets` too it
  reads no metadata, only the blocks (the layout of cuBLAS's strided batched routines).

  Blocks of 1 or 2 rows are inverted in closed form, a thread each; larger ones by a sub-warp of the next power of
  two lanes. When maxk > 4 the block sizes are counted on the device and read back (one synchronization), and a batch
  of several width classes is sorted by size into a temporary permutation (the blocks themselves do not move), so
  that each class runs at its own width.

.seealso: `PCVBJACOBI`, `PCVBJacobiGetInverses()`
@*/
PetscErrorCode PetscBlockGPUInvertBatched(PetscInt nblocks, PetscInt maxk, const PetscInt d_sizes[], const PetscInt64 d_offsets[], PetscScalar d_blocks[], PetscInt d_info[])
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(nblocks >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PetscBlockGPUInvertBatched: negative number of blocks %" PetscInt_FMT, nblocks);
  PetscCheck(maxk >= 1 && maxk <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PetscBlockGPUInvertBatched: maxk %" PetscInt_FMT " is outside 1..%d", maxk, PC_VBJACOBI_MAX_BLOCK_SIZE);
  if (!nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(d_blocks && d_info, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PetscBlockGPUInvertBatched: NULL device array of blocks or info");
  PetscCheck(d_offsets || !d_sizes, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PetscBlockGPUInvertBatched: NULL offsets need NULL sizes (packed blocks are uniform, maxk x maxk)");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  /* The caller reads d_info, so no outcome record (NULL): no copy to the device before the work, none back after.
     maxk <= 2: one thread-per-block launch takes every block (sizes 0..2, bad sizes), nothing to count or sort.
     maxk 3..4: one launch at P = 4 too (blocks of 1..2 rows padded in their sub-warps): counting the classes costs a
     round trip to the host, a large part of the whole inversion of 500000 blocks of 3 x 3 (measured:
     doc/benchmarks.md, "Measurements behind design choices").
     A uniform batch (no sizes) is one class: one launch at its own width, whatever maxk.
     Otherwise the sizes are on the device: count them there and read the counts back (one synchronization), then
     sort the blocks by size when more than one class launch is needed. */
  if (maxk <= 4 || !d_sizes) PetscCall(LaunchInvert(SubwarpWidth(maxk), DenseSource(), DoubleStore(), (int)nblocks, (int)maxk, NULL, NULL, d_sizes, d_offsets, d_blocks, 0, d_info, NULL, stream));
  else {
    SizeSortCounters *d_sort;
    int              *d_perm = NULL;
    PetscInt          count[NumWidthClasses];

    PetscCallCUDA(cudaMallocAsync((void **)&d_sort, sizeof(SizeSortCounters), stream));
    PetscCallCUDA(cudaMemsetAsync(d_sort, 0, sizeof(SizeSortCounters), stream));
    PetscCall(PetscBlockGPUCountSizes_CUDA(nblocks, (int)maxk, NULL, d_sizes, d_sort->count, stream));
    PetscCall(PetscBlockGPUReadClassCounts_CUDA(d_sort->count, count, stream));
    if (ClassLaunches(count) > 1) {
      PetscCallCUDA(cudaMallocAsync((void **)&d_perm, sizeof(int) * nblocks, stream));
      PetscCall(PetscBlockGPUSizePerm_CUDA(nblocks, (int)maxk, NULL, d_sizes, d_sort->count, d_sort->cursor, d_perm, stream));
    }
    PetscCall(LaunchInvertByClass(count, d_perm, DenseSource(), DoubleStore(), (int)maxk, NULL, d_sizes, d_offsets, d_blocks, 0, d_info, NULL, stream, NULL, 0));
    if (d_perm) PetscCallCUDA(cudaFreeAsync(d_perm, stream));
    PetscCallCUDA(cudaFreeAsync(d_sort, stream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  /* no synchronization at the end: the caller orders its use of the results on the stream (a wait here made 500000
     blocks of 1 x 1 slower: behind cuBLAS getrf+getri instead of ahead of it; measured: doc/benchmarks.md,
     "Measurements behind design choices") */
  PetscCall(PetscLogGpuFlops(2.0 * (double)nblocks * maxk * maxk * maxk));
  PetscFunctionReturn(PETSC_SUCCESS);
}
