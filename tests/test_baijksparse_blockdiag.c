static char help[] = "MatInvertBlockDiagonal() and MatInvertVariableBlockDiagonal() of MATBAIJKSPARSE (seq and MPI) against PETSc.\n"
                     "A (baijksparse), Aref (baij) and Aaij (aij, the reference of the variable blocks: BAIJ lacks them) hold the same\n"
                     "random diagonally dominant block-sparse matrix (neighbour blocks always stored, so that variable blocks crossing\n"
                     "the BAIJ blocks take values from several of them). Three rounds: as assembled, after MatScale() (device-newer\n"
                     "values on a GPU), after MatShift() (host-newer). Each round poisons the outputs with NaN, inverts on A and on the\n"
                     "reference, and compares block by block (relative 1e-10 in the Frobenius norm). With CUDA vectors (-vec_type cuda)\n"
                     "the device-newer round also checks that only the inverses (and the 8-byte failure record) came back to the host,\n"
                     "nothing went to the device, and the offload state of the (diagonal part of the) matrix stayed PETSC_OFFLOAD_GPU.\n"
                     "Options: -bs <3>, -nb <block rows per rank, 6; odd ranks get one more>, -seed <1>, -vmax <largest variable block, 32>,\n"
                     "  -test <uniform|variable|singular|missing|ksp> (uniform), -eif (MatSetErrorIfFailure(A): a singular block is an error),\n"
                     "  -pc <pbjacobi|vpbjacobi> (the PC of -test ksp), -vec_type <standard|cuda> (MatCreateVecs(A)'s type)\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include <petsc/private/matimpl.h> /* offloadmask: that the device values stay the newer ones */
#include "test_rng.h"

typedef struct {
  PetscMPIInt rank, size;
  PetscInt    bs, nbl, rstartb, Mbs, vmax, missing; /* local block rows, first one, global ones; block row without diagonal block (-1 none) */
  PetscInt64  seed;
  PetscBool   gpu, eif, singular, bad_sizes;
  Mat         A, Aref, Aaij;
  PetscInt    nvar, *vsizes; /* variable blocks of the local rows */
} Ctx;

/* The value of entry (i, j) (global scalar indices): random in [-1, 1), plus a dominant diagonal */
static PetscScalar Value(const Ctx *c, PetscInt i, PetscInt j)
{
  PetscInt64 s = (c->seed * 1000003 + i * 7919 + j * 104729 + 12345) & 0x7fffffffffffffffLL;

  if (!s) s = 1;
  for (int t = 0; t < 3; t++) NextRand(&s);
  return RandReal(&s) + (i == j ? (PetscScalar)(8 * c->bs + 1) : 0.0);
}

/* The block columns of block row R (global): R-1, R, R+1 (R left out when it is the missing one) and one random other */
static PetscInt BlockCols(const Ctx *c, PetscInt R, PetscInt cols[4])
{
  PetscInt   n = 0, r;
  PetscInt64 s = c->seed * 31 + R + 1;

  NextRand(&s);
  r = RandInt(&s, c->Mbs);
  for (PetscInt J = 0; J < c->Mbs; J++)
    if ((J == R - 1 || J == R + 1 || J == r || J == R) && !(J == R && R == c->missing)) cols[n++] = J;
  return n;
}

