static char help[] = "What PCGAMG asks of a MATBAIJKSPARSE operator (issue 39), against MATAIJ holding the same values:\n"
                     "MatCreateGraph() (symmetrized or not, scaled or not, filtered or not, with a strength index or not),\n"
                     "and the products A P, P^T A P (P a random AIJ prolongator with bs x cbs blocks, or a baijksparse one when\n"
                     "cbs = bs), A^T P and the reuse of P^T A P after A's values change, and the level's transfers after\n"
                     "P^T A P (P's products, which an mpiaijcusparse P on several ranks runs with the NCCL exchange where it\n"
                     "serves). A is a random block-sparse matrix with some empty block rows and one long block row; the values\n"
                     "of A are put on the device first when there is one (-vec_type cuda). Each result is compared with the AIJ one (max |difference| / max |reference|). A reuse after\n"
                     "A's pattern changed (a shift inserts the missing diagonal blocks) is refused with a message.\n"
                     "Options: -bs <3>, -cbs <2> (the prolongator's column block size), -nb <block rows per rank, 7>, -seed <1>,\n"
                     "-ptype <aij> (the AIJ prolongator's type: aij or aijcusparse)\n";

#include <petscblockgpu.h>
#include "test_rng.h"
#include "test_refusal.h"

static PetscReal Diff(Mat X, Mat R)
{
  Mat       Xa, Ra;
  PetscReal d = -1, r = 0;

  if (MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &Xa)) return -1;
  if (MatConvert(R, MATAIJ, MAT_INITIAL_MATRIX, &Ra)) return -1;
  if (MatAXPY(Xa, -1.0, Ra, DIFFERENT_NONZERO_PATTERN)) return -1;
  if (MatNorm(Xa, NORM_MAX, &d) || MatNorm(Ra, NORM_MAX, &r)) return -1;
  MatDestroy(&Xa);
  MatDestroy(&Ra);
  return r > 0 ? d / r : d;
}

