/* Device side of PCVBJACOBI, the blocks: supervariable detection on the device (warp-per-row pattern compare and
   CUB scans, no serial loops), uniform blocks made on the device, block starts given by the host, the sizing of the
   inverses' storage, and the device copies of the blocks object (vbjacobiimpl.h): their allocation and offload masks.

   The first setup is dominated by fixed costs, not by the kernels (each short at 1M rows), so the block
   count, the largest block, sum k^2 and sum k^3 are computed on the device and read back in one small copy with
   the one synchronization of the detection; the host never sees the 1M starts (it fetches them only when asked,
   PCVBJacobiBlocksGetHostStarts()), and the work space stays allocated for the next detection.
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
#include <../src/pc/vbjacobi/vbjacobicuda.h>
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <utility>
#include <../src/sys/cuda/gaussjordan.cuh>
#include <../src/sys/cuda/subwarp_width.cuh>
#include "vbjacobi_agglomerate.cuh"

#define PBG_CTA1 256 /* threads per thread block */

namespace pbg::vbj
{

/* What the detection reads back: one copy, one synchronization */
struct BlockStats {
  long long          inv_len; /* sum of k^2 */
  unsigned long long k3;      /* sum of k^3 */
  int                nblocks, maxk;
  int                class_count[PC_VBJACOBI_NUM_WIDTH_CLASSES]; /* blocks per width class (vbjacobicuda.h) */
};

/* The width class of a block of k rows (the setup's launches by class: the batched Gauss-Jordan component) */
using pbg::gj::WidthClass;

/* Adds this thread's block of k rows (k = 0: none) to the thread block's class counts, then to stats (one atomic per
   class and thread block). Every thread of the thread block must call it. */
__device__ __forceinline__ void CountClasses(int k, BlockStats *stats)
{
  __shared__ int cnt[PC_VBJACOBI_NUM_WIDTH_CLASSES];
  if (threadIdx.x < PC_VBJACOBI_NUM_WIDTH_CLASSES) cnt[threadIdx.x] = 0;
  __syncthreads();
  if (k) atomicAdd(&cnt[WidthClass(k)], 1);
  __syncthreads();
  if (threadIdx.x < PC_VBJACOBI_NUM_WIDTH_CLASSES && cnt[threadIdx.x]) atomicAdd(&stats->class_count[threadIdx.x], cnt[threadIdx.x]);
}

/* Per scalar row: the block that starts there (cnt 1, sq k^2), or none (0, 0). Their exclusive scan gives each
   block its number and the offset of its inverse. */
struct StartPair {
  long long sq;
  int       cnt, pad;
};

struct PairSum {
  __host__ __device__ __forceinline__ StartPair operator()(const StartPair &a, const StartPair &b) const
  {
    StartPair c;
    c.sq  = a.sq + b.sq;
    c.cnt = a.cnt + b.cnt;
    c.pad = 0;
    return c;
  }
};

struct MaxOp {
  __device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; }
};

/* v[r] = r when (block) row r starts a new pattern: r == 0, or its columns differ from those of row r - 1, in the
   diagonal part or the off-diagonal part; else 0. The inclusive max-scan of v then gives every row the first row of
   its run. A group of G lanes (a power of two, from the mean row length) compares the two column lists: a whole warp
   per row left most lanes idle on short rows and needed 32x the waves (slower at 1M rows of 6;
   measured: doc/benchmarks.md, "Measurements behind design choices"). */
template <int G>
__global__ void __launch_bounds__(PBG_CTA1) PatternRunKernel(int mrows, const int *__restrict__ rp, const int *__restrict__ ci, const int *__restrict__ orp, const int *__restrict__ oci, int *v)
{
  const size_t   t     = (size_t)blockIdx.x * PBG_CTA1 + threadIdx.x;
  const int      lane  = (int)(t % G);
  const size_t   r     = t / G;
  const unsigned gmask = G == 32 ? 0xffffffffu : ((1u << G) - 1) << (threadIdx.x % 32 / G * G); /* this row's lanes */
  int            differ;

  if (r >= (size_t)mrows) return; /* the lanes of a group leave together */
  differ = r == 0;
  for (int part = 0; part < 2 && !differ; part++) { /* uniform over the group */
    const int *p = part ? orp : rp, *c = part ? oci : ci;
    if (!p) continue;
    const int a0 = p[r - 1], a1 = p[r], b1 = p[r + 1];
    if (a1 - a0 != b1 - a1) differ = 1;
    else {
      int mine = 0;
      for (int q = lane; q < a1 - a0; q += G) mine |= (__ldg(c + a0 + q) != __ldg(c + a1 + q));
      differ = G == 1 ? mine : __any_sync(gmask, mine);
    }
  }
  if (lane == 0) v[r] = differ ? (int)r : 0;
}

