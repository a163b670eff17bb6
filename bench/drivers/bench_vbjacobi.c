/*
  NAME
    bench_vbjacobi - setup and apply of PCVBJACOBI on the GPU against PETSc's vpbjacobi, pbjacobi and jacobi

  SYNOPSIS
    bench_vbjacobi [-n ROWS] [-maxbs LIST] [-patterns LIST] [-precisions LIST] [-reps N] [-warmup N] [-resetup_reps N]
                   [-baijksparse <bool>] [-triad_n N] [-f FILE[:BS],...] [-matrices DIR] [-o CSV] [-host]

  DESCRIPTION
    For each of the paper's four sparsity patterns, at about ROWS rows (default 1000000) and for each maximum
    block size m of LIST (default 1,2,4,8,12,16,24,32), builds a matrix (aijcusparse) whose diagonal blocks are
    dense and have sizes 1..m:
      arrow      block diagonal with random block sizes in [1, m], plus a full first row and column (row 0 is a
                 block of its own): the longest possible row
      tridiag    block tridiagonal, dense blocks, every block of size m
      blockdiag  block diagonal, random block sizes in [1, m]
      laplace    2-D 5-point Laplace on a square grid with m unknowns per grid point (dense m x m couplings)
    Then, in the same process and on the same matrix and blocks:
      vbjacobi   -pc_type vbjacobi, the blocks found by its own detection of natural supervariables (capped at m)
      vpbjacobi  PETSc's PCVPBJACOBI with the same blocks given by MatSetVariableBlockSizes()
      pbjacobi   PETSc's PCPBJACOBI with the matrix block size m (uniform patterns only)
      jacobi     PETSc's PCJACOBI
    and, for the uniform patterns, vbjacobi again on the same matrix as baijksparse (block size m).
    The reference bandwidth ('triad') is measured in the same run on raw device arrays of -triad_n entries (default
    2^25, far beyond the L2 cache): a = b + s c, 24 bytes an entry (bench/common/bench_util.h). PETSc's VecWAXPY and
    VecPointwiseMult rates (the same 24 bytes an entry counted) are in the CSV beside it, for reference only.
    'same' is the fraction of the same triad run on vectors that move as many bytes as the vbjacobi apply of the
    problem (the bandwidth a streaming kernel of that size reaches, launch and ramp included).
    A small untimed pass over the PCs and block sizes comes first (GPU runs), so that the one-time costs of the
    process (CUDA loads each kernel on its first use) fall on no timed setup; its first setups are printed.
    Timed: the first PCSetUp() (vbjacobi: detection + extraction + inversion; the matrix values current on host
    and device before it), a re-setup after new values (MatScale(), which aijcusparse does on the device, so that
    a PC that sets up on the host pays for copying them back; the best of -resetup_reps), and PCApply(): the median of -reps applies after -warmup ones, each
    between CUDA events on PETSc's stream, and the mean of -reps applies queued back to back; both on the same x and
    y, which then stay in the L2 cache as far as the PC's own reads leave them there (as in a Krylov method, where x
    was just written by the previous kernel). 'cold': the median of -reps single applies, each after a read of 256 MB
    of a vector of its own has evicted the L2 cache, so that neither the vectors nor the inverses are in it.
    Reported: the apply bandwidth, counting 8*sum(k^2) bytes of inverses plus 16*n bytes of vectors (x read, y
    written; jacobi: 8n of inverse diagonal), its fraction of the reference bandwidth, the setup speedups of
    vbjacobi over vpbjacobi, the apply speed of each PC relative to vpbjacobi, the blocks vbjacobi found against
    the blocks built, and the largest relative difference between the outputs of vbjacobi and vpbjacobi. Where
    vbjacobi ran on both aijcusparse and baijksparse, a line gives the ratio of their re-setups after MatScale
    (issue 11: at most 1.2x) and the bytes PETSc's counters saw move between host and device in MatScale + re-setup.
    With -f (a comma-separated list of PETSc binary files, each optionally :BS) or -matrices DIR (the
    MANIFEST.tsv of conf/fetch-matrices.sh), the same on real matrices: vbjacobi's blocks (matrix block size
    when BS > 1, else supervariables) are then given to vpbjacobi.
    Detection: with -detect_maxbs LIST (default 8,16,32; an empty list skips it), the time of the block detection
    alone (the VBJacDetect event of -log_view: device kernels + the one synchronization) at about ROWS rows, natural
    supervariables against merged ones (the paper's blocking; -pc_vbjacobi_blocking natural / supervariable), the
    median of 5 first setups each, on the laplace pattern with 1 unknown per point (every row its own supervariable:
    the most units to merge) and on blockdiag (random natural blocks 1..m, merged up to m).
    A table goes to stdout and, with -o, every measurement to a CSV file; bench/plots/plot_vbjacobi.py plots it.
    With -check, the program fails when vbjacobi found other blocks than those built, or when its output differs
    from vpbjacobi's by more than 1e-10 (relative, max norm): a test of the numbers, not of the speed.
    Precision axis (issue 14): with -precisions LIST (default double,single,half,adaptive; 'double' alone leaves it
    out), vbjacobi on the aij matrix again with the inverses stored in each other precision (-pc_vbjacobi_precision):
    rows 'vbjacobi' with matrix '<type>/<precision>'. Their bytes count the inverses as stored (4 or 2 bytes an entry,
    the adaptive mix) plus the per-block scale (2 bytes) and type (adaptive, 1 byte) they read, plus 16n of vectors; 'same'
    is measured with a triad of those bytes; a line per problem gives each precision's apply time against double's
    ('x double'; issue 14: single >= 1.8x, half >= 3x at maximum block size >= 8, single >= 85% of 'same') and the
    byte ratio that bounds it. Their outputs are checked against vpbjacobi's to 1e-10 + 64 u of the type (adaptive: of
    half). The CSV gets the columns precision, stored_bytes and apply_speedup_vs_double.
    With -host, everything runs on the host (aij/baij, host vectors, PetscTime): a check of the program on a
    machine without GPU, not a benchmark.

  EXAMPLES
    bench_vbjacobi -o bench/results/vbjacobi.csv -matrices tests/data/matrices
    bench_vbjacobi -n 200000 -maxbs 8,32 -patterns laplace -reps 50
*/
static char help[] = "Benchmark of PCVBJACOBI (GPU) against PETSc's vpbjacobi, pbjacobi and jacobi.\n"
                     "  -n <rows>              rows of the synthetic matrices (default 1000000)\n"
                     "  -maxbs <list>          maximum block sizes (default 1,2,4,8,12,16,24,32)\n"
                     "  -patterns <list>       arrow,tridiag,blockdiag,laplace (default all)\n"
                     "  -reps <n>              timed applies (default 30); -warmup <n> (default 3)\n"
                     "  -resetup_reps <n>      re-setups after new values, the best is reported (default 2)\n"
                     "  -baijksparse <bool>    also vbjacobi on baijksparse for uniform patterns (default true)\n"
                     "  -triad_n <n>           entries of the triad vectors (default 33554432)\n"
                     "  -f <file[:bs],...>     real matrices (PETSc binary); -matrices <dir> reads DIR/MANIFEST.tsv\n"
                     "  -o <file.csv>          write every measurement as CSV\n"
                     "  -precisions <list>     storage precisions of the vbjacobi inverses (default double,single,half,adaptive)\n"
                     "  -detect_maxbs <list>   bounds of the detection timing, natural vs merged supervariables (default 8,16,32)\n"
                     "  -check                 fail when vbjacobi's blocks or outputs differ from the reference\n"
                     "  -host                  run on the host (a functional check without GPU)\n"
                     "  -warmup_pass <bool>    the untimed first pass at 20000 rows (default true; false puts the first kernels of\n"
                     "                         the process in the tables, e.g. for a profiler that picks kernels by launch count)\n\n";

