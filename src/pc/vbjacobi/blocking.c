/* Block detection of PCVBJACOBI on the host: supervariables, the matrix block size, or variable block sizes. */
#include <../src/pc/vbjacobi/vbjacobiimpl.h>

/* Natural supervariables: runs of consecutive local rows whose column patterns are identical, cut into chunks of
   at most maxbs rows. The whole row is compared (global column indices, off-process columns included), so the
   blocks of a row range do not depend on how the matrix is split over ranks, except at rank boundaries. */
static PetscErrorCode DetectNaturalSupervariables(Mat A, PetscInt maxbs, PetscInt *nblocks, PetscInt **starts)
{
  PetscInt  rstart, rend, nb = 0, prev_nc = -1, run = 0, prev_cap = 0, *st, *prev = NULL;
  PetscBool has;

  PetscFunctionBegin;
  PetscCall(MatHasOperation(A, MATOP_GET_ROW, &has));
  PetscCheck(has, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "PCVBJACOBI supervariable blocking needs MatGetRow(), which matrix type %s lacks; use -pc_vbjacobi_blocking matrix|variable", ((PetscObject)A)->type_name);
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(PetscMalloc1(rend - rstart + 1, &st));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscBool       same;

    PetscCall(MatGetRow(A, r, &nc, &cols, NULL));
    same = (PetscBool)(r > rstart && nc == prev_nc);
    for (PetscInt c = 0; same && c < nc; c++) same = (PetscBool)(cols[c] == prev[c]);
    if (!same || run == maxbs) {
      st[nb++] = r - rstart;
      run      = 0;
    }
    run++;
    if (!same) {
      if (nc > prev_cap) {
        PetscCall(PetscFree(prev));
        prev_cap = PetscMax(nc, 2 * prev_cap);
        PetscCall(PetscMalloc1(prev_cap, &prev));
      }
      PetscCall(PetscArraycpy(prev, cols, nc));
      prev_nc = nc;
    }
    PetscCall(MatRestoreRow(A, r, &nc, &cols, NULL));
  }
  st[nb] = rend - rstart;
  PetscCall(PetscFree(prev));
  *nblocks = nb;
  *starts  = st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Agglomeration of the paper's supervariable blocking (MAGMA-sparse, Ginkgo): adjacent natural blocks merged
   greedily, from the first, while the merged block stays within maxbs rows. In place on starts[0..nblocks]. The GPU
   finds the same blocks in parallel (vbjacobi_blocks.cu): each natural block's successor is the furthest start within
   maxbs rows, and the chosen starts are those on the successor chain from block 0. */