static PetscErrorCode LaunchPatternRun(int G, int mrows, const PCVBJacobiDeviceMat *A, int *v, cudaStream_t stream)
{
  const unsigned grid = (unsigned)(((size_t)mrows * G + PBG_CTA1 - 1) / PBG_CTA1);

  PetscFunctionBegin;
  PetscCall(pbg::gj::ForSubwarpWidth(G, [&](auto W) -> PetscErrorCode {
    PetscFunctionBegin;
    PatternRunKernel<decltype(W)::value><<<grid, PBG_CTA1, 0, stream>>>(mrows, A->d_rowptr, A->d_colidx, A->d_o_rowptr, A->d_o_colidx, v);
    PetscCallCUDA(cudaGetLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Size of the block that starts at scalar row i, 0 when none starts there. runbr[r]: the first block row of the run
   of block row r. Runs are cut greedily into chunks of maxbs rows from their first row, as the host loop cuts them;
   a chunk ends at the next run or after maxbs rows, so the size is found by looking at most maxbs rows ahead. */
__device__ __forceinline__ int BlockAt(const int *__restrict__ runbr, int n, int bs, int maxbs, int i)
{
  const int rs = runbr[i / bs] * bs;
  int       k  = 1;

  if ((i - rs) % maxbs) return 0;
  while (k < maxbs && i + k < n && runbr[(i + k) / bs] * bs == rs) k++;
  return k;
}

/* Records this thread's block of k rows (0: none) in its pair slot (when there is one), and in stats: the largest block,
   sum k^3 (one atomic per thread block) and the class counts. Every thread of the thread block must call it. */
__device__ __forceinline__ void RecordBlock(int k, StartPair *slot, BlockStats *stats)
{
  typedef cub::BlockReduce<int, PBG_CTA1>                IntReduce;
  typedef cub::BlockReduce<unsigned long long, PBG_CTA1> SumReduce;
  __shared__ typename IntReduce::TempStorage             tmax;
  __shared__ typename SumReduce::TempStorage             tsum;

  if (slot) {
    StartPair p;
    p.sq  = (long long)k * k;
    p.cnt = k ? 1 : 0;
    p.pad = 0;
    *slot = p;
  }
  const int                kmax = IntReduce(tmax).Reduce(k, MaxOp());
  const unsigned long long k3   = SumReduce(tsum).Sum((unsigned long long)k * k * k);
  if (threadIdx.x == 0) {
    atomicMax(&stats->maxk, kmax);
    atomicAdd(&stats->k3, k3);
  }
  CountClasses(k, stats);
}

/* pair[i] for each scalar row: the block that starts there, with the stats */
__global__ void __launch_bounds__(PBG_CTA1) BlockSizesKernel(int n, int bs, int maxbs, const int *__restrict__ runbr, StartPair *pair, BlockStats *stats)
{
  const int i = blockIdx.x * PBG_CTA1 + threadIdx.x;
  RecordBlock(i < n ? BlockAt(runbr, n, bs, maxbs, i) : 0, i < n ? pair + i : NULL, stats);
}

/* Writes a block of k rows (0: none) that starts at row first, from its entry e of the exclusive scan of the pairs:
   starts[b] and offsets[b]; the last thread (last) also the closing entries starts[nblocks] = n, offsets[nblocks] =
   sum k^2, which go to stats too. Shared by the natural and the merged scatter. */
__device__ __forceinline__ void ScatterBlock(int k, int first, const StartPair &e, bool last, int n, int *starts, PetscInt64 *offsets, BlockStats *stats)
{
  if (k) {
    starts[e.cnt]  = first;
    offsets[e.cnt] = e.sq;
  }
  if (last) {
    const int       nb  = e.cnt + (k ? 1 : 0);
    const long long len = e.sq + (long long)k * k;
    starts[nb]          = n;
    offsets[nb]         = len;
    stats->nblocks      = nb;
    stats->inv_len      = len;
  }
}

/* The natural blocks from the exclusive scan of their pairs (one per scalar row) */
__global__ void __launch_bounds__(PBG_CTA1) ScatterKernel(int n, int bs, int maxbs, const int *__restrict__ runbr, const StartPair *__restrict__ excl, int *starts, PetscInt64 *offsets, BlockStats *stats)
{
  const int i = blockIdx.x * PBG_CTA1 + threadIdx.x;
  if (i >= n) return;
  ScatterBlock(BlockAt(runbr, n, bs, maxbs, i), i, excl[i], i == n - 1, n, starts, offsets, stats);
}

/* The natural blocks as units of the agglomeration: units[u] = first row of unit u, units[U] = n, *nunits = U */
__global__ void __launch_bounds__(PBG_CTA1) UnitScatterKernel(int n, int bs, int maxbs, const int *__restrict__ runbr, const StartPair *__restrict__ excl, int *units, int *nunits)
{
  const int i = blockIdx.x * PBG_CTA1 + threadIdx.x;
  if (i >= n) return;
  const int k = BlockAt(runbr, n, bs, maxbs, i), u = excl[i].cnt;
  if (k) units[u] = i;
  if (i == n - 1) {
    units[u + (k ? 1 : 0)] = n;
    *nunits                = u + (k ? 1 : 0);
  }
}

/* Rows of the merged block that starts at unit u (0 when u is not on the chain or u >= U) */
__device__ __forceinline__ int MergedBlockAt(const AgglomerateWork &w, int u, int U)
{
  return u < U && w.mark[u] ? w.units[w.next[u]] - w.units[u] : 0;
}

/* pair[u] of each unit u < limit: the merged block that starts there, or none; with the stats */
__global__ void __launch_bounds__(PBG_CTA1) MergedSizesKernel(AgglomerateWork w, int limit, StartPair *pair, BlockStats *stats)
{
  const int u = blockIdx.x * PBG_CTA1 + threadIdx.x;
  RecordBlock(MergedBlockAt(w, u, *w.nunits_ptr), u < limit ? pair + u : NULL, stats);
}

/* The merged blocks from the exclusive scan of their pairs (one per unit) */
__global__ void __launch_bounds__(PBG_CTA1) MergedScatterKernel(AgglomerateWork w, int n, const StartPair *__restrict__ excl, int *starts, PetscInt64 *offsets, BlockStats *stats)
{
  const int u = blockIdx.x * PBG_CTA1 + threadIdx.x, U = *w.nunits_ptr;
  if (u >= U) return;
  ScatterBlock(MergedBlockAt(w, u, U), w.units[u], excl[u], u == U - 1, n, starts, offsets, stats);
}

/* Blocks of bs rows: starts[b] = b bs, offsets[b] = b bs^2, b = 0..nblocks */
__global__ void UniformBlocksKernel(int nblocks, int bs, int *starts, PetscInt64 *offsets)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b <= nblocks) {
    starts[b]  = b * bs;
    offsets[b] = (PetscInt64)b * bs * bs;
  }
}

/* sq[p] = k^2 of block order[p] (of block p with NULL order: the entries of its inverse), sq[nblocks] = 0; an exclusive
   scan of sq gives the offsets */
__global__ void SquaresKernel(int nblocks, const int *__restrict__ order, const int *__restrict__ starts, PetscInt64 *sq)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < nblocks) {
    const int        b = order ? order[p] : p;
    const PetscInt64 k = starts[b + 1] - starts[b];
    sq[p]              = k * k;
  } else if (p == nblocks) sq[p] = 0;
}
} // namespace pbg::vbj

