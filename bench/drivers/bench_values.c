/*
  NAME
    bench_values - value operations and COO assembly of MATBAIJKSPARSE on the GPU against aijcusparse (issue 11)

  SYNOPSIS
    bench_values [-bs BS] [-mbs N] [-blocks_per_row K] [-random_blocks R] [-ops LIST] [-reps N] [-warmup N]
                 [-prep gpu|both] [-zero_rows_every K] [-coo_repeat_frac F] [-coo_max_seconds S] [-coo_probe_mbs N]
                 [-triad_n N] [-our_type T] [-ref_type T] [-o CSV] [-check] [-host]

  DESCRIPTION
    Builds one matrix of block size BS (default 4) with N block rows (default: enough for >= 1 GiB of values,
    8 bs^2 K N >= 2^30) and K blocks per block row (default 7): a periodic band of K - R blocks around the diagonal
    plus R (default 2) distinct random blocks off the band. Every block is stored dense, so the same matrix as
    baijksparse and as aijcusparse (converted from it) holds the same nz = K N bs^2 values. Then, for each operation
    of LIST (default all, in this order), on baijksparse and on aijcusparse, the median of -reps calls (default 10)
    after -warmup (default 2):
      scale               MatScale(A, 2 or 0.5)                         16 nz bytes (values read and written)
      shift               MatShift(A, +-1)                              16 n  (the diagonal read and written)
      diagonalset         MatDiagonalSet(A, +-D, ADD_VALUES)            24 n  (D, the diagonal read and written)
      diagonalset_insert  MatDiagonalSet(A, D, INSERT_VALUES)           16 n  (D read, the diagonal written)
      axpy_same           MatAXPY(A, +-0.5, X, SAME_NONZERO_PATTERN)    24 nz (X and A read, A written)
      axpy_subset         MatAXPY(A, +-0.5, Xs, SUBSET_NONZERO_PATTERN) 24 nzs (Xs = the band alone, nzs values;
                                                                             Xs and A's entries under it read, written)
      zeroentries         MatZeroEntries(A)                             8 nz  (written)
      copy                MatCopy(X, A, SAME_NONZERO_PATTERN)           16 nz (read, written)
      duplicate           MatDuplicate(A, MAT_COPY_VALUES, &B)          16 nz + 2 x the device index arrays of the
                                                                        format (baijksparse: 4 (mbs + 1 + nblocks),
                                                                        aijcusparse: 4 (n + 1 + nz))
      getdiagonal         MatGetDiagonal(A, d)                          16 n  (the diagonal read, d written)
      diagonalscale       MatDiagonalScale(A, l = 2, r = 0.5)           16 nz + 16 n
      zerorows            MatZeroRows(A, rows, 1.0) (MAT_KEEP_NONZERO_PATTERN), all bs rows of every -zero_rows_every
                          (default 10) block row                        8 (values in those rows) + 4 (rows)
      coo                 MatSetValuesCOO(A, v, INSERT_VALUES), v on the device: every entry of every block, shuffled,
                          plus -coo_repeat_frac (default 0.1) of them again (repeats are summed), on a matrix
                          preallocated by MatSetPreallocationCOO (timed apart)
                                                                        8 ncoo (v) + 8 nz (values written)
                                                                        + 4 ncoo + 4 (nz + 1) (the indices a gather
                                                                        reads: a permutation and an offset per value)
    Sector bytes: DRAM moves whole 32-byte sectors, so an access of 8 bytes in a sector of its own moves 32. Beside the
    useful bytes above, each op is credited with the minimum DRAM traffic of its kernel as implemented: 32 x (the
    distinct sectors it reads + those it writes; a sector read and written counts twice), every array counted from its
    own 256-byte aligned start, counted exactly by walking the pattern in use (bs, blocks, rows). sec(B) = 32 ceil(B/32),
    the sectors of a whole array of B bytes. Layouts: ours BSR, block q of bs x bs values column-major at 8 q bs^2 bytes,
    entry (i, j) at 8 (q bs^2 + j bs + i), int rowptr (mbs+1), colidx (nblocks), diagpos (mbs); the reference the CSR
    of the same matrix (PETSc's BAIJ -> AIJ conversion keeps every entry of every block: point row r bs + i holds the
    bs (ia[r+1] - ia[r]) entries of its blocks in order), rowptr (n+1), colidx (nz), and for the diagonal operations a
    diagonal position per row (the CSR analogue of diagpos: a model of a device kernel on that layout, not what
    PETSc's host fallback moves). D: the sectors holding the diagonal entries (ours: bs entries per diagonal block at
    stride 8 (bs+1) bytes, for bs >= 3 one sector each, 4 per block row at bs 4; CSR: one per row); didx: the diagonal
    positions read (ours sec(4 mbs), reference sec(4 n)).
      scale, copy         2 sec(8 nz)
      zeroentries         sec(8 nz)
      axpy_same           3 sec(8 nz)
      shift               didx + 2 D
      diagonalset         didx + sec(8 n) + 2 D
      diagonalset_insert  didx + sec(8 n) + 2 D (each diagonal entry is 8 of its sector's 32 bytes: a sector written in
                          part is read as well, since DRAM takes whole sectors and with ECC on, as on the H100's HBM3,
                          the rest must be read to merge; measured so: 141 us for INSERT against 150 us for ADD, which
                          reads D, on the same matrix)
      getdiagonal         didx + D + sec(8 n)
      diagonalscale       rowptr + colidx + 2 sec(8 nz) + sec(8 n) (l) + the sectors of r gathered by the block
                          columns present
      axpy_subset         rowptr of Xs and A + colidx of Xs + sec(8 nzs) + A's colidx (the searches) + 2 x the sectors
                          of A's entries under Xs (ours: its whole blocks; CSR: bs entries per block and row)
      duplicate           2 (rowptr + colidx + sec(8 nz)), ours + 2 didx (diagpos is copied too)
      zerorows            sec(4 rows) + the sectors of the row pointers and diagonal positions of the listed rows + the
                          value sectors written (the union over the rows: BSR rows of one block row share sectors)
      coo                 sec(8 ncoo) + sec(8 nz) + sec(4 ncoo) + sec(4 (nz + 1))
    The table shows them as 'sec MB' and 'sec' (the fraction of the triad with the sector bytes); the CSV as
    sector_bytes and frac_triad_sector; the verdicts give both readings, the (useful bytes) first; the end of the
    output lists each formula with its count for the run.
    Before each call the values are brought to the device and made the newer copy (-prep gpu: MatScale(A, 2) and
    MatScale(A, 0.5), exact; PETSC_OFFLOAD_GPU where MatScale runs on the device; -prep both: a MatMult, host and
    device copies current), and X, Xs and the vectors (CUDA) are current on the device. Each call is timed by CUDA
    events on PETSc's current stream (the operation's own synchronisations included: what a user gets) and by
    PetscTime() after a device synchronisation (wall). Reported per operation and matrix type: time, bytes counted
    (the formula above), GB/s, its fraction of the triad (bench/common/bench_util.h: a = b + s c on raw device
    arrays, 24 bytes an entry, on -triad_n entries, default as many bytes as MatScale moves, at least 2^25 entries) and of the same triad run on as many bytes as the operation (launch and ramp included:
    the small diagonal operations cannot reach the large triad), the speed against the reference type (its time
    over ours; > 1: ours is faster), and the bytes PETSc's counters (petsc_ctog_sz, petsc_gtoc_sz) saw move between
    host and device during the call ('h2d', 'd2h'; > 0: a host fallback or a copy) and during the MatMult that
    follows it ('next': the upload a host-side operation leaves for later). The offload state of the matrix
    (A->offloadmask) is not reported: PETSc has no public getter for it (only its private matimpl.h), and a benchmark
    includes no private header; 'state' is '-'. After the last call both types' products (getdiagonal: the
    diagonals) are compared ('diff', relative, max norm): the same sequence of operations ran on both. Operations
    that change A are undone after their reps (MatCopy from X, untimed). Last, a line per operation with the issue's
    criteria for ours: >= 70% of the triad, >= 1.0x the reference, 0 bytes moved.
    COO: the path is named (the type's own MatSetValuesCOO, or PETSc's generic one, which sets the entries one by
    one on the host); probes at half of and at -coo_probe_mbs block rows (default 8192) estimate the time at full size
    (the marginal cost per block row extrapolated), and when preallocation plus the calls would take longer than
    -coo_max_seconds (default 60) both types run at fewer block rows (said in the output); calls stop early once
    they have used -coo_max_seconds.
    -o writes every measurement as CSV (bench/plots/plot_values.py plots it). -check fails the run when a comparison
    differs by more than 1e-10. -host runs everything on the host (baijksparse against aij, host vectors,
    PetscTime): a check of the program on a machine without GPU, not a benchmark.

  EXAMPLES
    bench_values -o bench/results/values.csv
    bench_values -bs 8 -ops scale,axpy_same,coo -reps 20
    bench_values -host -mbs 64 -reps 2 -check
*/
static char help[] = "Value operations and COO assembly of MATBAIJKSPARSE against aijcusparse (GB/s, triad, host<->device bytes).\n"
                     "  -bs <bs>                block size (default 4)\n"
                     "  -mbs <n>                block rows (default: >= 1 GiB of values)\n"
                     "  -blocks_per_row <k>     blocks per block row (default 7); -random_blocks <r> of them off the band (default 2)\n"
                     "  -ops <list>             scale,shift,diagonalset,diagonalset_insert,axpy_same,axpy_subset,zeroentries,copy,\n"
                     "                          duplicate,getdiagonal,diagonalscale,zerorows,coo (default all)\n"
                     "  -reps <n>               timed calls, the median is reported (default 10); -warmup <n> (default 2)\n"
                     "  -prep <gpu|both>        state of the values before each call (default gpu: the device copy newer)\n"
                     "  -zero_rows_every <k>    zerorows: the rows of every k-th block row (default 10)\n"
                     "  -coo_repeat_frac <f>    coo: entries given twice, as a fraction of nz (default 0.1)\n"
                     "  -coo_shuffle <bool>     coo: entries in random order (default true); false: in the order of the blocks\n"
                     "  -coo_max_seconds <s>    coo: time allowed for each type (default 60); -coo_probe_mbs <n> (default 8192)\n"
                     "  -triad_n <n>            entries of the triad vectors (default: the bytes of MatScale, >= 2^25)\n"
                     "  -our_type <t>           (default baijksparse); -ref_type <t> (default aijcusparse, -host: aij)\n"
                     "  -o <file.csv>           write every measurement as CSV\n"
                     "  -check                  fail when ours and the reference give different results\n"
                     "  -host                   run on the host (a functional check without GPU)\n\n";

