static char help[] = "Sub-matrices of MATBAIJKSPARSE against the same operation on a MATAIJ copy (seq and MPI).\n"
                     "  -mode submatrix:   MatCreateSubMatrix() with index sets of whole blocks (the result stays baijksparse) and\n"
                     "                     index sets that split blocks (the result is AIJ), MAT_INITIAL_MATRIX then MAT_REUSE_MATRIX\n"
                     "  -mode submatrices: MatCreateSubMatrices() of each rank's rows and one more block row (seqbaijksparse), and\n"
                     "                     of the same rows split (seqaij)\n"
                     "  -mode solve:       KSPSolve() with the PC of the options (fieldsplit, asm, bjacobi, ...) on baijksparse and on\n"
                     "                     AIJ: iteration counts within -its_tol (1) and solutions within -sol_tol (1e-7), -solves\n"
                     "                     times (2; the values change in between); prints the types of the sub-solvers' matrices\n"
                     "  -bs <3>, -nb <block rows per rank, 8>, -seed <1>\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include "test_rng.h"

/* A nonsymmetric block matrix, diagonally dominant: couplings to the block rows 1 and 3 away (wrapping), dense
   blocks with values from the seed (the same on every rank) */
static PetscErrorCode Build(PetscInt nb, PetscInt bs, PetscInt seed, Mat *A)
{
  PetscInt     rstart, rend, Nb;
  PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, nb * bs, nb * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATBAIJKSPARSE));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatXAIJSetPreallocation(*A, bs, NULL, NULL, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetSize(*A, &Nb, NULL));
  Nb /= bs;
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt ib = rstart / bs; ib < rend / bs; ib++) {
    const PetscInt offs[] = {0, 1, -1, 3, -3};

    for (PetscInt k = 0; k < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(offs); k++) {
      PetscInt   jb = ((ib + offs[k]) % Nb + Nb) % Nb;
      PetscInt64 s  = (PetscInt64)seed + 1000003 * ib + 7 * k + 1;

      for (PetscInt e = 0; e < bs * bs; e++) v[e] = (k ? 0.2 : 0.5) * RandReal(&s);
      if (!k)
        for (PetscInt e = 0; e < bs; e++) v[e * bs + e] += 3.0 + 0.1 * (PetscReal)e;
      PetscCall(MatSetValuesBlocked(*A, 1, &ib, 1, &jb, v, ADD_VALUES));
    }
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The local rows of A picked by `kind` (global indices, on comm): "blocks": every other block row, whole; "split":
   components 0 and bs-1 of every block row (bs > 2) or component 0 (bs <= 2); "mixed": every other block row whole and
   the first one without its last component; "all": every row. With extra_block >= 0, that block row too (sorted in) */
static PetscErrorCode PickRows(Mat A, MPI_Comm comm, const char kind[], PetscInt extra_block, IS *is)
{
  PetscInt  rstart, rend, bs, n = 0, *idx, first_block;
  PetscBool blocks, split, mixed, all;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscStrcmp(kind, "blocks", &blocks));
  PetscCall(PetscStrcmp(kind, "split", &split));
  PetscCall(PetscStrcmp(kind, "mixed", &mixed));
  PetscCall(PetscStrcmp(kind, "all", &all));
  PetscCheck(blocks || split || mixed || all, comm, PETSC_ERR_ARG_WRONG, "Unknown row pick %s", kind);
  PetscCall(PetscMalloc1(rend - rstart + bs, &idx));
  first_block = rstart / bs;
  for (PetscInt ib = rstart / bs; ib <= rend / bs; ib++) {
    PetscInt b = ib < rend / bs ? ib : extra_block; /* the extra block row last, unless it is one of ours */

    if (ib == rend / bs && (extra_block < 0 || (extra_block >= rstart / bs && extra_block < rend / bs))) break;
    for (PetscInt c = 0; c < bs; c++) {
      PetscBool take = all;

      if (blocks) take = (PetscBool)(b % 2 == 0);
      if (split) take = (PetscBool)(c == 0 || (bs > 2 && c == bs - 1));
      if (mixed) take = (PetscBool)(b == first_block ? c != bs - 1 : b % 2 == 0);
      if (take) idx[n++] = b * bs + c;
    }
  }
  PetscCall(ISCreateGeneral(comm, n, idx, PETSC_OWN_POINTER, is));
  PetscCall(ISSort(*is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* S and Sref (the same sub-matrix, of A and of its AIJ copy) have the same sizes and products; collective on
   PETSC_COMM_WORLD (a parallel sub-matrix is printed by rank 0) */
static PetscErrorCode Compare(Mat S, Mat Sref, const char what[])
{
  PetscInt    m, n, mr, nr;
  PetscBool   eq;
  MatType     type;
  PetscMPIInt rank, size;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(S, &m, &n));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)S), &size));
  PetscCall(MatGetSize(Sref, &mr, &nr));
  PetscCheck(m == mr && n == nr, PetscObjectComm((PetscObject)S), PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", the AIJ reference %" PetscInt_FMT " x %" PetscInt_FMT, what, m, n, mr, nr);
  PetscCall(MatMultEqual(S, Sref, 4, &eq));
  PetscCheck(eq, PetscObjectComm((PetscObject)S), PETSC_ERR_PLIB, "%s: products differ from the AIJ reference", what);
  PetscCall(MatGetType(S, &type));
  /* a sequential sub-matrix per rank: every rank's line, in rank order */
  if (size == 1 || rank == 0) PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "%s: %s %" PetscInt_FMT " x %" PetscInt_FMT ", matches AIJ\n", what, type, m, n));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckType(Mat S, const char what[], MatType want)
{
  PetscBool flg;
  MatType   type;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(S, &type));
  PetscCall(PetscObjectTypeCompare((PetscObject)S, want, &flg));
  PetscCheck(flg, PetscObjectComm((PetscObject)S), PETSC_ERR_PLIB, "%s: the sub-matrix is %s, expected %s", what, type, want);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestSubMatrix(Mat A, Mat Aref)
{
  const char *rows[] = {"blocks", "split", "mixed", "all"}, *cols[] = {"blocks", "split", "blocks", "split"};
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(rows); i++) {
    IS        isrow, iscol;
    Mat       S, Sref;
    char      what[64];
    PetscBool whole;

    PetscCall(PickRows(A, PETSC_COMM_WORLD, rows[i], -1, &isrow));
    PetscCall(PickRows(A, PETSC_COMM_WORLD, cols[i], -1, &iscol));
    PetscCall(PetscSNPrintf(what, sizeof(what), "submatrix rows %s, columns %s", rows[i], cols[i]));
    PetscCall(MatCreateSubMatrix(A, isrow, iscol, MAT_INITIAL_MATRIX, &S));
    PetscCall(MatCreateSubMatrix(Aref, isrow, iscol, MAT_INITIAL_MATRIX, &Sref));
    whole = (PetscBool)(!strcmp(rows[i], "blocks") && !strcmp(cols[i], "blocks"));
    PetscCall(CheckType(S, what, whole ? (size > 1 ? MATMPIBAIJKSPARSE : MATSEQBAIJKSPARSE) : (size > 1 ? MATMPIAIJ : MATSEQAIJ)));
    PetscCall(Compare(S, Sref, what));
    /* new values, same pattern: the reused sub-matrix follows */
    PetscCall(MatScale(A, -2.0));
    PetscCall(MatScale(Aref, -2.0));
    PetscCall(MatShift(A, 1.5));
    PetscCall(MatShift(Aref, 1.5));
    PetscCall(MatCreateSubMatrix(A, isrow, iscol, MAT_REUSE_MATRIX, &S));
    PetscCall(MatCreateSubMatrix(Aref, isrow, iscol, MAT_REUSE_MATRIX, &Sref));
    PetscCall(PetscStrlcat(what, ", reused", sizeof(what)));
    PetscCall(Compare(S, Sref, what));
    PetscCall(MatDestroy(&S));
    PetscCall(MatDestroy(&Sref));
    PetscCall(ISDestroy(&isrow));
    PetscCall(ISDestroy(&iscol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestSubMatrices(Mat A, Mat Aref)
{
  const char *kinds[] = {"all", "split"};
  PetscMPIInt rank, size;
  PetscInt    Nb, bs;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatGetSize(A, &Nb, NULL));
  PetscCall(MatGetBlockSize(A, &bs));
  Nb /= bs;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(kinds); i++) {
    IS        is;
    Mat      *S, *Sref;
    PetscInt  rend;
    char      what[64];
    PetscBool whole = (PetscBool)!strcmp(kinds[i], "all");

    /* the rows of this rank and the first block row of the next rank (an overlap, as PCASM's) */
    PetscCall(MatGetOwnershipRange(A, NULL, &rend));
    PetscCall(PickRows(A, PETSC_COMM_SELF, kinds[i], (rend / bs) % Nb, &is));
    PetscCall(MatCreateSubMatrices(A, 1, &is, &is, MAT_INITIAL_MATRIX, &S));
    PetscCall(MatCreateSubMatrices(Aref, 1, &is, &is, MAT_INITIAL_MATRIX, &Sref));
    PetscCall(PetscSNPrintf(what, sizeof(what), "[%d] submatrices rows %s", rank, kinds[i]));
    PetscCall(CheckType(S[0], what, whole ? MATSEQBAIJKSPARSE : MATSEQAIJ));
    PetscCall(Compare(S[0], Sref[0], what));
    PetscCall(MatScale(A, 0.5));
    PetscCall(MatScale(Aref, 0.5));
    PetscCall(MatCreateSubMatrices(A, 1, &is, &is, MAT_REUSE_MATRIX, &S));
    PetscCall(MatCreateSubMatrices(Aref, 1, &is, &is, MAT_REUSE_MATRIX, &Sref));
    PetscCall(PetscStrlcat(what, ", reused", sizeof(what)));
    PetscCall(Compare(S[0], Sref[0], what));
    PetscCall(MatDestroySubMatrices(1, &S));
    PetscCall(MatDestroySubMatrices(1, &Sref));
    PetscCall(ISDestroy(&is));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The type of the matrix of every sub-solver of the PC (fieldsplit, asm, bjacobi; none for other PCs), on rank 0 */
static PetscErrorCode ViewSubTypes(PC pc, const char label[])
{
  KSP      *subksp = NULL;
  PetscInt  nsub   = 0;
  PetscBool isfs, isasm, isbj;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCFIELDSPLIT, &isfs));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCASM, &isasm));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &isbj));
  if (isfs) PetscCall(PCFieldSplitGetSubKSP(pc, &nsub, &subksp));
  else if (isasm) PetscCall(PCASMGetSubKSP(pc, &nsub, NULL, &subksp));
  else if (isbj) PetscCall(PCBJacobiGetSubKSP(pc, &nsub, NULL, &subksp));
  for (PetscInt i = 0; i < nsub; i++) {
    Mat     P;
    MatType type;

    PetscCall(KSPGetOperators(subksp[i], NULL, &P));
    PetscCall(MatGetType(P, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: sub-solver %" PetscInt_FMT " matrix %s\n", label, i, type));
  }
  if (isfs) PetscCall(PetscFree(subksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateKSP(Mat A, KSP *ksp)
{
  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(KSP ksp, const char label[], Vec b, Vec x, PetscInt *its)
{
  PC                 pc;
  PCType             pctype;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s, %" PetscInt_FMT " iterations, PC %s\n", label, KSPConvergedReasons[reason], *its, pctype));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s: the solve did not converge", label);
  PetscCall(ViewSubTypes(pc, label));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -solves N: after each solve the values of both matrices change (same pattern), so that the PC's next setup reuses
   its sub-matrices (MAT_REUSE_MATRIX) */
static PetscErrorCode TestSolve(Mat A, Mat Aref)
{
  KSP       ksp, kspref;
  Vec       b, x, xref;
  PetscInt  its, its_ref, its_tol = 1, solves = 2;
  PetscReal sol_tol = 1e-7, nd, nr;
  MatType   type, type_ref;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its_tol", &its_tol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-sol_tol", &sol_tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-solves", &solves, NULL));
  PetscCall(MatCreateVecs(Aref, &xref, &b));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(MatGetType(A, &type));
  PetscCall(MatGetType(Aref, &type_ref));
  PetscCall(CreateKSP(A, &ksp));
  PetscCall(CreateKSP(Aref, &kspref));
  for (PetscInt s = 0; s < solves; s++) {
    if (s) {
      PetscCall(MatScale(A, 1.5));
      PetscCall(MatScale(Aref, 1.5));
      PetscCall(MatShift(A, 0.25));
      PetscCall(MatShift(Aref, 0.25));
    }
    PetscCall(Solve(ksp, type, b, x, &its));
    PetscCall(Solve(kspref, type_ref, b, xref, &its_ref));
    PetscCall(VecAXPY(x, -1.0, xref));
    PetscCall(VecNorm(x, NORM_2, &nd));
    PetscCall(VecNorm(xref, NORM_2, &nr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %" PetscInt_FMT ": iterations %" PetscInt_FMT " (AIJ %" PetscInt_FMT "), solutions differ by %.1e relative\n", s, its, its_ref, (double)(nd / nr)));
    PetscCheck(PetscAbsInt(its - its_ref) <= its_tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Iteration counts %" PetscInt_FMT " and %" PetscInt_FMT " (AIJ) are more than %" PetscInt_FMT " apart", its, its_ref, its_tol);
    PetscCheck(nd <= sol_tol * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The solutions differ by %g relative (more than %g)", (double)(nd / nr), (double)sol_tol);
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(KSPDestroy(&kspref));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A, Aref;
  PetscInt  bs = 3, nb = 8, seed = 1;
  char      mode[32] = "submatrix";
  PetscBool flg;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(Build(nb, bs, seed, &A));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aref));
  PetscCall(PetscStrcmp(mode, "submatrix", &flg));
  if (flg) PetscCall(TestSubMatrix(A, Aref));
  else {
    PetscCall(PetscStrcmp(mode, "submatrices", &flg));
    if (flg) PetscCall(TestSubMatrices(A, Aref));
    else {
      PetscCall(PetscStrcmp(mode, "solve", &flg));
      PetscCheck(flg, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-mode submatrix, submatrices or solve, not %s", mode);
      PetscCall(TestSolve(A, Aref));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(PetscFinalize());
  return 0;
}
