static char help[] = "MatConvert() between AIJ (aij, or aijcusparse with -mat_type aijcusparse) and MATBAIJKSPARSE, both ways, every MatReuse.\n"
                     "A random AIJ (bs x bs blocks, -partial: blocks only partly filled, empty block rows, one block row holding every\n"
                     "block column, -nbc: another number of block columns) goes aij -> baijksparse -> aij with MAT_INITIAL_MATRIX (the\n"
                     "generic and the seq type names), MAT_REUSE_MATRIX (the target's values poisoned with NaN first) and\n"
                     "MAT_INPLACE_MATRIX. Before each conversion the source's values are made newer on the device where it has one\n"
                     "(aijcusparse: MatScale; baijksparse: MatMult, then MatScale). After each: the type, the pattern (baijksparse: the blocks\n"
                     "that hold an entry; aij: every entry of every block), MatMult on a random x and every entry by MatGetValues against\n"
                     "the original times the scalings (relative 1e-14). With -expect_device 1: each conversion ran the device kernel\n"
                     "(event BAIJKConvert), moved nothing device -> host and at most the index arrays host -> device (PETSc's counters).\n"
                     "-source_on_host: the source is bound to the CPU (aijcusparse) or its host values are newer (baijksparse): the host path.\n"
                     "Options: -bs <3> -mb <8> -nbc <mb> -seed <1> -partial <1> -expect_device <0> -source_on_host <0>\n"
                     "  -err <none|bs|reuse_pattern>: a column block size that does not divide the columns; a MAT_REUSE_MATRIX target of another pattern\n";

#include <petscblockgpu.h>
#include <math.h>
#include "test_rng.h" /* NextRand, RandInt, RandReal */

typedef struct {
  PetscInt      bs, mb, nbc, m, n, nblocks; /* nblocks: the blocks holding an entry */
  PetscBool     partial, expect_device, source_on_host;
  Mat           R; /* the original, host MATSEQAIJ */
  PetscLogEvent ev;
  PetscInt      nfail;
  PetscInt      seed;
} Ctx;

/* The random AIJ: block row r empty when r % 5 == 4, block row 1 holds every block column, others 1..4 random block columns
   (and the diagonal one when it exists); each entry of a chosen block is present (all with -partial 0, about half of
   them, at least one, with -partial 1). Values in [-1, 1), never 0. Into R (MATSEQAIJ) and A (type from the options). */