static PetscErrorCode CreateMat(Ctx *c, MatType type, Mat *M)
{
  PetscInt *dnnz, *onnz, cols[4], bs = c->bs;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(c->nbl, &dnnz, c->nbl, &onnz));
  for (PetscInt i = 0; i < c->nbl; i++) {
    const PetscInt n = BlockCols(c, c->rstartb + i, cols);

    dnnz[i] = onnz[i] = 0;
    for (PetscInt t = 0; t < n; t++) {
      if (cols[t] >= c->rstartb && cols[t] < c->rstartb + c->nbl) dnnz[i]++;
      else onnz[i]++;
    }
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, M));
  PetscCall(MatSetSizes(*M, c->nbl * bs, c->nbl * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*M, type));
  PetscCall(MatSetBlockSize(*M, bs));
  PetscCall(MatXAIJSetPreallocation(*M, bs, dnnz, onnz, NULL, NULL));
  PetscCall(MatSetOption(*M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (PetscInt i = 0; i < c->nbl; i++) {
    const PetscInt R = c->rstartb + i, n = BlockCols(c, R, cols);

    for (PetscInt t = 0; t < n; t++)
      for (PetscInt a = 0; a < bs; a++)
        for (PetscInt b = 0; b < bs; b++) PetscCall(MatSetValue(*M, R * bs + a, cols[t] * bs + b, Value(c, R * bs + a, cols[t] * bs + b), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *ErrName(MatFactorError e)
{
  return e == MAT_FACTOR_NOERROR ? "none" : e == MAT_FACTOR_NUMERIC_ZEROPIVOT ? "zero pivot" : "other";
}
static const char *MaskName(PetscOffloadMask m)
{
  return m == PETSC_OFFLOAD_GPU ? "GPU" : m == PETSC_OFFLOAD_CPU ? "CPU" : m == PETSC_OFFLOAD_BOTH ? "BOTH" : "other";
}

/* Compares nblocks blocks (sizes[b], or bs when sizes is NULL) of x against ref; skip: a block not compared (-1 none).
   A reference block that is not finite (a singular block) must not be finite in x either; the skipped block (no diagonal
   block stored) must be all NaN. Returns the largest relative difference. */
static PetscErrorCode Compare(const Ctx *c, const char *what, PetscInt nblocks, const PetscInt *sizes, const PetscScalar *x, const PetscScalar *ref, PetscInt skip, PetscReal *maxrel, PetscInt *nbad)
{
  PetscInt64 off = 0;

  PetscFunctionBeginUser;
  *maxrel = 0;
  *nbad   = 0;
  for (PetscInt b = 0; b < nblocks; b++) {
    const PetscInt k  = sizes ? sizes[b] : c->bs;
    PetscReal      dn = 0, rn = 0;
    PetscBool      finite = PETSC_TRUE, allnan = PETSC_TRUE, xfinite = PETSC_TRUE;

    for (PetscInt e = 0; e < k * k; e++) {
      if (PetscIsInfOrNanScalar(ref[off + e])) finite = PETSC_FALSE;
      if (!PetscIsNanScalar(x[off + e])) allnan = PETSC_FALSE;
      if (PetscIsInfOrNanScalar(x[off + e])) xfinite = PETSC_FALSE;
      dn += PetscSqr(PetscAbsScalar(x[off + e] - ref[off + e]));
      rn += PetscSqr(PetscAbsScalar(ref[off + e]));
    }
    if (b != skip) {
      if (!finite) { /* PETSc's LU leaves Inf/NaN in a singular block (BAIJ's host path here), the device path NaN */
        if (xfinite) {
          (*nbad)++;
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: block %" PetscInt_FMT " is singular in the reference but finite here\n", c->rank, what, b));
        }
      } else {
        const PetscReal rel = PetscSqrtReal(dn) / PetscMax(PetscSqrtReal(rn), PETSC_SMALL);

        if (!(rel <= 1e-10)) {
          (*nbad)++;
          if (*nbad < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: block %" PetscInt_FMT " (k %" PetscInt_FMT ") differs by %g\n", c->rank, what, b, k, (double)rel));
        }
        if (rel > *maxrel || PetscIsNanReal(rel)) *maxrel = rel;
      }
    } else if (!allnan) {
      (*nbad)++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: block %" PetscInt_FMT " without a stored diagonal block should be all NaN\n", c->rank, what, b));
    }
    off += k * k;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx         c;
  char        test[32] = "uniform", pcname[32] = "pbjacobi";
  PetscInt    nfail = 0, nlocal;
  Vec         x, y;
  VecType     vtype;
  PetscMPIInt gfail;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* the byte counters of the copies */
  PetscCall(PetscMemzero(&c, sizeof(c)));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &c.rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &c.size));
  c.bs      = 3;
  c.vmax    = 32;
  c.seed    = 1;
  c.missing = -1;
  {
    PetscInt nb = 6, seed = 1;

    PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &c.bs, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-vmax", &c.vmax, NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-pc", pcname, sizeof(pcname), NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-eif", &c.eif, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-singular", &c.singular, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-bad_sizes", &c.bad_sizes, NULL));
    c.seed = seed;
    for (PetscMPIInt r = 0; r < c.size; r++) {
      const PetscInt m = nb + (r % 2);

      if (r < c.rank) c.rstartb += m;
      if (r == c.rank) c.nbl = m;
      c.Mbs += m;
    }
  }
  {
    PetscBool known;

    PetscCall(PetscStrcmpAny(test, &known, "uniform", "variable", "singular", "missing", "ksp", ""));
    PetscCheck(known, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown -test \"%s\"", test);
  }
  if (!strcmp(test, "singular")) c.singular = PETSC_TRUE;
  if (!strcmp(test, "missing")) c.missing = c.Mbs > 1 ? 1 : 0; /* rank 0's second block row (BAIJ's reference reads the next block there) */
  PetscCall(CreateMat(&c, MATBAIJKSPARSE, &c.A));
  PetscCall(CreateMat(&c, MATBAIJ, &c.Aref));
  PetscCall(MatConvert(c.Aref, MATAIJ, MAT_INITIAL_MATRIX, &c.Aaij));
  PetscCall(MatCreateVecs(c.A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecGetType(x, &vtype));
  PetscCall(PetscStrbeginswith(vtype, "seqcuda", &c.gpu));
  if (!c.gpu) PetscCall(PetscStrbeginswith(vtype, "mpicuda", &c.gpu));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s bs %" PetscInt_FMT ", %" PetscInt_FMT " block rows on %d rank(s), vectors %s\n", ((PetscObject)c.A)->type_name, c.bs, c.Mbs, c.size, vtype));
  PetscCall(MatGetLocalSize(c.A, &nlocal, NULL));

  /* the variable blocks: random sizes 1..vmax covering the local rows (the last one cut to fit) */
  {
    PetscInt64 s    = c.seed * 977 + c.rank + 1;
    PetscInt   left = nlocal;

    NextRand(&s);
    PetscCall(PetscMalloc1(nlocal + 1, &c.vsizes));
    while (left > 0) {
      /* beyond the 32 rows of the batched inversion, the first block has vmax rows (the host path is then certain) */
      const PetscInt r = (c.vmax > 32 && !c.nvar) ? c.vmax : 1 + RandInt(&s, c.vmax), k = PetscMin(left, r); /* (PetscMin() evaluates twice) */

      c.vsizes[c.nvar++] = k;
      left -= k;
    }
    if (c.singular && !c.rank && c.nvar > 1) { /* AIJ inverts a 1 x 1 block without a zero pivot test: the singular row gets a larger block */
      const PetscInt row = PetscMin(c.bs + c.bs / 2, nlocal - 1);
      PetscInt       b = 0, first = 0;

      while (first + c.vsizes[b] <= row) first += c.vsizes[b++];
      if (c.vsizes[b] == 1) {
        if (b + 1 < c.nvar) b++;
        c.vsizes[b - 1] += c.vsizes[b];
        for (PetscInt i = b; i + 1 < c.nvar; i++) c.vsizes[i] = c.vsizes[i + 1];
        c.nvar--;
      }
    }
  }
  if (c.eif) PetscCall(MatSetErrorIfFailure(c.A, PETSC_TRUE));
  if (c.singular) {                                       /* a zero row in the second block row of rank 0: its diagonal block (and the variable block there) singular */
    PetscInt row = PetscMin(c.bs + c.bs / 2, nlocal - 1); /* rank 0's rows start at 0 */

    /* kept in the pattern: at bs 1 BAIJ would drop the block row, and then read another block for its diagonal */
    PetscCall(MatSetOption(c.A, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(MatSetOption(c.Aref, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(MatSetOption(c.Aaij, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(MatZeroRows(c.A, c.rank ? 0 : 1, &row, 0.0, NULL, NULL));
    PetscCall(MatZeroRows(c.Aref, c.rank ? 0 : 1, &row, 0.0, NULL, NULL));
    PetscCall(MatZeroRows(c.Aaij, c.rank ? 0 : 1, &row, 0.0, NULL, NULL));
    PetscCall(MatMult(c.A, x, y)); /* the zeroed row to the device */
  }

  if (!strcmp(test, "ksp")) {
    KSP       ksp[2];
    Mat       M[2];
    Vec       b[2], u[2];
    PetscInt  its[2];
    PetscBool vp;

    PetscCall(PetscStrcmp(pcname, "vpbjacobi", &vp));
    M[0] = c.A;
    M[1] = vp ? c.Aaij : c.Aref; /* MATBAIJ has no MatInvertVariableBlockDiagonal() */
    for (int i = 0; i < 2; i++) {
      KSPConvergedReason reason;

      if (vp) PetscCall(MatSetVariableBlockSizes(M[i], c.nvar, c.vsizes));
      PetscCall(MatCreateVecs(M[i], &u[i], &b[i]));
      PetscCall(VecSet(u[i], 1.0));
      PetscCall(MatMult(c.Aref, u[i], b[i])); /* the same right-hand side for both (Aref is host: generic copies) */
      PetscCall(VecZeroEntries(u[i]));
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[i]));
      PetscCall(KSPSetOperators(ksp[i], M[i], M[i]));
      PetscCall(KSPSetType(ksp[i], KSPGMRES));
      PetscCall(KSPSetTolerances(ksp[i], 1e-10, PETSC_CURRENT, PETSC_CURRENT, 500));
      {
        PC pc;

        PetscCall(KSPGetPC(ksp[i], &pc));
        PetscCall(PCSetType(pc, pcname));
      }
      PetscCall(KSPSolve(ksp[i], b[i], u[i]));
      PetscCall(KSPGetIterationNumber(ksp[i], &its[i]));
      PetscCall(KSPGetConvergedReason(ksp[i], &reason));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s on %s (vectors %s): %" PetscInt_FMT " iterations, %s\n", pcname, ((PetscObject)M[i])->type_name, ((PetscObject)u[i])->type_name, its[i], KSPConvergedReasons[reason]));
      if (reason <= 0) nfail++;
    }
    if (its[0] != its[1]) {
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: iteration counts differ\n"));
    }
    for (int i = 0; i < 2; i++) {
      PetscCall(KSPDestroy(&ksp[i]));
      PetscCall(VecDestroy(&u[i]));
      PetscCall(VecDestroy(&b[i]));
    }
  } else {
    const PetscBool variable = (PetscBool)!strcmp(test, "variable");
    const PetscInt  mbs      = nlocal / c.bs;
    PetscInt64      len      = 0;
    PetscScalar    *inv, *ref;
    Mat             Ad;

    if (c.bad_sizes) { /* the blocks cover one row more than the matrix has: refused */
      c.vsizes[c.nvar - 1]++;
      PetscCall(MatInvertVariableBlockDiagonal(c.A, c.nvar, c.vsizes, NULL));
    }
    if (variable)
      for (PetscInt b = 0; b < c.nvar; b++) len += c.vsizes[b] * c.vsizes[b];
    else len = (PetscInt64)mbs * c.bs * c.bs;
    PetscCall(PetscMalloc2(len, &inv, len, &ref));
    PetscCall(MatGetDiagonalBlock(c.A, &Ad)); /* the part whose offload state is checked (A itself when sequential) */
    for (int round = 0; round < 3; round++) {
      const char *const what[] = {"assembled", "after MatScale", "after MatShift"};
      PetscLogDouble    ctog0, gtoc0, ctog, gtoc;
      PetscOffloadMask  m0 = PETSC_OFFLOAD_UNALLOCATED, m1 = PETSC_OFFLOAD_UNALLOCATED;
      MatFactorError    err, errref;
      PetscReal         maxrel;
      PetscInt          nbad, skip;

      if (round == 1) {
        PetscCall(MatScale(c.A, 2.0));
        PetscCall(MatScale(c.Aref, 2.0));
        PetscCall(MatScale(c.Aaij, 2.0));
      } else if (round == 2) {
        PetscCall(MatShift(c.A, 1.0));
        PetscCall(MatShift(c.Aref, 1.0));
        PetscCall(MatShift(c.Aaij, 1.0));
      }
      if (round == 0 && c.gpu) PetscCall(MatMult(c.A, x, y)); /* a device copy, so that MatScale() runs on the device */
      /* the reference */
      if (variable) {
        for (PetscInt64 e = 0; e < len; e++) ref[e] = NAN;
        PetscCall(MatInvertVariableBlockDiagonal(c.Aaij, c.nvar, c.vsizes, ref));
        PetscCall(MatFactorGetError(c.Aaij, &errref));
      } else {
        const PetscScalar *v;

        PetscCall(MatInvertBlockDiagonal(c.Aref, &v));
        PetscCall(PetscArraycpy(ref, v, len));
        PetscCall(MatFactorGetError(c.Aref, &errref));
      }
      /* ours, on poisoned outputs */
      if (c.gpu && round == 1 && variable) {                                   /* the sizes go to the device once: a first call before the counted one */
        PetscCall(MatInvertVariableBlockDiagonal(c.A, c.nvar, c.vsizes, inv)); /* (reads only: the values stay device-newer) */
      }
      m0    = Ad->offloadmask;
      ctog0 = petsc_ctog_sz;
      gtoc0 = petsc_gtoc_sz;
      if (variable) {
        for (PetscInt64 e = 0; e < len; e++) inv[e] = NAN;
        PetscCall(MatInvertVariableBlockDiagonal(c.A, c.nvar, c.vsizes, inv));
      } else {
        const PetscScalar *v;

        PetscCall(MatInvertBlockDiagonal(c.A, &v));
        PetscCall(PetscArraycpy(inv, v, len));
        for (PetscInt64 e = 0; e < len; e++) ((PetscScalar *)v)[e] = NAN; /* poisoned: the next round must overwrite it all */
      }
      ctog = petsc_ctog_sz - ctog0;
      gtoc = petsc_gtoc_sz - gtoc0;
      m1   = Ad->offloadmask;
      PetscCall(MatFactorGetError(c.A, &err));
      /* the block row without a diagonal block (until MatShift() inserts one) */
      skip = (!variable && round < 2 && c.missing >= c.rstartb && c.missing < c.rstartb + c.nbl) ? c.missing - c.rstartb : -1;
      PetscCall(Compare(&c, what[round], variable ? c.nvar : mbs, variable ? c.vsizes : NULL, inv, ref, skip, &maxrel, &nbad));
      nfail += nbad;
      if (err != errref && !(c.missing >= 0 && !variable)) {
        nfail++;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: MatFactorGetError() %s, the reference's %s\n", c.rank, what[round], ErrName(err), ErrName(errref)));
      }
      if (skip >= 0 && err != MAT_FACTOR_NUMERIC_ZEROPIVOT) {
        nfail++;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s: a missing diagonal block gives %s, not a zero pivot\n", c.rank, what[round], ErrName(err)));
      }
      PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] %s %s: %" PetscInt_FMT " blocks, largest relative difference %.2e, factor error %s (reference %s)\n", c.rank, variable ? "variable" : "uniform", what[round], variable ? c.nvar : mbs, (double)maxrel, ErrName(err), ErrName(errref)));
      if (c.gpu && round == 1) { /* device-newer values: the inversion reads them on the device */
        PetscInt maxk = c.bs;

        if (variable)
          for (PetscInt b = 0; b < c.nvar; b++) maxk = PetscMax(maxk, c.vsizes[b]);
        else maxk = c.bs;
        if (maxk > 32) PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] blocks of %" PetscInt_FMT " rows: the host path (%g bytes to the host)\n", c.rank, maxk, gtoc));
        else {
          const PetscLogDouble expect = (PetscLogDouble)len * sizeof(PetscScalar) + 8;

          if (ctog != 0 || gtoc != expect || m0 != PETSC_OFFLOAD_GPU || m1 != PETSC_OFFLOAD_GPU) {
            nfail++;
            PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] FAILED device path: %g bytes to the device (0 expected), %g to the host (%g expected), offload %s -> %s\n", c.rank, ctog, gtoc, expect, MaskName(m0), MaskName(m1)));
          } else PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "[%d] device path: %g bytes to the host (the inverses + 8), none to the device, offload state %s kept\n", c.rank, gtoc, MaskName(m1)));
        }
      }
      PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
    }
    PetscCall(PetscFree2(inv, ref));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nfail, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  gfail = (PetscMPIInt)nfail;
  if (!gfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %" PetscInt_FMT " check(s)\n", nfail));
  PetscCall(PetscFree(c.vsizes));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&c.A));
  PetscCall(MatDestroy(&c.Aref));
  PetscCall(MatDestroy(&c.Aaij));
  PetscCall(PetscFinalize());
  return gfail ? 1 : 0;
}
