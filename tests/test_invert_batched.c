static char help[] = "Tests PetscBlockGPUInvertBatched() (in-place batched inversion of variable-size blocks on the GPU) against\n"
                     "LAPACK getrf/getri on the host, block by block, and checks its info codes.\n"
                     "  -batch <all|uniform|mixed|illcond|singular|nan|one|maxk_over|gaps|badsize|empty>\n"
                     "        uniform   : for each n of -sizes, -nblocks blocks of size n (maxk = n), contiguous\n"
                     "        mixed     : -nblocks blocks of random sizes 1..-maxk, rows permuted (pivoting needed), gaps between blocks\n"
                     "        illcond   : sizes 1..-maxk, B diag(g) C with g graded over 10 decades (condition ~1e10), rows permuted\n"
                     "        singular  : zero columns (info = column + 1), zero blocks (info 1), zero rows (info > 0), among good blocks\n"
                     "        nan       : blocks holding NaN or Inf (info -1) among good blocks\n"
                     "        one       : 1 x 1 blocks (maxk 1) over 400 decades of magnitude, with zeros and NaN\n"
                     "        maxk_over : maxk 32 but every block of size -n (default 3): blocks smaller than the kernel's sub-warp\n"
                     "        badsize   : maxk -maxk (default 5) with blocks of size maxk+1, 40 and -1 among good ones: info -2, left as they were\n"
                     "        empty     : no blocks\n"
                     "        all       : uniform, mixed, illcond, singular, nan, one, maxk_over (not badsize)\n"
                     "  -sizes <1,...,32>, -nblocks <n>, -maxk <k>, -n <k>, -seed <s>\n"
                     "  -uniform_call : call with NULL sizes (every block maxk x maxk; the batch must be uniform), and NULL offsets\n"
                     "        when the blocks are packed back to back (uniform, one); with gaps (one) the offsets are passed\n"
                     "  -error_case <maxk_large|maxk_negative|nblocks_negative|null_offsets> : a call that must fail with a PETSc error\n"
                     "Every block whose info must be 0 is compared with LAPACK: ||X - Xref||_F / ||Xref||_F <= 100 k eps cond_F(A)\n"
                     "(cond_F = ||A||_F ||Xref||_F), and, for the well-conditioned kinds, also <= 1e-10 with the residual\n"
                     "||A X - I||_F / (||A||_F ||X||_F) <= 100 k eps. A block with info != 0, and the gaps between blocks, must be\n"
                     "left untouched; d_info is poisoned before every call. Needs a CUDA device (the runner skips it without one).\n";

#include <petscblockgpu.h>
#include <petscblaslapack.h>
#include <petscdevice_cuda.h>
#include <math.h>
#include <string.h>
#include <stdint.h>

typedef enum {
  KIND_RANDOM,    /* diagonally dominant: well conditioned, no pivoting needed */
  KIND_PIVOT,     /* dominant on a random row permutation: implicit pivoting must find it */
  KIND_ILLCOND,   /* B diag(g) C, rows permuted, cond ~ 1e10 */
  KIND_ZEROCOL,   /* a zero column c: info c + 1 exactly */
  KIND_ZEROBLOCK, /* all zero: info 1 */
  KIND_ZEROROW,   /* a zero row (stays exactly zero, never a pivot): info > 0 */
  KIND_NAN,       /* one NaN entry: info -1 */
  KIND_INF,       /* one Inf entry: info -1 */
  KIND_BADSIZE    /* size outside 0..maxk: info -2 */
} Kind;
static const char *const KindNames[] = {"random", "pivot", "illcond", "zerocol", "zeroblock", "zerorow", "nan", "inf", "badsize"};

#define INFO_ANY_POSITIVE PETSC_INT_MAX
#define INFO_SENTINEL     (-777)
#define GAP_VALUE         12345.678

