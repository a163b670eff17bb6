static char help[] = "Regression tests of PCVBJACOBI (issue 26):\n"
                     "  -case setters : the setters take effect after a setup. A matrix of 4-row diagonal blocks, one of them singular\n"
                     "                  on rank 0: the default policy (error) fails the setup (KSP_DIVERGED_PC_FAILED); after\n"
                     "                  PCVBJacobiSetSingularPolicy(identity) the same KSP must solve. Then PCVBJacobiSetMaxBlockSize(2) and\n"
                     "                  PCVBJacobiSetBlocking(natural) on the set-up PC must give the blocks (count and starts) and the\n"
                     "                  PCApply of a fresh PC made with those settings (before: the old blocks stayed).\n"
                     "  -case options : the same through the options database (-pc_vbjacobi_singular, -pc_vbjacobi_max_block_size,\n"
                     "                  -pc_vbjacobi_blocking set after the setup, then PCSetFromOptions(), as KSPSetFromOptions()\n"
                     "                  between two solves does; before: the singular policy and the blocking given so were ignored).\n"
                     "  -case zerosizes : MatSetVariableBlockSizes() with zero sizes among the others (PETSc accepts them): the\n"
                     "                  zero blocks are skipped; PCApply must equal PETSc's PCVPBJACOBI on a copy of the matrix given\n"
                     "                  the same sizes without the zeros (PCVPBJACOBI itself crashes on the zeros, in PETSc 3.26.1).\n"
                     "  -case badsizes : variable block sizes of 4 with -pc_vbjacobi_blocking variable and a maximum block size of 2:\n"
                     "                  a clear error, caught, and nothing leaked (-malloc_dump).\n"
                     "Options: -n <rows per rank, a multiple of 4; default 64>, plus -mat_type / -vec_type.\n";

#include <petscblockgpu.h>
#include <petscksp.h>

typedef enum {
  CASE_SETTERS,
  CASE_OPTIONS,
  CASE_ZEROSIZES,
  CASE_BADSIZES
} Case;
static const char *const Cases[] = {"setters", "options", "zerosizes", "badsizes", "Case", "CASE_", NULL};

/* Block diagonal with dense nonsymmetric diagonally dominant 4 x 4 blocks, and a weak coupling to the next block row;
   with singular, the first block of rank 0 is all ones (rank 1) */
