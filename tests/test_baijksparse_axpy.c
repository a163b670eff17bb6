static char help[] = "Regression test: MatAXPY() and MatCopy() with DIFFERENT_NONZERO_PATTERN into a baijksparse matrix (seq and MPI).\n"
                     "PETSc merges a new matrix into Y with MatHeaderMerge(), which kept our methods but dropped the subclass's data:\n"
                     "on MPI the next MatAssemblyEnd()/MatMult() crashed, and the seq type leaked 124 bytes per call.\n"
                     "Checks Y's type after the operation and its products against the same operation on MATAIJ copies.\n"
                     "  -op axpy|copy (default axpy), -bs <2>, -nb <block rows per rank, 6>, -x_mat_type baij|baijksparse\n";

#include <petscblockgpu.h>

/* A block matrix with a diagonal and one shifted coupling per row (the shift differs between the two operands) */
static PetscErrorCode Build(PetscInt nb, PetscInt bs, PetscInt shift, const char prefix[], MatType type, Mat *M)
{
  PetscInt rstart, rend, N;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, M));
  PetscCall(MatSetSizes(*M, nb * bs, nb * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*M, bs));
  PetscCall(MatSetType(*M, type));
  PetscCall(MatSetOptionsPrefix(*M, prefix));
  PetscCall(MatSetFromOptions(*M));
  PetscCall(MatSetUp(*M));
  PetscCall(MatSetOption(*M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*M, &rstart, &rend));
  PetscCall(MatGetSize(*M, &N, NULL));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt    c[2] = {r, (r + shift) % N};
    PetscScalar v[2] = {4.0 + (PetscScalar)(r % 3), -1.0 - 0.1 * (PetscScalar)(r % 5)};

    PetscCall(MatSetValues(*M, 1, &r, 2, c, v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       Y, X, Yref, Xref;
  Vec       x, y, yref;
  PetscInt  bs = 2, nb = 6;
  char      op[16] = "axpy";
  PetscBool isk;
  PetscReal nd, nr;
  MatType   ytype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-op", op, sizeof(op), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(Build(nb, bs, 3, NULL, MATBAIJKSPARSE, &Y));
  PetscCall(Build(nb, bs, 5, "x_", MATBAIJ, &X));
  PetscCall(MatConvert(Y, MATAIJ, MAT_INITIAL_MATRIX, &Yref));
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &Xref));
  for (PetscInt rep = 0; rep < 2; rep++) { /* twice: the matrix a first call left must take a second */
    if (!strcmp(op, "axpy")) {
      PetscCall(MatAXPY(Y, 2.0, X, DIFFERENT_NONZERO_PATTERN));
      PetscCall(MatAXPY(Yref, 2.0, Xref, DIFFERENT_NONZERO_PATTERN));
    } else {
      PetscCheck(!strcmp(op, "copy"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-op axpy or copy, not %s", op);
      PetscCall(MatCopy(X, Y, DIFFERENT_NONZERO_PATTERN));
      PetscCall(MatCopy(Xref, Yref, DIFFERENT_NONZERO_PATTERN));
    }
  }
  PetscCall(MatGetType(Y, &ytype));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)Y, &isk, MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE, ""));
  PetscCheck(isk, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Y became %s", ytype);
  PetscCall(MatCreateVecs(Yref, &x, &yref));
  PetscCall(MatCreateVecs(Y, NULL, &y));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSet(y, 1e300)); /* poisoned */
  PetscCall(MatMult(Y, x, y));
  PetscCall(MatMult(Yref, x, yref));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_INFINITY, &nd));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nr));
  PetscCheck(nd <= 1e-13 * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMult after %s differs from the AIJ reference: %g of %g", op, (double)nd, (double)nr);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s with DIFFERENT_NONZERO_PATTERN into %s: products match the AIJ reference (rel diff %.1e)\nOK\n", op, ytype, (double)(nd / nr)));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&Y));
  PetscCall(MatDestroy(&Xref));
  PetscCall(MatDestroy(&Yref));
  PetscCall(PetscFinalize());
  return 0;
}