#include <petscmat.h>
#include <petscdevice_cuda.h>
#include <petscblockgpu.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include "bench_util.h"

typedef enum {
  OP_SCALE,
  OP_SHIFT,
  OP_DIAGSET,
  OP_DIAGSET_INSERT,
  OP_AXPY_SAME,
  OP_AXPY_SUBSET,
  OP_ZEROENTRIES,
  OP_COPY,
  OP_DUPLICATE,
  OP_GETDIAG,
  OP_DIAGSCALE,
  OP_ZEROROWS,
  OP_COO,
  OP_N
} OpId;
static const char *const OpNames[OP_N] = {"scale", "shift", "diagonalset", "diagonalset_insert", "axpy_same", "axpy_subset", "zeroentries", "copy", "duplicate", "getdiagonal", "diagonalscale", "zerorows", "coo"};

typedef enum {
  PREP_GPU,
  PREP_BOTH
} Prep;

typedef struct {
  PetscBool  gpu;
  char       device[256];
  PetscInt   reps, warmup;
  Prep       prep;
  BenchTimer timer;
  double     triad_gbs;
  PetscInt64 triad_n;
  FILE      *csv;
  PetscInt   nbad;
  /* the problem */
  PetscInt   bs, mbs, bpr, nrand, zr_every;
  PetscInt64 nz, nzs; /* values of the matrix, of its band (Xs) */
  PetscInt   nzrows;  /* rows zeroed by zerorows, and the values in them */
  PetscInt64 nzrowvals;
  PetscInt  *zrows;
  PetscInt  *ia, *ja, *sia, *sja; /* the block patterns of A and of Xs (for the sector counts) */
  PetscInt64 secbytes[OP_N][2];   /* the sector bytes of each op measured: ours, the reference (-1: not measured) */
  /* coo */
  PetscReal coo_repeat_frac, coo_max_seconds;
  PetscBool coo_shuffle; /* false: the entries in the order of the blocks (an assembly loop's order), repeats last */
  PetscInt  coo_probe_mbs;
} Bench;

/* one matrix type with its operands */
typedef struct {
  char name[64];
  Mat  A, X, Xs; /* A: operated on; X: a copy of A (never changed); Xs: the band of A (a subset pattern) */
  Vec  x, y, d, dpos, dneg, l, r;
} Side;

/* one operation on one side */
typedef struct {
  double     ev, wall;       /* median seconds: CUDA events, PetscTime after a synchronisation */
  double     h2d, d2h, next; /* median bytes host->device and device->host in the call, uploaded by the MatMult after it */
  double     h2d_max, d2h_max;
  PetscInt64 bytes, sbytes; /* useful bytes; 32-byte sectors touched, in bytes */
  PetscInt   nmeas;
} Meas;

