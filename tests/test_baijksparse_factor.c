static char help[] = "PETSc's factorizations of a MATBAIJKSPARSE matrix whose values were last changed on the device, against MATBAIJ.\n"
                     "Y (baijksparse) and Yref (baij) hold the same random symmetric positive definite block matrix. Each round\n"
                     "sets new values on the host, multiplies (on a GPU this puts the values on the device), then scales and\n"
                     "shifts both: on a GPU Y's device copy is then newer than its host copy, which BAIJ's factorizations read\n"
                     "directly. For each PC of -pcs, a KSPPREONLY made once and reused over the rounds (so that later rounds\n"
                     "refactor numerically only) solves Y x = b and Yref xref = b; under MPI the PC is PCBJACOBI with that PC on\n"
                     "each rank's diagonal block. Checks: x against xref (the factor is of the current values), and for lu and\n"
                     "cholesky on one rank the residual |b - Y x| / |b| by Y's own product.\n"
                     "Options: -bs <3>, -nb <block rows per rank, 10>, -seed <1>, -rounds <2>, -pcs <lu,ilu,cholesky,icc>,\n"
                     "  -vec_type <standard|cuda> (the vectors; cuda puts Y's values on the device), -solver_type <name> (for\n"
                     "  -pc_factor_mat_solver_type of every PC; default: PETSc's choice), -solver_type_ref <name> (Yref's; default: -solver_type),\n"
                     "  -host_vecs (VECSTANDARD vectors whatever MatCreateVecs() gives)\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include <petsc/private/matimpl.h> /* A->offloadmask: whether the device copy was newer before the factorization */
#include "test_rng.h"

/* A value of the symmetric matrix: entry (r, c) of block (bi, bj), the same as entry (c, r) of block (bj, bi); positive
   definite by a diagonal above the sum of each row's off-diagonal magnitudes */
static PetscScalar Entry(PetscInt64 seed, PetscInt round, PetscInt bi, PetscInt bj, PetscInt r, PetscInt c, PetscInt bs, PetscInt maxblocks)
{
  PetscInt64 s;

  if (bi > bj || (bi == bj && r > c)) return Entry(seed, round, bj, bi, c, r, bs, maxblocks);
  if (bi == bj && r == c) return (PetscScalar)(2.0 * bs * maxblocks + 1.0 + 0.5 * (PetscReal)((bi * bs + r) % 7));
  s = (seed * 1000003 + round * 7919 + ((bi * 131071 + bj) * bs + r) * bs + c) & 0x7fffffffffffffffLL;
  if (!s) s = 1;
  for (int k = 0; k < 3; k++) NextRand(&s);
  return (PetscScalar)RandReal(&s);
}

/* Block (bi, bj) is stored when |bi - bj| <= 1 or a symmetric hash of the pair says so */
static PetscBool Stored(PetscInt bi, PetscInt bj)
{
  PetscInt a = PetscMin(bi, bj), b = PetscMax(bi, bj);

  return (PetscBool)(b - a <= 1 || ((a * 7 + b * 13) % 5 == 0));
}