/* max |v - ref| / max |ref| */
static PetscErrorCode VecDiff(Vec v, Vec ref, PetscReal *d)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscReal          dm = 0, rm = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(VecGetArrayRead(ref, &b));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal e = PetscAbsScalar(a[i] - b[i]);

    dm = (e > dm || PetscIsNanReal(e)) ? e : dm; /* a NaN left in v is kept */
    rm = PetscMax(rm, PetscAbsScalar(b[i]));
  }
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscCall(VecRestoreArrayRead(ref, &b));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dm, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &rm, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *d = rm > 0 ? dm / rm : dm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v (of type vtype) and ref the same random values */
static PetscErrorCode RandomPair(Vec v, Vec ref, PetscRandom rnd)
{
  const PetscScalar *b;
  PetscScalar       *a;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecSetRandom(ref, rnd));
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetArrayRead(ref, &b));
  PetscCall(VecGetArrayWrite(v, &a));
  PetscCall(PetscArraycpy(a, b, n));
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscCall(VecRestoreArrayRead(ref, &b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The level's transfers after P^T A P: P's MatMult(), MatMultAdd(), MatMultTranspose(), MatMultTransposeAdd() on
   vectors of type vtype (an mpiaijcusparse P on several ranks takes the NCCL exchange: baijksparse_ghost_aij.c), against
   Pref's on host vectors; outputs poisoned with NaN first */
static PetscErrorCode Transfers(Mat P, Mat Pref, const char *vtype, PetscInt *nfail)
{
  Vec         xc, yr, xcr, yrr, z, zr, w, wr;
  PetscRandom rnd;
  PetscReal   d[4];

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 11));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(P, &xc, &yr));
  PetscCall(VecSetType(xc, vtype));
  PetscCall(VecSetType(yr, vtype));
  PetscCall(MatCreateVecs(Pref, &xcr, &yrr));
  PetscCall(VecDuplicate(yr, &z));
  PetscCall(VecDuplicate(yrr, &zr));
  PetscCall(VecDuplicate(xc, &w));
  PetscCall(VecDuplicate(xcr, &wr));
  /* y = P x, z = y0 + P x */
  PetscCall(RandomPair(xc, xcr, rnd));
  PetscCall(VecSet(yr, NAN));
  PetscCall(MatMult(P, xc, yr));
  PetscCall(MatMult(Pref, xcr, yrr));
  PetscCall(VecDiff(yr, yrr, &d[0]));
  PetscCall(RandomPair(z, zr, rnd));
  PetscCall(MatMultAdd(P, xc, z, z));
  PetscCall(MatMultAdd(Pref, xcr, zr, zr));
  PetscCall(VecDiff(z, zr, &d[1]));
  /* w = P^T y, then w = w0 + P^T y */
  PetscCall(RandomPair(yr, yrr, rnd));
  PetscCall(VecSet(w, NAN));
  PetscCall(MatMultTranspose(P, yr, w));
  PetscCall(MatMultTranspose(Pref, yrr, wr));
  PetscCall(VecDiff(w, wr, &d[2]));
  PetscCall(RandomPair(w, wr, rnd));
  PetscCall(MatMultTransposeAdd(P, yr, w, w));
  PetscCall(MatMultTransposeAdd(Pref, yrr, wr, wr));
  PetscCall(VecDiff(w, wr, &d[3]));
  for (int i = 0; i < 4; i++) {
    const char *op[] = {"MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd"};
    PetscBool   ok   = (PetscBool)(d[i] <= 1e-13);

    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "transfer %s of P against AIJ: %.2e %s\n", op[i], (double)d[i], ok ? "ok" : "FAILED"));
    if (!ok) (*nfail)++;
  }
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&xcr));
  PetscCall(VecDestroy(&yrr));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zr));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&wr));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Report(const char *what, Mat X, Mat R, PetscInt *nfail)
{
  PetscReal d  = Diff(X, R);
  PetscBool ok = (PetscBool)(d >= 0 && d <= 1e-12);
  MatType   t;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(X, &t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s %-16s rel diff %.2e  %s\n", what, t, (double)d, ok ? "ok" : "FAILED"));
  if (!ok) (*nfail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A random block matrix of block size bs into A (type) and Aref (aij): the diagonal block, 0-3 more per block row, an
   empty block row every fifth (no diagonal either), a long row (a quarter of all block columns) on the first rank */
static PetscErrorCode FillA(MatType type, PetscInt bs, PetscInt nb, PetscInt64 seed, PetscInt scale, Mat *A, Mat *Aref)
{
  PetscMPIInt  rank, size;
  PetscInt     rstart, Nb;
  PetscInt64   s = seed;
  PetscScalar *v;
  Mat          M[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int m = 0; m < 2; m++) {
    PetscCall(MatCreate(PETSC_COMM_WORLD, &M[m]));
    PetscCall(MatSetSizes(M[m], nb * bs, nb * bs, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSize(M[m], bs));
    PetscCall(MatSetType(M[m], m ? MATAIJ : type));
    PetscCall(MatSetUp(M[m]));
  }
  PetscCall(MatGetOwnershipRange(M[0], &rstart, NULL));
  PetscCall(MatGetSize(M[0], &Nb, NULL));
  rstart /= bs;
  Nb /= bs;
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt r = rstart; r < rstart + nb; r++) {
    PetscInt ncol = (r % 5 == 4) ? 0 : 1 + RandInt(&s, 4);

    if (rank == 0 && r == rstart + 1) ncol = PetscMax(2, Nb / 4);
    for (PetscInt k = 0; k < ncol; k++) {
      PetscInt c = k == 0 ? r : RandInt(&s, Nb);

      for (PetscInt i = 0; i < bs * bs; i++) v[i] = scale * (RandReal(&s) - 0.5) + (k == 0 && i % (bs + 1) == 0 ? 4.0 : 0.0);
      for (int m = 0; m < 2; m++) PetscCall(MatSetValuesBlocked(M[m], 1, &r, 1, &c, v, ADD_VALUES));
    }
  }
  PetscCall(PetscFree(v));
  for (int m = 0; m < 2; m++) {
    PetscCall(MatAssemblyBegin(M[m], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[m], MAT_FINAL_ASSEMBLY));
  }
  *A    = M[0];
  *Aref = M[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A prolongator with bs x cbs blocks: each block row in one random aggregate (block column) of about nb/3 a rank, every
   third in two or three (a smoothed prolongator), every seventh with only some entries of its blocks, every eleventh
   empty */
static PetscErrorCode FillP(MatType type, Mat A, PetscInt bs, PetscInt cbs, PetscInt64 seed, Mat *P)
{
  PetscInt   m, rstart, ncl, cstart, N;
  PetscInt64 s = seed;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  ncl = PetscMax(1, m / bs / 3);
  PetscCall(MatCreate(PETSC_COMM_WORLD, P));
  PetscCall(MatSetSizes(*P, m, ncl * cbs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*P, bs, cbs));
  PetscCall(MatSetType(*P, type));
  PetscCall(MatSetUp(*P));
  PetscCall(MatGetOwnershipRangeColumn(*P, &cstart, NULL));
  PetscCall(MatGetSize(*P, NULL, &N));
  for (PetscInt r = 0; r < m / bs; r++) {
    PetscInt row = rstart / bs + r, nblk = r % 11 == 10 ? 0 : (r % 3 == 1 ? 2 + RandInt(&s, 2) : 1);

    for (PetscInt b = 0; b < nblk; b++) {
      PetscInt col = cstart / cbs + RandInt(&s, ncl);

      if ((r + b) % 4 == 3) col = RandInt(&s, N / cbs); /* some off-process aggregates */
      for (PetscInt i = 0; i < bs; i++)
        for (PetscInt j = 0; j < cbs; j++) {
          PetscInt    gi = row * bs + i, gj = col * cbs + j;
          PetscScalar x = RandReal(&s);

          if (r % 7 == 5 && (i + j) % 2) continue; /* a partial block */
          PetscCall(MatSetValues(*P, 1, &gi, 1, &gj, &x, ADD_VALUES));
        }
    }
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    bs = 3, cbs = 2, nb = 7, nfail = 0, seed = 1, idx[2] = {0, 2};
  char        vtype[64] = "", ptype_aij[64] = MATAIJ;
  Mat         A, Aref, P, Pref, C, Cref, G, Gref;
  Vec         x, y;
  PetscBool   dev;
  char        what[128];
  MatType     ptype;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cbs", &cbs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", vtype, sizeof(vtype), &dev));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ptype", ptype_aij, sizeof(ptype_aij), NULL));
  PetscCheck(bs >= 1 && bs <= 64 && cbs >= 1 && cbs <= 64, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs and -cbs in 1..64");
  PetscCall(FillA(MATBAIJKSPARSE, bs, nb, seed, 1, &A, &Aref));
  if (dev) { /* the values on the device: a product there */
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecSetType(x, vtype));
    PetscCall(VecSetType(y, vtype));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, y));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }

  /* the graph, every combination GAMG passes */
  for (int sym = 0; sym < 2; sym++)
    for (int scale = 0; scale < 2; scale++)
      for (int f = 0; f < 2; f++)
        for (int ix = 0; ix < 2; ix++) {
          PetscInt  nidx   = ix && bs >= 3 ? 2 : 0;
          PetscReal filter = f ? 0.01 : -1;

          PetscCall(MatCreateGraph(A, (PetscBool)sym, (PetscBool)scale, filter, nidx, idx, &G));
          PetscCall(MatCreateGraph(Aref, (PetscBool)sym, (PetscBool)scale, filter, nidx, idx, &Gref));
          PetscCall(PetscSNPrintf(what, sizeof(what), "graph sym %d scale %d filter %g index %" PetscInt_FMT, sym, scale, (double)filter, nidx));
          PetscCall(Report(what, G, Gref, &nfail));
          PetscCall(MatDestroy(&G));
          PetscCall(MatDestroy(&Gref));
        }

  /* products with an AIJ prolongator (bs x cbs blocks: made AIJ when asked for as baijksparse) and, when cbs = bs,
     with a baijksparse one */
  for (int pk = 0; pk < (cbs == bs ? 2 : 1); pk++) {
    PetscCall(FillP(pk ? MATBAIJKSPARSE : ptype_aij, A, bs, cbs, seed + 7, &P));
    PetscCall(FillP(MATAIJ, Aref, bs, cbs, seed + 7, &Pref));
    PetscCall(MatGetType(P, &ptype));
    for (int t = 0; t < 2; t++) { /* A P, then A^T P */
      if (t) {
        PetscCall(MatTransposeMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
        PetscCall(MatTransposeMatMult(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Cref));
      } else {
        PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
        PetscCall(MatMatMult(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Cref));
      }
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s P (P %s)", t ? "A^T" : "A", ptype));
      PetscCall(Report(what, C, Cref, &nfail));
      if (!t) { /* its reuse after A's values change */
        PetscCall(MatScale(A, 2.0));
        PetscCall(MatScale(Aref, 2.0));
        PetscCall(MatMatMult(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, &C));
        PetscCall(MatMatMult(Aref, Pref, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Cref));
        PetscCall(PetscSNPrintf(what, sizeof(what), "A P reused, A changed (P %s)", ptype));
        PetscCall(Report(what, C, Cref, &nfail));
        PetscCall(MatScale(A, 0.5));
        PetscCall(MatScale(Aref, 0.5));
        if (size == 1) { /* and with another P of the same pattern (MatProductReplaceMats() inside MatMatMult()) */
          Mat P2, Pref2;

          PetscCall(MatDuplicate(P, MAT_COPY_VALUES, &P2));
          PetscCall(MatDuplicate(Pref, MAT_COPY_VALUES, &Pref2));
          PetscCall(MatScale(P2, -1.5));
          PetscCall(MatScale(Pref2, -1.5));
          PetscCall(MatMatMult(A, P2, MAT_REUSE_MATRIX, PETSC_DETERMINE, &C));
          PetscCall(MatMatMult(Aref, Pref2, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Cref));
          PetscCall(PetscSNPrintf(what, sizeof(what), "A P reused, another P (P %s)", ptype));
          PetscCall(Report(what, C, Cref, &nfail));
          PetscCall(MatDestroy(&P2));
          PetscCall(MatDestroy(&Pref2));
        }
      }
      PetscCall(MatDestroy(&C));
      PetscCall(MatDestroy(&Cref));
    }
    PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
    PetscCall(MatPtAP(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Cref));
    PetscCall(PetscSNPrintf(what, sizeof(what), "P^T A P (P %s)", ptype));
    PetscCall(Report(what, C, Cref, &nfail));
    {
      PetscBool ours;
      PetscInt  b;

      PetscCall(PetscObjectTypeCompareAny((PetscObject)C, &ours, MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE, ""));
      PetscCall(MatGetBlockSize(C, &b));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "P^T A P is baijksparse with block size %" PetscInt_FMT ": %s\n", b, ours && b == cbs ? "ok" : "FAILED"));
      if (!(ours && b == cbs)) nfail++;
    }
    PetscCall(Transfers(P, Pref, dev ? vtype : VECSTANDARD, &nfail));
    /* reuse: A's values change, P^T A P again into the same matrix */
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatScale(Aref, 2.0));
    PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, &C));
    PetscCall(MatPtAP(Aref, Pref, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Cref));
    PetscCall(PetscSNPrintf(what, sizeof(what), "P^T A P reused, A changed (P %s)", ptype));
    PetscCall(Report(what, C, Cref, &nfail));
    /* and after P's values change */
    PetscCall(MatScale(P, 3.0));
    PetscCall(MatScale(Pref, 3.0));
    PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, &C));
    PetscCall(MatPtAP(Aref, Pref, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Cref));
    PetscCall(PetscSNPrintf(what, sizeof(what), "P^T A P reused, P changed (P %s)", ptype));
    PetscCall(Report(what, C, Cref, &nfail));
    /* and with another prolongator of the same pattern (MatProductReplaceMats() inside MatPtAP()); one rank: PETSc's
       MPIAIJ PtAP refuses another P itself ("Reuse matrix used was not generated from input matrix") */
    if (size == 1) {
      Mat P2, Pref2;

      PetscCall(MatDuplicate(P, MAT_COPY_VALUES, &P2));
      PetscCall(MatDuplicate(Pref, MAT_COPY_VALUES, &Pref2));
      PetscCall(MatScale(P2, 0.5));
      PetscCall(MatScale(Pref2, 0.5));
      PetscCall(MatPtAP(A, P2, MAT_REUSE_MATRIX, PETSC_DETERMINE, &C));
      PetscCall(MatPtAP(Aref, Pref2, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Cref));
      PetscCall(PetscSNPrintf(what, sizeof(what), "P^T A P reused, another P (P %s)", ptype));
      PetscCall(Report(what, C, Cref, &nfail));
      PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, &C)); /* back to P for what follows */
      PetscCall(MatPtAP(Aref, Pref, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Cref));
      PetscCall(MatDestroy(&P2));
      PetscCall(MatDestroy(&Pref2));
    }
    /* a new pattern (the shift inserts the missing diagonal blocks): reuse is refused with a message */
    if (!pk) {
      PetscErrorCode ierr;

      PetscCall(MatShift(A, 0.5));
      PBG_TEST_REFUSE(ierr, MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, &C));
      PetscCall(PBGTestRefused(PETSC_COMM_WORLD, ierr, "P^T A P reused after A's pattern changed"));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Aref));
      PetscCall(FillA(MATBAIJKSPARSE, bs, nb, seed, 1, &A, &Aref));
    }
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cref));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Pref));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %" PetscInt_FMT " checks\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