PetscErrorCode PCVBJacobiAgglomerate_Host(PetscInt maxbs, PetscInt *nblocks, PetscInt *starts)
{
  PetscInt nb = 0, nunits = *nblocks;

  PetscFunctionBegin;
  for (PetscInt u = 0; u < nunits;) {
    PetscInt v = u + 1;

    while (v < nunits && starts[v + 1] - starts[u] <= maxbs) v++;
    starts[nb++] = starts[u];
    u            = v;
  }
  starts[nb] = starts[nunits];
  *nblocks   = nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Blocks of the sizes set with MatSetVariableBlockSizes(), checked against the local size and the cap (before anything
   is allocated). A size 0 is skipped, as PETSc's VPBJACOBI does: it holds no rows. */
static PetscErrorCode VariableBlocks(Mat A, PetscInt maxbs, PetscInt *nblocks, PetscInt **starts)
{
  PetscInt        nb, n, *st, nnz = 0, rows = 0;
  const PetscInt *sizes;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatGetVariableBlockSizes(A, &nb, &sizes));
  for (PetscInt b = 0; b < nb; b++) {
    PetscCheck(sizes[b] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: variable block %" PetscInt_FMT " has negative size %" PetscInt_FMT, b, sizes[b]);
    PetscCheck(sizes[b] <= maxbs, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: variable block %" PetscInt_FMT " has size %" PetscInt_FMT ", larger than the maximum block size %" PetscInt_FMT " (-pc_vbjacobi_max_block_size, at most %d)", b, sizes[b], maxbs, PC_VBJACOBI_MAX_BLOCK_SIZE);
    rows += sizes[b];
    nnz += sizes[b] > 0;
  }
  PetscCheck(rows == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCVBJACOBI: the variable block sizes add up to %" PetscInt_FMT " rows, but the matrix has %" PetscInt_FMT " local rows", rows, n);
  PetscCall(PetscMalloc1(nnz + 1, &st));
  st[0] = 0;
  for (PetscInt b = 0, j = 0; b < nb; b++)
    if (sizes[b] > 0) {
      st[j + 1] = st[j] + sizes[b];
      j++;
    }
  *nblocks = nnz;
  *starts  = st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix block size (BAIJ, or MatSetBlockSize() on AIJ), checked against the cap and the local size. */
PetscErrorCode PCVBJacobiMatrixBlockSize(Mat A, PetscInt maxbs, PetscInt *bs)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatGetBlockSize(A, bs));
  PetscCheck(*bs <= maxbs, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI: the matrix block size %" PetscInt_FMT " exceeds the maximum block size %" PetscInt_FMT " (-pc_vbjacobi_max_block_size, at most %d); use -pc_vbjacobi_blocking supervariable", *bs, maxbs, PC_VBJACOBI_MAX_BLOCK_SIZE);
  PetscCheck(n % *bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCVBJACOBI: %" PetscInt_FMT " local rows are not a multiple of the block size %" PetscInt_FMT, n, *bs);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Blocks of the matrix block size. */
static PetscErrorCode MatrixBlocks(Mat A, PetscInt maxbs, PetscInt *nblocks, PetscInt **starts)
{
  PetscInt bs, n, *st;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(PCVBJacobiMatrixBlockSize(A, maxbs, &bs));
  PetscCall(PetscMalloc1(n / bs + 1, &st));
  for (PetscInt b = 0; b <= n / bs; b++) st[b] = b * bs;
  *nblocks = n / bs;
  *starts  = st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bound up to which supervariable blocking merges, when the user set no maximum block size (each rank from its own
   diagonal part). The apply reads k values a row for blocks of k rows, against about nnz/n for the product with the
   matrix, so larger blocks, which take fewer iterations, make each iteration longer:
   - fewer than PC_VBJACOBI_BANDWIDTH_ROWS local rows: an iteration's time is launch latency rather than bytes, and
     the largest blocks take the fewest iterations: the maximum (32). bench_solve's Table 1 matrices (5k..12k rows,
     IDR(4)): bcsstk17 5072 iterations with blocks of up to 32 against 8999 with 8; bcsstk18 2924 against 6223;
   - more: the largest power of two within half the mean row length (the inverses read at most about half of what the
     product reads), at least PC_VBJACOBI_MERGE_FLOOR and the matrix block size. Issue 22
     (bench/results/tutorials_sweep_h200x4_s16.*), KSPSolve time with bounds 8 / 16 / 32: ts ex5 1024^2 (2M rows,
     10 nonzeros a row) fastest at 8 and slowest at 32 with BiCGStab, GMRES and idrs; snes ex19 512^2 (1M rows, 20 a
     row) slowest at 32 with BiCGStab, the three close with GMRES, fastest at 16 with idrs, and PETSc's idr converges
     at 8 and 32 but not at 16. The rule gives 8 to both.
     (measured: doc/benchmarks.md, "Measurements behind design choices") */
static PetscErrorCode AutoMergeBound(PC pc, PetscInt *bound)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  Mat          Ad;
  MatInfo      info;
  PetscInt     n, bs, k = 1;
  double       nzr;

  PetscFunctionBegin;
  PetscCall(MatGetDiagonalBlock(pc->pmat, &Ad));
  PetscCall(MatGetLocalSize(Ad, &n, NULL));
  PetscCall(MatGetBlockSize(pc->pmat, &bs));
  if (n < PC_VBJACOBI_BANDWIDTH_ROWS) {
    *bound = jac->max_block_size;
    PetscCall(PetscSNPrintf(jac->merge_why, sizeof(jac->merge_why), "auto: %" PetscInt_FMT " local rows, fewer than %d: the largest blocks", n, PC_VBJACOBI_BANDWIDTH_ROWS));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
  nzr = info.nz_used / (double)n;
  while (2 * k <= jac->max_block_size && 2.0 * k <= 0.5 * nzr) k *= 2;
  *bound = PetscMin(PetscMax(PetscMax(k, PC_VBJACOBI_MERGE_FLOOR), bs), jac->max_block_size);
  PetscCall(PetscSNPrintf(jac->merge_why, sizeof(jac->merge_why), "auto: %" PetscInt_FMT " local rows, %.1f nonzeros a row", n, nzr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Chooses the source of the blocks, resolving AUTO the same way on every rank:
   - variable block sizes when every rank has usable ones;
   - the matrix block size (bs > 1, within the bound) when the matrix is known symmetric, Hermitian or SPD, or when the PC
     is a multigrid level smoother (options prefix with "mg_levels_"): merged blocks lost there. Issue 22:
     3-D elasticity with CG 818 iterations merged against 515 with the matrix blocks (and slower to solve; ksp ex56 on
     the host: 196 against 114); vbjacobi as the level smoother of ex19's geometric multigrid slower merged than
     pbjacobi, and a divergent V-cycle of GAMG with a merged-block smoother on a nonsymmetric problem
     (measured: doc/benchmarks.md, "Measurements behind design choices");
   - else the paper's supervariable blocking, also for matrices with a block size > 1 (their block rows are natural
     supervariables, merged up to the bound): on the nonsymmetric outer solves merging takes fewer iterations (ex19 96^2
     on the host: 490 against 587 with BiCGStab, 929 against 1126 with idrs; ts ex5 128^2: 962 against 1247 with GMRES),
     and bench_solve (doc/benchmarks.md, "Time to solution") measured it faster on driven cavity, Gray-Scott, bar and LDG. */
PetscErrorCode PCVBJacobiResolveBlocking(PC pc, PCVBJacobiBlocking *how)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  Mat          A   = pc->pmat;

  PetscFunctionBegin;
  *how                 = jac->blocking;
  jac->blocking_why[0] = 0;
  if (*how == PC_VBJACOBI_BLOCKING_AUTO) {
    PetscInt        nb, usable, gusable, bs, v[3]; /* -usable, any set, the largest size: one reduction */
    const PetscInt *sizes;
    const char     *prefix;
    PetscBool       set, flg, symmetric = PETSC_FALSE, smoother;
    char            ignored[128] = "";

    PetscCall(MatGetVariableBlockSizes(A, &nb, &sizes));
    usable = nb > 0;
    v[2]   = 0;
    for (PetscInt b = 0; b < nb; b++) v[2] = PetscMax(v[2], sizes[b]);
    if (v[2] > jac->max_block_size) usable = 0;
    v[0] = -usable;
    v[1] = nb > 0;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, v, 3, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)pc)));
    gusable = -v[0];
    /* sizes that were set but cannot be used: say so in -pc_view, instead of ignoring them silently */
    if (!gusable && v[1]) {
      if (v[2] > jac->max_block_size) PetscCall(PetscSNPrintf(ignored, sizeof(ignored), "; the variable block sizes set are ignored: the largest, %" PetscInt_FMT ", exceeds the maximum block size %" PetscInt_FMT, v[2], jac->max_block_size));
      else PetscCall(PetscStrncpy(ignored, "; the variable block sizes set are ignored: not every rank has them", sizeof(ignored)));
    }
    PetscCall(MatGetBlockSize(A, &bs));
    PetscCall(MatIsSymmetricKnown(A, &set, &flg));
    symmetric = (PetscBool)(set && flg);
    if (!symmetric) {
      PetscCall(MatIsHermitianKnown(A, &set, &flg));
      symmetric = (PetscBool)(set && flg);
    }
    if (!symmetric) {
      PetscCall(MatIsSPDKnown(A, &set, &flg));
      symmetric = (PetscBool)(set && flg);
    }
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    smoother = (PetscBool)(prefix && strstr(prefix, "mg_levels_"));
    if (gusable) {
      *how = PC_VBJACOBI_BLOCKING_VARIABLE;
      PetscCall(PetscStrncpy(jac->blocking_why, "auto: the matrix has variable block sizes", sizeof(jac->blocking_why)));
    } else if (bs > 1 && bs <= jac->max_block_size && (symmetric || smoother)) {
      *how = PC_VBJACOBI_BLOCKING_MATRIX;
      PetscCall(PetscSNPrintf(jac->blocking_why, sizeof(jac->blocking_why), "%s%s", symmetric ? "auto: the matrix is known symmetric, blocks not merged" : "auto: a multigrid level smoother, blocks not merged", ignored));
    } else {
      *how = PC_VBJACOBI_BLOCKING_SUPERVARIABLE;
      PetscCall(PetscSNPrintf(jac->blocking_why, sizeof(jac->blocking_why), "auto: merged supervariables%s", ignored));
    }
  }
  /* the merge bound: the user's maximum block size, else chosen from the matrix */
  jac->merge_bound  = 0;
  jac->merge_why[0] = 0;
  if (*how == PC_VBJACOBI_BLOCKING_SUPERVARIABLE) {
    if (jac->max_block_size_set) jac->merge_bound = jac->max_block_size;
    else PetscCall(AutoMergeBound(pc, &jac->merge_bound));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Finds the blocks of the local rows on the host, from the source how (never AUTO). */
PetscErrorCode PCVBJacobiDetectBlocks_Host(PC pc, PCVBJacobiBlocking how, PetscInt *nblocks, PetscInt **starts)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  Mat          A   = pc->pmat;

  PetscFunctionBegin;
  switch (how) {
  case PC_VBJACOBI_BLOCKING_VARIABLE: {
    PetscInt        nb, n;
    const PetscInt *sizes;

    PetscCall(MatGetLocalSize(A, &n, NULL));
    PetscCall(MatGetVariableBlockSizes(A, &nb, &sizes));
    PetscCheck(nb > 0 || n == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCVBJACOBI: -pc_vbjacobi_blocking variable, but no block sizes were set with MatSetVariableBlockSizes()");
    PetscCall(VariableBlocks(A, jac->max_block_size, nblocks, starts));
  } break;
  case PC_VBJACOBI_BLOCKING_MATRIX:
    PetscCall(MatrixBlocks(A, jac->max_block_size, nblocks, starts));
    break;
  case PC_VBJACOBI_BLOCKING_NATURAL:
    PetscCall(DetectNaturalSupervariables(A, jac->max_block_size, nblocks, starts));
    break;
  case PC_VBJACOBI_BLOCKING_SUPERVARIABLE:
    PetscCall(DetectNaturalSupervariables(A, jac->max_block_size, nblocks, starts));
    PetscCall(PCVBJacobiAgglomerate_Host(jac->merge_bound, nblocks, *starts));
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCVBJACOBI: unknown blocking %d", (int)how);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