#include <petscksp.h>
#include <petscdevice_cuda.h>
#include <petscblockgpu.h>
#include <cuda_runtime.h>
#include "bench_util.h"

#define MAXLIST 64

typedef struct {
  /* what is measured */
  char     pattern[64];
  PetscInt maxbs;
  char     matrix[32];
  char     pc[32];
  /* the problem */
  PetscInt            n, nblocks, nblocks_found;
  PetscInt64          nnz, inv_bytes;
  PCVBJacobiPrecision prec;         /* vbjacobi: the storage of the inverses */
  PetscInt64          stored_bytes; /* vbjacobi: the bytes an apply reads of the inverses, scales and types; -1 otherwise */
  /* results */
  double    setup, resetup, apply, apply_batched, apply_cold, gbs, frac, frac_same, frac_cold, maxdiff;
  double    resetup_moved; /* bytes between host and device in the MatScale + re-setup, the most of the reps */
  PetscBool blocks_ok, has_diff;
} Row;

typedef struct {
  PetscBool           gpu;
  char                device[256];
  PetscInt            reps, warmup, resetup_reps;
  double              triad_gbs, triad_small_gbs, waxpy_gbs, pmult_gbs;
  PetscInt64          triad_n;
  Vec                 flush; /* 256 MB read before each cold apply, so that the L2 cache holds none of the apply's data */
  FILE               *csv;
  BenchTimer          timer;
  Row                 rows[12];
  PetscInt            nrows;
  PetscInt            nbad;  /* -check: vbjacobi rows with other blocks or outputs than the reference */
  PetscBool           quiet; /* the warm-up pass: nothing reported */
  PCVBJacobiPrecision prec;  /* the storage RunPC gives a vbjacobi */
  PCVBJacobiPrecision precs[4];
  PetscInt            nprecs; /* the precision axis: the storages besides double */
} Bench;

