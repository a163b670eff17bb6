/* PCVBJACOBI: variable-size block Jacobi. Type, options, view, and the host path of setup and apply.
   Algorithm: Anzt, Dongarra, Flegar, Quintana-Orti, "Variable-size batched Gauss-Jordan elimination for
   block-Jacobi preconditioning on graphics processors", Parallel Computing 2018. */
#include <../src/pc/vbjacobi/vbjacobicuda.h>
#include <../src/sys/gaussjordan_host.h>

const char *const PCVBJacobiBlockings[]        = {"auto", "supervariable", "matrix", "variable", "natural", "PCVBJacobiBlocking", "PC_VBJACOBI_BLOCKING_", NULL};
const char *const PCVBJacobiSingularPolicies[] = {"error", "identity", "PCVBJacobiSingularPolicy", "PC_VBJACOBI_SINGULAR_", NULL};
const char *const PCVBJacobiExtractions[]      = {"auto", "cached", "shared", "PCVBJacobiExtraction", "PC_VBJACOBI_EXTRACTION_", NULL};
const char *const PCVBJacobiPrecisions[]       = {"double", "single", "half", "adaptive", "PCVBJacobiPrecision", "PC_VBJACOBI_PRECISION_", NULL};

/* Default tolerance of -pc_vbjacobi_precision adaptive: a block goes to half when cond * 2^-11 < tol, to single when
   cond * 2^-24 < tol. With tol = 0.1 (Ginkgo's default accuracy): half for cond < 205, single for cond < 1.7e6. The
   stored inverse is then off by a relative u per entry, so the preconditioned diagonal block, I + E, has
   ||E||_1 <~ u cond < tol: its distance from the identity stays below 10%, a change a Krylov method barely sees.
   Measured (host, CG, rtol 1e-9, max block size 24, the six Table 1 matrices of ../shared/matrices/suitesparse),
   iterations double / adaptive 0.1 / adaptive 0.01 / single / half: bcsstk17 1601/1602/1603/1601/-, bcsstk18
   1085/1096/1109/1092/-, s1rmt3m1 585/585/585/585/586, s2rmq4m1 752/751/752/751/752, s3rmq4m1 1146/1146/1146/1211/-,
   s3rmt3m3 1124/1124/1124/1247/- ('-': no convergence in 20000): 0.1 stays within 1% of double everywhere (it keeps
   the s3rm*3 blocks, cond_1 > 1.7e6, in double, where single costs 6-11%), and 0.01 buys nothing over it. */
#define PC_VBJACOBI_PRECISION_TOL_DEFAULT 0.1

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

/* The local rows of the Pmat as device arrays, when the Pmat lives on the GPU and a GPU can be used: the CSR of
   (mpi)aijcusparse through PETSc's own accessors, or the view that a matrix of this package (baijksparse) gives through
   its composed PBG_GET_DEVICE_MAT_VIEW, with the pattern of the off-diagonal part */
