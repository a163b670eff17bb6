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

/* Chooses the source of the blocks, resolving AUTO the same way on every rank:
   - variable block sizes when every rank has usable ones;
   - the matrix block size (bs > 1, within the bound) when the matrix is known symmetric, Hermitian or SPD, or when the PC
     is a multigrid level smoother (options prefix with "mg_levels_"): merged blocks lost there. Issue 22 on an H100:
     3-D elasticity with CG 818 iterations merged against 515 with the matrix blocks (0.32 s against 0.17 s; ksp ex56 on
     the host: 196 against 114); vbjacobi as the level smoother of ex19's geometric multigrid 0.75 s merged against
     0.40 s for pbjacobi, and a divergent V-cycle of GAMG with a merged-block smoother on a nonsymmetric problem;
   - else the paper's supervariable blocking, also for matrices with a block size > 1 (their block rows are natural
     supervariables, merged up to the bound): on the nonsymmetric outer solves merging takes fewer iterations (ex19 96^2
     on the host: 490 against 587 with BiCGStab, 929 against 1126 with idrs; ts ex5 128^2: 962 against 1247 with GMRES),
     and bench_solve on an H100 (doc/benchmarks.md, "Time to solution") measured it faster on driven cavity, Gray-Scott, bar and LDG. */
PetscErrorCode PCVBJacobiResolveBlocking(PC pc, PCVBJacobiBlocking *how)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  Mat          A   = pc->pmat;

  PetscFunctionBegin;
  *how                 = jac->blocking;
  jac->blocking_why[0] = 0;
  if (*how == PC_VBJACOBI_BLOCKING_AUTO) {
    PetscInt        nb, usable, gusable, bs;
    const PetscInt *sizes;
    const char     *prefix;
    PetscBool       set, flg, symmetric = PETSC_FALSE, smoother;

    PetscCall(MatGetVariableBlockSizes(A, &nb, &sizes));
    usable = nb > 0;
    for (PetscInt b = 0; b < nb; b++)
      if (sizes[b] > jac->max_block_size) usable = 0;
    PetscCallMPI(MPIU_Allreduce(&usable, &gusable, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)pc)));
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
      PetscCall(PetscStrncpy(jac->blocking_why, symmetric ? "auto: the matrix is known symmetric, blocks not merged" : "auto: a multigrid level smoother, blocks not merged", sizeof(jac->blocking_why)));
    } else {
      *how = PC_VBJACOBI_BLOCKING_SUPERVARIABLE;
      PetscCall(PetscStrncpy(jac->blocking_why, "auto: merged supervariables", sizeof(jac->blocking_why)));
    }
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
    PetscCall(PCVBJacobiAgglomerate_Host(jac->max_block_size, nblocks, *starts));
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCVBJACOBI: unknown blocking %d", (int)how);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
