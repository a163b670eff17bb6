static char help[] = "Tests the reduced- and adaptive-precision storage of the PCVBJACOBI inverses (-pc_vbjacobi_precision).\n"
                     "A block-diagonal matrix (blocks given with MatSetVariableBlockSizes, an off-block coupling per row with -couple)\n"
                     "  -mode mixed : random diagonally dominant blocks of sizes 1..-maxgen\n"
                     "  -mode cond  : blocks Q diag(s) Q^T (Q a Householder reflector) of known 2-norm condition, in turn 1.5, 2e4\n"
                     "                and 1e10 (1-norm condition within a factor k of it: far from the adaptive thresholds at\n"
                     "                tol 0.1), each scaled by 10^(-6..6) (inverse entries beyond half's range)\n"
                     "  -mode diag  : 1 x 1 blocks whose inverses, once scaled, are exact half ties or random: the stored bits must\n"
                     "                equal those of the host path (-compare_host), whose conversion is the portable one\n"
                     "Checks: the type of each block (PCVBJacobiGetBlockPrecisions) against the rule applied to the test's own\n"
                     "condition estimate (LAPACK inverse); PCApply and PCApplyTranspose (outputs poisoned) against the PC's stored\n"
                     "inverses in FP64 (tight) and against the LAPACK inverses (to the storage precision); with -compare_host the same\n"
                     "PC on the host path: the same type for every block (the mismatch count is printed), stored values and products\n"
                     "within the storage precision (bitwise under -mode diag); a KSP solve (iterations printed); with -check_error the\n"
                     "solve is of A x = A x_true and must converge to x_true (relative error below 1e-4; blocks of condition 1e10 cost ~1e-6 in FP64): a stored inverse that its type\n"
                     "cannot hold makes a left-preconditioned GMRES report convergence to a wrong answer.\n"
                     "Options: -nblocks_local <n>, -maxgen <k>, -seed <s>, -compare_host, -couple, -solve <bool>, -check_error, -expect_types <d,s,h>\n"
                     "(the expected global counts of blocks in double, single, half; -1 skips one).\n";

#include <petscblockgpu.h>
#include <../src/pc/vbjacobi/vbjacobiprec.h>
#include <petscksp.h>
#include <petscblaslapack.h>

typedef enum {
  MODE_MIXED,
  MODE_COND,
  MODE_DIAG
} Mode;
static const char *const Modes[] = {"mixed", "cond", "diag", "Mode", "MODE_", NULL};

static PetscReal Rand(PetscRandom r)
{
  PetscReal v;
  PetscCallAbort(PETSC_COMM_SELF, PetscRandomGetValueReal(r, &v));
  return v;
}

static PetscErrorCode InvertLAPACK(PetscInt k, PetscScalar *a)
{
  PetscBLASInt n, info, lwork, ipiv[PC_VBJACOBI_MAX_BLOCK_SIZE];
  PetscScalar  work[64 * PC_VBJACOBI_MAX_BLOCK_SIZE];

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(k, &n));
  lwork = 64 * n;
  PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&n, &n, a, &n, ipiv, &info));
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference getrf failed, info %d", (int)info);
  PetscCallBLAS("LAPACKgetri", LAPACKgetri_(&n, a, &n, ipiv, work, &lwork, &info));
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference getri failed, info %d", (int)info);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal Norm1(PetscInt k, const PetscScalar *a)
{
  PetscReal m = 0.0;
  for (PetscInt c = 0; c < k; c++) {
    PetscReal s = 0.0;
    for (PetscInt r = 0; r < k; r++) s += PetscAbsScalar(a[r + c * k]);
    m = PetscMax(m, s);
  }
  return m;
}

/* The value a block entry v has once stored in type t with the block's scale (frexp of its largest entry maxabs):
   the test's own rounding, (float) casts and the round-to-nearest-even of the private header (checked against the
   compiler's _Float16 by the emulator test) */
static PetscReal Rounded(int t, PetscReal v, PetscReal maxabs)
{
  int e = PCVBJacobiScaleExponent(t, maxabs);
  if (t == PBG_STORE_SINGLE) return ldexp((double)(float)ldexp(v, -e), e);
  if (t == PBG_STORE_HALF) return ldexp(PCVBJacobiHalfBitsToDouble(PCVBJacobiDoubleToHalfBits(ldexp(v, -e))), e);
  return v;
}