typedef struct {
  PetscInt     nb, maxk;
  PetscInt    *sizes;   /* [nb] */
  PetscInt64  *offsets; /* [nb] */
  PetscInt64   len;     /* entries of the storage, gaps included */
  PetscScalar *A;       /* the blocks as given (gaps hold GAP_VALUE) */
  PetscInt64  *room;    /* [nb] entries reserved at offsets[b] (k^2, or more for bad sizes) */
  Kind        *kind;    /* [nb] */
  PetscInt    *expect;  /* [nb] expected info (INFO_ANY_POSITIVE: any value > 0) */
} Batch;

/* ---------------------------------------------------------------------------------------------- random numbers */
static uint64_t rng_state;
static double   Unif(void) /* in [0, 1) (splitmix64) */
{
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z          = z ^ (z >> 31);
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}
static PetscInt RandInt(PetscInt lo, PetscInt hi) /* in [lo, hi] */
{
  PetscInt v = lo + (PetscInt)(Unif() * (double)(hi - lo + 1));
  return PetscMin(v, hi);
}
static void RandPerm(PetscInt k, PetscInt *perm)
{
  for (PetscInt i = 0; i < k; i++) perm[i] = i;
  for (PetscInt i = k - 1; i > 0; i--) {
    PetscInt j = RandInt(0, i), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

/* ---------------------------------------------------------------------------------------------- block generators */
/* k x k column-major at a */
static void GenDominant(PetscInt k, PetscScalar *a, PetscBool permute)
{
  PetscInt perm[PC_VBJACOBI_MAX_BLOCK_SIZE];

  for (PetscInt e = 0; e < k * k; e++) a[e] = 2.0 * Unif() - 1.0;
  if (permute) RandPerm(k, perm);
  else
    for (PetscInt i = 0; i < k; i++) perm[i] = i;
  for (PetscInt j = 0; j < k; j++) { /* column j's largest entry, by far, is in row perm[j] */
    PetscInt i = perm[j];
    a[i + j * k] += (a[i + j * k] >= 0 ? 1.0 : -1.0) * (PetscReal)(k + 1);
  }
}

static void GenIllConditioned(PetscInt k, PetscScalar *a)
{
  PetscScalar B[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE], C[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE];
  PetscInt    perm[PC_VBJACOBI_MAX_BLOCK_SIZE];

  /* B, C = I + R/(2k) with |R| < 1: well conditioned; g from 1 down to 1e-10 */
  for (PetscInt e = 0; e < k * k; e++) {
    B[e] = (2.0 * Unif() - 1.0) / (2.0 * k);
    C[e] = (2.0 * Unif() - 1.0) / (2.0 * k);
  }
  for (PetscInt i = 0; i < k; i++) {
    B[i + i * k] += 1.0;
    C[i + i * k] += 1.0;
  }
  RandPerm(k, perm);
  for (PetscInt i = 0; i < k; i++)
    for (PetscInt j = 0; j < k; j++) {
      PetscScalar s = 0.0;
      for (PetscInt l = 0; l < k; l++) s += B[perm[i] + l * k] * (k > 1 ? PetscPowReal(10.0, -10.0 * (PetscReal)l / (PetscReal)(k - 1)) : 1.0) * C[l + j * k];
      a[i + j * k] = s;
    }
}

/* ---------------------------------------------------------------------------------------------- batches */
static PetscErrorCode BatchCreate(PetscInt nb, PetscInt maxk, Batch *B)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(B, sizeof(*B)));
  B->nb   = nb;
  B->maxk = maxk;
  PetscCall(PetscMalloc5(nb, &B->sizes, nb, &B->offsets, nb, &B->room, nb, &B->kind, nb, &B->expect));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BatchDestroy(Batch *B)
{
  PetscFunctionBegin;
  PetscCall(PetscFree5(B->sizes, B->offsets, B->room, B->kind, B->expect));
  PetscCall(PetscFree(B->A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After sizes[] and kind[] are set: lays the blocks out (with random gaps of 0..3 entries when gaps) and fills them */
static PetscErrorCode BatchFill(Batch *B, PetscBool gaps)
{
  PetscInt64 off = 0;

  PetscFunctionBegin;
  for (PetscInt b = 0; b < B->nb; b++) {
    const PetscInt k = B->sizes[b];

    off += gaps ? RandInt(0, 3) : 0;
    B->offsets[b] = off;
    B->room[b]    = B->kind[b] == KIND_BADSIZE ? (k > 0 ? (PetscInt64)k * k : 4) : (PetscInt64)k * k;
    off += B->room[b];
  }
  B->len = off + (gaps ? 3 : 0);
  PetscCall(PetscMalloc1(PetscMax(B->len, 1), &B->A));
  for (PetscInt64 e = 0; e < B->len; e++) B->A[e] = GAP_VALUE;
  for (PetscInt b = 0; b < B->nb; b++) {
    const PetscInt k = B->sizes[b];
    PetscScalar   *a = B->A + B->offsets[b];

    switch (B->kind[b]) {
    case KIND_RANDOM:
      GenDominant(k, a, PETSC_FALSE);
      B->expect[b] = 0;
      break;
    case KIND_PIVOT:
      GenDominant(k, a, PETSC_TRUE);
      B->expect[b] = 0;
      break;
    case KIND_ILLCOND:
      GenIllConditioned(k, a);
      B->expect[b] = 0;
      break;
    case KIND_ZEROCOL: {
      PetscInt c = RandInt(0, k - 1);

      GenDominant(k, a, PETSC_TRUE);
      for (PetscInt i = 0; i < k; i++) a[i + c * k] = 0.0;
      B->expect[b] = c + 1;
    } break;
    case KIND_ZEROBLOCK:
      for (PetscInt e = 0; e < k * k; e++) a[e] = 0.0;
      B->expect[b] = 1;
      break;
    case KIND_ZEROROW: { /* (two equal rows would not do: rounding leaves a remainder that may pass the tiny test) */
      PetscInt r = RandInt(0, k - 1);

      GenDominant(k, a, PETSC_TRUE);
      for (PetscInt j = 0; j < k; j++) a[r + j * k] = 0.0;
      B->expect[b] = INFO_ANY_POSITIVE;
    } break;
    case KIND_NAN:
    case KIND_INF:
      GenDominant(k, a, PETSC_TRUE);
      a[RandInt(0, k * k - 1)] = B->kind[b] == KIND_NAN ? (PetscScalar)NAN : (PetscScalar)(RandInt(0, 1) ? INFINITY : -INFINITY);
      B->expect[b]             = -1;
      break;
    case KIND_BADSIZE:
      for (PetscInt64 e = 0; e < B->room[b]; e++) a[e] = 2.0 * Unif() - 1.0;
      B->expect[b] = -2;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- reference and checks */
static PetscErrorCode InvertLAPACK(PetscInt k, const PetscScalar *a, PetscScalar *x, PetscBool *ok)
{
  PetscBLASInt n, info, lwork, ipiv[PC_VBJACOBI_MAX_BLOCK_SIZE];
  PetscScalar  work[64 * PC_VBJACOBI_MAX_BLOCK_SIZE];

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(k, &n));
  lwork = 64 * PC_VBJACOBI_MAX_BLOCK_SIZE;
  PetscCall(PetscArraycpy(x, a, k * k));
  PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&n, &n, x, &n, ipiv, &info));
  *ok = info ? PETSC_FALSE : PETSC_TRUE;
  if (info) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallBLAS("LAPACKgetri", LAPACKgetri_(&n, x, &n, ipiv, work, &lwork, &info));
  *ok = info ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal NormF(PetscInt m, const PetscScalar *a) /* scaled, so that 1e200 entries do not overflow */
{
  PetscReal s = 0.0, amax = 0.0;

  for (PetscInt e = 0; e < m; e++) amax = PetscMax(amax, PetscAbsScalar(a[e]));
  if (amax == 0.0) return 0.0;
  for (PetscInt e = 0; e < m; e++) s += PetscSqr(PetscAbsScalar(a[e]) / amax);
  return amax * PetscSqrtReal(s);
}

typedef struct {
  PetscInt  nfail, nchecked, ninfo[4]; /* ninfo: blocks with info 0, > 0, -1, -2 */
  PetscReal maxerr, maxerr_over_bound, maxres;
} Stats;

static PetscErrorCode Fail(Stats *S, const char *batch, PetscInt b, const Batch *B, const char *what)
{
  PetscFunctionBegin;
  if (S->nfail < 20) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL [%s] block %" PetscInt_FMT " (size %" PetscInt_FMT ", %s): %s\n", batch, b, B->sizes[b], KindNames[B->kind[b]], what));
  S->nfail++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compares the result X (same layout as B->A) and the info codes with the references */
static PetscErrorCode CheckBatch(const char *batch, const Batch *B, const PetscScalar *X, const PetscInt *info, Stats *S)
{
  const PetscReal eps = PETSC_MACHINE_EPSILON;
  PetscScalar     ref[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE], R[PC_VBJACOBI_MAX_BLOCK_SIZE * PC_VBJACOBI_MAX_BLOCK_SIZE];
  char            msg[256];
  PetscInt64      end = 0;

  PetscFunctionBegin;
  for (PetscInt b = 0; b < B->nb; b++) {
    const PetscInt     k = B->sizes[b], want = B->expect[b], got = info[b];
    const PetscScalar *a = B->A + B->offsets[b], *x = X + B->offsets[b];

    /* gaps before this block untouched */
    for (PetscInt64 e = end; e < B->offsets[b]; e++)
      if (X[e] != GAP_VALUE) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "the gap entry %" PetscInt64_FMT " before this block was overwritten", e));
        PetscCall(Fail(S, batch, b, B, msg));
        break;
      }
    end = B->offsets[b] + B->room[b];
    S->nchecked++;
    if (got == INFO_SENTINEL) {
      PetscCall(Fail(S, batch, b, B, "d_info was not written (still the sentinel)"));
      continue;
    }
    S->ninfo[got == 0 ? 0 : got > 0 ? 1 : got == -1 ? 2 : 3]++;
    if (want == INFO_ANY_POSITIVE ? !(got > 0) : got != want) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "info %" PetscInt_FMT ", expected %s%" PetscInt_FMT, got, want == INFO_ANY_POSITIVE ? "> " : "", want == INFO_ANY_POSITIVE ? 0 : want));
      PetscCall(Fail(S, batch, b, B, msg));
      continue;
    }
    if (want != 0) { /* a failed block is left as it was (NaN compared by bits) */
      if (memcmp(a, x, sizeof(PetscScalar) * B->room[b])) PetscCall(Fail(S, batch, b, B, "a block with info != 0 was modified"));
      continue;
    }
    {
      PetscBool ok = PETSC_FALSE;
      PetscReal nA = NormF(k * k, a), nR, nX = NormF(k * k, x), err, condF, bound, res;

      PetscCall(InvertLAPACK(k, a, ref, &ok));
      if (!ok) {
        PetscCall(Fail(S, batch, b, B, "LAPACK finds the block singular (test generator problem)"));
        continue;
      }
      nR = NormF(k * k, ref);
      for (PetscInt e = 0; e < k * k; e++) R[e] = x[e] - ref[e];
      err   = NormF(k * k, R) / nR;
      condF = nA * nR;
      bound = 100.0 * k * eps * condF;
      if (!(err <= bound)) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "||X - Xref||/||Xref|| = %g exceeds 100 k eps cond_F = %g (cond_F %g)", (double)err, (double)bound, (double)condF));
        PetscCall(Fail(S, batch, b, B, msg));
      }
      S->maxerr            = PetscMax(S->maxerr, err);
      S->maxerr_over_bound = PetscMax(S->maxerr_over_bound, err / bound);
      if (B->kind[b] == KIND_RANDOM || B->kind[b] == KIND_PIVOT) {
        if (!(err <= 1e-10)) {
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "||X - Xref||/||Xref|| = %g exceeds 1e-10 for a well-conditioned block", (double)err));
          PetscCall(Fail(S, batch, b, B, msg));
        }
        for (PetscInt i = 0; i < k; i++) /* R = A X - I */
          for (PetscInt j = 0; j < k; j++) {
            PetscScalar s = (i == j) ? -1.0 : 0.0;
            for (PetscInt l = 0; l < k; l++) s += a[i + l * k] * x[l + j * k];
            R[i + j * k] = s;
          }
        res = NormF(k * k, R) / (nA * nX);
        if (!(res <= 100.0 * k * eps)) {
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "residual ||AX - I||/(||A|| ||X||) = %g exceeds 100 k eps = %g", (double)res, (double)(100.0 * k * eps)));
          PetscCall(Fail(S, batch, b, B, msg));
        }
        S->maxres = PetscMax(S->maxres, res);
      }
    }
  }
  for (PetscInt64 e = end; e < B->len; e++)
    if (X[e] != GAP_VALUE) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL [%s] the gap entry %" PetscInt64_FMT " after the last block was overwritten\n", batch, e));
      S->nfail++;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool uniform_call = PETSC_FALSE; /* -uniform_call */

