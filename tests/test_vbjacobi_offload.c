static char help[] = "Tests the offload state of PCVBJACOBI's blocks object: each copy (block starts, inverses) moves between host and\n"
                     "device only when asked for, and once. Counts the bytes through PETSc's transfer counters (petsc_gtoc_sz,\n"
                     "petsc_ctog_sz) around each call and checks the results against the PC's own blocks and inverses, and the\n"
                     "inverses against the matrix (D_b A_bb = I).\n"
                     "  A GPU setup moves no O(n) data to the host; the starts come to the host at the first PCVBJacobiGetBlocks() or\n"
                     "  -pc_view, the inverses at the first host apply (PCApply with host vectors) or PCVBJacobiGetInverses(), once.\n"
                     "  A host setup moves nothing to the device; the first apply with device vectors copies starts and inverses, once.\n"
                     "  -expect_setup <gpu|host> : where the setup must run (gpu: an aijcusparse matrix on a machine with a GPU)\n"
                     "  -vec_type <type>         : the type of the vectors of the 'device' applies (host vectors are always standard)\n"
                     "  -view_first              : -pc_view (PCView) before PCVBJacobiGetBlocks() asks for the starts\n"
                     "  -switch_place            : (aijcusparse) then a host setup on the same blocks (-pc_vbjacobi_use_gpu 0), a device\n"
                     "                             apply after it, and a GPU setup again: each moves only what the other side lacks\n"
                     "  -nruns <n> (runs of rows with identical patterns per rank), -maxgen <k> (their largest length), -seed <s>\n";

#include <petscblockgpu.h>
#include <petscksp.h>

static PetscReal RandReal(PetscRandom r)
{
  PetscReal v;
  PetscCallAbort(PETSC_COMM_SELF, PetscRandomGetValueReal(r, &v));
  return v;
}

/* Runs of 1..maxgen rows with identical patterns (the run's own columns and a few shared off-run ones), dense,
   diagonally dominant */
