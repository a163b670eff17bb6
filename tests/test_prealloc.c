static char help[] = "AIJ preallocation on MATBAIJKSPARSE (issue 38), against MATAIJ on the same insertions.\n"
                     "One random block pattern (per block row a random set of block columns: some rows empty, some long; dense\n"
                     "blocks, or with -scatter only some entries of most blocks) is built into R (MATAIJ, the reference, with\n"
                     "exact AIJ row counts, or MatSetUp() for -prealloc none) and into A (-mat_type, the type under test) with\n"
                     "the chosen preallocation. Both get the same calls: an ADD_VALUES phase, MAT_FLUSH_ASSEMBLY, an INSERT_VALUES\n"
                     "phase, MAT_FLUSH_ASSEMBLY, an ADD_VALUES phase, MAT_FINAL_ASSEMBLY; the calls mix MatSetValues (row-oriented,\n"
                     "column-oriented through MAT_ROW_ORIENTED false, a column given twice in one call, negative indices for the\n"
                     "entries a block lacks), MatSetValuesBlocked (both orientations) and entries of the rows of the next rank\n"
                     "(off-process). Then the values refilled (INSERT_VALUES, same pattern) and assembled again, then MatZeroEntries()\n"
                     "and a refill by ADD_VALUES. After each final assembly: max |A - R| (through MatConvert to MATAIJ) relative to\n"
                     "max |R| and MatMult on a random vector (of -vec_type) within 1e-13; R's nonzeros are the pattern's; for\n"
                     "baijksparse the -mat_view ::ascii_info line (read back from a file) gives the blocks reserved (must be the\n"
                     "count the rule gives: min(block columns of the part, ceil(largest row count of the block row / bs)) for\n"
                     "the AIJ counts passed), the blocks stored (the pattern's) and the mallocs (MatGetInfo(MAT_GLOBAL_SUM)'s):\n"
                     "exact counts on dense blocks 0 mallocs, reserved <= 2 x stored; fewer reserved than stored: mallocs > 0;\n"
                     "block counts: 0 mallocs; later assemblies of the same pattern add no malloc.\n"
                     "Options: -bs <3>, -nb <block rows a rank, 5; odd ranks get one more>, -seed <1>, -mat_type <baijksparse>,\n"
                     "  -vec_type <standard|cuda> (the vectors of MatMult), -scatter (entries that do not fill whole blocks),\n"
                     "  -prealloc aij|aij_over|aij_under|none|baij|baij_then_aij|xaij_then_aij (aij: exact counts; aij_over: 2 x + 3\n"
                     "  clipped to the row length, that of MPIAIJ for o_nnz: the global column count; aij_under: half; none:\n"
                     "  MatSetUp() only (on several ranks the middle phase adds: PETSc's MPI hash assembly cannot insert after adding\n"
                     "  across a flush); baij: MatSeq/MPIBAIJSetPreallocation() with exact block counts; baij_then_aij and\n"
                     "  xaij_then_aij: block counts (xaij: through MatXAIJSetPreallocation()), then AIJ counts of zero, ignored),\n"
                     "  -err negative|toolong|toolong_o|bs|bs_cols|allocerr|corrupt (negative: nnz[0] = -1; toolong: nnz[0] = local\n"
                     "  columns + 1; toolong_o: o_nnz[0] = global columns + 1 (2 ranks or more); bs: MatSetBlockSize(3) on local\n"
                     "  sizes 3 nb + 1; bs_cols: block sizes 3 x 1, local columns 3 nb + 1: the matrix is made AIJ, which takes the AIJ\n"
                     "  preallocation (not an error); allocerr:\n"
                     "  exact AIJ counts, after the first assembly MAT_NEW_NONZERO_ALLOCATION_ERR set to true and a block outside\n"
                     "  the pattern on each rank; corrupt: one entry of A perturbed by 1e-8 after the first assembly, which must print FAILED),\n"
                     "  -err_continue (the error of -err is caught (tests/test_refusal.h) and printed; the program goes on: for\n"
                     "  allocerr with the rest of the assembly, else it stops there, freeing what it made, and exits 0)\n";

#include <petscblockgpu.h>
#include <unistd.h>
#include "test_refusal.h"
#include "test_rng.h"

typedef enum {
  P_AIJ,
  P_AIJ_OVER,
  P_AIJ_UNDER,
  P_NONE,
  P_BAIJ,
  P_BAIJ_THEN_AIJ,
  P_XAIJ_THEN_AIJ
} PreallocMode;
static const char *const PreallocNames[] = {"aij", "aij_over", "aij_under", "none", "baij", "baij_then_aij", "xaij_then_aij"};

typedef enum {
  E_NONE,
  E_NEGATIVE,
  E_TOOLONG,
  E_TOOLONG_O,
  E_BS,
  E_BS_COLS,
  E_ALLOCERR,
  E_CORRUPT
} ErrMode;
static const char *const ErrNames[] = {"none", "negative", "toolong", "toolong_o", "bs", "bs_cols", "allocerr", "corrupt"};

typedef struct {
  PetscInt  n; /* block columns of the block row */
  PetscInt *j; /* its block columns (global) */
} BlockRow;

