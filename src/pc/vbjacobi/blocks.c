/* The blocks object of PCVBJACOBI, host side: block starts, inverse offsets and inverses, each with one offload mask;
   the host copies are made here, from the device copies (cuda/vbjacobi_blocks.cu, cuda/vbjacobi_cuda.cu) when those
   are the current ones. */
#include <../src/pc/vbjacobi/vbjacobicuda.h>

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

/* inv holds inv_len FP64 slots (the old contents are not kept); prec and sexp nblocks entries */
static PetscErrorCode EnsureHostInverseCapacity(PCVBJacobiBlocks *blocks)
{
  PetscFunctionBegin;
  if (blocks->inv_len > blocks->cap_inv) {
    PetscCall(PetscFree(blocks->inv));
    blocks->cap_inv = 0;
    PetscCall(PetscMalloc1(blocks->inv_len, &blocks->inv));
    blocks->cap_inv = blocks->inv_len;
  }
  if (blocks->nblocks > blocks->cap_meta) {
    PetscCall(PetscFree2(blocks->prec, blocks->sexp));
    blocks->cap_meta = 0;
    PetscCall(PetscMalloc2(blocks->nblocks, &blocks->prec, blocks->nblocks, &blocks->sexp));
    blocks->cap_meta = blocks->nblocks;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetHostInverses(PCVBJacobiBlocks *blocks, const PetscScalar *inv[], const unsigned char *prec[], const short *sexp[])
{
  PetscFunctionBegin;
  if (!PetscOffloadHost(blocks->inv_mask)) {
    PetscCheck(PetscOffloadDevice(blocks->inv_mask), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCVBJACOBI: no inverses yet (set the PC up first)");
    PetscCall(EnsureHostInverseCapacity(blocks));
    PetscCall(PCVBJacobiCopyInversesToHost_CUDA(blocks, blocks->inv, blocks->prec, blocks->sexp));
    blocks->inv_mask           = PETSC_OFFLOAD_BOTH;
    blocks->inv_double_current = PETSC_FALSE;
  }
  if (inv) *inv = blocks->inv;
  if (prec) *prec = blocks->precision == PC_VBJACOBI_PRECISION_ADAPTIVE ? blocks->prec : NULL;
  if (sexp) *sexp = blocks->precision != PC_VBJACOBI_PRECISION_DOUBLE ? blocks->sexp : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetHostInversesWrite(PCVBJacobiBlocks *blocks, PCVBJacobiPrecision precision, PetscReal tol, PetscScalar *inv[], unsigned char *prec[], short *sexp[])
{
  PetscFunctionBegin;
  PetscCheck(!PetscOffloadUnallocated(blocks->starts_mask), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: inverses written before the blocks are known");
  PetscCall(EnsureHostInverseCapacity(blocks));
  blocks->inv_mask           = PETSC_OFFLOAD_CPU;
  blocks->precision          = precision;
  blocks->precision_tol      = tol;
  blocks->inv_double_current = PETSC_FALSE;
  *inv                       = blocks->inv;
  *prec                      = blocks->prec;
  *sexp                      = blocks->sexp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value of entry e of a block stored in type t with scale exponent x at base */
static inline PetscScalar StoredEntry(const void *base, int t, int x, PetscInt e)
{
  switch (t) {
  case PBG_STORE_SINGLE:
    return ldexp((double)((const float *)base)[e], x);
  case PBG_STORE_HALF:
    return ldexp(PCVBJacobiHalfBitsToDouble(((const uint16_t *)base)[e]), x);
  default:
    return ((const double *)base)[e];
  }
}

PetscErrorCode PCVBJacobiBlocksGetHostInversesDouble(PCVBJacobiBlocks *blocks, const PetscScalar *inv[])
{
  const PetscScalar   *stored;
  const unsigned char *prec;
  const short         *sexp;
  const PetscInt      *starts;
  const PetscInt64    *offsets;
  const int            slot = PCVBJacobiSlotBytes((int)blocks->precision);

  PetscFunctionBegin;
  PetscCall(PCVBJacobiBlocksGetHostInverses(blocks, &stored, &prec, &sexp));
  if (blocks->precision == PC_VBJACOBI_PRECISION_DOUBLE) {
    *inv = stored;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!blocks->inv_double_current) {
    PetscCall(PCVBJacobiBlocksGetHostStarts(blocks, &starts));
    PetscCall(PCVBJacobiBlocksGetHostInverseOffsets(blocks, &offsets));
    if (blocks->inv_len > blocks->cap_inv_double) {
      PetscCall(PetscFree(blocks->inv_double));
      blocks->cap_inv_double = 0;
      PetscCall(PetscMalloc1(blocks->inv_len, &blocks->inv_double));
      blocks->cap_inv_double = blocks->inv_len;
    }
    for (PetscInt b = 0; b < blocks->nblocks; b++) {
      const PetscInt k    = starts[b + 1] - starts[b];
      const int      t    = prec ? prec[b] : (int)blocks->precision;
      const void    *base = (const char *)stored + (size_t)slot * (size_t)offsets[b];

      for (PetscInt e = 0; e < k * k; e++) blocks->inv_double[offsets[b] + e] = StoredEntry(base, t, sexp[b], e);
    }
    blocks->inv_double_current = PETSC_TRUE;
  }
  *inv = blocks->inv_double;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCVBJacobiBlocksGetPrecisions(PCVBJacobiBlocks *blocks, PetscInt counts[], PetscInt rows[], PetscInt64 *bytes, const unsigned char *prec[])
{
  const unsigned char *p;
  const PetscInt      *starts;
  PetscInt             c[3] = {0, 0, 0}, r[3] = {0, 0, 0};
  PetscInt64           nbytes = 0;

  PetscFunctionBegin;
  PetscCall(PCVBJacobiBlocksGetHostInverses(blocks, NULL, &p, NULL));
  PetscCall(PCVBJacobiBlocksGetHostStarts(blocks, &starts));
  if (!p) { /* a fixed mode: every block in its type (the array is filled for the caller that wants it) */
    PetscCall(EnsureHostInverseCapacity(blocks));
    for (PetscInt b = 0; b < blocks->nblocks; b++) blocks->prec[b] = (unsigned char)blocks->precision;
    p = blocks->prec;
  }
  for (PetscInt b = 0; b < blocks->nblocks; b++) {
    const PetscInt k = starts[b + 1] - starts[b];

    PetscCheck(p[b] <= PBG_STORE_HALF, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: block %" PetscInt_FMT " has storage type %d", b, (int)p[b]);
    c[p[b]]++;
    r[p[b]] += k;
    nbytes += (PetscInt64)k * k * PCVBJacobiTypeBytes(p[b]);
  }
  if (counts) PetscCall(PetscArraycpy(counts, c, 3));
  if (rows) PetscCall(PetscArraycpy(rows, r, 3));
  if (bytes) *bytes = nbytes;
  if (prec) *prec = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stores the FP64 inverse of a block at dst in the type the rule of mode picks (the device's StoredType()); returns 0,
   storing nothing, when layout is a compact one whose type is not that type (the setup then starts again in the ADAPTIVE
   layout) */
int PCVBJacobiStoreBlock_Host(int mode, int layout, double tol, PetscInt k, const PetscScalar *inv, double anorm, void *dst, int *type, int *sexp)
{
  double ainv = 0.0, maxabs = 0.0;
  int    t, x;

  for (PetscInt c = 0; c < k; c++) { /* column sums in row order, as the device sums them */
    double s = 0.0;

    for (PetscInt r = 0; r < k; r++) {
      s += PetscAbsScalar(inv[r + c * k]);
      maxabs = PetscMax(maxabs, PetscAbsScalar(inv[r + c * k]));
    }
    ainv = PetscMax(ainv, s);
  }
  t     = PCVBJacobiChooseType(mode, tol, anorm * ainv);
  *type = t;
  if (!PCVBJacobiLayoutTakes(layout, t)) return 0;
  x = PCVBJacobiScaleExponent(t, maxabs);
  for (PetscInt e = 0; e < k * k; e++) {
    const double v = ldexp(inv[e], -x);

    if (t == PBG_STORE_SINGLE) ((float *)dst)[e] = (float)v;
    else if (t == PBG_STORE_HALF) ((uint16_t *)dst)[e] = PCVBJacobiDoubleToHalfBits(v);
    else ((double *)dst)[e] = v;
  }
  *sexp = x;
  return 1;
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
  PetscCall(PetscFree2(blocks->prec, blocks->sexp));
  PetscCall(PetscFree(blocks->inv_double));
  PetscCall(PetscMemzero(blocks, sizeof(*blocks))); /* sizes 0, capacities 0, masks PETSC_OFFLOAD_UNALLOCATED */
  PetscFunctionReturn(PETSC_SUCCESS);
}
