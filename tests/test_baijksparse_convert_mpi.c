static char help[] = "MatConvert() of a distributed AIJ subclass (mpiaijperm on the host, mpiaijcusparse with -mat_type) to MATBAIJKSPARSE and back, on any number of ranks.\n"
                     "  -bs <3>: block size; -mb <7>: block rows a rank; -seed <1>\n"
                     "Each conversion (baijksparse back to AIJ: INITIAL, REUSE into a matrix poisoned with NaN, INPLACE) is checked by its type, its Frobenius norm and MatMult() on a random x against the source (relative 1e-14).\n";

/* The random source: block row r of a rank holds the diagonal block, the block of the next block row (on the next rank
   for the last one: off-process columns) and one random block column; each block dense, values in [-1, 1). Assembled
   as MATAIJ with the type from the options (-mat_type mpiaijperm, mpiaijcusparse, ...). */
#include <petscmat.h>
#include <petscblockgpu.h>

static PetscErrorCode Check(const char *what, Mat S, Mat T, MatType type, PetscInt *nfail)
{
  PetscBool same;
  MatType   ttype;
  PetscReal ns, nt, d, nref;
  Vec       x, ys, yt;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)T, type, &same));
  PetscCall(MatGetType(T, &ttype));
  PetscCall(MatNorm(S, NORM_FROBENIUS, &ns));
  PetscCall(MatNorm(T, NORM_FROBENIUS, &nt));
  PetscCall(MatCreateVecs(S, &x, &ys));
  PetscCall(MatCreateVecs(T, NULL, &yt));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(S, x, ys));
  PetscCall(MatMult(T, x, yt));
  PetscCall(VecNorm(ys, NORM_2, &nref));
  PetscCall(VecAXPY(yt, -1.0, ys));
  PetscCall(VecNorm(yt, NORM_2, &d));
  if (!same || !(PetscAbsReal(ns - nt) <= 1e-14 * ns) || !(d <= 1e-14 * nref)) { /* a NaN fails */
    (*nfail)++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: FAILED (type %s, want %s; norms %g and %g; MatMult difference %g of %g)\n", what, ttype, type, (double)ns, (double)nt, (double)d, (double)nref));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s ok\n", what, ttype));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ys));
  PetscCall(VecDestroy(&yt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat          A, K, B;
  PetscInt     bs = 3, mb = 7, seed = 1, nfail = 0, rstart, mball;
  PetscMPIInt  rank, size;
  PetscRandom  rnd;
  PetscScalar *v;
  char         back[64] = MATAIJ;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mb", &mb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-back", back, sizeof(back), NULL));
  PetscCheck(bs >= 1 && mb >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs and -mb must be positive");
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  mball = mb * size;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed * 131 + rank)));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));

  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, mb * bs, mb * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 3 * bs, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 3 * bs, NULL, 2 * bs, NULL));
  PetscCall(PetscMalloc1(bs * bs, &v));
  rstart = rank * mb;
  for (PetscInt r = rstart; r < rstart + mb; r++) {
    PetscReal u;
    PetscInt  bc[3], rows[64], cols[64];

    PetscCall(PetscRandomGetValueReal(rnd, &u));
    bc[0] = r;
    bc[1] = (r + 1) % mball;
    bc[2] = (PetscInt)((0.5 * (u + 1.0)) * mball) % mball;
    for (PetscInt t = 0; t < 3; t++) {
      if ((t == 1 && bc[1] == bc[0]) || (t == 2 && (bc[2] == bc[0] || bc[2] == bc[1]))) continue;
      for (PetscInt i = 0; i < bs; i++) {
        rows[i] = r * bs + i;
        cols[i] = bc[t] * bs + i;
      }
      for (PetscInt i = 0; i < bs * bs; i++) PetscCall(PetscRandomGetValue(rnd, &v[i]));
      PetscCall(MatSetValues(A, bs, rows, bs, cols, v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatScale(A, 2.0)); /* on the device for a device type: the conversion must see these values */
  {
    MatType  atype;
    PetscInt M, N;

    PetscCall(MatGetType(A, &atype));
    PetscCall(MatGetSize(A, &M, &N));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %" PetscInt_FMT " x %" PetscInt_FMT ", bs %" PetscInt_FMT ", %d ranks\n", atype, M, N, bs, (int)size));
  }

  PetscCall(MatConvert(A, MATBAIJKSPARSE, MAT_INITIAL_MATRIX, &K));
  PetscCall(Check("aij -> baijksparse INITIAL", A, K, size > 1 ? MATMPIBAIJKSPARSE : MATSEQBAIJKSPARSE, &nfail));
  PetscCall(MatScale(K, -0.5));
  PetscCall(MatConvert(K, back, MAT_INITIAL_MATRIX, &B));
  {
    char      full[80];
    PetscBool want;
    MatType   btype;

    PetscCall(MatGetType(B, &btype));
    PetscCall(Check("baijksparse -> aij INITIAL", K, B, btype, &nfail));
    /* the type asked for, or its seq/mpi name */
    PetscCall(PetscSNPrintf(full, sizeof(full), "%s%s", size > 1 ? "mpi" : "seq", back));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &want, back, full, ""));
    if (!want) {
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "baijksparse -> %s: FAILED (got %s)\n", back, btype));
    }
  }
  { /* MAT_REUSE_MATRIX into B poisoned with NaN (every value must be written), then MAT_INPLACE_MATRIX on a duplicate */
    Mat     D, Dobj;
    MatType btype;

    PetscCall(MatGetType(B, &btype));
    PetscCall(MatScale(B, (PetscScalar)NAN));
    PetscCall(MatScale(K, 3.0));
    PetscCall(MatConvert(K, back, MAT_REUSE_MATRIX, &B));
    PetscCall(Check("baijksparse -> aij REUSE", K, B, btype, &nfail));
    PetscCall(MatDuplicate(K, MAT_COPY_VALUES, &D));
    Dobj = D;
    PetscCall(MatConvert(D, back, MAT_INPLACE_MATRIX, &D));
    if (D != Dobj) {
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "baijksparse -> aij INPLACE: FAILED (the object changed)\n"));
    }
    PetscCall(Check("baijksparse -> aij INPLACE", K, D, btype, &nfail));
    PetscCall(MatDestroy(&D));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&K));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree(v));
  PetscCall(PetscRandomDestroy(&rnd));
  if (!nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