typedef struct {
  PetscInt     bs, nb, seed;
  char         mtype[64];
  PreallocMode mode;
  ErrMode      err;
  PetscBool    scatter, err_continue, is_bk;
  PetscMPIInt  rank, size;
  PetscInt    *bstart;          /* size + 1: the first block row of each rank */
  PetscInt     Nb;              /* global block rows (= block columns) */
  BlockRow    *rows;            /* Nb: the pattern, the same on every rank */
  PetscInt     nblocks;         /* blocks of the pattern (global) */
  PetscInt     nnz;             /* scalar entries of the pattern (global) */
  PetscInt    *dnnz, *onnz;     /* exact AIJ counts of the local rows */
  PetscInt    *bd, *bo;         /* exact block counts of the local block rows */
  PetscCount   expect_reserved; /* for the AIJ modes (global) */
  char         label[128];
  PetscInt     nfail;
} Ctx;

static PetscInt64 Mix(PetscInt64 a, PetscInt64 b, PetscInt64 c, PetscInt64 d)
{
  PetscInt64 s = (a * 1000003 + b * 7919 + c * 104729 + d * 15485863 + 12345) & 0x7fffffffffffffffLL;

  if (!s) s = 1;
  for (int i = 0; i < 4; i++) NextRand(&s);
  return s;
}

/* The entries block (bI, bJ) has (bs x bs, row-major): all, or with -scatter a random part (a fifth of the blocks stay
   dense), never none */
static void BlockMask(Ctx *c, PetscInt bI, PetscInt bJ, PetscBool *mask, PetscBool *full)
{
  const PetscInt bs2 = c->bs * c->bs;
  PetscInt64     s   = Mix(c->seed, bI, bJ, 17);
  PetscInt       cnt = 0;

  *full = PETSC_TRUE;
  if (!c->scatter || RandInt(&s, 5) == 0) {
    for (PetscInt e = 0; e < bs2; e++) mask[e] = PETSC_TRUE;
    return;
  }
  for (PetscInt e = 0; e < bs2; e++) {
    mask[e] = (PetscBool)(RandInt(&s, 100) < 35);
    cnt += mask[e];
  }
  if (!cnt) mask[RandInt(&s, bs2)] = PETSC_TRUE;
  for (PetscInt e = 0; e < bs2; e++)
    if (!mask[e]) *full = PETSC_FALSE;
}

/* The values of block (bI, bJ) in a phase (bs x bs, row-major) */
static void BlockValues(Ctx *c, PetscInt bI, PetscInt bJ, PetscInt phase, PetscScalar *v)
{
  PetscInt64 s = Mix(c->seed, bI, bJ, 100 + phase);

  for (PetscInt e = 0; e < c->bs * c->bs; e++) v[e] = RandReal(&s) + (bI == bJ && e % (c->bs + 1) == 0 ? 4.0 : 0.0);
}

