/* PCVBJACOBI: variable-size block Jacobi. Type, options, view, setup and apply, on the GPU or through the host path
   (vbjacobi_host.c); the public setters and getters are in vbjacobi_api.c.
   Algorithm: Anzt, Dongarra, Flegar, Quintana-Orti, "Variable-size batched Gauss-Jordan elimination for
   block-Jacobi preconditioning on graphics processors", Parallel Computing 2018. */
#include <../src/pc/vbjacobi/vbjacobicuda.h>

const char *const PCVBJacobiBlockings[]        = {"auto", "supervariable", "matrix", "variable", "natural", "PCVBJacobiBlocking", "PC_VBJACOBI_BLOCKING_", NULL};
const char *const PCVBJacobiSingularPolicies[] = {"error", "identity", "PCVBJacobiSingularPolicy", "PC_VBJACOBI_SINGULAR_", NULL};
const char *const PCVBJacobiExtractions[]      = {"auto", "cached", "shared", "PCVBJacobiExtraction", "PC_VBJACOBI_EXTRACTION_", NULL};
const char *const PCVBJacobiPrecisions[]       = {"double", "single", "half", "adaptive", "PCVBJacobiPrecision", "PC_VBJACOBI_PRECISION_", NULL};

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
  jac->sweep_fused_all = -1; /* the blocks and the matrix may have changed: asked again */
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
  else PetscCall(PCVBJacobiSetUp_Host(pc, redetect, &bad_block, &bad_info));
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
  PetscCall(PCVBJacobiApplyBlocks_Host(pc, x, y, transpose));
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
  PetscCall(PCVBJacobiComposeMethods_Private(pc, PETSC_FALSE));
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
  (`MATBAIJKSPARSE` with block size 2-6, on any number of processes, FP64 inverses); elsewhere a residual, an apply
  and an update.
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
  jac->sweep_fused_all    = -1;
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

  PetscCall(PCVBJacobiComposeMethods_Private(pc, PETSC_TRUE));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCApplyChebyshevSweeps_C", jac->chebyshev ? PCApplyChebyshevSweeps_VBJacobi : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
