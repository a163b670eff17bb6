static const char help[] = "Brute-force tuner of the MATBAIJKSPARSE kernels: for each block size, times MatMult() with every valid\n"
                           "kernel and parameter set on a stencil matrix and writes the fastest as the tuning table that MatMult()\n"
                           "reads (share/petscblockgpu/baijksparse_tuning_sm<XY>.txt beside the library's directory, or -mat_baijksparse_tuning_file).\n"
                           "  -bs <list>        block sizes (default 1..64)\n"
                           "  -pattern <3d7,3d27> DMDA stencils (2d5, 2d9, 3d7, 3d27; natural ordering): the sum of their times decides\n"
                           "  -all              print the time of every candidate\n"
                           "  -scale <0.25>     values per matrix: scale x 1 GiB\n"
                           "  -runs <10>        timed runs per candidate (median), after -warmup <2>\n"
                           "  -maxlen <0>       write the lines for matrices of mean block-row length <= maxlen only (a row-length\n"
                           "                    class: tune short-row patterns with it, long-row ones without, and keep both sets of lines)\n"
                           "  -o <file>         the table (default share/petscblockgpu/baijksparse_tuning_sm<XY>.txt in the current directory)\n";

#include <petscblockgpu.h>
#include <petscdevice_cuda.h>
#include "bench_common.h"
#include <cstdio>
#include <cstring>
#include <cmath>

typedef struct {
  const char *kernel;
  int         ept, warps, teams, lanes;
} Candidate;

#define MAX_CANDIDATES 256
typedef struct {
  int       n;
  Candidate c[MAX_CANDIDATES];
} CandidateList;

static void Add(CandidateList &c, const char *kernel, int ept, int warps, int teams, int lanes)
{
  if (c.n == MAX_CANDIDATES) return;
  c.c[c.n].kernel = kernel;
  c.c[c.n].ept    = ept;
  c.c[c.n].warps  = warps;
  c.c[c.n].teams  = teams;
  c.c[c.n].lanes  = lanes;
  c.n++;
}

/* The parameter sets worth trying for block size bs (the limits of MatBAIJKSPARSEParamsValid()) */
static void Candidates(int bs, CandidateList &c)
{
  const int lanes[] = {2, 4, 8, 16, 32}, w3[] = {2, 4, 8}, w5[] = {1, 2, 4, 8, 16}, w2[] = {1, 2, 3, 4}, t4[] = {1, 2, 4, 8};

  if (bs == 1)
    for (int l : lanes)
      for (int w : w3) Add(c, "scalar", 1, w, 1, l);
  if (bs <= 5)
    for (int l : lanes) {
      if (l >= 8 && l >= bs * bs)
        for (int w : w5) Add(c, "k1", 1, w, 1, l); /* an element per lane */
      if (l >= 8 && bs > 1)
        for (int w : w5) Add(c, "k1", bs, w, 1, l); /* a column per lane */
    }
  if (bs >= 2 && bs <= 45) {
    const int maxept = bs >= 6 ? 4 : 2;
    for (int ept = 1; ept <= maxept; ept++) {
      const int ntg = (bs + ept - 1) / ept;
      for (int w : w2) {
        if (32 * w < ntg) continue;
        if (w > 1 && 32 * (w - 1) >= ntg && (32 * w) / ntg == (32 * (w - 1)) / ntg) continue; /* more warps without more column groups */
        for (int t : t4)
          if (32 * w * t <= 512) Add(c, "k2", ept, w, t, 0);
      }
    }
  }
  if (bs >= 17)
    for (int ept = 1; ept <= 4; ept++) {
      if (ept > 1 && 32 * (ept - 1) >= bs) continue; /* rows beyond bs only */
      for (int w : w5)
        if (((size_t)w * 2 * bs + (size_t)w * 32 * ept) * 8 <= 48 * 1024) Add(c, "k3", ept, w, 1, 0);
    }
}