/* The pattern and the exact counts of the local rows */
static PetscErrorCode MakePattern(Ctx *c)
{
  const PetscInt bs = c->bs, bs2 = bs * bs;
  PetscInt       nloc = c->nb + (c->rank % 2), *perm, rstart, nlocal, ncol;
  PetscBool     *mask, full;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(c->size + 1, &c->bstart));
  {
    PetscInt   *all;
    PetscMPIInt one = 1;

    PetscCall(PetscMalloc1(c->size, &all));
    PetscCallMPI(MPI_Allgather(&nloc, one, MPIU_INT, all, one, MPIU_INT, PETSC_COMM_WORLD));
    c->bstart[0] = 0;
    for (PetscMPIInt r = 0; r < c->size; r++) c->bstart[r + 1] = c->bstart[r] + all[r];
    PetscCall(PetscFree(all));
  }
  c->Nb = c->bstart[c->size];
  PetscCall(PetscCalloc1(c->Nb, &c->rows));
  PetscCall(PetscMalloc1(c->Nb, &perm));
  PetscCall(PetscMalloc1(bs2, &mask));
  c->nblocks = c->nnz = 0;
  for (PetscInt bI = 0; bI < c->Nb; bI++) {
    PetscInt64 s    = Mix(c->seed, bI, 0, 1);
    PetscInt   kind = RandInt(&s, 100), n;

    /* (PetscMin() evaluates its arguments twice: the draws come first) */
    if (bI == 0) n = c->Nb; /* one full row */
    else if (kind < 15) n = 0;
    else if (kind < 30) n = c->Nb / 2 + 1 + RandInt(&s, c->Nb / 2 + 1);
    else n = 1 + RandInt(&s, 4);
    n = PetscMin(c->Nb, n);
    for (PetscInt k = 0; k < c->Nb; k++) perm[k] = k;
    for (PetscInt k = 0; k < n; k++) { /* partial Fisher-Yates */
      PetscInt q = k + RandInt(&s, c->Nb - k), t = perm[k];

      perm[k] = perm[q];
      perm[q] = t;
    }
    c->rows[bI].n = n;
    PetscCall(PetscMalloc1(n, &c->rows[bI].j));
    for (PetscInt k = 0; k < n; k++) c->rows[bI].j[k] = perm[k];
    c->nblocks += n;
    for (PetscInt k = 0; k < n; k++) {
      BlockMask(c, bI, c->rows[bI].j[k], mask, &full);
      for (PetscInt e = 0; e < bs2; e++) c->nnz += mask[e];
    }
  }
  /* exact counts of the local rows */
  rstart = c->bstart[c->rank];
  nlocal = c->bstart[c->rank + 1] - rstart;
  ncol   = nlocal;
  PetscCall(PetscCalloc2(nlocal * bs, &c->dnnz, nlocal * bs, &c->onnz));
  PetscCall(PetscCalloc2(nlocal, &c->bd, nlocal, &c->bo));
  for (PetscInt ib = 0; ib < nlocal; ib++) {
    const BlockRow *row = &c->rows[rstart + ib];

    for (PetscInt k = 0; k < row->n; k++) {
      PetscInt  bJ   = row->j[k];
      PetscBool diag = (PetscBool)(bJ >= rstart && bJ < rstart + ncol);

      BlockMask(c, rstart + ib, bJ, mask, &full);
      if (diag) c->bd[ib]++;
      else c->bo[ib]++;
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt q = 0; q < bs; q++)
          if (mask[r * bs + q]) {
            if (diag) c->dnnz[ib * bs + r]++;
            else c->onnz[ib * bs + r]++;
          }
    }
  }
  PetscCall(PetscFree(perm));
  PetscCall(PetscFree(mask));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreePattern(Ctx *c)
{
  PetscFunctionBeginUser;
  for (PetscInt bI = 0; bI < c->Nb; bI++) PetscCall(PetscFree(c->rows[bI].j));
  PetscCall(PetscFree(c->rows));
  PetscCall(PetscFree(c->bstart));
  PetscCall(PetscFree2(c->dnnz, c->onnz));
  PetscCall(PetscFree2(c->bd, c->bo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  M_BLOCKED,     /* MatSetValuesBlocked, row-oriented (dense blocks only, else M_ROWS) */
  M_BLOCKED_COL, /* MatSetValuesBlocked, column-oriented (dense blocks only, else M_COLS) */
  M_ROWS,        /* a MatSetValues call a row, row-oriented, -1 for the entries the block lacks */
  M_COLS,        /* a MatSetValues call a column, column-oriented, -1 for the entries the block lacks */
  M_WHOLE_COL,   /* one MatSetValues call for the block, column-oriented (dense blocks only, else M_COLS) */
  M_DUP          /* a call a row, each column twice: 1/4 and 3/4 of the value (ADD_VALUES only) */
} Method;

/* Puts f x v (block (bI, bJ), row-major, masked) into M by method m; work holds 4 bs^2 scalars and 4 bs indices */
static PetscErrorCode PutBlock(Ctx *c, Mat M, PetscInt bI, PetscInt bJ, const PetscScalar *v, const PetscBool *mask, PetscBool full, PetscScalar f, Method m, InsertMode mode, PetscScalar *w, PetscInt *idx)
{
  const PetscInt bs = c->bs;

  PetscFunctionBeginUser;
  if (!full && (m == M_BLOCKED || m == M_WHOLE_COL)) m = m == M_BLOCKED ? M_ROWS : M_COLS;
  if (!full && m == M_BLOCKED_COL) m = M_COLS;
  switch (m) {
  case M_BLOCKED:
    for (PetscInt e = 0; e < bs * bs; e++) w[e] = f * v[e];
    PetscCall(MatSetValuesBlocked(M, 1, &bI, 1, &bJ, w, mode));
    break;
  case M_BLOCKED_COL:
  case M_WHOLE_COL:
    for (PetscInt r = 0; r < bs; r++)
      for (PetscInt q = 0; q < bs; q++) w[q * bs + r] = f * v[r * bs + q];
    PetscCall(MatSetOption(M, MAT_ROW_ORIENTED, PETSC_FALSE));
    if (m == M_BLOCKED_COL) PetscCall(MatSetValuesBlocked(M, 1, &bI, 1, &bJ, w, mode));
    else {
      for (PetscInt r = 0; r < bs; r++) {
        idx[r]      = bI * bs + r;
        idx[bs + r] = bJ * bs + r;
      }
      PetscCall(MatSetValues(M, bs, idx, bs, idx + bs, w, mode));
    }
    PetscCall(MatSetOption(M, MAT_ROW_ORIENTED, PETSC_TRUE));
    break;
  case M_ROWS:
  case M_DUP:
    for (PetscInt r = 0; r < bs; r++) {
      PetscInt  row = bI * bs + r, cnt = 0;
      PetscBool dup = (PetscBool)(m == M_DUP);

      for (PetscInt q = 0; q < bs; q++) {
        idx[q] = mask[r * bs + q] ? bJ * bs + q : -1;
        w[q]   = (dup ? 0.25 : 1.0) * f * v[r * bs + q];
        cnt += mask[r * bs + q];
        if (dup) {
          idx[bs + q] = idx[q];
          w[bs + q]   = 0.75 * f * v[r * bs + q];
        }
      }
      if (cnt) PetscCall(MatSetValues(M, 1, &row, dup ? 2 * bs : bs, idx, w, mode));
    }
    break;
  case M_COLS:
    PetscCall(MatSetOption(M, MAT_ROW_ORIENTED, PETSC_FALSE));
    for (PetscInt q = 0; q < bs; q++) {
      PetscInt col = bJ * bs + q, cnt = 0;

      for (PetscInt r = 0; r < bs; r++) {
        idx[r] = mask[r * bs + q] ? bI * bs + r : -1;
        w[r]   = f * v[r * bs + q];
        cnt += mask[r * bs + q];
      }
      if (cnt) PetscCall(MatSetValues(M, bs, idx, 1, &col, w, mode));
    }
    PetscCall(MatSetOption(M, MAT_ROW_ORIENTED, PETSC_TRUE));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The insertions of a round into M (the same calls for A and R). round 0: ADD, flush, INSERT, flush, ADD, final;
   round 1: INSERT of every block (the owner or the previous rank), final; round 2 (after MatZeroEntries): ADD, final.
   A rank puts entries into its own block rows and into those of the next rank (off-process). */
static PetscErrorCode Fill(Ctx *c, Mat M, PetscInt round)
{
  const PetscInt bs = c->bs, bs2 = bs * bs;
  const PetscInt next = (c->rank + 1) % c->size;
  PetscScalar   *v, *w;
  PetscInt      *idx;
  PetscBool     *mask, full;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(bs2, &v, 4 * bs2, &w, 4 * bs, &idx, bs2, &mask));
  for (PetscInt phase = 0; phase < (round ? 1 : 3); phase++) {
    InsertMode mode = (round == 1 || phase == 1) ? INSERT_VALUES : ADD_VALUES;

    /* PETSc 3.26's MPI hash assembly (MatSetUp() only) keeps the insert mode of its local parts across a flush
       assembly: INSERT_VALUES after ADD_VALUES fails there with "Cannot mix add values and insert values", for MPIAIJ
       too; on several ranks -prealloc none adds in the middle phase instead */
    if (round == 0 && phase == 1 && c->mode == P_NONE && c->size > 1) mode = ADD_VALUES;

    for (PetscInt part = 0; part < (c->size > 1 ? 2 : 1); part++) { /* 0: own rows, 1: the next rank's */
      PetscMPIInt who = part ? next : c->rank;

      for (PetscInt bI = c->bstart[who]; bI < c->bstart[who + 1]; bI++) {
        for (PetscInt k = 0; k < c->rows[bI].n; k++) {
          const PetscInt bJ = c->rows[bI].j[k];
          const PetscInt h  = (bI * 31 + bJ * 17 + c->seed) % 6;
          /* on one rank the owner is also the previous rank: both actions run */
          const PetscBool own = (PetscBool)(part == 0), prev = (PetscBool)(part == 1 || c->size == 1);

          BlockMask(c, bI, bJ, mask, &full);
          if (round == 0 && phase == 0) {
            BlockValues(c, bI, bJ, 0, v);
            switch (h) {
            case 0:
              if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, M_BLOCKED, mode, w, idx));
              break;
            case 1:
              if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, M_ROWS, mode, w, idx));
              break;
            case 2:
              if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, M_COLS, mode, w, idx));
              break;
            case 3: /* half by the owner, half by the previous rank (repeated entries, off-process) */
              if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 0.5, M_ROWS, mode, w, idx));
              if (prev) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 0.5, M_BLOCKED_COL, mode, w, idx));
              break;
            case 4:
              if (prev) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, M_WHOLE_COL, mode, w, idx));
              break;
            default:
              if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, M_DUP, mode, w, idx));
              break;
            }
          } else if (round == 0 && phase == 1) { /* INSERT: a third of the blocks, by one rank each */
            if ((bI + bJ + c->seed) % 3) continue;
            BlockValues(c, bI, bJ, 1, v);
            if ((bI + bJ) % 2 ? own : (part == 1 || (c->size == 1 && own))) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, bI % 2 ? M_BLOCKED : M_COLS, mode, w, idx));
          } else if (round == 0) { /* ADD again: a quarter of the blocks, twice (owner and previous rank) */
            if ((bI * bJ + c->seed) % 4 != 1) continue;
            BlockValues(c, bI, bJ, 2, v);
            if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, M_COLS, mode, w, idx));
            if (prev) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, M_ROWS, mode, w, idx));
          } else if (round == 1) { /* INSERT every block: by its owner, or (h odd) by the previous rank */
            PetscBool mine = (h % 2) ? prev : own;

            if (c->size == 1) mine = own;
            BlockValues(c, bI, bJ, 3, v);
            if (mine) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, h % 3 == 0 ? M_BLOCKED : (h % 3 == 1 ? M_ROWS : M_WHOLE_COL), mode, w, idx));
          } else { /* round 2, after MatZeroEntries: ADD, split as in round 0 */
            BlockValues(c, bI, bJ, 4, v);
            if (h < 3) {
              if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 1.0, h == 0 ? M_BLOCKED_COL : M_DUP, mode, w, idx));
            } else {
              if (own) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 0.25, M_COLS, mode, w, idx));
              if (prev) PetscCall(PutBlock(c, M, bI, bJ, v, mask, full, 0.75, M_BLOCKED, mode, w, idx));
            }
          }
        }
      }
    }
    PetscCall(MatAssemblyBegin(M, phase == (round ? 0 : 2) ? MAT_FINAL_ASSEMBLY : MAT_FLUSH_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, phase == (round ? 0 : 2) ? MAT_FINAL_ASSEMBLY : MAT_FLUSH_ASSEMBLY));
  }
  PetscCall(PetscFree4(v, w, idx, mask));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The counts passed to A for the AIJ modes (c->mode), and the blocks they reserve by the rule (global) */
