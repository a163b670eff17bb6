static char help[] = "Tests PCVBJACOBI against independent references on random block matrices.\n"
                     "  -mode uniform|mixed|super : blocks of one size (-bs), of random sizes 1..-maxgen set with MatSetVariableBlockSizes,\n"
                     "                              or runs of rows with identical patterns (lengths 1..-maxgen) that supervariable detection must find\n"
                     "  -nblocks_local <n>        : blocks (runs) per rank\n"
                     "  -bs <k>, -maxgen <k>      : block size (uniform), largest generated size (mixed, super)\n"
                     "  -maxbs <k>                : PCVBJacobiSetMaxBlockSize (supervariable runs are cut at this size)\n"
                     "  -auto_bound               : no PCVBJacobiSetMaxBlockSize(): supervariables are merged up to the bound the PC picks\n"
                     "                              from the diagonal part (its manual page's rule, computed here on its own)\n"
                     "  -pivot                    : rows of each block permuted, so Gauss-Jordan must pivot\n"
                     "  -offdiag <k>              : off-block columns per run (may be on other ranks)\n"
                     "  -empty_rows               : some runs have no entries at all (only with the identity policy)\n"
                     "  -compare_petsc            : also compare PCApply with PETSc's vpbjacobi (and pbjacobi for uniform blocks)\n"
                     "  -singular_block <b>, -nan_block <b> : spoil local block b on the last rank; the test then expects the setup to fail\n"
                     "  -overflow_block <b>       : scale local block b of the last rank by 1e-310 (finite, its inverse overflows): the same\n"
                     "                              (or, under -pc_vbjacobi_singular identity, the identity as that block's inverse)\n"
                     "  -compare_host             : also set up a second PCVBJACOBI with -host_pc_vbjacobi_use_gpu 0 and require the same\n"
                     "                              blocks, inverses and products, before and after the values change (MatScale)\n"
                     "  -err_continue             : with -ksp_error_if_not_converged, the setup's error is caught (tests/test_refusal.h) and\n"
                     "                              printed, then the program frees what it made and exits 0\n"
                     "  -seed <s>\n";

#include <petscblockgpu.h>
#include <petscksp.h>
#include <petscblaslapack.h>
#include <math.h>
#include "test_refusal.h"

typedef enum {
  MODE_UNIFORM,
  MODE_MIXED,
  MODE_SUPER
} Mode;
static const char *const Modes[] = {"uniform", "mixed", "super", "Mode", "MODE_", NULL};

static PetscReal RandReal(PetscRandom r)
{
  PetscReal v;
  PetscCallAbort(PETSC_COMM_SELF, PetscRandomGetValueReal(r, &v));
  return v;
}
static PetscInt RandInt(PetscRandom r, PetscInt lo, PetscInt hi) /* in [lo, hi] */
{
  PetscInt v = lo + (PetscInt)(RandReal(r) * (hi - lo + 1));
  return PetscMin(v, hi);
}

