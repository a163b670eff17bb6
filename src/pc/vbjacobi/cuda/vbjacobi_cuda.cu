/* Device side of PCVBJACOBI, host half: launches of the kernels in vbjacobi_kernels.cuh: the setup (merged extraction +
   Gauss-Jordan inversion + storage, the batched Gauss-Jordan component of src/sys/cuda launched by width class with the
   PC's policies, invert_batched.cuh), the batched block GEMV apply and the grouping of adaptive inverses by type.
   The blocks are found in vbjacobi_blocks.cu. */
#include <../src/pc/vbjacobi/vbjacobicuda.h>
#include <petscdevice_cuda.h>
#include <type_traits>
#include <../src/sys/cuda/invert_batched.cuh>
#include "vbjacobi_kernels.cuh"

using namespace pbg::vbj;

static_assert(InfoInverseNotFinite == PC_VBJACOBI_INFO_INVERSE_NOT_FINITE, "one info code for an overflowing inverse");
static_assert(PBG_STORE_DOUBLE == PC_VBJACOBI_PRECISION_DOUBLE && PBG_STORE_SINGLE == PC_VBJACOBI_PRECISION_SINGLE && PBG_STORE_HALF == PC_VBJACOBI_PRECISION_HALF && PBG_STORE_ADAPTIVE == PC_VBJACOBI_PRECISION_ADAPTIVE,
              "storage codes of the kernels and of the public enum");

/* ------------------------------------------------------------------------------------------- launch helpers */
static_assert(NumWidthClasses == PC_VBJACOBI_NUM_WIDTH_CLASSES, "width classes of the kernels and of the header");

/* The device record of a setup: its outcome, and the counters of the sort by size (invert_batched.cuh), so that one
   copy to the device starts them all */
struct SetupRecord {
  SetupOutcome     outcome;
  SizeSortCounters sort;
};

/* Setup of a batch by width class (pbg::gj::LaunchInvertByClass() with the PC's policies): the blocks extracted from
   M by src, their inverses stored as spec says. perm (NULL when ClassLaunches(count) == 1) groups the block ids by
   class, count[] the blocks of each; desc (may be NULL) receives the list of launches. */