static PetscErrorCode AIJCounts(Ctx *c, PetscInt **d, PetscInt **o)
{
  const PetscInt bs = c->bs, nlocal = c->bstart[c->rank + 1] - c->bstart[c->rank];
  const PetscInt n = nlocal * bs, N = c->Nb * bs, nbc_d = nlocal, nbc_o = c->Nb - nlocal;
  PetscCount     reserved = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, d, n, o));
  for (PetscInt i = 0; i < n; i++) {
    switch (c->mode) {
    case P_AIJ_OVER:
      (*d)[i] = PetscMin(2 * c->dnnz[i] + 3, c->size > 1 ? n : N);
      (*o)[i] = PetscMin(2 * c->onnz[i] + 3, N);
      break;
    case P_AIJ_UNDER:
      (*d)[i] = c->dnnz[i] / 2;
      (*o)[i] = c->onnz[i] / 2;
      break;
    case P_BAIJ_THEN_AIJ:
    case P_XAIJ_THEN_AIJ:
      (*d)[i] = 0;
      (*o)[i] = 0;
      break;
    default:
      (*d)[i] = c->dnnz[i];
      (*o)[i] = c->onnz[i];
    }
  }
  for (PetscInt ib = 0; ib < nlocal; ib++) {
    PetscInt dm = 0, om = 0;

    for (PetscInt i = ib * bs; i < (ib + 1) * bs; i++) {
      dm = PetscMax(dm, (*d)[i]);
      om = PetscMax(om, (*o)[i]);
    }
    reserved += PetscMin(nbc_d, (dm + bs - 1) / bs);
    if (c->size > 1) reserved += PetscMin(nbc_o, (om + bs - 1) / bs);
  }
  PetscCallMPI(MPIU_Allreduce(&reserved, &c->expect_reserved, 1, MPIU_COUNT, MPI_SUM, PETSC_COMM_WORLD));
  if (c->err == E_NEGATIVE && n) (*d)[0] = -1;
  if (c->err == E_TOOLONG && n) (*d)[0] = n + 1;
  if (c->err == E_TOOLONG_O && n) (*o)[0] = N + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A call that -err makes fail: without -err_continue its error ends the program; with it, printed (a call accepted is
   a failure of the test either way). *refused: it failed as it had to */