/* A half tie once scaled (m in [0.5, 1) exactly between two halfs) whose reciprocal a round-trips: 1/a == m 2^e */
static PetscReal TieReciprocal(PetscRandom r)
{
  for (;;) {
    const PetscReal m = (2048.0 + 2.0 * PetscFloorReal(Rand(r) * 1023.0) + 1.0) / 8192.0; /* 11 bits + a half ulp, in [0.25, 0.5) */
    const int       e = (int)PetscFloorReal(Rand(r) * 40.0) - 20;
    const PetscReal v = ldexp(2.0 * m, e), a = 1.0 / v;
    if (1.0 / a == v) return Rand(r) < 0.5 ? a : -a;
  }
}

static PetscErrorCode Poison(Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecSet(y, (PetscScalar)NAN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mode                 mode = MODE_MIXED;
  PetscInt             nbl = 200, maxgen = 32, seed = 3, n = 0, rstart, N, *sizes, *starts, nexp = 3, expect[3] = {-1, -1, -1};
  PetscBool            compare_host = PETSC_FALSE, couple = PETSC_FALSE, solve = PETSC_TRUE, check_error = PETSC_FALSE, flg;
  PetscMPIInt          rank;
  PetscRandom          rnd;
  Mat                  A;
  KSP                  ksp;
  PC                   pc;
  Vec                  x, y, yref;
  PetscScalar         *Ainv, *Ablk; /* the LAPACK inverses and the blocks, packed */
  PetscInt64          *off;
  PetscReal           *cond;
  PCVBJacobiPrecision  precision;
  PetscReal            tol;
  PetscInt             counts[3], gcounts[3];
  const unsigned char *prec;
  PetscInt64           bytes;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_vbjacobi_precision options", NULL);
  PetscCall(PetscOptionsEnum("-mode", "block kind", NULL, Modes, (PetscEnum)mode, (PetscEnum *)&mode, NULL));
  PetscCall(PetscOptionsInt("-nblocks_local", "blocks per rank", NULL, nbl, &nbl, NULL));
  PetscCall(PetscOptionsRangeInt("-maxgen", "largest block", NULL, maxgen, &maxgen, NULL, 1, PC_VBJACOBI_MAX_BLOCK_SIZE));
  PetscCall(PetscOptionsInt("-seed", "random seed", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsBool("-compare_host", "compare with the host path", NULL, compare_host, &compare_host, NULL));
  PetscCall(PetscOptionsBool("-couple", "an off-block entry per row", NULL, couple, &couple, NULL));
  PetscCall(PetscOptionsBool("-solve", "require a converged KSP solve", NULL, solve, &solve, NULL));
  PetscCall(PetscOptionsBool("-check_error", "solve A x = A x_true and require x_true (relative error below 1e-4)", NULL, check_error, &check_error, NULL));
  PetscCall(PetscOptionsIntArray("-expect_types", "expected blocks in double, single, half", NULL, expect, &nexp, &flg));
  PetscOptionsEnd();
  PetscCheck(!flg || nexp == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-expect_types takes 3 counts");

  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed + 1000 * rank)));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc3(nbl, &sizes, nbl + 1, &starts, nbl + 1, &off));
  starts[0] = 0;
  off[0]    = 0;
  for (PetscInt b = 0; b < nbl; b++) {
    sizes[b] = mode == MODE_DIAG ? 1 : 1 + (PetscInt)(Rand(rnd) * maxgen);
    sizes[b] = PetscMin(sizes[b], maxgen);
    if (mode == MODE_COND && b % 3 && sizes[b] == 1) sizes[b] = 2; /* a 1 x 1 block has condition 1 */
    starts[b + 1] = starts[b] + sizes[b];
    off[b + 1]    = off[b] + sizes[b] * sizes[b];
  }
  n = starts[nbl];
  PetscCall(PetscMalloc3(off[nbl], &Ablk, off[nbl], &Ainv, nbl, &cond));

  /* the blocks */
  for (PetscInt b = 0; b < nbl; b++) {
    const PetscInt k = sizes[b];
    PetscScalar   *a = Ablk + off[b];

    if (mode == MODE_DIAG) a[0] = b % 2 ? TieReciprocal(rnd) : (Rand(rnd) < 0.5 ? -1 : 1) * PetscPowReal(10.0, 16.0 * Rand(rnd) - 8.0);
    else if (mode == MODE_MIXED) {
      for (PetscInt e = 0; e < k * k; e++) a[e] = 2.0 * Rand(rnd) - 1.0;
      for (PetscInt i = 0; i < k; i++) a[i + i * k] += (Rand(rnd) < 0.5 ? -1 : 1) * (k + 1.0);
    } else {
      const PetscReal c2[3] = {1.5, 2e4, 1e10}, target = c2[b % 3], scale = PetscPowReal(10.0, (PetscReal)(PetscInt)(13 * Rand(rnd)) - 6.0);
      PetscReal       v[PC_VBJACOBI_MAX_BLOCK_SIZE], vv = 0.0, s[PC_VBJACOBI_MAX_BLOCK_SIZE];

      for (PetscInt i = 0; i < k; i++) {
        v[i] = 2.0 * Rand(rnd) - 1.0;
        vv += v[i] * v[i];
        s[i] = k > 1 ? PetscPowReal(target, -(PetscReal)i / (PetscReal)(k - 1)) : 1.0; /* 1 .. 1/target */
      }
      for (PetscInt i = 0; i < k; i++) /* Q diag(s) Q^T, Q = I - 2 v v^T / v^T v */
        for (PetscInt j = 0; j < k; j++) {
          PetscReal sum = 0.0;
          for (PetscInt l = 0; l < k; l++) {
            const PetscReal qil = (i == l) - 2.0 * v[i] * v[l] / vv, qjl = (j == l) - 2.0 * v[j] * v[l] / vv;
            sum += qil * s[l] * qjl;
          }
          a[i + j * k] = scale * sum;
        }
    }
    PetscCall(PetscArraycpy(Ainv + off[b], a, k * k));
    PetscCall(InvertLAPACK(k, Ainv + off[b]));
    cond[b] = Norm1(k, a) * Norm1(k, Ainv + off[b]);
  }

  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatSetVariableBlockSizes(A, nbl, sizes));
  for (PetscInt b = 0; b < nbl; b++) {
    const PetscInt k = sizes[b];
    PetscInt       idx[PC_VBJACOBI_MAX_BLOCK_SIZE];
    PetscScalar    at[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE];

    for (PetscInt i = 0; i < k; i++) idx[i] = rstart + starts[b] + i;
    for (PetscInt i = 0; i < k; i++)
      for (PetscInt j = 0; j < k; j++) at[i * k + j] = Ablk[off[b] + i + j * k]; /* row-major for MatSetValues */
    PetscCall(MatSetValues(A, k, idx, k, idx, at, ADD_VALUES));                  /* (each entry once; ADD for the couplings) */
    if (couple)
      for (PetscInt i = 0; i < k; i++) {
        const PetscInt    col = (rstart + starts[b] + k + i) % N;
        const PetscScalar v   = 1e-3 * Ablk[off[b] + i + i * k];
        if (col < rstart + starts[b] || col >= rstart + starts[b] + k) PetscCall(MatSetValue(A, idx[i], col, v, ADD_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCVBJacobiGetPrecision(pc, &precision));
  PetscCall(PCVBJacobiGetPrecisionTolerance(pc, &tol));
  { /* the matrix's vector type, unless -vec_type says otherwise (host matrix, device vectors: a host setup whose inverses,
       types and scales go to the device at the first apply) */
    VecType vtype;

    PetscCall(MatGetVecType(A, &vtype));
    PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
    PetscCall(VecSetSizes(x, n, PETSC_DECIDE));
    PetscCall(VecSetType(x, vtype));
    PetscCall(VecSetFromOptions(x));
    PetscCall(VecDuplicate(x, &y));
    PetscCall(VecDuplicate(x, &yref));
  }

  /* 1. the type of every block, against the rule on the test's own estimate (blocks near a threshold are not judged) */
  {
    PetscInt  nb, wrong = 0, near = 0, lc[4], gc[4];
    const int mode_i = (int)precision;

    PetscCall(PCVBJacobiGetBlocks(pc, &nb, NULL));
    PetscCheck(nb == nbl, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %" PetscInt_FMT " blocks found, %" PetscInt_FMT " built", rank, nb, nbl);
    PetscCall(PCVBJacobiGetBlockPrecisions(pc, counts, &prec, &bytes));
    for (PetscInt b = 0; b < nbl; b++) {
      const int want = PCVBJacobiChooseType(mode_i, (double)tol, cond[b]);
      /* the thresholds of the rule: u cond < tol (adaptive) and < PBG_HOLD_LIMIT (every reduced mode) */
      const PetscReal lim   = mode_i == PBG_STORE_ADAPTIVE ? PetscMin(tol, PBG_HOLD_LIMIT) : PBG_HOLD_LIMIT;
      const PetscReal q[2]  = {cond[b] * PBG_UNIT_ROUNDOFF_HALF / lim, cond[b] * PBG_UNIT_ROUNDOFF_SINGLE / lim};
      const PetscBool close = (PetscBool)(mode_i != PBG_STORE_DOUBLE && (((q[0] > 0.5 && q[0] < 2.0) && mode_i != PBG_STORE_SINGLE) || (q[1] > 0.5 && q[1] < 2.0)));

      if (close) near++;
      else if (prec[b] != want) {
        if (wrong < 5)
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] block %" PetscInt_FMT " (k %" PetscInt_FMT ", cond_1 %.3e) stored as %s, expected %s\n", rank, b, sizes[b], (double)cond[b], PCVBJacobiPrecisions[prec[b]], PCVBJacobiPrecisions[want]));
        wrong++;
      }
    }
    PetscCheck(mode != MODE_COND || !near, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %" PetscInt_FMT " blocks of -mode cond lie within a factor 2 of a threshold: the test builds them wrongly", rank, near);
    lc[0] = wrong;
    lc[1] = counts[0];
    lc[2] = counts[1];
    lc[3] = counts[2];
    PetscCallMPI(MPIU_Allreduce(lc, gc, 4, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(counts, gcounts, 3, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "storage %s: blocks in double %" PetscInt_FMT ", single %" PetscInt_FMT ", half %" PetscInt_FMT "; %" PetscInt_FMT " blocks against the rule (%" PetscInt_FMT " near a threshold on rank 0, not judged)\n", PCVBJacobiPrecisions[precision], gc[1], gc[2], gc[3], gc[0], near));
    PetscCheck(!gc[0], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " blocks stored in another type than the rule gives", gc[0]);
    for (PetscInt t = 0; t < 3; t++) PetscCheck(expect[t] < 0 || expect[t] == gcounts[t], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " blocks in %s, expected %" PetscInt_FMT, gcounts[t], PCVBJacobiPrecisions[t], expect[t]);
    {
      PetscInt64 want = 0;
      for (PetscInt b = 0; b < nbl; b++) want += (PetscInt64)sizes[b] * sizes[b] * PCVBJacobiTypeBytes(prec[b]);
      PetscCheck(want == bytes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %" PetscInt64_FMT " bytes stored reported, %" PetscInt64_FMT " expected", rank, bytes, want);
    }
  }

  /* 2. products: against the stored inverses in FP64 (tight: only the order of the FP64 sums differs) and against the
        LAPACK inverses rounded to the storage (to its precision plus the inversion's error) */
  for (PetscInt t = 0; t < 2; t++) {
    const PetscScalar *xa, *ya, *Ds;
    PetscReal          worst_s = 0.0, worst_r = 0.0;

    PetscCall(VecSetRandom(x, NULL));
    PetscCall(Poison(y));
    if (!t) PetscCall(PCApply(pc, x, y));
    else PetscCall(PCApplyTranspose(pc, x, y));
    PetscCall(PCVBJacobiGetInverses(pc, &Ds));
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayRead(y, &ya));
    for (PetscInt b = 0; b < nbl; b++) {
      const PetscInt     k = sizes[b], s = starts[b];
      const PetscScalar *D = Ds + off[b], *R = Ainv + off[b];
      const int          ty     = prec[b];
      PetscReal          maxabs = 0.0, e_s = 0.0, e_r = 0.0, mag = 0.0, u = ty == PBG_STORE_HALF ? PBG_UNIT_ROUNDOFF_HALF : ty == PBG_STORE_SINGLE ? PBG_UNIT_ROUNDOFF_SINGLE : 0.0;

      for (PetscInt e = 0; e < k * k; e++) maxabs = PetscMax(maxabs, PetscAbsScalar(R[e]));
      for (PetscInt i = 0; i < k; i++) {
        PetscReal ys = 0.0, yr = 0.0, m = 0.0;
        for (PetscInt j = 0; j < k; j++) {
          const PetscInt ij = t ? j + i * k : i + j * k;
          ys += D[ij] * xa[s + j];
          yr += Rounded(ty, R[ij], maxabs) * xa[s + j];
          m += PetscAbsScalar(R[ij] * xa[s + j]);
        }
        PetscCheck(!PetscIsInfOrNanScalar(ya[s + i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %s left row %" PetscInt_FMT " unwritten or not finite", rank, t ? "PCApplyTranspose" : "PCApply", s + i);
        e_s = PetscMax(e_s, PetscAbsScalar(ya[s + i] - ys));
        e_r = PetscMax(e_r, PetscAbsScalar(ya[s + i] - yr));
        mag = PetscMax(mag, m);
      }
      PetscCheck(e_s <= 1e-13 * k * mag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %s of block %" PetscInt_FMT " (k %" PetscInt_FMT ", %s) differs from its stored inverse by %g (scale %g)", rank, t ? "PCApplyTranspose" : "PCApply", b, k, PCVBJacobiPrecisions[ty], (double)e_s, (double)mag);
      /* rounding of the two inverses to the type can differ by one unit (their FP64 values differ by ~cond eps) */
      PetscCheck(e_r <= (2.0 * u + 8.0 * k * cond[b] * PETSC_MACHINE_EPSILON) * mag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %s of block %" PetscInt_FMT " (k %" PetscInt_FMT ", %s, cond_1 %.2e) differs from the rounded LAPACK inverse by %g (scale %g)", rank, t ? "PCApplyTranspose" : "PCApply", b, k, PCVBJacobiPrecisions[ty], (double)cond[b], (double)e_r, (double)mag);
      worst_s = PetscMax(worst_s, mag > 0 ? e_s / mag : 0.0);
      worst_r = PetscMax(worst_r, mag > 0 ? e_r / mag : 0.0);
    }
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s matches the stored inverses (rank 0 worst %.1e) and the rounded LAPACK inverses (%.1e)\n", t ? "PCApplyTranspose" : "PCApply", (double)worst_s, (double)worst_r));
  }

  /* 3. the same PC on the host path: the same type for every block, the same stored values (bitwise for -mode diag) */
  if (compare_host) {
    PC                   pch;
    const unsigned char *prech;
    const PetscScalar   *Dd, *Dh;
    PetscInt             mism = 0, gm, bitdiff = 0, gbit;
    PetscReal            worst = 0.0;

    PetscCall(PCCreate(PETSC_COMM_WORLD, &pch));
    PetscCall(PCSetOptionsPrefix(pch, "host_"));
    PetscCall(PCSetType(pch, PCVBJACOBI));
    PetscCall(PCVBJacobiSetPrecision(pch, precision));
    PetscCall(PCVBJacobiSetPrecisionTolerance(pch, tol));
    PetscCall(PetscOptionsSetValue(NULL, "-host_pc_vbjacobi_use_gpu", "0"));
    PetscCall(PCSetFromOptions(pch));
    PetscCall(PCSetOperators(pch, A, A));
    PetscCall(PCSetUp(pch));
    PetscCall(PCVBJacobiGetBlockPrecisions(pch, NULL, &prech, NULL));
    PetscCall(PCVBJacobiGetInverses(pc, &Dd));
    PetscCall(PCVBJacobiGetInverses(pch, &Dh));
    for (PetscInt b = 0; b < nbl; b++) {
      const PetscInt  k = sizes[b];
      const PetscReal u = prec[b] == PBG_STORE_HALF ? PBG_UNIT_ROUNDOFF_HALF : prec[b] == PBG_STORE_SINGLE ? PBG_UNIT_ROUNDOFF_SINGLE : 0.0;
      PetscReal       m = 0.0, e = 0.0;

      if (prec[b] != prech[b]) {
        if (mism < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] block %" PetscInt_FMT " (cond_1 %.6e): %s here, %s on the host path\n", rank, b, (double)cond[b], PCVBJacobiPrecisions[prec[b]], PCVBJacobiPrecisions[prech[b]]));
        mism++;
      }
      for (PetscInt i = 0; i < k * k; i++) {
        m = PetscMax(m, PetscAbsScalar(Dh[off[b] + i]));
        e = PetscMax(e, PetscAbsScalar(Dh[off[b] + i] - Dd[off[b] + i]));
        if (Dh[off[b] + i] != Dd[off[b] + i]) bitdiff++;
      }
      PetscCheck(e <= (2.0 * u + 8.0 * k * cond[b] * PETSC_MACHINE_EPSILON) * m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] stored inverse of block %" PetscInt_FMT " (%s) differs from the host path's by %g (max entry %g)", rank, b, PCVBJacobiPrecisions[prec[b]], (double)e, (double)m);
      worst = PetscMax(worst, m > 0 ? e / m : 0.0);
    }
    PetscCallMPI(MPIU_Allreduce(&mism, &gm, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(&bitdiff, &gbit, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "host path: %" PetscInt_FMT " blocks of another precision, stored values within %.1e (rank 0), %" PetscInt_FMT " entries not bitwise equal\n", gm, (double)worst, gbit));
    PetscCheck(!gm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the host path stores %" PetscInt_FMT " blocks in another precision", gm);
    PetscCheck(mode != MODE_DIAG || !gbit, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "1 x 1 blocks (the same FP64 inverse on both sides): %" PetscInt_FMT " stored entries differ from the host path's conversion", gbit);
    for (PetscInt t = 0; t < 2; t++) {
      Vec       d;
      PetscReal nd, nr;

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
      PetscCall(VecDuplicate(y, &d));
      PetscCall(VecWAXPY(d, -1.0, yref, y));
      PetscCall(VecNorm(d, NORM_INFINITY, &nd));
      PetscCall(VecNorm(yref, NORM_INFINITY, &nr));
      PetscCall(VecDestroy(&d));
      /* products of the two stored inverses: within the storage's precision of each other (ill-conditioned blocks
         amplify nothing here: both apply what they store) */
      PetscCheck(nd <= 4.0 * (precision == PC_VBJACOBI_PRECISION_DOUBLE ? 1e-12 : PBG_UNIT_ROUNDOFF_HALF) * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s differs from the host path's: %g of %g", t ? "PCApplyTranspose" : "PCApply", (double)nd, (double)nr);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCApply and PCApplyTranspose match the host path\n"));
    PetscCall(PCDestroy(&pch));
  }

  /* 4. a solve; with -check_error of A y = A x_true, against x_true */
  if (solve || check_error) {
    KSPConvergedReason reason;
    PetscInt           its;
    Vec                b = NULL;

    PetscCall(VecSetRandom(x, NULL));
    if (check_error) {
      PetscCall(VecDuplicate(x, &b));
      PetscCall(MatMult(A, x, b));
    }
    PetscCall(KSPSolve(ksp, check_error ? b : x, y));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "solve did not converge: %s", KSPConvergedReasons[reason]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve converged (%s) in %" PetscInt_FMT " iterations\n", KSPConvergedReasons[reason], its));
    if (check_error) {
      PetscReal nerr, nx;

      PetscCall(VecAXPY(y, -1.0, x));
      PetscCall(VecNorm(y, NORM_2, &nerr));
      PetscCall(VecNorm(x, NORM_2, &nx));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative error of the solution %.2e\n", (double)(nerr / nx)));
      PetscCheck(nerr <= 1e-4 * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the solve reported %s but its solution is off by %.2e (relative)", KSPConvergedReasons[reason], (double)(nerr / nx));
      PetscCall(VecDestroy(&b));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree3(Ablk, Ainv, cond));
  PetscCall(PetscFree3(sizes, starts, off));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