static PetscErrorCode TimerStart(Bench *b)
{
  PetscFunctionBegin;
  PetscCall(BenchTimerStart(&b->timer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ev: between the events (host mode: the wall time); wall: PetscTime() after the device has finished */
static PetscErrorCode TimerStop(Bench *b, double *ev, double *wall)
{
  PetscFunctionBegin;
  PetscCall(BenchTimerStop(&b->timer, ev, wall));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double Median(PetscInt n, PetscReal *v)
{
  return BenchMedian(n, v);
}

static const char *Fmt(double v, char buf[], size_t len, const char *fmt)
{
  if (v < 0) PetscCallAbort(PETSC_COMM_SELF, PetscSNPrintf(buf, len, "-"));
  else PetscCallAbort(PETSC_COMM_SELF, PetscSNPrintf(buf, len, fmt, v));
  return buf;
}

static inline uint64_t SplitMix(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* a value in [0.5, 1.5) that depends on k alone */
static inline PetscScalar ValueOf(PetscInt64 k)
{
  uint64_t s = (uint64_t)k;

  return 0.5 + (double)(SplitMix(&s) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---------------------------------------------------------------------------------------- triad */
/* the triad (bench_util.h) moving `bytes`, remembered per size */
static PetscErrorCode SameTriad(Bench *b, PetscInt64 bytes, double *gbs)
{
  static PetscInt64 sizes[64];
  static double     vals[64];
  static PetscInt   nsizes = 0;
  PetscInt64        N      = PetscMax(bytes / BENCH_TRIAD_BYTES_PER_ENTRY, 4096);

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nsizes; i++)
    if (sizes[i] == N) {
      *gbs = vals[i];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  PetscCall(MeasureTriad(b->gpu, (size_t)N, b->warmup + 1, PetscMax(b->reps, 10), gbs));
  if (nsizes < 64) {
    sizes[nsizes]  = N;
    vals[nsizes++] = *gbs;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- the matrix */
/* Block pattern of mbs block rows, columns ascending: a periodic band of bpr - nrand blocks around the diagonal, plus
   (unless bandonly) nrand distinct random blocks off the band in each row. Same seed, same pattern. */
static PetscErrorCode PatternCreate(PetscInt mbs, PetscInt bpr, PetscInt nrand, PetscBool bandonly, PetscInt **ia, PetscInt **ja)
{
  const PetscInt band = bpr - nrand, lo = -(band - 1) / 2, per = bandonly ? band : bpr;
  uint64_t       seed = 12345;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(mbs + 1, ia));
  PetscCall(PetscMalloc1((size_t)mbs * per, ja));
  for (PetscInt r = 0; r < mbs; r++) {
    PetscInt *row = *ja + (size_t)r * per, k = 0;

    (*ia)[r] = r * per;
    for (PetscInt o = lo; o < lo + band; o++) row[k++] = ((r + o) % mbs + mbs) % mbs;
    while (!bandonly && k < bpr) {
      PetscInt  c   = (PetscInt)(SplitMix(&seed) % (uint64_t)mbs);
      PetscBool dup = PETSC_FALSE;

      for (PetscInt q = 0; q < k; q++) dup = (PetscBool)(dup || row[q] == c);
      if (!dup) row[k++] = c;
    }
    PetscCall(PetscSortInt(per, row));
  }
  (*ia)[mbs] = mbs * per;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a MATSEQBAIJ on the pattern, value k of the value array = ValueOf(k) */
static PetscErrorCode BAIJCreate(PetscInt bs, PetscInt mbs, const PetscInt *ia, const PetscInt *ja, Mat *A)
{
  PetscScalar *a;
  PetscInt64   nv = (PetscInt64)ia[mbs] * bs * bs;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, mbs * bs, mbs * bs, mbs * bs, mbs * bs));
  PetscCall(MatSetType(*A, MATSEQBAIJ));
  PetscCall(MatSeqBAIJSetPreallocationCSR(*A, bs, ia, ja, NULL));
  PetscCall(MatSeqBAIJGetArray(*A, &a));
  for (PetscInt64 k = 0; k < nv; k++) a[k] = ValueOf(k);
  PetscCall(MatSeqBAIJRestoreArray(*A, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B of type `type` holding the values of the BAIJ matrix A0 (AIJ types through PETSc's BAIJ -> AIJ conversion) */
static PetscErrorCode ConvertTo(Mat A0, const char type[], Mat *B)
{
  PetscBool isbaij;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(type, "baij", &isbaij));
  if (!isbaij) PetscCall(PetscStrbeginswith(type, "seqbaij", &isbaij));
  if (isbaij) PetscCall(MatConvert(A0, type, MAT_INITIAL_MATRIX, B));
  else {
    PetscBool plain;

    PetscCall(MatConvert(A0, MATSEQAIJ, MAT_INITIAL_MATRIX, B));
    PetscCall(PetscStrcmpAny(type, &plain, MATAIJ, MATSEQAIJ, ""));
    if (!plain) PetscCall(MatConvert(*B, type, MAT_INPLACE_MATRIX, B));
  }
  PetscCall(MatSetOption(*B, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecNew(Bench *b, PetscInt n, PetscScalar v, Vec *x)
{
  PetscFunctionBegin;
  PetscCall(VecCreate(PETSC_COMM_SELF, x));
  PetscCall(VecSetSizes(*x, n, n));
  PetscCall(VecSetType(*x, b->gpu ? VECCUDA : VECSTANDARD));
  PetscCall(VecSet(*x, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x_i = ValueOf(i) - 1 (the same on both sides), set on the host; the first MatMult uploads it */
static PetscErrorCode VecFill(Vec x)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayWrite(x, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = ValueOf(1000003 + i) - 1.0;
  PetscCall(VecRestoreArrayWrite(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SideCreate(Bench *b, const char type[], Mat A0, Mat S0, Side *s)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(ConvertTo(A0, type, &s->A));
  PetscCall(ConvertTo(A0, type, &s->X));
  PetscCall(ConvertTo(S0, type, &s->Xs));
  {
    MatType t;

    PetscCall(MatGetType(s->A, &t));
    PetscCall(PetscStrncpy(s->name, t, sizeof(s->name)));
  }
  PetscCall(MatGetLocalSize(s->A, &n, NULL));
  PetscCall(VecNew(b, n, 0.0, &s->x));
  PetscCall(VecFill(s->x));
  PetscCall(VecNew(b, n, 0.0, &s->y));
  PetscCall(VecNew(b, n, 0.0, &s->d));
  PetscCall(VecNew(b, n, 1.0, &s->dpos));
  PetscCall(VecNew(b, n, -1.0, &s->dneg));
  PetscCall(VecNew(b, n, 2.0, &s->l));
  PetscCall(VecNew(b, n, 0.5, &s->r));
  /* everything on the device once: the matrices, x */
  PetscCall(MatMult(s->A, s->x, s->y));
  PetscCall(MatMult(s->X, s->x, s->y));
  PetscCall(MatMult(s->Xs, s->x, s->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SideDestroy(Side *s)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&s->A));
  PetscCall(MatDestroy(&s->X));
  PetscCall(MatDestroy(&s->Xs));
  PetscCall(VecDestroy(&s->x));
  PetscCall(VecDestroy(&s->y));
  PetscCall(VecDestroy(&s->d));
  PetscCall(VecDestroy(&s->dpos));
  PetscCall(VecDestroy(&s->dneg));
  PetscCall(VecDestroy(&s->l));
  PetscCall(VecDestroy(&s->r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- operations */
/* bytes counted for op on a matrix of type `type` (the formulas of the manual page above) */
static PetscInt64 OpBytes(const Bench *b, OpId op, PetscBool isaij)
{
  const PetscInt64 n = (PetscInt64)b->mbs * b->bs, nz = b->nz, nblocks = (PetscInt64)b->mbs * b->bpr;

  switch (op) {
  case OP_SCALE:
  case OP_COPY:
    return 16 * nz;
  case OP_SHIFT:
  case OP_DIAGSET_INSERT:
  case OP_GETDIAG:
    return 16 * n;
  case OP_DIAGSET:
    return 24 * n;
  case OP_AXPY_SAME:
    return 24 * nz;
  case OP_AXPY_SUBSET:
    return 24 * b->nzs;
  case OP_ZEROENTRIES:
    return 8 * nz;
  case OP_DUPLICATE:
    return 16 * nz + 2 * (isaij ? 4 * (n + 1 + nz) : 4 * (b->mbs + 1 + nblocks));
  case OP_DIAGSCALE:
    return 16 * nz + 16 * n;
  case OP_ZEROROWS:
    return 8 * b->nzrowvals + 4 * (PetscInt64)b->nzrows;
  default:
    return 0;
  }
}

static const char *OpFormula(OpId op)
{
  switch (op) {
  case OP_SCALE:
    return "16 nz (values read and written)";
  case OP_COPY:
    return "16 nz (X read, A written)";
  case OP_SHIFT:
    return "16 n (diagonal read and written)";
  case OP_DIAGSET_INSERT:
    return "16 n (D read, diagonal written)";
  case OP_GETDIAG:
    return "16 n (diagonal read, d written)";
  case OP_DIAGSET:
    return "24 n (D read, diagonal read and written)";
  case OP_AXPY_SAME:
    return "24 nz (X, A read; A written)";
  case OP_AXPY_SUBSET:
    return "24 nzs (Xs and A's entries under it read, those written; nzs: the band's values)";
  case OP_ZEROENTRIES:
    return "8 nz (written)";
  case OP_DUPLICATE:
    return "16 nz + 2 x device index arrays (baij: 4 (mbs+1+nblocks); aij: 4 (n+1+nz))";
  case OP_DIAGSCALE:
    return "16 nz + 16 n (values read and written, l and r read)";
  case OP_ZEROROWS:
    return "8 x values in the zeroed rows (written) + 4 x rows (read)";
  case OP_COO:
    return "8 ncoo (v) + 8 nz (values written) + 4 ncoo + 4 (nz+1) (gather: permutation, offsets)";
  default:
    return "";
  }
}

/* ---------------------------------------------------------------------------------------- sector bytes */
/* DRAM moves whole 32-byte sectors: an op that reads or writes one 8-byte entry per sector moves 32 bytes for it. The
   sector count is the minimum DRAM traffic of the op as implemented: the distinct sectors its kernel reads plus those
   it writes (a sector read and written counts twice), each array counted from its own start (cudaMalloc aligns to 256
   bytes). SecAdd takes byte ranges in nondecreasing order of their start and counts each sector once. */
typedef struct {
  PetscInt64 last, n; /* last sector counted, sectors counted */
} SecCount;

static inline void SecInit(SecCount *s)
{
  s->last = -1;
  s->n    = 0;
}

static inline void SecAdd(SecCount *s, PetscInt64 off, PetscInt64 len)
{
  PetscInt64 a = off / 32, e = (off + len - 1) / 32;

  if (len <= 0) return;
  if (a <= s->last) a = s->last + 1;
  if (e >= a) s->n += e - a + 1;
  if (e > s->last) s->last = e;
}

/* bytes of the sectors of a whole array of `bytes` bytes */
static inline PetscInt64 Sec(PetscInt64 bytes)
{
  return 32 * ((bytes + 31) / 32);
}

/* position (in the block pattern) of block column c in block row r, -1 without */
static PetscInt BlockPos(const PetscInt *ia, const PetscInt *ja, PetscInt r, PetscInt c)
{
  for (PetscInt q = ia[r]; q < ia[r + 1]; q++)
    if (ja[q] == c) return q;
  return -1;
}

/* Offset (in values) of entry (i, j) of block q of block row r, in the value array of the matrix of pattern ia: BSR
   (ours: bs x bs blocks column-major, one after the other) or CSR (aij: PETSc's conversion stores every entry of every
   block; point row r bs + i holds the (ia[r+1] - ia[r]) bs entries of its blocks in order) */
static inline PetscInt64 EntryOffset(const Bench *b, const PetscInt *ia, PetscBool isaij, PetscInt r, PetscInt q, PetscInt i, PetscInt j)
{
  const PetscInt64 bs = b->bs, bs2 = bs * bs;

  if (!isaij) return (PetscInt64)q * bs2 + j * bs + i;
  return (PetscInt64)ia[r] * bs2 + (PetscInt64)i * (ia[r + 1] - ia[r]) * bs + (PetscInt64)(q - ia[r]) * bs + j;
}

/* sectors (bytes) holding the diagonal entries of A: bs per diagonal block at stride 8 (bs + 1) bytes in BSR, one per
   row in CSR */
static PetscInt64 DiagSectorBytes(const Bench *b, PetscBool isaij)
{
  SecCount s;

  SecInit(&s);
  for (PetscInt r = 0; r < b->mbs; r++) {
    const PetscInt q = BlockPos(b->ia, b->ja, r, r);

    if (q >= 0)
      for (PetscInt i = 0; i < b->bs; i++) SecAdd(&s, 8 * EntryOffset(b, b->ia, isaij, r, q, i, i), 8);
  }
  return 32 * s.n;
}

/* sectors (bytes) of the entries of r (the right vector of MatDiagonalScale) that the block columns present gather */
static PetscErrorCode ColumnSectorBytes(const Bench *b, PetscInt64 *bytes)
{
  PetscBool *has;
  SecCount   s;

  PetscFunctionBegin;
  SecInit(&s);
  PetscCall(PetscCalloc1(b->mbs, &has));
  for (PetscInt64 q = 0; q < b->ia[b->mbs]; q++) has[b->ja[q]] = PETSC_TRUE;
  for (PetscInt c = 0; c < b->mbs; c++)
    if (has[c]) SecAdd(&s, 8 * (PetscInt64)c * b->bs, 8 * (PetscInt64)b->bs);
  PetscCall(PetscFree(has));
  *bytes = 32 * s.n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a Xs, Xs's blocks among A's: the sectors of A's values under Xs's entries (read, and again written) */
static PetscInt64 SubsetSectorBytes(const Bench *b, PetscBool isaij)
{
  const PetscInt bs = b->bs;
  SecCount       s;

  SecInit(&s);
  for (PetscInt r = 0; r < b->mbs; r++) {
    if (!isaij) {
      for (PetscInt qs = b->sia[r]; qs < b->sia[r + 1]; qs++) {
        const PetscInt q = BlockPos(b->ia, b->ja, r, b->sja[qs]);

        SecAdd(&s, 8 * EntryOffset(b, b->ia, PETSC_FALSE, r, q, 0, 0), 8 * (PetscInt64)bs * bs);
      }
    } else {
      for (PetscInt i = 0; i < bs; i++)
        for (PetscInt qs = b->sia[r]; qs < b->sia[r + 1]; qs++) {
          const PetscInt q = BlockPos(b->ia, b->ja, r, b->sja[qs]);

          SecAdd(&s, 8 * EntryOffset(b, b->ia, PETSC_TRUE, r, q, i, 0), 8 * (PetscInt64)bs);
        }
    }
  }
  return 2 * 32 * s.n;
}

/* MatZeroRows(): the row list, and per listed row its row pointers, its diagonal position and the values written (the
   union over the listed rows: rows of one block row share sectors in BSR) */
static PetscErrorCode ZeroRowsSectorBytes(const Bench *b, PetscBool isaij, PetscInt64 *bytes)
{
  const PetscInt bs = b->bs;
  PetscInt      *rows, n = b->nzrows;
  SecCount       sp, sd, sv;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &rows));
  PetscCall(PetscArraycpy(rows, b->zrows, n));
  PetscCall(PetscSortRemoveDupsInt(&n, rows));
  SecInit(&sp);
  SecInit(&sd);
  SecInit(&sv);
  for (PetscInt k = 0; k < n;) {
    const PetscInt r = rows[k] / bs;
    PetscInt       e = k;

    while (e < n && rows[e] / bs == r) e++; /* rows[k..e) lie in block row r */
    if (!isaij) {
      SecAdd(&sp, 4 * (PetscInt64)r, 8); /* rowptr[r], rowptr[r + 1] */
      SecAdd(&sd, 4 * (PetscInt64)r, 4); /* diagpos[r] */
      for (PetscInt q = b->ia[r]; q < b->ia[r + 1]; q++)
        for (PetscInt j = 0; j < bs; j++)
          for (PetscInt t = k; t < e; t++) SecAdd(&sv, 8 * EntryOffset(b, b->ia, PETSC_FALSE, r, q, rows[t] - r * bs, j), 8);
    } else {
      for (PetscInt t = k; t < e; t++) {
        const PetscInt i = rows[t] - r * bs;

        SecAdd(&sp, 4 * (PetscInt64)rows[t], 8);
        SecAdd(&sd, 4 * (PetscInt64)rows[t], 4);
        SecAdd(&sv, 8 * EntryOffset(b, b->ia, PETSC_TRUE, r, b->ia[r], i, 0), 8 * (PetscInt64)(b->ia[r + 1] - b->ia[r]) * bs);
      }
    }
    k = e;
  }
  PetscCall(PetscFree(rows));
  *bytes = Sec(4 * (PetscInt64)b->nzrows) + 32 * (sp.n + sd.n + sv.n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sector bytes of op on a matrix of type `type` (the formulas of the manual page above); -1: not counted */
static PetscErrorCode OpSectorBytes(const Bench *b, OpId op, PetscBool isaij, PetscInt64 *bytes)
{
  const PetscInt64 n = (PetscInt64)b->mbs * b->bs, nz = b->nz, nblocks = b->ia[b->mbs], nsblocks = b->sia[b->mbs];
  const PetscInt64 didx = isaij ? Sec(4 * n) : Sec(4 * (PetscInt64)b->mbs); /* a diagonal position per row / block row */
  const PetscInt64 rowp = isaij ? Sec(4 * (n + 1)) : Sec(4 * ((PetscInt64)b->mbs + 1));
  const PetscInt64 cols = isaij ? Sec(4 * nz) : Sec(4 * nblocks), scols = isaij ? Sec(4 * b->nzs) : Sec(4 * nsblocks);
  PetscInt64       t = 0;

  PetscFunctionBegin;
  switch (op) {
  case OP_SCALE:
  case OP_COPY:
    *bytes = 2 * Sec(8 * nz);
    break;
  case OP_ZEROENTRIES:
    *bytes = Sec(8 * nz);
    break;
  case OP_AXPY_SAME:
    *bytes = 3 * Sec(8 * nz);
    break;
  case OP_SHIFT:
    *bytes = didx + 2 * DiagSectorBytes(b, isaij);
    break;
  case OP_DIAGSET:
    *bytes = didx + Sec(8 * n) + 2 * DiagSectorBytes(b, isaij);
    break;
  case OP_DIAGSET_INSERT: /* the D sectors are written in part: read and merged too */
    *bytes = didx + Sec(8 * n) + 2 * DiagSectorBytes(b, isaij);
    break;
  case OP_GETDIAG:
    *bytes = didx + DiagSectorBytes(b, isaij) + Sec(8 * n);
    break;
  case OP_DIAGSCALE:
    PetscCall(ColumnSectorBytes(b, &t));
    *bytes = rowp + cols + 2 * Sec(8 * nz) + Sec(8 * n) + t;
    break;
  case OP_AXPY_SUBSET:
    *bytes = 2 * rowp + scols + Sec(8 * b->nzs) + cols + SubsetSectorBytes(b, isaij);
    break;
  case OP_DUPLICATE:
    *bytes = 2 * (rowp + cols + Sec(8 * nz) + (isaij ? 0 : didx));
    break;
  case OP_ZEROROWS:
    PetscCall(ZeroRowsSectorBytes(b, isaij, bytes));
    break;
  default:
    *bytes = -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *OpSectorFormula(OpId op)
{
  switch (op) {
  case OP_SCALE:
  case OP_COPY:
    return "2 sec(8 nz)";
  case OP_ZEROENTRIES:
    return "sec(8 nz)";
  case OP_AXPY_SAME:
    return "3 sec(8 nz)";
  case OP_SHIFT:
    return "didx + 2 D";
  case OP_DIAGSET:
    return "didx + sec(8 n) + 2 D";
  case OP_DIAGSET_INSERT:
    return "didx + sec(8 n) + 2 D (a sector written in part is read to merge)";
  case OP_GETDIAG:
    return "didx + D + sec(8 n)";
  case OP_DIAGSCALE:
    return "rowptr + colidx + 2 sec(8 nz) + sec(8 n) (l) + sectors of r under the block columns present";
  case OP_AXPY_SUBSET:
    return "2 rowptr + Xs's colidx + sec(8 nzs) + A's colidx (the searches) + 2 x sectors of A's entries under Xs";
  case OP_DUPLICATE:
    return "2 (rowptr + colidx + sec(8 nz) [+ didx: ours copies diagpos])";
  case OP_ZEROROWS:
    return "sec(4 rows) + per listed row: rowptr pair, didx entry, the value sectors written (union over the rows)";
  case OP_COO:
    return "sec(8 ncoo) + sec(8 nz) + sec(4 ncoo) + sec(4 (nz+1)) (every array read or written whole)";
  default:
    return "";
  }
}

static PetscBool OpChangesA(OpId op)
{
  return (PetscBool)(op != OP_DUPLICATE && op != OP_GETDIAG);
}

/* the k-th call of op on s (signs alternate so that A comes back, exactly for the powers of 2) */
static PetscErrorCode RunOp(Bench *b, Side *s, OpId op, PetscInt k, Mat *dup)
{
  const PetscBool odd = (PetscBool)(k % 2);

  PetscFunctionBegin;
  switch (op) {
  case OP_SCALE:
    PetscCall(MatScale(s->A, odd ? 0.5 : 2.0));
    break;
  case OP_SHIFT:
    PetscCall(MatShift(s->A, odd ? -1.0 : 1.0));
    break;
  case OP_DIAGSET:
    PetscCall(MatDiagonalSet(s->A, odd ? s->dneg : s->dpos, ADD_VALUES));
    break;
  case OP_DIAGSET_INSERT:
    PetscCall(MatDiagonalSet(s->A, s->dpos, INSERT_VALUES));
    break;
  case OP_AXPY_SAME:
    PetscCall(MatAXPY(s->A, odd ? -0.5 : 0.5, s->X, SAME_NONZERO_PATTERN));
    break;
  case OP_AXPY_SUBSET:
    PetscCall(MatAXPY(s->A, odd ? -0.5 : 0.5, s->Xs, SUBSET_NONZERO_PATTERN));
    break;
  case OP_ZEROENTRIES:
    PetscCall(MatZeroEntries(s->A));
    break;
  case OP_COPY:
    PetscCall(MatCopy(s->X, s->A, SAME_NONZERO_PATTERN));
    break;
  case OP_DUPLICATE:
    PetscCall(MatDuplicate(s->A, MAT_COPY_VALUES, dup));
    break;
  case OP_GETDIAG:
    PetscCall(MatGetDiagonal(s->A, s->d));
    break;
  case OP_DIAGSCALE:
    PetscCall(MatDiagonalScale(s->A, s->l, s->r));
    break;
  case OP_ZEROROWS:
    PetscCall(MatZeroRows(s->A, b->nzrows, b->zrows, 1.0, NULL, NULL));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "operation %d is not a value operation", (int)op);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values to the device and newer there (gpu), or current on both sides (both) */
static PetscErrorCode Prepare(Bench *b, Side *s)
{
  PetscFunctionBegin;
  if (b->prep == PREP_GPU) {
    PetscCall(MatScale(s->A, 2.0));
    PetscCall(MatScale(s->A, 0.5));
  } else PetscCall(MatMult(s->A, s->x, s->y));
  PetscCall(BenchSync(b->gpu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* warmup + reps calls of op on s; the last product (getdiagonal: the diagonal) stays in s->y (s->d) */
static PetscErrorCode Measure(Bench *b, Side *s, OpId op, Meas *m)
{
  const PetscInt nrun = b->warmup + b->reps;
  PetscReal     *tev, *twall, *th, *td, *tn;
  PetscBool      isaij;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  PetscCall(PetscStrbeginswith(s->name, "seqaij", &isaij));
  m->bytes = OpBytes(b, op, isaij);
  PetscCall(OpSectorBytes(b, op, isaij, &m->sbytes));
  PetscCall(PetscMalloc5(b->reps, &tev, b->reps, &twall, b->reps, &th, b->reps, &td, b->reps, &tn));
  for (PetscInt k = 0; k < nrun; k++) {
    Mat            dup = NULL, T;
    PetscLogDouble h0, d0, n0;
    double         ev, wall;

    PetscCall(Prepare(b, s));
    if (op == OP_GETDIAG) PetscCall(VecSet(s->d, 0.0));
    PetscCall(BenchSync(b->gpu));
    h0 = petsc_ctog_sz;
    d0 = petsc_gtoc_sz;
    PetscCall(TimerStart(b));
    PetscCall(RunOp(b, s, op, k, &dup));
    PetscCall(TimerStop(b, &ev, &wall));
    h0 = petsc_ctog_sz - h0;
    d0 = petsc_gtoc_sz - d0;
    T  = dup ? dup : s->A;
    n0 = petsc_ctog_sz;
    PetscCall(MatMult(T, s->x, s->y));
    PetscCall(BenchSync(b->gpu));
    n0 = petsc_ctog_sz - n0;
    PetscCall(MatDestroy(&dup));
    if (k >= b->warmup) {
      PetscInt i = k - b->warmup;

      tev[i]     = ev;
      twall[i]   = wall;
      th[i]      = h0;
      td[i]      = d0;
      tn[i]      = n0;
      m->h2d_max = PetscMax(m->h2d_max, h0);
      m->d2h_max = PetscMax(m->d2h_max, d0);
    }
  }
  m->nmeas = b->reps;
  m->ev    = Median(b->reps, tev);
  m->wall  = Median(b->reps, twall);
  m->h2d   = Median(b->reps, th);
  m->d2h   = Median(b->reps, td);
  m->next  = Median(b->reps, tn);
  PetscCall(PetscFree5(tev, twall, th, td, tn));
  if (OpChangesA(op)) PetscCall(MatCopy(s->X, s->A, SAME_NONZERO_PATTERN)); /* A as built, for the next operation */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |a - r| / max |r| (absolute when r = 0) */
static PetscErrorCode RelDiff(Vec a, Vec r, double *diff)
{
  const PetscScalar *pa, *pr;
  PetscInt           n;
  double             nd = 0, nr = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetArrayRead(a, &pa));
  PetscCall(VecGetArrayRead(r, &pr));
  for (PetscInt i = 0; i < n; i++) {
    nd = PetscMax(nd, PetscAbsScalar(pa[i] - pr[i]));
    nr = PetscMax(nr, PetscAbsScalar(pr[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &pa));
  PetscCall(VecRestoreArrayRead(r, &pr));
  *diff = nr > 0 ? nd / nr : nd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- report */
static PetscErrorCode PrintHeader(void)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-18s %-16s %10s %10s %9s %8s %6s %6s %9s %6s %8s %9s %9s %9s %-15s %9s  %s\n", "op", "matrix", "time us", "wall us", "MB", "GB/s", "triad", "same", "sec MB", "sec", "vs ref", "h2d MB", "d2h MB", "next MB", "state", "diff", "path"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one line (and CSV row) per op and matrix type; ref: the reference's measurement for the ratio (NULL on its own row).
   'sec': the fraction of the triad with the sector bytes (-1 in the CSV when not counted) */
static PetscErrorCode Report(Bench *b, const char op[], const char formula[], const char matrix[], PetscInt mbs, PetscInt64 nz, const Meas *m, const Meas *ref, double diff, const char path[])
{
  double gbs = m->ev > 0 ? m->bytes / m->ev / 1e9 : -1, frac = -1, frac_same = -1, same = -1, speed = -1, frac_sec = -1;
  char   c1[32], c2[32], c3[32], c4[32], c5[32], c6[32], st[24];

  PetscFunctionBegin;
  if (b->triad_gbs > 0 && gbs > 0) frac = gbs / b->triad_gbs;
  if (b->triad_gbs > 0 && m->ev > 0 && m->sbytes > 0) frac_sec = m->sbytes / m->ev / 1e9 / b->triad_gbs;
  if (gbs > 0) {
    PetscCall(SameTriad(b, m->bytes, &same));
    frac_same = same > 0 ? gbs / same : -1;
  }
  if (ref && ref->ev > 0 && m->ev > 0) speed = ref->ev / m->ev;
  PetscCall(PetscStrncpy(st, "-", sizeof(st))); /* the offload state: no public getter (see the manual page) */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-18s %-16s %10.1f %10.1f %9.1f %8.1f %6s %6s %9s %6s %8s %9.2f %9.2f %9.2f %-15s %9s  %s\n", op, matrix, 1e6 * m->ev, 1e6 * m->wall, m->bytes / 1e6, gbs, Fmt(100 * frac, c1, sizeof(c1), "%.0f%%"), Fmt(100 * frac_same, c2, sizeof(c2), "%.0f%%"), Fmt(m->sbytes / 1e6, c5, sizeof(c5), "%.1f"), Fmt(100 * frac_sec, c6, sizeof(c6), "%.0f%%"), Fmt(speed, c3, sizeof(c3), "%.2fx"), m->h2d / 1e6, m->d2h / 1e6, m->next / 1e6, st, diff >= 0 ? Fmt(diff, c4, sizeof(c4), "%.1e") : "-", path ? path : ""));
  if (b->csv) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "\"%s\",%s,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt64_FMT ",%" PetscInt64_FMT ",\"%s\",%.6e,%.6e,%.3f,%.4f,%.4f,%.4f,%.0f,%.0f,%.0f,%.0f,%.0f,%s,%s,%.3e,%.1f,%.1f,%" PetscInt_FMT ",\"%s\",%" PetscInt64_FMT ",%.4f\n", b->device, op, matrix, b->bs, mbs, b->bpr, nz, m->bytes, formula, m->ev, m->wall, gbs, frac, frac_same, speed, m->h2d, m->d2h, m->h2d_max, m->d2h_max, m->next, "-", "-", diff, b->triad_gbs, same, m->nmeas, path ? path : "", m->sbytes, frac_sec));
    fflush(b->csv);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the criteria for ours: >= 70% of the triad, >= 1.0x the reference, nothing moved between host and device;
   the triad fraction read twice: with the useful bytes (the verdict of the issue) and with the sector bytes */
static PetscErrorCode Verdict(Bench *b, const char op[], const Meas *m, const Meas *ref, char line[], size_t len)
{
  const double gbs = m->ev > 0 ? m->bytes / m->ev / 1e9 : 0, frac = b->triad_gbs > 0 ? gbs / b->triad_gbs : 0, speed = ref && m->ev > 0 ? ref->ev / m->ev : 0;
  const double sgbs = m->ev > 0 && m->sbytes > 0 ? m->sbytes / m->ev / 1e9 : 0, sfrac = b->triad_gbs > 0 ? sgbs / b->triad_gbs : 0;
  PetscBool    ok1 = (PetscBool)(frac >= 0.7), ok1s = (PetscBool)(sfrac >= 0.7), ok2 = (PetscBool)(speed >= 1.0), ok3 = (PetscBool)(m->h2d_max == 0 && m->d2h_max == 0);
  size_t       l = strlen(line);

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(line + l, len - l, "  %-18s useful bytes: %-6s triad %3.0f%% %s | sector bytes: %-6s triad %3.0f%% %s | vs ref %5.2fx %s   moved %.2f MB %s\n", op, ok1 && ok2 && ok3 ? "MEETS" : "misses", 100 * frac, ok1 ? "ok " : "low", ok1s && ok2 && ok3 ? "MEETS" : "misses", 100 * sfrac, ok1s ? "ok " : "low", speed, ok2 ? "ok  " : "slow", (m->h2d_max + m->d2h_max) / 1e6, ok3 ? "ok" : "(host<->device)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- COO */
typedef struct {
  PetscInt     mbs;
  PetscInt64   nz;
  PetscCount   ncoo;
  PetscInt    *ci, *cj, *ia, *ja;
  PetscScalar *v, *vd; /* v on the host; vd on the device (the host array in host mode) */
} COOProblem;

/* every entry of every block of the pattern of mbs block rows, then nrep of them again, shuffled */
static PetscErrorCode COOCreate(Bench *b, PetscInt mbs, COOProblem *c)
{
  const PetscInt bs = b->bs, bs2 = bs * bs;
  PetscInt64     nrep;
  uint64_t       seed = 777;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->mbs = mbs;
  PetscCall(PatternCreate(mbs, b->bpr, b->nrand, PETSC_FALSE, &c->ia, &c->ja));
  c->nz   = (PetscInt64)c->ia[mbs] * bs2;
  nrep    = (PetscInt64)(b->coo_repeat_frac * (double)c->nz);
  c->ncoo = (PetscCount)(c->nz + nrep);
  PetscCheck(c->ncoo < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt64_FMT " COO entries do not fit 32-bit PetscInt: use a smaller -mbs", (PetscInt64)c->ncoo);
  PetscCall(PetscMalloc3(c->ncoo, &c->ci, c->ncoo, &c->cj, c->ncoo, &c->v));
  for (PetscInt r = 0, k = 0; r < mbs; r++)
    for (PetscInt q = c->ia[r]; q < c->ia[r + 1]; q++)
      for (PetscInt jj = 0; jj < bs; jj++)
        for (PetscInt ii = 0; ii < bs; ii++, k++) {
          c->ci[k] = r * bs + ii;
          c->cj[k] = c->ja[q] * bs + jj;
        }
  for (PetscInt64 k = c->nz; k < (PetscInt64)c->ncoo; k++) { /* repeats of random entries */
    PetscInt64 src = (PetscInt64)(SplitMix(&seed) % (uint64_t)c->nz);

    c->ci[k] = c->ci[src];
    c->cj[k] = c->cj[src];
  }
  for (PetscInt64 k = b->coo_shuffle ? (PetscInt64)c->ncoo - 1 : 0; k > 0; k--) { /* Fisher-Yates */
    PetscInt64 q = (PetscInt64)(SplitMix(&seed) % (uint64_t)(k + 1));
    PetscInt   t;

    t        = c->ci[k];
    c->ci[k] = c->ci[q];
    c->ci[q] = t;
    t        = c->cj[k];
    c->cj[k] = c->cj[q];
    c->cj[q] = t;
  }
  for (PetscInt64 k = 0; k < (PetscInt64)c->ncoo; k++) c->v[k] = ValueOf(k + 99);
  if (b->gpu) {
    PetscCall(BenchCheckCuda(cudaMalloc((void **)&c->vd, sizeof(PetscScalar) * c->ncoo), "cudaMalloc"));
    PetscCall(BenchCheckCuda(cudaMemcpy(c->vd, c->v, sizeof(PetscScalar) * c->ncoo, cudaMemcpyHostToDevice), "cudaMemcpy"));
  } else c->vd = c->v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COODestroy(Bench *b, COOProblem *c)
{
  PetscFunctionBegin;
  if (b->gpu && c->vd) PetscCall(BenchCheckCuda(cudaFree(c->vd), "cudaFree"));
  PetscCall(PetscFree3(c->ci, c->cj, c->v));
  PetscCall(PetscFree(c->ia));
  PetscCall(PetscFree(c->ja));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  Meas      m;
  double    prealloc; /* seconds of MatSetPreallocationCOO */
  PetscBool own;      /* the type composes its own MatSetValuesCOO */
  PetscBool failed;
  char      error[256], name[64]; /* name: the matrix's type */
  Vec       y;                    /* the product after the last call */
} COOResult;

static PetscErrorCode COOInner(Bench *b, const char type[], COOProblem *c, double budget, COOResult *res, Mat *M, Vec *x)
{
  const PetscInt n = c->mbs * b->bs, nrun = b->warmup + b->reps;
  PetscInt      *nnz, *ci, *cj, ncall = 0;
  PetscReal     *tev, *twall, *th, *td, *tn;
  PetscLogDouble t0, t1, used = 0;
  void (*f)(void) = NULL;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, M));
  PetscCall(MatSetSizes(*M, n, n, n, n));
  PetscCall(MatSetBlockSize(*M, b->bs));
  PetscCall(MatSetType(*M, type));
  PetscCall(PetscMalloc1(c->mbs, &nnz));
  for (PetscInt r = 0; r < c->mbs; r++) nnz[r] = c->ia[r + 1] - c->ia[r];
  /* the pattern preallocated first: PETSc's generic COO path sets the entries one by one into it */
  PetscCall(MatXAIJSetPreallocation(*M, b->bs, nnz, NULL, NULL, NULL));
  PetscCall(PetscFree(nnz));
  PetscCall(PetscMalloc2(c->ncoo, &ci, c->ncoo, &cj)); /* PETSc may change the arrays it is given */
  PetscCall(PetscArraycpy(ci, c->ci, c->ncoo));
  PetscCall(PetscArraycpy(cj, c->cj, c->ncoo));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t0));
  PetscCall(MatSetPreallocationCOO(*M, c->ncoo, ci, cj));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscFree2(ci, cj));
  res->prealloc = t1 - t0;
  {
    MatType t;

    PetscCall(MatGetType(*M, &t));
    PetscCall(PetscStrncpy(res->name, t, sizeof(res->name)));
  }
  PetscCall(PetscObjectQueryFunction((PetscObject)*M, "MatSetValuesCOO_C", &f));
  res->own = (PetscBool)(f != NULL);
  PetscCall(VecNew(b, n, 0.0, x));
  PetscCall(VecFill(*x));
  PetscCall(VecNew(b, n, 0.0, &res->y));
  PetscCall(PetscMalloc5(nrun, &tev, nrun, &twall, nrun, &th, nrun, &td, nrun, &tn));
  res->m.bytes  = 8 * (PetscInt64)c->ncoo + 8 * c->nz + 4 * (PetscInt64)c->ncoo + 4 * (c->nz + 1);
  res->m.sbytes = Sec(8 * (PetscInt64)c->ncoo) + Sec(8 * c->nz) + Sec(4 * (PetscInt64)c->ncoo) + Sec(4 * (c->nz + 1));
  for (PetscInt k = 0; k < nrun; k++) {
    PetscLogDouble h0, d0, n0;
    double         ev, wall;

    h0 = petsc_ctog_sz;
    d0 = petsc_gtoc_sz;
    PetscCall(TimerStart(b));
    PetscCall(MatSetValuesCOO(*M, c->vd, INSERT_VALUES));
    PetscCall(TimerStop(b, &ev, &wall));
    tev[ncall]   = ev;
    twall[ncall] = wall;
    th[ncall]    = petsc_ctog_sz - h0;
    td[ncall]    = petsc_gtoc_sz - d0;
    n0           = petsc_ctog_sz;
    PetscCall(MatMult(*M, *x, res->y));
    PetscCall(BenchSync(b->gpu));
    tn[ncall++] = petsc_ctog_sz - n0;
    used += wall;
    if (used > budget) break; /* a slow path: what has been measured is reported */
  }
  { /* the calls after the warm-up, or all of them when the budget ended before */
    PetscInt first = ncall > b->warmup ? b->warmup : 0, nm = ncall - first;

    for (PetscInt i = first; i < ncall; i++) {
      res->m.h2d_max = PetscMax(res->m.h2d_max, th[i]);
      res->m.d2h_max = PetscMax(res->m.d2h_max, td[i]);
    }
    res->m.nmeas = nm;
    res->m.ev    = Median(nm, tev + first);
    res->m.wall  = Median(nm, twall + first);
    res->m.h2d   = Median(nm, th + first);
    res->m.d2h   = Median(nm, td + first);
    res->m.next  = Median(nm, tn + first);
  }
  PetscCall(PetscFree5(tev, twall, th, td, tn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO on matrix type `type`; a PETSc error is reported in res, not passed on (the generic path may refuse device
   values) */
static PetscErrorCode COORun(Bench *b, const char type[], COOProblem *c, double budget, COOResult *res)
{
  Mat            M = NULL;
  Vec            x = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = COOInner(b, type, c, budget, res, &M, &x);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *text = NULL, *specific = NULL;

    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    res->failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(res->error, sizeof(res->error), "PETSc error %d: %s%s%s", (int)ierr, text ? text : "", specific ? ": " : "", specific ? specific : ""));
    for (char *q = res->error; *q; q++)
      if (*q == '"' || *q == '\n' || *q == ',') *q = ' ';
    if (b->gpu) (void)cudaGetLastError();
  }
  PetscCall(MatDestroy(&M));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCOO(Bench *b, const char ours[], const char ref[], char verdicts[], size_t vlen)
{
  COOProblem  c;
  COOResult   ro, rr;
  PetscInt    mbs = b->mbs, mbs_p = PetscMin(b->mbs, b->coo_probe_mbs);
  double      diff = -1, est = 0;
  char        path_o[160], path_r[160];
  const char *generic = "PETSc's generic MatSetValuesCOO (entry by entry on the host)";

  PetscFunctionBegin;
  /* probe: preallocation + calls at mbs_p / 2 and mbs_p block rows; the marginal cost (the fixed costs of a small
     problem left out) extrapolated to mbs, per type; the run shrinks to what the slower type does within the budget */
  if (mbs_p < mbs && mbs_p / 2 >= 2 * b->bpr) {
    const PetscInt m[2]    = {mbs_p / 2, mbs_p};
    double         t[2][2] = {{0, 0}, {0, 0}}; /* [probe][type] */
    PetscInt       fit     = mbs;

    for (int q = 0; q < 2; q++) {
      PetscCall(COOCreate(b, m[q], &c));
      for (int ty = 0; ty < 2; ty++) {
        PetscCall(COORun(b, ty ? ref : ours, &c, b->coo_max_seconds, &ro));
        if (!ro.failed && ro.m.nmeas > 0) t[q][ty] = ro.prealloc + (b->warmup + b->reps) * ro.m.wall;
        PetscCall(VecDestroy(&ro.y));
      }
      PetscCall(COODestroy(b, &c));
    }
    for (int ty = 0; ty < 2; ty++) {
      const double slope = PetscMax(t[1][ty] - t[0][ty], 0.0) / (double)(m[1] - m[0]), e = t[1][ty] + slope * (double)(mbs - m[1]);

      est = PetscMax(est, e);
      if (e > b->coo_max_seconds) fit = PetscMin(fit, slope > 0 ? PetscMax(m[1], m[1] + (PetscInt)((b->coo_max_seconds - t[1][ty]) / slope)) : m[1]);
    }
    if (fit < mbs) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  coo: the probes at %" PetscInt_FMT " and %" PetscInt_FMT " block rows estimate %.2f s for preallocation + %" PetscInt_FMT " calls at %" PetscInt_FMT "; run at %" PetscInt_FMT " block rows (-coo_max_seconds %.3f)\n", m[0], m[1], est, b->warmup + b->reps, mbs, fit,
                            (double)b->coo_max_seconds));
      mbs = fit;
    }
  }
  PetscCall(COOCreate(b, mbs, &c));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  coo: %" PetscInt_FMT " block rows, nz %" PetscInt64_FMT ", ncoo %" PetscInt64_FMT " (every entry of every block, %.0f%% repeated, %s), v on the %s\n", mbs, c.nz, (PetscInt64)c.ncoo, 100 * b->coo_repeat_frac, b->coo_shuffle ? "shuffled" : "in block order", b->gpu ? "device" : "host"));
  PetscCall(COORun(b, ours, &c, b->coo_max_seconds, &ro));
  PetscCall(COORun(b, ref, &c, b->coo_max_seconds, &rr));
  if (!ro.failed && !rr.failed) {
    PetscCall(RelDiff(ro.y, rr.y, &diff));
    if (diff > 1e-10) b->nbad++;
  }
  for (int t = 0; t < 2; t++) {
    COOResult  *r    = t ? &rr : &ro;
    char       *path = t ? path_r : path_o;
    const char *name = r->name[0] ? r->name : (t ? ref : ours);

    PetscCall(PetscSNPrintf(path, 160, "%s; preallocation %.3f s; %" PetscInt_FMT " call(s) timed%s", r->own ? "the type's MatSetValuesCOO" : generic, r->prealloc, r->m.nmeas, r->m.nmeas < b->reps ? " (-coo_max_seconds)" : ""));
    if (r->failed) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-18s %-16s failed: %s\n", "coo", name, r->error));
    else PetscCall(Report(b, "coo", OpFormula(OP_COO), name, mbs, c.nz, &r->m, t ? NULL : &rr.m, t ? -1 : diff, path));
  }
  if (!ro.failed && !rr.failed) PetscCall(Verdict(b, "coo", &ro.m, &rr.m, verdicts, vlen));
  b->secbytes[OP_COO][0] = ro.failed ? -1 : ro.m.sbytes;
  b->secbytes[OP_COO][1] = rr.failed ? -1 : rr.m.sbytes;
  PetscCall(VecDestroy(&ro.y));
  PetscCall(VecDestroy(&rr.y));
  PetscCall(COODestroy(b, &c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- main */
int main(int argc, char **argv)
{
  Bench          b;
  char          *ops[OP_N + 4], csvname[PETSC_MAX_PATH_LEN] = "", ours[64] = MATBAIJKSPARSE, ref[64] = "", prep[16] = "gpu";
  PetscInt       nops = OP_N + 4, triad_n = 0;
  PetscBool      flg, host = PETSC_FALSE, check = PETSC_FALSE, want[OP_N];
  PetscLogDouble tstart, tend;
  static char    verdicts[8192];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscTime(&tstart));
  PetscCall(PetscMemzero(&b, sizeof(b)));
  b.bs              = 4;
  b.bpr             = 7;
  b.nrand           = 2;
  b.reps            = 10;
  b.warmup          = 2;
  b.zr_every        = 10;
  b.coo_repeat_frac = 0.1;
  b.coo_shuffle     = PETSC_TRUE;
  b.coo_max_seconds = 60;
  b.coo_probe_mbs   = 8192;
  b.mbs             = 0;
  for (PetscInt o = 0; o < OP_N; o++) b.secbytes[o][0] = b.secbytes[o][1] = -1;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_values options", "bench_values");
  PetscCall(PetscOptionsInt("-bs", "block size", "bench_values", b.bs, &b.bs, NULL));
  PetscCall(PetscOptionsInt("-mbs", "block rows (0: >= 1 GiB of values)", "bench_values", b.mbs, &b.mbs, NULL));
  PetscCall(PetscOptionsInt("-blocks_per_row", "blocks per block row", "bench_values", b.bpr, &b.bpr, NULL));
  PetscCall(PetscOptionsInt("-random_blocks", "blocks per block row off the band, at random", "bench_values", b.nrand, &b.nrand, NULL));
  PetscCall(PetscOptionsStringArray("-ops", "operations", "bench_values", ops, &nops, &flg));
  if (!flg) nops = 0;
  PetscCall(PetscOptionsInt("-reps", "timed calls", "bench_values", b.reps, &b.reps, NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed calls first", "bench_values", b.warmup, &b.warmup, NULL));
  PetscCall(PetscOptionsString("-prep", "values before each call: gpu (device newer) or both", "bench_values", prep, prep, sizeof(prep), NULL));
  PetscCall(PetscOptionsInt("-zero_rows_every", "zerorows: every k-th block row", "bench_values", b.zr_every, &b.zr_every, NULL));
  PetscCall(PetscOptionsReal("-coo_repeat_frac", "coo: repeated entries, fraction of nz", "bench_values", b.coo_repeat_frac, &b.coo_repeat_frac, NULL));
  PetscCall(PetscOptionsBool("-coo_shuffle", "coo: entries in random order (false: in the order of the blocks)", "bench_values", b.coo_shuffle, &b.coo_shuffle, NULL));
  PetscCall(PetscOptionsReal("-coo_max_seconds", "coo: seconds allowed per type", "bench_values", b.coo_max_seconds, &b.coo_max_seconds, NULL));
  PetscCall(PetscOptionsInt("-coo_probe_mbs", "coo: block rows of the probe", "bench_values", b.coo_probe_mbs, &b.coo_probe_mbs, NULL));
  PetscCall(PetscOptionsInt("-triad_n", "entries of the triad vectors (0: the bytes of MatScale)", "bench_values", triad_n, &triad_n, NULL));
  PetscCall(PetscOptionsString("-our_type", "our matrix type", "bench_values", ours, ours, sizeof(ours), NULL));
  PetscCall(PetscOptionsString("-ref_type", "reference matrix type", "bench_values", ref, ref, sizeof(ref), NULL));
  PetscCall(PetscOptionsString("-o", "CSV output file", "bench_values", csvname, csvname, sizeof(csvname), NULL));
  PetscCall(PetscOptionsBool("-check", "fail when ours and the reference differ", "bench_values", check, &check, NULL));
  PetscCall(PetscOptionsBool("-host", "run on the host (functional check)", "bench_values", host, &host, NULL));
  PetscOptionsEnd();

  PetscCheck(b.bs >= 1 && b.bpr >= 1 && b.nrand >= 0 && b.nrand < b.bpr, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "need -bs >= 1, -blocks_per_row >= 1 and 0 <= -random_blocks < -blocks_per_row");
  PetscCheck(b.reps >= 1 && b.warmup >= 0 && b.zr_every >= 1 && b.coo_probe_mbs >= 1 && b.coo_max_seconds > 0 && b.coo_repeat_frac >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "need -reps >= 1, -warmup >= 0, -zero_rows_every >= 1, -coo_probe_mbs >= 1, -coo_max_seconds > 0, -coo_repeat_frac >= 0");
  if (!b.mbs) b.mbs = (PetscInt)(((PetscInt64)1 << 30) / (8 * (PetscInt64)b.bs * b.bs * b.bpr) + 1);
  PetscCheck(b.mbs >= 2 * b.bpr, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-mbs %" PetscInt_FMT " is too small for %" PetscInt_FMT " blocks per row: need at least %" PetscInt_FMT, b.mbs, b.bpr, 2 * b.bpr);
  PetscCheck((PetscInt64)b.mbs * b.bpr * b.bs * b.bs < PETSC_INT_MAX, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt64_FMT " values do not fit 32-bit indices: use a smaller -mbs", (PetscInt64)b.mbs * b.bpr * b.bs * b.bs);
  if (!strcmp(prep, "gpu")) b.prep = PREP_GPU;
  else if (!strcmp(prep, "both")) b.prep = PREP_BOTH;
  else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-prep %s: use gpu or both", prep);
  for (PetscInt o = 0; o < OP_N; o++) want[o] = (PetscBool)(nops == 0);
  for (PetscInt k = 0; k < nops; k++) {
    PetscInt o;

    for (o = 0; o < OP_N; o++)
      if (!strcmp(ops[k], OpNames[o])) break;
    PetscCheck(o < OP_N, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown op \"%s\" in -ops", ops[k]);
    want[o] = PETSC_TRUE;
  }

  b.gpu = (PetscBool)!host;
  if (!ref[0]) PetscCall(PetscStrncpy(ref, b.gpu ? MATAIJCUSPARSE : MATAIJ, sizeof(ref)));
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

  b.nz  = (PetscInt64)b.mbs * b.bpr * b.bs * b.bs;
  b.nzs = (PetscInt64)b.mbs * (b.bpr - b.nrand) * b.bs * b.bs;
  {
    PetscInt nzr = (b.mbs + b.zr_every - 1) / b.zr_every;

    b.nzrows    = nzr * b.bs;
    b.nzrowvals = (PetscInt64)b.nzrows * b.bpr * b.bs;
    PetscCall(PetscMalloc1(b.nzrows, &b.zrows));
    for (PetscInt r = 0, k = 0; r < b.mbs; r += b.zr_every)
      for (PetscInt i = 0; i < b.bs; i++) b.zrows[k++] = r * b.bs + i;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_values: device %s\n", b.device));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  matrix: bs %" PetscInt_FMT ", %" PetscInt_FMT " block rows (n = %" PetscInt_FMT "), %" PetscInt_FMT " blocks per row (a periodic band of %" PetscInt_FMT " + %" PetscInt_FMT " random), nz = %" PetscInt64_FMT " values (%.3f GB), band nzs = %" PetscInt64_FMT "; zerorows: %" PetscInt_FMT " rows\n", b.bs, b.mbs, b.mbs * b.bs, b.bpr, b.bpr - b.nrand, b.nrand, b.nz, 8e-9 * b.nz, b.nzs, b.nzrows));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  ours %s against %s; median of %" PetscInt_FMT " calls after %" PetscInt_FMT " warm-up; before each call: %s\n", ours, ref, b.reps, b.warmup, b.prep == PREP_GPU ? "MatScale(2), MatScale(0.5) (values newer on the device where MatScale runs there)" : "a MatMult (host and device copies current)"));
  {
    PetscInt64 tn = triad_n > 0 ? triad_n : PetscMax((PetscInt64)1 << 25, 16 * b.nz / 24);

    if (!b.gpu) tn = PetscMin(tn, (PetscInt64)1 << 22);
    b.triad_n = tn;
    PetscCall(MeasureTriad(b.gpu, (size_t)tn, b.warmup + 1, PetscMax(b.reps, 10), &b.triad_gbs));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  triad on %" PetscInt64_FMT " entries (a = b + s c on raw %s arrays, %d bytes an entry): 'triad' = %.1f GB/s; 'same': the same on as many bytes as the operation\n", tn, b.gpu ? "device" : "host", BENCH_TRIAD_BYTES_PER_ENTRY, b.triad_gbs));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  time: CUDA events on PETSc's stream around the call; wall: PetscTime after a device sync; MB: bytes counted (formulas below); vs ref: ref time / ours (> 1: ours faster)\n"));
  PetscCall(
    PetscPrintf(PETSC_COMM_SELF, "  h2d/d2h MB: PETSc's counters (petsc_ctog_sz/petsc_gtoc_sz) during the call; next: uploaded by the MatMult after it; state: - (no public getter of the offload mask); diff: ours vs ref after the last call\n"));
  if (csvname[0]) {
    PetscCall(BenchCSVOpen(csvname, "device,op,matrix,bs,mbs,blocks_per_row,nz,bytes,formula,time_s,wall_s,GBs,frac_triad,frac_triad_same,speed_vs_ref,h2d_bytes,d2h_bytes,h2d_bytes_max,d2h_bytes_max,next_h2d_bytes,state_before,state_after,maxdiff_vs_ref,triad_GBs,triad_same_GBs,calls,path,sector_bytes,frac_triad_sector", PETSC_FALSE, &b.csv));
  }

  {
    PetscBool any = PETSC_FALSE;

    for (PetscInt o = 0; o < OP_COO; o++) any = (PetscBool)(any || want[o]);
    if (any) {
      Mat  A0, S0;
      Side so, sr;

      PetscCall(PatternCreate(b.mbs, b.bpr, b.nrand, PETSC_FALSE, &b.ia, &b.ja));
      PetscCall(BAIJCreate(b.bs, b.mbs, b.ia, b.ja, &A0));
      PetscCall(PatternCreate(b.mbs, b.bpr, b.nrand, PETSC_TRUE, &b.sia, &b.sja));
      PetscCall(BAIJCreate(b.bs, b.mbs, b.sia, b.sja, &S0));
      PetscCall(SideCreate(&b, ours, A0, S0, &so));
      PetscCall(SideCreate(&b, ref, A0, S0, &sr));
      PetscCall(MatDestroy(&A0));
      PetscCall(MatDestroy(&S0));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
      PetscCall(PrintHeader());
      for (PetscInt o = 0; o < OP_COO; o++) {
        Meas   mo, mr;
        double diff;

        if (!want[o]) continue;
        PetscCall(Measure(&b, &so, (OpId)o, &mo));
        PetscCall(Measure(&b, &sr, (OpId)o, &mr));
        if (o == OP_GETDIAG) PetscCall(RelDiff(so.d, sr.d, &diff));
        else PetscCall(RelDiff(so.y, sr.y, &diff));
        if (!(diff <= 1e-10)) b.nbad++;
        PetscCall(Report(&b, OpNames[o], OpFormula((OpId)o), so.name, b.mbs, b.nz, &mo, &mr, diff, ""));
        PetscCall(Report(&b, OpNames[o], OpFormula((OpId)o), sr.name, b.mbs, b.nz, &mr, NULL, -1, ""));
        PetscCall(Verdict(&b, OpNames[o], &mo, &mr, verdicts, sizeof(verdicts)));
        b.secbytes[o][0] = mo.sbytes;
        b.secbytes[o][1] = mr.sbytes;
      }
      PetscCall(SideDestroy(&so));
      PetscCall(SideDestroy(&sr));
    } else PetscCall(PrintHeader());
  }
  if (want[OP_COO]) PetscCall(RunCOO(&b, ours, ref, verdicts, sizeof(verdicts)));

  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n  bytes counted (nz values, n rows, per call):\n"));
  for (PetscInt o = 0; o < OP_N; o++)
    if (want[o]) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %-18s %s\n", OpNames[o], OpFormula((OpId)o)));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "\n  sector bytes (32 x the 32-byte DRAM sectors the kernel reads + those it writes; sec(B): the sectors of an array of B bytes;\n"
                        "  D: those holding the diagonal entries, didx: the diagonal positions, ours 4 mbs, %s 4 n; layouts: see the manual page):\n",
                        ref));
  for (PetscInt o = 0; o < OP_N; o++)
    if (want[o]) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %-18s %s: %" PetscInt64_FMT " bytes (%s), %" PetscInt64_FMT " (%s)\n", OpNames[o], OpSectorFormula((OpId)o), b.secbytes[o][0], ours, b.secbytes[o][1], ref));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "\n  issue 11 criteria for %s (>= 70%% of the triad, >= 1.0x %s, 0 bytes host<->device in every timed call), the triad fraction\n"
                        "  read with the useful bytes (the issue's reading) and with the sector bytes:\n%s",
                        ours, ref, verdicts));
  PetscCall(BenchCSVClose(&b.csv));
  PetscCall(PetscTime(&tend));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nbench_values: done in %.1f s%s%s; %" PetscInt_FMT " comparison(s) of ours against %s differ by more than 1e-10\n", tend - tstart, csvname[0] ? ", CSV in " : "", csvname, b.nbad, ref));
  PetscCheck(!check || !b.nbad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-check: %" PetscInt_FMT " result(s) of %s differ from %s's", b.nbad, ours, ref);
  PetscCall(BenchTimerDestroy(&b.timer));
  PetscCall(PetscFree(b.zrows));
  PetscCall(PetscFree(b.ia));
  PetscCall(PetscFree(b.ja));
  PetscCall(PetscFree(b.sia));
  PetscCall(PetscFree(b.sja));
  for (PetscInt k = 0; k < nops; k++) PetscCall(PetscFree(ops[k]));
  PetscCall(PetscFinalize());
  return 0;
}