/* Reference inverse by LAPACK LU (column-major, in place) */
static PetscErrorCode InvertLAPACK(PetscInt k, PetscScalar *a)
{
  PetscBLASInt n, info, lwork, *ipiv;
  PetscScalar *work;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(k, &n));
  lwork = 64 * n;
  PetscCall(PetscMalloc2(n, &ipiv, lwork, &work));
  PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&n, &n, a, &n, ipiv, &info));
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference getrf failed, info %d", (int)info);
  PetscCallBLAS("LAPACKgetri", LAPACKgetri_(&n, a, &n, ipiv, work, &lwork, &info));
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference getri failed, info %d", (int)info);
  PetscCall(PetscFree2(ipiv, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Output buffers are poisoned before each product so that an entry left unwritten shows. */
static PetscErrorCode Poison(Vec y)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(VecGetArrayWrite(y, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = 1.0e300;
  PetscCall(VecRestoreArrayWrite(y, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckClose(Vec y, Vec yref, PetscReal tol, const char *what)
{
  Vec       d;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(y, &d));
  PetscCall(VecWAXPY(d, -1.0, yref, y));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nr));
  PetscCall(VecDestroy(&d));
  PetscCheck(nd <= tol * PetscMax(nr, 1e-300), PetscObjectComm((PetscObject)y), PETSC_ERR_PLIB, "%s differs from the reference: |diff|_inf %g, |ref|_inf %g", what, (double)nd, (double)nr);
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)y), "%s matches (rel diff %.2e)\n", what, (double)(nd / PetscMax(nr, 1e-300))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mode                     mode = MODE_UNIFORM;
  PetscInt                 nbl = 50, bs = 3, maxgen = 8, maxbs = PC_VBJACOBI_MAX_BLOCK_SIZE, noff = 3, singular_block = -1, nan_block = -1, overflow_block = -1;
  PetscBool                pivot = PETSC_FALSE, empty_rows = PETSC_FALSE, compare = PETSC_FALSE, compare_host = PETSC_FALSE, err_continue = PETSC_FALSE, auto_bound = PETSC_FALSE;
  PetscInt                 mergebs;
  PetscInt                 seed = 7, *runs, nruns, n = 0, rstart, N, *exp_starts, nexp = 0;
  PetscBool               *exp_empty;
  PetscMPIInt              rank, size;
  PetscRandom              rnd;
  Mat                      A;
  PC                       pc;
  KSP                      ksp;
  Vec                      x = NULL, y = NULL, yref = NULL;
  PetscBool               *empty;
  PCVBJacobiSingularPolicy policy;
  PCVBJacobiBlocking       blocking = PC_VBJACOBI_BLOCKING_AUTO;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_vbjacobi options", NULL);
  PetscCall(PetscOptionsEnum("-mode", "block structure", NULL, Modes, (PetscEnum)mode, (PetscEnum *)&mode, NULL));
  PetscCall(PetscOptionsInt("-nblocks_local", "blocks per rank", NULL, nbl, &nbl, NULL));
  PetscCall(PetscOptionsInt("-bs", "uniform block size", NULL, bs, &bs, NULL));
  PetscCall(PetscOptionsInt("-maxgen", "largest generated block/run", NULL, maxgen, &maxgen, NULL));
  PetscCall(PetscOptionsInt("-maxbs", "PCVBJacobiSetMaxBlockSize", NULL, maxbs, &maxbs, NULL));
  PetscCall(PetscOptionsBool("-auto_bound", "leave the merge bound to the PC", NULL, auto_bound, &auto_bound, NULL));
  PetscCall(PetscOptionsInt("-offdiag", "off-block columns per run", NULL, noff, &noff, NULL));
  PetscCall(PetscOptionsBool("-pivot", "blocks need pivoting", NULL, pivot, &pivot, NULL));
  PetscCall(PetscOptionsBool("-empty_rows", "some runs are empty", NULL, empty_rows, &empty_rows, NULL));
  PetscCall(PetscOptionsBool("-compare_petsc", "compare with vpbjacobi/pbjacobi", NULL, compare, &compare, NULL));
  PetscCall(PetscOptionsInt("-singular_block", "make this local block of the last rank singular", NULL, singular_block, &singular_block, NULL));
  PetscCall(PetscOptionsInt("-nan_block", "put NaN in this local block of the last rank", NULL, nan_block, &nan_block, NULL));
  PetscCall(PetscOptionsInt("-overflow_block", "scale this local block of the last rank by 1e-310 (its inverse overflows)", NULL, overflow_block, &overflow_block, NULL));
  PetscCall(PetscOptionsBool("-compare_host", "compare with the host path of PCVBJACOBI", NULL, compare_host, &compare_host, NULL));
  PetscCall(PetscOptionsInt("-seed", "random seed", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsBool("-err_continue", "catch the setup's error and end cleanly", NULL, err_continue, &err_continue, NULL));
  PetscOptionsEnd();

  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, 0.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed * 1000 + rank)));
  PetscCall(PetscRandomSeed(rnd));

  /* runs of rows with identical patterns; the blocks the PC must find */
  nruns = nbl;
  PetscCall(PetscMalloc2(nruns, &runs, nruns, &empty));
  for (PetscInt r = 0; r < nruns; r++) {
    runs[r]  = mode == MODE_UNIFORM ? bs : RandInt(rnd, 1, maxgen);
    empty[r] = (PetscBool)(empty_rows && RandReal(rnd) < 0.15);
    n += runs[r];
  }
  /* the blocking the PC will use: -pc_vbjacobi_blocking, with auto resolved by its documented rule (variable sizes
     when set, else merged supervariables) */
  {
    PetscBool set;

    PetscCall(PetscOptionsGetEnum(NULL, NULL, "-pc_vbjacobi_blocking", PCVBJacobiBlockings, (PetscEnum *)&blocking, &set));
    if (!set || blocking == PC_VBJACOBI_BLOCKING_AUTO) blocking = mode == MODE_MIXED ? PC_VBJACOBI_BLOCKING_VARIABLE : PC_VBJACOBI_BLOCKING_SUPERVARIABLE;
  }
  /* expected blocks: the runs cut at maxbs (natural supervariables; matrix or variable blocks larger than maxbs are
     refused), where for supervariables adjacent empty runs form one run; supervariable blocking then merges adjacent
     chunks while the merged block has at most maxbs rows (an empty chunk makes its merged block empty) */
  PetscCall(PetscMalloc2(n + 1, &exp_starts, n + 1, &exp_empty));
  {
    PetscInt  s  = 0;
    PetscBool sv = (PetscBool)(blocking == PC_VBJACOBI_BLOCKING_SUPERVARIABLE || blocking == PC_VBJACOBI_BLOCKING_NATURAL);
    for (PetscInt r = 0; r < nruns;) {
      PetscInt len = runs[r], r1 = r + 1;
      if (sv)
        while (empty[r] && r1 < nruns && empty[r1]) len += runs[r1++];
      for (PetscInt c = 0; c < len; c += maxbs) {
        exp_empty[nexp]    = empty[r];
        exp_starts[nexp++] = s + c;
      }
      s += len;
      r = r1;
    }
    exp_starts[nexp] = n;
  }

  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  if (mode == MODE_UNIFORM) PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  if (mode == MODE_MIXED) PetscCall(MatSetVariableBlockSizes(A, nruns, runs));

  /* values: a dense, diagonally dominant (after an optional row permutation) block per run, plus off-block columns
     shared by the rows of a run */
  {
    PetscInt     s = 0, *cols, *perm;
    PetscScalar *vals;

    PetscCall(PetscMalloc3(maxgen + bs + noff, &cols, (maxgen + bs + noff), &vals, maxgen + bs, &perm));
    for (PetscInt r = 0; r < nruns; r++) {
      PetscInt k = runs[r], nc = 0;

      if (!empty[r]) {
        for (PetscInt i = 0; i < k; i++) perm[i] = i;
        if (pivot) /* a random permutation: the dominant entry of row i sits in column perm[i] */
          for (PetscInt i = k - 1; i > 0; i--) {
            PetscInt j = RandInt(rnd, 0, i), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
          }
        for (PetscInt c = 0; c < k; c++) cols[nc++] = rstart + s + c;
        for (PetscInt c = 0; c < noff; c++) { /* off-run columns anywhere in the matrix */
          PetscInt col;
          do col = RandInt(rnd, 0, N - 1);
          while (col >= rstart + s && col < rstart + s + k);
          cols[nc++] = col;
        }
        for (PetscInt i = 0; i < k; i++) {
          PetscInt row = rstart + s + i;
          for (PetscInt c = 0; c < nc; c++) vals[c] = 2.0 * RandReal(rnd) - 1.0;
          vals[perm[i]] += (PetscScalar)(k + noff + 1) * (RandReal(rnd) < 0.5 ? -1.0 : 1.0);
          PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, ADD_VALUES));
        }
      }
      s += k;
    }
    PetscCall(PetscFree3(cols, vals, perm));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  /* the merge bound: maxbs, or with -auto_bound the documented rule on this rank's diagonal part (maxbs 32): the largest
     bound below 2^18 local rows, else the largest power of two within half the mean row length, at least 8 and bs */
  mergebs = maxbs;
  if (auto_bound) {
    Mat     Ad;
    MatInfo info;

    PetscCheck(maxbs == PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_USER, "-auto_bound goes without -maxbs");
    PetscCall(MatGetDiagonalBlock(A, &Ad));
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
    if (n >= 262144) {
      const double half = 0.5 * info.nz_used / (double)n;
      PetscInt     p    = 32;

      while (p > 1 && p > half) p /= 2;
      mergebs = PetscMin(PetscMax(PetscMax(p, 8), mode == MODE_UNIFORM ? bs : 1), maxbs);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] auto bound: %" PetscInt_FMT " local rows, %.2f nonzeros a row: merge up to %" PetscInt_FMT "\n", rank, n, info.nz_used / (double)PetscMax(n, 1), mergebs));
  }
  if (blocking == PC_VBJACOBI_BLOCKING_SUPERVARIABLE) { /* greedy merge of the natural chunks, written as a running size */
    PetscInt nm = 0, cur = 0;
    for (PetscInt b = 0; b < nexp; b++) {
      PetscInt k = exp_starts[b + 1] - exp_starts[b];
      if (b == 0 || cur + k > mergebs) {
        exp_starts[nm] = exp_starts[b];
        exp_empty[nm]  = exp_empty[b];
        nm++;
        cur = 0;
      } else exp_empty[nm - 1] = (PetscBool)(exp_empty[nm - 1] || exp_empty[b]);
      cur += k;
    }
    exp_starts[nm] = n;
    nexp           = nm;
  }

  /* an overflowing inverse: the block's entries times 1e-310 (finite, and its pivots pass the relative rule); then
     checked as a singular block: the setup fails, or the identity policy replaces it */
  if (overflow_block >= 0) {
    PetscCheck(overflow_block < nexp && singular_block < 0 && nan_block < 0, PETSC_COMM_SELF, PETSC_ERR_USER, "-overflow_block: no local block %" PetscInt_FMT " (%" PetscInt_FMT " expected), or combined with -singular_block/-nan_block", overflow_block, nexp);
    if (rank == size - 1) {
      PetscInt    s = exp_starts[overflow_block], k = exp_starts[overflow_block + 1] - s, idx[PC_VBJACOBI_MAX_BLOCK_SIZE];
      PetscScalar v[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE];

      for (PetscInt i = 0; i < k; i++) idx[i] = rstart + s + i;
      PetscCall(MatGetValues(A, k, idx, k, idx, v)); /* all read before the first set: a set unassembles the matrix */
      for (PetscInt e = 0; e < k * k; e++) v[e] *= 1e-310;
      PetscCall(MatSetValues(A, k, idx, k, idx, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    singular_block = overflow_block;
  }
  /* spoil one block of the last rank: zero its first column (singular) or put a NaN in it */
  if ((singular_block >= 0 && overflow_block < 0) || nan_block >= 0) {
    PetscInt b = singular_block >= 0 ? singular_block : nan_block;

    PetscCheck(b < nexp, PETSC_COMM_SELF, PETSC_ERR_USER, "-singular_block/-nan_block: there is no local block %" PetscInt_FMT " (%" PetscInt_FMT " blocks expected)", b, nexp);
    if (rank == size - 1) {
      PetscInt s = exp_starts[b], k = exp_starts[b + 1] - s, col = rstart + s;
      for (PetscInt i = 0; i < k; i++) {
        PetscInt    row = rstart + s + i;
        PetscScalar v   = 0.0;
        if (nan_block >= 0) v = (i == 0) ? (PetscScalar)NAN : 1.0;
        if (nan_block >= 0 && i > 0) continue;
        PetscCall(MatSetValues(A, 1, &row, 1, &col, &v, INSERT_VALUES));
      }
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  if (!auto_bound) PetscCall(PCVBJacobiSetMaxBlockSize(pc, maxbs));
  PetscCall(KSPSetFromOptions(ksp));
  if (err_continue) { /* the setup must fail (-ksp_error_if_not_converged with a spoiled block): caught, then the end */
    PetscErrorCode ierr;

    PBG_TEST_REFUSE(ierr, KSPSetUp(ksp));
    PetscCall(PBGTestRefused(PETSC_COMM_WORLD, ierr, "KSPSetUp()"));
    goto done;
  }
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCVBJacobiGetSingularPolicy(pc, &policy));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yref));

  if (singular_block >= 0 || nan_block >= 0) {
    KSPConvergedReason reason;
    PCFailedReason     pcreason;
    PetscBool          expect_fail = (PetscBool)(nan_block >= 0 || policy == PC_VBJACOBI_SINGULAR_ERROR);

    PetscCall(VecSetRandom(x, NULL));
    PetscCall(KSPSolve(ksp, x, y));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PCGetFailedReason(pc, &pcreason));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP reason %s, PC failed reason %s\n", KSPConvergedReasons[reason], PCFailedReasons[pcreason]));
    if (expect_fail) {
      /* every rank must see the failure */
      PetscCheck(reason == KSP_DIVERGED_PC_FAILED && pcreason == PC_SETUP_ERROR, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] expected KSP_DIVERGED_PC_FAILED / PC_SETUP_ERROR, got %s / %s", rank, KSPConvergedReasons[reason], PCFailedReasons[pcreason]);
    } else {
      const PetscScalar *inv;
      const PetscInt    *st;
      PetscInt           nb, off = 0;

      /* the spoiled matrix may itself be singular, so only the preconditioner's part is checked */
      PetscCheck(reason != KSP_DIVERGED_PC_FAILED && pcreason == PC_NOERROR, PETSC_COMM_SELF, PETSC_ERR_PLIB, "identity policy: the PC must not fail, got %s", KSPConvergedReasons[reason]);
      PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
      PetscCall(PCVBJacobiGetInverses(pc, &inv));
      if (rank == size - 1) {
        PetscInt k = st[singular_block + 1] - st[singular_block];
        for (PetscInt b = 0; b < singular_block; b++) off += (st[b + 1] - st[b]) * (st[b + 1] - st[b]);
        for (PetscInt i = 0; i < k; i++)
          for (PetscInt j = 0; j < k; j++) PetscCheck(inv[off + i + j * k] == (i == j ? 1.0 : 0.0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "singular block's inverse is not the identity");
      }
    }
    PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
  } else {
    const PetscScalar *inv;
    const PetscInt    *st;
    PetscInt           nb, off = 0, mb = 0;
    PetscReal          maxerr = 0.0;
    PetscScalar       *ref_all;

    /* 1. the blocks */
    PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
    PetscCheck(nb == nexp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] found %" PetscInt_FMT " blocks, expected %" PetscInt_FMT, rank, nb, nexp);
    for (PetscInt b = 0; b <= nb; b++) PetscCheck(st[b] == exp_starts[b], PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] block %" PetscInt_FMT " starts at %" PetscInt_FMT ", expected %" PetscInt_FMT, rank, b, st[b], exp_starts[b]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "blocks match the expected ones\n"));

    /* 2. the inverses against LAPACK on blocks read with MatGetValues */
    PetscCall(PCVBJacobiGetInverses(pc, &inv));
    for (PetscInt b = 0; b < nb; b++) mb += (st[b + 1] - st[b]) * (st[b + 1] - st[b]);
    PetscCall(PetscMalloc1(mb, &ref_all));
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt    s = st[b], k                                                            = st[b + 1] - s, idx[PC_VBJACOBI_MAX_BLOCK_SIZE];
      PetscScalar rowmajor[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE], *ref = ref_all + off;
      PetscReal   rmax = 0.0, emax = 0.0;

      for (PetscInt i = 0; i < k; i++) idx[i] = rstart + s + i;
      if (exp_empty[b]) { /* an empty block is singular: the identity policy must have put the identity there */
        PetscCheck(policy == PC_VBJACOBI_SINGULAR_IDENTITY, PETSC_COMM_SELF, PETSC_ERR_USER, "-empty_rows needs -pc_vbjacobi_singular identity");
        for (PetscInt i = 0; i < k; i++)
          for (PetscInt j = 0; j < k; j++) ref[i + j * k] = (i == j) ? 1.0 : 0.0;
      } else {
        PetscCall(MatGetValues(A, k, idx, k, idx, rowmajor));
        for (PetscInt i = 0; i < k; i++)
          for (PetscInt j = 0; j < k; j++) ref[i + j * k] = rowmajor[i * k + j];
        PetscCall(InvertLAPACK(k, ref));
      }
      for (PetscInt i = 0; i < k * k; i++) {
        rmax = PetscMax(rmax, PetscAbsScalar(ref[i]));
        emax = PetscMax(emax, PetscAbsScalar(ref[i] - inv[off + i]));
      }
      maxerr = PetscMax(maxerr, emax / rmax);
      off += k * k;
    }
    PetscCheck(maxerr < 1e-10, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] inverse differs from LAPACK: max relative error %g", rank, (double)maxerr);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "inverses match LAPACK (rank 0 max rel err %.2e)\n", (double)maxerr));

    /* 3. PCApply and PCApplyTranspose against the reference inverses */
    for (PetscInt t = 0; t < 2; t++) {
      const PetscScalar *xa;
      PetscScalar       *ya;

      PetscCall(VecSetRandom(x, NULL));
      PetscCall(Poison(y));
      if (!t) PetscCall(PCApply(pc, x, y));
      else PetscCall(PCApplyTranspose(pc, x, y));
      PetscCall(VecGetArrayRead(x, &xa));
      PetscCall(VecGetArrayWrite(yref, &ya));
      off = 0;
      for (PetscInt b = 0; b < nb; b++) {
        PetscInt s = st[b], k = st[b + 1] - s;
        for (PetscInt i = 0; i < k; i++) {
          PetscScalar sum = 0.0;
          for (PetscInt j = 0; j < k; j++) sum += (t ? ref_all[off + j + i * k] : ref_all[off + i + j * k]) * xa[s + j];
          ya[s + i] = sum;
        }
        off += k * k;
      }
      PetscCall(VecRestoreArrayRead(x, &xa));
      PetscCall(VecRestoreArrayWrite(yref, &ya));
      PetscCall(CheckClose(y, yref, 1e-10, t ? "PCApplyTranspose" : "PCApply"));
    }
    PetscCall(PetscFree(ref_all));

    /* 4. PETSc's own block Jacobi preconditioners on the same blocks */
    if (compare) {
      Mat       B;
      PC        pc2;
      PetscInt *sizes;
      PCType    types[2] = {PCVPBJACOBI, PCPBJACOBI};

      PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B)); /* PETSc inverts variable blocks of AIJ only */
      PetscCall(PetscMalloc1(nb, &sizes));
      for (PetscInt b = 0; b < nb; b++) sizes[b] = st[b + 1] - st[b];
      PetscCall(MatSetVariableBlockSizes(B, nb, sizes));
      PetscCall(PetscFree(sizes));
      /* pbjacobi takes the matrix block size: comparable only when the blocks are those */
      for (PetscInt t = 0; t < (mode == MODE_UNIFORM && nb * bs == st[nb] ? 2 : 1); t++) {
        char what[64];
        PetscCall(PCCreate(PETSC_COMM_WORLD, &pc2));
        PetscCall(PCSetType(pc2, types[t]));
        PetscCall(PCSetOperators(pc2, B, B));
        PetscCall(PCSetUp(pc2));
        PetscCall(VecSetRandom(x, NULL));
        PetscCall(Poison(y));
        PetscCall(PCApply(pc, x, y));
        PetscCall(PCApply(pc2, x, yref));
        PetscCall(PetscSNPrintf(what, sizeof(what), "PCApply against PETSc's %s", types[t]));
        PetscCall(CheckClose(y, yref, 1e-10, what));
        PetscCall(PCDestroy(&pc2));
      }
      PetscCall(MatDestroy(&B));
    }

    /* 5. the same preconditioner forced onto the host path: same blocks, inverses and products, also after the
          values change under the same pattern (the setup then keeps its blocks) */
    if (compare_host) {
      for (PetscInt pass = 0; pass < 2; pass++) {
        PC                 pch;
        const PetscInt    *sth, *std;
        const PetscScalar *invh, *invd;
        PetscInt           nbh, nbd, len = 0;
        PetscReal          emax = 0.0, rmax = 0.0;

        if (pass) { /* new values, same pattern */
          PetscCall(MatScale(A, -0.5));
          PetscCall(MatShift(A, 0.25));
          PetscCall(KSPSetOperators(ksp, A, A));
          PetscCall(KSPSetUp(ksp));
        }
        PetscCall(PCCreate(PETSC_COMM_WORLD, &pch));
        PetscCall(PCSetOptionsPrefix(pch, "host_"));
        PetscCall(PCSetType(pch, PCVBJACOBI));
        if (!auto_bound) PetscCall(PCVBJacobiSetMaxBlockSize(pch, maxbs));
        PetscCall(PCVBJacobiSetSingularPolicy(pch, policy));
        PetscCall(PCVBJacobiGetBlocking(pc, &blocking));
        PetscCall(PCVBJacobiSetBlocking(pch, blocking));
        PetscCall(PetscOptionsSetValue(NULL, "-host_pc_vbjacobi_use_gpu", "0"));
        PetscCall(PCSetFromOptions(pch));
        PetscCall(PCSetOperators(pch, A, A));
        PetscCall(PCSetUp(pch));
        PetscCall(PCVBJacobiGetBlocks(pc, &nbd, &std));
        PetscCall(PCVBJacobiGetBlocks(pch, &nbh, &sth));
        PetscCheck(nbd == nbh, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %" PetscInt_FMT " blocks, host path %" PetscInt_FMT, rank, nbd, nbh);
        for (PetscInt b = 0; b <= nbh; b++) PetscCheck(std[b] == sth[b], PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] block %" PetscInt_FMT " starts at %" PetscInt_FMT ", host path %" PetscInt_FMT, rank, b, std[b], sth[b]);
        PetscCall(PCVBJacobiGetInverses(pc, &invd));
        PetscCall(PCVBJacobiGetInverses(pch, &invh));
        for (PetscInt b = 0; b < nbh; b++) len += (sth[b + 1] - sth[b]) * (sth[b + 1] - sth[b]);
        for (PetscInt i = 0; i < len; i++) {
          rmax = PetscMax(rmax, PetscAbsScalar(invh[i]));
          emax = PetscMax(emax, PetscAbsScalar(invh[i] - invd[i]));
        }
        PetscCheck(emax <= 1e-12 * PetscMax(rmax, 1e-300), PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] inverses differ from the host path: max abs diff %g, max entry %g", rank, (double)emax, (double)rmax);
        for (PetscInt t = 0; t < 2; t++) {
          PetscCall(VecSetRandom(x, NULL));
          PetscCall(Poison(y));
          PetscCall(Poison(yref));
          if (!t) {
            PetscCall(PCApply(pc, x, y));
            PetscCall(PCApply(pch, x, yref));
          } else {
            PetscCall(PCApplyTranspose(pc, x, y));
            PetscCall(PCApplyTranspose(pch, x, yref));
          }
          PetscCall(CheckClose(y, yref, 1e-12, t ? "PCApplyTranspose against the host path" : "PCApply against the host path"));
        }
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pass %" PetscInt_FMT ": blocks and inverses match the host path\n", pass));
        PetscCall(PCDestroy(&pch));
      }
    }

    /* 6. a solve (a matrix with empty rows is singular) */
    if (!empty_rows) {
      KSPConvergedReason reason;
      PetscInt           its;
      PetscCall(VecSetRandom(x, NULL));
      PetscCall(KSPSolve(ksp, x, y));
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "solve with vbjacobi did not converge: %s", KSPConvergedReasons[reason]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve converged in %" PetscInt_FMT " iterations\n", its));
    }
  }
done:
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree2(runs, empty));
  PetscCall(PetscFree2(exp_starts, exp_empty));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