static PetscErrorCode BuildAIJ(Ctx *c, PetscInt cbs, Mat *A)
{
  PetscInt64 s = (PetscInt64)c->seed * 7919 + 17;
  PetscInt  *cols, *mark, nb = 0;
  Mat        M[2];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(c->nbc, &cols, c->nbc, &mark));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(MatCreate(PETSC_COMM_SELF, &M[i]));
    PetscCall(MatSetSizes(M[i], c->m, c->n, c->m, c->n));
    PetscCall(MatSetBlockSizes(M[i], c->bs, cbs));
    PetscCall(MatSetType(M[i], MATAIJ));
    if (i == 1) PetscCall(MatSetFromOptions(M[i]));
    PetscCall(MatSeqAIJSetPreallocation(M[i], c->nbc * c->bs, NULL));
  }
  for (PetscInt r = 0; r < c->mb; r++) {
    PetscInt len = 0;

    if (r % 5 == 4) continue;
    for (PetscInt b = 0; b < c->nbc; b++) mark[b] = 0;
    if (r == 1) {
      for (PetscInt b = 0; b < c->nbc; b++) mark[b] = 1;
    } else {
      const PetscInt want = 1 + RandInt(&s, 4);

      if (r < c->nbc) mark[r] = 1;
      for (PetscInt t = 0; t < want; t++) mark[RandInt(&s, c->nbc)] = 1;
    }
    for (PetscInt b = 0; b < c->nbc; b++)
      if (mark[b]) cols[len++] = b;
    nb += len;
    for (PetscInt t = 0; t < len; t++) {
      PetscInt placed = 0;

      for (PetscInt ii = 0; ii < c->bs; ii++)
        for (PetscInt jj = 0; jj < c->bs; jj++) {
          const PetscBool last = (PetscBool)(ii == c->bs - 1 && jj == c->bs - 1);

          if (!c->partial || RandInt(&s, 2) || (last && !placed)) {
            const PetscInt i = r * c->bs + ii, j = cols[t] * c->bs + jj;
            PetscScalar    v = RandReal(&s);

            if (v == 0.0) v = 0.5;
            for (PetscInt k = 0; k < 2; k++) PetscCall(MatSetValue(M[k], i, j, v, INSERT_VALUES));
            placed++;
          }
        }
    }
  }
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(MatAssemblyBegin(M[i], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[i], MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscFree2(cols, mark));
  c->nblocks = nb;
  c->R       = M[0];
  *A         = M[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Fail(Ctx *c, const char *what, const char *why)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED %s: %s\n", what, why));
  c->nfail++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M against f R: its type, its stored entries, y = M x (the values where M computes: the device for device types),
   and every entry by MatGetValues (the host values, brought up to date by M) */
static PetscErrorCode Compare(Ctx *c, const char *what, Mat M, MatType type, PetscInt nz, PetscScalar f)
{
  Vec                x, y, xr, yr;
  const PetscScalar *ay, *ayr;
  PetscScalar       *ax, *axr, *row;
  PetscInt          *cols, bs;
  PetscReal          dy = 0, ny = 0, nA = 0, dv = 0;
  PetscInt64         s = (PetscInt64)c->seed + 99;
  PetscBool          flg, isaij;
  MatType            mtype;
  MatInfo            info;
  char               buf[256];

  PetscFunctionBeginUser;
  PetscCall(MatGetType(M, &mtype));
  PetscCall(PetscObjectTypeCompare((PetscObject)M, type, &flg));
  if (!flg) {
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "the type is %s, not %s", mtype, type));
    PetscCall(Fail(c, what, buf));
  }
  PetscCall(MatGetBlockSize(M, &bs));
  if (bs != c->bs) {
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "block size %" PetscInt_FMT ", not %" PetscInt_FMT, bs, c->bs));
    PetscCall(Fail(c, what, buf));
  }
  /* the product first: on a device type it reads the device values, before anything refreshes the host copy */
  PetscCall(MatCreateVecs(M, &x, &y));
  PetscCall(MatCreateVecs(c->R, &xr, &yr));
  PetscCall(VecGetArrayWrite(x, &ax));
  PetscCall(VecGetArrayWrite(xr, &axr));
  for (PetscInt j = 0; j < c->n; j++) ax[j] = axr[j] = RandReal(&s);
  PetscCall(VecRestoreArrayWrite(x, &ax));
  PetscCall(VecRestoreArrayWrite(xr, &axr));
  PetscCall(MatMult(M, x, y));
  PetscCall(MatMult(c->R, xr, yr));
  PetscCall(VecScale(yr, f));
  PetscCall(VecGetArrayRead(y, &ay));
  PetscCall(VecGetArrayRead(yr, &ayr));
  for (PetscInt i = 0; i < c->m; i++) {
    const PetscReal d = PetscAbsScalar(ay[i] - ayr[i]);

    dy = (d > dy || PetscIsNanReal(d)) ? d : dy;
    ny = PetscMax(ny, PetscAbsScalar(ayr[i]));
  }
  PetscCall(VecRestoreArrayRead(y, &ay));
  PetscCall(VecRestoreArrayRead(yr, &ayr));
  PetscCall(MatNorm(c->R, NORM_INFINITY, &nA));
  if (!(dy <= 1e-14 * PetscAbsScalar(f) * nA)) { /* |x| <= 1: the terms of a row sum to at most |f| |R|_inf */
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "MatMult differs by %g (|y| %g, |f R|_inf %g)", (double)dy, (double)ny, (double)(PetscAbsScalar(f) * nA)));
    PetscCall(Fail(c, what, buf));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));

  /* every entry, the host values: an aijcusparse matrix refreshes them through MatSeqAIJGetArrayRead() */
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATSEQAIJ, &isaij));
  if (isaij) {
    const PetscScalar *a;

    PetscCall(MatSeqAIJGetArrayRead(M, &a));
    PetscCall(MatSeqAIJRestoreArrayRead(M, &a));
  }
  PetscCall(PetscMalloc2(c->n, &cols, c->n, &row));
  for (PetscInt j = 0; j < c->n; j++) cols[j] = j;
  for (PetscInt i = 0; i < c->m; i++) {
    PetscScalar ref[4096];

    PetscCheck(c->n <= 4096, PETSC_COMM_SELF, PETSC_ERR_SUP, "at most 4096 columns");
    PetscCall(MatGetValues(M, 1, &i, c->n, cols, row));
    PetscCall(MatGetValues(c->R, 1, &i, c->n, cols, ref));
    for (PetscInt j = 0; j < c->n; j++) {
      const PetscReal r = PetscAbsScalar(f * ref[j]), d = PetscAbsScalar(row[j] - f * ref[j]);

      if (d > 0) dv = PetscMax(dv, d / r); /* a stored zero must be exactly 0 (d / 0: inf) */
      if (!(d <= 1e-14 * r)) {
        PetscCall(PetscSNPrintf(buf, sizeof(buf), "entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is %g, not %g", i, j, (double)PetscRealPart(row[j]), (double)PetscRealPart(f * ref[j])));
        PetscCall(Fail(c, what, buf));
        i = c->m; /* one message is enough */
        break;
      }
    }
  }
  PetscCall(PetscFree2(cols, row));
  PetscCall(MatGetInfo(M, MAT_LOCAL, &info));
  if ((PetscInt)info.nz_used != nz) {
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT " stored entries, not %" PetscInt_FMT, (PetscInt)info.nz_used, nz));
    PetscCall(Fail(c, what, buf));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: %s, %" PetscInt_FMT " stored entries, MatMult error %.1e, entries %s\n", what, mtype, (PetscInt)info.nz_used, (double)(dy / PetscMax(PetscAbsScalar(f) * nA, PETSC_SMALL)), dv == 0 ? "equal" : "within 1e-14 (relative)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The source's values newer on its device copy (when it has one), or on the host with -source_on_host */