using namespace pbg::vbj;

static unsigned Grid1(PetscInt n)
{
  return (unsigned)((n + PBG_CTA1 - 1) / PBG_CTA1);
}

static size_t Align256(size_t bytes)
{
  return (bytes + 255) / 256 * 256;
}

/* The device half of the blocks object, made at its first use */
static PetscErrorCode GetDevice(PCVBJacobiBlocks *blocks, PCVBJacobiDevice **dev)
{
  PetscFunctionBegin;
  if (!blocks->dev) PetscCall(PetscNew(&blocks->dev));
  *dev = blocks->dev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New blocks are being made on the device (begin: no copy of the old ones stays current, even if this fails), or are
   made (end: their starts and offsets are current there only, and no copy holds their inverses yet) */
static void MarkDeviceBlocks(PCVBJacobiBlocks *blocks, PetscBool done)
{
  blocks->starts_mask  = done ? PETSC_OFFLOAD_GPU : PETSC_OFFLOAD_UNALLOCATED;
  blocks->offsets_mask = done ? PETSC_OFFLOAD_GPU : PETSC_OFFLOAD_UNALLOCATED;
  blocks->inv_mask     = PETSC_OFFLOAD_UNALLOCATED;
}

/* d_starts, d_inv_offsets and d_info hold at least nblocks + 1 entries */
static PetscErrorCode EnsureBlockCapacity(PCVBJacobiDevice *dev, PetscInt nblocks)
{
  PetscFunctionBegin;
  if ((size_t)nblocks + 1 > dev->cap_blocks) {
    PetscCallCUDA(cudaFree(dev->d_starts));
    PetscCallCUDA(cudaFree(dev->d_inv_offsets));
    PetscCallCUDA(cudaFree(dev->d_info));
    dev->d_starts = NULL, dev->d_inv_offsets = NULL, dev->d_info = NULL, dev->cap_blocks = 0;
    PetscCallCUDA(cudaMalloc((void **)&dev->d_starts, ((size_t)nblocks + 1) * sizeof(PetscInt)));
    PetscCallCUDA(cudaMalloc((void **)&dev->d_inv_offsets, ((size_t)nblocks + 1) * sizeof(PetscInt64)));
    PetscCallCUDA(cudaMalloc((void **)&dev->d_info, ((size_t)nblocks + 1) * sizeof(PetscInt)));
    dev->cap_blocks = (size_t)nblocks + 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d_inv holds at least blocks->inv_len entries; checks the largest block */
static PetscErrorCode EnsureInverseCapacity(PCVBJacobiBlocks *blocks)
{
  PCVBJacobiDevice *dev = blocks->dev;

  PetscFunctionBegin;
  PetscCheck(blocks->maxk <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: a block of %" PetscInt_FMT " rows exceeds %d", blocks->maxk, PC_VBJACOBI_MAX_BLOCK_SIZE);
  if ((size_t)blocks->inv_len > dev->cap_inv) {
    PetscCallCUDA(cudaFree(dev->d_inv));
    dev->d_inv   = NULL;
    dev->cap_inv = 0;
    PetscCallCUDA(cudaMalloc((void **)&dev->d_inv, (size_t)blocks->inv_len * sizeof(PetscScalar)));
    dev->cap_inv = (size_t)blocks->inv_len;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The detection work space holds at least bytes (cudaFree waits for any work still using the old one) */
static PetscErrorCode EnsureScratch(PCVBJacobiDevice *dev, size_t bytes)
{
  PetscFunctionBegin;
  if (bytes > dev->cap_scratch) {
    PetscCallCUDA(cudaFree(dev->d_scratch));
    dev->d_scratch   = NULL;
    dev->cap_scratch = 0;
    PetscCallCUDA(cudaMalloc(&dev->d_scratch, bytes));
    dev->cap_scratch = bytes;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiSetUniformBlocks_CUDA(PetscInt nrows, PetscInt bs, PCVBJacobiBlocks *blocks)
{
  cudaStream_t      stream;
  const PetscInt    nb = bs > 0 ? nrows / bs : 0;
  PCVBJacobiDevice *dev;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && bs <= PC_VBJACOBI_MAX_BLOCK_SIZE && nrows % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: blocks of %" PetscInt_FMT " rows cannot tile %" PetscInt_FMT " rows (or exceed %d)", bs, nrows, PC_VBJACOBI_MAX_BLOCK_SIZE);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(GetDevice(blocks, &dev));
  MarkDeviceBlocks(blocks, PETSC_FALSE);
  PetscCall(EnsureBlockCapacity(dev, nb));
  blocks->nblocks     = nb;
  blocks->maxk        = nb ? bs : 0;
  blocks->inv_len     = (PetscInt64)nrows * bs;
  blocks->setup_flops = 2.0 * (PetscLogDouble)bs * bs * bs * nb;
  for (int c = 0; c < PC_VBJACOBI_NUM_WIDTH_CLASSES; c++) dev->class_count[c] = 0;
  if (nb) dev->class_count[WidthClass((int)bs)] = nb;
  PetscCall(PetscLogGpuTimeBegin());
  UniformBlocksKernel<<<Grid1(nb + 1), PBG_CTA1, 0, stream>>>((int)nb, (int)bs, dev->d_starts, dev->d_inv_offsets);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(EnsureInverseCapacity(blocks));
  MarkDeviceBlocks(blocks, PETSC_TRUE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiDetectSupervariables_CUDA(const PCVBJacobiDeviceMat *A, PetscInt maxbs, PetscInt mergebs, PCVBJacobiBlocks *blocks)
{
  const PetscBool   merge = (PetscBool)(mergebs > 0);
  const int         n = (int)A->nrows, bs = (int)A->bs, mrows = bs > 0 ? n / bs : 0;
  size_t            b1 = 0, b2 = 0, off_runs, off_pairs, off_units, off_tmp, bytes;
  char             *base;
  int              *runbr, *units = NULL;
  StartPair        *pairs;
  BlockStats       *d_stats, h_stats;
  void             *tmp;
  cudaStream_t      stream;
  StartPair         zero = {0, 0, 0};
  int               G    = 1;
  PCVBJacobiDevice *dev;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && n % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCVBJACOBI: %d rows are not a multiple of the block size %d", n, bs);
  PetscCheck(maxbs >= 1 && maxbs <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: maximum block size %" PetscInt_FMT " outside 1..%d", maxbs, PC_VBJACOBI_MAX_BLOCK_SIZE);
  PetscCheck(mergebs >= 0 && mergebs <= maxbs, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: merge bound %" PetscInt_FMT " outside 0..%" PetscInt_FMT, mergebs, maxbs);
  /* runs cut at one row: every row is a block, whatever the patterns (the host loop does the same) */
  if (maxbs == 1 || n == 0) {
    PetscCall(PCVBJacobiSetUniformBlocks_CUDA(n, 1, blocks));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(GetDevice(blocks, &dev));
  MarkDeviceBlocks(blocks, PETSC_FALSE);
  /* lanes per row in the pattern compare: about 4 column indices each, from the mean (block) row length */
  while (G < 32 && 4.0 * G * bs < A->mean_row_len) G *= 2;
  /* work space: stats | run of each block row | a pair per scalar row | the agglomeration's units, count, successors,
     two jump arrays and marks (n + 1 each) | CUB's temporary storage */
  PetscCallCUDA(cub::DeviceScan::InclusiveScan(NULL, b1, (int *)NULL, (int *)NULL, MaxOp(), mrows, stream));
  PetscCallCUDA(cub::DeviceScan::ExclusiveScan(NULL, b2, (StartPair *)NULL, (StartPair *)NULL, PairSum(), zero, n, stream));
  off_runs  = Align256(sizeof(BlockStats));
  off_pairs = off_runs + Align256(sizeof(int) * (size_t)mrows);
  off_units = off_pairs + Align256(sizeof(StartPair) * (size_t)n);
  off_tmp   = off_units + (merge ? 6 * Align256(sizeof(int) * ((size_t)n + 1)) : 0);
  bytes     = off_tmp + Align256(PetscMax(b1, b2));
  PetscCall(EnsureScratch(dev, bytes));
  PetscCall(EnsureBlockCapacity(dev, n)); /* at most n blocks: the starts are written before their number is known */
  base    = (char *)dev->d_scratch;
  d_stats = (BlockStats *)base;
  runbr   = (int *)(base + off_runs);
  pairs   = (StartPair *)(base + off_pairs);
  tmp     = base + off_tmp;

  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(cudaMemsetAsync(d_stats, 0, sizeof(BlockStats), stream));
  PetscCall(LaunchPatternRun(G, mrows, A, runbr, stream));
  PetscCallCUDA(cub::DeviceScan::InclusiveScan(tmp, b1, runbr, runbr, MaxOp(), mrows, stream));
  BlockSizesKernel<<<Grid1(n), PBG_CTA1, 0, stream>>>(n, bs, (int)maxbs, runbr, pairs, d_stats);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceScan::ExclusiveScan(tmp, b2, pairs, pairs, PairSum(), zero, n, stream));
  if (!merge) {
    ScatterKernel<<<Grid1(n), PBG_CTA1, 0, stream>>>(n, bs, (int)maxbs, runbr, pairs, dev->d_starts, dev->d_inv_offsets, d_stats);
    PetscCallCUDA(cudaGetLastError());
  } else {
    /* the natural blocks become the units; the blocks are the units on the successor chain from unit 0 */
    const size_t    stride = Align256(sizeof(int) * ((size_t)n + 1)) / sizeof(int);
    AgglomerateWork w;
    int            *nunits, *jin, *jout;
    const int       rounds = AgglomerateRounds(n, (int)mergebs);

    units        = (int *)(base + off_units);
    nunits       = units + stride;
    w.units      = units;
    w.nunits_ptr = nunits;
    w.next       = units + 2 * stride;
    w.jump_a     = units + 3 * stride;
    w.jump_b     = units + 4 * stride;
    w.mark       = units + 5 * stride;
    UnitScatterKernel<<<Grid1(n), PBG_CTA1, 0, stream>>>(n, bs, (int)maxbs, runbr, pairs, units, nunits);
    PetscCallCUDA(cudaGetLastError());
    AgglomerateNextKernel<<<Grid1(n + 1), PBG_CTA1, 0, stream>>>(w, n, (int)mergebs);
    PetscCallCUDA(cudaGetLastError());
    jin  = w.jump_a;
    jout = w.jump_b;
    for (int r = 0; r < rounds; r++) {
      AgglomerateJumpKernel<<<Grid1(n + 1), PBG_CTA1, 0, stream>>>(w, n, jin, jout);
      PetscCallCUDA(cudaGetLastError());
      std::swap(jin, jout);
    }
    /* the stats of the natural blocks are replaced by those of the merged ones */
    PetscCallCUDA(cudaMemsetAsync(d_stats, 0, sizeof(BlockStats), stream));
    MergedSizesKernel<<<Grid1(n), PBG_CTA1, 0, stream>>>(w, n, pairs, d_stats);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cub::DeviceScan::ExclusiveScan(tmp, b2, pairs, pairs, PairSum(), zero, n, stream));
    MergedScatterKernel<<<Grid1(n), PBG_CTA1, 0, stream>>>(w, n, pairs, dev->d_starts, dev->d_inv_offsets, d_stats);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaMemcpyAsync(&h_stats, d_stats, sizeof(h_stats), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuToCpu(sizeof(h_stats)));
  blocks->nblocks     = h_stats.nblocks;
  blocks->maxk        = h_stats.maxk;
  blocks->inv_len     = (PetscInt64)h_stats.inv_len;
  blocks->setup_flops = 2.0 * (PetscLogDouble)h_stats.k3;
  for (int c = 0; c < PC_VBJACOBI_NUM_WIDTH_CLASSES; c++) dev->class_count[c] = h_stats.class_count[c];
  PetscCheck(blocks->nblocks >= 1 && blocks->nblocks <= n && blocks->maxk >= 1 && blocks->maxk <= maxbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: device detection gave %" PetscInt_FMT " blocks, largest %" PetscInt_FMT ", for %d rows", blocks->nblocks,
             blocks->maxk, n);
  PetscCall(EnsureInverseCapacity(blocks));
  MarkDeviceBlocks(blocks, PETSC_TRUE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Class counts of blocks given on the host */
static void CountClassesHost(PetscInt nblocks, const PetscInt *h_starts, PCVBJacobiDevice *dev)
{
  for (int c = 0; c < PC_VBJACOBI_NUM_WIDTH_CLASSES; c++) dev->class_count[c] = 0;
  for (PetscInt b = 0; b < nblocks; b++) dev->class_count[WidthClass((int)(h_starts[b + 1] - h_starts[b]))]++;
}

PetscErrorCode PCVBJacobiEntryOffsets_CUDA(PCVBJacobiDevice *dev, PetscInt nblocks, const int *order, PetscInt64 *offsets)
{
  cudaStream_t stream;
  size_t       tmp_bytes = 0;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, tmp_bytes, offsets, offsets, (int)nblocks + 1, stream));
  PetscCall(EnsureScratch(dev, tmp_bytes));
  SquaresKernel<<<Grid1(nblocks + 1), PBG_CTA1, 0, stream>>>((int)nblocks, order, dev->d_starts, offsets);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(dev->d_scratch, tmp_bytes, offsets, offsets, (int)nblocks + 1, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksSyncStartsToDevice_CUDA(PCVBJacobiBlocks *blocks)
{
  const PetscInt    nblocks = blocks->nblocks;
  cudaStream_t      stream;
  PCVBJacobiDevice *dev;

  PetscFunctionBegin;
  if (PetscOffloadDevice(blocks->starts_mask)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(PetscOffloadHost(blocks->starts_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: no block starts to copy to the device");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(GetDevice(blocks, &dev));
  /* the host has the starts anyway: the class counts cost it one pass, and the device no synchronization */
  CountClassesHost(nblocks, blocks->starts, dev);
  PetscCall(EnsureBlockCapacity(dev, nblocks));
  PetscCallCUDA(cudaMemcpyAsync(dev->d_starts, blocks->starts, sizeof(PetscInt) * (nblocks + 1), cudaMemcpyHostToDevice, stream));
  PetscCall(PetscLogCpuToGpu(sizeof(PetscInt) * (nblocks + 1)));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(PCVBJacobiEntryOffsets_CUDA(dev, nblocks, NULL, dev->d_inv_offsets));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(EnsureInverseCapacity(blocks));
  blocks->starts_mask  = PETSC_OFFLOAD_BOTH;
  blocks->offsets_mask = (PetscOffloadMask)(blocks->offsets_mask | PETSC_OFFLOAD_GPU); /* made from the starts */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiCopyStartsToHost_CUDA(const PCVBJacobiBlocks *blocks, PetscInt first, PetscInt count, PetscInt *h_starts)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(PetscOffloadDevice(blocks->starts_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the device block starts are not current");
  PetscCheck(first >= 0 && count >= 0 && first + count <= blocks->nblocks + 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: block starts %" PetscInt_FMT "..%" PetscInt_FMT " outside 0..%" PetscInt_FMT, first, first + count - 1, blocks->nblocks);
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(h_starts, blocks->dev->d_starts + first, sizeof(PetscInt) * count, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu(sizeof(PetscInt) * count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksDestroyDevice_CUDA(PCVBJacobiBlocks *blocks)
{
  PCVBJacobiDevice *dev = blocks->dev;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(dev->d_starts));
  PetscCallCUDA(cudaFree(dev->d_inv_offsets));
  PetscCallCUDA(cudaFree(dev->d_inv));
  PetscCallCUDA(cudaFree(dev->d_prec));
  PetscCallCUDA(cudaFree(dev->d_sexp));
  PetscCallCUDA(cudaFree(dev->d_info));
  PetscCallCUDA(cudaFree(dev->d_outcome));
  PetscCallCUDA(cudaFree(dev->d_scratch));
  PetscCallCUDA(cudaFree(dev->d_class_perm));
  PetscCallCUDA(cudaFree(dev->d_group_order));
  PetscCallCUDA(cudaFree(dev->d_group_entry));
  PetscCallCUDA(cudaFree(dev->d_grouped));
  PetscCallCUDA(cudaFree(dev->d_group_meta));
  PetscCall(PetscFree(blocks->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
