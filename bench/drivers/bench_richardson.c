static char help[] = "The fused Richardson sweep of PCVBJACOBI (issue 40) against KSPRICHARDSON's own loop, on the GPU, in one process.\n"
                     "A 3-D 27-point block stencil (n^3 block rows, bs x bs blocks, a dominant diagonal block) as MATBAIJKSPARSE; KSPRICHARDSON\n"
                     "with vbjacobi (matrix blocking), -sweeps sweeps from a nonzero guess, no norms (a multigrid smoother): ours (one kernel a\n"
                     "sweep, damping 0.6) and the loop (-pc_vbjacobi_richardson false, scale 0.6: MatResidual, the apply, VecAXPY). CUDA events,\n"
                     "the median of -runs solves after -warmup. Printed and written to -csv: time a sweep, the speedup, the byte ratio of the\n"
                     "two (the bytes each must move), the fused sweep's GB/s and its fraction of the triad, the difference of the solutions.\n"
                     "-method chebyshev: KSPCHEBYSHEV (first kind, bounds 0.3 and 1.7) with vbjacobi, its steps fused (src/ksp/chebyshev) against its\n"
                     "own loop (-pc_vbjacobi_chebyshev false: MatMult, VecAYPX, the apply, VecAXPBYPCZ). With -fused_pc_vbjacobi_sweep_precision\n"
                     "single the fused sweep reads 4-byte values, and its bytes (GB/s, byte ratio) count them so.\n"
                     "Options: -n <64> -bs <list, 2,3,4,5,6: the block sizes the sweep is fused for; others run unfused in both> -sweeps <2> -runs <20> -warmup <3> -csv <file>\n"
                     "-method <richardson|chebyshev>\n";

/* Expected before measuring: the fused sweep moves A (nz bs^2 8 + nz 4 bytes) + the inverses (mbs bs^2 8) + 3 vectors
   (y gathered, b, the new y), the loop A + the inverses + 8 vectors (residual: y, b, r; apply: r, z; update: z, y, y) and
   three launches. At bs 3 (27 blocks a row) the byte ratio is 1.06, at bs 1 (27 entries a row) 1.33: the fused sweep should
   win by that ratio, more on small grids where the two extra launches count. A Chebyshev step fused moves A + the inverses
   + 4 vectors (y gathered, b, the previous y, the new y), PETSc's loop A + the inverses + 11 vectors (MatMult: y, r; AYPX: r,
   b, r; apply: r, z; AXPBYPCZ: y_prev, y, z, z) and four launches: at bs 3 a byte ratio of 1.08. */
#include <petscblockgpu.h>
#include <petscksp.h>
#include "../common/bench_util.h"