static PetscErrorCode Fill(Mat A, PetscInt64 seed, PetscInt round, PetscInt bs, PetscInt Mbs)
{
  PetscInt     rstart, rend;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(PetscMalloc1(bs * bs, &v));
  for (PetscInt bi = rstart / bs; bi < rend / bs; bi++) {
    for (PetscInt bj = 0; bj < Mbs; bj++) {
      if (!Stored(bi, bj)) continue;
      for (PetscInt r = 0; r < bs; r++)
        for (PetscInt c = 0; c < bs; c++) v[r * bs + c] = Entry(seed, round, bi, bj, r, c, bs, Mbs);
      PetscCall(MatSetValuesBlocked(A, 1, &bi, 1, &bj, v, INSERT_VALUES));
    }
  }
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateMat(MatType type, PetscInt bs, PetscInt nb, PetscInt Mbs, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, nb * bs, nb * bs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqBAIJSetPreallocation(*A, bs, Mbs, NULL));
  PetscCall(MatMPIBAIJSetPreallocation(*A, bs, Mbs, NULL, Mbs, NULL));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD_ETERNAL, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC that factors: the KSP's own, or under PCBJACOBI (more than one rank) the first subdomain's */
static PetscErrorCode FactorPC(KSP ksp, PetscMPIInt size, PC *pc)
{
  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, pc));
  if (size > 1) {
    KSP     *sub;
    PetscInt nsub;

    PetscCall(PCBJacobiGetSubKSP(*pc, &nsub, NULL, &sub));
    PetscCall(KSPGetPC(sub[0], pc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeKSP(Mat A, const char *pctype, PetscMPIInt size, const char *solver, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPGetPC(*ksp, &pc));
  if (size > 1) {
    PetscCall(PCSetType(pc, PCBJACOBI));
    PetscCall(KSPSetUp(*ksp));
    PetscCall(FactorPC(*ksp, size, &pc));
  }
  PetscCall(PCSetType(pc, pctype));
  if (solver[0]) PetscCall(PCFactorSetMatSolverType(pc, solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the factor matrix of the KSP's PC (the subdomain PC under PCBJACOBI) carries the saved BAIJ phases of
   petscblockgpu's wrapper ("PBG_BAIJKSPARSE_FactorOps", baijksparse_factor.c): the factorization refreshes the host copy */
static PetscErrorCode FactorWrapped(KSP ksp, PetscMPIInt size, PetscBool *wrapped, const char **ftype)
{
  PC          pc;
  Mat         F;
  PetscObject obj;

  PetscFunctionBegin;
  PetscCall(FactorPC(ksp, size, &pc));
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(PetscObjectQuery((PetscObject)F, "PBG_BAIJKSPARSE_FactorOps", &obj));
  *wrapped = (PetscBool)(obj != NULL);
  *ftype   = ((PetscObject)F)->type_name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    bs = 3, nb = 10, rounds = 2, Mbs, npc = 8, nfail = 0;
  PetscInt    seed = 1;
  char       *pcs[8], solver[64] = "", solver_ref[64] = "";
  PetscMPIInt size, rank;
  Mat         Y, Yref, Yd;
  Vec         b, x, xref, r;
  KSP         ksp[8], kspref[8];
  PetscBool   host_vecs = PETSC_FALSE, devnewer_all = PETSC_TRUE, wrapped_all = PETSC_TRUE, refwrapped_any = PETSC_FALSE, flg;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_baijksparse_factor options", NULL);
  PetscCall(PetscOptionsInt("-bs", "block size", NULL, bs, &bs, NULL));
  PetscCall(PetscOptionsInt("-nb", "block rows per rank", NULL, nb, &nb, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the values", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-rounds", "rounds of new values", NULL, rounds, &rounds, NULL));
  PetscCall(PetscOptionsStringArray("-pcs", "factorization PCs", NULL, pcs, &npc, &flg));
  if (!flg) {
    const char *def[] = {PCLU, PCILU, PCCHOLESKY, PCICC};

    npc = 4;
    for (PetscInt i = 0; i < npc; i++) PetscCall(PetscStrallocpy(def[i], &pcs[i]));
  }
  PetscCall(PetscOptionsBool("-host_vecs", "host vectors (VECSTANDARD) whatever MatCreateVecs() gives", NULL, host_vecs, &host_vecs, NULL));
  PetscCall(PetscOptionsString("-solver_type", "-pc_factor_mat_solver_type of every PC", NULL, solver, solver, sizeof(solver), NULL));
  PetscCall(PetscStrncpy(solver_ref, solver, sizeof(solver_ref)));
  PetscCall(PetscOptionsString("-solver_type_ref", "-pc_factor_mat_solver_type of Yref's PCs", NULL, solver_ref, solver_ref, sizeof(solver_ref), NULL));
  PetscOptionsEnd();
  PetscCheck(bs >= 1 && nb >= 2 && rounds >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bs >= 1, -nb >= 2, -rounds >= 1");
  Mbs = nb * size;

  PetscCall(CreateMat(MATBAIJKSPARSE, bs, nb, Mbs, &Y));
  PetscCall(CreateMat(MATBAIJ, bs, nb, Mbs, &Yref));
  PetscCall(Fill(Y, seed, 0, bs, Mbs));
  PetscCall(Fill(Yref, seed, 0, bs, Mbs));
  PetscCall(MatCreateVecs(Y, &x, &b));
  if (host_vecs) { /* host vectors with a matrix whose factor may solve on the device: made afresh, not retyped */
    PetscInt n;

    PetscCall(VecGetLocalSize(x, &n));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
    PetscCall(VecSetSizes(x, n, PETSC_DECIDE));
    PetscCall(VecSetBlockSize(x, bs));
    PetscCall(VecSetType(x, VECSTANDARD));
    PetscCall(VecDuplicate(x, &b));
  }
  PetscCall(VecDuplicate(x, &xref));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSetRandom(b, NULL)); /* PETSc's default generator: the same b for Y and Yref */
  for (PetscInt p = 0; p < npc; p++) {
    PetscCall(MakeKSP(Y, pcs[p], size, solver, &ksp[p]));
    PetscCall(MakeKSP(Yref, pcs[p], size, solver_ref, &kspref[p]));
  }
  if (size == 1) Yd = Y;
  else PetscCall(MatGetDiagonalBlock(Y, &Yd));

  for (PetscInt round = 1; round <= rounds; round++) {
    PetscScalar alpha = 1.5 + 0.25 * round, beta = 0.5 * round;
    PetscBool   devnewer;

    PetscCall(Fill(Y, seed, round, bs, Mbs));
    PetscCall(Fill(Yref, seed, round, bs, Mbs));
    PetscCall(MatMult(Y, b, r)); /* with CUDA vectors: the values go to the device */
    PetscCall(MatScale(Y, alpha));
    PetscCall(MatShift(Y, beta));
    PetscCall(MatScale(Yref, alpha));
    PetscCall(MatShift(Yref, beta));
    devnewer = (PetscBool)(Yd->offloadmask == PETSC_OFFLOAD_GPU);
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &devnewer, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
    if (!devnewer) devnewer_all = PETSC_FALSE;
    for (PetscInt p = 0; p < npc; p++) {
      PetscReal dx, nref, res = -1, nb2;
      PetscBool ok;

      PetscCall(VecSet(x, NAN));
      PetscCall(KSPSolve(ksp[p], b, x));
      PetscCall(KSPSolve(kspref[p], b, xref));
      PetscCall(VecNorm(xref, NORM_2, &nref));
      PetscCall(VecAXPY(xref, -1.0, x));
      PetscCall(VecNorm(xref, NORM_2, &dx));
      dx /= nref;
      ok = (PetscBool)(dx <= 1e-10);
      if (size == 1 && (!strcmp(pcs[p], PCLU) || !strcmp(pcs[p], PCCHOLESKY))) {
        PetscCall(MatMult(Y, x, r));
        PetscCall(VecAYPX(r, -1.0, b));
        PetscCall(VecNorm(r, NORM_2, &res));
        PetscCall(VecNorm(b, NORM_2, &nb2));
        res /= nb2;
        ok = (PetscBool)(ok && res <= 1e-10);
        if (!strcmp(pcs[p], PCLU)) { /* MatSolveTranspose() of the same factor (Y is symmetric: the same x) */
          PC        pc;
          Mat       F;
          PetscReal rest, nbt;

          PetscCall(FactorPC(ksp[p], size, &pc));
          PetscCall(PCFactorGetMatrix(pc, &F));
          PetscCall(VecSet(xref, NAN));
          PetscCall(MatSolveTranspose(F, b, xref));
          PetscCall(MatMultTranspose(Y, xref, r));
          PetscCall(VecAYPX(r, -1.0, b));
          PetscCall(VecNorm(r, NORM_2, &rest));
          PetscCall(VecNorm(b, NORM_2, &nbt));
          rest /= nbt;
          if (!(rest <= 1e-10)) {
            ok = PETSC_FALSE;
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "round %" PetscInt_FMT " lu MatSolveTranspose: |b - Y^T x|/|b| %.2e\n", round, (double)rest));
          }
        }
      }
      {
        PetscBool   w, wref;
        const char *ft, *ftref;

        PetscCall(FactorWrapped(ksp[p], size, &w, &ft));
        PetscCall(FactorWrapped(kspref[p], size, &wref, &ftref));
        if (!w) wrapped_all = PETSC_FALSE;
        if (wref) refwrapped_any = PETSC_TRUE;
        if (round == 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: factor of Y %s, of Yref %s\n", pcs[p], ft, ftref));
      }
      if (!ok) nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "round %" PetscInt_FMT " %-8s |x - xref|/|xref| %.2e", round, pcs[p], (double)dx));
      if (res >= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  |b - Y x|/|b| %.2e", (double)res));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s\n", ok ? "ok" : "FAILED"));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "values newer on the device before each factorization: %s\n", devnewer_all ? "yes" : "no"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "factors of Y refresh the host copy: %s; factors of Yref (baij) untouched: %s\n", wrapped_all ? "yes" : "no", refwrapped_any ? "no" : "yes"));
  if (!wrapped_all || refwrapped_any) nfail++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Y is still %s\n", ((PetscObject)Y)->type_name));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %" PetscInt_FMT " check(s)\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));

  for (PetscInt p = 0; p < npc; p++) {
    PetscCall(KSPDestroy(&ksp[p]));
    PetscCall(KSPDestroy(&kspref[p]));
    PetscCall(PetscFree(pcs[p]));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&Y));
  PetscCall(MatDestroy(&Yref));
  PetscCall(PetscFinalize());
  return 0;
}