static PetscErrorCode BuildMatrix(PetscInt n, PetscBool singular, Mat *A)
{
  PetscInt    rstart, rend, N;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 1, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetSize(*A, &N, NULL));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt b0 = r - (r - rstart) % 4;
    PetscInt       cols[5];
    PetscScalar    vals[5];

    for (PetscInt c = 0; c < 4; c++) {
      cols[c] = b0 + c;
      if (singular && rank == 0 && b0 == rstart) vals[c] = 1.0;
      else vals[c] = (b0 + c == r) ? 8.0 + 0.1 * (PetscScalar)(r % 7) : 0.5 + 0.25 * (PetscScalar)((r * 5 + c * 3) % 7) - 0.75;
    }
    cols[4] = (b0 + 4 + (r - b0)) % N; /* a coupling outside the block (the blocking must not be fooled by it) */
    vals[4] = 0.01;
    PetscCall(MatSetValues(*A, 1, &r, cols[4] >= b0 && cols[4] < b0 + 4 ? 4 : 5, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||pc1 x - pc2 x||_inf relative to ||pc2 x||_inf, output of pc1 poisoned first */
static PetscErrorCode CompareApply(Mat A, PC pc1, PC pc2, PetscReal *rel)
{
  Vec       x, y1, y2;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSet(y1, (PetscScalar)NAN));
  PetscCall(PCApply(pc1, x, y1));
  PetscCall(PCApply(pc2, x, y2));
  PetscCall(VecAXPY(y1, -1.0, y2));
  PetscCall(VecNorm(y1, NORM_INFINITY, &nd));
  PetscCall(VecNorm(y2, NORM_INFINITY, &nr));
  *rel = nd / nr;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The blocks of pc against those of ref: the same count and starts on every rank */
static PetscErrorCode SameBlocks(PC pc, PC ref, PetscBool *same)
{
  PetscInt        nb, nbr;
  const PetscInt *st, *str;
  PetscBool       s = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
  PetscCall(PCVBJacobiGetBlocks(ref, &nbr, &str));
  if (nb != nbr) s = PETSC_FALSE;
  for (PetscInt b = 0; s && b <= nb; b++)
    if (st[b] != str[b]) s = PETSC_FALSE;
  PetscCallMPI(MPIU_Allreduce(&s, same, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A fresh PCVBJACOBI on A with a maximum block size and a blocking, set up */
static PetscErrorCode FreshPC(Mat A, PetscInt maxbs, PCVBJacobiBlocking blocking, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PETSC_COMM_WORLD, pc));
  PetscCall(PCSetType(*pc, PCVBJACOBI));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCVBJacobiSetMaxBlockSize(*pc, maxbs));
  PetscCall(PCVBJacobiSetBlocking(*pc, blocking));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Changes the settings of a PCVBJACOBI that are given (maxbs > 0, blocking and policy >= 0): through the setters, or with
   options through the options database and PCSetFromOptions() (the values are cleared afterwards) */
static PetscErrorCode ChangeSettings(PC pc, PetscBool options, PetscInt maxbs, PetscInt blocking, PetscInt policy)
{
  PetscFunctionBeginUser;
  if (!options) {
    if (maxbs > 0) PetscCall(PCVBJacobiSetMaxBlockSize(pc, maxbs));
    if (blocking >= 0) PetscCall(PCVBJacobiSetBlocking(pc, (PCVBJacobiBlocking)blocking));
    if (policy >= 0) PetscCall(PCVBJacobiSetSingularPolicy(pc, (PCVBJacobiSingularPolicy)policy));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (maxbs > 0) {
    char v[32];

    PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, maxbs));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_vbjacobi_max_block_size", v));
  }
  if (blocking >= 0) PetscCall(PetscOptionsSetValue(NULL, "-pc_vbjacobi_blocking", PCVBJacobiBlockings[blocking]));
  if (policy >= 0) PetscCall(PetscOptionsSetValue(NULL, "-pc_vbjacobi_singular", PCVBJacobiSingularPolicies[policy]));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vbjacobi_max_block_size"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vbjacobi_blocking"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vbjacobi_singular"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The settings changed after a setup, through the setters or (options) the options database */
static PetscErrorCode CaseSetters(PetscInt n, PetscBool options)
{
  const char *set_policy = options ? "-pc_vbjacobi_singular" : "PCVBJacobiSetSingularPolicy", *set_maxbs = options ? "-pc_vbjacobi_max_block_size" : "PCVBJacobiSetMaxBlockSize", *set_blocking = options ? "-pc_vbjacobi_blocking" : "PCVBJacobiSetBlocking";
  Mat         A, B;
  KSP         ksp;
  PC          pc, ref;
  Vec         x, b;
  KSPConvergedReason reason;
  PetscInt           nb, nbr;
  PetscReal          rel;
  PetscBool          same;

  PetscFunctionBeginUser;
  /* 1. a failed setup recovers with the identity policy */
  PetscCall(BuildMatrix(n, PETSC_TRUE, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 200));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "singular block, policy error: %s\n", KSPConvergedReasons[reason]));
  PetscCheck(reason == KSP_DIVERGED_PC_FAILED, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "expected KSP_DIVERGED_PC_FAILED with a singular block, got %s", KSPConvergedReasons[reason]);
  PetscCall(ChangeSettings(pc, options, -1, -1, PC_VBJACOBI_SINGULAR_IDENTITY));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after %s identity: %s\n", set_policy, KSPConvergedReasons[reason]));
  /* (the singular block makes A singular: GMRES may stop on its own criterion; what matters is that the PC set up) */
  PetscCheck(reason != KSP_DIVERGED_PC_FAILED, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the identity policy set after a failed setup did not take effect: %s", KSPConvergedReasons[reason]);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));

  /* 2. the maximum block size and the blocking, changed on a set-up PC (supervariables of 4 rows at the default bound) */
  PetscCall(BuildMatrix(n, PETSC_FALSE, &B));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCSetOperators(pc, B, B));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, NULL));
  PetscCall(ChangeSettings(pc, options, 2, -1, -1));
  PetscCall(PCSetUp(pc));
  PetscCall(FreshPC(B, 2, PC_VBJACOBI_BLOCKING_AUTO, &ref));
  PetscCall(PCVBJacobiGetBlocks(ref, &nbr, NULL));
  PetscCall(SameBlocks(pc, ref, &same));
  PetscCall(CompareApply(B, pc, ref, &rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s 2 after a setup: %s blocks as a fresh PC (rank 0: %" PetscInt_FMT " -> %" PetscInt_FMT "), apply differs by %.1e\n", set_maxbs, same ? "the same" : "OTHER", nb, nbr, (double)rel));
  PetscCheck(same && rel <= 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the maximum block size set after a setup did not take effect");
  PetscCall(PCDestroy(&ref));

  PetscCall(ChangeSettings(pc, options, 32, PC_VBJACOBI_BLOCKING_NATURAL, -1));
  PetscCall(PCSetUp(pc));
  PetscCall(FreshPC(B, 32, PC_VBJACOBI_BLOCKING_NATURAL, &ref));
  PetscCall(SameBlocks(pc, ref, &same));
  PetscCall(CompareApply(B, pc, ref, &rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s natural after a setup: %s blocks as a fresh PC, apply differs by %.1e\n", set_blocking, same ? "the same" : "OTHER", (double)rel));
  PetscCheck(same && rel <= 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the blocking set after a setup did not take effect");
  PetscCall(PCDestroy(&ref));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Variable block sizes 4 with zeros among them; PCVBJACOBI against PCVPBJACOBI on the sizes without the zeros. bad: the
   sizes over a maximum block size of 2 */
static PetscErrorCode CaseZeroSizes(PetscInt n, PetscBool bad)
{
  Mat       A, B;
  PC        pc, ref;
  PetscInt *sizes, *plain, nb = 0, nblocks;
  PetscReal rel;

  PetscFunctionBeginUser;
  PetscCall(BuildMatrix(n, PETSC_FALSE, &A));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(PetscMalloc2(n / 4 * 2 + 2, &sizes, n / 4, &plain));
  sizes[nb++] = 0; /* a zero first, in between, and last */
  for (PetscInt b = 0; b < n / 4; b++) {
    sizes[nb++] = 4;
    plain[b]    = 4;
    if (b % 3 == 1) sizes[nb++] = 0;
  }
  sizes[nb++] = 0;
  PetscCall(MatSetVariableBlockSizes(A, nb, sizes));
  PetscCall(MatSetVariableBlockSizes(B, n / 4, plain));
  PetscCall(PetscFree2(sizes, plain));

  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetFromOptions(pc));
  if (bad) {
    PetscCall(PCVBJacobiSetBlocking(pc, PC_VBJACOBI_BLOCKING_VARIABLE));
    PetscCall(PCVBJacobiSetMaxBlockSize(pc, 2));
  }
  if (bad) { /* the error is caught, so that -malloc_dump at PetscFinalize() shows what its path leaked */
    PetscErrorCode ierr;
    const char    *text, *specific;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PCSetUp(pc);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad variable block sizes: error %d (%s): %s\n", (int)ierr, text ? text : "", specific ? specific : ""));
    PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "expected PETSC_ERR_ARG_OUTOFRANGE, got %d", (int)ierr);
    PetscCall(PCDestroy(&pc));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCSetUp(pc));
  PetscCall(PCVBJacobiGetBlocks(pc, &nblocks, NULL));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &ref));
  PetscCall(PCSetType(ref, PCVPBJACOBI));
  PetscCall(PCSetOperators(ref, B, B));
  PetscCall(PCSetUp(ref));
  PetscCall(CompareApply(A, pc, ref, &rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "variable sizes with zeros: %" PetscInt_FMT " blocks on rank 0 (of %" PetscInt_FMT " sizes), PCApply against PCVPBJACOBI: %.1e\n", nblocks, nb, (double)rel));
  PetscCheck(nblocks == n / 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " blocks, expected %" PetscInt_FMT, nblocks, n / 4);
  PetscCheck(rel <= 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCApply differs from PCVPBJACOBI's by %g", (double)rel);
  PetscCall(PCDestroy(&pc));
  PetscCall(PCDestroy(&ref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Case     c = CASE_SETTERS;
  PetscInt n = 64;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_vbjacobi_setters options", NULL);
  PetscCall(PetscOptionsEnum("-case", "what to test", NULL, Cases, (PetscEnum)c, (PetscEnum *)&c, NULL));
  PetscCall(PetscOptionsInt("-n", "rows per rank (a multiple of 4)", NULL, n, &n, NULL));
  PetscOptionsEnd();
  PetscCheck(n > 0 && n % 4 == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-n must be a positive multiple of 4");
  if (c == CASE_SETTERS || c == CASE_OPTIONS) PetscCall(CaseSetters(n, (PetscBool)(c == CASE_OPTIONS)));
  else PetscCall(CaseZeroSizes(n, (PetscBool)(c == CASE_BADSIZES)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