static PetscErrorCode BuildMatrix(PetscInt nruns, PetscInt maxgen, PetscRandom rnd, Mat *A)
{
  PetscInt *runs, n = 0, rstart, N, cols[64], s = 0;

  PetscFunctionBeginUser;
  PetscCheck(maxgen >= 1 && maxgen <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-maxgen must be in 1..32");
  PetscCall(PetscMalloc1(nruns, &runs));
  for (PetscInt r = 0; r < nruns; r++) {
    runs[r] = 1 + (PetscInt)(RandReal(rnd) * maxgen);
    runs[r] = PetscMin(runs[r], maxgen);
    n += runs[r];
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, NULL));
  PetscCall(MatGetSize(*A, &N, NULL));
  for (PetscInt r = 0; r < nruns; r++) {
    PetscInt    k = runs[r], nc = 0;
    PetscScalar vals[64];

    for (PetscInt c = 0; c < k; c++) cols[nc++] = rstart + s + c;
    for (PetscInt c = 0; c < 3; c++) { /* off-run columns, anywhere in the matrix */
      PetscInt col;

      do col = (PetscInt)(RandReal(rnd) * N);
      while (col >= N || (col >= rstart + s && col < rstart + s + k));
      cols[nc++] = col;
    }
    for (PetscInt i = 0; i < k; i++) {
      PetscInt row = rstart + s + i;

      for (PetscInt c = 0; c < nc; c++) vals[c] = 2.0 * RandReal(rnd) - 1.0;
      vals[i] += (PetscScalar)(nc + 1);
      PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, ADD_VALUES));
    }
    s += k;
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(runs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bytes moved to the host (gtoc) and to the device (ctog) since the last mark */
typedef struct {
  PetscLogDouble gtoc, ctog;
} Mark;

static void SetMark(Mark *m)
{
  m->gtoc = petsc_gtoc_sz;
  m->ctog = petsc_ctog_sz;
}

/* Expected bytes: exactly want >= 0; fewer than FEWER(b); ANY: not checked (the matrix's own copies) */
#define FEWER(b) (-(PetscLogDouble)(b))
#define ANY      (-PETSC_MAX_REAL)

static PetscErrorCode CheckBytes(const char *what, const char *dir, PetscLogDouble got, PetscLogDouble want)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  if (want == ANY) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCheck(want < 0 ? got < -want : got == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %s: %.0f bytes to the %s, expected %s%.0f", rank, what, (double)got, dir, want < 0 ? "fewer than " : "", (double)PetscAbsReal(want));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Checks the bytes moved since mark m on this rank; prints rank 0's */
static PetscErrorCode Expect(const char *what, const Mark *m, PetscLogDouble want_gtoc, PetscLogDouble want_ctog)
{
  const PetscLogDouble gtoc = petsc_gtoc_sz - m->gtoc, ctog = petsc_ctog_sz - m->ctog;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-62s to host %8.0f bytes, to device %8.0f bytes\n", what, (double)gtoc, (double)ctog));
  PetscCall(CheckBytes(what, "host", gtoc, want_gtoc));
  PetscCall(CheckBytes(what, "device", ctog, want_ctog));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = D^{-1} x (or D^{-T} x) from the PC's own blocks and inverses, to rounding; y was poisoned before the apply */
static PetscErrorCode CheckApply(PC pc, Vec x, Vec y, PetscBool transpose, const char *what)
{
  const PetscInt    *st;
  const PetscScalar *inv, *xa, *ya;
  PetscInt           nb;
  PetscInt64         off  = 0;
  PetscReal          emax = 0.0, rmax = 0.0, gmax[2], lmax[2];

  PetscFunctionBeginUser;
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
  PetscCall(PCVBJacobiGetInverses(pc, &inv));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(y, &ya));
  for (PetscInt b = 0; b < nb; b++) {
    PetscInt s = st[b], k = st[b + 1] - s;

    for (PetscInt i = 0; i < k; i++) {
      PetscScalar sum = 0.0;

      for (PetscInt j = 0; j < k; j++) sum += (transpose ? inv[off + j + i * k] : inv[off + i + j * k]) * xa[s + j];
      rmax = PetscMax(rmax, PetscAbsScalar(sum));
      emax = PetscMax(emax, PetscAbsScalar(sum - ya[s + i]));
    }
    off += k * k;
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(y, &ya));
  lmax[0] = emax;
  lmax[1] = rmax;
  PetscCallMPI(MPIU_Allreduce(lmax, gmax, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCheck(gmax[0] <= 1e-12 * gmax[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: differs from the PC's inverses by %g (largest entry %g)", what, (double)gmax[0], (double)gmax[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s matches the PC's inverses\n", what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inverses are those of the current matrix: max |D_b A_bb - I| small for every block */
static PetscErrorCode CheckInverses(PC pc, Mat A, const char *when)
{
  const PetscInt    *st;
  const PetscScalar *inv;
  PetscInt           nb, rstart, idx[32];
  PetscInt64         off  = 0;
  PetscReal          emax = 0.0, gmax;
  PetscScalar        a[32 * 32];

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
  PetscCall(PCVBJacobiGetInverses(pc, &inv));
  for (PetscInt b = 0; b < nb; b++) {
    PetscInt s = st[b], k = st[b + 1] - s;

    for (PetscInt i = 0; i < k; i++) idx[i] = rstart + s + i;
    PetscCall(MatGetValues(A, k, idx, k, idx, a)); /* row-major */
    for (PetscInt i = 0; i < k; i++)
      for (PetscInt j = 0; j < k; j++) {
        PetscScalar sum = 0.0;

        for (PetscInt l = 0; l < k; l++) sum += inv[off + i + l * k] * a[l * k + j];
        emax = PetscMax(emax, PetscAbsScalar(sum - (i == j ? 1.0 : 0.0)));
      }
    off += k * k;
  }
  PetscCallMPI(MPIU_Allreduce(&emax, &gmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCheck(gmax < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the inverses are not those of the matrix: max |D A - I| = %g", when, (double)gmax);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: inverses are those of the matrix (max |D A - I| %.1e)\n", when, (double)gmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Poison(Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(VecSet(y, 1.0e300));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x's values made current where x lives (a device vector: on the device), so that an apply moves nothing of x */
static PetscErrorCode Settle(Vec x)
{
  const PetscScalar *xa;
  PetscMemType       mt;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The aijcusparse values current on the host too, so that a host setup reads them without a copy */
static PetscErrorCode SettleHostValues(Mat A)
{
  Mat                Ad;
  const PetscScalar *v;

  PetscFunctionBeginUser;
  PetscCall(MatGetDiagonalBlock(A, &Ad));
  PetscCall(MatSeqAIJGetArrayRead(Ad, &v));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const char *const  Places[] = {"host", "gpu"};
  PetscInt           nruns = 3000, maxgen = 3, seed = 3, place = 0, nb, nb2, nloc;
  PetscBool          view_first = PETSC_FALSE, switch_place = PETSC_FALSE, gpu_setup, devvec;
  PetscMPIInt        rank;
  PetscRandom        rnd;
  Mat                A;
  PC                 pc;
  Vec                xd, yd, ytd, xh, yh, yth;
  Mark               m;
  const PetscInt    *st, *st2;
  const PetscScalar *inv;
  PetscInt64         ninv = 0;
  PetscLogDouble     Sb, Ib; /* bytes of the local starts, of the local inverses */
  MatType            mtype;
  VecType            vtype;
  PetscMemType       mt;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_vbjacobi_offload options", NULL);
  PetscCall(PetscOptionsEList("-expect_setup", "where the setup must run", NULL, Places, 2, Places[place], &place, NULL));
  PetscCall(PetscOptionsBool("-view_first", "PCView before PCVBJacobiGetBlocks", NULL, view_first, &view_first, NULL));
  PetscCall(PetscOptionsBool("-switch_place", "then host and GPU setups on the same blocks", NULL, switch_place, &switch_place, NULL));
  PetscCall(PetscOptionsInt("-nruns", "runs of rows per rank", NULL, nruns, &nruns, NULL));
  PetscCall(PetscOptionsInt("-maxgen", "largest run", NULL, maxgen, &maxgen, NULL));
  PetscCall(PetscOptionsInt("-seed", "random seed", NULL, seed, &seed, NULL));
  PetscOptionsEnd();
  gpu_setup = (PetscBool)(place == 1);

  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, 0.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed * 1000 + rank)));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(BuildMatrix(nruns, maxgen, rnd, &A));

  /* the 'device' vectors take -vec_type; the host ones are standard */
  PetscCall(MatGetLocalSize(A, &nloc, NULL));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &xd));
  PetscCall(VecSetSizes(xd, nloc, PETSC_DECIDE));
  PetscCall(VecSetFromOptions(xd));
  PetscCall(VecDuplicate(xd, &yd));
  PetscCall(VecDuplicate(xd, &ytd));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &xh));
  PetscCall(VecSetSizes(xh, nloc, PETSC_DECIDE));
  PetscCall(VecSetType(xh, VECSTANDARD));
  PetscCall(VecDuplicate(xh, &yh));
  PetscCall(VecDuplicate(xh, &yth));
  PetscCall(VecSetRandom(xh, rnd));
  {
    const PetscScalar *h;
    PetscScalar       *d;

    PetscCall(VecGetArrayRead(xh, &h));
    PetscCall(VecGetArrayWrite(xd, &d));
    PetscCall(PetscArraycpy(d, h, nloc));
    PetscCall(VecRestoreArrayWrite(xd, &d));
    PetscCall(VecRestoreArrayRead(xh, &h));
  }
  { /* where xd's values live once settled */
    const PetscScalar *d;

    PetscCall(VecGetArrayReadAndMemType(xd, &d, &mt));
    PetscCall(VecRestoreArrayReadAndMemType(xd, &d));
  }
  devvec = PetscMemTypeDevice(mt) ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MatGetType(A, &mtype));
  PetscCall(VecGetType(xd, &vtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s, 'device' vectors %s (%s memory), expected setup on the %s\n", mtype, vtype, devvec ? "device" : "host", gpu_setup ? "GPU" : "host"));
  PetscCheck(!switch_place || devvec, PETSC_COMM_WORLD, PETSC_ERR_USER, "-switch_place needs device vectors (-vec_type cuda)");

  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCVBJacobiSetBlocking(pc, PC_VBJACOBI_BLOCKING_NATURAL)); /* a block per run: many blocks, so O(n) copies show */
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetFromOptions(pc));

  /* 1. the setup: a GPU setup reads back a few counters, never the starts or inverses */
  SetMark(&m);
  PetscCall(PCSetUp(pc));
  PetscCall(PCVBJacobiGetBlocks(pc, &nb, NULL));
  Sb = (PetscLogDouble)(nb + 1) * sizeof(PetscInt);
  PetscCheck(!gpu_setup || Sb > 4096, PETSC_COMM_SELF, PETSC_ERR_USER, "[%d] only %" PetscInt_FMT " local blocks: too few to tell O(n) transfers from the setup's counters", rank, nb);
  PetscCall(Expect("PCSetUp", &m, gpu_setup ? FEWER(1024) : 0, gpu_setup ? ANY : 0)); /* the GPU setup also sends the matrix */
  SetMark(&m);
  PetscCall(PCVBJacobiGetBlocks(pc, &nb2, NULL));
  PetscCall(Expect("PCVBJacobiGetBlocks(nblocks only)", &m, 0, 0));

  /* 2. the starts come to the host once, for whichever asks first */
  if (view_first) {
    SetMark(&m);
    PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(Expect("PCView (first)", &m, gpu_setup ? Sb : 0, 0));
  }
  SetMark(&m);
  PetscCall(PCVBJacobiGetBlocks(pc, &nb2, &st));
  PetscCall(Expect("PCVBJacobiGetBlocks", &m, gpu_setup && !view_first ? Sb : 0, 0));
  SetMark(&m);
  PetscCall(PCVBJacobiGetBlocks(pc, &nb2, &st2));
  PetscCall(Expect("PCVBJacobiGetBlocks (again)", &m, 0, 0));
  PetscCheck(st == st2 && nb == nb2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a second PCVBJacobiGetBlocks() gave another array");
  for (PetscInt b = 0; b < nb; b++) {
    PetscCheck(st[b + 1] > st[b], PETSC_COMM_SELF, PETSC_ERR_PLIB, "block %" PetscInt_FMT " is empty or reversed", b);
    ninv += (PetscInt64)(st[b + 1] - st[b]) * (st[b + 1] - st[b]);
  }
  Ib = (PetscLogDouble)ninv * sizeof(PetscScalar);
  if (!view_first) {
    SetMark(&m);
    PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(Expect("PCView (after PCVBJacobiGetBlocks)", &m, 0, 0));
  }

  /* 3. applies with the 'device' vectors: after a host setup, the first copies the starts and inverses to the device */
  PetscCall(Poison(yd));
  PetscCall(Poison(ytd));
  PetscCall(Settle(yd));
  PetscCall(Settle(ytd));
  SetMark(&m);
  PetscCall(PCApply(pc, xd, yd));
  PetscCall(Expect("PCApply, 'device' vectors", &m, 0, devvec && !gpu_setup ? Sb + Ib : 0));
  SetMark(&m);
  PetscCall(PCApply(pc, xd, yd));
  PetscCall(PCApplyTranspose(pc, xd, ytd));
  PetscCall(Expect("PCApply again, PCApplyTranspose, 'device' vectors", &m, 0, 0));

  /* 4. applies with host vectors: after a GPU setup, the first copies the inverses to the host (the starts are there) */
  PetscCall(Poison(yh));
  PetscCall(Poison(yth));
  SetMark(&m);
  PetscCall(PCApply(pc, xh, yh));
  PetscCall(Expect("PCApply, host vectors", &m, gpu_setup ? Ib : 0, 0));
  SetMark(&m);
  PetscCall(PCApplyTranspose(pc, xh, yth));
  PetscCall(PCApply(pc, xh, yh));
  PetscCall(Expect("PCApplyTranspose, PCApply, host vectors", &m, 0, 0));
  SetMark(&m);
  PetscCall(PCVBJacobiGetInverses(pc, &inv));
  PetscCall(Expect("PCVBJacobiGetInverses", &m, 0, 0));
  PetscCall(CheckApply(pc, xd, yd, PETSC_FALSE, "PCApply, 'device' vectors"));
  PetscCall(CheckApply(pc, xd, ytd, PETSC_TRUE, "PCApplyTranspose, 'device' vectors"));
  PetscCall(CheckApply(pc, xh, yh, PETSC_FALSE, "PCApply, host vectors"));
  PetscCall(CheckApply(pc, xh, yth, PETSC_TRUE, "PCApplyTranspose, host vectors"));
  PetscCall(CheckInverses(pc, A, "after the first setup"));

  /* 5. new values, same pattern: the setup keeps the blocks and makes new inverses where it runs; no stale copy is used */
  PetscCall(MatScale(A, -0.5));
  if (!switch_place) {
    PetscCall(PCSetUp(pc));
    PetscCall(CheckInverses(pc, A, "after new values"));
    PetscCall(Poison(yd));
    PetscCall(PCApply(pc, xd, yd));
    PetscCall(CheckApply(pc, xd, yd, PETSC_FALSE, "PCApply after new values, 'device' vectors"));
  } else {
    /* a host setup on blocks kept from the GPU setup (the host has the starts): moves nothing */
    PetscCall(PetscOptionsSetValue(NULL, "-pc_vbjacobi_use_gpu", "0"));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(SettleHostValues(A));
    SetMark(&m);
    PetscCall(PCSetUp(pc));
    PetscCall(Expect("host PCSetUp, blocks kept from the GPU setup", &m, 0, 0));
    /* a device apply after it copies the new inverses only (the device has the starts) */
    PetscCall(PetscOptionsSetValue(NULL, "-pc_vbjacobi_use_gpu", "1"));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(Settle(xd));
    SetMark(&m);
    PetscCall(PCApply(pc, xd, yd));
    PetscCall(Expect("PCApply, device vectors, after the host setup", &m, 0, Ib));
    PetscCall(CheckApply(pc, xd, yd, PETSC_FALSE, "PCApply, device vectors, after the host setup"));
    PetscCall(CheckInverses(pc, A, "after the host setup"));
    /* a GPU setup again: the device has the starts; the host apply then copies the new inverses only */
    PetscCall(MatScale(A, 2.0));
    SetMark(&m);
    PetscCall(PCSetUp(pc));
    PetscCall(Expect("GPU PCSetUp, blocks kept", &m, FEWER(1024), ANY));
    PetscCall(Poison(yh));
    SetMark(&m);
    PetscCall(PCApply(pc, xh, yh));
    PetscCall(Expect("PCApply, host vectors, after the GPU setup", &m, Ib, 0));
    PetscCall(CheckApply(pc, xh, yh, PETSC_FALSE, "PCApply, host vectors, after the GPU setup"));
    PetscCall(CheckInverses(pc, A, "after the GPU setup again"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&yd));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&ytd));
  PetscCall(VecDestroy(&yth));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