static PetscErrorCode SetCandidate(const Candidate &c)
{
  char v[32];

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_kernel", c.kernel));
  PetscCall(PetscSNPrintf(v, sizeof(v), "%d", c.ept));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_ept", v));
  PetscCall(PetscSNPrintf(v, sizeof(v), "%d", c.warps));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_warps", v));
  PetscCall(PetscSNPrintf(v, sizeof(v), "%d", c.teams));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_teams", v));
  PetscCall(PetscSNPrintf(v, sizeof(v), "%d", c.lanes));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_lanes", v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ClearCandidate(void)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_baijksparse_kernel"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_baijksparse_ept"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_baijksparse_warps"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_baijksparse_teams"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_baijksparse_lanes"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MAX_PATTERNS 4

/* "2d5" -> dim 2, 5 points (checked) */
static PetscErrorCode ParsePattern(const char *name, int *dim, int *npt)
{
  PetscFunctionBegin;
  *dim = *npt = 0;
  (void)sscanf(name, "%dd%d", dim, npt);
  PetscCheck((*dim == 2 && (*npt == 5 || *npt == 9)) || (*dim == 3 && (*npt == 7 || *npt == 27)), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown pattern %s: use 2d5, 2d9, 3d7 or 3d27", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stencil matrix of pattern (dim, npt) with scale GiB of values, as MATBAIJKSPARSE, and its vectors */
static PetscErrorCode CreateProblem(int dim, int npt, int bs, double scale, Mat *A, Vec *x, Vec *y, double *bytes, int *mbs)
{
  const bool   box = (dim == 2 && npt == 9) || (dim == 3 && npt == 27);
  const double pts = scale * 1073741824.0 / (npt * (double)bs * bs * 8.0);
  Pattern      P;
  PetscInt    *ia, *ja;
  PetscScalar *va;
  size_t       nvals;

  PetscFunctionBegin;
  StencilPattern(dim, box, std::max(4, (int)std::lround(std::pow(pts, 1.0 / dim))), P);
  nvals = (size_t)P.rowptr[P.mbs] * bs * bs;
  PetscCall(PetscMalloc3(P.mbs + 1, &ia, P.rowptr[P.mbs], &ja, nvals, &va));
  for (int r = 0; r <= P.mbs; r++) ia[r] = P.rowptr[r];
  for (int k = 0; k < P.rowptr[P.mbs]; k++) ja[k] = P.colidx[k];
  for (size_t i = 0; i < nvals; i++) va[i] = 1.0 / (1.0 + (double)(i % 97));
  PetscCall(MatCreateSeqBAIJFromCSR(bs, (PetscInt)P.mbs, (PetscInt)P.nbs, ia, ja, va, A));
  PetscCall(PetscFree3(ia, ja, va));
  PetscCall(MatConvert(*A, MATBAIJKSPARSE, MAT_INPLACE_MATRIX, A));
  PetscCall(MatCreateVecs(*A, x, y));
  PetscCall(VecSet(*x, 1.0));
  *bytes = (double)nvals * 8 + (double)P.rowptr[P.mbs] * 4 + (P.mbs + 1) * 4.0 + 16.0 * P.mbs * bs;
  *mbs   = P.mbs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sum over the problems of the median MatMult() time with the current options (a new choice is made, and the
   values reach the device, in an untimed first product) */
static PetscErrorCode TimeProblems(Timer &T, int np, Mat *A, Vec *x, Vec *y, int warmup, int runs, double *us, double *sum)
{
  PetscFunctionBegin;
  *sum = 0;
  for (int p = 0; p < np; p++) {
    PetscCall(MatSetFromOptions(A[p]));
    PetscCall(MatMult(A[p], x[p], y[p]));
    PetscCall(TimeMedian(
      T, warmup, runs, [&]() { return MatMult(A[p], x[p], y[p]); }, &us[p]));
    *sum += us[p];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       bslist[128], nbs = 128, runs = 10, warmup = 2, npat = MAX_PATTERNS, maxlen = 0;
  PetscReal      scale = 0.25;
  char          *patterns[MAX_PATTERNS], out[PETSC_MAX_PATH_LEN] = "", plist[256] = "", maxcol[16] = "";
  int            dims[MAX_PATTERNS], npts[MAX_PATTERNS];
  PetscBool      flg, all = PETSC_FALSE;
  Timer          T;
  cudaDeviceProp prop;
  FILE          *fp;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bs", bslist, &nbs, &flg));
  if (!flg)
    for (nbs = 0; nbs < 64; nbs++) bslist[nbs] = nbs + 1;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-pattern", patterns, &npat, &flg));
  if (!flg) {
    npat = 2;
    PetscCall(PetscStrallocpy("3d7", &patterns[0]));
    PetscCall(PetscStrallocpy("3d27", &patterns[1]));
  }
  for (PetscInt p = 0; p < npat; p++) {
    PetscCall(ParsePattern(patterns[p], &dims[p], &npts[p]));
    PetscCall(PetscStrlcat(plist, p ? "," : "", sizeof(plist)));
    PetscCall(PetscStrlcat(plist, patterns[p], sizeof(plist)));
  }
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-scale", &scale, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-runs", &runs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxlen", &maxlen, NULL));
  PetscCheck(maxlen >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-maxlen %" PetscInt_FMT " must be >= 0", maxlen);
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-all", &all, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), NULL));
  PetscCall(TimerCreate(T, &prop));
  if (!out[0]) PetscCall(PetscSNPrintf(out, sizeof(out), "share/petscblockgpu/baijksparse_tuning_sm%d%d.txt", prop.major, prop.minor));
  /* the table being written must not steer the runs: candidates are set explicitly, no balancing */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_tuning_file", "none"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_balance", "off"));

  fp = fopen(out, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", out);
  fprintf(fp, "# MATBAIJKSPARSE tuning table: the fastest MatMult() kernel per block size, by bench/tune_baijksparse\n");
  fprintf(fp, "# device %s (sm_%d%d); patterns %s (sum of their times), %.2f GiB of values per matrix, median of %d runs\n", prop.name, prop.major, prop.minor, plist, (double)scale, (int)runs);
  if (maxlen) fprintf(fp, "# lines for matrices whose mean block-row length is at most %d\n", (int)maxlen);
  if (maxlen) snprintf(maxcol, sizeof(maxcol), " %d", (int)maxlen); /* the 7th column of every line */
  fprintf(fp, "# bs kernel ept warps teams lanes%s   # GB/s of the best, GB/s of the built-in default (all patterns)\n", maxlen ? " maxlen" : "");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "tune_baijksparse: device %s (sm_%d%d), patterns %s, writing %s\n", prop.name, prop.major, prop.minor, plist, out));

  for (PetscInt b = 0; b < nbs; b++) {
    const int     bs = (int)bslist[b];
    Mat           A[MAX_PATTERNS];
    Vec           x[MAX_PATTERNS], y[MAX_PATTERNS];
    double        bytes = 0, us[MAX_PATTERNS], sum, best_us = INFINITY, def_us;
    int           mbs[MAX_PATTERNS];
    Candidate     best;
    CandidateList cands;

    best.kernel = "none";
    best.ept = best.warps = best.teams = best.lanes = 0;
    for (PetscInt p = 0; p < npat; p++) {
      double pb;

      PetscCall(CreateProblem(dims[p], npts[p], bs, scale, &A[p], &x[p], &y[p], &pb, &mbs[p]));
      bytes += pb;
    }
    PetscCall(ClearCandidate()); /* the built-in default first */
    PetscCall(TimeProblems(T, (int)npat, A, x, y, (int)warmup, (int)runs, us, &def_us));
    cands.n = 0;
    Candidates(bs, cands);
    for (int ci = 0; ci < cands.n; ci++) {
      const Candidate &c = cands.c[ci];

      PetscCall(SetCandidate(c));
      PetscCall(TimeProblems(T, (int)npat, A, x, y, (int)warmup, (int)runs, us, &sum));
      if (all) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  bs %2d %-6s ept %d warps %2d teams %d lanes %2d:", bs, c.kernel, c.ept, c.warps, c.teams, c.lanes));
        for (PetscInt p = 0; p < npat; p++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %s %7.1f us", patterns[p], us[p]));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "; %7.0f GB/s\n", bytes / (sum * 1e3)));
      }
      if (sum < best_us) {
        best_us = sum;
        best    = c;
      }
    }
    PetscCall(ClearCandidate());
    fprintf(fp, "%d %s %d %d %d %d%s   # %.0f %.0f\n", bs, best.kernel, best.ept, best.warps, best.teams, best.lanes, maxcol, bytes / (best_us * 1e3), bytes / (def_us * 1e3));
    fflush(fp);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "bs %2d: best %-6s ept %d warps %2d teams %d lanes %2d: %7.0f GB/s (built-in default %7.0f GB/s), %d block rows in %s\n", bs, best.kernel, best.ept, best.warps, best.teams, best.lanes, bytes / (best_us * 1e3), bytes / (def_us * 1e3), mbs[0], patterns[0]));
    for (PetscInt p = 0; p < npat; p++) {
      PetscCall(VecDestroy(&x[p]));
      PetscCall(VecDestroy(&y[p]));
      PetscCall(MatDestroy(&A[p]));
    }
  }
  fclose(fp);
  for (PetscInt p = 0; p < npat; p++) PetscCall(PetscFree(patterns[p]));
  PetscCall(BenchTimerDestroy(&T));
  PetscCall(PetscFinalize());
  return 0;
}