static PetscErrorCode LaunchSetupByClass(const PetscInt count[], const int *perm, SourceKind src, const SparseRows &M, int kmax, const int *starts, const PetscInt64 *offsets, PetscScalar *inv, int identity, PetscInt *info, SetupOutcome *outcome, const StoreSpec &spec, cudaStream_t stream, char *desc, size_t len)
{
  PetscFunctionBegin;
  if (src == SOURCE_SHARED) PetscCall(LaunchInvertByClass(count, perm, SparseSource<SOURCE_SHARED>{M}, spec, kmax, starts, NULL, offsets, inv, identity, info, outcome, stream, desc, len));
  else PetscCall(LaunchInvertByClass(count, perm, SparseSource<SOURCE_CACHED>{M}, spec, kmax, starts, NULL, offsets, inv, identity, info, outcome, stream, desc, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static unsigned SortGrid(PetscInt nblocks)
{
  return (unsigned)((nblocks + PBG_CLASS_ITEMS * PBG_CTA - 1) / (PBG_CLASS_ITEMS * PBG_CTA));
}

template <int P, int S>
static void LaunchApplyPS(bool trans, unsigned grid, int nblocks, const int *starts, const PetscInt64 *offsets, const PetscScalar *inv, const short *sexp, const PetscScalar *x, PetscScalar *y, cudaStream_t stream)
{
  if (trans) ApplyKernel<P, true, S><<<grid, PBG_CTA, 0, stream>>>(nblocks, starts, offsets, inv, x, y, sexp);
  else ApplyKernel<P, false, S><<<grid, PBG_CTA, 0, stream>>>(nblocks, starts, offsets, inv, x, y, sexp);
}

/* The grouped layout of adaptive inverses for an apply at width P (thread blocks per group from the group sizes) */
static GroupedApply GroupedLayout(const PCVBJacobiDevice *dev, int P)
{
  GroupedApply g;

  g.order   = dev->d_group_order;
  g.entry   = dev->d_group_entry;
  g.grouped = dev->d_grouped;
  g.cta[0]  = 0;
  for (int t = 0; t <= NumTypeGroups; t++) g.first[t] = (int)dev->group_first[t];
  for (int t = 0; t < NumTypeGroups; t++) {
    const int cnt = g.first[t + 1] - g.first[t];

    g.cta[t + 1] = g.cta[t] + (unsigned)((cnt + PBG_CTA / P - 1) / (PBG_CTA / P));
    g.entry0[t]  = dev->group_entry0[t];
    g.base[t]    = dev->group_base[t];
  }
  return g;
}

/* One launch for all blocks at the width of the largest, in the kernel instance of the storage mode (adaptive: the
   grouped kernel, each thread block on blocks of one type) */
template <int P>
static PetscErrorCode LaunchApplyP(bool trans, int mode, const PCVBJacobiDevice *dev, int nblocks, const PetscScalar *x, PetscScalar *y, cudaStream_t stream)
{
  const unsigned grid = (unsigned)((nblocks + PBG_CTA / P - 1) / (PBG_CTA / P));

  PetscFunctionBegin;
  if (!nblocks) PetscFunctionReturn(PETSC_SUCCESS);
  switch (mode) {
  case PBG_STORE_SINGLE:
    LaunchApplyPS<P, PBG_STORE_SINGLE>(trans, grid, nblocks, dev->d_starts, dev->d_inv_offsets, dev->d_inv, dev->d_sexp, x, y, stream);
    break;
  case PBG_STORE_HALF:
    LaunchApplyPS<P, PBG_STORE_HALF>(trans, grid, nblocks, dev->d_starts, dev->d_inv_offsets, dev->d_inv, dev->d_sexp, x, y, stream);
    break;
  case PBG_STORE_ADAPTIVE: {
    const GroupedApply g = GroupedLayout(dev, P);

    if (trans) ApplyGroupedKernel<P, true><<<g.cta[NumTypeGroups], PBG_CTA, 0, stream>>>(g, dev->d_starts, x, y, dev->d_sexp);
    else ApplyGroupedKernel<P, false><<<g.cta[NumTypeGroups], PBG_CTA, 0, stream>>>(g, dev->d_starts, x, y, dev->d_sexp);
  } break;
  default:
    LaunchApplyPS<P, PBG_STORE_DOUBLE>(trans, grid, nblocks, dev->d_starts, dev->d_inv_offsets, dev->d_inv, NULL, x, y, stream);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace pbg::vbj
{
/* The counters and bounds of BuildGroupedInverses() on the device */
struct GroupMeta {
  int        count[NumTypeGroups], cursor[NumTypeGroups];
  int        first[NumTypeGroups + 1];
  PetscInt64 entry0[NumTypeGroups + 1];
};

/* The group bounds from the counts, and the sums at them */
__global__ void GroupBoundsKernel(GroupMeta *m, const PetscInt64 *__restrict__ entry)
{
  m->first[0] = 0;
  for (int t = 0; t < NumTypeGroups; t++) m->first[t + 1] = m->first[t] + m->count[t];
  for (int t = 0; t <= NumTypeGroups; t++) m->entry0[t] = entry[m->first[t]];
}
} // namespace pbg::vbj

/* Builds the grouped copy of adaptive inverses that the apply reads (GroupedApply): a counting sort of the blocks by
   type (KeyCountKernel + KeyPermKernel, as the setup sorts by size), their entry offsets in that order (the scan that
   gives the blocks' own offsets, PCVBJacobiEntryOffsets_CUDA()), one copy back of the
   group bounds (a synchronization), and a copy of each block's stored bits into its group. Costs a read and a write
   of the stored bytes, once per setup. */
static PetscErrorCode BuildGroupedInverses(PCVBJacobiBlocks *blocks, cudaStream_t stream)
{
  PCVBJacobiDevice *dev = blocks->dev;
  const int         n   = (int)blocks->nblocks;
  GroupMeta        *d_meta, h_meta;
  size_t            bytes;

  PetscFunctionBegin;
  dev->grouped_valid = PETSC_FALSE;
  if (!dev->d_group_meta) PetscCallCUDA(cudaMalloc(&dev->d_group_meta, sizeof(GroupMeta)));
  d_meta = (GroupMeta *)dev->d_group_meta;
  if (dev->cap_group < (size_t)n || !dev->d_group_entry) {
    PetscCallCUDA(cudaFree(dev->d_group_order));
    PetscCallCUDA(cudaFree(dev->d_group_entry));
    dev->d_group_order = NULL, dev->d_group_entry = NULL, dev->cap_group = 0;
    PetscCallCUDA(cudaMalloc((void **)&dev->d_group_order, sizeof(int) * PetscMax(n, 1)));
    PetscCallCUDA(cudaMalloc((void **)&dev->d_group_entry, sizeof(PetscInt64) * ((size_t)n + 1)));
    dev->cap_group = (size_t)n;
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(cudaMemsetAsync(d_meta, 0, sizeof(GroupMeta), stream));
  if (n) {
    KeyCountKernel<<<SortGrid(n), PBG_CTA, 0, stream>>>(n, TypeKey{dev->d_prec}, d_meta->count);
    PetscCallCUDA(cudaGetLastError());
    KeyPermKernel<<<SortGrid(n), PBG_CTA, 0, stream>>>(n, TypeKey{dev->d_prec}, d_meta->count, d_meta->cursor, dev->d_group_order);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PCVBJacobiEntryOffsets_CUDA(dev, n, dev->d_group_order, dev->d_group_entry));
  GroupBoundsKernel<<<1, 1, 0, stream>>>(d_meta, dev->d_group_entry);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&h_meta, d_meta, sizeof(h_meta), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  for (int t = 0; t <= NumTypeGroups; t++) dev->group_first[t] = h_meta.first[t];
  PetscCheck(dev->group_first[NumTypeGroups] == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the type groups hold %" PetscInt_FMT " blocks, not %d", dev->group_first[NumTypeGroups], n);
  bytes = 0;
  for (int t = 0; t < NumTypeGroups; t++) {
    const size_t tb = (size_t)GroupEntryBytes(t);

    dev->group_entry0[t] = h_meta.entry0[t];
    dev->group_base[t]   = (bytes + 15) / 16 * 16; /* each group aligned for its type */
    bytes                = dev->group_base[t] + tb * (size_t)(h_meta.entry0[t + 1] - h_meta.entry0[t]);
  }
  if (bytes > dev->cap_grouped) {
    PetscCallCUDA(cudaFree(dev->d_grouped));
    dev->d_grouped = NULL, dev->cap_grouped = 0;
    PetscCallCUDA(cudaMalloc((void **)&dev->d_grouped, bytes));
    dev->cap_grouped = bytes;
  }
  if (n) {
    const GroupedApply g = GroupedLayout(dev, 32);

    RepackGroupedKernel<<<(unsigned)((n + PBG_CTA / 32 - 1) / (PBG_CTA / 32)), PBG_CTA, 0, stream>>>(g, dev->d_starts, dev->d_inv_offsets, dev->d_inv, dev->d_grouped);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  dev->grouped_valid = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d_prec and d_sexp hold at least nblocks entries (the old contents are not kept) */
static PetscErrorCode EnsureMetaCapacity(PCVBJacobiDevice *dev, PetscInt nblocks)
{
  PetscFunctionBegin;
  if ((size_t)nblocks > dev->cap_meta) {
    PetscCallCUDA(cudaFree(dev->d_prec));
    PetscCallCUDA(cudaFree(dev->d_sexp));
    dev->d_prec = NULL, dev->d_sexp = NULL, dev->cap_meta = 0;
    PetscCallCUDA(cudaMalloc((void **)&dev->d_prec, (size_t)nblocks * sizeof(unsigned char)));
    PetscCallCUDA(cudaMalloc((void **)&dev->d_sexp, (size_t)nblocks * sizeof(short)));
    dev->cap_meta = (size_t)nblocks;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes of the stored inverses as laid out (FP64 slots under ADAPTIVE: what a copy moves) */
static size_t LayoutBytes(const PCVBJacobiBlocks *blocks)
{
  return (size_t)PCVBJacobiSlotBytes((int)blocks->precision) * (size_t)blocks->inv_len;
}

/* Setup outcome: the first failing block with its info, the number of blocks replaced by the identity, and the number of
   blocks that need a type wider than a compact layout's */
static PetscErrorCode ReadOutcome(SetupOutcome *d_outcome, const PetscInt *d_info, PetscInt *nsingular, PetscInt *nwider, PetscInt *bad_block, PetscInt *bad_info, cudaStream_t stream)
{
  SetupOutcome h;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(&h, d_outcome, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  *nsingular = h.nsingular;
  *nwider    = h.nwider;
  *bad_block = -1;
  *bad_info  = 0;
  if (h.first_bad != INT_MAX) {
    *bad_block = h.first_bad;
    PetscCallCUDA(cudaMemcpy(bad_info, d_info + h.first_bad, sizeof(PetscInt), cudaMemcpyDeviceToHost));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (Re)starts a setup record: no failure seen, no block replaced, class counters at zero; one copy to the device */
static PetscErrorCode ResetRecord(SetupRecord *d_record, cudaStream_t stream)
{
  static const SetupRecord init = {{{INT_MAX, 0}, 0}, {{0}, {0}}};

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(d_record, &init, sizeof(init), cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copies that a device setup or apply reads must be current */
static PetscErrorCode CheckDeviceBlocks(const PCVBJacobiBlocks *blocks, PetscBool inverses)
{
  PetscFunctionBegin;
  PetscCheck(blocks->dev && PetscOffloadDevice(blocks->starts_mask) && PetscOffloadDevice(blocks->offsets_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the device block starts are not current");
  PetscCheck(!inverses || PetscOffloadDevice(blocks->inv_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the device inverses are not current");
  PetscCheck(!inverses || blocks->precision != PC_VBJACOBI_PRECISION_ADAPTIVE || blocks->dev->grouped_valid, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the adaptive inverses are not grouped by type");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiSetup_CUDA(const PCVBJacobiDeviceMat *A, PCVBJacobiExtraction extraction, PCVBJacobiSingularPolicy policy, PCVBJacobiPrecision precision, PetscReal tol, PCVBJacobiBlocks *blocks, PetscInt *nsingular, PetscInt *bad_block, PetscInt *bad_info)
{
  StoreSpec         spec;
  const int         P = SubwarpWidth(blocks->maxk);
  SparseRows        M = {(int)A->nrows, (int)A->bs, A->d_rowptr, A->d_colidx, A->d_values};
  PCVBJacobiDevice *dev;
  SetupRecord      *d_record;
  cudaStream_t      stream;
  SourceKind        src;
  PetscInt          count[NumWidthClasses], nonempty = 0;
  const int        *perm = NULL;
  PetscInt          nwider;

  PetscFunctionBegin;
  PetscCall(CheckDeviceBlocks(blocks, PETSC_FALSE));
  dev                = blocks->dev;
  blocks->inv_mask   = PETSC_OFFLOAD_UNALLOCATED; /* overwritten below: no copy is current until the setup is done */
  dev->grouped_valid = PETSC_FALSE;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(EnsureMetaCapacity(dev, blocks->nblocks));
  blocks->precision     = precision; /* the layout: a fixed mode's compact one first */
  blocks->precision_tol = tol;
  spec.mode             = (int)precision;
  spec.layout           = (int)precision;
  spec.tol              = (double)tol;
  spec.prec             = precision == PC_VBJACOBI_PRECISION_ADAPTIVE ? dev->d_prec : NULL;
  spec.sexp             = precision != PC_VBJACOBI_PRECISION_DOUBLE ? dev->d_sexp : NULL;
  if (extraction == PC_VBJACOBI_EXTRACTION_AUTO) {
    /* a thread scanning its own row reads it uncoalesced: worth it only for short rows; long rows are read by
       the whole sub-warp, coalesced (the paper's rule of thumb: shared extraction pays off beyond ~ 2P entries) */
    extraction = A->mean_row_len > 2.0 * P ? PC_VBJACOBI_EXTRACTION_SHARED : PC_VBJACOBI_EXTRACTION_CACHED;
  }
  src                  = extraction == PC_VBJACOBI_EXTRACTION_SHARED ? SOURCE_SHARED : SOURCE_CACHED;
  dev->extraction_used = extraction;
  if (!dev->d_outcome) PetscCallCUDA(cudaMalloc((void **)&dev->d_outcome, sizeof(SetupRecord)));
  d_record = reinterpret_cast<SetupRecord *>(dev->d_outcome);
  PetscCall(ResetRecord(d_record, stream));
  for (int c = 0; c < NumWidthClasses; c++) {
    count[c] = dev->class_count[c];
    nonempty += count[c];
  }
  PetscCall(PetscLogGpuTimeBegin());
  /* the block sources fill class_count; a source that has not (nonempty = 0) costs a count on the device and a
     synchronization */
  if (!nonempty && blocks->nblocks) {
    PetscCall(PetscBlockGPUCountSizes_CUDA(blocks->nblocks, (int)blocks->maxk, dev->d_starts, NULL, d_record->sort.count, stream));
    PetscCall(PetscBlockGPUReadClassCounts_CUDA(d_record->sort.count, count, stream));
  } else PetscCheck(nonempty == blocks->nblocks, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Width classes hold %" PetscInt_FMT " blocks, not %" PetscInt_FMT, nonempty, blocks->nblocks);
  if (ClassLaunches(count) > 1) { /* a uniform batch (one launch) keeps the identity order and pays nothing here */
    if (dev->cap_class_perm < (size_t)blocks->nblocks) {
      PetscCallCUDA(cudaFree(dev->d_class_perm));
      PetscCallCUDA(cudaMalloc((void **)&dev->d_class_perm, sizeof(int) * blocks->nblocks));
      dev->cap_class_perm = (size_t)blocks->nblocks;
    }
    if (nonempty) PetscCall(PetscBlockGPUCountSizes_CUDA(blocks->nblocks, (int)blocks->maxk, dev->d_starts, NULL, d_record->sort.count, stream));
    PetscCall(PetscBlockGPUSizePerm_CUDA(blocks->nblocks, (int)blocks->maxk, dev->d_starts, NULL, d_record->sort.count, d_record->sort.cursor, dev->d_class_perm, stream));
    perm = dev->d_class_perm;
  }
  PetscCall(PetscStrncpy(dev->kernel, "merged extract+GJE by width class: ", sizeof(dev->kernel)));
  spec.nwider = precision == PC_VBJACOBI_PRECISION_SINGLE || precision == PC_VBJACOBI_PRECISION_HALF ? &d_record->outcome.nwider : NULL;
  PetscCall(LaunchSetupByClass(count, perm, src, M, (int)blocks->maxk, dev->d_starts, dev->d_inv_offsets, dev->d_inv, policy == PC_VBJACOBI_SINGULAR_IDENTITY, dev->d_info, &d_record->outcome, spec, stream, dev->kernel, sizeof(dev->kernel)));
  PetscCall(PetscStrlcat(dev->kernel, src == SOURCE_SHARED ? "; shared extraction" : "; cached extraction", sizeof(dev->kernel)));
  if (precision != PC_VBJACOBI_PRECISION_DOUBLE) {
    PetscCall(PetscStrlcat(dev->kernel, "; stores ", sizeof(dev->kernel)));
    PetscCall(PetscStrlcat(dev->kernel, PCVBJacobiPrecisions[precision], sizeof(dev->kernel)));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(ReadOutcome(&d_record->outcome, dev->d_info, nsingular, &nwider, bad_block, bad_info, stream));
  PetscCall(PetscLogGpuFlops(blocks->setup_flops));
  if (nwider && *bad_block < 0) {
    /* some block needs a type wider than the requested one: the setup again, each block in its own type in FP64 slots
       (the ADAPTIVE layout, grouped below), picked by the same rule; the blocks and their order are kept */
    PetscInt nsing2, nwider2;

    blocks->precision = PC_VBJACOBI_PRECISION_ADAPTIVE;
    spec.layout       = PBG_STORE_ADAPTIVE;
    spec.prec         = dev->d_prec;
    spec.nwider       = NULL;
    PetscCall(ResetRecord(d_record, stream)); /* (the class order is built: its counters are free) */
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(LaunchSetupByClass(count, perm, src, M, (int)blocks->maxk, dev->d_starts, dev->d_inv_offsets, dev->d_inv, policy == PC_VBJACOBI_SINGULAR_IDENTITY, dev->d_info, &d_record->outcome, spec, stream, NULL, 0));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(ReadOutcome(&d_record->outcome, dev->d_info, &nsing2, &nwider2, bad_block, bad_info, stream));
    PetscCall(PetscLogGpuFlops(blocks->setup_flops));
    PetscCall(PetscStrlcat(dev->kernel, " or wider (a second pass: blocks it cannot hold)", sizeof(dev->kernel)));
  }
  if (blocks->precision == PC_VBJACOBI_PRECISION_ADAPTIVE) PetscCall(BuildGroupedInverses(blocks, stream));
  blocks->inv_mask = PETSC_OFFLOAD_GPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiApply_CUDA(const PCVBJacobiBlocks *blocks, const PetscScalar *d_x, PetscScalar *d_y, PetscBool transpose)
{
  cudaStream_t            stream;
  const int               P   = SubwarpWidth(blocks->maxk);
  const PCVBJacobiDevice *dev = blocks->dev;

  PetscFunctionBegin;
  PetscCall(CheckDeviceBlocks(blocks, PETSC_TRUE));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(ForSubwarpWidth(P, [&](auto W) { return LaunchApplyP<decltype(W)::value>(transpose, (int)blocks->precision, dev, (int)blocks->nblocks, d_x, d_y, stream); }));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * (double)blocks->inv_len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiApplyKernelName_CUDA(const PCVBJacobiBlocks *blocks, char *name, size_t len)
{
  const int P = SubwarpWidth(blocks->maxk);

  PetscFunctionBegin;
  if (blocks->precision == PC_VBJACOBI_PRECISION_ADAPTIVE && blocks->dev && blocks->dev->grouped_valid) {
    const PetscInt *f = blocks->dev->group_first;

    PetscCall(PetscSNPrintf(name, len, "batched block GEMV, sub-warp %d, %d block%s/warp, reads adaptive inverses grouped by type (%" PetscInt_FMT " half, %" PetscInt_FMT " single, %" PetscInt_FMT " double blocks)", P, 32 / P, P < 32 ? "s" : "", f[1] - f[0], f[2] - f[1], f[3] - f[2]));
  } else PetscCall(PetscSNPrintf(name, len, "batched block GEMV, sub-warp %d, %d block%s/warp, reads %s inverses", P, 32 / P, P < 32 ? "s" : "", PCVBJacobiPrecisions[blocks->precision]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiCopyInversesToHost_CUDA(const PCVBJacobiBlocks *blocks, PetscScalar *h_inv, unsigned char *h_prec, short *h_sexp)
{
  const size_t bytes = LayoutBytes(blocks), nb = (size_t)blocks->nblocks;
  size_t       moved = bytes;

  PetscFunctionBegin;
  PetscCheck(PetscOffloadDevice(blocks->inv_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the device inverses are not current");
  if (bytes) PetscCallCUDA(cudaMemcpy(h_inv, blocks->dev->d_inv, bytes, cudaMemcpyDeviceToHost));
  if (nb && blocks->precision == PC_VBJACOBI_PRECISION_ADAPTIVE) {
    PetscCallCUDA(cudaMemcpy(h_prec, blocks->dev->d_prec, nb * sizeof(unsigned char), cudaMemcpyDeviceToHost));
    moved += nb * sizeof(unsigned char);
  }
  if (nb && blocks->precision != PC_VBJACOBI_PRECISION_DOUBLE) {
    PetscCallCUDA(cudaMemcpy(h_sexp, blocks->dev->d_sexp, nb * sizeof(short), cudaMemcpyDeviceToHost));
    moved += nb * sizeof(short);
  }
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)moved));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksSyncInversesToDevice_CUDA(PCVBJacobiBlocks *blocks)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (PetscOffloadDevice(blocks->inv_mask)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(PetscOffloadHost(blocks->inv_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: no inverses to copy to the device");
  PetscCall(PCVBJacobiBlocksSyncStartsToDevice_CUDA(blocks)); /* sizes d_inv for these blocks */
  PetscCall(CheckDeviceBlocks(blocks, PETSC_FALSE));
  PetscCheck(blocks->dev->cap_inv >= (size_t)blocks->inv_len, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: device inverses hold %zu entries, not %" PetscInt64_FMT, blocks->dev->cap_inv, blocks->inv_len);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(EnsureMetaCapacity(blocks->dev, blocks->nblocks));
  {
    const size_t bytes = LayoutBytes(blocks), nb = (size_t)blocks->nblocks;
    size_t       moved = bytes;

    if (bytes) PetscCallCUDA(cudaMemcpyAsync(blocks->dev->d_inv, blocks->inv, bytes, cudaMemcpyHostToDevice, stream));
    if (nb && blocks->precision == PC_VBJACOBI_PRECISION_ADAPTIVE) {
      PetscCallCUDA(cudaMemcpyAsync(blocks->dev->d_prec, blocks->prec, nb * sizeof(unsigned char), cudaMemcpyHostToDevice, stream));
      moved += nb * sizeof(unsigned char);
    }
    if (nb && blocks->precision != PC_VBJACOBI_PRECISION_DOUBLE) {
      PetscCallCUDA(cudaMemcpyAsync(blocks->dev->d_sexp, blocks->sexp, nb * sizeof(short), cudaMemcpyHostToDevice, stream));
      moved += nb * sizeof(short);
    }
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)moved));
  }
  if (blocks->precision == PC_VBJACOBI_PRECISION_ADAPTIVE) PetscCall(BuildGroupedInverses(blocks, stream));
  blocks->inv_mask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(PETSC_SUCCESS);
}
