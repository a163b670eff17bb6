static char help[] = "COO assembly of MATBAIJKSPARSE (seq and MPI) against PETSc's own MATAIJ COO on the same random point entries.\n"
                     "Each rank gives entries in blocks of its own rows and of other ranks' rows, repeated entries, entries with a negative\n"
                     "row or column (ignored), empty block rows and one block row with many blocks. Steps: MatSetPreallocationCOO, an INSERT\n"
                     "of NaN (every value must be overwritten by the next INSERT), INSERT, ADD, INSERT with new values; then a second\n"
                     "MatSetPreallocationCOO with another pattern (every block full, each point once: a pure permutation on one rank),\n"
                     "INSERT, ADD. After each step: MatMult on a random x (on a GPU the device values), MatGetValues on sampled entries\n"
                     "and the Frobenius norm (the host values), each against the reference. The host<->device bytes that PETSc counts\n"
                     "during the MatSetValuesCOO calls are checked: none with device values, one upload of v per call with host values on a GPU.\n"
                     "Options: -bs <3> -nb <block rows per rank, 6; odd ranks one more> -seed <1> -mat_type <baijksparse>\n"
                     "  -device_values (v in a cudaMalloc'ed buffer) -bind_to_cpu -err <none|range|noprealloc|mode|negative|repattern|repattern_ghost|insert_unassembled|zerorows|zerorowscolumns|axpy|copy> -coo_view (-mat_view of each pattern)\n"
                     "  -err repattern_ghost (several ranks: as repattern, but only the ghost columns move, the parts' compressed patterns stay)\n"
                     "  -err zerorows|zerorowscolumns|axpy|copy (after the COO values a route that may change the pattern with no assembly\n"
                     "    of the caller; MatSetValuesCOO() must then refuse, or match AIJ's values (zerorows/zerorowscolumns only))\n"
                     "  -err insert_unassembled (after the COO values a new block by MatSetValues(), then MatSetValuesCOO() with no assembly between)\n"
                     "  -negative_count <-1> (the count of -err negative) -coo_local (every preallocation by MatSetPreallocationCOOLocal(), the local-to-global map the identity)\n"
                     "  -err_continue (with -err range or negative: the refused preallocation is caught, then the steps run on the same matrix;\n"
                     "    with -err repattern or repattern_ghost: the refused MatSetValuesCOO() is caught, then the same)\n"
                     "  -assemble_between (MatAssemblyBegin/End between MatSetPreallocationCOO and MatSetValuesCOO, then MatSetValues ADD on\n"
                     "    an entry of an off-diagonal block of the pattern, before the COO values and after them; -between_setvalues 0: no MatSetValues)\n"
                     "  -same_count_pattern (a third pattern: the full blocks shifted by one block column, the same number of blocks)\n"
                     "  -duplicate (MatDuplicate after the first INSERT, MatSetValuesCOO on the duplicates; at the end one more duplicate\n"
                     "    used after the original is destroyed)\n";

#include <petscblockgpu.h>
#include "test_refusal.h"
#include <petscdevice_cuda.h>
#include "test_rng.h" /* NextRand, RandInt, RandReal */

typedef struct {
  PetscMPIInt    rank, size;
  PetscInt       bs, nbl, rstartb, Mbs; /* local block rows, first local block row, global block rows */
  PetscInt       longrow;               /* the block row with many blocks */
  PetscCount     n;                     /* this rank's entries */
  PetscInt      *ci, *cj;
  PetscBool      gpu, device_values, bound;
  PetscBool      assemble_between, between_setvalues, duplicate;
  PetscBool      coo_local;                                /* preallocations by MatSetPreallocationCOOLocal(), through an identity local-to-global map */
  PetscBool      host_changed;                             /* by MatSetValues(): the next device gather uploads the values */
  PetscScalar   *dv;                                       /* device copy of the values (-device_values) */
  PetscLogDouble ctog, gtoc, ctog_expected, gtoc_expected; /* bytes counted during our MatSetValuesCOO() calls */
  PetscRandom    rnd;
  PetscInt       nfail;
} Ctx;

static PetscInt64 MixSeed(PetscInt64 a, PetscInt64 b, PetscInt64 c)
{
  PetscInt64 s = (a * 1000003 + b * 7919 + c * 104729 + 12345) & 0x7fffffffffffffffLL;

  if (!s) s = 1;
  for (int i = 0; i < 4; i++) NextRand(&s);
  return s;
}

/* block rows nobody gives entries to */
static PetscBool EmptyRow(PetscInt r)
{
  return (PetscBool)(r % 7 == 3);
}

