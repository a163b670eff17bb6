static char help[] = "Randomized differential test of MATBAIJKSPARSE and PCVBJACOBI against PETSc's own types (seeded, reproducible).\n"
                     "Each case draws a block size 1..64, a random block pattern with empty and long block rows (and ranks with\n"
                     "no rows), random kernel and balancing options, and a random vbjacobi blocking and bound. It checks MatMult,\n"
                     "MatMultAdd and MatMultTranspose of baijksparse against MATAIJ, and vbjacobi's PCApply against PETSc's vpbjacobi\n"
                     "with the same blocks (on the matrix made diagonally dominant), outputs poisoned, with an FP64 tolerance.\n"
                     "  -cases <n> (default 250), -seed <s> (default 1), -first <c> (start at case c: rerun a failure)\n"
                     "A failure prints its case number and seed.\n";

#include <petscblockgpu.h>
#include <petscksp.h>

#include "test_rng.h" /* NextRand, RandInt, RandReal: the same sequence on every rank for a seed */

/* ||a - b||_inf / max(||b||_inf, tiny) */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *d)
{
  Vec       w;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &w));
  PetscCall(VecWAXPY(w, -1.0, b, a));
  PetscCall(VecNorm(w, NORM_INFINITY, &nd));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *d = nd / PetscMax(nb, 1e-300);
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(PetscInt64 seed, PetscInt c, PetscInt *nchecks)
{
  PetscMPIInt     rank, size;
  PetscInt64      s = seed * 1000003 + c * 7919 + 12345, sv;
  PetscInt        bs, mbs = 0, Mbs = 0, rstartbs = 0, maxbs, blocking;
  Mat             K, A, B;
  Vec             x, y, z, yr, w, xr;
  PetscReal       d, tol = 1e-11;
  const char     *kernels[] = {"auto", "auto", "k3", "k2"}, *balances[] = {"auto", "on", "off"};
  const char     *blockings[] = {"auto", "supervariable", "natural", "matrix"};
  char            kern[16], bal[16], lam[16];
  PC              pc, pv;
  PetscInt        nb;
  const PetscInt *st;
  PetscInt       *sizes;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  bs = RandInt(&s, 4) ? 1 + RandInt(&s, 12) : 1 + RandInt(&s, 64); /* mostly small, up to 64 */
  for (PetscMPIInt r = 0; r < size; r++) {
    const PetscInt m = RandInt(&s, 6) ? RandInt(&s, PetscMax(2, 96 / bs) + 1) : 0; /* some ranks without rows */
    if (r < rank) rstartbs += m;
    if (r == rank) mbs = m;
    Mbs += m;
  }
  if (Mbs == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(kern, sizeof(kern), "%s", kernels[RandInt(&s, 4)]));
  if (!strcmp(kern, "k2") && (bs < 2 || bs > 45)) PetscCall(PetscStrncpy(kern, "auto", sizeof(kern)));
  PetscCall(PetscSNPrintf(bal, sizeof(bal), "%s", balances[RandInt(&s, 3)]));
  PetscCall(PetscSNPrintf(lam, sizeof(lam), "%" PetscInt_FMT, 1 + RandInt(&s, 8)));
  blocking = RandInt(&s, 4);
  maxbs    = 1 + RandInt(&s, 32);
  if (blocking == 3 && (bs > 32 || maxbs < bs)) blocking = 1; /* matrix blocks must fit the bound */

  /* the pattern and values: each rank its own block rows, from a stream of its own */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, mbs * bs, mbs * bs, Mbs * bs, Mbs * bs));
  PetscCall(MatSetBlockSize(B, bs));
  PetscCall(MatSetType(B, MATBAIJ));
  PetscCall(MatSetUp(B));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  sv = s + 1000 * (rank + 1);
  {
    PetscScalar *v;
    PetscInt    *cols;

    PetscCall(PetscMalloc2(bs * bs * Mbs, &v, Mbs, &cols));
    for (PetscInt i = 0; i < mbs; i++) {
      const PetscInt row = rstartbs + i, kind = RandInt(&sv, 20);
      PetscInt       nc = 0;

      if (kind == 0) continue; /* an empty block row */
      cols[nc++]           = row;
      const PetscInt extra = kind == 1 ? Mbs : RandInt(&sv, 5); /* a long block row, else up to 4 couplings */
      for (PetscInt e = 0; e < extra; e++) {
        const PetscInt col = kind == 1 ? e : RandInt(&sv, Mbs);
        PetscBool      dup = PETSC_FALSE;
        for (PetscInt q = 0; q < nc; q++) dup = (PetscBool)(dup || cols[q] == col);
        if (!dup) cols[nc++] = col;
      }
      for (PetscInt e = 0; e < bs * bs * nc; e++) v[e] = RandReal(&sv);
      PetscCall(MatSetValuesBlocked(B, 1, &row, nc, cols, v, INSERT_VALUES));
    }
    PetscCall(PetscFree2(v, cols));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &A));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_kernel", kern));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_balance", bal));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_lambda", lam));
  PetscCall(MatConvert(B, MATBAIJKSPARSE, MAT_INITIAL_MATRIX, &K));

  /* the products, outputs poisoned */
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(z, NULL));
  PetscCall(VecSet(y, 1e300));
  PetscCall(MatMult(K, x, y));
  PetscCall(MatMult(A, x, yr));
  PetscCall(RelDiff(y, yr, &d));
  PetscCheck(d <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "case %" PetscInt_FMT " (seed %" PetscInt64_FMT ", bs %" PetscInt_FMT ", kernel %s, balance %s, lambda %s): MatMult differs from AIJ by %g", c, seed, bs, kern, bal, lam, (double)d);
  PetscCall(VecSet(y, 1e300));
  PetscCall(MatMultAdd(K, x, z, y));
  PetscCall(MatMultAdd(A, x, z, yr));
  PetscCall(RelDiff(y, yr, &d));
  PetscCheck(d <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "case %" PetscInt_FMT " (seed %" PetscInt64_FMT ", bs %" PetscInt_FMT "): MatMultAdd differs from AIJ by %g", c, seed, bs, (double)d);
  PetscCall(VecSet(w, 1e300));
  PetscCall(MatMultTranspose(K, z, w));
  PetscCall(MatMultTranspose(A, z, xr));
  PetscCall(RelDiff(w, xr, &d));
  PetscCheck(d <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "case %" PetscInt_FMT " (seed %" PetscInt64_FMT ", bs %" PetscInt_FMT "): MatMultTranspose differs from AIJ by %g", c, seed, bs, (double)d);
  *nchecks += 3;

  /* vbjacobi against vpbjacobi with the same blocks, on A made diagonally dominant (every block invertible) */
  PetscCall(MatShift(A, 4.0 * (PetscScalar)(bs * (Mbs + 1))));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCVBJacobiSetMaxBlockSize(pc, maxbs));
  PetscCall(PCVBJacobiSetBlocking(pc, blocking == 0 ? PC_VBJACOBI_BLOCKING_AUTO : blocking == 1 ? PC_VBJACOBI_BLOCKING_SUPERVARIABLE : blocking == 2 ? PC_VBJACOBI_BLOCKING_NATURAL : PC_VBJACOBI_BLOCKING_MATRIX));
  PetscCall(PCSetUp(pc));
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
  PetscCall(PetscMalloc1(nb, &sizes));
  for (PetscInt b = 0; b < nb; b++) sizes[b] = st[b + 1] - st[b];
  PetscCall(MatSetVariableBlockSizes(A, nb, sizes));
  PetscCall(PetscFree(sizes));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pv));
  PetscCall(PCSetType(pv, PCVPBJACOBI));
  PetscCall(PCSetOperators(pv, A, A));
  PetscCall(PCSetUp(pv));
  PetscCall(VecSet(y, 1e300));
  PetscCall(PCApply(pc, x, y));
  PetscCall(PCApply(pv, x, yr));
  PetscCall(RelDiff(y, yr, &d));
  PetscCheck(d <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "case %" PetscInt_FMT " (seed %" PetscInt64_FMT ", bs %" PetscInt_FMT ", blocking %s, bound %" PetscInt_FMT "): vbjacobi PCApply differs from vpbjacobi by %g", c, seed, bs, blockings[blocking], maxbs, (double)d);
  *nchecks += 1;

  PetscCall(PCDestroy(&pc));
  PetscCall(PCDestroy(&pv));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&xr));
  PetscCall(MatDestroy(&K));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt ncases = 250, first = 0, nchecks = 0;
  PetscInt seed = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cases", &ncases, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-first", &first, NULL));
  for (PetscInt c = first; c < first + ncases; c++) PetscCall(RunCase((PetscInt64)seed, c, &nchecks));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " random cases (seed %" PetscInt_FMT ", cases %" PetscInt_FMT "..%" PetscInt_FMT "), %" PetscInt_FMT " comparisons, 0 mismatches\nOK\n", ncases, seed, first, first + ncases - 1, nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