#define EXPECT_REFUSED(c, call, what, refused) \
  do { \
    PetscErrorCode ierr_ = PETSC_SUCCESS; \
    if ((c)->err_continue) { \
      PBG_TEST_REFUSE(ierr_, call); \
      if (ierr_) PetscCall(PBGTestRefused(PETSC_COMM_WORLD, ierr_, what)); \
    } else PetscCall(call); \
    *(refused) = (PetscBool)(ierr_ != PETSC_SUCCESS); \
    if (!ierr_) { \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s was accepted with -err %s: FAILED\n", what, ErrNames[(c)->err])); \
      (c)->nfail++; \
    } \
  } while (0)

/* -err bs, bs_cols: block sizes that do not divide the local sizes */
static PetscErrorCode CaseBlockSize(Ctx *c)
{
  Mat            A;
  const PetscInt bs = 3, m = bs * c->nb;
  PetscInt      *nnz;
  PetscBool      refused;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  if (c->err == E_BS) {
    PetscCall(MatSetSizes(A, m + 1, m + 1, PETSC_DETERMINE, PETSC_DETERMINE));
    EXPECT_REFUSED(c, MatSetBlockSize(A, bs), "MatSetBlockSize(3) on local sizes 3 nb + 1", &refused);
    if (!refused) { /* accepted (a failure printed): what the preallocation then does */
      PetscCall(MatSetType(A, c->mtype));
      PetscCall(PetscCalloc1(m + 1, &nnz));
      EXPECT_REFUSED(c, MatSeqAIJSetPreallocation(A, 0, nnz), "MatSeqAIJSetPreallocation() after MatSetBlockSize(3) on local sizes 3 nb + 1", &refused);
      if (!refused) EXPECT_REFUSED(c, MatMPIAIJSetPreallocation(A, 0, nnz, 0, nnz), "MatMPIAIJSetPreallocation() after MatSetBlockSize(3) on local sizes 3 nb + 1", &refused);
      PetscCall(PetscFree(nnz));
    }
  } else { /* rectangular blocks: BSR's blocks are square, so the matrix is made AIJ (aijcusparse with a device), which
               takes them and the AIJ preallocation */
    PetscBool aij;
    MatType   type;

    PetscCall(MatSetSizes(A, m, m + 1, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSizes(A, bs, 1));
    PetscCall(MatSetType(A, c->mtype));
    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &aij, MATSEQAIJ, MATMPIAIJ, ""));
    PetscCall(MatGetType(A, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "block sizes 3 x 1 asked for as %s: the matrix is %s: %s\n", c->mtype, type, aij ? "ok" : "FAILED"));
    if (!aij) c->nfail++;
    PetscCall(PetscCalloc1(m, &nnz));
    PetscCall(MatSeqAIJSetPreallocation(A, 0, nnz));
    PetscCall(MatMPIAIJSetPreallocation(A, 0, nnz, 0, nnz));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscFree(nnz));
  }
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |X - Y| relative to max |Y|, through MATAIJ copies */
static PetscErrorCode MaxDiff(Mat X, Mat Y, PetscReal *dmax, PetscReal *ymax)
{
  Mat       Xa, Ya;
  PetscInt  rstart, rend;
  PetscReal m[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &Xa));
  PetscCall(MatConvert(Y, MATAIJ, MAT_INITIAL_MATRIX, &Ya));
  PetscCall(MatAXPY(Xa, -1.0, Ya, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatGetOwnershipRange(Xa, &rstart, &rend));
  for (PetscInt k = 0; k < 2; k++) {
    Mat M = k ? Ya : Xa;

    for (PetscInt r = rstart; r < rend; r++) {
      PetscInt           nc;
      const PetscScalar *vals;

      PetscCall(MatGetRow(M, r, &nc, NULL, &vals));
      for (PetscInt q = 0; q < nc; q++) m[k] = PetscMax(m[k], PetscAbsScalar(vals[q]));
      PetscCall(MatRestoreRow(M, r, &nc, NULL, &vals));
    }
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, m, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *dmax = m[0];
  *ymax = m[1];
  PetscCall(MatDestroy(&Xa));
  PetscCall(MatDestroy(&Ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The baijksparse line of A's -mat_view ::ascii_info (written to a file, read back on rank 0), on every rank */
static PetscErrorCode ViewLine(Ctx *c, Mat A, char *line, size_t len)
{
  char        dir[PETSC_MAX_PATH_LEN], fname[PETSC_MAX_PATH_LEN + 64];
  int         pid = (int)getpid();
  PetscViewer viewer;

  PetscFunctionBeginUser;
  PetscCall(PetscGetTmp(PETSC_COMM_WORLD, dir, sizeof(dir)));
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscSNPrintf(fname, sizeof(fname), "%s/pbg_test_prealloc_%d.txt", dir, pid));
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, fname, &viewer));
  PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, viewer));
  PetscCall(PetscViewerPopFormat(viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  line[0] = 0;
  if (!c->rank) {
    FILE *fp;
    char  buf[1024];

    PetscCall(PetscFOpen(PETSC_COMM_SELF, fname, "r", &fp));
    while (fgets(buf, sizeof(buf), fp)) {
      char *p = strstr(buf, "baijksparse: preallocated from");

      if (!p) p = strstr(buf, "baijksparse: not preallocated");
      if (p) {
        size_t l;

        PetscCall(PetscStrncpy(line, p, len));
        PetscCall(PetscStrlen(line, &l));
        if (l && line[l - 1] == '\n') line[l - 1] = 0;
        break;
      }
    }
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    (void)remove(fname);
  }
  PetscCallMPI(MPI_Bcast(line, (PetscMPIInt)len, MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Check(Ctx *c, PetscBool ok, const char *what)
{
  PetscFunctionBeginUser;
  if (!ok) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: check failed: %s: FAILED\n", c->label, what));
    c->nfail++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a final assembly: values, MatMult, R's nonzeros, and for baijksparse the view line and the mallocs */
static PetscErrorCode Compare(Ctx *c, Mat A, Mat R, PetscInt round, PetscLogDouble *mallocs_prev)
{
  PetscReal   d = 0, rmax = 0, nd, nr;
  Vec         x, y, yr;
  VecType     vt;
  MatInfo     info, rinfo;
  PetscRandom rnd;
  PetscBool   ok;
  char        line[512];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(c->label, sizeof(c->label), "prealloc %s bs %" PetscInt_FMT " np %d%s assembly %" PetscInt_FMT, PreallocNames[c->mode], c->bs, (int)c->size, c->scatter ? " scatter" : "", round + 1));
  PetscCall(MaxDiff(A, R, &d, &rmax));
  ok = (PetscBool)(rmax > 0 && d <= 1e-13 * rmax);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: max |A - R| = %g (max |R| %g) %s\n", c->label, (double)d, (double)rmax, ok ? "ok" : "FAILED"));
  if (!ok) c->nfail++;
  /* MatMult on a random vector (on the device with -vec_type cuda) */
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, (c->bstart[c->rank + 1] - c->bstart[c->rank]) * c->bs, PETSC_DETERMINE));
  PetscCall(VecSetBlockSize(x, c->bs));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &yr));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(c->seed + round)));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecSet(y, 1e30)); /* poisoned */
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(R, x, yr));
  PetscCall(VecNorm(yr, NORM_INFINITY, &nr));
  PetscCall(VecAXPY(y, -1.0, yr));
  PetscCall(VecNorm(y, NORM_INFINITY, &nd));
  PetscCall(VecGetType(x, &vt));
  ok = (PetscBool)(nr > 0 && nd <= 1e-13 * nr);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: MatMult (%s): max |A x - R x| = %g (max |R x| %g) %s\n", c->label, vt, (double)nd, (double)nr, ok ? "ok" : "FAILED"));
  if (!ok) c->nfail++;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  /* the reference holds the pattern, no more, no less, and its exact counts were enough */
  PetscCall(MatGetInfo(R, MAT_GLOBAL_SUM, &rinfo));
  PetscCall(Check(c, (PetscBool)((PetscInt)rinfo.nz_used == c->nnz), "the reference's nonzeros are the pattern's"));
  if (c->mode != P_NONE) PetscCall(Check(c, (PetscBool)(rinfo.mallocs == 0 && rinfo.nz_unneeded == 0), "the reference's exact counts: no malloc, no unused space"));
  /* A: the mallocs; later assemblies of the same pattern add none */
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  if (round > 0) PetscCall(Check(c, (PetscBool)(info.mallocs == *mallocs_prev), "no malloc in a later assembly of the same pattern"));
  *mallocs_prev = info.mallocs;
  if (!c->is_bk) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Check(c, (PetscBool)((PetscInt)(info.nz_used / (c->bs * c->bs)) == c->nblocks), "MatGetInfo's blocks stored are the pattern's"));
  PetscCall(ViewLine(c, A, line, sizeof(line)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: view: %s\n", c->label, line[0] ? line : "(no baijksparse preallocation line)"));
  switch (c->mode) {
  case P_AIJ:
  case P_AIJ_OVER:
  case P_AIJ_UNDER: {
    long long   R = -1;
    double      S = -1, M = -1;
    const char *p = strstr(line, "blocks): ");

    ok = (PetscBool)(p && sscanf(p, "blocks): %lld blocks reserved, %lf stored, %lf mallocs", &R, &S, &M) == 3);
    PetscCall(Check(c, ok, "the view says 'preallocated from AIJ row counts ...: R blocks reserved, S stored, M mallocs'"));
    if (!ok) break;
    ok = (PetscBool)(R == (long long)c->expect_reserved && (PetscInt)S == c->nblocks && M == info.mallocs);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %lld blocks reserved (the rule: %lld), %.0f stored (the pattern: %" PetscInt_FMT "), %.0f mallocs (MatGetInfo: %.0f) %s\n", c->label, R, (long long)c->expect_reserved, S, c->nblocks, M, (double)info.mallocs, ok ? "ok" : "FAILED"));
    if (!ok) c->nfail++;
    if (c->mode == P_AIJ) PetscCall(Check(c, (PetscBool)(R <= 2 * S), "exact counts reserve at most 2 x the blocks stored"));
    if (c->mode == P_AIJ && !c->scatter) PetscCall(Check(c, (PetscBool)(R == (long long)S && M == 0), "exact counts on dense blocks: reserved = stored, 0 mallocs"));
    if (R < (long long)S) PetscCall(Check(c, (PetscBool)(M > 0), "fewer blocks reserved than stored: mallocs > 0"));
  } break;
  case P_BAIJ:
  case P_BAIJ_THEN_AIJ:
  case P_XAIJ_THEN_AIJ: {
    double      S = -1, M = -1;
    const char *p = strstr(line, "block counts: ");

    ok = (PetscBool)(p && sscanf(p, "block counts: %lf blocks stored, %lf mallocs", &S, &M) == 2);
    PetscCall(Check(c, ok, "the view says 'preallocated from block counts: S blocks stored, M mallocs'"));
    if (ok) PetscCall(Check(c, (PetscBool)((PetscInt)S == c->nblocks && M == 0 && info.mallocs == 0), "exact block counts (AIJ counts after them ignored): the pattern's blocks, 0 mallocs"));
  } break;
  case P_NONE: {
    double      S = -1;
    const char *p = strstr(line, "(MatSetUp()), ");

    ok = (PetscBool)(p && sscanf(p, "(MatSetUp()), %lf blocks stored", &S) == 1);
    PetscCall(Check(c, ok, "the view says 'not preallocated: hash-based assembly (MatSetUp()), S blocks stored'"));
    if (ok) PetscCall(Check(c, (PetscBool)((PetscInt)S == c->nblocks), "hash-based assembly: the pattern's blocks stored"));
  } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -err allocerr: after the first assembly (exact counts: no free slot left), on each rank a block outside the pattern
   in its first block row that lacks a diagonal-part block column, with MAT_NEW_NONZERO_ALLOCATION_ERR set to true:
   BAIJ's error */
static PetscErrorCode InsertOutside(Ctx *c, Mat A)
{
  const PetscInt rstart = c->bstart[c->rank], rend = c->bstart[c->rank + 1];
  PetscInt       bI = -1, bJ = -1;
  PetscScalar   *v;
  PetscBool      refused;

  PetscFunctionBeginUser;
  for (PetscInt i = rstart; i < rend && bJ < 0; i++)
    for (PetscInt j = rstart; j < rend && bJ < 0; j++) {
      PetscBool has = PETSC_FALSE;

      for (PetscInt k = 0; k < c->rows[i].n; k++) has = (PetscBool)(has || c->rows[i].j[k] == j);
      if (!has) {
        bI = i;
        bJ = j;
      }
    }
  PetscCheck(bJ >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-err allocerr: every local block row is full; use another -seed or a larger -nb");
  PetscCall(PetscCalloc1(c->bs * c->bs, &v));
  v[0] = 1.0;
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] a block at (%" PetscInt_FMT ", %" PetscInt_FMT "), outside the pattern, with MAT_NEW_NONZERO_ALLOCATION_ERR true\n", (int)c->rank, bI, bJ));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  /* INSERT_VALUES, as the fill that follows (the insert mode is set even when the call is refused) */
  EXPECT_REFUSED(c, MatSetValuesBlocked(A, 1, &bI, 1, &bJ, v, INSERT_VALUES), "MatSetValuesBlocked() outside the reserved blocks", &refused);
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(Ctx *c)
{
  Mat            A, R;
  const PetscInt bs = c->bs, n = (c->bstart[c->rank + 1] - c->bstart[c->rank]) * bs;
  PetscInt      *d = NULL, *o = NULL;
  PetscBool      refused = PETSC_FALSE;
  PetscLogDouble mallocs = 0;

  PetscFunctionBeginUser;
  /* the reference */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &R));
  PetscCall(MatSetOptionsPrefix(R, "ref_"));
  PetscCall(MatSetSizes(R, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(R, bs));
  PetscCall(MatSetType(R, MATAIJ));
  if (c->mode == P_NONE) PetscCall(MatSetUp(R));
  else {
    PetscCall(MatSeqAIJSetPreallocation(R, 0, c->dnnz));
    PetscCall(MatMPIAIJSetPreallocation(R, 0, c->dnnz, 0, c->onnz));
    PetscCall(MatSetOption(R, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  }
  /* the matrix under test */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetType(A, c->mtype));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &c->is_bk, MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE, ""));
  switch (c->mode) {
  case P_NONE:
    PetscCall(MatSetUp(A));
    break;
  case P_BAIJ:
  case P_BAIJ_THEN_AIJ:
    PetscCall(MatSeqBAIJSetPreallocation(A, bs, 0, c->bd));
    PetscCall(MatMPIBAIJSetPreallocation(A, bs, 0, c->bd, 0, c->bo));
    break;
  case P_XAIJ_THEN_AIJ:
    PetscCall(MatXAIJSetPreallocation(A, bs, c->bd, c->bo, NULL, NULL));
    break;
  default:
    break;
  }
  if (c->mode != P_NONE && c->mode != P_BAIJ) {
    PetscCall(AIJCounts(c, &d, &o));
    if (c->err == E_NEGATIVE || c->err == E_TOOLONG || c->err == E_TOOLONG_O) {
      if (c->size == 1) EXPECT_REFUSED(c, MatSeqAIJSetPreallocation(A, 0, d), "MatSeqAIJSetPreallocation()", &refused);
      else EXPECT_REFUSED(c, MatMPIAIJSetPreallocation(A, 0, d, 0, o), "MatMPIAIJSetPreallocation()", &refused);
    } else {
      PetscCall(MatSeqAIJSetPreallocation(A, 0, d));
      PetscCall(MatMPIAIJSetPreallocation(A, 0, d, 0, o));
    }
    PetscCall(PetscFree2(d, o));
  }
  if (c->err == E_NEGATIVE || c->err == E_TOOLONG || c->err == E_TOOLONG_O) goto done; /* refused (or a failure printed) */
  /* round 0: ADD, flush, INSERT, flush, ADD, final */
  PetscCall(Fill(c, R, 0));
  PetscCall(Fill(c, A, 0));
  if (c->err == E_CORRUPT) {
    PetscInt    bI = c->bstart[c->rank], row = 0, col = 0;
    PetscScalar eps = 1e-8;

    while (bI < c->bstart[c->rank + 1] && !c->rows[bI].n) bI++;
    if (!c->rank && bI < c->bstart[1]) {
      PetscBool *mask, full;

      PetscCall(PetscMalloc1(bs * bs, &mask));
      BlockMask(c, bI, c->rows[bI].j[0], mask, &full);
      for (PetscInt e = 0; e < bs * bs; e++)
        if (mask[e]) {
          row = bI * bs + e / bs;
          col = c->rows[bI].j[0] * bs + e % bs;
          break;
        }
      PetscCall(PetscFree(mask));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "-err corrupt: A(%" PetscInt_FMT ", %" PetscInt_FMT ") += 1e-8\n", row, col));
      PetscCall(MatSetValues(A, 1, &row, 1, &col, &eps, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(Compare(c, A, R, 0, &mallocs));
  if (c->err == E_ALLOCERR) { /* the rows are full now (exact counts): a block outside the pattern needs room */
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    PetscCall(InsertOutside(c, A));
  }
  /* round 1: new values into the same pattern */
  PetscCall(Fill(c, R, 1));
  PetscCall(Fill(c, A, 1));
  PetscCall(Compare(c, A, R, 1, &mallocs));
  /* round 2: MatZeroEntries() and a refill */
  PetscCall(MatZeroEntries(R));
  PetscCall(MatZeroEntries(A));
  PetscCall(Fill(c, R, 2));
  PetscCall(Fill(c, A, 2));
  PetscCall(Compare(c, A, R, 2, &mallocs));
done:
  (void)refused;
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx       c;
  char      mode[32] = "aij", err[32] = "none";
  PetscBool found = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.bs   = 3;
  c.nb   = 5;
  c.seed = 1;
  PetscCall(PetscStrncpy(c.mtype, MATBAIJKSPARSE, sizeof(c.mtype)));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &c.bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &c.nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &c.seed, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", c.mtype, sizeof(c.mtype), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-prealloc", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-err", err, sizeof(err), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-scatter", &c.scatter, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-err_continue", &c.err_continue, NULL));
  PetscCheck(c.bs >= 1 && c.nb >= 1 && c.seed >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs, -nb and -seed must be positive");
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(PreallocNames) && !found; i++) {
    PetscCall(PetscStrcmp(mode, PreallocNames[i], &found));
    if (found) c.mode = (PreallocMode)i;
  }
  PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown -prealloc '%s'", mode);
  found = PETSC_FALSE;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ErrNames) && !found; i++) {
    PetscCall(PetscStrcmp(err, ErrNames[i], &found));
    if (found) c.err = (ErrMode)i;
  }
  PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown -err '%s'", err);
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &c.rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &c.size));
  PetscCheck(c.err != E_TOOLONG_O || c.size > 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-err toolong_o needs 2 ranks or more");
  PetscCheck(c.err == E_NONE || c.err == E_CORRUPT || c.err == E_BS || c.err == E_BS_COLS || c.mode == P_AIJ, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-err %s runs with -prealloc aij", err);
  if (c.err == E_BS || c.err == E_BS_COLS) PetscCall(CaseBlockSize(&c));
  else {
    PetscCall(MakePattern(&c));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pattern: %" PetscInt_FMT " block rows, bs %" PetscInt_FMT ", %" PetscInt_FMT " blocks, %" PetscInt_FMT " entries%s; A is %s, preallocation %s\n", c.Nb, c.bs, c.nblocks, c.nnz, c.scatter ? " (scattered)" : "", c.mtype, PreallocNames[c.mode]));
    PetscCall(Run(&c));
    PetscCall(FreePattern(&c));
  }
  if (!c.nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %" PetscInt_FMT " checks\n", c.nfail));
  PetscCall(PetscFinalize());
  return c.nfail ? 1 : 0;
}
