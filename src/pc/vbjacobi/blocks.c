/* The blocks object of PCVBJACOBI, host side: block starts, inverse offsets and inverses, each with one offload mask;
   the host copies are made here, from the device copies (cuda/vbjacobi_blocks.cu, cuda/vbjacobi_cuda.cu) when those
   are the current ones. */
#include <petscblockgpu/private/vbjacobicuda.h>

PetscErrorCode PCVBJacobiBlocksSetHostStarts(PCVBJacobiBlocks *blocks, PetscInt nblocks, PetscInt **starts)
{
  const PetscInt *st = *starts;

  PetscFunctionBegin;
  PetscCheck(nblocks >= 0 && st[0] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: %" PetscInt_FMT " blocks starting at row %" PetscInt_FMT, nblocks, st[0]);
  blocks->maxk        = 0;
  blocks->inv_len     = 0;
  blocks->setup_flops = 0.0;
  for (PetscInt b = 0; b < nblocks; b++) {
    const PetscInt k = st[b + 1] - st[b];

    PetscCheck(k >= 1 && k <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: block %" PetscInt_FMT " has %" PetscInt_FMT " rows, outside 1..%d", b, k, PC_VBJACOBI_MAX_BLOCK_SIZE);
    blocks->maxk = PetscMax(blocks->maxk, k);
    blocks->inv_len += (PetscInt64)k * k;
    blocks->setup_flops += 2.0 * k * k * k;
  }
  PetscCall(PetscFree(blocks->starts));
  blocks->starts       = *starts;
  blocks->cap_starts   = nblocks + 1;
  *starts              = NULL;
  blocks->nblocks      = nblocks;
  blocks->starts_mask  = PETSC_OFFLOAD_CPU;
  blocks->offsets_mask = PETSC_OFFLOAD_UNALLOCATED; /* made from the starts when asked for */
  blocks->inv_mask     = PETSC_OFFLOAD_UNALLOCATED; /* no inverses of these blocks yet */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetHostStarts(PCVBJacobiBlocks *blocks, const PetscInt *starts[])
{
  PetscFunctionBegin;
  if (!PetscOffloadHost(blocks->starts_mask)) {
    PetscCheck(PetscOffloadDevice(blocks->starts_mask), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCVBJACOBI: no block starts yet (set the PC up first)");
    if (blocks->nblocks + 1 > blocks->cap_starts) { /* the old contents are not kept */
      PetscCall(PetscFree(blocks->starts));
      blocks->cap_starts = 0;
      PetscCall(PetscMalloc1(blocks->nblocks + 1, &blocks->starts));
      blocks->cap_starts = blocks->nblocks + 1;
    }
    PetscCall(PCVBJacobiCopyStartsToHost_CUDA(blocks, 0, blocks->nblocks + 1, blocks->starts));
    blocks->starts_mask = PETSC_OFFLOAD_BOTH;
  }
  *starts = blocks->starts;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetHostInverseOffsets(PCVBJacobiBlocks *blocks, const PetscInt64 *offsets[])
{
  PetscFunctionBegin;
  if (!PetscOffloadHost(blocks->offsets_mask)) { /* made from the starts: cheaper than a copy of twice their size */
    const PetscInt *st;

    PetscCall(PCVBJacobiBlocksGetHostStarts(blocks, &st));
    if (blocks->nblocks + 1 > blocks->cap_offsets) {
      PetscCall(PetscFree(blocks->inv_offsets));
      blocks->cap_offsets = 0;
      PetscCall(PetscMalloc1(blocks->nblocks + 1, &blocks->inv_offsets));
      blocks->cap_offsets = blocks->nblocks + 1;
    }
    blocks->inv_offsets[0] = 0;
    for (PetscInt b = 0; b < blocks->nblocks; b++) blocks->inv_offsets[b + 1] = blocks->inv_offsets[b] + (PetscInt64)(st[b + 1] - st[b]) * (st[b + 1] - st[b]);
    blocks->offsets_mask = (PetscOffloadMask)(blocks->offsets_mask | PETSC_OFFLOAD_CPU);
  }
  *offsets = blocks->inv_offsets;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* inv holds inv_len entries (the old contents are not kept) */
static PetscErrorCode EnsureHostInverseCapacity(PCVBJacobiBlocks *blocks)
{
  PetscFunctionBegin;
  if (blocks->inv_len > blocks->cap_inv) {
    PetscCall(PetscFree(blocks->inv));
    blocks->cap_inv = 0;
    PetscCall(PetscMalloc1(blocks->inv_len, &blocks->inv));
    blocks->cap_inv = blocks->inv_len;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetHostInverses(PCVBJacobiBlocks *blocks, const PetscScalar *inv[])
{
  PetscFunctionBegin;
  if (!PetscOffloadHost(blocks->inv_mask)) {
    PetscCheck(PetscOffloadDevice(blocks->inv_mask), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCVBJACOBI: no inverses yet (set the PC up first)");
    PetscCall(EnsureHostInverseCapacity(blocks));
    PetscCall(PCVBJacobiCopyInversesToHost_CUDA(blocks, blocks->inv));
    blocks->inv_mask = PETSC_OFFLOAD_BOTH;
  }
  *inv = blocks->inv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetHostInversesWrite(PCVBJacobiBlocks *blocks, PetscScalar *inv[])
{
  PetscFunctionBegin;
  PetscCheck(!PetscOffloadUnallocated(blocks->starts_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: inverses written before the blocks are known");
  PetscCall(EnsureHostInverseCapacity(blocks));
  blocks->inv_mask = PETSC_OFFLOAD_CPU;
  *inv             = blocks->inv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetBlockRows(PCVBJacobiBlocks *blocks, PetscInt b, PetscInt *first, PetscInt *last)
{
  PetscInt se[2];

  PetscFunctionBegin;
  PetscCheck(b >= 0 && b < blocks->nblocks, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: block %" PetscInt_FMT " outside 0..%" PetscInt_FMT, b, blocks->nblocks - 1);
  if (PetscOffloadHost(blocks->starts_mask)) {
    se[0] = blocks->starts[b];
    se[1] = blocks->starts[b + 1];
  } else {
    PetscCheck(PetscOffloadDevice(blocks->starts_mask), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCVBJACOBI: no block starts yet");
    PetscCall(PCVBJacobiCopyStartsToHost_CUDA(blocks, b, 2, se));
  }
  *first = se[0];
  *last  = se[1] - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksReset(PCVBJacobiBlocks *blocks)
{
  PetscFunctionBegin;
  if (blocks->dev) PetscCall(PCVBJacobiBlocksDestroyDevice_CUDA(blocks));
  PetscCall(PetscFree(blocks->starts));
  PetscCall(PetscFree(blocks->inv_offsets));
  PetscCall(PetscFree(blocks->inv));
  PetscCall(PetscMemzero(blocks, sizeof(*blocks))); /* sizes 0, capacities 0, masks PETSC_OFFLOAD_UNALLOCATED */
  PetscFunctionReturn(PETSC_SUCCESS);
}
