/* PCVBJACOBI's host path: the setup (blocks found on the host, extracted and inverted block by block with src/sys's host
   Gauss-Jordan) and the apply, one dense block at a time; vbjacobi.c chooses it when the matrix or the vectors are on
   the host, or the GPU path is off. */
#include <../src/pc/vbjacobi/vbjacobiimpl.h>
#include <../src/sys/gaussjordan_host.h>

/* One block inverted on the host: src/sys's host twin of the device Gauss-Jordan (the same pivots and info) */
PetscErrorCode PCVBJacobiInvertBlock_Host(PetscInt n, PetscScalar *A, PetscInt *work, PetscInt *info)
{
  PetscReal   tiny[PC_VBJACOBI_MAX_BLOCK_SIZE];
  PetscScalar buf[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE];

  PetscFunctionBegin;
  PetscCheck(n <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block size %" PetscInt_FMT " exceeds %d", n, PC_VBJACOBI_MAX_BLOCK_SIZE);
  *info = PetscBlockGPUInvertBlock_Host(n, A, work, work + n, tiny, buf);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Matrices whose values live on a device: read them through their host copy, brought up to date here. */
static PetscErrorCode SyncHostValues(Mat A, PetscBool *ondevice)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, ondevice, MATSEQAIJCUSPARSE, MATSEQAIJHIPSPARSE, MATSEQAIJKOKKOS, ""));
  if (*ondevice) {
    const PetscScalar *v;

    PetscCall(MatSeqAIJGetArrayRead(A, &v));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies the diagonal block of rows [s, s+k) of the local diagonal part Ad into blk (k x k, column-major). */
static PetscErrorCode ExtractBlock(Mat Ad, PetscInt s, PetscInt k, PetscScalar *blk)
{
  PetscFunctionBegin;
  PetscCall(PetscArrayzero(blk, k * k));
  for (PetscInt i = 0; i < k; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(Ad, s + i, &nc, &cols, &vals));
    for (PetscInt c = 0; c < nc; c++)
      if (cols[c] >= s && cols[c] < s + k) blk[i + (cols[c] - s) * k] += vals[c];
    PetscCall(MatRestoreRow(Ad, s + i, &nc, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host setup: blocks (when needed), then extraction and Gauss-Jordan inversion, block by block, into the host copy of
   the inverses (the device copy is then out of date). */
PetscErrorCode PCVBJacobiSetUp_Host(PC pc, PetscBool redetect, PetscInt *bad_block, PetscInt *bad_info)
{
  PC_VBJacobi      *jac = (PC_VBJacobi *)pc->data;
  Mat               A   = pc->pmat, Ad;
  PetscInt          work[2 * PC_VBJACOBI_MAX_BLOCK_SIZE];
  PetscLogDouble    t0, t1, t2;
  PetscBool         ondevice, has;
  const PetscInt   *starts;
  const PetscInt64 *offsets;
  PetscScalar      *inv, *buf = NULL;
  unsigned char    *prec;
  short            *sexp;
  const int         mode = (int)jac->precision;

  PetscFunctionBegin;
  PetscCall(MatGetDiagonalBlock(A, &Ad));
  PetscCall(MatHasOperation(Ad, MATOP_GET_ROW, &has));
  PetscCheck(has, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCVBJACOBI needs MatGetRow() on the diagonal part of the matrix, which type %s lacks", ((PetscObject)Ad)->type_name);
  PetscCall(SyncHostValues(Ad, &ondevice));
  PetscCall(PetscTime(&t0));
  if (redetect) {
    PCVBJacobiBlocking how;
    PetscInt           nb, *st;

    jac->rows_detected = -1; /* no valid blocks until this setup succeeds */
    PetscCall(PetscLogEventBegin(PBG_VBJacobiDetect, pc, A, 0, 0));
    PetscCall(PCVBJacobiResolveBlocking(pc, &how));
    PetscCall(PCVBJacobiDetectBlocks_Host(pc, how, &nb, &st));
    PetscCall(PCVBJacobiBlocksSetHostStarts(&jac->blocks, nb, &st));
    PetscCall(PetscLogEventEnd(PBG_VBJacobiDetect, pc, A, 0, 0));
    jac->blocking_used = how;
  }
  /* blocks kept from a GPU setup come to the host once */
  PetscCall(PCVBJacobiBlocksGetHostStarts(&jac->blocks, &starts));
  PetscCall(PCVBJacobiBlocksGetHostInverseOffsets(&jac->blocks, &offsets));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogEventBegin(PBG_VBJacobiInvert, pc, A, 0, 0));
  /* reduced storage: each block is inverted in FP64 in buf, then stored (PCVBJacobiStoreBlock_Host(): the device's choice
     of type and scale); double: in place. A fixed reduced mode starts in its compact layout; the first block that needs
     a wider type starts the pass again in the ADAPTIVE layout (each block in its own type, in FP64 slots) */
  if (mode != PBG_STORE_DOUBLE) PetscCall(PetscMalloc1(PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE, &buf));
  for (int layout = mode, again = 1; again;) {
    const int slot = PCVBJacobiSlotBytes(layout);

    again          = 0;
    jac->nsingular = 0;
    *bad_block     = -1;
    *bad_info      = 0;
    PetscCall(PCVBJacobiBlocksGetHostInversesWrite(&jac->blocks, (PCVBJacobiPrecision)layout, jac->precision_tol, &inv, &prec, &sexp));
    for (PetscInt b = 0; b < jac->blocks.nblocks && !again; b++) {
      PetscInt     s = starts[b], k = starts[b + 1] - s, info;
      PetscScalar *blk   = buf ? buf : inv + offsets[b];
      double       anorm = 0.0;

      PetscCall(ExtractBlock(Ad, s, k, blk));
      for (PetscInt c = 0; c < k && mode != PBG_STORE_DOUBLE; c++) { /* ||A||_1, columns summed in row order as on the device */
        double sum = 0.0;

        for (PetscInt r = 0; r < k; r++) sum += PetscAbsScalar(blk[r + c * k]);
        anorm = PetscMax(anorm, sum);
      }
      PetscCall(PCVBJacobiInvertBlock_Host(k, blk, work, &info));
      if ((info > 0 || info == PC_VBJACOBI_INFO_INVERSE_NOT_FINITE) && jac->singular == PC_VBJACOBI_SINGULAR_IDENTITY) { /* policy: this block is left unpreconditioned */
        PetscCall(PetscArrayzero(blk, k * k));
        for (PetscInt i = 0; i < k; i++) blk[i + i * k] = 1.0;
        anorm = 1.0;
        info  = 0;
        jac->nsingular++;
      } else if (info && *bad_block < 0) {
        *bad_block = b;
        *bad_info  = info;
      }
      prec[b] = (unsigned char)(layout == PBG_STORE_ADAPTIVE ? PBG_STORE_DOUBLE : layout); /* (a failed block: never applied) */
      sexp[b] = 0;
      if (buf && !info) {
        int t, x;

        if (!PCVBJacobiStoreBlock_Host(mode, layout, jac->precision_tol, k, blk, anorm, (char *)inv + (size_t)slot * (size_t)offsets[b], &t, &x)) {
          again  = 1;
          layout = PBG_STORE_ADAPTIVE;
          break;
        }
        prec[b] = (unsigned char)t;
        sexp[b] = (short)x;
      }
    }
  }
  PetscCall(PetscFree(buf));
  PetscCall(PetscLogFlops(jac->blocks.setup_flops));
  PetscCall(PetscLogEventEnd(PBG_VBJacobiInvert, pc, A, 0, 0));
  PetscCall(PetscTime(&t2));
  jac->time_detect = t1 - t0;
  jac->time_invert = t2 - t1;
  PetscCall(PetscSNPrintf(jac->setup_where, sizeof(jac->setup_where), ondevice ? "host (values read from the host copy of the %s matrix)" : "host (%s matrix)", ((PetscObject)Ad)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = D^{-1} x (or D^{-T} x) on the host, one dense block at a time */
PetscErrorCode PCVBJacobiApplyBlocks_Host(PC pc, Vec x, Vec y, PetscBool transpose)
{
  PC_VBJacobi         *jac = (PC_VBJacobi *)pc->data;
  const PetscScalar   *xa, *inv;
  PetscScalar         *ya, Dbuf[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE];
  const PetscInt      *starts;
  const PetscInt64    *offsets;
  const unsigned char *prec;
  const short         *sexp;
  const int            mode = (int)jac->blocks.precision, slot = PCVBJacobiSlotBytes(mode);

  PetscFunctionBegin;
  /* after a GPU setup the host copies are made at the first host apply, once */
  PetscCall(PCVBJacobiBlocksGetHostStarts(&jac->blocks, &starts));
  PetscCall(PCVBJacobiBlocksGetHostInverseOffsets(&jac->blocks, &offsets));
  PetscCall(PCVBJacobiBlocksGetHostInverses(&jac->blocks, &inv, &prec, &sexp));
  PetscCall(PetscLogEventBegin(PBG_VBJacobiApply, pc, x, y, 0));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  for (PetscInt b = 0; b < jac->blocks.nblocks; b++) {
    const PetscInt     s = starts[b], k = starts[b + 1] - s;
    const PetscScalar *D = inv + offsets[b], *xb = xa + s;
    PetscScalar       *yb = ya + s;

    if (mode != PBG_STORE_DOUBLE) { /* the stored type read as FP64 (exact); the scale is applied to the result */
      const int   t    = prec ? prec[b] : mode;
      const void *base = (const char *)inv + (size_t)slot * (size_t)offsets[b];

      if (t == PBG_STORE_SINGLE)
        for (PetscInt e = 0; e < k * k; e++) Dbuf[e] = ((const float *)base)[e];
      else if (t == PBG_STORE_HALF)
        for (PetscInt e = 0; e < k * k; e++) Dbuf[e] = PCVBJacobiHalfBitsToDouble(((const uint16_t *)base)[e]);
      else PetscCall(PetscArraycpy(Dbuf, (const PetscScalar *)base, k * k));
      D = Dbuf;
    }
    if (!transpose) {
      for (PetscInt i = 0; i < k; i++) yb[i] = 0.0;
      for (PetscInt j = 0; j < k; j++)
        for (PetscInt i = 0; i < k; i++) yb[i] += D[i + j * k] * xb[j];
    } else {
      for (PetscInt i = 0; i < k; i++) {
        PetscScalar sum = 0.0;

        for (PetscInt j = 0; j < k; j++) sum += D[j + i * k] * xb[j];
        yb[i] = sum;
      }
    }
    if (sexp)
      for (PetscInt i = 0; i < k; i++) yb[i] = ldexp(yb[i], sexp[b]);
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)jac->blocks.inv_len));
  PetscCall(PetscLogEventEnd(PBG_VBJacobiApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
