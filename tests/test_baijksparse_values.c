static char help[] = "Value operations of MATBAIJKSPARSE (seq and MPI) against PETSc's MATBAIJ on the host, step by step.\n"
                     "Y (baijksparse) and Yref (baij) hold the same random block-sparse matrix; X/Xref have the same pattern and other\n"
                     "values, Z/Zref a strict subset of the pattern. Each step runs on both, then compares (a) MatMult (and, for\n"
                     "multtranspose, MatMultTranspose) on poisoned outputs, which on a GPU reads the device values, and (b) MatGetValues\n"
                     "on a random sample of local entries and MatNorm(NORM_FROBENIUS), which read the host values; (a) first in even\n"
                     "steps, (b) first in odd ones. Steps, run in this order (each round starts by refilling every matrix with fresh\n"
                     "values, Y and Yref re-growing what zerorows removed):\n"
                     "  scale shift axpy_same axpy_subset copy diagonalscale diagonalset_add diagonalset_insert getdiagonal\n"
                     "  zeroentries_setvalues zerorows zerorowscolumns duplicate convert multtranspose\n"
                     "  grow_zeroentries (on duplicates of Y and Yref: a product, a new nonzero, MatZeroEntries, values set)\n"
                     "  shift_grow (on duplicates: a shift, a new block left of the diagonal in every block row but the first, a shift)\n"
                     "Options: -bs <1..64> (3), -nb <block rows per rank, 8; odd ranks get one more>, -seed <1>, -rounds <2>,\n"
                     "  -ops <comma list of steps, default all>, -vec_type <standard|cuda> (the type of MatCreateVecs(Y)),\n"
                     "  -axpy_unknown (axpy_same passes UNKNOWN_NONZERO_PATTERN, as TS does at every step: found the same on the device)\n"
                     "  -missing_diag (every third block row of Y, X lacks its diagonal block: shift, diagonal set, zero rows with a\n"
                     "  diagonal take the host path, which inserts it),\n"
                     "  -rows_unsorted (the rows of zerorows and zerorowscolumns shuffled, a third of them given twice),\n"
                     "  -check_transfers (with -vec_type cuda: X and Z are put on the device after each fill, the vectors an operation\n"
                     "  reads too, and around each operation on Y that is to run on the device (all but the host fallbacks: a\n"
                     "  missing diagonal block; set values, grow, convert are not checked) the matrix copies between host and device\n"
                     "  (events BAIJKCopyToGPU, BAIJKCopyFromGPU) must not run and PETSc's byte counters petsc_ctog_sz, petsc_gtoc_sz\n"
                     "  must move by no more than the row indices or ghost vector entries the operation sends; a line per check),\n"
                     "  -bad_row <r> [-bad_row_columns] (after each round's fill, MatZeroRows() (MatZeroRowsColumns()) of Y with the\n"
                     "  row r, invalid on each rank, must fail; the error ends the program, or with -err_continue it is caught\n"
                     "  (tests/test_refusal.h) and printed, and the steps then run on the same Y)\n";

#include <petscblockgpu.h>

#define NSTEPS 17
static const char *const StepNames[NSTEPS] = {"scale",    "shift",           "axpy_same", "axpy_subset", "copy",          "diagonalscale",    "diagonalset_add", "diagonalset_insert", "getdiagonal", "zeroentries_setvalues",
                                              "zerorows", "zerorowscolumns", "duplicate", "convert",     "multtranspose", "grow_zeroentries", "shift_grow"};
enum {
  S_SCALE,
  S_SHIFT,
  S_AXPY_SAME,
  S_AXPY_SUBSET,
  S_COPY,
  S_DIAGONALSCALE,
  S_DIAGONALSET_ADD,
  S_DIAGONALSET_INSERT,
  S_GETDIAGONAL,
  S_ZEROENTRIES_SETVALUES,
  S_ZEROROWS,
  S_ZEROROWSCOLUMNS,
  S_DUPLICATE,
  S_CONVERT,
  S_MULTTRANSPOSE,
  S_GROW_ZEROENTRIES,
  S_SHIFT_GROW
};

#include "test_refusal.h"
#include "test_rng.h" /* NextRand, RandInt, RandReal: the same sequence on every rank for a seed */
static PetscInt64 MixSeed(PetscInt64 a, PetscInt64 b, PetscInt64 c)
{
  PetscInt64 s = (a * 1000003 + b * 7919 + c * 104729 + 12345) & 0x7fffffffffffffffLL;

  if (!s) s = 1;
  for (int i = 0; i < 4; i++) NextRand(&s); /* decorrelate nearby seeds */
  return s;
}

typedef struct {
  PetscMPIInt    rank, size;
  PetscInt       bs, nbl, rstartb, Mbs, maxlen; /* local block rows, first local block row, global block rows, longest block row */
  PetscInt      *ptr, *col;                     /* the block pattern of Y and X: local block rows, global block columns */
  PetscInt      *zptr, *zcol;                   /* Z's, a strict subset */
  PetscInt64     seed, gs, ls;                  /* -seed; the stream shared by all ranks (scalars); this rank's stream */
  PetscReal      tolp, tolv;
  Mat            Y, Yref, X, Xref, Z, Zref;
  Vec            x, y, yref, u, w, wref; /* x, w, wref: column layout; y, yref, u: row layout */
  PetscRandom    rnd;
  PetscScalar    nan;
  PetscBool      missingdiag;    /* -missing_diag */
  PetscBool      axpyunknown;    /* -axpy_unknown: axpy_same passes UNKNOWN_NONZERO_PATTERN, as TS does */
  PetscBool      rowsunsorted;   /* -rows_unsorted */
  PetscBool      check, xferok;  /* -check_transfers; the last checked step moved no matrix values */
  PetscInt       nghost, zghost; /* ghost block columns of Y's and Z's local rows */
  PetscLogEvent  evup, evdown;   /* BAIJKCopyToGPU, BAIJKCopyFromGPU */
  PetscLogDouble ctog0, gtoc0;   /* the counters when the check began */
  int            nup0, ndown0;
} Ctx;