static PetscErrorCode Stencil(PetscInt n, PetscInt bs, Mat *A)
{
  const PetscInt mbs = n * n * n;
  PetscInt      *ia, *ja, nz = 0;
  PetscScalar   *va;
  unsigned       s = 12345;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(mbs + 1, &ia, 27 * mbs, &ja, (size_t)27 * mbs * bs * bs, &va));
  ia[0] = 0;
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              const PetscInt ii = i + di, jj = j + dj, kk = k + dk;

              if (ii < 0 || ii >= n || jj < 0 || jj >= n || kk < 0 || kk >= n) continue;
              ja[nz] = ii + n * (jj + n * kk);
              for (PetscInt e = 0; e < bs * bs; e++) {
                s                            = s * 1103515245u + 12345u;
                va[(size_t)nz * bs * bs + e] = -0.02 * (double)(s >> 16) / 65536.0 + (di == 0 && dj == 0 && dk == 0 && e % (bs + 1) == 0 ? 1.0 : 0.0);
              }
              nz++;
            }
        ia[i + n * (j + n * k) + 1] = nz;
      }
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, mbs * bs, mbs * bs, mbs * bs, mbs * bs));
  PetscCall(MatSetType(*A, MATSEQBAIJ));
  PetscCall(MatSetOption(*A, MAT_ROW_ORIENTED, PETSC_FALSE));
  PetscCall(MatSeqBAIJSetPreallocationCSR(*A, bs, ia, ja, va));
  PetscCall(MatConvert(*A, MATBAIJKSPARSE, MAT_INPLACE_MATRIX, A));
  PetscCall(PetscFree3(ia, ja, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeKSP(Mat A, const char *prefix, PetscBool chebyshev, PetscReal scale, PetscInt sweeps, KSP *ksp)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_SELF, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  if (chebyshev) {
    PetscCall(KSPSetType(*ksp, KSPCHEBYSHEV));
    PetscCall(KSPChebyshevSetEigenvalues(*ksp, 1.7, 0.3));
  } else {
    PetscCall(KSPSetType(*ksp, KSPRICHARDSON));
    PetscCall(KSPRichardsonSetScale(*ksp, scale));
  }
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCVBJacobiSetBlocking(pc, PC_VBJACOBI_BLOCKING_MATRIX));
  PetscCall(KSPSetTolerances(*ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, sweeps));
  PetscCall(KSPSetConvergenceTest(*ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_NONE));
  PetscCall(KSPSetInitialGuessNonzero(*ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* median seconds of one solve (sweeps sweeps) from the guess x0 */
static PetscErrorCode TimeSolves(KSP ksp, Vec b, Vec x0, Vec x, PetscInt warmup, PetscInt runs, BenchTimer *T, double *sec)
{
  PetscReal *t;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(runs, &t));
  for (PetscInt r = 0; r < warmup + runs; r++) {
    double s;

    PetscCall(VecCopy(x0, x));
    PetscCall(BenchTimerStart(T));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(BenchTimerStop(T, &s, NULL));
    if (r >= warmup) t[r - warmup] = s;
  }
  *sec = BenchMedian(runs, t);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt              n = 64, bsl[16] = {2, 3, 4, 5, 6}, nbs = 5, sweeps = 2, runs = 20, warmup = 3;
  char                  csvpath[PETSC_MAX_PATH_LEN] = "", method[32] = "richardson";
  PetscBool             chebyshev, single;
  FILE                 *csv = NULL;
  BenchTimer            T;
  double                triad;
  const char           *dev = "?";
  struct cudaDeviceProp prop;
  int                   id;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  {
    PetscInt  given[16], ngiven = 16;
    PetscBool set;

    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bs", given, &ngiven, &set));
    if (set) {
      nbs = ngiven;
      for (PetscInt q = 0; q < nbs; q++) bsl[q] = given[q];
    }
  }
  for (PetscInt q = 0; q < nbs; q++) PetscCheck(bsl[q] >= 1 && bsl[q] <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bs: block sizes 1..32");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sweeps", &sweeps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-runs", &runs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csvpath, sizeof(csvpath), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-method", method, sizeof(method), NULL));
  PetscCall(PetscStrcmp(method, "chebyshev", &chebyshev));
  {
    char prec[16] = "double";

    PetscCall(PetscOptionsGetString(NULL, "fused_", "-pc_vbjacobi_sweep_precision", prec, sizeof(prec), NULL));
    PetscCall(PetscStrcmp(prec, "single", &single));
  }
  if (!chebyshev) {
    PetscBool rich;

    PetscCall(PetscStrcmp(method, "richardson", &rich));
    PetscCheck(rich, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-method %s: richardson or chebyshev", method);
  }
  PetscCheck(n >= 2 && sweeps >= 1 && runs >= 1 && warmup >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-n >= 2, -sweeps >= 1, -runs >= 1, -warmup >= 0");
  PetscCall(PetscOptionsSetValue(NULL, "-fused_pc_vbjacobi_richardson_damping", "0.6"));
  PetscCall(PetscOptionsSetValue(NULL, "-loop_pc_vbjacobi_richardson", "false"));
  PetscCall(PetscOptionsSetValue(NULL, "-loop_pc_vbjacobi_chebyshev", "false"));
  PetscCall(BenchCheckCuda(cudaGetDevice(&id), "cudaGetDevice"));
  PetscCall(BenchCheckCuda(cudaGetDeviceProperties(&prop, id), "cudaGetDeviceProperties"));
  dev = prop.name;
  PetscCall(MeasureTriad(PETSC_TRUE, (size_t)1 << 27, 3, 10, &triad));
  PetscCall(BenchTimerCreate(PETSC_TRUE, &T));
  if (csvpath[0]) PetscCall(BenchCSVOpen(csvpath, "device,method,n,bs,rows,blocks,sweeps,fused_s_per_sweep,loop_s_per_sweep,speedup,byte_ratio,fused_GBs,frac_triad,rel_diff", PETSC_FALSE, &csv));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s, triad %.0f GB/s; %s, 27-point block stencil %" PetscInt_FMT "^3, %" PetscInt_FMT " sweeps a solve\n", dev, triad, method, n, sweeps));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%3s %10s %10s %12s %12s %8s %10s %9s %8s %9s\n", "bs", "rows", "blocks", "fused/sweep", "loop/sweep", "speedup", "byte ratio", "fused GB/s", "of triad", "rel diff"));
  for (PetscInt q = 0; q < nbs; q++) {
    const PetscInt bs = bsl[q];
    Mat            A;
    KSP            kf, kl;
    Vec            b, x0, x, xl;
    MatInfo        info;
    double         tf, tl, nzb, rows, Abytes, fbytes, lbytes;
    PetscReal      d, r;

    PetscCall(Stencil(n, bs, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSetType(x, VECCUDA));
    PetscCall(VecSetType(b, VECCUDA));
    PetscCall(VecDuplicate(x, &x0));
    PetscCall(VecDuplicate(x, &xl));
    PetscCall(VecSetRandom(b, NULL));
    PetscCall(VecSetRandom(x0, NULL));
    PetscCall(MatMult(A, x0, x)); /* the matrix on the device before the setup */
    PetscCall(MakeKSP(A, "fused_", chebyshev, 1.0, sweeps, &kf));
    PetscCall(MakeKSP(A, "loop_", chebyshev, 0.6, sweeps, &kl));
    PetscCall(TimeSolves(kf, b, x0, x, warmup, runs, &T, &tf));
    PetscCall(TimeSolves(kl, b, x0, xl, warmup, runs, &T, &tl));
    PetscCall(VecNorm(xl, NORM_INFINITY, &r));
    PetscCall(VecAXPY(xl, -1.0, x));
    PetscCall(VecNorm(xl, NORM_INFINITY, &d));
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    rows   = (double)n * n * n * bs;
    nzb    = info.nz_used / (bs * bs);
    Abytes = nzb * bs * bs * 8.0 + nzb * 4.0 + (rows / bs + 1) * 4.0 + (rows / bs) * bs * bs * 8.0; /* matrix + inverses */
    fbytes = Abytes + 3 * rows * 8.0 - (single ? nzb * bs * bs * 4.0 : 0.0);                        /* -fused_pc_vbjacobi_sweep_precision single: 4-byte values */
    lbytes = Abytes + 8 * rows * 8.0;
    if (chebyshev) {
      fbytes = Abytes + 4 * rows * 8.0 - (single ? nzb * bs * bs * 4.0 : 0.0);
      lbytes = Abytes + 11 * rows * 8.0;
    }
    tf /= sweeps;
    tl /= sweeps;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%3" PetscInt_FMT " %10.0f %10.0f %10.1f us %10.1f us %7.2fx %10.2f %9.0f %8.2f %9.1e\n", bs, rows, nzb, 1e6 * tf, 1e6 * tl, tl / tf, lbytes / fbytes, fbytes / tf / 1e9, fbytes / tf / 1e9 / triad, (double)(r > 0 ? d / r : d)));
    if (csv)
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, csv, "%s,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.0f,%.0f,%" PetscInt_FMT ",%.4e,%.4e,%.3f,%.3f,%.1f,%.3f,%.2e\n", dev, method, n, bs, rows, nzb, sweeps, tf, tl, tl / tf, lbytes / fbytes, fbytes / tf / 1e9, fbytes / tf / 1e9 / triad, (double)(r > 0 ? d / r : d)));
    PetscCall(KSPDestroy(&kf));
    PetscCall(KSPDestroy(&kl));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&x0));
    PetscCall(VecDestroy(&xl));
    PetscCall(MatDestroy(&A));
  }
  if (csv) PetscCall(BenchCSVClose(&csv));
  PetscCall(BenchTimerDestroy(&T));
  PetscCall(PetscFinalize());
  return 0;
}