static PetscErrorCode Prepare(Ctx *c, Mat S, PetscScalar a, PetscScalar *f)
{
  PetscBool isk;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATSEQBAIJKSPARSE, &isk));
  if (isk) { /* a product makes the device copy, then MatScale runs there */
    Vec x, y;

    PetscCall(MatCreateVecs(S, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(S, x, y));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(MatScale(S, a));
  *f *= a;
  if (c->source_on_host) {
    if (isk) { /* a host change: the host copy is newer */
      const PetscInt    i = 0;
      const PetscScalar z = 0;

      PetscCall(MatSetValues(S, 1, &i, 1, &i, &z, ADD_VALUES));
      PetscCall(MatAssemblyBegin(S, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(S, MAT_FINAL_ASSEMBLY));
    } else PetscCall(MatBindToCPU(S, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert() with PETSc's counters of host <-> device bytes and of the device conversions around it. bound: the most
   host -> device bytes allowed (index arrays, and the zero values aijcusparse sends when it makes a new matrix) */
static PetscErrorCode Convert(Ctx *c, const char *what, Mat S, MatType type, MatReuse reuse, Mat *T, PetscLogDouble bound)
{
  PetscLogDouble     ctog = petsc_ctog_sz, gtoc = petsc_gtoc_sz;
  PetscEventPerfInfo i0, i1;
  PetscBool          bound_cpu;
  char               buf[256];

  PetscFunctionBeginUser;
  PetscCall(MatBoundToCPU(S, &bound_cpu));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, c->ev, &i0));
  PetscCall(MatConvert(S, type, reuse, T));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, c->ev, &i1));
  ctog = petsc_ctog_sz - ctog;
  gtoc = petsc_gtoc_sz - gtoc;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "convert %s: device kernels %d, host->device %.0f bytes (at most %.0f allowed), device->host %.0f bytes\n", what, i1.count - i0.count, ctog, bound, gtoc));
  if (c->expect_device && !c->source_on_host) {
    if (i1.count - i0.count != 1) PetscCall(Fail(c, what, "the device kernel did not run"));
    if (gtoc != 0) PetscCall(Fail(c, what, "bytes went from the device to the host"));
    if (ctog > bound) {
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%.0f bytes went to the device, more than the %.0f of the index arrays", ctog, bound));
      PetscCall(Fail(c, what, buf));
    }
  }
  if (c->source_on_host && i1.count != i0.count) PetscCall(Fail(c, what, "the device kernel ran on a source whose values are on the host"));
  if (bound_cpu && reuse != MAT_INPLACE_MATRIX) PetscCall(MatBindToCPU(S, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx            c;
  Mat            A, K, K2, B, B2, D, Dobj;
  MatType        atype;
  const char    *agen, *aseq;
  char           err[32] = "none";
  PetscScalar    fA      = 1, fK, fK2, fB, fD;
  PetscBool      cuda;
  PetscInt       nz, cbs;
  PetscLogDouble ibsr, icsr, izero; /* bytes of index uploads: baijksparse's BSR arrays, aijcusparse's row offsets */

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* PETSc's counters of host <-> device bytes */
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.bs      = 3;
  c.mb      = 8;
  c.seed    = 1;
  c.partial = PETSC_TRUE;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &c.bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mb", &c.mb, NULL));
  c.nbc = c.mb;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbc", &c.nbc, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &c.seed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-partial", &c.partial, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-expect_device", &c.expect_device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-source_on_host", &c.source_on_host, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-err", err, sizeof(err), NULL));
  PetscCheck(c.bs >= 1 && c.mb >= 2 && c.nbc >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bs, -nbc must be positive, -mb at least 2");
  PetscCall(PetscLogEventGetId("BAIJKConvert", &c.ev));
  c.m = c.mb * c.bs;
  c.n = c.nbc * c.bs;
  cbs = c.bs;
  if (!strcmp(err, "bs")) { /* a column block size of 1 and one more column: BAIJ's block size does not divide it */
    c.n++;
    cbs = 1;
  } else PetscCheck(!strcmp(err, "none") || !strcmp(err, "reuse_pattern"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-err: none, bs or reuse_pattern, not %s", err);
  PetscCall(BuildAIJ(&c, cbs, &A));
  PetscCall(MatGetType(A, &atype));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &cuda));
  agen = cuda ? MATAIJCUSPARSE : MATAIJ;
  aseq = cuda ? MATSEQAIJCUSPARSE : MATSEQAIJ;
  nz   = c.nblocks * c.bs * c.bs;
  /* the uploads a device conversion may make: the BSR pattern (row pointers, diagonal positions, block columns), the
     AIJ's full row offsets, and for a new aijcusparse its pattern and zero values */
  ibsr  = (PetscLogDouble)(2 * c.mb + 1 + c.nblocks) * sizeof(int);
  icsr  = (PetscLogDouble)(c.m + 1) * sizeof(int);
  izero = (PetscLogDouble)(c.m + 1 + nz) * sizeof(int) + (PetscLogDouble)nz * sizeof(PetscScalar);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT " x %" PetscInt_FMT ", bs %" PetscInt_FMT ", %" PetscInt_FMT " blocks hold entries%s\n", atype, c.m, c.n, c.bs, c.nblocks, c.partial ? " (partly filled)" : ""));

  /* aij -> baijksparse -> aij, MAT_INITIAL_MATRIX: the generic names, then the seq ones */
  PetscCall(Prepare(&c, A, 2.0, &fA));
  PetscCall(Convert(&c, "aij -> baijksparse INITIAL", A, MATBAIJKSPARSE, MAT_INITIAL_MATRIX, &K, ibsr + icsr));
  fK = fA;
  PetscCall(Compare(&c, "aij -> baijksparse INITIAL", K, MATSEQBAIJKSPARSE, nz, fK));
  if (!strcmp(err, "reuse_pattern")) { /* K, of A's pattern, receives a matrix with one block more in block row 0 */
    Mat      A2;
    PetscInt j = -1;

    for (PetscInt b = c.nbc - 1; b >= 0 && j < 0; b--) { /* a block column that block row 0 lacks */
      PetscBool found = PETSC_FALSE;

      for (PetscInt i = 0; i < c.bs; i++) {
        const PetscInt *cols;
        PetscInt        nc;

        PetscCall(MatGetRow(c.R, i, &nc, &cols, NULL));
        for (PetscInt t = 0; t < nc; t++) found = (PetscBool)(found || cols[t] / c.bs == b);
        PetscCall(MatRestoreRow(c.R, i, &nc, &cols, NULL));
      }
      if (!found) j = b * c.bs;
    }
    PetscCheck(j >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-err reuse_pattern: block row 0 holds every block column; take a larger -nbc");
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(MatSetOption(A2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValue(A2, 0, j, 1.0, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A2, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A2, MAT_FINAL_ASSEMBLY));
    PetscCall(MatScale(A2, 2.0)); /* on the device (MatScale() by 1 returns at once): the device path checks the pattern */
    PetscCall(MatConvert(A2, MATBAIJKSPARSE, MAT_REUSE_MATRIX, &K));
    PetscCall(MatDestroy(&A2));
  }
  PetscCall(Prepare(&c, A, -0.75, &fA));
  PetscCall(Convert(&c, "aij -> seqbaijksparse INITIAL", A, MATSEQBAIJKSPARSE, MAT_INITIAL_MATRIX, &K2, ibsr + icsr));
  fK2 = fA;
  PetscCall(Compare(&c, "aij -> seqbaijksparse INITIAL", K2, MATSEQBAIJKSPARSE, nz, fK2));
  PetscCall(Prepare(&c, K, 0.5, &fK));
  PetscCall(Convert(&c, "baijksparse -> aij INITIAL", K, agen, MAT_INITIAL_MATRIX, &B, izero + icsr));
  fB = fK;
  PetscCall(Compare(&c, "baijksparse -> aij INITIAL", B, aseq, nz, fB));
  PetscCall(Prepare(&c, K2, 3.0, &fK2));
  PetscCall(Convert(&c, "seqbaijksparse -> seqaij INITIAL", K2, aseq, MAT_INITIAL_MATRIX, &B2, izero + icsr));
  PetscCall(Compare(&c, "seqbaijksparse -> seqaij INITIAL", B2, aseq, nz, fK2));
  PetscCall(MatDestroy(&K2));
  PetscCall(MatDestroy(&B2));

  /* MAT_REUSE_MATRIX into targets poisoned with NaN: every value must be written */
  PetscCall(MatScale(K, (PetscScalar)NAN));
  PetscCall(MatScale(B, (PetscScalar)NAN));
  PetscCall(Prepare(&c, A, -1.5, &fA));
  PetscCall(Convert(&c, "aij -> baijksparse REUSE", A, MATBAIJKSPARSE, MAT_REUSE_MATRIX, &K, ibsr + icsr));
  fK = fA;
  PetscCall(Compare(&c, "aij -> baijksparse REUSE", K, MATSEQBAIJKSPARSE, nz, fK));
  PetscCall(Prepare(&c, K, 0.25, &fK));
  PetscCall(Convert(&c, "baijksparse -> aij REUSE", K, agen, MAT_REUSE_MATRIX, &B, icsr));
  fB = fK;
  PetscCall(Compare(&c, "baijksparse -> aij REUSE", B, aseq, nz, fB));

  /* MAT_INPLACE_MATRIX on a duplicate, there and back */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  fD   = fA;
  Dobj = D;
  PetscCall(Prepare(&c, D, 4.0, &fD));
  PetscCall(Convert(&c, "aij -> seqbaijksparse INPLACE", D, MATSEQBAIJKSPARSE, MAT_INPLACE_MATRIX, &D, ibsr + icsr));
  if (D != Dobj) PetscCall(Fail(&c, "aij -> seqbaijksparse INPLACE", "the object changed"));
  PetscCall(Compare(&c, "aij -> seqbaijksparse INPLACE", D, MATSEQBAIJKSPARSE, nz, fD));
  PetscCall(Prepare(&c, D, -2.0, &fD));
  PetscCall(Convert(&c, "seqbaijksparse -> aij INPLACE", D, aseq, MAT_INPLACE_MATRIX, &D, izero + icsr));
  if (D != Dobj) PetscCall(Fail(&c, "seqbaijksparse -> aij INPLACE", "the object changed"));
  PetscCall(Compare(&c, "seqbaijksparse -> aij INPLACE", D, aseq, nz, fD));

  /* a new nonzero into a converted matrix: BAIJ moves to arrays of its own (for block size 1 the conversion made B
     with copies of the AIJ arrays, which B frees; -malloc_dump checks that) */
  {
    const PetscInt i0 = c.m - 1;
    PetscInt       jb = -1;

    for (PetscInt b = 0; b < c.n / c.bs && jb < 0; b++) { /* a block column the last block row lacks */
      PetscBool empty = PETSC_TRUE;

      for (PetscInt r = c.m - c.bs; r < c.m && empty; r++)
        for (PetscInt q = b * c.bs; q < (b + 1) * c.bs && empty; q++) {
          PetscScalar v;

          PetscCall(MatGetValues(c.R, 1, &r, 1, &q, &v));
          if (v != 0) empty = PETSC_FALSE;
        }
      if (empty) jb = b;
    }
    if (jb >= 0) {
      const PetscInt    j0  = jb * c.bs;
      const PetscScalar one = 1.0, vk = fK;

      PetscCall(MatSetOption(c.R, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetValues(c.R, 1, &i0, 1, &j0, &one, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(c.R, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(c.R, MAT_FINAL_ASSEMBLY));
      PetscCall(MatSetOption(K, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      PetscCall(MatSetValues(K, 1, &i0, 1, &j0, &vk, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(K, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(K, MAT_FINAL_ASSEMBLY));
      PetscCall(Compare(&c, "a new nonzero into aij -> baijksparse", K, MATSEQBAIJKSPARSE, nz + c.bs * c.bs, fK));
    }
  }

  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&K));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&c.R));
  if (c.nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " FAILED checks\n", c.nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "OK\n"));
  PetscCall(PetscFinalize());
  return c.nfail ? 1 : 0;
}