static PetscErrorCode Push(Ctx *c, PetscCount *cap, PetscInt i, PetscInt j)
{
  PetscFunctionBeginUser;
  if (c->n == *cap) {
    *cap = 2 * *cap + 64;
    PetscCall(PetscRealloc(*cap * sizeof(PetscInt), &c->ci));
    PetscCall(PetscRealloc(*cap * sizeof(PetscInt), &c->cj));
  }
  c->ci[c->n] = i;
  c->cj[c->n] = j;
  c->n++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random entries of this rank. full: every point of each chosen block exactly once, nothing repeated or ignored, no
   other rank's rows (on one rank: a pure permutation); shift moves the full blocks by that many block columns (the same
   number of blocks in each block row, other blocks) */
static PetscErrorCode GenEntries(Ctx *c, PetscInt64 seed, PetscInt variant, PetscBool full, PetscInt shift)
{
  PetscInt64 s   = MixSeed(seed, variant, c->rank);
  PetscCount cap = 0;
  PetscInt   bs = c->bs, bs2 = bs * bs;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->ci));
  PetscCall(PetscFree(c->cj));
  c->n = 0;
  for (PetscInt lr = 0; lr < c->nbl + (full ? 0 : 2); lr++) {
    /* own rows, then two rows anywhere (mostly other ranks') */
    PetscInt r = lr < c->nbl ? c->rstartb + lr : RandInt(&s, c->Mbs), nblk;

    if (EmptyRow(r)) continue;
    nblk = r == c->longrow ? 48 : 1 + RandInt(&s, 4); /* (PetscMin evaluates its arguments twice) */
    nblk = PetscMin(c->Mbs, nblk);
    for (PetscInt b = 0; b < nblk; b++) {
      /* the long row takes every block column in turn; others near the diagonal, or anywhere (full: distinct blocks) */
      PetscInt col;

      if (r == c->longrow) col = (b + shift) % c->Mbs;
      else if (full) col = (r + b + shift) % c->Mbs;
      else if (RandInt(&s, 3)) {
        col = r + RandInt(&s, 5) - 2;
        col = PetscMin(c->Mbs - 1, PetscMax(0, col));
      } else col = RandInt(&s, c->Mbs);

      if (full) {
        for (PetscInt e = 0; e < bs2; e++) PetscCall(Push(c, &cap, r * bs + e % bs, col * bs + e / bs));
      } else {
        PetscInt ne = 1 + RandInt(&s, bs2 + 1);

        for (PetscInt e = 0; e < ne; e++) {
          PetscInt i = r * bs + RandInt(&s, bs), j = col * bs + RandInt(&s, bs);

          PetscCall(Push(c, &cap, i, j));
          if (!RandInt(&s, 5)) PetscCall(Push(c, &cap, i, j)); /* a repeat */
        }
      }
    }
  }
  if (!full)
    for (PetscInt e = 0; e < 5; e++) PetscCall(Push(c, &cap, e % 2 ? -1 : RandInt(&s, c->Mbs * bs), e % 2 ? RandInt(&s, c->Mbs * bs) : -1 - e));
  for (PetscCount e = c->n - 1; e > 0; e--) { /* shuffle */
    PetscInt q = RandInt(&s, (PetscInt)e + 1), t;

    t        = c->ci[e];
    c->ci[e] = c->ci[q];
    c->ci[q] = t;
    t        = c->cj[e];
    c->cj[e] = c->cj[q];
    c->cj[q] = t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Full blocks of this rank: in each own block row the diagonal block and one block in the next rank's block column
   (its first, or its second with shift 1). Both patterns compress to the same local parts (the diagonal blocks, and one
   ghost block column in every row); only the ghost column, garray, differs */
static PetscErrorCode GenGhostEntries(Ctx *c, PetscInt shift)
{
  PetscCount cap = 0;
  PetscInt   bs = c->bs, bs2 = bs * bs, next = (c->rstartb + c->nbl) % c->Mbs;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->ci));
  PetscCall(PetscFree(c->cj));
  c->n = 0;
  for (PetscInt r = c->rstartb; r < c->rstartb + c->nbl; r++) {
    const PetscInt col[2] = {r, next + shift};

    for (PetscInt b = 0; b < 2; b++)
      for (PetscInt e = 0; e < bs2; e++) PetscCall(Push(c, &cap, r * bs + e % bs, col[b] * bs + e / bs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Preallocate(Ctx *c, Mat A)
{
  PetscInt *i, *j;

  PetscFunctionBeginUser;
  /* copies: PETSc's AIJ may reorder the arrays it is given */
  PetscCall(PetscMalloc2(PetscMax(c->n, 1), &i, PetscMax(c->n, 1), &j));
  PetscCall(PetscArraycpy(i, c->ci, c->n));
  PetscCall(PetscArraycpy(j, c->cj, c->n));
  PetscCall((c->coo_local ? MatSetPreallocationCOOLocal : MatSetPreallocationCOO)(A, c->n, i, j));
  PetscCall(PetscFree2(i, j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetValuesCOO() on the tested matrix (v from a device buffer with -device_values), counting the transfers unless
   count is false (after a host change of the values, which the device gather uploads first) */
static PetscErrorCode SetValuesCounted(Ctx *c, Mat A, const PetscScalar *v, InsertMode mode, PetscBool count)
{
  PetscLogDouble     ctog0 = petsc_ctog_sz, gtoc0 = petsc_gtoc_sz;
  const PetscScalar *w = v;

  PetscFunctionBeginUser;
  if (c->device_values && c->n) {
    PetscCallCUDA(cudaMemcpy(c->dv, v, c->n * sizeof(PetscScalar), cudaMemcpyHostToDevice));
    w = c->dv;
  }
  ctog0 = petsc_ctog_sz;
  gtoc0 = petsc_gtoc_sz;
  PetscCall(MatSetValuesCOO(A, w, mode));
  if (c->host_changed) count = PETSC_FALSE;
  c->host_changed = PETSC_FALSE;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  c->ctog += petsc_ctog_sz - ctog0;
  c->gtoc += petsc_gtoc_sz - gtoc0;
  /* v goes once to where the gather runs: the device unless bound to the CPU */
  if (c->gpu && !c->bound && !c->device_values) c->ctog_expected += (PetscLogDouble)c->n * sizeof(PetscScalar);
  if (c->bound && c->device_values) c->gtoc_expected += (PetscLogDouble)c->n * sizeof(PetscScalar);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetValues(Ctx *c, Mat A, const PetscScalar *v, InsertMode mode)
{
  PetscFunctionBeginUser;
  PetscCall(SetValuesCounted(c, A, v, mode, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(Ctx *c, Mat A, Mat R, const char *step)
{
  Vec                x, y, xr, yr;
  const PetscScalar *ya, *yra;
  PetscReal          d[2] = {0, 0}, nA, nR, dv = 0, dn, dp;
  PetscInt           n, rstart, rend, N;
  PetscInt64         s = MixSeed(c->rank, 77, c->nfail);

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(R, &xr, &yr));
  PetscCall(VecSetRandom(xr, c->rnd));
  PetscCall(VecCopy(xr, x));
  PetscCall(VecSet(y, (PetscScalar)NAN)); /* poisoned output */
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(R, xr, yr));
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArrayRead(yr, &yra));
  for (PetscInt i = 0; i < n; i++) {
    d[0] += PetscRealPart((ya[i] - yra[i]) * PetscConj(ya[i] - yra[i]));
    d[1] += PetscRealPart(yra[i] * PetscConj(yra[i]));
    if (PetscIsInfOrNanScalar(ya[i])) d[0] = PETSC_INFINITY;
  }
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(yr, &yra));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, d, 2, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  dp = PetscSqrtReal(d[0]) / PetscMax(PetscSqrtReal(d[1]), PETSC_SMALL);
  PetscCall(MatNorm(A, NORM_FROBENIUS, &nA));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &nR));
  dn = PetscAbsReal(nA - nR) / PetscMax(nR, PETSC_SMALL);
  if (PetscIsInfOrNanReal(nA)) dn = PETSC_INFINITY;
  /* sampled entries: at this rank's own entries (nonzero) and anywhere in its rows */
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, NULL, &N));
  for (PetscInt t = 0; t < 200 && rend > rstart; t++) {
    PetscInt    i = rstart + RandInt(&s, rend - rstart), j = RandInt(&s, N);
    PetscScalar a, r;

    if (t % 2 && c->n) {
      PetscCount e = RandInt(&s, (PetscInt)c->n);

      if (c->ci[e] >= rstart && c->ci[e] < rend && c->cj[e] >= 0) {
        i = c->ci[e];
        j = c->cj[e];
      }
    }
    PetscCall(MatGetValues(A, 1, &i, 1, &j, &a));
    PetscCall(MatGetValues(R, 1, &i, 1, &j, &r));
    dv = PetscMax(dv, PetscIsInfOrNanScalar(a) ? PETSC_INFINITY : PetscAbsScalar(a - r) / (1 + PetscAbsScalar(r)));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dv, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  {
    const PetscBool ok = (PetscBool)(dp <= 1e-12 && dn <= 1e-12 && dv <= 1e-12);

    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-30s product %.1e  norm %.1e  values %.1e  %s\n", step, (double)dp, (double)dn, (double)dv, ok ? "ok" : "FAILED"));
    if (!ok) c->nfail++;
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RandomValues(Ctx *c, PetscScalar **v, PetscBool nan)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(*v));
  PetscCall(PetscMalloc1(PetscMax(c->n, 1), v));
  for (PetscCount e = 0; e < c->n; e++) {
    if (nan) (*v)[e] = (PetscScalar)NAN;
    else PetscCall(PetscRandomGetValue(c->rnd, &(*v)[e]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSetValues() ADD of one value on both matrices, at an entry of this rank's rows in the pattern, preferably in a block
   column of another rank (the off-diagonal part), else in an off-diagonal block; then both assembled and compared */
static PetscErrorCode AddOffDiagonal(Ctx *c, Mat A, Mat R, const char *step)
{
  PetscInt    bs = c->bs, rs = c->rstartb * bs, re = (c->rstartb + c->nbl) * bs, pick = -1, best = 0;
  PetscScalar val = 0.75 + c->rank;

  PetscFunctionBeginUser;
  for (PetscCount e = 0; e < c->n; e++) {
    const PetscInt i = c->ci[e], j = c->cj[e];
    PetscInt       r;

    if (i < rs || i >= re || j < 0) continue;
    r = (j < rs || j >= re) ? 2 : (i / bs != j / bs ? 1 : 0);
    if (pick < 0 || r > best) {
      pick = (PetscInt)e;
      best = r;
    }
  }
  if (pick >= 0) {
    PetscCall(MatSetValues(A, 1, &c->ci[pick], 1, &c->cj[pick], &val, ADD_VALUES));
    PetscCall(MatSetValues(R, 1, &c->ci[pick], 1, &c->cj[pick], &val, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
  c->host_changed = PETSC_TRUE;
  PetscCall(Compare(c, A, R, step));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatDuplicate() of both (values copied) and MatSetValuesCOO() ADD on the duplicates; then a duplicate of the duplicate
   (values not copied), the first duplicate destroyed, and INSERT on the second: the COO maps outlive the matrix they
   were taken from and stay with the original */
static PetscErrorCode DuplicateSteps(Ctx *c, Mat A, Mat R, const char *name)
{
  Mat          D, RD, E, RE;
  PetscScalar *v = NULL;
  char         step[64];

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &RD));
  PetscCall(PetscSNPrintf(step, sizeof(step), "%s duplicate", name));
  PetscCall(Compare(c, D, RD, step));
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(SetValuesCounted(c, D, v, ADD_VALUES, PETSC_FALSE));
  PetscCall(MatSetValuesCOO(RD, v, ADD_VALUES));
  PetscCall(PetscSNPrintf(step, sizeof(step), "%s duplicate ADD", name));
  PetscCall(Compare(c, D, RD, step));
  PetscCall(MatDuplicate(D, MAT_DO_NOT_COPY_VALUES, &E));
  PetscCall(MatDuplicate(RD, MAT_DO_NOT_COPY_VALUES, &RE));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&RD));
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(SetValuesCounted(c, E, v, INSERT_VALUES, PETSC_FALSE));
  PetscCall(MatSetValuesCOO(RE, v, INSERT_VALUES));
  PetscCall(PetscSNPrintf(step, sizeof(step), "%s duplicate^2 INSERT", name));
  PetscCall(Compare(c, E, RE, step));
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&RE));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -err repattern, repattern_ghost: after the COO preallocation and values, another pattern of as many blocks by the
   ordinary preallocation and MatSetValues() (which leaves BAIJ's nonzero state as it was): MatSetValuesCOO() must refuse
   the old maps. repattern: the full blocks shifted by one block column; repattern_ghost (several ranks): only the ghost
   block columns move (GenGhostEntries()), the parts' compressed patterns stay the same. Were the maps taken, the result
   is compared with AIJ's for the COO pattern and values: it shows where the values landed */
static PetscErrorCode Repattern(Ctx *c, Mat A, Mat R, PetscInt64 seed, PetscBool ghost, PetscBool cont)
{
  PetscScalar   *v = NULL, one = 1;
  MatInfo        info[2];
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCheck(!ghost || (c->size > 1 && c->nbl - c->rank % 2 >= 2), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-err repattern_ghost needs several ranks and -nb 2 or more");
  if (ghost) PetscCall(GenGhostEntries(c, 0));
  else PetscCall(GenEntries(c, seed, 2, PETSC_TRUE, 0));
  PetscCall(Preallocate(c, A));
  PetscCall(Preallocate(c, R));
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info[0]));
  if (ghost) PetscCall(GenGhostEntries(c, 1));
  else PetscCall(GenEntries(c, seed, 2, PETSC_TRUE, 1));
  PetscCall(MatSeqBAIJSetPreallocation(A, c->bs, c->Mbs, NULL));
  PetscCall(MatMPIBAIJSetPreallocation(A, c->bs, c->nbl, NULL, c->Mbs, NULL));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
  for (PetscCount e = 0; e < c->n; e++) PetscCall(MatSetValues(A, 1, &c->ci[e], 1, &c->cj[e], &one, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info[1]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pattern replaced by MatSetValues: %g nonzeros, before %g\n", (double)info[1].nz_used, (double)info[0].nz_used));
  if (cont) PBG_TEST_REFUSE(ierr, MatSetValuesCOO(A, v, INSERT_VALUES)); /* -err_continue: caught, then the steps run on A */
  else PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  if (ierr) {
    PetscCall(PBGTestRefused(PETSC_COMM_WORLD, ierr, "MatSetValuesCOO()"));
    PetscCall(PetscFree(v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(Compare(c, A, R, "old maps, new pattern"));
  PetscCall(PetscFree(v));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatSetValuesCOO accepted the old maps\n"));
  c->nfail++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A point (i, j) of this rank's rows whose block is in the diagonal part and not in the pattern of the entries; i = -1
   where there is none */
static PetscErrorCode FindFreeBlock(Ctx *c, PetscInt *i, PetscInt *j)
{
  const PetscInt bs = c->bs, rs = c->rstartb, re = c->rstartb + c->nbl;

  PetscFunctionBeginUser;
  *i = *j = -1;
  for (PetscInt r = rs; r < re && *i < 0; r++) {
    for (PetscInt cb = rs; cb < re && *i < 0; cb++) {
      PetscBool used = PETSC_FALSE;

      for (PetscCount e = 0; e < c->n && !used; e++) used = (PetscBool)(c->ci[e] >= 0 && c->cj[e] >= 0 && c->ci[e] / bs == r && c->cj[e] / bs == cb);
      if (!used) {
        *i = r * bs + bs - 1;
        *j = cb * bs;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -err insert_unassembled: after the COO values a block that is not in the pattern, by MatSetValues() on rank 0 only
   (new nonzeros allowed), then MatSetValuesCOO() with no assembly between: the matrix holds another pattern (on several
   ranks its parts still say assembled), and MatSetValuesCOO() must refuse the maps, on every rank (the others would
   wait in its communication). The error is caught (as -err_continue) and the steps then run on the same matrix. Were the
   maps taken, the result is compared with the right one: AIJ's COO values, then the new entry (MPIAIJ's
   MatSetValuesCOO() would take its stale maps here too, so the reference sets the COO values first) */
static PetscErrorCode InsertUnassembled(Ctx *c, Mat A, Mat R, PetscInt64 seed)
{
  PetscScalar   *v = NULL, val = 0.5;
  PetscInt       i = -1, j = -1;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(GenEntries(c, seed, 2, PETSC_TRUE, 0));
  PetscCall(Preallocate(c, A));
  PetscCall(Preallocate(c, R));
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  if (!c->rank) PetscCall(FindFreeBlock(c, &i, &j));
  PetscCheck(c->rank || i >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no block outside the pattern in the diagonal part of rank 0");
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  if (i >= 0) PetscCall(MatSetValues(A, 1, &i, 1, &j, &val, INSERT_VALUES));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "new entry (%" PetscInt_FMT ", %" PetscInt_FMT ") outside the pattern on rank 0, not assembled\n", i, j));
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetValuesCOO(A, v, INSERT_VALUES);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *text = NULL, *specific = NULL;

    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] refused (error %d): %s\n", (int)c->rank, (int)ierr, specific ? specific : text));
    PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  } else {
    PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
    PetscCall(MatSetOption(R, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    if (i >= 0) PetscCall(MatSetValues(R, 1, &i, 1, &j, &val, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
    PetscCall(Compare(c, A, R, "old maps, new block"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatSetValuesCOO accepted the old maps\n"));
    c->nfail++;
  }
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -err zerorows|zerorowscolumns|axpy|copy: after the COO preallocation and values, a route that may change the pattern
   with no MatAssemblyBegin/End() of the caller: MatZeroRows() of the first block row of each rank (diagonal 0: BAIJ
   drops the blocks of whole zeroed block rows), MatZeroRowsColumns() of the same rows, MatAXPY() and MatCopy() with
   DIFFERENT_NONZERO_PATTERN from a matrix of one more block a rank. Then MatSetValuesCOO() INSERT of new values: it
   must refuse (on every rank) or give exactly AIJ's COO values; for axpy and copy, whose pattern grew, only the refusal
   is right. A refusal is caught (as -err_continue) and reported; accepted values are compared with the reference. */
static PetscErrorCode PatternRoute(Ctx *c, Mat A, Mat R, PetscInt64 seed, const char *route)
{
  PetscScalar   *v = NULL;
  PetscErrorCode ierr;
  PetscBool      zr, zrc, axpy, copy;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(route, "zerorows", &zr));
  PetscCall(PetscStrcmp(route, "zerorowscolumns", &zrc));
  PetscCall(PetscStrcmp(route, "axpy", &axpy));
  PetscCall(PetscStrcmp(route, "copy", &copy));
  PetscCall(GenEntries(c, seed, 2, PETSC_TRUE, 0));
  PetscCall(Preallocate(c, A));
  PetscCall(Preallocate(c, R));
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
  if (zr || zrc) {
    PetscInt *rows, nr = c->bs;

    PetscCall(PetscMalloc1(nr, &rows));
    for (PetscInt q = 0; q < nr; q++) rows[q] = c->rstartb * c->bs + q;
    if (zr) PetscCall(MatZeroRows(A, nr, rows, 0.0, NULL, NULL));
    else PetscCall(MatZeroRowsColumns(A, nr, rows, 0.0, NULL, NULL));
    PetscCall(PetscFree(rows));
  } else {
    Mat         B;
    PetscInt    i, j;
    PetscScalar one = 1;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(FindFreeBlock(c, &i, &j));
    if (i >= 0) PetscCall(MatSetValues(B, 1, &i, 1, &j, &one, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    if (axpy) PetscCall(MatAXPY(A, 2.0, B, DIFFERENT_NONZERO_PATTERN));
    else PetscCall(MatCopy(B, A, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s after the COO values\n", route));
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PBG_TEST_REFUSE(ierr, MatSetValuesCOO(A, v, INSERT_VALUES));
  if (ierr) PetscCall(PBGTestRefused(PETSC_COMM_WORLD, ierr, "MatSetValuesCOO()"));
  else {
    char step[64];

    PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
    PetscCall(PetscSNPrintf(step, sizeof(step), "COO INSERT after %s", route));
    PetscCall(Compare(c, A, R, step));
    if (axpy || copy) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatSetValuesCOO accepted the old maps on a grown pattern\n"));
      c->nfail++;
    }
  }
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One pattern: preallocate both, then the steps; the reference gets the same values (not the NaN) */
static PetscErrorCode RunPattern(Ctx *c, Mat A, Mat R, const char *name, PetscBool second)
{
  PetscScalar *v = NULL;
  char         step[64];
  PetscCount   ntot = c->n;
  PetscBool    assembled;

  PetscFunctionBeginUser;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ntot, 1, MPIU_COUNT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pattern %s: %" PetscCount_FMT " entries on %d ranks\n", name, ntot, c->size));
  if (c->device_values) {
    if (c->dv) PetscCallCUDA(cudaFree(c->dv));
    c->dv = NULL;
    if (c->n) PetscCallCUDA(cudaMalloc((void **)&c->dv, c->n * sizeof(PetscScalar)));
  }
  PetscCall(Preallocate(c, A));
  PetscCall(Preallocate(c, R));
  PetscCall(MatAssembled(A, &assembled));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after MatSetPreallocationCOO: %s\n", assembled ? "assembled" : "not assembled (as AIJ)"));
  if (c->assemble_between) { /* the pattern assembled with zero values, a host change, then the COO values added */
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscSNPrintf(step, sizeof(step), "%s assembled", name));
    PetscCall(Compare(c, A, R, step));
    if (c->between_setvalues) {
      PetscCall(PetscSNPrintf(step, sizeof(step), "%s MatSetValues ADD", name));
      PetscCall(AddOffDiagonal(c, A, R, step));
    }
    PetscCall(RandomValues(c, &v, PETSC_FALSE));
    PetscCall(SetValues(c, A, v, ADD_VALUES));
    PetscCall(MatSetValuesCOO(R, v, ADD_VALUES));
    PetscCall(PetscSNPrintf(step, sizeof(step), "%s COO ADD after", name));
    PetscCall(Compare(c, A, R, step));
  }
  if (!second) {
    PetscCall(RandomValues(c, &v, PETSC_TRUE));
    PetscCall(SetValues(c, A, v, INSERT_VALUES));
  }
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(SetValues(c, A, v, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
  PetscCall(MatViewFromOptions(A, NULL, "-coo_view"));
  PetscCall(PetscSNPrintf(step, sizeof(step), "%s INSERT", name));
  PetscCall(Compare(c, A, R, step));
  if (c->duplicate) PetscCall(DuplicateSteps(c, A, R, name));
  if (c->assemble_between && c->between_setvalues) {
    PetscCall(PetscSNPrintf(step, sizeof(step), "%s INSERT, MatSetValues", name));
    PetscCall(AddOffDiagonal(c, A, R, step));
  }
  PetscCall(RandomValues(c, &v, PETSC_FALSE));
  PetscCall(SetValues(c, A, v, ADD_VALUES));
  PetscCall(MatSetValuesCOO(R, v, ADD_VALUES));
  PetscCall(PetscSNPrintf(step, sizeof(step), "%s ADD", name));
  PetscCall(Compare(c, A, R, step));
  if (!second) {
    PetscCall(RandomValues(c, &v, PETSC_FALSE));
    PetscCall(SetValues(c, A, v, INSERT_VALUES));
    PetscCall(MatSetValuesCOO(R, v, INSERT_VALUES));
    PetscCall(PetscSNPrintf(step, sizeof(step), "%s INSERT again", name));
    PetscCall(Compare(c, A, R, step));
  }
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx        c;
  Mat        A, R;
  PetscInt   nb = 6, seed = 1;
  char       err[32] = "none", mtype[64] = MATBAIJKSPARSE;
  PetscCount negative_count = -1;
  PetscBool  eq, err_continue = PETSC_FALSE, same_count = PETSC_FALSE, check_transfers = PETSC_TRUE; /* -check_transfers 0: several ranks with an MPI that is not CUDA-aware stage the sent entries through the host */
  MatType    atype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.bs = 3;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &c.bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device_values", &c.device_values, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bind_to_cpu", &c.bound, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_transfers", &check_transfers, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-err", err, sizeof(err), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-err_continue", &err_continue, NULL));
  { /* (a PetscCount beyond 32 bits: read as a real, exact to 2^53) */
    PetscReal nc = -1;

    PetscCall(PetscOptionsGetReal(NULL, NULL, "-negative_count", &nc, NULL));
    negative_count = (PetscCount)nc;
  }
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-coo_local", &c.coo_local, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-assemble_between", &c.assemble_between, NULL));
  c.between_setvalues = PETSC_TRUE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-between_setvalues", &c.between_setvalues, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-same_count_pattern", &same_count, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-duplicate", &c.duplicate, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mtype, sizeof(mtype), NULL));
  PetscCheck(c.bs >= 1 && nb >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs and -nb must be positive");
  {
    int count = 0;

    c.gpu = (PetscBool)(cudaGetDeviceCount(&count) == cudaSuccess && count > 0);
    if (!c.gpu) (void)cudaGetLastError();
  }
  PetscCheck(!c.device_values || c.gpu, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-device_values needs a CUDA device");
  if (c.gpu) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* the rank's GPU chosen (rank modulo the GPUs) before the cudaMalloc of -device_values */
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &c.rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &c.size));
  for (PetscMPIInt r = 0; r < c.size; r++) {
    const PetscInt m = nb + (r % 2);

    if (r < c.rank) c.rstartb += m;
    if (r == c.rank) c.nbl = m;
    c.Mbs += m;
  }
  c.longrow = PetscMin(1, c.Mbs - 1);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &c.rnd));
  PetscCall(PetscRandomSetInterval(c.rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(c.rnd, (unsigned long)(1000 + 17 * seed + c.rank)));
  PetscCall(PetscRandomSeed(c.rnd));

  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, c.nbl * c.bs, c.nbl * c.bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(A, c.bs));
  PetscCall(MatSetType(A, mtype));
  if (c.bound) PetscCall(MatBindToCPU(A, PETSC_TRUE));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &R));
  PetscCall(MatSetSizes(R, c.nbl * c.bs, c.nbl * c.bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(R, MATAIJ));
  if (c.coo_local) { /* a local-to-global map that is the identity: local indices are global ones */
    ISLocalToGlobalMapping l2g;
    PetscInt              *idx;

    PetscCall(PetscMalloc1(c.Mbs * c.bs, &idx));
    for (PetscInt q = 0; q < c.Mbs * c.bs; q++) idx[q] = q;
    PetscCall(ISLocalToGlobalMappingCreate(PETSC_COMM_SELF, 1, c.Mbs * c.bs, idx, PETSC_OWN_POINTER, &l2g));
    PetscCall(MatSetLocalToGlobalMapping(A, l2g, l2g));
    PetscCall(MatSetLocalToGlobalMapping(R, l2g, l2g));
    PetscCall(ISLocalToGlobalMappingDestroy(&l2g));
  }
  PetscCall(MatGetType(A, &atype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, bs %" PetscInt_FMT ", %" PetscInt_FMT " block rows on %d ranks, values from the %s%s\n", atype, c.bs, c.Mbs, c.size, c.device_values ? "device" : "host", c.gpu ? " (a GPU is present)" : ""));

  PetscCall(PetscStrcmp(err, "noprealloc", &eq));
  if (eq) { /* preallocated, but not by COO */
    PetscScalar one = 1;

    PetscCall(MatXAIJSetPreallocation(A, c.bs, NULL, NULL, NULL, NULL));
    PetscCall(MatSetValuesCOO(A, &one, INSERT_VALUES));
  }
  PetscCall(PetscStrcmp(err, "range", &eq));
  if (!eq) PetscCall(PetscStrcmp(err, "negative", &eq));
  if (eq) { /* range: an entry one past the last row on the last rank; negative: a count of -1 */
    PetscInt   i[2] = {0, c.Mbs * c.bs - (c.rank == c.size - 1 ? 0 : 1)}, j[2] = {0, 0};
    PetscCount n = err[0] == 'n' ? negative_count : 2;

    if (!err_continue) PetscCall((c.coo_local ? MatSetPreallocationCOOLocal : MatSetPreallocationCOO)(A, n, i, j));
    else { /* the error caught, the matrix then used: nothing of the refused preallocation may stay behind (-malloc_dump) */ PetscErrorCode ierr;
      const char                                                                                                                           *text = NULL, *specific = NULL;

      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = (c.coo_local ? MatSetPreallocationCOOLocal : MatSetPreallocationCOO)(A, n, i, j);
      PetscCall(PetscPopErrorHandler());
      PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatSetPreallocationCOO() accepted the bad entries");
      PetscCall(PetscErrorMessage(ierr, &text, &specific));
      PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] refused (error %d): %s\n", (int)c.rank, (int)ierr, specific ? specific : text));
      PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
    }
  }
  PetscCall(PetscStrcmp(err, "repattern", &eq));
  if (eq) PetscCall(Repattern(&c, A, R, seed, PETSC_FALSE, err_continue));
  PetscCall(PetscStrcmp(err, "repattern_ghost", &eq));
  if (eq) PetscCall(Repattern(&c, A, R, seed, PETSC_TRUE, err_continue));
  PetscCall(PetscStrcmp(err, "insert_unassembled", &eq));
  if (eq) PetscCall(InsertUnassembled(&c, A, R, seed));
  {
    PetscBool route = PETSC_FALSE;

    for (const char *const *r = (const char *const[]){"zerorows", "zerorowscolumns", "axpy", "copy", NULL}; *r && !route; r++) {
      PetscCall(PetscStrcmp(err, *r, &route));
      if (route) PetscCall(PatternRoute(&c, A, R, seed, *r));
    }
  }
  PetscCall(PetscStrcmp(err, "mode", &eq));
  if (eq) {
    PetscInt    i[1] = {0}, j[1] = {0};
    PetscScalar one = 1;

    PetscCall(MatSetPreallocationCOO(A, 1, i, j));
    PetscCall(MatSetValuesCOO(A, &one, MAX_VALUES));
  }

  PetscCall(GenEntries(&c, seed, 1, PETSC_FALSE, 0));
  PetscCall(RunPattern(&c, A, R, "random", PETSC_FALSE));
  PetscCall(GenEntries(&c, seed, 2, PETSC_TRUE, 0));
  PetscCall(RunPattern(&c, A, R, "full blocks", PETSC_TRUE));
  if (same_count) { /* other blocks, as many: the maps of the previous pattern must not be taken for this one */
    PetscCall(GenEntries(&c, seed, 2, PETSC_TRUE, 1));
    PetscCall(RunPattern(&c, A, R, "shifted blocks", PETSC_TRUE));
  }
  if (c.duplicate) { /* a duplicate that outlives its original */
    Mat          D, RD;
    PetscScalar *v = NULL;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
    PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &RD));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&R));
    A = D;
    R = RD;
    PetscCall(RandomValues(&c, &v, PETSC_FALSE));
    PetscCall(SetValuesCounted(&c, A, v, ADD_VALUES, PETSC_FALSE));
    PetscCall(MatSetValuesCOO(R, v, ADD_VALUES));
    PetscCall(Compare(&c, A, R, "original destroyed ADD"));
    PetscCall(PetscFree(v));
  }

  {
    PetscLogDouble t[4] = {c.ctog, c.ctog_expected, c.gtoc, c.gtoc_expected};
    PetscBool      ok   = (PetscBool)(!check_transfers || (c.ctog == c.ctog_expected && c.gtoc == c.gtoc_expected));

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 4, MPIU_PETSCLOGDOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatSetValuesCOO transfers: host->device %.0f bytes (expected %.0f), device->host %.0f bytes (expected %.0f): %s\n", t[0], t[1], t[2], t[3],
                          !check_transfers ? "not checked (-check_transfers 0)"
                          : ok             ? "ok"
                                           : "FAILED"));
    if (!ok) c.nfail++;
  }
  if (c.dv) PetscCallCUDA(cudaFree(c.dv));
  PetscCall(PetscFree(c.ci));
  PetscCall(PetscFree(c.cj));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(PetscRandomDestroy(&c.rnd));
  if (!c.nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %" PetscInt_FMT " checks\n", c.nfail));
  PetscCall(PetscFinalize());
  return c.nfail ? 1 : 0;
}
