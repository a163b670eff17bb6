/*
  ex_installed - a program built against an installed petscblockgpu with pkg-config (doc/install.md):

    export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig:$PETSC_DIR/lib/pkgconfig
    $(pkg-config --variable=ccompiler PETSc) ex_installed.c -o ex_installed \
        $(pkg-config --cflags --libs petscblockgpu) -Wl,-rpath,$(pkg-config --variable=libdir PETSc)

  It links the library (no -dll_append), prints where the library looks for the tuning table of a GPU architecture
  (MatBAIJKSPARSEGetTuningTable(), no GPU needed), and solves a block tridiagonal system with baijksparse, vbjacobi
  and idrs (on the GPU when there is one, else on the host path), checking the solution.
*/
#include <petscblockgpu.h>

static char help[] = "Checks an installed petscblockgpu: its tuning table lookup and a small solve.\n"
                     "Options:\n"
                     "  -arch <90>   GPU architecture (10 x major + minor) whose tuning table is looked up\n"
                     "  -mbs <100>   block rows of the test system\n"
                     "  -bs <3>      block size\n";

int main(int argc, char **argv)
{
  PetscInt    arch = 90, mbs = 100, bs = 3, its;
  char        path[PETSC_MAX_PATH_LEN], tried[4 * PETSC_MAX_PATH_LEN];
  const char *petsclibdir, *petscversion, *prefix;
  PetscBool   found;
  Mat         A;
  Vec         x, b, u;
  KSP         ksp;
  PC          pc;
  PetscReal   err;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-arch", &arch, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mbs", &mbs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));

  PetscCall(PetscBlockGPUGetBuildInfo(&petsclibdir, &petscversion, &prefix));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petscblockgpu install prefix: %s; built against PETSc %s in %s\n", prefix[0] ? prefix : "(none: build tree)", petscversion, petsclibdir));
  PetscCall(MatBAIJKSPARSEGetTuningTable(arch, sizeof(path), path, tried, &found));
  if (found) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tuning table for sm_%" PetscInt_FMT ": %s\n", arch, path));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tuning table for sm_%" PetscInt_FMT ": none (looked for %s)\n", arch, tried));

  /* block tridiagonal: diagonal blocks 4 I + (1/(i+j+1)), off-diagonal blocks -I */
  PetscCall(MatCreateBAIJKSPARSE(PETSC_COMM_WORLD, bs, PETSC_DECIDE, PETSC_DECIDE, mbs * bs, mbs * bs, 3, NULL, 2, NULL, &A));
  {
    PetscInt     rstart, rend;
    PetscScalar *d, *o;

    PetscCall(PetscCalloc2(bs * bs, &d, bs * bs, &o));
    for (PetscInt i = 0; i < bs; i++) {
      o[i * bs + i] = -1;
      for (PetscInt j = 0; j < bs; j++) d[i * bs + j] = (i == j ? 4.0 : 0.0) + 1.0 / (i + j + 1);
    }
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    for (PetscInt r = rstart / bs; r < rend / bs; r++) {
      PetscCall(MatSetValuesBlocked(A, 1, &r, 1, &r, d, INSERT_VALUES));
      for (PetscInt c = r - 1; c <= r + 1; c += 2)
        if (c >= 0 && c < mbs) PetscCall(MatSetValuesBlocked(A, 1, &r, 1, &c, o, INSERT_VALUES));
    }
    PetscCall(PetscFree2(d, o));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSetRandom(u, NULL));
  PetscCall(MatMult(A, u, b));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPIDRS));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(VecAXPY(x, -1, u));
  PetscCall(VecNorm(x, NORM_INFINITY, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s + %s + %s, %" PetscInt_FMT " iterations, max error %.2e\n", err < 1e-6 ? "OK" : "FAILED", MATBAIJKSPARSE, PCVBJACOBI, KSPIDRS, its, (double)err));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return err < 1e-6 ? 0 : 1;
}