PetscErrorCode PCVBJacobiGetDeviceMat_Private(PC pc, PCVBJacobiDeviceMat *dm, PetscBool *usable)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  Mat          A = pc->pmat, Ad = NULL, Ao = NULL;
  PetscBool    isaij, ismpi, avail, bound;
  MatInfo      info;
  PetscErrorCode (*getview)(Mat, PetscBlockGPUDeviceMatView *) = NULL;

  PetscFunctionBegin;
  *usable = PETSC_FALSE;
  PetscCall(PetscMemzero(dm, sizeof(*dm)));
  PetscCall(MatBoundToCPU(A, &bound));
  if (!jac->use_gpu || bound) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isaij, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, PBG_GET_DEVICE_MAT_VIEW, &getview));
  if (!isaij && !getview) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  if (!avail) PetscFunctionReturn(PETSC_SUCCESS);
  if (isaij) {
    const PetscScalar *v;

    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJCUSPARSE, &ismpi));
    if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    else Ad = A;
    PetscCall(MatBoundToCPU(Ad, &bound));
    if (bound) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatSeqAIJCUSPARSEGetIJ(Ad, PETSC_FALSE, (const PetscInt **)&dm->d_rowptr, (const PetscInt **)&dm->d_colidx));
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(Ad, &v));
    dm->d_values = v;
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(Ad, &v));
    dm->bs = 1;
    if (Ao) {
      PetscCall(MatGetInfo(Ao, MAT_LOCAL, &info));
      if (info.nz_used > 0) PetscCall(MatSeqAIJCUSPARSEGetIJ(Ao, PETSC_FALSE, (const PetscInt **)&dm->d_o_rowptr, (const PetscInt **)&dm->d_o_colidx));
    }
  } else {
    PetscBlockGPUDeviceMatView view;

    PetscCall((*getview)(A, &view));
    if (view.mtype != PETSC_MEMTYPE_CUDA) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCheck(view.itype == PETSC_INT32, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCVBJACOBI: the device view of a %s matrix has indices of type %s; the kernels take 32-bit indices", ((PetscObject)A)->type_name, PetscDataTypes[view.itype]);
    dm->bs         = view.bs;
    dm->d_rowptr   = (const int *)view.rowptr;
    dm->d_colidx   = (const int *)view.colidx;
    dm->d_values   = view.values;
    dm->d_o_rowptr = (const int *)view.o_rowptr;
    dm->d_o_colidx = (const int *)view.o_colidx;
  }
  PetscCall(MatGetDiagonalBlock(A, &Ad));
  PetscCall(MatGetLocalSize(A, &dm->nrows, NULL));
  PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
  dm->mean_row_len = dm->nrows > 0 ? (PetscReal)info.nz_used / (PetscReal)dm->nrows : 0.0;
  dm->nvalues      = (PetscInt64)info.nz_used;
  *usable          = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host setup: blocks (when needed), then extraction and Gauss-Jordan inversion, block by block, into the host copy of
   the inverses (the device copy is then out of date). */
static PetscErrorCode SetUp_Host(PC pc, PetscBool redetect, PetscInt *bad_block, PetscInt *bad_info)
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

/* GPU setup: blocks (supervariables found on the device; matrix or variable blocks sent from the host), then one
   merged extraction + inversion kernel per size class, into the device copy of the inverses (the host copy is then out
   of date). */
static PetscErrorCode SetUp_Device(PC pc, const PCVBJacobiDeviceMat *dm, PetscBool redetect, PetscInt *bad_block, PetscInt *bad_info)
{
  PC_VBJacobi   *jac = (PC_VBJacobi *)pc->data;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  if (redetect) {
    PCVBJacobiBlocking how;

    jac->rows_detected = -1; /* no valid blocks until this setup succeeds */
    PetscCall(PetscLogEventBegin(PBG_VBJacobiDetect, pc, pc->pmat, 0, 0));
    PetscCall(PCVBJacobiResolveBlocking(pc, &how));
    switch (how) {
    case PC_VBJACOBI_BLOCKING_SUPERVARIABLE:
    case PC_VBJACOBI_BLOCKING_NATURAL:
      PetscCall(PCVBJacobiDetectSupervariables_CUDA(dm, jac->max_block_size, jac->merge_bound, &jac->blocks)); /* 0 (no merge) unless SUPERVARIABLE */
      break;
    case PC_VBJACOBI_BLOCKING_MATRIX: {
      PetscInt bs;

      PetscCall(PCVBJacobiMatrixBlockSize(pc->pmat, jac->max_block_size, &bs));
      PetscCall(PCVBJacobiSetUniformBlocks_CUDA(dm->nrows, bs, &jac->blocks));
    } break;
    default: { /* variable sizes come from the host */
      PetscInt nb, *st;

      PetscCall(PCVBJacobiDetectBlocks_Host(pc, how, &nb, &st));
      PetscCall(PCVBJacobiBlocksSetHostStarts(&jac->blocks, nb, &st));
    }
    }
    /* blocks found on the host go to the device once */
    PetscCall(PCVBJacobiBlocksSyncStartsToDevice_CUDA(&jac->blocks));
    PetscCall(PetscLogEventEnd(PBG_VBJacobiDetect, pc, pc->pmat, 0, 0));
    jac->blocking_used = how;
  } else PetscCall(PCVBJacobiBlocksSyncStartsToDevice_CUDA(&jac->blocks)); /* blocks kept from a host setup: copied once */
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogEventBegin(PBG_VBJacobiInvert, pc, pc->pmat, 0, 0));
  PetscCall(PCVBJacobiSetup_CUDA(dm, jac->extraction, jac->singular, jac->precision, jac->precision_tol, &jac->blocks, &jac->nsingular, bad_block, bad_info));
  PetscCall(PetscLogEventEnd(PBG_VBJacobiInvert, pc, pc->pmat, 0, 0));
  PetscCall(PetscTime(&t2));
  jac->time_detect = t1 - t0;
  jac->time_invert = t2 - t1;
  PetscCall(PetscSNPrintf(jac->setup_where, sizeof(jac->setup_where), "GPU (device %s of the %s matrix)", dm->bs > 1 ? "BSR" : "CSR", ((PetscObject)pc->pmat)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_VBJacobi(PC pc)
{
  PC_VBJacobi        *jac  = (PC_VBJacobi *)pc->data;
  Mat                 A    = pc->pmat;
  MPI_Comm            comm = PetscObjectComm((PetscObject)pc);
  PetscInt            n, ncols, rstart, first_block = 0, bad_block = -1, bad_info = 0;
  PetscObjectState    nzstate;
  PetscBool           ondevice, redetect;
  PetscMPIInt         lfail, gfail, src, rank, size;
  PCVBJacobiDeviceMat dm;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, &ncols));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  { /* refused on every rank, so that none is left waiting in the setup's communication (petsc4py's handler returns) */
    PetscMPIInt bad = n != ncols ? rank : size;

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, comm));
    PetscCheck(n == ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCVBJACOBI needs a matrix with square local diagonal part, got %" PetscInt_FMT " local rows and %" PetscInt_FMT " local columns", n, ncols);
    PetscCheck(bad == size, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCVBJACOBI needs a matrix with square local diagonal part on every rank; rank %d's is not", bad);
  }
  PetscCall(PCVBJacobiGetDeviceMat_Private(pc, &dm, &ondevice));

  /* the blocks are found again when the matrix object, its nonzero pattern or the size changed: another matrix given to
     KSPSetOperators() can have the same size and the same nonzero-state counter. A setup on the other side (host or
     GPU) keeps them: both find the same blocks, and the blocks object copies them over once. */
  PetscCall(MatGetNonzeroState(A, &nzstate));
  redetect       = (PetscBool)(n != jac->rows_detected || nzstate != jac->nonzerostate || ((PetscObject)A)->id != jac->pmat_id); /* rows_detected is -1 without valid blocks */
  jac->nsingular = 0;
  if (ondevice) PetscCall(SetUp_Device(pc, &dm, redetect, &bad_block, &bad_info));
  else PetscCall(SetUp_Host(pc, redetect, &bad_block, &bad_info));
  jac->setup_on_gpu  = ondevice;
  jac->nonzerostate  = nzstate;
  jac->pmat_id       = ((PetscObject)A)->id;
  jac->rows_detected = n;

  /* a singular or non-finite block fails the setup on every rank */
  PetscCallMPI(MPI_Exscan(&jac->blocks.nblocks, &first_block, 1, MPIU_INT, MPI_SUM, comm));
  lfail = bad_block >= 0 ? rank : size; /* the lowest failing rank tells the others what failed */
  PetscCallMPI(MPIU_Allreduce(&lfail, &gfail, 1, MPI_INT, MPI_MIN, comm));
  lfail            = bad_block >= 0;
  src              = gfail;
  gfail            = src < size;
  jac->failed      = gfail ? PETSC_TRUE : PETSC_FALSE;
  jac->failure[0]  = 0;
  pc->failedreason = gfail ? PC_SETUP_ERROR : PC_NOERROR;
  if (lfail) {
    PetscInt r0 = 0, r1 = -1;

    PetscCall(PCVBJacobiBlocksGetBlockRows(&jac->blocks, bad_block, &r0, &r1));
    r0 += rstart;
    r1 += rstart;

    if (bad_info == PC_VBJACOBI_INFO_INVERSE_NOT_FINITE)
      PetscCall(PetscSNPrintf(jac->failure, sizeof(jac->failure), "the inverse of diagonal block %" PetscInt_FMT " (global rows %" PetscInt_FMT "..%" PetscInt_FMT ") is not finite: the block is too badly scaled or too close to singular; -pc_vbjacobi_singular identity leaves such blocks unpreconditioned", first_block + bad_block, r0, r1));
    else if (bad_info < 0) PetscCall(PetscSNPrintf(jac->failure, sizeof(jac->failure), "diagonal block %" PetscInt_FMT " (global rows %" PetscInt_FMT "..%" PetscInt_FMT ") holds NaN or Inf", first_block + bad_block, r0, r1));
    else
      PetscCall(PetscSNPrintf(jac->failure, sizeof(jac->failure), "zero or tiny pivot in diagonal block %" PetscInt_FMT ", global rows %" PetscInt_FMT "..%" PetscInt_FMT " (no usable pivot at elimination step %" PetscInt_FMT " of %" PetscInt_FMT "); -pc_vbjacobi_singular identity leaves such blocks unpreconditioned", first_block + bad_block, r0, r1, bad_info, r1 - r0 + 1));
  }
  if (gfail) {
    PetscCallMPI(MPI_Bcast(jac->failure, sizeof(jac->failure), MPI_CHAR, src, comm));
    PetscCall(PetscInfo(pc, "PCVBJACOBI setup failed: %s\n", jac->failure));
    PetscCheck(!pc->erroriffailure, comm, PETSC_ERR_MAT_LU_ZRPVT, "PCVBJACOBI: %s", jac->failure);
  }
  if (jac->nsingular) PetscCall(PetscInfo(pc, "PCVBJACOBI: %" PetscInt_FMT " singular blocks replaced by the identity\n", jac->nsingular));
  pc->setupcalled = PETSC_TRUE; /* so that the view below shows the blocks; PCSetUp() sets it right after */
  PetscCall(PCViewFromOptions(pc, NULL, "-pc_view"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = D^{-1} x (or D^{-T} x) on the host, one dense block at a time */
static PetscErrorCode ApplyBlocks_Host(PC pc, Vec x, Vec y, PetscBool transpose)
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

/* y = D^{-1} x where x lives: on the GPU for a device vector (unless the GPU path is off), wherever the setup ran; on the
   host otherwise */
PetscErrorCode PCVBJacobiApplyBlocks_Private(PC pc, Vec x, Vec y, PetscBool transpose)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  if (jac->failed) { /* PETSc's convention: a failed preconditioner returns Inf, so the KSP stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (jac->use_gpu) {
    const PetscScalar *xa;
    PetscScalar       *ya;
    PetscMemType       mx, my;

    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
    if (PetscMemTypeDevice(mx)) {
      PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
      PetscCheck(PetscMemTypeDevice(my), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PCVBJACOBI: x is a device vector but y (type %s) is not", ((PetscObject)y)->type_name);
      PetscCall(PetscLogEventBegin(PBG_VBJacobiApply, pc, x, y, 0));
      /* after a host setup the blocks and inverses go to the device at the first device apply, once */
      PetscCall(PCVBJacobiBlocksSyncInversesToDevice_CUDA(&jac->blocks));
      PetscCall(PCVBJacobiApply_CUDA(&jac->blocks, xa, ya, transpose));
      PetscCall(PetscLogEventEnd(PBG_VBJacobiApply, pc, x, y, 0));
      PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
      PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  }
  PetscCall(ApplyBlocks_Host(pc, x, y, transpose));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_VBJacobi(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCVBJacobiApplyBlocks_Private(pc, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_VBJacobi(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCVBJacobiApplyBlocks_Private(pc, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_VBJacobi(PC pc)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCVBJacobiBlocksReset(&jac->blocks));
  PetscCall(VecDestroy(&jac->richardson_work));
  if (jac->sweep_values.d_val) PetscCall(PCVBJacobiSweepValuesFree_CUDA(&jac->sweep_values));
  jac->rows_detected = -1;
  jac->failed        = PETSC_FALSE;
  jac->setup_on_gpu  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_VBJacobi(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_VBJacobi(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetMaxBlockSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetMaxBlockSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetBlocking_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlocking_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetSingularPolicy_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetSingularPolicy_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlocks_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetInverses_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetPrecision_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetPrecision_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetPrecisionTolerance_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetPrecisionTolerance_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlockPrecisions_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCApplyChebyshevSweeps_C", NULL)); /* another PC type must not inherit it */
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_VBJacobi(PC pc, PetscViewer viewer)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  PetscBool    isascii;
  MPI_Comm     comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  blocking: %s, maximum block size %" PetscInt_FMT ", singular blocks: %s, GPU extraction: %s%s\n", PCVBJacobiBlockings[jac->blocking], jac->max_block_size, PCVBJacobiSingularPolicies[jac->singular],
                                   PCVBJacobiExtractions[jac->extraction], jac->use_gpu ? "" : " (GPU path off)"));
  if (jac->precision == PC_VBJACOBI_PRECISION_ADAPTIVE)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  storage precision of the inverses: adaptive, tolerance %g (half when cond_1 * 2^-11 < min(tol, 1/2), single when cond_1 * 2^-24 < min(tol, 1/2), else double)\n", (double)jac->precision_tol));
  else if (jac->precision == PC_VBJACOBI_PRECISION_DOUBLE) PetscCall(PetscViewerASCIIPrintf(viewer, "  storage precision of the inverses: double\n"));
  else
    PetscCall(
      PetscViewerASCIIPrintf(viewer, "  storage precision of the inverses: %s or wider (a block whose inverse %s cannot hold, cond_1 * 2^-%d >= 1/2, takes the next type that can)\n", PCVBJacobiPrecisions[jac->precision], PCVBJacobiPrecisions[jac->precision], jac->precision == PC_VBJACOBI_PRECISION_HALF ? 11 : 24));
  if (jac->richardson && jac->richardson_fused >= 0) /* KSPRICHARDSON has called them */
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Richardson sweeps (PCApplyRichardson()): ours, damping %g; the last %s\n", (double)jac->richardson_damping, jac->richardson_fused ? "fused on the GPU (one kernel a sweep)" : "unfused (residual, apply, update)"));
  if (jac->chebyshev && jac->chebyshev_fused >= 0) /* KSPCHEBYSHEV has asked for them */
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Chebyshev steps (KSPCHEBYSHEV): the last %s\n", jac->chebyshev_fused ? "fused on the GPU (one kernel a step)" : "KSPCHEBYSHEV's own loop (residual, apply, update)"));
  if (jac->sweep_single && jac->sweep_values.d_val) PetscCall(PetscViewerASCIIPrintf(viewer, "  fused sweeps read the matrix values in single precision (a copy of %" PetscInt64_FMT " values)\n", (PetscInt64)jac->sweep_values.cap));
  else if (jac->sweep_single) PetscCall(PetscViewerASCIIPrintf(viewer, "  fused sweeps read the matrix values in single precision (none has run yet)\n"));
  if (!pc->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  {
    PetscInt        hist[PC_VBJACOBI_MAX_BLOCK_SIZE + 1] = {0}, ghist[PC_VBJACOBI_MAX_BLOCK_SIZE + 1], local[2], global[2];
    PetscInt        kmin = PETSC_INT_MAX, kmax = 0, gkmin, gkmax;
    PetscInt64      ginv_len;
    char            line[1024];
    size_t          len = 0;
    PetscReal       tmax[2], ltimes[2];
    PetscInt        N;
    PetscBool       avail;
    const PetscInt *starts;

    /* after a GPU setup the host copy of the starts is made here, once */
    PetscCall(PCVBJacobiBlocksGetHostStarts(&jac->blocks, &starts));
    for (PetscInt b = 0; b < jac->blocks.nblocks; b++) {
      PetscInt k = starts[b + 1] - starts[b];

      hist[PetscMin(k, PC_VBJACOBI_MAX_BLOCK_SIZE)]++;
      kmin = PetscMin(kmin, k);
      kmax = PetscMax(kmax, k);
    }
    local[0]  = jac->blocks.nblocks;
    local[1]  = jac->nsingular;
    ltimes[0] = jac->time_detect;
    ltimes[1] = jac->time_invert;
    PetscCallMPI(MPIU_Allreduce(local, global, 2, MPIU_INT, MPI_SUM, comm));
    PetscCallMPI(MPIU_Allreduce(&jac->blocks.inv_len, &ginv_len, 1, MPIU_INT64, MPI_SUM, comm));
    PetscCallMPI(MPIU_Allreduce(hist, ghist, PC_VBJACOBI_MAX_BLOCK_SIZE + 1, MPIU_INT, MPI_SUM, comm));
    PetscCallMPI(MPIU_Allreduce(&kmin, &gkmin, 1, MPIU_INT, MPI_MIN, comm));
    PetscCallMPI(MPIU_Allreduce(&kmax, &gkmax, 1, MPIU_INT, MPI_MAX, comm));
    PetscCallMPI(MPIU_Allreduce(ltimes, tmax, 2, MPIU_REAL, MPI_MAX, comm));
    PetscCall(MatGetSize(pc->pmat, &N, NULL));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks from: %s%s%s%s\n", PCVBJacobiBlockings[jac->blocking_used], jac->blocking_why[0] ? " (" : "", jac->blocking_why, jac->blocking_why[0] ? ")" : ""));
    if (jac->blocking_used == PC_VBJACOBI_BLOCKING_SUPERVARIABLE) { /* each rank chose its own bound: the range, and rank 0's reason */
      PetscInt b[2] = {-jac->merge_bound, jac->merge_bound}, gb[2];

      PetscCallMPI(MPIU_Allreduce(b, gb, 2, MPIU_INT, MPI_MAX, comm));
      if (-gb[0] == gb[1]) PetscCall(PetscViewerASCIIPrintf(viewer, "  supervariables merged up to %" PetscInt_FMT " rows (%s)\n", gb[1], jac->merge_why[0] ? jac->merge_why : "-pc_vbjacobi_max_block_size"));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "  supervariables merged up to %" PetscInt_FMT "..%" PetscInt_FMT " rows, by rank (rank 0: %s)\n", -gb[0], gb[1], jac->merge_why[0] ? jac->merge_why : "-pc_vbjacobi_max_block_size"));
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  number of blocks: %" PetscInt_FMT " over %" PetscInt_FMT " rows; block sizes: min %" PetscInt_FMT ", mean %.2f, max %" PetscInt_FMT "\n", global[0], N, global[0] ? gkmin : 0, global[0] ? (double)N / (double)global[0] : 0.0, gkmax));
    line[0] = 0;
    for (PetscInt k = 1; k <= PC_VBJACOBI_MAX_BLOCK_SIZE; k++) {
      if (!ghist[k]) continue;
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %" PetscInt_FMT ":%" PetscInt_FMT, k, ghist[k]));
      PetscCall(PetscStrlen(line, &len));
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  block-size histogram (size:count):%s\n", line));
    PetscInt64 gstored = ginv_len * (PetscInt64)sizeof(PetscScalar), gmeta = 0;

    if (jac->blocks.precision == PC_VBJACOBI_PRECISION_DOUBLE || jac->failed)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  inverses stored: %" PetscInt64_FMT " bytes (%" PetscInt64_FMT " scalars)\n", ginv_len * (PetscInt64)sizeof(PetscScalar), ginv_len));
    else { /* the bytes holding values, and the blocks and rows of each type (the host copy of the types is made here) */ PetscInt lc[6], gc[6];
      PetscInt64                                                                                                                   lb[2], gb[2];

      PetscCall(PCVBJacobiBlocksGetPrecisions(&jac->blocks, lc, lc + 3, &lb[0], NULL));
      lb[1] = (PetscInt64)jac->blocks.nblocks * (PetscInt64)(sizeof(short) + (jac->blocks.precision == PC_VBJACOBI_PRECISION_ADAPTIVE ? 1 : 0));
      PetscCallMPI(MPIU_Allreduce(lc, gc, 6, MPIU_INT, MPI_SUM, comm));
      PetscCallMPI(MPIU_Allreduce(lb, gb, 2, MPIU_INT64, MPI_SUM, comm));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  inverses stored: %" PetscInt64_FMT " bytes holding values (%.3g of the %" PetscInt64_FMT " of FP64), plus %" PetscInt64_FMT " bytes of per-block types and scales%s\n", gb[0], ginv_len ? (double)gb[0] / (8.0 * (double)ginv_len) : 0.0, ginv_len * 8, gb[1],
                                       jac->blocks.precision == PC_VBJACOBI_PRECISION_ADAPTIVE ? "; each block at the start of an FP64 slot, and on the GPU a compact copy grouped by type, which the apply reads" : ""));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  precision histogram (blocks/rows): double %" PetscInt_FMT "/%" PetscInt_FMT ", single %" PetscInt_FMT "/%" PetscInt_FMT ", half %" PetscInt_FMT "/%" PetscInt_FMT "\n", gc[0], gc[3], gc[1], gc[4], gc[2], gc[5]));
      if (jac->precision == PC_VBJACOBI_PRECISION_HALF || jac->precision == PC_VBJACOBI_PRECISION_SINGLE) { /* the blocks stored in a type wider than the one asked for */
        const PetscBool half = (PetscBool)(jac->precision == PC_VBJACOBI_PRECISION_HALF);

        PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks widened beyond %s: %" PetscInt_FMT " (%" PetscInt_FMT " rows), whose inverses %s cannot hold\n", PCVBJacobiPrecisions[jac->precision], gc[0] + (half ? gc[1] : 0), gc[3] + (half ? gc[4] : 0),
                                         PCVBJacobiPrecisions[jac->precision]));
      }
      gstored = gb[0];
      gmeta   = gb[1];
    }
    /* what one apply moves (the flops are logged with PetscLogFlops/PetscLogGpuFlops: 2 sum k^2) */
    gmeta += 12 * (PetscInt64)global[0]; /* starts (4) and inverse offsets (8) of each block */
    PetscCall(PetscViewerASCIIPrintf(viewer, "  an apply moves %" PetscInt64_FMT " bytes (inverses %" PetscInt64_FMT ", vectors %" PetscInt64_FMT ", block metadata %" PetscInt64_FMT ") for %" PetscInt64_FMT " flops\n", gstored + 16 * (PetscInt64)N + gmeta, gstored, 16 * (PetscInt64)N, gmeta, 2 * ginv_len));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  setup ran on: %s; time: detection %.3g s, extraction+inversion %.3g s (max over ranks)\n", jac->setup_where, (double)tmax[0], (double)tmax[1]));
    if (jac->setup_on_gpu) PetscCall(PetscViewerASCIIPrintf(viewer, "  setup kernel: %s (extraction %s)\n", jac->blocks.dev->kernel, PCVBJacobiExtractions[jac->blocks.dev->extraction_used]));
    PetscCall(PetscBlockGPUDeviceAvailable(&avail));
    if (jac->use_gpu && avail) {
      char kernel[256];

      PetscCall(PCVBJacobiApplyKernelName_CUDA(&jac->blocks, kernel, sizeof(kernel)));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  apply runs on: GPU for device vectors (%s%s), host otherwise\n", kernel, jac->setup_on_gpu ? "" : "; the inverses are copied to the device at the first such apply"));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "  apply runs on: host\n"));
    if (global[1]) PetscCall(PetscViewerASCIIPrintf(viewer, "  singular blocks replaced by the identity: %" PetscInt_FMT "\n", global[1]));
    if (jac->failed) PetscCall(PetscViewerASCIIPrintf(viewer, "  SETUP FAILED: %s\n", jac->failure));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_VBJacobi(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_VBJacobi             *jac   = (PC_VBJacobi *)pc->data;
  PetscInt                 maxbs = jac->max_block_size;
  PetscBool                flg;
  PCVBJacobiBlocking       blocking = jac->blocking;
  PCVBJacobiSingularPolicy singular = jac->singular;
  PCVBJacobiPrecision      prec     = jac->precision;
  PetscReal                tol      = jac->precision_tol;

  PetscFunctionBegin;
  /* the options that change the blocks or the inverses go through their setters, which make the next PCSetUp() set up
     again when the value changes: an option given after a setup (KSPSetFromOptions() between two solves) takes effect */
  PetscOptionsHeadBegin(PetscOptionsObject, "Variable-size block Jacobi options");
  PetscCall(PetscOptionsRangeInt("-pc_vbjacobi_max_block_size", "Largest diagonal block (supervariables are merged up to this size)", "PCVBJacobiSetMaxBlockSize", maxbs, &maxbs, &flg, 1, PC_VBJACOBI_MAX_BLOCK_SIZE));
  if (flg) PetscCall(PCVBJacobiSetMaxBlockSize(pc, maxbs));
  PetscCall(PetscOptionsEnum("-pc_vbjacobi_blocking", "Where the blocks come from: supervariable (natural ones merged up to the bound, the paper's), natural (runs of identical rows), matrix (block size), variable (MatSetVariableBlockSizes), auto", "PCVBJacobiSetBlocking", PCVBJacobiBlockings,
                             (PetscEnum)jac->blocking, (PetscEnum *)&blocking, &flg));
  if (flg) PetscCall(PCVBJacobiSetBlocking(pc, blocking));
  PetscCall(PetscOptionsEnum("-pc_vbjacobi_singular", "What to do with a singular diagonal block", "PCVBJacobiSetSingularPolicy", PCVBJacobiSingularPolicies, (PetscEnum)jac->singular, (PetscEnum *)&singular, &flg));
  if (flg) PetscCall(PCVBJacobiSetSingularPolicy(pc, singular));
  PetscCall(PetscOptionsEnum("-pc_vbjacobi_extraction", "How the GPU setup reads the blocks from the matrix", "PCVBJACOBI", PCVBJacobiExtractions, (PetscEnum)jac->extraction, (PetscEnum *)&jac->extraction, NULL));
  PetscCall(PetscOptionsEnum("-pc_vbjacobi_precision", "Storage of the inverses (computed in double, applied accumulating in double): double, single, half, or adaptive (per block, from its condition estimate)", "PCVBJacobiSetPrecision", PCVBJacobiPrecisions,
                             (PetscEnum)jac->precision, (PetscEnum *)&prec, &flg));
  if (flg) PetscCall(PCVBJacobiSetPrecision(pc, prec));
  PetscCall(PetscOptionsReal("-pc_vbjacobi_precision_tol", "Adaptive storage: a block is stored in half (single) when its condition estimate ||A||_1 ||A^{-1}||_1 times 2^-11 (2^-24) is below this", "PCVBJacobiSetPrecisionTolerance", jac->precision_tol, &tol, &flg));
  /* the setter takes PETSC_DEFAULT (-2) and PETSC_DETERMINE (-1) as the default; from the options database a negative
     number is a mistake, refused like any other non-positive one */
  PetscCheck(!flg || (tol > 0.0 && !PetscIsInfOrNanReal(tol)), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_vbjacobi_precision_tol %g must be positive and finite (default %g)", (double)tol, (double)PC_VBJACOBI_PRECISION_TOL_DEFAULT);
  if (flg) PetscCall(PCVBJacobiSetPrecisionTolerance(pc, tol));
  PetscCall(PetscOptionsBool("-pc_vbjacobi_richardson", "PCApplyRichardson() (KSPRICHARDSON with scale 1, a multigrid smoother) by damped block Jacobi sweeps of our own, each one fused kernel on the GPU (x += damping D^-1 (b - A x)); they run the KSP's iteration count and test no tolerance, as PCSOR's; false: KSPRICHARDSON's own loop", "PCVBJACOBI",
                             jac->richardson, &jac->richardson, NULL));
  PetscCall(PetscOptionsReal("-pc_vbjacobi_richardson_damping", "Damping of the sweeps of -pc_vbjacobi_richardson (elasticity needs about 0.6)", "PCVBJACOBI", jac->richardson_damping, &jac->richardson_damping, &flg));
  PetscCheck(!flg || (jac->richardson_damping > 0.0 && jac->richardson_damping < 2.0), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_vbjacobi_richardson_damping %g must be in (0, 2)", (double)jac->richardson_damping);
  pc->ops->applyrichardson = jac->richardson ? PCApplyRichardson_VBJacobi : NULL;
  PetscCall(PetscOptionsBool("-pc_vbjacobi_chebyshev", "KSPCHEBYSHEV (first kind, no residual norm: a multigrid smoother) with this PC: each step one fused kernel on the GPU, y_k+1 = w (y_k + s D^-1 (b - A y_k)) + (1 - w) y_k-1, where the Richardson sweep fuses; false: KSPCHEBYSHEV's own loop", "PCVBJACOBI",
                             jac->chebyshev, &jac->chebyshev, NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCApplyChebyshevSweeps_C", jac->chebyshev ? PCApplyChebyshevSweeps_VBJacobi : NULL));
  {
    const char *sweep_precisions[] = {"double", "single"};
    PetscInt    which              = jac->sweep_single ? 1 : 0;

    PetscCall(PetscOptionsEList("-pc_vbjacobi_sweep_precision", "The matrix values the fused sweeps (Richardson, Chebyshev) read: double (the matrix's own) or single (a copy rounded to single precision, half the bytes; sums and inverses stay double)", "PCVBJACOBI", sweep_precisions, 2, sweep_precisions[which], &which, NULL));
    jac->sweep_single = (PetscBool)(which == 1);
  }
  PetscCall(PetscOptionsInt("-pc_vbjacobi_sweep_lanes", "Lanes a block row in the fused sweep kernel: 8, 16 or 32; 0 chooses from the mean row length", "PCVBJACOBI", jac->sweep_lanes, &jac->sweep_lanes, &flg));
  PetscCheck(!flg || jac->sweep_lanes == 0 || jac->sweep_lanes == 8 || jac->sweep_lanes == 16 || jac->sweep_lanes == 32, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_vbjacobi_sweep_lanes %" PetscInt_FMT ": 0 (auto), 8, 16 or 32",
             jac->sweep_lanes);
  PetscCall(PetscOptionsBool("-pc_vbjacobi_use_gpu", "Set up on the GPU when the matrix lives there (aijcusparse, baijksparse), apply on it when the vectors do", "PCVBJACOBI", jac->use_gpu, &jac->use_gpu, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetMaxBlockSize_VBJacobi(PC pc, PetscInt maxbs)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(maxbs >= 1 && maxbs <= PC_VBJACOBI_MAX_BLOCK_SIZE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI maximum block size %" PetscInt_FMT " is outside 1..%d", maxbs, PC_VBJACOBI_MAX_BLOCK_SIZE);
  if (maxbs != jac->max_block_size) { /* find the blocks again, at the next PCSetUp() */
    jac->rows_detected = -1;
    pc->setupcalled    = PETSC_FALSE;
  }
  jac->max_block_size     = maxbs;
  jac->max_block_size_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetMaxBlockSize_VBJacobi(PC pc, PetscInt *maxbs)
{
  PetscFunctionBegin;
  *maxbs = ((PC_VBJacobi *)pc->data)->max_block_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetBlocking_VBJacobi(PC pc, PCVBJacobiBlocking blocking)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(blocking >= PC_VBJACOBI_BLOCKING_AUTO && blocking <= PC_VBJACOBI_BLOCKING_NATURAL, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCVBJacobiBlocking %d", (int)blocking);
  if (blocking != jac->blocking) { /* find the blocks again, at the next PCSetUp() */
    jac->rows_detected = -1;
    pc->setupcalled    = PETSC_FALSE;
  }
  jac->blocking = blocking;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetBlocking_VBJacobi(PC pc, PCVBJacobiBlocking *blocking)
{
  PetscFunctionBegin;
  *blocking = ((PC_VBJacobi *)pc->data)->blocking;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetSingularPolicy_VBJacobi(PC pc, PCVBJacobiSingularPolicy policy)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(policy >= PC_VBJACOBI_SINGULAR_ERROR && policy <= PC_VBJACOBI_SINGULAR_IDENTITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCVBJacobiSingularPolicy %d", (int)policy);
  if (policy != jac->singular) pc->setupcalled = PETSC_FALSE; /* the next PCSetUp() inverts again (a failed setup recovers) */
  jac->singular = policy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetSingularPolicy_VBJacobi(PC pc, PCVBJacobiSingularPolicy *policy)
{
  PetscFunctionBegin;
  *policy = ((PC_VBJacobi *)pc->data)->singular;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetPrecision_VBJacobi(PC pc, PCVBJacobiPrecision precision)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(precision >= PC_VBJACOBI_PRECISION_DOUBLE && precision <= PC_VBJACOBI_PRECISION_ADAPTIVE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCVBJacobiPrecision %d", (int)precision);
  if (precision != jac->precision) pc->setupcalled = PETSC_FALSE; /* the next PCSetUp() stores the inverses again (the blocks are kept) */
  jac->precision = precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetPrecision_VBJacobi(PC pc, PCVBJacobiPrecision *precision)
{
  PetscFunctionBegin;
  *precision = ((PC_VBJacobi *)pc->data)->precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetPrecisionTolerance_VBJacobi(PC pc, PetscReal tol)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  if (tol == (PetscReal)PETSC_DEFAULT || tol == (PetscReal)PETSC_DETERMINE) tol = PC_VBJACOBI_PRECISION_TOL_DEFAULT;
  PetscCheck(tol > 0.0 && !PetscIsInfOrNanReal(tol), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI precision tolerance %g must be positive and finite", (double)tol);
  if (tol != jac->precision_tol && jac->precision == PC_VBJACOBI_PRECISION_ADAPTIVE) pc->setupcalled = PETSC_FALSE;
  jac->precision_tol = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetPrecisionTolerance_VBJacobi(PC pc, PetscReal *tol)
{
  PetscFunctionBegin;
  *tol = ((PC_VBJacobi *)pc->data)->precision_tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetBlockPrecisions_VBJacobi(PC pc, PetscInt counts[], const unsigned char *prec[], PetscInt64 *bytes)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() before PCVBJacobiGetBlockPrecisions()");
  PetscCheck(!jac->failed, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCVBJACOBI: the setup failed (%s): no inverses are stored", jac->failure);
  PetscCall(PCVBJacobiBlocksGetPrecisions(&jac->blocks, counts, NULL, bytes, prec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetBlocks_VBJacobi(PC pc, PetscInt *nblocks, const PetscInt *starts[])
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() before PCVBJacobiGetBlocks()");
  if (nblocks) *nblocks = jac->blocks.nblocks;
  if (starts) PetscCall(PCVBJacobiBlocksGetHostStarts(&jac->blocks, starts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetInverses_VBJacobi(PC pc, const PetscScalar *inv[])
{
  PetscFunctionBegin;
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() before PCVBJacobiGetInverses()");
  PetscCall(PCVBJacobiBlocksGetHostInversesDouble(&((PC_VBJacobi *)pc->data)->blocks, inv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetMaxBlockSize - Sets the largest diagonal block of `PCVBJACOBI`; supervariable blocking merges adjacent
  supervariables up to this size, and cuts longer runs of identical rows at it.

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- maxbs - the maximum block size, 1 to 32 (default 32)

  Options Database Key:
. -pc_vbjacobi_max_block_size <maxbs> - the maximum block size

  Level: intermediate

  Note:
  A change after a setup (by this call or by the option and `PCSetFromOptions()`) takes effect at the next `PCSetUp()`:
  the blocks are found again.

.seealso: `PCVBJACOBI`, `PCVBJacobiGetMaxBlockSize()`, `PCVBJacobiSetBlocking()`
@*/
PetscErrorCode PCVBJacobiSetMaxBlockSize(PC pc, PetscInt maxbs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, maxbs, 2);
  PetscTryMethod(pc, "PCVBJacobiSetMaxBlockSize_C", (PC, PetscInt), (pc, maxbs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetMaxBlockSize - Gets the largest diagonal block of `PCVBJACOBI`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. maxbs - the maximum block size

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetMaxBlockSize()`
@*/
PetscErrorCode PCVBJacobiGetMaxBlockSize(PC pc, PetscInt *maxbs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(maxbs, 2);
  PetscUseMethod(pc, "PCVBJacobiGetMaxBlockSize_C", (PC, PetscInt *), (pc, maxbs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetBlocking - Sets where the diagonal blocks of `PCVBJACOBI` come from.

  Logically Collective

  Input Parameters:
+ pc       - the preconditioner context
- blocking - `PC_VBJACOBI_BLOCKING_AUTO` (default), `PC_VBJACOBI_BLOCKING_SUPERVARIABLE`, `PC_VBJACOBI_BLOCKING_NATURAL`,
             `PC_VBJACOBI_BLOCKING_MATRIX` or `PC_VBJACOBI_BLOCKING_VARIABLE`

  Options Database Key:
. -pc_vbjacobi_blocking <auto,supervariable,matrix,variable,natural> - the source of the blocks

  Level: intermediate

  Note:
  `PC_VBJACOBI_BLOCKING_AUTO` takes, in this order:
  - the sizes set with `MatSetVariableBlockSizes()` when every rank has them and none exceeds the maximum block size;
  - the matrix block size (> 1, within the maximum) when the matrix is known symmetric, Hermitian or SPD
    (`MatSetOption()`), or when the PC is a multigrid level smoother (options prefix with "mg_levels_"): merged blocks
    lost there (3-D elasticity with CG: 818 iterations merged against 515; a geometric-multigrid smoother: slower
    merged than pbjacobi; a divergent GAMG V-cycle on a nonsymmetric problem; measured: doc/benchmarks.md,
    "Measurements behind design choices");
  - else supervariables merged up to the maximum block size: on a matrix with a block size > 1 its block rows are
    natural supervariables, so neighbouring matrix blocks are merged, which takes 17-23% fewer iterations on the
    nonsymmetric flows (driven cavity, Gray-Scott) and was measured faster to solve on most of bench_solve's block
    matrices.
  `-pc_view` says which source the setup took and why. A change after a setup (by this call or by the option and
  `PCSetFromOptions()`) takes effect at the next `PCSetUp()`: the blocks are found again.

.seealso: `PCVBJACOBI`, `PCVBJacobiBlocking`, `PCVBJacobiSetMaxBlockSize()`, `MatSetVariableBlockSizes()`
@*/
PetscErrorCode PCVBJacobiSetBlocking(PC pc, PCVBJacobiBlocking blocking)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, blocking, 2);
  PetscTryMethod(pc, "PCVBJacobiSetBlocking_C", (PC, PCVBJacobiBlocking), (pc, blocking));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetBlocking - Gets where the diagonal blocks of `PCVBJACOBI` come from, as requested.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. blocking - the requested source of the blocks

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetBlocking()`
@*/
PetscErrorCode PCVBJacobiGetBlocking(PC pc, PCVBJacobiBlocking *blocking)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(blocking, 2);
  PetscUseMethod(pc, "PCVBJacobiGetBlocking_C", (PC, PCVBJacobiBlocking *), (pc, blocking));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetSingularPolicy - Sets what `PCVBJACOBI` does with a diagonal block that has a zero or tiny pivot.

  Logically Collective

  Input Parameters:
+ pc     - the preconditioner context
- policy - `PC_VBJACOBI_SINGULAR_ERROR` (default) or `PC_VBJACOBI_SINGULAR_IDENTITY`

  Options Database Key:
. -pc_vbjacobi_singular <error,identity> - the policy

  Level: intermediate

  Notes:
  With `PC_VBJACOBI_SINGULAR_ERROR` the setup fails on every rank with `PC_SETUP_ERROR`, so that `KSPSolve()` stops
  with `KSP_DIVERGED_PC_FAILED`; with `KSPSetErrorIfNotConverged()` it raises an error naming the block and its global
  rows. A block holding NaN or Inf always fails the setup, whatever the policy.

  A change after a setup (by this call or by the option and `PCSetFromOptions()`) takes effect at the next `PCSetUp()`,
  which inverts the blocks again: a setup failed on a singular block recovers with `PC_VBJACOBI_SINGULAR_IDENTITY`.

.seealso: `PCVBJACOBI`, `PCVBJacobiSingularPolicy`
@*/
PetscErrorCode PCVBJacobiSetSingularPolicy(PC pc, PCVBJacobiSingularPolicy policy)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, policy, 2);
  PetscTryMethod(pc, "PCVBJacobiSetSingularPolicy_C", (PC, PCVBJacobiSingularPolicy), (pc, policy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetSingularPolicy - Gets what `PCVBJACOBI` does with a singular diagonal block.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. policy - the policy

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetSingularPolicy()`
@*/
PetscErrorCode PCVBJacobiGetSingularPolicy(PC pc, PCVBJacobiSingularPolicy *policy)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(policy, 2);
  PetscUseMethod(pc, "PCVBJacobiGetSingularPolicy_C", (PC, PCVBJacobiSingularPolicy *), (pc, policy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCVBJacobiGetBlocks - Gets the diagonal blocks that `PCVBJACOBI` found on this rank.

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ nblocks - the number of local blocks
- starts  - `nblocks`+1 local row offsets: block b holds local rows starts[b] to starts[b+1]-1; owned by the `PC`

  Level: advanced

.seealso: `PCVBJACOBI`, `PCVBJacobiGetInverses()`
@*/
PetscErrorCode PCVBJacobiGetBlocks(PC pc, PetscInt *nblocks, const PetscInt *starts[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCVBJacobiGetBlocks_C", (PC, PetscInt *, const PetscInt *[]), (pc, nblocks, starts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCVBJacobiGetInverses - Gets the inverses of the local diagonal blocks of `PCVBJACOBI`, on the host.

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameter:
. inv - the inverses one after the other in block order, each k x k in column-major order; owned by the `PC`

  Level: advanced

  Note:
  Always double: with reduced storage (`PCVBJacobiSetPrecision()`) these are the stored values converted to double
  (exactly, each block's power-of-two scale applied), i.e. the inverses the apply uses; the conversion is made once
  per setup, on the host.

.seealso: `PCVBJACOBI`, `PCVBJacobiGetBlocks()`, `PCVBJacobiGetBlockPrecisions()`
@*/
PetscErrorCode PCVBJacobiGetInverses(PC pc, const PetscScalar *inv[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(inv, 2);
  PetscUseMethod(pc, "PCVBJacobiGetInverses_C", (PC, const PetscScalar *[]), (pc, inv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetPrecision - Sets the floating-point type in which `PCVBJACOBI` stores the inverses of its diagonal blocks.

  Logically Collective

  Input Parameters:
+ pc        - the preconditioner context
- precision - `PC_VBJACOBI_PRECISION_DOUBLE` (default), `PC_VBJACOBI_PRECISION_SINGLE`, `PC_VBJACOBI_PRECISION_HALF` or
              `PC_VBJACOBI_PRECISION_ADAPTIVE`

  Options Database Key:
. -pc_vbjacobi_precision <double,single,half,adaptive> - the storage

  Level: intermediate

  Notes:
  The inverses are always computed in double, and the apply (plain and transposed, host and GPU) reads the stored type,
  accumulates in double and leaves the vectors in double: only the bytes the apply reads change (4 or 2 instead of 8
  per entry). Single and half store each block scaled by a power of two (its largest entry in [0.5, 1)), so that no
  block overflows half (|entry| > 65504).

  Single and half are the narrowest type a block is stored in, not a promise for every block: rounding each entry
  perturbs the stored inverse S so that ||I - S A||_1 is about u cond_1(A), and once that nears 1, S can be singular (an
  inverse spanning more than 2^24 in magnitude even loses entries to zero in half) and a left-preconditioned solve can
  report convergence to a wrong answer. A block whose condition estimate ||A||_1 ||A^{-1}||_1 times u (2^-11 for half,
  2^-24 for single) is 1/2 or more takes the next wider type that holds it (half: cond_1 < 1024, single: cond_1 < 8.4e6),
  else double. The setup then keeps each block in its own type as adaptive does (layout below; found in a first pass
  over the compact layout, so that a matrix whose blocks all fit pays nothing). `-pc_view` shows the histogram.

  Adaptive stores each block in the lowest of half, single and double whose unit roundoff (2^-11, 2^-24) times the
  block's condition estimate ||A||_1 ||A^{-1}||_1 is below the tolerance (`PCVBJacobiSetPrecisionTolerance()`; and
  below 1/2, whatever the tolerance), as in
  Flegar, Anzt, Cojean and Quintana-Orti, ACM TOMS 2021; the host and the GPU make the same choice (up to blocks whose
  estimate is within a few ulps of a threshold). The setup stores each block at the start of an FP64 slot (the layout
  of double); on the GPU the blocks are then grouped by type into a compact copy (half, then single, then double), and
  the apply reads each group in its own type, a thread block on blocks of one type. The device memory used is that
  of double plus the compact copy.

  A change takes effect at the next `PCSetUp()` (the blocks are kept; only the inverses are stored again).

.seealso: `PCVBJACOBI`, `PCVBJacobiPrecision`, `PCVBJacobiGetPrecision()`, `PCVBJacobiSetPrecisionTolerance()`, `PCVBJacobiGetBlockPrecisions()`
@*/
PetscErrorCode PCVBJacobiSetPrecision(PC pc, PCVBJacobiPrecision precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, precision, 2);
  PetscTryMethod(pc, "PCVBJacobiSetPrecision_C", (PC, PCVBJacobiPrecision), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetPrecision - Gets the floating-point type in which `PCVBJACOBI` stores its inverses.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. precision - the storage

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecision()`
@*/
PetscErrorCode PCVBJacobiGetPrecision(PC pc, PCVBJacobiPrecision *precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(precision, 2);
  PetscUseMethod(pc, "PCVBJacobiGetPrecision_C", (PC, PCVBJacobiPrecision *), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetPrecisionTolerance - Sets the tolerance of the adaptive storage of `PCVBJACOBI`.

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- tol - a block is stored in half when cond * 2^-11 < tol, else in single when cond * 2^-24 < tol, else in double
        (cond = ||A||_1 ||A^{-1}||_1; a tolerance above 1/2 counts as 1/2, the most a type can hold); `PETSC_DEFAULT`
        restores the default 0.1

  Options Database Key:
. -pc_vbjacobi_precision_tol <tol> - the tolerance

  Level: advanced

  Note:
  The default 0.1 (Ginkgo's) keeps ||A^{-1}_stored A - I||_1, the distance of a preconditioned diagonal block from the
  identity, below about 10%: half for cond < 205, single for cond < 1.7e6.

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecision()`
@*/
PetscErrorCode PCVBJacobiSetPrecisionTolerance(PC pc, PetscReal tol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, tol, 2);
  PetscTryMethod(pc, "PCVBJacobiSetPrecisionTolerance_C", (PC, PetscReal), (pc, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetPrecisionTolerance - Gets the tolerance of the adaptive storage of `PCVBJACOBI`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. tol - the tolerance

  Level: advanced

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecisionTolerance()`
@*/
PetscErrorCode PCVBJacobiGetPrecisionTolerance(PC pc, PetscReal *tol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(tol, 2);
  PetscUseMethod(pc, "PCVBJacobiGetPrecisionTolerance_C", (PC, PetscReal *), (pc, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCVBJacobiGetBlockPrecisions - Gets the type in which `PCVBJACOBI` stored each local inverse.

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up (without failure)

  Output Parameters:
+ counts - (optional) array of 3: the local blocks stored in double, single and half
. prec   - (optional) the type of each local block, `PC_VBJACOBI_PRECISION_DOUBLE`, `_SINGLE` or `_HALF` as unsigned char;
           owned by the `PC`
- bytes  - (optional) the bytes holding the local inverses' values

  Level: advanced

  Note:
  After a GPU setup the types are copied to the host here (once); a GPU test compares them with those of the same PC
  set up on the host.

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecision()`
@*/
PetscErrorCode PCVBJacobiGetBlockPrecisions(PC pc, PetscInt counts[], const unsigned char *prec[], PetscInt64 *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCVBJacobiGetBlockPrecisions_C", (PC, PetscInt[], const unsigned char *[], PetscInt64 *), (pc, counts, prec, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  PCVBJACOBI - "vbjacobi" - variable-size block Jacobi: the inverses of diagonal blocks of 1 to 32 rows, found
  automatically, applied as a batched block-diagonal product.

  Options Database Keys:
+ -pc_vbjacobi_max_block_size <32>                          - largest block, 1 to 32; when set, also the bound of the merge
. -pc_vbjacobi_blocking <auto,supervariable,matrix,variable,natural> - where the blocks come from (default auto)
. -pc_vbjacobi_singular <error,identity>                     - what to do with a singular block (default error)
. -pc_vbjacobi_extraction <auto,cached,shared>              - how the GPU setup reads a block: each thread its own row,
                                                               or the (sub-)warp a row at a time through shared memory
. -pc_vbjacobi_precision <double,single,half,adaptive>       - the type the inverses are stored in (default double); computed
                                                               and applied in double either way
. -pc_vbjacobi_precision_tol <0.1>                           - adaptive: half when cond_1 * 2^-11 < tol, single when
                                                               cond_1 * 2^-24 < tol, else double
- -pc_vbjacobi_use_gpu <true>                                - set up on the GPU when the matrix lives there, apply on
                                                               it when the vectors do

  Level: intermediate

  Notes:
  The blocks come from `MatSetVariableBlockSizes()`, from the matrix block size (`MATBAIJ`, `MatSetBlockSize()`),
  or from the paper's supervariable blocking: natural supervariables (runs of consecutive rows with identical column
  patterns, cut at the maximum block size), then adjacent ones merged greedily while the merged block stays within a
  bound, so that blocks grow with the bound (`natural` keeps the unmerged supervariables). The bound is the maximum
  block size when the user sets one (`PCVBJacobiSetMaxBlockSize()`); else each rank picks it from its diagonal part,
  because larger blocks take fewer iterations but each apply then reads more (k values a row for blocks of k rows,
  against about nnz/n for a product with the matrix): below 2^18 local rows (an iteration costs launch latency more
  than bytes) the maximum, 32; above, the largest power of two within half the mean row length, at least 8 and the
  matrix block size (8 for 2-D stencils with 2 or 4 fields, 32 for 3-D ones with 3 and more). Measured (issue 22):
  ts ex5 1024^2 KSPSolve faster at bound 8 than at 32 with BiCGStab and with `KSPIDRS`; snes ex19 512^2 too
  (BiCGStab); the Table 1 matrices of the paper (at most 12k rows) keep 32, where they take up to 2x fewer iterations
  than at 8 (measured: doc/benchmarks.md, "Measurements behind design choices"). `-pc_view` shows the bound and why.
  Each block is inverted by Gauss-Jordan elimination with implicit pivoting (Anzt, Dongarra, Flegar and
  Quintana-Orti, Parallel Computing 2018). In parallel the blocks are those of the local diagonal part: they never
  cross ranks.

  Works with `MATAIJ`, `MATBAIJ`, `MATBAIJKSPARSE` and `MATAIJCUSPARSE` matrices. When the matrix lives on the GPU
  (`MATAIJCUSPARSE`, `MATBAIJKSPARSE`) and a GPU is present, the whole setup runs there: supervariable detection and
  agglomeration by parallel kernels, scans and pointer jumping, then one merged kernel per size class that extracts each block, inverts it in registers
  and stores the inverse. Otherwise the setup runs on the host. The apply runs where the vectors live: on the GPU a
  batched GEMV with one (sub-)warp per block (after a host setup the inverses are copied to the device once, at the first
  such apply), else on the host (after a GPU setup the inverses are copied to the host once).
  `-pc_view` shows the block statistics, the bytes stored, where the setup ran, the kernels and the time of each phase;
  with reduced storage (`PCVBJacobiSetPrecision()`) also the blocks and rows stored in each precision and the bytes an
  apply reads.

  As the smoother of `KSPRICHARDSON` (`-mg_levels_ksp_type richardson`, scale 1) it runs its own damped sweeps,
  x += d D^{-1} (b - A x) with d from `-pc_vbjacobi_richardson_damping` (default 1; elasticity needs about 0.6): on the
  GPU each sweep is one kernel that reads the matrix, the inverses and x once, where the blocks are the matrix's own
  (`MATBAIJKSPARSE` with block size 2-6 on one process, FP64 inverses); elsewhere a residual, an apply and an update.
  Like `PCSOR`'s, these sweeps run the KSP's iteration count and test no tolerance; `-pc_vbjacobi_richardson false`
  gives `KSPRICHARDSON` its own loop back. `-pc_vbjacobi_sweep_precision single` makes the fused sweeps read a copy of
  the matrix values rounded to single precision (about half the bytes a sweep moves; the sums and the inverses stay in
  double): a mixed-precision smoother, whose matrix the multigrid residuals and the outer Krylov method still apply in
  double. As the preconditioner of `KSPCHEBYSHEV` (first kind, no residual norm: GAMG's
  and PCMG's default smoother), each Chebyshev step is one such kernel too, y_{k+1} = w_k (y_k + s D^{-1} (b - A y_k)) +
  (1 - w_k) y_{k-1} with the KSP's eigenvalue bounds, under the same conditions; `-pc_vbjacobi_chebyshev false` gives
  `KSPCHEBYSHEV` its own loop back.

  A singular block fails the setup (`KSP_DIVERGED_PC_FAILED`) unless `-pc_vbjacobi_singular identity` is given;
  a block with NaN or Inf always does.

  Load with `-dll_append /path/to/libpetscblockgpu.so`, or link libpetscblockgpu and call
  `PetscBlockGPUInitializePackage()`.

.seealso: `PCCreate()`, `PCSetType()`, `PCVPBJACOBI`, `PCPBJACOBI`, `PCJACOBI`, `PCVBJacobiSetMaxBlockSize()`,
          `PCVBJacobiSetBlocking()`, `PCVBJacobiSetSingularPolicy()`, `PCVBJacobiGetBlocks()`
M*/
PetscErrorCode PCCreate_VBJacobi(PC pc)
{
  PC_VBJacobi *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  jac->max_block_size     = PC_VBJACOBI_MAX_BLOCK_SIZE;
  jac->blocking           = PC_VBJACOBI_BLOCKING_AUTO;
  jac->blocking_used      = PC_VBJACOBI_BLOCKING_AUTO;
  jac->singular           = PC_VBJACOBI_SINGULAR_ERROR;
  jac->extraction         = PC_VBJACOBI_EXTRACTION_AUTO;
  jac->use_gpu            = PETSC_TRUE;
  jac->precision          = PC_VBJACOBI_PRECISION_DOUBLE;
  jac->precision_tol      = PC_VBJACOBI_PRECISION_TOL_DEFAULT;
  jac->richardson         = PETSC_TRUE;
  jac->richardson_damping = 1.0;
  jac->richardson_fused   = -1;
  jac->chebyshev          = PETSC_TRUE;
  jac->chebyshev_fused    = -1;
  jac->rows_detected      = -1;
  pc->data                = (void *)jac;

  pc->ops->apply               = PCApply_VBJacobi;
  pc->ops->applytranspose      = PCApplyTranspose_VBJacobi;
  pc->ops->setup               = PCSetUp_VBJacobi;
  pc->ops->reset               = PCReset_VBJacobi;
  pc->ops->destroy             = PCDestroy_VBJacobi;
  pc->ops->setfromoptions      = PCSetFromOptions_VBJacobi;
  pc->ops->view                = PCView_VBJacobi;
  pc->ops->applyrichardson     = PCApplyRichardson_VBJacobi;
  pc->ops->applysymmetricleft  = NULL;
  pc->ops->applysymmetricright = NULL;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetMaxBlockSize_C", PCVBJacobiSetMaxBlockSize_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetMaxBlockSize_C", PCVBJacobiGetMaxBlockSize_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetBlocking_C", PCVBJacobiSetBlocking_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlocking_C", PCVBJacobiGetBlocking_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetSingularPolicy_C", PCVBJacobiSetSingularPolicy_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetSingularPolicy_C", PCVBJacobiGetSingularPolicy_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlocks_C", PCVBJacobiGetBlocks_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetInverses_C", PCVBJacobiGetInverses_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetPrecision_C", PCVBJacobiSetPrecision_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetPrecision_C", PCVBJacobiGetPrecision_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetPrecisionTolerance_C", PCVBJacobiSetPrecisionTolerance_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetPrecisionTolerance_C", PCVBJacobiGetPrecisionTolerance_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlockPrecisions_C", PCVBJacobiGetBlockPrecisions_VBJacobi));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCApplyChebyshevSweeps_C", jac->chebyshev ? PCApplyChebyshevSweeps_VBJacobi : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