/* Uploads the batch, poisons d_info, inverts on the GPU, downloads, checks */
static PetscErrorCode RunBatch(const char *batch, Batch *B, PetscInt *nfail_total)
{
  PetscInt    *d_sizes = NULL, *d_info = NULL, *info;
  PetscInt64  *d_offsets = NULL;
  PetscScalar *d_blocks  = NULL, *X;
  Stats        S;
  PetscInt     kmin = PETSC_INT_MAX, kmax = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&S, sizeof(S)));
  PetscCall(PetscMalloc2(PetscMax(B->len, 1), &X, PetscMax(B->nb, 1), &info));
  for (PetscInt b = 0; b < B->nb; b++) info[b] = INFO_SENTINEL;
  if (B->nb) {
    PetscCallCUDA(cudaMalloc((void **)&d_sizes, sizeof(PetscInt) * B->nb));
    PetscCallCUDA(cudaMalloc((void **)&d_offsets, sizeof(PetscInt64) * B->nb));
    PetscCallCUDA(cudaMalloc((void **)&d_info, sizeof(PetscInt) * B->nb));
    PetscCallCUDA(cudaMalloc((void **)&d_blocks, sizeof(PetscScalar) * PetscMax(B->len, 1)));
    PetscCallCUDA(cudaMemcpy(d_sizes, B->sizes, sizeof(PetscInt) * B->nb, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(d_offsets, B->offsets, sizeof(PetscInt64) * B->nb, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(d_info, info, sizeof(PetscInt) * B->nb, cudaMemcpyHostToDevice)); /* poison */
    PetscCallCUDA(cudaMemcpy(d_blocks, B->A, sizeof(PetscScalar) * B->len, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaDeviceSynchronize()); /* the copies are done before work on PETSc's stream, whatever its kind */
  }
  if (uniform_call) { /* the uniform form of the call: no sizes; no offsets either when the blocks are packed */
    PetscBool packed = PETSC_TRUE;

    for (PetscInt b = 0; b < B->nb; b++) {
      PetscCheck(B->sizes[b] == B->maxk, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-uniform_call needs a uniform batch: block %" PetscInt_FMT " has size %" PetscInt_FMT ", maxk %" PetscInt_FMT, b, B->sizes[b], B->maxk);
      if (B->offsets[b] != (PetscInt64)b * B->maxk * B->maxk) packed = PETSC_FALSE;
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-10s uniform call: NULL sizes, %s offsets\n", batch, packed ? "NULL" : "given"));
    PetscCall(PetscBlockGPUInvertBatched(B->nb, B->maxk, NULL, packed ? NULL : d_offsets, d_blocks, d_info));
  } else PetscCall(PetscBlockGPUInvertBatched(B->nb, B->maxk, d_sizes, d_offsets, d_blocks, d_info));
  if (B->nb) {
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCallCUDA(cudaMemcpy(X, d_blocks, sizeof(PetscScalar) * B->len, cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(info, d_info, sizeof(PetscInt) * B->nb, cudaMemcpyDeviceToHost));
  }
  PetscCall(CheckBatch(batch, B, X, info, &S));
  for (PetscInt b = 0; b < B->nb; b++) {
    kmin = PetscMin(kmin, B->sizes[b]);
    kmax = PetscMax(kmax, B->sizes[b]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-10s maxk %2" PetscInt_FMT ": %6" PetscInt_FMT " blocks of sizes %" PetscInt_FMT "..%" PetscInt_FMT "; info 0/>0/-1/-2: %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "; max rel err vs LAPACK %.2e (%.2e of its bound), max residual %.2e: %s\n", batch, B->maxk, B->nb, B->nb ? kmin : 0, kmax, S.ninfo[0], S.ninfo[1], S.ninfo[2], S.ninfo[3],
                        (double)S.maxerr, (double)S.maxerr_over_bound, (double)S.maxres, S.nfail ? "FAILED" : "ok"));
  *nfail_total += S.nfail;
  PetscCallCUDA(cudaFree(d_sizes));
  PetscCallCUDA(cudaFree(d_offsets));
  PetscCallCUDA(cudaFree(d_info));
  PetscCallCUDA(cudaFree(d_blocks));
  PetscCall(PetscFree2(X, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- the batches */
static PetscErrorCode TestUniform(PetscInt nsizes, const PetscInt *sizes, PetscInt nb, PetscInt *nfail)
{
  PetscFunctionBegin;
  for (PetscInt s = 0; s < nsizes; s++) {
    Batch B;
    char  name[32];

    PetscCall(BatchCreate(nb, sizes[s], &B));
    for (PetscInt b = 0; b < nb; b++) {
      B.sizes[b] = sizes[s];
      B.kind[b]  = b % 2 ? KIND_PIVOT : KIND_RANDOM;
    }
    PetscCall(BatchFill(&B, PETSC_FALSE));
    PetscCall(PetscSNPrintf(name, sizeof(name), "uniform%" PetscInt_FMT, sizes[s]));
    PetscCall(RunBatch(name, &B, nfail));
    PetscCall(BatchDestroy(&B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* nb blocks of random sizes 1..maxk, kinds drawn from kinds[] (cyclically), with gaps */
static PetscErrorCode TestMixed(const char *name, PetscInt nb, PetscInt maxk, PetscInt nkinds, const Kind *kinds, PetscInt *nfail)
{
  Batch B;

  PetscFunctionBegin;
  PetscCall(BatchCreate(nb, maxk, &B));
  for (PetscInt b = 0; b < nb; b++) {
    B.kind[b]  = kinds[b % nkinds];
    B.sizes[b] = RandInt(1, maxk);
  }
  if (nb) B.sizes[nb - 1] = maxk; /* the largest size is always present */
  PetscCall(BatchFill(&B, PETSC_TRUE));
  PetscCall(RunBatch(name, &B, nfail));
  PetscCall(BatchDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestOne(PetscInt nb, PetscInt *nfail)
{
  Batch B;

  PetscFunctionBegin;
  PetscCall(BatchCreate(nb, 1, &B));
  for (PetscInt b = 0; b < nb; b++) {
    B.sizes[b] = 1;
    B.kind[b]  = b % 17 == 5 ? KIND_ZEROBLOCK : b % 23 == 7 ? KIND_NAN : b % 29 == 3 ? KIND_INF : KIND_RANDOM;
  }
  PetscCall(BatchFill(&B, PETSC_TRUE));
  for (PetscInt b = 0; b < nb; b++) /* magnitudes 1e-200 .. 1e200, both signs */
    if (B.kind[b] == KIND_RANDOM) B.A[B.offsets[b]] = (Unif() < 0.5 ? -1.0 : 1.0) * (1.0 + Unif()) * PetscPowReal(10.0, (PetscReal)RandInt(-200, 200));
  PetscCall(RunBatch("one", &B, nfail));
  PetscCall(BatchDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMaxkOver(PetscInt nb, PetscInt n, PetscInt *nfail)
{
  Batch B;

  PetscFunctionBegin;
  PetscCall(BatchCreate(nb, PC_VBJACOBI_MAX_BLOCK_SIZE, &B));
  for (PetscInt b = 0; b < nb; b++) {
    B.sizes[b] = n;
    B.kind[b]  = b % 2 ? KIND_PIVOT : KIND_RANDOM;
  }
  PetscCall(BatchFill(&B, PETSC_FALSE));
  PetscCall(RunBatch("maxk_over", &B, nfail));
  PetscCall(BatchDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestBadSize(PetscInt nb, PetscInt maxk, PetscInt *nfail)
{
  Batch          B;
  const PetscInt bad[3] = {maxk + 1, 40, -1};

  PetscFunctionBegin;
  nb = PetscMax(nb, 8);
  PetscCall(BatchCreate(nb, maxk, &B));
  for (PetscInt b = 0; b < nb; b++) {
    if (b % 4 == 1) {
      B.kind[b]  = KIND_BADSIZE;
      B.sizes[b] = bad[(b / 4) % 3];
    } else {
      B.kind[b]  = KIND_PIVOT;
      B.sizes[b] = RandInt(1, maxk);
    }
  }
  PetscCall(BatchFill(&B, PETSC_TRUE));
  PetscCall(RunBatch("badsize", &B, nfail));
  PetscCall(BatchDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestEmpty(PetscInt *nfail)
{
  Batch B;

  PetscFunctionBegin;
  PetscCall(BatchCreate(0, 8, &B));
  PetscCall(BatchFill(&B, PETSC_FALSE));
  PetscCall(RunBatch("empty", &B, nfail));
  PetscCall(BatchDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Calls that must fail with a PETSc error (the program then exits non-zero) */
static PetscErrorCode ErrorCase(const char *which)
{
  PetscInt    *d_sizes, *d_info, one = 1;
  PetscInt64  *d_offsets, zero = 0;
  PetscScalar *d_blocks, v     = 2.0;
  PetscBool    large, negative, nbneg, nulloff;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(which, "maxk_large", &large));
  PetscCall(PetscStrcmp(which, "maxk_negative", &negative));
  PetscCall(PetscStrcmp(which, "nblocks_negative", &nbneg));
  PetscCall(PetscStrcmp(which, "null_offsets", &nulloff));
  PetscCheck(large || negative || nbneg || nulloff, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -error_case %s", which);
  PetscCallCUDA(cudaMalloc((void **)&d_sizes, sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&d_offsets, sizeof(PetscInt64)));
  PetscCallCUDA(cudaMalloc((void **)&d_info, sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&d_blocks, sizeof(PetscScalar)));
  PetscCallCUDA(cudaMemcpy(d_sizes, &one, sizeof(PetscInt), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(d_offsets, &zero, sizeof(PetscInt64), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(d_blocks, &v, sizeof(PetscScalar), cudaMemcpyHostToDevice));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "error case %s: calling PetscBlockGPUInvertBatched(nblocks %d, maxk %d), which must fail\n", which, nbneg ? -1 : 1, large ? PC_VBJACOBI_MAX_BLOCK_SIZE + 1 : negative ? -1 : 1));
  PetscCall(PetscBlockGPUInvertBatched(nbneg ? -1 : 1, large ? PC_VBJACOBI_MAX_BLOCK_SIZE + 1 : negative ? -1 : 1, d_sizes, nulloff ? NULL : d_offsets, d_blocks, d_info));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "error case %s: the call returned without an error\n", which));
  PetscCallCUDA(cudaFree(d_sizes));
  PetscCallCUDA(cudaFree(d_offsets));
  PetscCallCUDA(cudaFree(d_info));
  PetscCallCUDA(cudaFree(d_blocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        batch[32] = "all", errcase[64]            = "";
  PetscInt    sizes[PC_VBJACOBI_MAX_BLOCK_SIZE], nsizes = PC_VBJACOBI_MAX_BLOCK_SIZE, nb = 300, maxk = 32, n = 3, seed = 0, nfail = 0, ndev_int;
  PetscBool   all, flg, errflg;
  int         ndev = 0;
  cudaError_t cerr;
  const Kind  good[]     = {KIND_RANDOM, KIND_PIVOT};
  const Kind  ill[]      = {KIND_ILLCOND};
  const Kind  singular[] = {KIND_PIVOT, KIND_ZEROCOL, KIND_RANDOM, KIND_ZEROBLOCK, KIND_PIVOT, KIND_ZEROROW};
  const Kind  nans[]     = {KIND_PIVOT, KIND_NAN, KIND_RANDOM, KIND_INF};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-batch", batch, sizeof(batch), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-error_case", errcase, sizeof(errcase), &errflg));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &flg));
  if (!flg) /* PETSc sets the count to 0 when the option is absent */
    for (nsizes = 0; nsizes < PC_VBJACOBI_MAX_BLOCK_SIZE; nsizes++) sizes[nsizes] = nsizes + 1;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nblocks", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxk", &maxk, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-uniform_call", &uniform_call, NULL));
  PetscCheck(nb >= 0 && maxk >= 1 && maxk <= PC_VBJACOBI_MAX_BLOCK_SIZE && n >= 1 && n <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need -nblocks >= 0 and -maxk, -n in 1..%d", PC_VBJACOBI_MAX_BLOCK_SIZE);
  for (PetscInt i = 0; i < nsizes; i++) PetscCheck(sizes[i] >= 1 && sizes[i] <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sizes: %" PetscInt_FMT " is outside 1..%d", sizes[i], PC_VBJACOBI_MAX_BLOCK_SIZE);
  rng_state = 0x1234567ULL + 7919ULL * (uint64_t)seed;

  /* a GPU is required: the runner skips this program's cases (--gpu) where there is none */
  cerr = cudaGetDeviceCount(&ndev);
  if (cerr != cudaSuccess) (void)cudaGetLastError();
  ndev_int = ndev;
  PetscCheck(cerr == cudaSuccess && ndev > 0, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "test_invert_batched needs a CUDA device, and none is usable (%s, %" PetscInt_FMT " devices)", cerr == cudaSuccess ? "no error" : cudaGetErrorString(cerr), ndev_int);
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));

  if (errflg) {
    PetscCall(ErrorCase(errcase));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscStrcmp(batch, "all", &all));
#define IS(name) (all || !strcmp(batch, name))
  {
    PetscBool   known   = PETSC_FALSE;
    const char *names[] = {"all", "uniform", "mixed", "illcond", "singular", "nan", "one", "maxk_over", "gaps", "badsize", "empty"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
      if (!strcmp(batch, names[i])) known = PETSC_TRUE;
    PetscCheck(known, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -batch %s", batch);
  }
  if (IS("uniform")) PetscCall(TestUniform(nsizes, sizes, nb, &nfail));
  if (IS("mixed") || IS("gaps")) PetscCall(TestMixed("mixed", 10 * nb, maxk, 2, good, &nfail));
  if (all) PetscCall(TestMixed("mixed4", 10 * nb, 4, 2, good, &nfail));
  if (IS("illcond")) PetscCall(TestMixed("illcond", 2 * nb, maxk, 1, ill, &nfail));
  if (IS("singular")) PetscCall(TestMixed("singular", 2 * nb, maxk, 6, singular, &nfail));
  if (IS("nan")) PetscCall(TestMixed("nan", 2 * nb, maxk, 4, nans, &nfail));
  if (IS("one")) PetscCall(TestOne(10 * nb, &nfail));
  if (IS("maxk_over")) PetscCall(TestMaxkOver(nb, n, &nfail));
  if (!all && !strcmp(batch, "badsize")) PetscCall(TestBadSize(nb, maxk == 32 ? 5 : maxk, &nfail));
  if (IS("empty")) PetscCall(TestEmpty(&nfail));
#undef IS
  PetscCheck(!nfail, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " checks failed", nfail);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