/* ------------------------------------------------------------------------------------------ pattern and matrices */
static PetscErrorCode BuildPattern(Ctx *c, PetscInt nb)
{
  PetscInt64 s;
  PetscInt  *tmp, nz = 0, zn = 0;

  PetscFunctionBeginUser;
  c->Mbs = 0;
  for (PetscMPIInt r = 0; r < c->size; r++) {
    const PetscInt m = nb + (r % 2); /* uneven ranks */
    if (r < c->rank) c->rstartb += m;
    if (r == c->rank) c->nbl = m;
    c->Mbs += m;
  }
  s = MixSeed(c->seed, 1, c->rank);
  PetscCall(PetscMalloc1(c->Mbs, &tmp));
  PetscCall(PetscMalloc1(c->nbl + 1, &c->ptr));
  PetscCall(PetscMalloc1(c->nbl * c->Mbs + 1, &c->col));
  c->ptr[0] = 0;
  for (PetscInt i = 0; i < c->nbl; i++) {
    const PetscInt row = c->rstartb + i, kind = RandInt(&s, 8);
    PetscInt       n = 0;

    for (PetscInt j = 0; j < c->Mbs; j++) tmp[j] = 0;
    tmp[row] = 1; /* every block row has its diagonal block */
    if (kind == 1) {
      for (PetscInt j = 0; j < c->Mbs; j++)
        if (RandInt(&s, 4)) tmp[j] = 1; /* a long row */
    } else if (kind != 0 || i == 0) {   /* kind 0: the diagonal only (never the first row, so Z can lose a block) */
      const PetscInt extra = 1 + RandInt(&s, 4);
      for (PetscInt e = 0; e < extra; e++) tmp[RandInt(&s, c->Mbs)] = 1; /* couplings anywhere: across ranks under MPI */
      if (i == 0 && c->Mbs > 1) tmp[(row + 1) % c->Mbs] = 1;
    }
    if (c->missingdiag && i % 3 == 1) { /* no diagonal block in this row, but not an empty row */
      tmp[row]                = 0;
      tmp[(row + 1) % c->Mbs] = 1;
      if (c->Mbs == 1) tmp[row] = 1;
    }
    for (PetscInt j = 0; j < c->Mbs; j++)
      if (tmp[j]) c->col[nz + n++] = j;
    nz += n;
    c->ptr[i + 1] = nz;
  }
  /* Z: each block kept with probability 3/4, the last block of the first local row always dropped (a strict subset on
     every rank; a row of Z may lose its diagonal block or end up empty) */
  PetscCall(PetscMalloc1(c->nbl + 1, &c->zptr));
  PetscCall(PetscMalloc1(nz + 1, &c->zcol));
  c->zptr[0] = 0;
  for (PetscInt i = 0; i < c->nbl; i++) {
    for (PetscInt p = c->ptr[i]; p < c->ptr[i + 1]; p++) {
      if (i == 0 && p == c->ptr[1] - 1) continue;
      if (RandInt(&s, 4)) c->zcol[zn++] = c->col[p];
    }
    c->zptr[i + 1] = zn;
  }
  c->maxlen = 0;
  for (PetscInt i = 0; i < c->nbl; i++) c->maxlen = PetscMax(c->maxlen, c->ptr[i + 1] - c->ptr[i]);
  /* ghost block columns (the off-process columns of the local rows) of Y and of Z */
  for (PetscInt m = 0; m < 2; m++) {
    const PetscInt *pp = m ? c->zptr : c->ptr, *cc = m ? c->zcol : c->col;
    PetscInt        ng = 0;

    for (PetscInt j = 0; j < c->Mbs; j++) tmp[j] = 0;
    for (PetscInt p = 0; p < pp[c->nbl]; p++)
      if ((cc[p] < c->rstartb || cc[p] >= c->rstartb + c->nbl) && !tmp[cc[p]]++) ng++;
    if (m) c->zghost = ng;
    else c->nghost = ng;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &c->maxlen, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateMat(Ctx *c, const PetscInt *ptr, const PetscInt *col, MatType type, const char *vtype, Mat *M)
{
  PetscInt *dnnz, *onnz;
  PetscBool isk;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, M));
  PetscCall(MatSetSizes(*M, c->nbl * c->bs, c->nbl * c->bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*M, c->bs));
  PetscCall(MatSetType(*M, type));
  PetscCall(PetscStrcmp(type, MATBAIJKSPARSE, &isk));
  if (isk) { /* our matrices read the options (-mat_baijksparse_*); the references do not */
    PetscCall(MatSetFromOptions(*M));
    if (vtype[0]) PetscCall(MatSetVecType(*M, vtype));
  }
  PetscCall(PetscMalloc2(c->nbl, &dnnz, c->nbl, &onnz));
  for (PetscInt i = 0; i < c->nbl; i++) {
    dnnz[i] = onnz[i] = 0;
    for (PetscInt p = ptr[i]; p < ptr[i + 1]; p++) {
      if (col[p] >= c->rstartb && col[p] < c->rstartb + c->nbl) dnnz[i]++;
      else onnz[i]++;
    }
  }
  PetscCall(MatXAIJSetPreallocation(*M, c->bs, dnnz, onnz, NULL, NULL));
  /* the host paths of MatDiagonalSet() and MatZeroRowsColumns() insert the missing diagonal entries */
  if (c->missingdiag) PetscCall(MatSetOption(*M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same fresh random values into A and Aref on the given pattern (INSERT_VALUES, local rows), then assembled */
static PetscErrorCode FillPair(Ctx *c, const PetscInt *ptr, const PetscInt *col, PetscInt64 stream, Mat A, Mat Aref)
{
  PetscInt64   s  = stream;
  PetscInt     bs = c->bs;
  PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(bs * bs * PetscMax(c->maxlen, 1), &v));
  for (PetscInt i = 0; i < c->nbl; i++) {
    const PetscInt row = c->rstartb + i, n = ptr[i + 1] - ptr[i];

    if (!n) continue;
    for (PetscInt e = 0; e < bs * bs * n; e++) v[e] = RandReal(&s);
    PetscCall(MatSetValuesBlocked(A, 1, &row, n, col + ptr[i], v, INSERT_VALUES));
    PetscCall(MatSetValuesBlocked(Aref, 1, &row, n, col + ptr[i], v, INSERT_VALUES));
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Aref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aref, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ comparisons */
/* ||a - b||_2 / ||b||_2 (0 when both vanish; NaN when a holds NaN) */
static PetscErrorCode VecRelDiff(Vec a, Vec b, PetscReal *d)
{
  Vec       t;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &t));
  PetscCall(VecWAXPY(t, -1.0, b, a));
  PetscCall(VecNorm(t, NORM_2, &nd));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *d = nd == 0.0 ? 0.0 : nd / PetscMax(nb, PETSC_SMALL * PETSC_SMALL);
  if (PetscIsInfOrNanReal(nd)) *d = nd;
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (a): A x vs Aref x, with trans also A^T u vs Aref^T u. The outputs of A are poisoned (NaN); those of the reference are
   zeroed: PETSc 3.26's MATSEQBAIJ MatMult() (the generic kernel MatMult_SeqBAIJ_N: bs 8, 9, 10, 13, 14, 16 and up here)
   leaves the entries of an empty block row unwritten when the matrix does not use compressed rows (Z has such rows) */
static PetscErrorCode ProductDiff(Ctx *c, Mat A, Mat Aref, PetscBool trans, PetscReal *dp)
{
  PetscReal d;

  PetscFunctionBeginUser;
  PetscCall(VecSetRandom(c->x, c->rnd));
  PetscCall(VecSet(c->y, c->nan));
  PetscCall(VecSet(c->yref, 0.0));
  PetscCall(MatMult(A, c->x, c->y));
  PetscCall(MatMultAdd(Aref, c->x, c->yref, c->yref)); /* (the zeroed yref is read first, also from a CUDA vector:
     MatMult() writes through VecGetArrayWrite(), whose host array of a CUDA vector is not the device's zeros) */
  PetscCall(VecRelDiff(c->y, c->yref, dp));
  if (trans) {
    PetscCall(VecSetRandom(c->u, c->rnd));
    PetscCall(VecSet(c->w, c->nan));
    PetscCall(VecSet(c->wref, 0.0));
    PetscCall(MatMultTranspose(A, c->u, c->w));
    PetscCall(MatMultTransposeAdd(Aref, c->u, c->wref, c->wref));
    PetscCall(VecRelDiff(c->w, c->wref, &d));
    *dp = PetscIsNanReal(d) || d > *dp ? d : *dp;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (b): MatGetValues() on a random sample of the local rows (diagonal entries, entries of the diagonal block and of the
   pattern, random columns) and MatNorm(NORM_FROBENIUS): relative differences */
static PetscErrorCode ValuesDiff(Ctx *c, Mat A, Mat Aref, PetscReal *dv)
{
  const PetscInt bs = c->bs, ns = 64;
  PetscReal      sum[2] = {0.0, 0.0}, nf, nfr, de, df;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ns && c->nbl; k++) {
    const PetscInt ib = RandInt(&c->ls, c->nbl), r = (c->rstartb + ib) * bs + RandInt(&c->ls, bs), kind = k % 6;
    PetscInt       cl;
    PetscScalar    v, vr;

    if (kind == 0) cl = r;                                                                                                 /* the diagonal */
    else if (kind <= 2) cl = (c->rstartb + ib) * bs + RandInt(&c->ls, bs);                                                 /* the diagonal block */
    else if (kind <= 4) cl = c->col[c->ptr[ib] + RandInt(&c->ls, c->ptr[ib + 1] - c->ptr[ib])] * bs + RandInt(&c->ls, bs); /* a block of the pattern */
    else cl = RandInt(&c->ls, c->Mbs * bs);                                                                                /* anywhere (mostly zero) */
    PetscCall(MatGetValues(A, 1, &r, 1, &cl, &v));
    PetscCall(MatGetValues(Aref, 1, &r, 1, &cl, &vr));
    sum[0] += PetscRealPart((v - vr) * PetscConj(v - vr));
    sum[1] += PetscRealPart(vr * PetscConj(vr));
    if (PetscIsInfOrNanScalar(v)) sum[0] = PETSC_INFINITY;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sum, 2, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  de = sum[0] == 0.0 ? 0.0 : PetscSqrtReal(sum[0]) / PetscMax(PetscSqrtReal(sum[1]), PETSC_SMALL * PETSC_SMALL);
  PetscCall(MatNorm(A, NORM_FROBENIUS, &nf));
  PetscCall(MatNorm(Aref, NORM_FROBENIUS, &nfr));
  df = nf == nfr ? 0.0 : PetscAbsReal(nf - nfr) / PetscMax(nfr, PETSC_SMALL * PETSC_SMALL);
  if (PetscIsInfOrNanReal(nf)) df = nf;
  *dv = PetscIsInfOrNanReal(de) || de > df ? de : df;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(Ctx *c, Mat A, Mat Aref, PetscBool productfirst, PetscBool trans, PetscReal *dp, PetscReal *dv)
{
  PetscFunctionBeginUser;
  if (productfirst) {
    PetscCall(ProductDiff(c, A, Aref, trans, dp));
    PetscCall(ValuesDiff(c, A, Aref, dv));
  } else {
    PetscCall(ValuesDiff(c, A, Aref, dv));
    PetscCall(ProductDiff(c, A, Aref, trans, dp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal MaxDiff(PetscReal a, PetscReal b) /* NaN wins */
{
  if (PetscIsNanReal(a)) return a;
  if (PetscIsNanReal(b)) return b;
  return PetscMax(a, b);
}

static PetscErrorCode IsBAIJKSPARSE(Mat A, PetscBool *isk)
{
  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, isk, MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE, ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ -check_transfers */
/* The entries of a CUDA vector onto the device (uploaded when its host copy is newer), before a checked operation */
static PetscErrorCode ToDevice(Ctx *c, Vec v)
{
  const PetscScalar *a;
  PetscMemType       mt;

  PetscFunctionBeginUser;
  if (!c->check) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayReadAndMemType(v, &a, &mt));
  PetscCall(VecRestoreArrayReadAndMemType(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a diagonal block of Y is missing on some process: read from Yref, whose diagonal blocks are Y's (Y may keep
   more zero blocks, never fewer) */
static PetscErrorCode MissingDiagonal(Ctx *c, PetscBool *missing)
{
  PetscBool local = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->nbl && !local; i++) {
    const PetscInt  row = (c->rstartb + i) * c->bs;
    const PetscInt *cols;
    PetscInt        nc;
    PetscBool       found = PETSC_FALSE;

    PetscCall(MatGetRow(c->Yref, row, &nc, &cols, NULL));
    for (PetscInt j = 0; j < nc; j++) found = (PetscBool)(found || cols[j] / c->bs == c->rstartb + i);
    PetscCall(MatRestoreRow(c->Yref, row, &nc, &cols, NULL));
    local = (PetscBool)!found;
  }
  PetscCallMPI(MPIU_Allreduce(&local, missing, 1, MPI_C_BOOL, MPI_LOR, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CopyCounts(Ctx *c, int *up, int *down)
{
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, c->evup, &info));
  *up = info.count;
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, c->evdown, &info));
  *down = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before the operation of step s on Y: *active when s is to move no matrix values (collective) */
static PetscErrorCode CheckBegin(Ctx *c, PetscInt s, PetscBool *active)
{
  PetscBool missing;

  PetscFunctionBeginUser;
  *active = PETSC_FALSE;
  if (!c->check) PetscFunctionReturn(PETSC_SUCCESS);
  if (s == S_CONVERT || s == S_GROW_ZEROENTRIES || s == S_SHIFT_GROW) PetscFunctionReturn(PETSC_SUCCESS); /* host values needed, or a new pattern */
  if (s == S_ZEROROWSCOLUMNS && c->size > 1) {                                                            /* MPI: MPIBAIJ's host method (README) */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  transfers %s: not checked (the MPI type runs it on the host)\n", StepNames[s]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s == S_SHIFT || s == S_DIAGONALSET_ADD || s == S_DIAGONALSET_INSERT || s == S_ZEROROWS || s == S_ZEROROWSCOLUMNS) {
    PetscCall(MissingDiagonal(c, &missing));
    if (missing) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  transfers %s: not checked (a diagonal block is missing: the host path inserts it)\n", StepNames[s]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  c->ctog0 = petsc_ctog_sz;
  c->gtoc0 = petsc_gtoc_sz;
  PetscCall(CopyCounts(c, &c->nup0, &c->ndown0));
  *active = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After it: no matrix copy ran, and the byte counters moved by at most what the operation sends besides (row indices,
   ghost vector entries); a line per check, FAILED with the bytes when values moved */
static PetscErrorCode CheckEnd(Ctx *c, PetscInt s, PetscBool active)
{
  const PetscLogDouble m = (PetscLogDouble)c->nbl * c->bs;
  PetscLogDouble       d[4], allow[2] = {0.0, 0.0};
  int                  up, down;
  PetscBool            ok;

  PetscFunctionBeginUser;
  if (!active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CopyCounts(c, &up, &down));
  d[0] = petsc_ctog_sz - c->ctog0;
  d[1] = petsc_gtoc_sz - c->gtoc0;
  d[2] = up - c->nup0;
  d[3] = down - c->ndown0;
  if (s == S_ZEROROWS || s == S_ZEROROWSCOLUMNS) allow[0] = sizeof(PetscInt) * (2 * m + 2); /* the local rows */
  if (s == S_DIAGONALSCALE && c->size > 1) {                                                /* the ghost values of r */
    allow[0] = sizeof(PetscScalar) * (PetscLogDouble)c->nghost * c->bs;
    allow[1] = sizeof(PetscScalar) * m * (c->size - 1);
  }
  if (s == S_AXPY_SUBSET && c->size > 1) allow[0] = sizeof(int) * (PetscLogDouble)c->zghost; /* Z's ghost columns as Y's */
  ok = (PetscBool)(d[0] <= allow[0] && d[1] <= allow[1] && d[2] == 0 && d[3] == 0);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, d, 4, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  transfers %s: matrix copies to/from the device %g/%g, bytes host to device %g, device to host %g (max over ranks): %s\n", StepNames[s], d[2], d[3], d[0], d[1], ok ? "ok" : "FAILED"));
  if (!ok) c->xferok = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows for MatZeroRows()/MatZeroRowsColumns(): every row of one local block row (the whole block row: BAIJ then drops
   its off-diagonal blocks from the pattern), some other local rows, and under MPI the first row of the next rank; with
   -rows_unsorted the list is shuffled and a third of it is given twice (PETSc takes any order and repeats) */
static PetscErrorCode PickRows(Ctx *c, PetscInt *n, PetscInt **rows)
{
  const PetscInt bs = c->bs, m = c->nbl * bs, first = c->rstartb * bs, ib = RandInt(&c->ls, c->nbl);
  PetscBool     *mark;
  PetscInt       k = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(m, &mark));
  for (PetscInt j = 0; j < bs; j++) mark[ib * bs + j] = PETSC_TRUE;
  for (PetscInt j = 0; j < PetscMax(1, m / 8); j++) mark[RandInt(&c->ls, m)] = PETSC_TRUE;
  PetscCall(PetscMalloc1(2 * (m + 1), rows));
  for (PetscInt j = 0; j < m; j++)
    if (mark[j]) (*rows)[k++] = first + j;
  if (c->size > 1) (*rows)[k++] = (c->rank == c->size - 1 ? 0 : first + m); /* a row of another rank */
  if (c->rowsunsorted && k) {
    const PetscInt nrep = (k + 2) / 3;

    for (PetscInt j = 0; j < nrep; j++) (*rows)[k + j] = (*rows)[RandInt(&c->ls, k)];
    k += nrep;
    for (PetscInt j = k - 1; j > 0; j--) { /* Fisher-Yates */
      const PetscInt q = RandInt(&c->ls, j + 1), t = (*rows)[j];

      (*rows)[j] = (*rows)[q];
      (*rows)[q] = t;
    }
  }
  *n = k;
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ the steps */
/* Runs step s on Y and Yref (and on W, B made from them); *dp and *dv get the differences of what the step itself
   returns (a diagonal, a right-hand side, a duplicate or a conversion), compared in the order given */
static PetscErrorCode RunStep(Ctx *c, PetscInt s, PetscBool productfirst, PetscReal *dp, PetscReal *dv, PetscBool *typeok)
{
  Mat       Y = c->Y, Yref = c->Yref;
  PetscBool active;

  PetscFunctionBeginUser;
  *dp = *dv = 0.0;
  *typeok   = PETSC_TRUE;
  switch (s) {
  case S_SCALE: {
    const PetscScalar alpha = (1.25 + 0.5 * RandReal(&c->gs)) * (RandInt(&c->gs, 2) ? 1.0 : -1.0);
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatScale(Y, alpha));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatScale(Yref, alpha));
  } break;
  case S_SHIFT: {
    const PetscScalar beta = 0.5 + RandReal(&c->gs);
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatShift(Y, beta));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatShift(Yref, beta));
  } break;
  case S_AXPY_SAME: {
    const PetscScalar a = 0.75 + RandReal(&c->gs);
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatAXPY(Y, a, c->X, c->axpyunknown ? UNKNOWN_NONZERO_PATTERN : SAME_NONZERO_PATTERN));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatAXPY(Yref, a, c->Xref, SAME_NONZERO_PATTERN));
  } break;
  case S_AXPY_SUBSET: {
    const PetscScalar a = -0.75 + RandReal(&c->gs);
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatAXPY(Y, a, c->Z, SUBSET_NONZERO_PATTERN));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatAXPY(Yref, a, c->Zref, SUBSET_NONZERO_PATTERN));
  } break;
  case S_COPY:
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatCopy(c->X, Y, SAME_NONZERO_PATTERN));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatCopy(c->Xref, Yref, SAME_NONZERO_PATTERN));
    break;
  case S_DIAGONALSCALE: {
    Vec l, r;
    PetscCall(MatCreateVecs(Y, &r, &l));
    PetscCall(VecSetRandom(l, c->rnd));
    PetscCall(VecSetRandom(r, c->rnd));
    PetscCall(VecShift(l, 0.5)); /* entries in [-0.5, 1.5) */
    PetscCall(VecShift(r, -0.5));
    PetscCall(ToDevice(c, l));
    PetscCall(ToDevice(c, r));
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatDiagonalScale(Y, l, r));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatDiagonalScale(Yref, l, r));
    PetscCall(VecDestroy(&l));
    PetscCall(VecDestroy(&r));
  } break;
  case S_DIAGONALSET_ADD:
  case S_DIAGONALSET_INSERT: {
    const InsertMode mode = s == S_DIAGONALSET_ADD ? ADD_VALUES : INSERT_VALUES;
    Vec              dg;
    PetscCall(MatCreateVecs(Y, NULL, &dg));
    PetscCall(VecSetRandom(dg, c->rnd));
    PetscCall(ToDevice(c, dg));
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatDiagonalSet(Y, dg, mode));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatDiagonalSet(Yref, dg, mode));
    PetscCall(VecDestroy(&dg));
  } break;
  case S_GETDIAGONAL: {
    Vec v, vref;
    PetscCall(MatCreateVecs(Y, NULL, &v));
    PetscCall(VecDuplicate(v, &vref));
    PetscCall(VecSet(v, c->nan));
    PetscCall(VecSet(vref, c->nan));
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatGetDiagonal(Y, v));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatGetDiagonal(Yref, vref));
    PetscCall(VecRelDiff(v, vref, dv));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&vref));
  } break;
  case S_ZEROENTRIES_SETVALUES: {
    const PetscInt bs = c->bs, nset = 2 + bs;
    PetscInt64     ls0 = 0;
    PetscCall(CheckBegin(c, s, &active)); /* MatZeroEntries() only: the values set then are the host's */
    PetscCall(MatZeroEntries(Y));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatZeroEntries(Yref));
    /* entries of the local pattern (the first one added twice), and under MPI a diagonal entry of another rank */
    for (PetscInt k = 0; k < nset + 1; k++) {
      PetscInt    ib, r, cl;
      PetscScalar v;

      if (k == nset) {
        if (c->size == 1) break;
        r = cl = (c->rank == c->size - 1 ? 0 : (c->rstartb + c->nbl) * bs);
        v      = 1.0 + RandReal(&c->ls);
      } else {
        if (k == 1) c->ls = ls0; /* the same draws as k = 0 */
        if (k == 0) ls0 = c->ls;
        ib = RandInt(&c->ls, c->nbl);
        r  = (c->rstartb + ib) * bs + RandInt(&c->ls, bs);
        cl = c->col[c->ptr[ib] + RandInt(&c->ls, c->ptr[ib + 1] - c->ptr[ib])] * bs + RandInt(&c->ls, bs);
        v  = RandReal(&c->ls);
      }
      PetscCall(MatSetValues(Y, 1, &r, 1, &cl, &v, ADD_VALUES));
      PetscCall(MatSetValues(Yref, 1, &r, 1, &cl, &v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(Y, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(Yref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Y, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Yref, MAT_FINAL_ASSEMBLY));
  } break;
  case S_ZEROROWS:
  case S_ZEROROWSCOLUMNS: {
    const PetscScalar diag = 2.0 + RandReal(&c->gs);
    PetscInt          n = 0, *rows = NULL;
    Vec               xb, b, bref;
    PetscCall(PickRows(c, &n, &rows));
    PetscCall(MatCreateVecs(Y, &xb, &b));
    PetscCall(VecDuplicate(b, &bref));
    PetscCall(VecSetRandom(xb, c->rnd));
    PetscCall(VecSetRandom(b, c->rnd));
    PetscCall(VecCopy(b, bref));
    PetscCall(ToDevice(c, xb));
    PetscCall(ToDevice(c, b));
    PetscCall(CheckBegin(c, s, &active));
    if (s == S_ZEROROWS) PetscCall(MatZeroRows(Y, n, rows, diag, xb, b));
    else PetscCall(MatZeroRowsColumns(Y, n, rows, diag, xb, b));
    PetscCall(CheckEnd(c, s, active));
    if (s == S_ZEROROWS) {
      PetscCall(MatZeroRows(Yref, n, rows, diag, xb, bref));
    } else {
      PetscCall(MatZeroRowsColumns(Yref, n, rows, diag, xb, bref));
    }
    PetscCall(VecRelDiff(b, bref, dp)); /* the right-hand side, fixed with the matrix (columns: a product) */
    PetscCall(PetscFree(rows));
    PetscCall(VecDestroy(&xb));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&bref));
  } break;
  case S_DUPLICATE: { /* the copy matches, and changing the copy leaves Y alone (checked with Y after the step); Y is
                          scaled by 2 first (exact), which on a GPU leaves its device values the newer ones; a duplicate
                          without values is zero on both sides */
    Mat       W, W0;
    PetscReal nrm;
    PetscCall(MatScale(Y, 2.0));
    PetscCall(MatScale(Yref, 2.0));
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatDuplicate(Y, MAT_COPY_VALUES, &W));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatDuplicate(Y, MAT_DO_NOT_COPY_VALUES, &W0));
    PetscCall(VecSetRandom(c->x, c->rnd));
    PetscCall(VecSet(c->y, c->nan));
    PetscCall(MatMult(W0, c->x, c->y));
    PetscCall(VecNorm(c->y, NORM_INFINITY, &nrm));
    if (nrm != 0.0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  a duplicate without values gives a product of norm %g\n", (double)nrm));
    *typeok = (PetscBool)(nrm == 0.0);
    PetscCall(MatNorm(W0, NORM_FROBENIUS, &nrm));
    if (nrm != 0.0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  a duplicate without values has norm %g\n", (double)nrm));
    *typeok = (PetscBool)(*typeok && nrm == 0.0);
    PetscCall(MatDestroy(&W0));
    MatType   t;
    PetscBool isk;
    PetscCall(IsBAIJKSPARSE(W, &isk));
    PetscCall(MatGetType(W, &t));
    if (!isk) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  the duplicate is %s\n", t));
    *typeok = (PetscBool)(*typeok && isk);
    PetscCall(Compare(c, W, Yref, productfirst, PETSC_FALSE, dp, dv));
    PetscCall(MatScale(W, -3.0));
    PetscCall(MatShift(W, 1.0));
    PetscCall(VecSetRandom(c->x, c->rnd));
    PetscCall(MatMult(W, c->x, c->y));
    PetscCall(MatDestroy(&W));
  } break;
  case S_GROW_ZEROENTRIES: { /* on duplicates: a device copy (a product), then a new nonzero (the pattern grows on the
                               host), then MatZeroEntries() straight away and a few values: Y itself keeps its pattern */
    Mat            W, Wref, Ms[2];
    const PetscInt bs = c->bs, r = (c->rstartb + (c->nbl ? c->nbl - 1 : 0)) * bs;
    PetscInt       cl;
    PetscScalar    v = 1.5;

    PetscCall(MatDuplicate(Y, MAT_COPY_VALUES, &W));
    PetscCall(MatDuplicate(Yref, MAT_COPY_VALUES, &Wref));
    PetscCall(VecSetRandom(c->x, c->rnd));
    PetscCall(MatMult(W, c->x, c->y));
    Ms[0] = W;
    Ms[1] = Wref;
    PetscCall(MatGetSize(Y, NULL, &cl));
    cl = (c->nbl && r / bs != 0) ? 0 : cl - 1; /* block column 0 (or the last one): most rows do not hold it */
    for (PetscInt m = 0; m < 2; m++) {
      PetscCall(MatSetOption(Ms[m], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      if (c->nbl) PetscCall(MatSetValues(Ms[m], 1, &r, 1, &cl, &v, ADD_VALUES));
      PetscCall(MatAssemblyBegin(Ms[m], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(Ms[m], MAT_FINAL_ASSEMBLY));
      PetscCall(MatZeroEntries(Ms[m]));
      if (c->nbl) PetscCall(MatSetValues(Ms[m], 1, &r, 1, &r, &v, ADD_VALUES));
      PetscCall(MatAssemblyBegin(Ms[m], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(Ms[m], MAT_FINAL_ASSEMBLY));
    }
    PetscCall(Compare(c, W, Wref, productfirst, PETSC_FALSE, dp, dv));
    PetscCall(MatDestroy(&W));
    PetscCall(MatDestroy(&Wref));
  } break;
  case S_SHIFT_GROW: { /* on duplicates: a shift, then a new block left of the diagonal in every local block row but the
                         first (the stored diagonal blocks move), then a shift again, which must find them anew */
    Mat         W, Wref, Ms[2];
    PetscScalar v = 0.25;

    PetscCall(MatDuplicate(Y, MAT_COPY_VALUES, &W));
    PetscCall(MatDuplicate(Yref, MAT_COPY_VALUES, &Wref));
    Ms[0] = W;
    Ms[1] = Wref;
    for (PetscInt m = 0; m < 2; m++) {
      PetscCall(MatShift(Ms[m], 0.5));
      PetscCall(MatSetOption(Ms[m], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      for (PetscInt i = 0; i < c->nbl; i++) {
        const PetscInt r = (c->rstartb + i) * c->bs, cl = 0;

        if (r) PetscCall(MatSetValues(Ms[m], 1, &r, 1, &cl, &v, ADD_VALUES));
      }
      PetscCall(MatAssemblyBegin(Ms[m], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(Ms[m], MAT_FINAL_ASSEMBLY));
      PetscCall(MatShift(Ms[m], -1.25));
    }
    PetscCall(Compare(c, W, Wref, productfirst, PETSC_FALSE, dp, dv));
    PetscCall(MatDestroy(&W));
    PetscCall(MatDestroy(&Wref));
  } break;
  case S_CONVERT: {
    Mat       B;
    PetscBool isbaij;
    MatType   t;
    PetscCall(MatConvert(Y, MATBAIJ, MAT_INITIAL_MATRIX, &B));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &isbaij, MATSEQBAIJ, MATMPIBAIJ, ""));
    PetscCall(MatGetType(B, &t));
    if (!isbaij) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  the conversion is %s\n", t));
    *typeok = isbaij;
    PetscCall(Compare(c, B, Yref, productfirst, PETSC_TRUE, dp, dv));
    PetscCall(MatScale(B, 2.0)); /* and Y does not see it */
    PetscCall(MatDestroy(&B));
  } break;
  case S_MULTTRANSPOSE: {
    const PetscScalar g = -0.5 + 0.25 * RandReal(&c->gs);
    PetscCall(CheckBegin(c, s, &active));
    PetscCall(MatScale(Y, g));
    PetscCall(CheckEnd(c, s, active));
    PetscCall(MatScale(Yref, g));
  } break;
  default:
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "step %" PetscInt_FMT, s);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx         c;
  PetscInt    nb = 8, seed = 1, rounds = 2, nops = NSTEPS, count = 0, failround = -1;
  char       *opnames[NSTEPS + 1], vtype[64] = "";
  const char *failed = NULL;
  PetscBool   sel[NSTEPS], set, isk;
  MatType     ytype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.bs = 3;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &c.bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rounds", &rounds, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", vtype, sizeof(vtype), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-missing_diag", &c.missingdiag, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-axpy_unknown", &c.axpyunknown, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_transfers", &c.check, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rows_unsorted", &c.rowsunsorted, NULL));
  PetscCheck(c.bs >= 1 && c.bs <= 64, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs %" PetscInt_FMT ": must be 1..64", c.bs);
  PetscCheck(nb >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nb %" PetscInt_FMT ": must be positive", nb);
  PetscCheck(rounds >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rounds %" PetscInt_FMT ": must be positive", rounds);
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-ops", opnames, &nops, &set));
  for (PetscInt s = 0; s < NSTEPS; s++) sel[s] = (PetscBool)!set;
  if (set) {
    for (PetscInt i = 0; i < nops; i++) {
      PetscBool found = PETSC_FALSE;

      for (PetscInt s = 0; s < NSTEPS; s++) {
        PetscBool eq;

        PetscCall(PetscStrcmp(opnames[i], StepNames[s], &eq));
        if (eq) found = sel[s] = PETSC_TRUE;
      }
      /* on every rank (PETSC_COMM_SELF): an error on PETSC_COMM_WORLD is printed by rank 0 only, which another rank
         leaving main() first can get killed before it prints */
      PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "-ops: unknown op \"%s\"; the ops are scale, shift, axpy_same, axpy_subset, copy, diagonalscale, diagonalset_add, diagonalset_insert, getdiagonal, zeroentries_setvalues, zerorows, zerorowscolumns, duplicate, convert, multtranspose, grow_zeroentries, shift_grow", opnames[i]);
      PetscCall(PetscFree(opnames[i]));
    }
  }
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &c.rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &c.size));
  c.seed = seed;
  c.nan  = (PetscScalar)NAN;
  c.gs   = MixSeed(seed, 2, 0);
  c.ls   = MixSeed(seed, 3, c.rank);
  PetscCall(BuildPattern(&c, nb));
  c.xferok = PETSC_TRUE;
  if (c.check) { /* the copy events need the default log handler; the byte counters count without it */
    PetscBool cuda;

    PetscCall(PetscStrbeginswith(vtype, "cuda", &cuda));
    PetscCheck(cuda, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-check_transfers needs -vec_type cuda");
    PetscCall(PetscLogDefaultBegin());
    PetscCall(PetscLogEventGetId("BAIJKCopyToGPU", &c.evup));
    PetscCall(PetscLogEventGetId("BAIJKCopyFromGPU", &c.evdown));
  }
  c.tolp = 1e-12 * (1.0 + PetscSqrtReal((PetscReal)(c.bs * c.maxlen)));
  c.tolv = 1e-12;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &c.rnd));
  PetscCall(PetscRandomSetInterval(c.rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(c.rnd, (unsigned long)(1000 + seed)));
  PetscCall(PetscRandomSeed(c.rnd));

  PetscCall(CreateMat(&c, c.ptr, c.col, MATBAIJKSPARSE, vtype, &c.Y));
  PetscCall(CreateMat(&c, c.ptr, c.col, MATBAIJ, vtype, &c.Yref));
  PetscCall(CreateMat(&c, c.ptr, c.col, MATBAIJKSPARSE, vtype, &c.X));
  PetscCall(CreateMat(&c, c.ptr, c.col, MATBAIJ, vtype, &c.Xref));
  PetscCall(CreateMat(&c, c.zptr, c.zcol, MATBAIJKSPARSE, vtype, &c.Z));
  PetscCall(CreateMat(&c, c.zptr, c.zcol, MATBAIJ, vtype, &c.Zref));
  PetscCall(MatCreateVecs(c.Y, &c.x, &c.y));
  PetscCall(VecDuplicate(c.y, &c.yref));
  PetscCall(VecDuplicate(c.y, &c.u));
  PetscCall(VecDuplicate(c.x, &c.w));
  PetscCall(VecDuplicate(c.x, &c.wref));
  if (c.check) { /* the counters are live: a CUDA vector whose host copy changed goes up when read on the device */
    PetscScalar   *a;
    PetscLogDouble before = petsc_ctog_sz;
    PetscInt       n;

    PetscCall(VecGetLocalSize(c.y, &n));
    PetscCall(VecGetArray(c.y, &a));
    PetscCall(VecRestoreArray(c.y, &a));
    PetscCall(ToDevice(&c, c.y));
    PetscCheck(!n || petsc_ctog_sz - before >= (PetscLogDouble)n * sizeof(PetscScalar), PETSC_COMM_SELF, PETSC_ERR_LIB, "-check_transfers: petsc_ctog_sz moved by %g bytes for an upload of %" PetscInt_FMT " entries: the counters do not count", petsc_ctog_sz - before, n);
  }
  {
    VecType  vt;
    PetscInt M;

    PetscCall(VecGetType(c.x, &vt));
    PetscCall(MatGetSize(c.Y, &M, NULL));
    PetscCall(MatGetType(c.Y, &ytype));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, bs %" PetscInt_FMT ", %" PetscInt_FMT " block rows (%" PetscInt_FMT " rows) on %d ranks, longest block row %" PetscInt_FMT ", vectors %s, seed %" PetscInt_FMT ", tolerances %.1e (products) %.1e (values)\n", ytype, c.bs, c.Mbs, M, c.size, c.maxlen, vt, seed,
                          (double)c.tolp, (double)c.tolv));
  }

  for (PetscInt round = 0; round < rounds; round++) {
    PetscReal dp, dv;
    PetscBool ok, productfirst;

    /* fresh values; in later rounds Y and Yref may have lost blocks (zerorows): let them grow back */
    if (round > 0) {
      PetscCall(MatSetOption(c.Y, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetOption(c.Yref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    }
    PetscCall(FillPair(&c, c.ptr, c.col, MixSeed(seed, 100 + 3 * round, c.rank), c.Y, c.Yref));
    PetscCall(FillPair(&c, c.ptr, c.col, MixSeed(seed, 101 + 3 * round, c.rank), c.X, c.Xref));
    PetscCall(FillPair(&c, c.zptr, c.zcol, MixSeed(seed, 102 + 3 * round, c.rank), c.Z, c.Zref));
    if (c.check) { /* X and Z on the device too: MatAXPY() and MatCopy() read them there */
      PetscCall(MatMult(c.X, c.x, c.y));
      PetscCall(MatMult(c.Z, c.x, c.y));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "round %" PetscInt_FMT "\n", round));
    productfirst = (PetscBool)(round % 2 == 0);
    PetscCall(Compare(&c, c.Y, c.Yref, productfirst, PETSC_FALSE, &dp, &dv));
    ok = (PetscBool)(dp <= c.tolp && dv <= c.tolv);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step fill: product diff %.2e, values diff %.2e: %s\n", (double)dp, (double)dv, ok ? "ok" : "FAILED"));
    if (!ok && !failed) {
      failed    = "fill";
      failround = round;
    }
    { /* -bad_row r [-bad_row_columns]: MatZeroRows()/MatZeroRowsColumns() of the filled Y (its values on the device with
         CUDA vectors: the fill's product uploaded them) with one row r that the caller makes invalid (out of [0, local
         rows)): the call must fail with a message naming it, on every path */
      PetscInt  bad;
      PetscBool has, cols = PETSC_FALSE, cont = PETSC_FALSE;

      PetscCall(PetscOptionsGetInt(NULL, NULL, "-bad_row", &bad, &has));
      PetscCall(PetscOptionsGetBool(NULL, NULL, "-bad_row_columns", &cols, NULL));
      PetscCall(PetscOptionsGetBool(NULL, NULL, "-err_continue", &cont, NULL));
      if (has && cont) { /* refused, Y left as it was: the steps below compare it with Yref */
        PetscErrorCode ierr;

        PBG_TEST_REFUSE(ierr, cols ? MatZeroRowsColumns(c.Y, 1, &bad, 1.0, NULL, NULL) : MatZeroRows(c.Y, 1, &bad, 1.0, NULL, NULL));
        PetscCall(PBGTestRefused(PETSC_COMM_WORLD, ierr, cols ? "MatZeroRowsColumns()" : "MatZeroRows()"));
      } else if (has) {
        if (cols) PetscCall(MatZeroRowsColumns(c.Y, 1, &bad, 1.0, NULL, NULL));
        else PetscCall(MatZeroRows(c.Y, 1, &bad, 1.0, NULL, NULL));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatZeroRows%s() with row %" PetscInt_FMT " did not fail", cols ? "Columns" : "", bad);
      }
    }
    for (PetscInt s = 0; s < NSTEPS; s++) {
      PetscReal dp0, dv0;
      PetscBool typeok, isk;

      if (!sel[s]) continue;
      productfirst = (PetscBool)(count % 2 == 0); /* (a) before (b) in even steps, (b) before (a) in odd ones */
      count++;
      c.xferok = PETSC_TRUE;
      PetscCall(RunStep(&c, s, productfirst, &dp0, &dv0, &typeok));
      PetscCall(IsBAIJKSPARSE(c.Y, &isk));
      PetscCall(MatGetType(c.Y, &ytype));
      if (!isk) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  Y became %s\n", ytype));
      PetscCall(Compare(&c, c.Y, c.Yref, productfirst, (PetscBool)(s == S_MULTTRANSPOSE || s == S_CONVERT), &dp, &dv));
      dp = MaxDiff(dp, dp0);
      dv = MaxDiff(dv, dv0);
      ok = (PetscBool)(dp <= c.tolp && dv <= c.tolv && isk && typeok && c.xferok);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step %s: product diff %.2e, values diff %.2e: %s\n", StepNames[s], (double)dp, (double)dv, ok ? "ok" : "FAILED"));
      if (!ok && !failed) {
        failed    = StepNames[s];
        failround = round;
      }
    }
    /* the operands must not have changed (MatCopy()/MatAXPY() read them; a shared buffer would show here) */
    {
      PetscReal dpx, dvx, dpz, dvz;

      PetscCall(Compare(&c, c.X, c.Xref, PETSC_TRUE, PETSC_FALSE, &dpx, &dvx));
      PetscCall(Compare(&c, c.Z, c.Zref, PETSC_FALSE, PETSC_FALSE, &dpz, &dvz));
      dp = MaxDiff(dpx, dpz);
      dv = MaxDiff(dvx, dvz);
      ok = (PetscBool)(dp <= c.tolp && dv <= c.tolv);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step operands (X, Z unchanged): product diff %.2e, values diff %.2e: %s\n", (double)dp, (double)dv, ok ? "ok" : "FAILED"));
      if (!ok && !failed) {
        failed    = "operands";
        failround = round;
      }
    }
  }
  PetscCall(IsBAIJKSPARSE(c.Y, &isk));
  PetscCall(MatGetType(c.Y, &ytype));
  /* a failure: the step lines out first, then the error on every rank (see -ops above); failed and isk agree on all ranks */
  PetscCall(PetscFFlush(PETSC_STDOUT));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_PLIB, "step %s (round %" PetscInt_FMT ") failed: %s differs from the %s reference (first failure; see the step lines above)", failed, failround, ytype, MATBAIJ);
  PetscCheck(isk, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Y is %s after the steps, not %s", ytype, MATBAIJKSPARSE);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Y is still %s after %" PetscInt_FMT " steps in %" PetscInt_FMT " rounds\nOK\n", ytype, count, rounds));

  PetscCall(VecDestroy(&c.x));
  PetscCall(VecDestroy(&c.y));
  PetscCall(VecDestroy(&c.yref));
  PetscCall(VecDestroy(&c.u));
  PetscCall(VecDestroy(&c.w));
  PetscCall(VecDestroy(&c.wref));
  PetscCall(MatDestroy(&c.Y));
  PetscCall(MatDestroy(&c.Yref));
  PetscCall(MatDestroy(&c.X));
  PetscCall(MatDestroy(&c.Xref));
  PetscCall(MatDestroy(&c.Z));
  PetscCall(MatDestroy(&c.Zref));
  PetscCall(PetscRandomDestroy(&c.rnd));
  PetscCall(PetscFree(c.ptr));
  PetscCall(PetscFree(c.col));
  PetscCall(PetscFree(c.zptr));
  PetscCall(PetscFree(c.zcol));
  PetscCall(PetscFinalize());
  return 0;
}