static PetscErrorCode TimerStart(Bench *b)
{
  PetscFunctionBegin;
  PetscCall(BenchTimerStart(&b->timer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimerStop(Bench *b, double *sec)
{
  PetscFunctionBegin;
  PetscCall(BenchTimerStop(&b->timer, sec, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double Median(PetscInt n, PetscReal *v)
{
  return BenchMedian(n, v);
}

/* ---------------------------------------------------------------------------------------- triad */
/* The triad of bench_util.h on N entries, with this run's reps */
static PetscErrorCode Triad(Bench *b, PetscInt64 N, double *gbs)
{
  PetscFunctionBegin;
  PetscCall(MeasureTriad(b->gpu, (size_t)N, b->warmup + 1, PetscMax(b->reps, 20), gbs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- problems */
static inline PetscReal Hash01(PetscInt64 a, PetscInt64 c)
{
  PetscInt64 h = (a * 0x9E3779B97F4A7C15LL) ^ (c + 0x632BE59BD9B4E019LL + (a << 6) + (a >> 2));

  h ^= (PetscInt64)((unsigned long long)h >> 31);
  h *= 0x7FB5D329728EA185LL;
  h ^= (PetscInt64)((unsigned long long)h >> 27);
  return (PetscReal)((unsigned long long)h >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
  char       pattern[32];
  PetscInt   m, n, nblocks, nx; /* nx: grid points per direction (laplace) */
  PetscInt  *sizes, *starts;    /* nblocks, nblocks + 1 */
  PetscBool  uniform;
  PetscInt64 nnz, inv_bytes;
} Problem;

/* the blocks that block b couples to, ascending (nbr must hold 5 entries, or nblocks for the arrow's row 0) */
static PetscInt Neighbours(const Problem *p, PetscInt b, PetscInt *nbr)
{
  PetscInt k = 0;

  if (!strcmp(p->pattern, "arrow")) {
    if (b == 0) {
      for (PetscInt c = 0; c < p->nblocks; c++) nbr[k++] = c;
    } else {
      nbr[k++] = 0;
      nbr[k++] = b;
    }
  } else if (!strcmp(p->pattern, "tridiag")) {
    if (b > 0) nbr[k++] = b - 1;
    nbr[k++] = b;
    if (b < p->nblocks - 1) nbr[k++] = b + 1;
  } else if (!strcmp(p->pattern, "blockdiag")) {
    nbr[k++] = b;
  } else { /* laplace: grid point b = j * nx + i */
    PetscInt i = b % p->nx, j = b / p->nx;

    if (j > 0) nbr[k++] = b - p->nx;
    if (i > 0) nbr[k++] = b - 1;
    nbr[k++] = b;
    if (i < p->nx - 1) nbr[k++] = b + 1;
    if (j < p->nx - 1) nbr[k++] = b + p->nx;
  }
  return k;
}

static PetscErrorCode ProblemCreate(const char pattern[], PetscInt ntarget, PetscInt m, PetscInt seed, Problem *p)
{
  PetscInt nb = 0, cap, rows = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(PetscStrncpy(p->pattern, pattern, sizeof(p->pattern)));
  p->m       = m;
  p->uniform = (PetscBool)(!strcmp(pattern, "tridiag") || !strcmp(pattern, "laplace"));
  if (!strcmp(pattern, "laplace")) {
    p->nx = (PetscInt)PetscFloorReal(PetscSqrtReal((PetscReal)ntarget / (PetscReal)m));
    p->nx = PetscMax(p->nx, 2);
    nb    = p->nx * p->nx;
    PetscCall(PetscMalloc1(nb, &p->sizes));
    for (PetscInt b = 0; b < nb; b++) p->sizes[b] = m;
    rows = nb * m;
  } else {
    cap = ntarget + 1;
    PetscCall(PetscMalloc1(cap, &p->sizes));
    if (!strcmp(pattern, "arrow")) { /* row 0, the arrow's full row, is a block of its own */
      p->sizes[nb++] = 1;
      rows           = 1;
    }
    if (p->uniform) ntarget = PetscMax(ntarget / m, 1) * m; /* every block of size m */
    while (rows < ntarget) {
      PetscInt k = p->uniform ? m : 1 + (PetscInt)(Hash01(seed * 1000003 + nb, 17) * m);

      k              = PetscMin(PetscMin(k, m), ntarget - rows);
      p->sizes[nb++] = k;
      rows += k;
    }
  }
  p->n       = rows;
  p->nblocks = nb;
  PetscCall(PetscMalloc1(nb + 1, &p->starts));
  p->starts[0] = 0;
  for (PetscInt b = 0; b < nb; b++) {
    p->starts[b + 1] = p->starts[b] + p->sizes[b];
    p->inv_bytes += 8 * (PetscInt64)p->sizes[b] * p->sizes[b];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemDestroy(Problem *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(p->sizes));
  PetscCall(PetscFree(p->starts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* value of entry (r, c); the diagonal dominates its row (rowlen entries, all others in [-1, 0)) */
static inline PetscScalar Value(PetscInt r, PetscInt c, PetscInt rowlen)
{
  return r == c ? (PetscScalar)(rowlen + 1) : (PetscScalar)(-Hash01(r, c));
}

/* the CSR arrays of the problem (PetscMalloc'ed) */
static PetscErrorCode ProblemCSR(Problem *p, PetscInt **ia, PetscInt **ja, PetscScalar **va)
{
  PetscInt  *i, *j, *nbr, maxn = strcmp(p->pattern, "arrow") ? 5 : p->nblocks;
  PetscInt64 nnz = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(maxn, &nbr));
  PetscCall(PetscMalloc1(p->n + 1, &i));
  i[0] = 0;
  for (PetscInt b = 0; b < p->nblocks; b++) {
    PetscInt nn = Neighbours(p, b, nbr), len = 0;

    for (PetscInt q = 0; q < nn; q++) len += p->sizes[nbr[q]];
    for (PetscInt r = p->starts[b]; r < p->starts[b + 1]; r++) {
      nnz += len;
      PetscCheck(nnz < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s with m = %" PetscInt_FMT " has too many nonzeros for 32-bit indices; use a smaller -n", p->pattern, p->m);
      i[r + 1] = (PetscInt)nnz;
    }
  }
  p->nnz = nnz;
  PetscCall(PetscMalloc1(nnz, &j));
  PetscCall(PetscMalloc1(nnz, va));
  for (PetscInt b = 0; b < p->nblocks; b++) {
    PetscInt nn = Neighbours(p, b, nbr);

    for (PetscInt r = p->starts[b]; r < p->starts[b + 1]; r++) {
      PetscInt k = i[r], len = i[r + 1] - i[r];

      for (PetscInt q = 0; q < nn; q++)
        for (PetscInt c = p->starts[nbr[q]]; c < p->starts[nbr[q] + 1]; c++) {
          j[k]       = c;
          (*va)[k++] = Value(r, c, len);
        }
    }
  }
  PetscCall(PetscFree(nbr));
  *ia = i;
  *ja = j;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same matrix as block CSR (uniform patterns): blocks row-major, as MatSeqBAIJSetPreallocationCSR() takes them */
static PetscErrorCode ProblemBSR(Problem *p, PetscInt **ia, PetscInt **ja, PetscScalar **va)
{
  PetscInt   m    = p->m, *i, *j, nbr[5];
  PetscInt64 nnzb = 0, k = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(p->nblocks + 1, &i));
  i[0] = 0;
  for (PetscInt b = 0; b < p->nblocks; b++) {
    nnzb += Neighbours(p, b, nbr);
    i[b + 1] = (PetscInt)nnzb;
  }
  PetscCall(PetscMalloc1(nnzb, &j));
  PetscCall(PetscMalloc1(nnzb * m * m, va));
  for (PetscInt b = 0; b < p->nblocks; b++) {
    PetscInt nn = Neighbours(p, b, nbr), len = nn * m;

    for (PetscInt q = 0; q < nn; q++) {
      j[i[b] + q] = nbr[q];
      for (PetscInt rr = 0; rr < m; rr++)
        for (PetscInt cc = 0; cc < m; cc++) (*va)[k++] = Value(b * m + rr, nbr[q] * m + cc, len);
    }
  }
  *ia = i;
  *ja = j;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- one PC */
static const char *Fmt(double v, char buf[], size_t len, const char *fmt)
{
  if (v < 0) PetscCallAbort(PETSC_COMM_SELF, PetscSNPrintf(buf, len, "-"));
  else PetscCallAbort(PETSC_COMM_SELF, PetscSNPrintf(buf, len, fmt, v));
  return buf;
}

/* Before each first setup the values are current on both sides (host and device), so that no PC's first setup pays
   for a copy of the matrix; the re-setups follow MatScale(), which aijcusparse runs on the device. */
static PetscErrorCode MakeCurrent(Mat A, Vec x, Vec y)
{
  PetscBool isaij;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &isaij));
  if (isaij) {
    const PetscScalar *v;

    PetscCall(MatSeqAIJGetArrayRead(A, &v)); /* device -> host, if the host copy is stale */
    PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
  }
  PetscCall(MatMult(A, x, y)); /* host -> device, if the device copy is stale */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Evicts the L2 cache (50 MB on an H100) by reading 256 MB of a vector of its own (a norm: reads only, so the
   cache is left clean, with no write-backs to pay during the timed apply), and waits for it */
static PetscErrorCode FlushL2(Bench *b)
{
  PetscReal nrm;

  PetscFunctionBegin;
  if (!b->gpu) PetscFunctionReturn(PETSC_SUCCESS);
  if (!b->flush) {
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, 1 << 25, &b->flush));
    PetscCall(VecSet(b->flush, 1.0));
  }
  PetscCall(VecNorm(b->flush, NORM_2, &nrm));
  PetscCall(BenchSync(b->gpu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The median of -reps single PCApply() between events; cold: each after the L2 cache was evicted */
static PetscErrorCode MedianApply(Bench *b, PC pc, Vec x, Vec y, PetscBool cold, double *median)
{
  PetscReal *t;
  double     s;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(b->reps, &t));
  for (PetscInt k = 0; k < b->reps; k++) {
    if (cold) PetscCall(FlushL2(b));
    PetscCall(TimerStart(b));
    PetscCall(PCApply(pc, x, y));
    PetscCall(TimerStop(b, &s));
    t[k] = s;
  }
  *median = Median(b->reps, t);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sets up and applies PC type `type` on A; its output for x goes to y. For vbjacobi, maxbs and blocking are set
   and the number of blocks found is returned in nfound (and the blocks in starts, when asked for). */
static PetscErrorCode RunPC(Bench *b, Mat A, const char type[], const char matrix[], PetscInt maxbs, PCVBJacobiBlocking blocking, Vec x, Vec y, Row *row, PetscInt *nfound, PetscInt **starts)
{
  PC             pc;
  PetscLogDouble t0, t1;
  double         best = -1;
  PetscBool      isvb;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(row, sizeof(*row)));
  PetscCall(PetscStrncpy(row->pc, type, sizeof(row->pc)));
  PetscCall(PetscStrncpy(row->matrix, matrix, sizeof(row->matrix)));
  PetscCall(PetscStrcmp(type, PCVBJACOBI, &isvb));
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetType(pc, type));
  PetscCall(PCSetOperators(pc, A, A));
  if (isvb) {
    PetscCall(PCVBJacobiSetMaxBlockSize(pc, maxbs));
    PetscCall(PCVBJacobiSetBlocking(pc, blocking));
  }
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)pc, "bench_")); /* e.g. -bench_pc_vbjacobi_extraction shared */
  PetscCall(PCSetFromOptions(pc));
  row->stored_bytes = -1;
  if (isvb) {
    PetscCall(PCVBJacobiSetPrecision(pc, b->prec)); /* the axis wins over -bench_pc_vbjacobi_precision */
    row->prec = b->prec;
  }

  PetscCall(MakeCurrent(A, x, y));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t0));
  PetscCall(PCSetUp(pc));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t1));
  row->setup = t1 - t0;
  for (PetscInt k = 0; k < b->resetup_reps; k++) { /* new values, same pattern */
    PetscLogDouble moved = petsc_ctog_sz + petsc_gtoc_sz;

    PetscCall(MatScale(A, k % 2 ? 1.0 / 1.001 : 1.001));
    PetscCall(BenchSync(b->gpu));
    PetscCall(PetscTime(&t0));
    PetscCall(PCSetUp(pc));
    PetscCall(BenchSync(b->gpu));
    PetscCall(PetscTime(&t1));
    if (best < 0 || t1 - t0 < best) best = t1 - t0;
    row->resetup_moved = PetscMax(row->resetup_moved, petsc_ctog_sz + petsc_gtoc_sz - moved);
  }
  row->resetup = best;
  if (b->resetup_reps % 2) { /* back to the original values, so that every PC sees the same matrix */
    PetscCall(MatScale(A, 1.0 / 1.001));
    PetscCall(PCSetUp(pc));
  }
  if (isvb) {
    PetscInt        nb;
    const PetscInt *st;

    PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
    PetscCall(PCVBJacobiGetBlockPrecisions(pc, NULL, NULL, &row->stored_bytes));
    if (b->prec != PC_VBJACOBI_PRECISION_DOUBLE) row->stored_bytes += nb * (PetscInt64)(b->prec == PC_VBJACOBI_PRECISION_ADAPTIVE ? 3 : 2); /* scale (+ type) a block */
    if (nfound) *nfound = nb;
    if (starts) {
      PetscCall(PetscMalloc1(nb + 1, starts));
      PetscCall(PetscArraycpy(*starts, st, nb + 1));
    }
  }

  for (PetscInt k = 0; k < b->warmup; k++) PetscCall(PCApply(pc, x, y));
  PetscCall(BenchSync(b->gpu));
  PetscCall(MedianApply(b, pc, x, y, PETSC_FALSE, &row->apply));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = 0; k < b->reps; k++) PetscCall(PCApply(pc, x, y));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t1));
  row->apply_batched = (t1 - t0) / b->reps;
  PetscCall(MedianApply(b, pc, x, y, PETSC_TRUE, &row->apply_cold));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelDiff(Vec a, Vec ref, Vec work, double *d)
{
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(VecWAXPY(work, -1.0, ref, a));
  PetscCall(VecNorm(work, NORM_INFINITY, &nd));
  PetscCall(VecNorm(ref, NORM_INFINITY, &nr));
  *d = nr > 0 ? nd / nr : nd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fills in the derived columns of the rows measured on one problem and prints them */
static PetscErrorCode Report(Bench *b, const char pattern[], PetscInt maxbs, PetscInt n, PetscInt nblocks, PetscInt64 nnz, PetscInt64 inv_bytes, PetscBool built)
{
  Row   *vp = NULL;
  char   a[32], c[32], c2[32], c3[32], d[32], e[32], f[32], g[32], h[64];
  double same_gbs = 0;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < b->nrows; r++)
    if (!strcmp(b->rows[r].pc, PCVPBJACOBI)) vp = &b->rows[r];
  /* the triad moving as many bytes as the block-Jacobi apply: the bandwidth a streaming kernel of this size gets,
     launch and ramp included (a 50 MB kernel cannot reach the bandwidth of a 768 MB one) */
  if (b->gpu) { PetscCall(Triad(b, PetscMax((inv_bytes + 16 * (PetscInt64)n) / BENCH_TRIAD_BYTES_PER_ENTRY, 1), &same_gbs)); }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s, max block size %" PetscInt_FMT ": %" PetscInt_FMT " rows, %" PetscInt_FMT " blocks, %" PetscInt64_FMT " nonzeros, inverses %.1f MB\n", pattern, maxbs, n, nblocks, nnz, inv_bytes / 1e6));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-10s %-14s %10s %10s %10s %10s %8s %7s %6s %8s %6s %8s %8s %7s %9s  %s\n", "pc", "matrix", "setup ms", "resetup ms", "apply us", "batched us", "GB/s", "triad", "same", "cold us", "cold", "setup x", "resetup x", "apply x", "diff", "blocks"));
  for (PetscInt r = 0; r < b->nrows; r++) {
    Row       *w     = &b->rows[r];
    PetscInt64 bytes = !strcmp(w->pc, PCJACOBI) ? 24 * (PetscInt64)n : (w->stored_bytes >= 0 ? w->stored_bytes : inv_bytes) + 16 * (PetscInt64)n;
    double     sx = -1, rx = -1, ax = -1, row_same = same_gbs;

    PetscCall(PetscStrncpy(w->pattern, pattern, sizeof(w->pattern)));
    w->maxbs     = maxbs;
    w->n         = n;
    w->nblocks   = nblocks;
    w->nnz       = nnz;
    w->inv_bytes = inv_bytes;
    w->gbs       = w->apply > 0 ? bytes / w->apply / 1e9 : -1;
    w->frac      = b->triad_gbs > 0 && w->gbs > 0 ? w->gbs / b->triad_gbs : -1;
    if (b->gpu && w->stored_bytes >= 0 && w->prec != PC_VBJACOBI_PRECISION_DOUBLE) { /* a triad of this row's own bytes */
      PetscCall(Triad(b, PetscMax(bytes / BENCH_TRIAD_BYTES_PER_ENTRY, 1), &row_same));
    }
    w->frac_same = row_same > 0 && w->gbs > 0 ? w->gbs / row_same : -1;
    w->frac_cold = b->triad_gbs > 0 && w->apply_cold > 0 ? bytes / w->apply_cold / 1e9 / b->triad_gbs : -1;
    if (vp && vp != w) {
      sx = w->setup > 0 ? vp->setup / w->setup : -1;
      rx = w->resetup > 0 && vp->resetup > 0 ? vp->resetup / w->resetup : -1;
    }
    if (vp) ax = w->apply > 0 ? vp->apply / w->apply : -1;
    h[0] = 0;
    if (!strcmp(w->pc, PCVBJACOBI)) PetscCall(PetscSNPrintf(h, sizeof(h), "%" PetscInt_FMT "%s", w->nblocks_found, !built ? "" : w->blocks_ok ? " (as built)" : " (DIFFER from those built)"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-10s %-14s %10.3f %10s %10.2f %10.2f %8.1f %7s %6s %8.2f %6s %8s %8s %7s %9s  %s\n", w->pc, w->matrix, 1e3 * w->setup, Fmt(1e3 * w->resetup, a, sizeof(a), "%.3f"), 1e6 * w->apply, 1e6 * w->apply_batched, w->gbs, Fmt(100 * w->frac, c, sizeof(c), "%.0f%%"), Fmt(100 * w->frac_same, c2, sizeof(c2), "%.0f%%"), 1e6 * w->apply_cold, Fmt(100 * w->frac_cold, c3, sizeof(c3), "%.0f%%"), Fmt(sx, d, sizeof(d), "%.1f"), Fmt(rx, e, sizeof(e), "%.1f"), Fmt(ax, f, sizeof(f), "%.2f"), w->has_diff ? Fmt(w->maxdiff, g, sizeof(g), "%.1e") : "-", h));
    if (b->csv)
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "\"%s\",%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",%s,%s,%.6e,%.6e,%.6e,%.6e,%.3f,%.4f,%.3f,%.3f,%.4f,%" PetscInt_FMT ",%d,%.3e,%.1f,%.1f,%.1f,%.1f,%.1f,%.4f,%.6e,%.4f", b->device, w->pattern, w->maxbs, w->n, w->nblocks, w->nnz, w->inv_bytes, w->matrix, w->pc, w->setup, w->resetup, w->apply, w->apply_batched, w->gbs, w->frac, sx, rx, ax, w->nblocks_found,
                             (int)w->blocks_ok, w->has_diff ? w->maxdiff : -1.0, b->triad_gbs, b->triad_small_gbs, b->waxpy_gbs, b->pmult_gbs, row_same, w->frac_same, w->apply_cold, w->frac_cold));
    if (b->csv)
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, ",%s,%" PetscInt64_FMT ",%.4f\n", !strcmp(w->pc, PCVBJACOBI) ? PCVBJacobiPrecisions[w->prec] : "-", w->stored_bytes,
                             !strcmp(w->pc, PCVBJACOBI) && b->rows[0].apply > 0 && w->apply > 0 && !strstr(w->matrix, "baij") ? b->rows[0].apply / w->apply : -1.0));
  }
  { /* issue 14: the precision axis against double (rows[0]: vbjacobi, double, aij) */
    const Row *d = &b->rows[0];

    for (PetscInt r = 1; r < b->nrows; r++) {
      const Row  *w       = &b->rows[r];
      const char *verdict = "";

      if (strcmp(w->pc, PCVBJACOBI) || w->prec == PC_VBJACOBI_PRECISION_DOUBLE || !(w->apply > 0 && d->apply > 0)) continue;
      if (maxbs >= 8 && w->prec == PC_VBJACOBI_PRECISION_SINGLE) verdict = d->apply / w->apply >= 1.8 && w->frac_same >= 0.85 ? " (issue 14: >= 1.8x and >= 85% of same: met)" : " (issue 14: >= 1.8x and >= 85% of same: MISSED)";
      if (maxbs >= 8 && w->prec == PC_VBJACOBI_PRECISION_HALF) verdict = d->apply / w->apply >= 3.0 ? " (issue 14: >= 3x: met)" : " (issue 14: >= 3x: MISSED)";
      char fs[32];

      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  precision %-8s apply %.2f us = %.2fx double (bytes %.2fx fewer: the bound); %s of a triad of its bytes%s\n", PCVBJacobiPrecisions[w->prec], 1e6 * w->apply, d->apply / w->apply, (double)(d->stored_bytes + 16 * (PetscInt64)n) / (double)(w->stored_bytes + 16 * (PetscInt64)n), Fmt(100 * w->frac_same, fs, sizeof(fs), "%.0f%%"), b->gpu ? verdict : ""));
    }
  }
  if (b->csv) fflush(b->csv);
  { /* issue 11: vbjacobi's re-setup after MatScale on baijksparse against aijcusparse (criterion: at most 1.2x) */
    Row *va = NULL, *vk = NULL;

    for (PetscInt r = 0; r < b->nrows; r++) {
      if (strcmp(b->rows[r].pc, PCVBJACOBI) || b->rows[r].prec != PC_VBJACOBI_PRECISION_DOUBLE) continue;
      if (strstr(b->rows[r].matrix, "baij")) vk = &b->rows[r]; /* baijksparse (-host: baij) */
      else if (strstr(b->rows[r].matrix, "aij")) va = &b->rows[r];
    }
    if (va && vk && va->resetup > 0 && vk->resetup > 0)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  vbjacobi re-setup after MatScale: %s %.3f ms / %s %.3f ms = %.2fx (issue 11: <= 1.2x %s); host<->device in MatScale + re-setup: %.2f MB / %.2f MB\n", vk->matrix, 1e3 * vk->resetup, va->matrix, 1e3 * va->resetup, vk->resetup / va->resetup, vk->resetup <= 1.2 * va->resetup ? "met" : "MISSED", vk->resetup_moved / 1e6, va->resetup_moved / 1e6));
  }
  for (PetscInt r = 0; r < b->nrows; r++) {
    Row *w = &b->rows[r];

    if (strcmp(w->pc, PCVBJACOBI)) continue;
    const double u = w->prec == PC_VBJACOBI_PRECISION_SINGLE ? 5.96e-8 : w->prec == PC_VBJACOBI_PRECISION_DOUBLE ? 0.0 : 4.88e-4;
    if ((built && !w->blocks_ok) || !(w->has_diff && w->maxdiff <= 1e-10 + 64 * u)) {
      b->nbad++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  CHECK FAILED: vbjacobi on %s: %s\n", w->matrix, (built && !w->blocks_ok) ? "other blocks than those built" : "output differs from vpbjacobi's"));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* all PCs on one matrix A (aijcusparse; with the variable block sizes `sizes` and, if uniform, block size m); Ab the
   same matrix as baijksparse or NULL. expect: the block starts that vbjacobi should find, or NULL */
static PetscErrorCode RunAll(Bench *b, Mat A, Mat Ab, PetscInt m, PetscBool uniform, PCVBJacobiBlocking blocking, PetscInt nb, const PetscInt *expect, PetscInt **found)
{
  Vec      x, y, yvp, yvb, w;
  PetscInt nfound = 0;
  MatType  ta, tb = NULL;

  PetscFunctionBegin;
  PetscCall(MatGetType(A, &ta));
  if (Ab) PetscCall(MatGetType(Ab, &tb));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yvp));
  PetscCall(VecDuplicate(y, &yvb));
  PetscCall(VecDuplicate(y, &w));
  {
    PetscRandom rnd;

    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetSeed(rnd, 42));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  b->nrows = 0;
  PetscCall(RunPC(b, A, PCVBJACOBI, ta, m, blocking, x, yvb, &b->rows[b->nrows], &nfound, found));
  b->rows[b->nrows].nblocks_found = nfound;
  b->rows[b->nrows].blocks_ok     = (PetscBool)(nfound == nb);
  if (expect && found && nfound == nb) {
    PetscBool same;

    PetscCall(PetscArraycmp(expect, *found, nb + 1, &same));
    b->rows[b->nrows].blocks_ok = same;
  }
  b->nrows++;
  if (found && !expect) { /* real matrices: vpbjacobi gets the blocks vbjacobi found */
    PetscInt *sz;

    PetscCall(PetscMalloc1(nfound, &sz));
    for (PetscInt k = 0; k < nfound; k++) sz[k] = (*found)[k + 1] - (*found)[k];
    PetscCall(MatSetVariableBlockSizes(A, nfound, sz));
    PetscCall(PetscFree(sz));
  }
  PetscCall(RunPC(b, A, PCVPBJACOBI, ta, m, blocking, x, yvp, &b->rows[b->nrows++], NULL, NULL));
  PetscCall(RelDiff(yvb, yvp, w, &b->rows[0].maxdiff));
  b->rows[0].has_diff = PETSC_TRUE;
  for (PetscInt q = 0; q < b->nprecs; q++) { /* the precision axis: the same blocks, the inverses stored otherwise */
    Row *row = &b->rows[b->nrows];

    b->prec = b->precs[q];
    PetscCall(RunPC(b, A, PCVBJACOBI, ta, m, blocking, x, y, row, &nfound, NULL));
    b->prec = PC_VBJACOBI_PRECISION_DOUBLE;
    PetscCall(PetscSNPrintf(row->matrix, sizeof(row->matrix), "%s/%s", ta, PCVBJacobiPrecisions[b->precs[q]]));
    row->nblocks_found = nfound;
    row->blocks_ok     = b->rows[0].blocks_ok && nfound == b->rows[0].nblocks_found;
    PetscCall(RelDiff(y, yvp, w, &row->maxdiff));
    row->has_diff = PETSC_TRUE;
    b->nrows++;
  }
  if (uniform) PetscCall(RunPC(b, A, PCPBJACOBI, ta, m, blocking, x, y, &b->rows[b->nrows++], NULL, NULL));
  PetscCall(RunPC(b, A, PCJACOBI, ta, m, blocking, x, y, &b->rows[b->nrows++], NULL, NULL));
  if (Ab) {
    Vec xb, yb;

    PetscCall(MatCreateVecs(Ab, &xb, &yb));
    PetscCall(VecCopy(x, xb));
    PetscCall(RunPC(b, Ab, PCVBJACOBI, tb, m, uniform ? PC_VBJACOBI_BLOCKING_MATRIX : blocking, xb, yb, &b->rows[b->nrows], &nfound, NULL));
    b->rows[b->nrows].nblocks_found = nfound;
    b->rows[b->nrows].blocks_ok     = (PetscBool)(nfound == nb);
    PetscCall(RelDiff(yb, yvp, w, &b->rows[b->nrows].maxdiff));
    b->rows[b->nrows].has_diff = PETSC_TRUE;
    b->nrows++;
    PetscCall(VecDestroy(&xb));
    PetscCall(VecDestroy(&yb));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yvp));
  PetscCall(VecDestroy(&yvb));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunPattern(Bench *b, const char pattern[], PetscInt ntarget, PetscInt m, PetscBool withbaij)
{
  Problem      p;
  Mat          A, Ab = NULL;
  PetscInt    *ia = NULL, *ja = NULL, *found = NULL;
  PetscScalar *va = NULL;

  PetscFunctionBegin;
  PetscCall(ProblemCreate(pattern, ntarget, m, 1 + m, &p));
  PetscCall(ProblemCSR(&p, &ia, &ja, &va));
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, p.n, p.n, p.n, p.n));
  if (p.uniform) PetscCall(MatSetBlockSize(A, m));
  PetscCall(MatSetType(A, b->gpu ? MATSEQAIJCUSPARSE : MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(A, ia, ja, va));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree(ja));
  PetscCall(PetscFree(va));
  PetscCall(MatSetVariableBlockSizes(A, p.nblocks, p.sizes));
  if (withbaij && p.uniform) {
    Mat B;

    PetscCall(ProblemBSR(&p, &ia, &ja, &va));
    PetscCall(MatCreate(PETSC_COMM_SELF, &B));
    PetscCall(MatSetSizes(B, p.n, p.n, p.n, p.n));
    PetscCall(MatSetBlockSize(B, m));
    PetscCall(MatSetType(B, MATSEQBAIJ));
    PetscCall(MatSeqBAIJSetPreallocationCSR(B, m, ia, ja, va));
    PetscCall(PetscFree(ia));
    PetscCall(PetscFree(ja));
    PetscCall(PetscFree(va));
    if (b->gpu) {
      PetscCall(MatConvert(B, MATSEQBAIJKSPARSE, MAT_INITIAL_MATRIX, &Ab));
      PetscCall(MatSetVecType(Ab, VECCUDA));
    } else PetscCall(PetscObjectReference((PetscObject)(Ab = B)));
    PetscCall(MatDestroy(&B));
  }
  /* natural supervariables are exactly the blocks as built (merging would join neighbouring built blocks) */
  PetscCall(RunAll(b, A, Ab, m, p.uniform, PC_VBJACOBI_BLOCKING_NATURAL, p.nblocks, p.starts, &found));
  if (!b->quiet) PetscCall(Report(b, pattern, m, p.n, p.nblocks, p.nnz, p.inv_bytes, PETSC_TRUE));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "  warm-up %s, max block size %" PetscInt_FMT ", %" PetscInt_FMT " rows: first setups vbjacobi %.3f ms, vpbjacobi %.3f ms\n", pattern, m, p.n, 1e3 * b->rows[0].setup, 1e3 * b->rows[1].setup));
  PetscCall(PetscFree(found));
  PetscCall(MatDestroy(&Ab));
  PetscCall(MatDestroy(&A));
  PetscCall(ProblemDestroy(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LoadMat(Bench *b, const char file[], MatType type, PetscInt bs, Mat *A)
{
  PetscViewer v;

  PetscFunctionBegin;
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  if (bs > 1) PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatLoad(*A, v));
  PetscCall(PetscViewerDestroy(&v));
  if (b->gpu) PetscCall(MatSetVecType(*A, VECCUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunFile(Bench *b, const char file[], PetscInt bs, PetscBool withbaij)
{
  Mat         A, Ab = NULL;
  PetscInt    n, nfound, *found = NULL;
  MatInfo     info;
  PetscInt64  inv  = 0;
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  char        name[128];

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(name, base, sizeof(name)));
  if (strstr(name, ".petsc")) *strstr(name, ".petsc") = 0;
  PetscCall(LoadMat(b, file, b->gpu ? MATSEQAIJCUSPARSE : MATSEQAIJ, bs, &A));
  if (withbaij && bs > 1) PetscCall(LoadMat(b, file, b->gpu ? MATSEQBAIJKSPARSE : MATSEQBAIJ, bs, &Ab));
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  PetscCall(RunAll(b, A, Ab, bs > 1 ? bs : PC_VBJACOBI_MAX_BLOCK_SIZE, (PetscBool)(bs > 1), bs > 1 ? PC_VBJACOBI_BLOCKING_MATRIX : PC_VBJACOBI_BLOCKING_SUPERVARIABLE, -1, NULL, &found));
  nfound = b->rows[0].nblocks_found;
  for (PetscInt k = 0; k < nfound; k++) inv += 8 * (PetscInt64)(found[k + 1] - found[k]) * (found[k + 1] - found[k]);
  for (PetscInt r = 0; r < b->nrows; r++) b->rows[r].blocks_ok = PETSC_TRUE;
  PetscCall(Report(b, name, bs > 1 ? bs : PC_VBJACOBI_MAX_BLOCK_SIZE, n, nfound, (PetscInt64)info.nz_used, inv, PETSC_FALSE));
  PetscCall(PetscFree(found));
  PetscCall(MatDestroy(&Ab));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Time of the block detection alone (the VBJacDetect event), the median of `reps` first setups */
static PetscErrorCode DetectTime(Mat A, PetscInt maxbs, PCVBJacobiBlocking blocking, PetscInt reps, double *median, PetscInt *nblocks)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo before, after;
  PetscReal          t[16];

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId("VBJacDetect", &ev));
  for (PetscInt r = 0; r < reps; r++) {
    PC pc;

    PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
    PetscCall(PCSetType(pc, PCVBJACOBI));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCVBJacobiSetMaxBlockSize(pc, maxbs));
    PetscCall(PCVBJacobiSetBlocking(pc, blocking));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &before));
    PetscCall(PCSetUp(pc));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &after));
    t[r] = after.time - before.time;
    PetscCall(PCVBJacobiGetBlocks(pc, nblocks, NULL));
    PetscCall(PCDestroy(&pc));
  }
  *median = Median(reps, t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Detection with merging against the natural detection, on the laplace (m = 1) and blockdiag patterns */
static PetscErrorCode RunDetection(Bench *b, PetscInt ntarget, PetscInt nbounds, const PetscInt *bounds)
{
  const char *pats[2] = {"laplace", "blockdiag"};

  PetscFunctionBegin;
  if (!nbounds) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogDefaultBegin()); /* the event times (a no-op when -log_view already started logging) */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nblock detection alone (VBJacDetect event, median of 5 first setups): natural supervariables against merged (the paper's blocking)\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-10s %5s %9s %12s %12s %10s %10s %8s\n", "pattern", "bound", "rows", "natural ms", "merged ms", "natural k", "merged k", "ratio"));
  for (PetscInt q = 0; q < 2; q++) {
    for (PetscInt k = 0; k < nbounds; k++) {
      Problem      p;
      Mat          A;
      PetscInt    *ia, *ja, nb_nat, nb_mrg;
      PetscScalar *va;
      double       t_nat, t_mrg;

      PetscCall(ProblemCreate(pats[q], ntarget, q ? bounds[k] : 1, 7, &p));
      PetscCall(ProblemCSR(&p, &ia, &ja, &va));
      PetscCall(MatCreate(PETSC_COMM_SELF, &A));
      PetscCall(MatSetSizes(A, p.n, p.n, p.n, p.n));
      PetscCall(MatSetType(A, b->gpu ? MATSEQAIJCUSPARSE : MATSEQAIJ));
      PetscCall(MatSeqAIJSetPreallocationCSR(A, ia, ja, va));
      PetscCall(PetscFree(ia));
      PetscCall(PetscFree(ja));
      PetscCall(PetscFree(va));
      PetscCall(DetectTime(A, bounds[k], PC_VBJACOBI_BLOCKING_NATURAL, 5, &t_nat, &nb_nat));
      PetscCall(DetectTime(A, bounds[k], PC_VBJACOBI_BLOCKING_SUPERVARIABLE, 5, &t_mrg, &nb_mrg));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-10s %5" PetscInt_FMT " %9" PetscInt_FMT " %12.3f %12.3f %10.2f %10.2f %8.2f\n", pats[q], bounds[k], p.n, 1e3 * t_nat, 1e3 * t_mrg, (double)p.n / nb_nat, (double)p.n / nb_mrg, t_mrg / t_nat));
      if (b->csv)
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "%s,detect_%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",,,,natural_vs_merged,%.9f,%.9f,,,,,,,%" PetscInt_FMT ",,,,,,,,,,\n", b->device, pats[q], bounds[k], p.n, nb_nat, t_nat, t_mrg, nb_mrg));
      PetscCall(MatDestroy(&A));
      PetscCall(ProblemDestroy(&p));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Bench          b;
  PetscInt       n = 1000000, maxbs[MAXLIST] = {1, 2, 4, 8, 12, 16, 24, 32}, nmaxbs = 8, npat = 4, nfiles = MAXLIST, triad_n = 1 << 25;
  char          *patterns[MAXLIST], *files[MAXLIST], csvname[PETSC_MAX_PATH_LEN] = "", mdir[PETSC_MAX_PATH_LEN] = "";
  const char    *defpat[4] = {"arrow", "tridiag", "blockdiag", "laplace"};
  PetscBool      flg, fflg, host = PETSC_FALSE, withbaij = PETSC_TRUE, check = PETSC_FALSE, warmup_pass = PETSC_TRUE;
  PetscInt       dbounds[MAXLIST] = {8, 16, 32}, ndbounds = 3;
  PetscLogDouble tstart, tend;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscTime(&tstart));
  PetscCall(PetscMemzero(&b, sizeof(b)));
  b.reps         = 30;
  b.warmup       = 3;
  b.resetup_reps = 2;
  for (PetscInt k = 0; k < 4; k++) PetscCall(PetscStrallocpy(defpat[k], &patterns[k]));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_vbjacobi options", "bench_vbjacobi");
  PetscCall(PetscOptionsInt("-n", "rows of the synthetic matrices", "bench_vbjacobi", n, &n, NULL));
  {
    PetscInt given[MAXLIST], ng = MAXLIST;

    PetscCall(PetscOptionsIntArray("-maxbs", "maximum block sizes", "bench_vbjacobi", given, &ng, &flg));
    if (flg) {
      for (PetscInt k = 0; k < ng; k++) maxbs[k] = given[k];
      nmaxbs = ng;
    }
  }
  {
    char    *given[MAXLIST];
    PetscInt ng = MAXLIST;

    PetscCall(PetscOptionsStringArray("-patterns", "arrow,tridiag,blockdiag,laplace", "bench_vbjacobi", given, &ng, &flg));
    if (flg) {
      for (PetscInt k = 0; k < npat; k++) PetscCall(PetscFree(patterns[k]));
      for (PetscInt k = 0; k < ng; k++) patterns[k] = given[k];
      npat = ng;
    }
  }
  PetscCall(PetscOptionsInt("-reps", "timed applies", "bench_vbjacobi", b.reps, &b.reps, NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed applies first", "bench_vbjacobi", b.warmup, &b.warmup, NULL));
  PetscCall(PetscOptionsInt("-resetup_reps", "re-setups after new values", "bench_vbjacobi", b.resetup_reps, &b.resetup_reps, NULL));
  PetscCall(PetscOptionsBool("-baijksparse", "also vbjacobi on baijksparse (uniform blocks)", "bench_vbjacobi", withbaij, &withbaij, NULL));
  PetscCall(PetscOptionsInt("-triad_n", "entries of the triad vectors", "bench_vbjacobi", triad_n, &triad_n, NULL));
  PetscCall(PetscOptionsStringArray("-f", "real matrices, FILE[:BS]", "bench_vbjacobi", files, &nfiles, &fflg));
  PetscCall(PetscOptionsString("-matrices", "directory with MANIFEST.tsv (conf/fetch-matrices.sh)", "bench_vbjacobi", mdir, mdir, sizeof(mdir), NULL));
  PetscCall(PetscOptionsString("-o", "CSV output file", "bench_vbjacobi", csvname, csvname, sizeof(csvname), NULL));
  PetscCall(PetscOptionsBool("-host", "run on the host (functional check)", "bench_vbjacobi", host, &host, NULL));
  {
    char    *given[4];
    PetscInt ng = 4;

    b.nprecs   = 3;
    b.precs[0] = PC_VBJACOBI_PRECISION_SINGLE, b.precs[1] = PC_VBJACOBI_PRECISION_HALF, b.precs[2] = PC_VBJACOBI_PRECISION_ADAPTIVE;
    PetscCall(PetscOptionsStringArray("-precisions", "storage precisions of the vbjacobi inverses: double,single,half,adaptive", "bench_vbjacobi", given, &ng, &flg));
    if (flg) {
      b.nprecs = 0;
      for (PetscInt k = 0; k < ng; k++) {
        PetscInt  e;
        PetscBool found;

        PetscCall(PetscEListFind(4, PCVBJacobiPrecisions, given[k], &e, &found));
        PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-precisions: unknown precision %s (double, single, half, adaptive)", given[k]);
        if (e != PC_VBJACOBI_PRECISION_DOUBLE) b.precs[b.nprecs++] = (PCVBJacobiPrecision)e;
        PetscCall(PetscFree(given[k]));
      }
    }
  }
  PetscCall(PetscOptionsBool("-check", "fail when vbjacobi's blocks or outputs differ from the reference", "bench_vbjacobi", check, &check, NULL));
  PetscCall(PetscOptionsBool("-warmup_pass", "the untimed first pass at 20000 rows", "bench_vbjacobi", warmup_pass, &warmup_pass, NULL));
  {
    PetscInt given = MAXLIST;
    PetscCall(PetscOptionsIntArray("-detect_maxbs", "bounds of the detection timing (natural vs merged supervariables)", "bench_vbjacobi", dbounds, &given, &flg));
    if (flg) ndbounds = given;
  }
  PetscOptionsEnd();
  if (!fflg) nfiles = 0;
  PetscCheck(b.reps >= 1 && b.warmup >= 0 && b.resetup_reps >= 0 && n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "need -reps >= 1, -warmup >= 0, -resetup_reps >= 0, -n >= 2");
  for (PetscInt k = 0; k < nmaxbs; k++) PetscCheck(maxbs[k] >= 1 && maxbs[k] <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-maxbs entries must lie in 1..%d", PC_VBJACOBI_MAX_BLOCK_SIZE);
  for (PetscInt k = 0; k < npat; k++) {
    PetscBool ok = PETSC_FALSE;

    for (PetscInt q = 0; q < 4; q++) ok = (PetscBool)(ok || !strcmp(patterns[k], defpat[q]));
    PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown pattern %s: use arrow, tridiag, blockdiag, laplace", patterns[k]);
  }

  b.gpu = (PetscBool)!host;
  if (b.gpu) {
    struct cudaDeviceProp prop;
    int                   dev = 0, ndev = 0;

    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
      (void)cudaGetLastError();
      SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_GPU, "no CUDA device; this is a GPU benchmark (-host runs it on the host as a check)");
    }
    PetscCall(BenchCheckCuda(cudaGetDevice(&dev), "cudaGetDevice"));
    PetscCall(BenchCheckCuda(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties"));
    PetscCall(PetscSNPrintf(b.device, sizeof(b.device), "%s (sm_%d%d, %.0f GB, %d SMs)", prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1e9, prop.multiProcessorCount));
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  } else PetscCall(PetscSNPrintf(b.device, sizeof(b.device), "host (no GPU: a functional check, not a benchmark)"));
  PetscCall(BenchTimerCreate(b.gpu, &b.timer));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_vbjacobi: device %s\n", b.device));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  apply: median of %" PetscInt_FMT " PCApply after %" PetscInt_FMT " warm-up (CUDA events), and the mean of %" PetscInt_FMT " queued back to back, and the median of single applies after the L2 cache was evicted (cold)\n  setup: the first PCSetUp (values current on host and device), then the best of %" PetscInt_FMT " re-setups after MatScale (on the device for aijcusparse: host-side setups copy the values back)\n", b.reps, b.warmup, b.reps, b.resetup_reps));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  GB/s counts 8*sum(k^2) bytes of inverses + 16 n of vectors (jacobi: 24 n); x: ratio of vpbjacobi's time to this one's (> 1: faster than vpbjacobi)\n"));
  {
    PetscInt64 tn = b.gpu ? triad_n : PetscMin(triad_n, 1 << 22);

    PetscCall(Triad(&b, tn, &b.triad_gbs));
    PetscCall(Triad(&b, n, &b.triad_small_gbs));
    /* PETSc's own vector rates: the CSV columns waxpy_GBs and pointwisemult_GBs, never a denominator */
    PetscCall(BenchVecRates(b.gpu ? VECCUDA : VECSTANDARD, tn, b.warmup + 1, PetscMax(b.reps, 20), &b.waxpy_gbs, &b.pmult_gbs));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  triad on %" PetscInt64_FMT " entries (a = b + s c on raw %s arrays, %d bytes an entry): %.1f GB/s; PETSc's VecWAXPY %.1f GB/s, VecPointwiseMult %.1f GB/s (the same %d bytes an entry counted)\n", tn, b.gpu ? "device" : "host", BENCH_TRIAD_BYTES_PER_ENTRY, b.triad_gbs, b.waxpy_gbs, b.pmult_gbs, BENCH_TRIAD_BYTES_PER_ENTRY));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  'triad' below is %.1f GB/s; at the problems' %" PetscInt_FMT " entries (partly cache-resident) the same gives %.1f GB/s\n", b.triad_gbs, n, b.triad_small_gbs));
  }

  if (csvname[0]) {
    PetscCall(BenchCSVOpen(csvname, "device,pattern,maxbs,n,nblocks,nnz,inv_bytes,matrix,pc,setup_s,resetup_s,apply_s,apply_batched_s,apply_GBs,frac_triad,setup_speedup_vs_vpbjacobi,resetup_speedup_vs_vpbjacobi,apply_speed_vs_vpbjacobi,blocks_found,blocks_ok,maxdiff_vs_vpbjacobi,triad_GBs,triad_small_GBs,waxpy_GBs,pointwisemult_GBs,triad_same_bytes_GBs,frac_triad_same_bytes,apply_cold_s,frac_triad_cold,precision,stored_bytes,apply_speedup_vs_double", PETSC_FALSE, &b.csv));
  }

  if (b.gpu && warmup_pass) { /* one small untimed pass first: the one-time costs of the process (each kernel's module loading on first
                 use, library handles) then fall on no setup of the tables, of ours or PETSc's */
    b.quiet = PETSC_TRUE;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  warm-up pass (not in the tables; it shows the one-time first-use costs of the process):\n"));
    for (PetscInt k = 0; k < nmaxbs; k++) PetscCall(RunPattern(&b, patterns[0], PetscMin(n, 20000), maxbs[k], withbaij));
    b.quiet = PETSC_FALSE;
  }
  for (PetscInt q = 0; q < npat; q++)
    for (PetscInt k = 0; k < nmaxbs; k++) PetscCall(RunPattern(&b, patterns[q], n, maxbs[k], withbaij));

  PetscCall(RunDetection(&b, n, ndbounds, dbounds));
  for (PetscInt k = 0; k < nfiles; k++) {
    char    *colon = strrchr(files[k], ':');
    PetscInt bs    = 1;

    if (colon && colon[1] && !strchr(colon, '/')) {
      *colon = 0;
      bs     = (PetscInt)atoi(colon + 1);
    }
    PetscCall(RunFile(&b, files[k], bs, withbaij));
  }
  if (mdir[0]) {
    char  path[PETSC_MAX_PATH_LEN], line[4096];
    FILE *fp;

    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/MANIFEST.tsv", mdir));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "r", &fp));
    while (fgets(line, sizeof(line), fp)) {
      char    *name = strtok(line, "\t"), *rows = strtok(NULL, "\t"), *nnz = strtok(NULL, "\t"), *bss = strtok(NULL, "\t");
      PetscInt bs;

      if (!name || !bss || !rows || !nnz || !strcmp(name, "name")) continue;
      bs = (PetscInt)atoi(bss);
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.petsc", mdir, name));
      PetscCall(RunFile(&b, path, bs, withbaij));
    }
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  }

  PetscCall(BenchCSVClose(&b.csv));
  PetscCall(PetscTime(&tend));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nbench_vbjacobi: done in %.1f s%s%s\n", tend - tstart, csvname[0] ? ", CSV in " : "", csvname));
  PetscCall(BenchTimerDestroy(&b.timer));
  PetscCall(VecDestroy(&b.flush));
  if (b.nbad) PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_vbjacobi: %" PetscInt_FMT " vbjacobi measurement(s) with other blocks or outputs than the reference\n", b.nbad));
  PetscCheck(!check || !b.nbad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-check: %" PetscInt_FMT " vbjacobi measurement(s) differ from the reference (see CHECK FAILED above)", b.nbad);
  for (PetscInt k = 0; k < npat; k++) PetscCall(PetscFree(patterns[k]));
  for (PetscInt k = 0; k < nfiles; k++) PetscCall(PetscFree(files[k]));
  PetscCall(PetscFinalize());
  return 0;
}
