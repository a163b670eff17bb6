/*
  NAME
    bench_solve - time to solution of PETSc's Krylov methods with PCVBJACOBI against PETSc's point and block Jacobi,
                  on real matrices (the paper's protocol)

  SYNOPSIS
    bench_solve [-f FILE[:BS][,FILE[:BS]...]] [-suitesparse_dir DIR] [-matrices_dir DIR]
                [-ksp_types idr,idrs,gmres,bcgs] [-pcs jacobi,pbjacobi,vpbjacobi,vbjacobi,vbjacobi-default]
                [-bounds 8,12,16,24,32] [-blockings supervariable,matrix] [-mat_types aij,baij]
                [-rtol 1e-9] [-max_it 50000] [-time_cap 20] [-stagnation_its 0] [-budget 0] [-seed 1] [-divtol 1e30]
                [-pc_side left|right]
                [-o CSV] [-append] [-host] [-warmup <bool>]

  DESCRIPTION
    For each matrix, solves A x = b from x0 = 0 with b uniformly random in [0, 1) (PetscRandom, seed -seed, the same
    b for every run on a matrix), until the relative residual norm has dropped below -rtol (KSPSetTolerances: rtol
    1e-9, abstol 0, divtol -divtol (1e30: no early divergence stop), at most -max_it iterations), with
      KSPs   idr    PETSc's KSPIDR, s = 4 (KSPIDRSetS)
             idrs   this package's KSPIDRS, s = 4 (KSPIDRSSetS; -ksp_idrs_fused, on by default, takes the fused CUDA
                    path on CUDA vectors)
             gmres  GMRES(30)
             bcgs   BiCGStab
      PCs    jacobi            PETSc's PCJACOBI
             pbjacobi          PETSc's PCPBJACOBI with the matrix block size (matrices with BS > 1)
             vpbjacobi         PETSc's PCVPBJACOBI (inverts on the host) with the SAME blocks as vbjacobi at each bound:
                               taken from a set-up vbjacobi (PCVBJacobiGetBlocks(), -pc_vbjacobi_blocking
                               supervariable) and given by MatSetVariableBlockSizes()
             vbjacobi          PCVBJACOBI, -pc_vbjacobi_max_block_size at each bound of -bounds with each blocking of
                               -blockings: supervariable (natural supervariables merged greedily up to the bound),
                               natural (runs of identical rows cut at the bound; only when asked for), matrix (the
                               matrix block size; BS > 1, bound "-")
             vbjacobi-default  PCVBJACOBI with no options at all
      matrices  on a GPU: aijcusparse with CUDA vectors; and, for BS > 1, baijksparse (MATBAIJ with block size BS,
                converted): vbjacobi and vbjacobi-default run on both, the PETSc PCs on aijcusparse. Without a GPU
                (or with -host): aij and baij with standard vectors, a functional check, not a benchmark.
    Each run gets a fresh KSP (so every setup is a first setup): setup = PCSetUp() then KSPSetUp() (pc_setup_s: the
    PCSetUp() alone; KSPIDR's KSPSetUp() adds 3s+4 work vectors and a random orthonormal shadow space, about 0.1 s at
    1M rows; KSPIDRS's KSPSetUp() makes its work vectors and a shadow space hashed from the global indices), solve = KSPSolve(), each between device synchronisations, wall-clock; total = setup + solve. The matrices are on the
    device before any timing (one MatMult), and a small untimed warm-up pass solves with every PC type and matrix
    type first, so that the one-time costs of the process (CUDA module loading, library handles) are in no row.
    Each KSP uses its default norm: under left preconditioning the preconditioned residual for idr, gmres and bcgs, the
    unpreconditioned (true) residual for idrs (its default on either side; idrs's default side is right, so bench_solve
    sets left explicitly, -ksp_pc_side left in its options string). The CSV's pc_side and norm columns are what
    KSPGetPCSide() and KSPGetNormType() say after KSPSetUp(). The reported residual is always the true one,
    ||b - A x|| / ||b||, computed after the solve.
    A convergence test wraps KSPConvergedDefault(): it stops a solve that has run longer than -time_cap seconds
    (reason "time cap", KSP_DIVERGED_ITS to PETSc), and records the residual history's extremes for the note column.
    -stagnation_its N (default 0: off): also stop a solve whose residual norm has not dropped below 0.9 times its
    last reference value in N iterations (reason "stagnation"; a converging run needs 9 orders in 50,000 iterations,
    8x per 5000 on average, so N = 5000 stops only runs that have stalled or diverge).
    -budget S: no run starts after S seconds of the process (the runs left are listed as skipped).
    -pc_side right: right preconditioning and the unpreconditioned residual norm for every KSP (the paper's test);
    default left, PETSc's default, under which idr, gmres and bcgs test the preconditioned norm and idrs the true one.

    Matrices: -f FILE[:BS],... (BS: block size of the problem, default 1); FILE.mtx or FILE.mtx.gz is read as Matrix
    Market (bench/drivers/mmio_petsc.h; symmetric storage expanded), anything else with MatLoad() (PETSc binary: of several
    matrices in the file the last is taken, a vector in it is ignored). -suitesparse_dir DIR: every *.mtx.gz and
    *.mtx in DIR, BS 1 (a missing DIR is skipped with a message). -matrices_dir DIR: DIR/MANIFEST.tsv of
    conf/fetch-matrices.sh (name rows nnz bs ...) and DIR/NAME.petsc.

    Reported per run (aligned text on stdout, CSV with -o; -append adds to an existing CSV): matrix, rows, nnz, bs,
    mat type, ksp, pc, bound, blocking, the PETSc options of the run, iterations, cycles (IDR(s): the paper's unit, one
    per cycle of s + 1 products, ceil(iterations / (s + 1)); "-" for other KSPs), converged reason (or "time cap"), the
    relative residual norm the KSP tested last (IDR: the recurrence residual; KSPIDRS then confirms on b - A x), the
    true relative residual ||b - A x|| / ||b||, setup/solve/total seconds, seconds per iteration, the bytes floor of one iteration and the
    fraction of it reached (below), number of blocks, mean block size, a note, and the bench_solve command line that
    repeats the row. bench/plots/plot_solve.py makes tables (among them idrs against idr) and performance profiles from the
    CSV. -append refuses a CSV whose header is not this program's (one of an older column layout). A run counts as
    converged (the summary's count) only when its reason is CONVERGED_* and its true relative residual is <= 10 rtol;
    a CONVERGED_* reason above that is named in the note.

    Bytes floor (CSV floor_bytes_per_it, floor_frac; text column "floor" = floor_frac): the least memory traffic of
    one iteration, each array read or written once, in bytes (n rows, 8-byte values, 4-byte indices):
      floor_bytes_per_it = matmult_bytes + pc_bytes + 8 n passes(ksp)             (idr, idrs)
                         = 2 matmult_bytes + 2 pc_bytes + 8 n 12                  (bcgs: 2 products, 2 PC applications
                                                                                   and 12 vector passes per iteration)
      gmres: "-" (its vector work grows with the Krylov basis up to the restart)
      matmult_bytes  aij(cusparse), vpbjacobi's aij copy: 12 nnz + 4 (n + 1) + 16 n   (values + column indices, row
                                                      pointers, x read once, y written)
                     baij(ksparse), block size bs, nb stored blocks: nb (8 bs^2 + 4) + 4 (n/bs + 1) + 16 n
      pc_bytes       vbjacobi, vbjacobi-default: 8 sum_b k_b^2 + 16 n (the inverses of the blocks of sizes k_b, from
                     PCVBJacobiGetBlocks(), + x + y); vpbjacobi: the same with its blocks (MatGetVariableBlockSizes());
                     jacobi: 24 n; pbjacobi: 8 bs n + 16 n
      passes(s)      IDR(s), s = 4, per iteration (one product with the preconditioned operator; a cycle is s + 1
                     iterations: s inner steps of 3 s + 13 vector reads/writes each, and s + 8 in the omega step):
                       (3 s^2 + 14 s + 8) / (s + 1) = 22.4                                    right preconditioning,
                                                                             or left with the preconditioned norm
                       (s (3 s + 16) + s (s - 1) / 2 + s + 10) / (s + 1) = 26.4      left with the unpreconditioned
                                                                             norm (idrs's second recurrence b - A x)
                     The same for idr as for idrs: the floor is the algorithm's, not an implementation's.
      floor_frac = floor_bytes_per_it / time_per_it_s / triad_Bps, where triad_Bps is measured once per process at
      startup: the triad of bench/common/bench_util.h (a = b + s c on raw device arrays of 2^26 entries, 24 bytes per
      entry: two reads, one write), the median of 5 after one warm-up (printed in the header). On the host
      path floor_bytes_per_it is still given and floor_frac is "-".

    KSPIDR, KSPIDRS and KSP_DIVERGED_DTOL: see IDR_NOTE below (printed in the header of the output).

  EXAMPLES
    bench_solve -suitesparse_dir data/suitesparse -ksp_types idr -o solve.csv
    bench_solve -f cavity512.petsc:4,grayscott512.petsc:2 -ksp_types idr,idrs,gmres -time_cap 10
    bench_solve -f mymatrix.mtx.gz:3 -pcs jacobi,vbjacobi -bounds 8,16
*/
static char help[] = "Time to solution of KSPIDR(4)/KSPIDRS(4)/GMRES(30)/BiCGStab with vbjacobi against jacobi, pbjacobi, vpbjacobi on real matrices.\n"
                     "  -f <file[:bs],...>        matrices: .mtx/.mtx.gz (Matrix Market) or PETSc binary; bs default 1\n"
                     "  -suitesparse_dir <dir>    every *.mtx.gz / *.mtx in DIR (bs 1); skipped with a message when absent\n"
                     "  -matrices_dir <dir>       DIR/MANIFEST.tsv and DIR/NAME.petsc (conf/fetch-matrices.sh)\n"
                     "  -ksp_types <list>         idr,idrs,gmres,bcgs (default all; idrs: this package's KSPIDRS)\n"
                     "  -pcs <list>               jacobi,pbjacobi,vpbjacobi,vbjacobi,vbjacobi-default (default all)\n"
                     "  -bounds <list>            vbjacobi maximum block sizes (default 8,12,16,24,32)\n"
                     "  -blockings <list>         vbjacobi blockings: supervariable,natural,matrix (default supervariable,matrix)\n"
                     "  -mat_types <list>         aij,baij (GPU: aijcusparse, baijksparse; default both)\n"
                     "  -rtol <r>                 relative tolerance (default 1e-9); -divtol <d> (default 1e30)\n"
                     "  -max_it <n>               iteration limit (default 50000)\n"
                     "  -time_cap <s>             wall-clock limit of one solve (default 20)\n"
                     "  -stagnation_its <n>       stop a solve when ||r|| has not dropped by 10% in N iterations (default 0: never)\n"
                     "  -budget <s>               start no run after S seconds of the process (default 0: none)\n"
                     "  -seed <n>                 seed of the random right-hand side (default 1)\n"
                     "  -pc_side <left,right>     left: each KSP's default norm (idrs: the true residual); right: unpreconditioned norm\n"
                     "  -o <file.csv>             CSV output; -append adds to an existing file\n"
                     "  -host                     run on the host even when a GPU is present\n"
                     "  -warmup <bool>            the untimed warm-up pass (default true)\n"
                     "  PETSc options on the command line (-ksp_monitor, -pc_vbjacobi_extraction, ...) apply to every run.\n\n";

#include <petscksp.h>
#include <petscdevice_cuda.h>
#include <petscblockgpu.h>
#include <cuda_runtime.h>
#include <dirent.h>
#include <unistd.h>
#include "mmio_petsc.h"
#include "bench_util.h"

#define MAXLIST 64

/* the CSV columns (tests/cases/bench_solve.sh and bench/plots/plot_solve.py read them by name) */
#define IDR_S 4 /* s of IDR(s), as the paper's Table 1 */
static const char CSV_HEADER[] = "device,matrix,rows,nnz,bs,mat_type,ksp,pc_side,norm,pc,bound,blocking,options,iterations,cycles,reason,recurrence_rel_residual,true_rel_residual,setup_s,pc_setup_s,solve_s,total_s,time_per_it_s,floor_bytes_per_it,"
                                 "floor_frac,nblocks,mean_block,note,rerun,file";

/* What PETSc 3.26's KSPIDR means by KSP_DIVERGED_DTOL (read in src/ksp/ksp/impls/idr/idr.c and
   src/ksp/ksp/interface/iterativ.c), and how KSPIDRS (src/ksp/idrs/idrs.c) stops. */
static const char IDR_NOTE[] = "KSPIDR and DIVERGED_DTOL: PETSc 3.26's KSPIDR (src/ksp/ksp/impls/idr/idr.c) never sets DIVERGED_DTOL itself, and it is\n"
                               "  no breakdown (those are DIVERGED_BREAKDOWN: |M[k][k]| < 10 eps ||r||, or ||A'r|| = 0) and no NaN (DIVERGED_NANORINF,\n"
                               "  from KSPCheckNorm). It comes from the convergence test, KSPConvergedDefault, which IDR calls after each of its s+1\n"
                               "  residual updates per cycle: DTOL when the residual norm it is given (the recursively updated one, preconditioned\n"
                               "  under PETSc's default left preconditioning) is >= divtol * ||r0||. With divtol 1e30 that is a residual grown by 30\n"
                               "  orders of magnitude: the IDR(s) recurrence diverges. Measured here (s3rmq4m1, host): the residual stagnates near\n"
                               "  1e-4..1e-5 of ||r0|| within ~3000 iterations and then grows steadily, by at most 1e3..1e4 in one step, to >= 1e30\n"
                               "  after 10^4..4*10^4 iterations; the same runs with fewer iterations end at the limit with ||r||/||r0|| ~ 1e22..1e26.\n"
                               "  The note column gives, per run: the ratio at the stop, the best ratio and where, the largest one-step growth.\n"
                               "  KSPIDRS (idrs) likewise calls KSPConvergedDefault after each of its s+1 iterations per cycle (DTOL from there\n"
                               "  only, on its true residual by default); its breakdowns are DIVERGED_BREAKDOWN (a zero divisor: M(k,k) =\n"
                               "  p_k^H g_k, or ||A'r||, ||r|| or (A'r, r) in the omega step) and a NaN/Inf norm or inner product is\n"
                               "  DIVERGED_NANORINF.\n"
                               "  Also: under left preconditioning a 1e-9 drop of the preconditioned norm can leave the TRUE residual at 1e-1\n"
                               "  (bcsstk17/18: the Jacobi scaling spans many orders of magnitude): look at relres; -pc_side right tests the\n"
                               "  unpreconditioned norm, as the paper does; idrs tests it on either side.\n";

typedef enum {
  PCK_JACOBI,
  PCK_PBJACOBI,
  PCK_VPBJACOBI,
  PCK_VBJACOBI,
  PCK_VBJACOBI_DEFAULT
} PCKind;
static const char *const PCKindNames[] = {"jacobi", "pbjacobi", "vpbjacobi", "vbjacobi", "vbjacobi-default"};

typedef struct {
  PCKind    kind;
  PetscInt  bound;        /* -1: none */
  char      blocking[32]; /* "-", "auto", "supervariable", "natural", "matrix" */
  PetscBool baij;         /* on the baij/baijksparse matrix */
} Config;

/* one matrix to solve */
typedef struct {
  char     path[PETSC_MAX_PATH_LEN], name[128], set[32];
  PetscInt bs;
} Entry;

typedef struct {
  char       name[128], path[PETSC_MAX_PATH_LEN];
  PetscInt   bs, n;
  PetscInt64 nnz, nbblocks; /* nonzeros of A; stored bs x bs blocks of Ab */
  Mat        A, Ab, Avp;    /* aij(cusparse); baij(ksparse) when bs > 1; a copy of A for vpbjacobi's variable blocks */
  Vec        b, x, r;
  PetscReal  bnorm;
} Problem;

/* the convergence test around KSPConvergedDefault: time cap and residual history */
typedef struct {
  void          *dctx;
  PetscLogDouble t0, cap;
  PetscBool      capped, stagnated;
  PetscInt       stag_its, itref; /* -stagnation_its: stop when ||r|| has not dropped below 0.9 ref in stag_its iterations */
  PetscReal      ref;
  PetscReal      r0, rmin, rprev, growth;
  PetscReal      rrec; /* the first norm tested at the last iteration: the recurrence residual where KSPIDRS then tests b - A x */
  PetscInt       itmin, itgrowth, itlast;
} CapCtx;

typedef struct {
  PetscInt  its, nblocks;
  char      reason[32], note[512], options[512], rerun[1024], norm[32], side[8];
  double    relres, setup, pc_setup, solve, meanblock;
  double    recres;      /* the relative residual norm the KSP tested last (IDR: its recurrence residual) */
  PetscInt  cycles;      /* IDR(s): the paper's iterations, one per cycle of s + 1 products (ceil(its / (s + 1))); else -1 */
  double    floor_bytes; /* bytes floor of one iteration (manual page); < 0: none for this KSP */
  PetscBool converged;   /* PETSc's reason says converged and the true residual is within 10 rtol */
  PetscBool error;
} Result;

typedef struct {
  PetscBool      gpu, quiet, append;
  char           device[256];
  FILE          *csv;
  PetscReal      rtol, divtol, time_cap, budget;
  PCSide         side; /* PC_LEFT (PETSc's default) or PC_RIGHT with the unpreconditioned norm */
  PetscInt       max_it, seed, stag_its;
  char          *ksps[MAXLIST], *pcs[MAXLIST], *blockings[MAXLIST], *mattypes[MAXLIST];
  PetscInt       nksp, npc, nblocking, nmattype, bounds[MAXLIST], nbound;
  PetscLogDouble tstart;
  PetscInt       nruns, nconv, ncapped, nstag, nerror, nskipped;
  char           skipped[4096];
  PetscBool      natural_known; /* this build's PCVBJacobiBlocking has "natural" */
  double         triad_Bps;     /* bytes/s of the triad (bench_util.h); 0 on the host */
  PetscInt       triad_n;
} Bench;

static PetscBool InList(char *const list[], PetscInt n, const char *s)
{
  for (PetscInt k = 0; k < n; k++)
    if (!strcmp(list[k], s)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* The triad (bench_util.h) for floor_frac: n = 2^26 entries, halved while three vectors would not fit in half the free
   memory, the median of 5 after one warm-up */
static PetscErrorCode BenchTriad(Bench *b)
{
  size_t freeb = 0, totalb = 0;
  double gbs;

  PetscFunctionBegin;
  PetscCall(BenchCheckCuda(cudaMemGetInfo(&freeb, &totalb), "cudaMemGetInfo"));
  b->triad_n = (PetscInt)1 << 26;
  while (b->triad_n > ((PetscInt)1 << 20) && 3.0 * 8 * b->triad_n > 0.5 * (double)freeb) b->triad_n /= 2;
  PetscCall(MeasureTriad(PETSC_TRUE, (size_t)b->triad_n, 1, 5, &gbs));
  b->triad_Bps = 1e9 * gbs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- convergence test */
static PetscErrorCode CapTest(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, PetscCtx ctx)
{
  CapCtx *c = (CapCtx *)ctx;

  PetscFunctionBegin;
  PetscCall(KSPConvergedDefault(ksp, it, rnorm, reason, c->dctx));
  if (it == 0 || it != c->itlast) c->rrec = rnorm;
  if (it == 0) {
    c->r0 = c->rmin = c->rprev = c->ref = rnorm;
    c->growth                           = 1.0;
    c->itmin = c->itgrowth = c->itref = 0;
  } else if (!PetscIsInfOrNanReal(rnorm)) {
    if (rnorm < 0.9 * c->ref) {
      c->ref   = rnorm;
      c->itref = it;
    }
    if (rnorm < c->rmin) {
      c->rmin  = rnorm;
      c->itmin = it;
    }
    if (c->rprev > 0 && rnorm / c->rprev > c->growth) {
      c->growth   = rnorm / c->rprev;
      c->itgrowth = it;
    }
    c->rprev = rnorm;
  }
  c->itlast = it;
  if (*reason == KSP_CONVERGED_ITERATING && c->stag_its > 0 && it - c->itref >= c->stag_its) {
    *reason      = KSP_DIVERGED_ITS;
    c->stagnated = PETSC_TRUE;
  }
  if (*reason == KSP_CONVERGED_ITERATING && c->cap > 0) {
    PetscLogDouble t;

    PetscCall(PetscTime(&t));
    if (t - c->t0 > c->cap) {
      *reason   = KSP_DIVERGED_ITS;
      c->capped = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- matrices */
static PetscBool EndsWith(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);

  return (PetscBool)(n >= m && !strcmp(s + n - m, suffix));
}

static void BaseName(const char *path, char *name, size_t len)
{
  const char *base  = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  const char *ext[] = {".mtx.gz", ".mtx", ".petsc", ".dat", ".bin"};

  snprintf(name, len, "%s", base);
  for (int k = 0; k < 5; k++)
    if (EndsWith(name, ext[k])) {
      name[strlen(name) - strlen(ext[k])] = 0;
      break;
    }
}

/* PETSc binary: the last matrix of the file (-ksp_view_mat binary:FILE of a program with several solves appends one
   per solve); a vector stored after a matrix is ignored */
static PetscErrorCode LoadPetscBinary(const char path[], PetscInt bs, Mat *A)
{
  PetscViewer v;
  int         fd;
  PetscInt    nmat = 0;
  PetscBool   readable;

  PetscFunctionBegin;
  PetscCall(PetscTestFile(path, 'r', &readable));
  PetscCheck(readable, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "matrix file %s: cannot read it", path);
  /* the .info file beside it is not read: the block size comes from FILE:BS */
  PetscCall(PetscViewerCreate(PETSC_COMM_SELF, &v));
  PetscCall(PetscViewerSetType(v, PETSCVIEWERBINARY));
  PetscCall(PetscViewerBinarySetSkipInfo(v, PETSC_TRUE));
  PetscCall(PetscViewerFileSetMode(v, FILE_MODE_READ));
  PetscCall(PetscViewerFileSetName(v, path));
  PetscCall(PetscViewerBinaryGetDescriptor(v, &fd));
  *A = NULL;
  for (;;) {
    PetscInt32 cls = 0;
    PetscInt   cnt = 0;
    off_t      pos;

    /* peek at the class id of the next object */
    PetscCall(PetscBinaryRead(fd, &cls, 1, &cnt, PETSC_INT32));
    if (cnt < 1 || cls != MAT_FILE_CLASSID) break;
    PetscCall(PetscBinarySeek(fd, -(off_t)sizeof(PetscInt32), PETSC_BINARY_SEEK_CUR, &pos));
    PetscCall(MatDestroy(A));
    PetscCall(MatCreate(PETSC_COMM_SELF, A));
    if (bs > 1) PetscCall(MatSetBlockSize(*A, bs));
    PetscCall(MatSetType(*A, MATSEQAIJ));
    PetscCall(MatLoad(*A, v));
    nmat++;
  }
  PetscCall(PetscViewerDestroy(&v));
  PetscCheck(nmat > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "matrix file %s: no PETSc binary matrix in it (not a Matrix Market .mtx/.mtx.gz either)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block matrix of the AIJ matrix H (its block size set): baijksparse with CUDA vectors on a GPU, baij on the host;
   and its number of stored blocks (for the bytes floor) */
static PetscErrorCode BlockMatrix(Bench *b, Mat H, Mat *Ab, PetscInt64 *nblocks)
{
  Mat      B;
  MatInfo  info;
  PetscInt bs;

  PetscFunctionBegin;
  PetscCall(MatConvert(H, MATSEQBAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatGetBlockSize(B, &bs));
  PetscCall(MatGetInfo(B, MAT_LOCAL, &info)); /* BAIJ counts the entries of its stored blocks, bs^2 each */
  *nblocks = (PetscInt64)info.nz_used / ((PetscInt64)bs * bs);
  if (b->gpu) {
    PetscCall(MatConvert(B, MATSEQBAIJKSPARSE, MAT_INITIAL_MATRIX, Ab));
    PetscCall(MatSetVecType(*Ab, VECCUDA));
    PetscCall(MatDestroy(&B));
  } else *Ab = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemLoad(Bench *b, const Entry *e, Problem *p)
{
  Mat      H;
  MatInfo  info;
  PetscInt m, nc;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(PetscStrncpy(p->name, e->name, sizeof(p->name)));
  PetscCall(PetscStrncpy(p->path, e->path, sizeof(p->path)));
  p->bs = e->bs;
  if (EndsWith(e->path, ".mtx") || EndsWith(e->path, ".mtx.gz")) PetscCall(MatCreateFromMatrixMarket(e->path, e->bs, &H));
  else PetscCall(LoadPetscBinary(e->path, e->bs, &H));
  PetscCall(MatGetSize(H, &m, &nc));
  PetscCheck(m == nc, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "matrix %s is %" PetscInt_FMT " x %" PetscInt_FMT ", not square", e->path, m, nc);
  p->n = m;
  PetscCall(MatGetInfo(H, MAT_LOCAL, &info));
  p->nnz = (PetscInt64)info.nz_used;
  if (p->bs > 1 && InList(b->mattypes, b->nmattype, "baij")) { PetscCall(BlockMatrix(b, H, &p->Ab, &p->nbblocks)); }
  if (b->gpu) {
    PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &p->A));
    PetscCall(MatSetVecType(p->A, VECCUDA));
    PetscCall(MatDestroy(&H));
  } else p->A = H;
  if (InList(b->pcs, b->npc, "vpbjacobi") && InList(b->mattypes, b->nmattype, "aij")) PetscCall(MatDuplicate(p->A, MAT_COPY_VALUES, &p->Avp));

  PetscCall(MatCreateVecs(p->A, &p->x, &p->b));
  PetscCall(VecDuplicate(p->b, &p->r));
  {
    PetscRandom rnd;

    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, 0.0, 1.0));
    PetscCall(PetscRandomSetSeed(rnd, (unsigned long)b->seed));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(p->b, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(VecNorm(p->b, NORM_2, &p->bnorm));
  /* the values on the device before any timing */
  PetscCall(MatMult(p->A, p->b, p->x));
  if (p->Ab) PetscCall(MatMult(p->Ab, p->b, p->x));
  if (p->Avp) PetscCall(MatMult(p->Avp, p->b, p->x));
  PetscCall(BenchSync(b->gpu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProblemDestroy(Problem *p)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&p->A));
  PetscCall(MatDestroy(&p->Ab));
  PetscCall(MatDestroy(&p->Avp));
  PetscCall(VecDestroy(&p->b));
  PetscCall(VecDestroy(&p->x));
  PetscCall(VecDestroy(&p->r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A small matrix for the warm-up pass: 2-D 5-point Laplacian (g x g nodes) with d unknowns per node, dense d x d
   couplings, diagonally dominant and nonsymmetric */
static PetscErrorCode WarmupProblem(Bench *b, PetscInt d, Problem *p)
{
  PetscInt g = d > 8 ? 8 : 16, n = g * g * d;
  Mat      H;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(PetscSNPrintf(p->name, sizeof(p->name), "warmup-bs%" PetscInt_FMT, d));
  p->bs = d;
  p->n  = n;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 5 * d, NULL, &H));
  if (d > 1) PetscCall(MatSetBlockSize(H, d));
  for (PetscInt j = 0; j < g; j++)
    for (PetscInt i = 0; i < g; i++) {
      PetscInt node = j * g + i, nb[5] = {node, j > 0 ? node - g : -1, i > 0 ? node - 1 : -1, i < g - 1 ? node + 1 : -1, j < g - 1 ? node + g : -1};

      for (PetscInt q = 0; q < 5; q++) {
        if (nb[q] < 0) continue;
        for (PetscInt r = 0; r < d; r++)
          for (PetscInt c = 0; c < d; c++) {
            PetscInt    row = node * d + r, col = nb[q] * d + c;
            PetscScalar v = q == 0 ? (r == c ? 4.0 + d : 0.3 / (1 + r + 2 * c)) : (r == c ? -1.0 : 0.05 / (1 + c));

            PetscCall(MatSetValue(H, row, col, v, INSERT_VALUES));
          }
      }
    }
  PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
  {
    MatInfo info;

    PetscCall(MatGetInfo(H, MAT_LOCAL, &info));
    p->nnz = (PetscInt64)info.nz_used;
  }
  if (b->gpu) {
    PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &p->A));
    PetscCall(MatSetVecType(p->A, VECCUDA));
  } else PetscCall(MatDuplicate(H, MAT_COPY_VALUES, &p->A));
  if (d > 1) PetscCall(BlockMatrix(b, H, &p->Ab, &p->nbblocks));
  PetscCall(MatDuplicate(p->A, MAT_COPY_VALUES, &p->Avp));
  PetscCall(MatDestroy(&H));
  PetscCall(MatCreateVecs(p->A, &p->x, &p->b));
  PetscCall(VecDuplicate(p->b, &p->r));
  PetscCall(VecSet(p->b, 1.0));
  PetscCall(VecNorm(p->b, NORM_2, &p->bnorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- configurations */
static PetscErrorCode Configs(Bench *b, PetscInt bs, PetscBool withbaij, Config *cf, PetscInt *ncf)
{
  PetscInt  n   = 0;
  PetscBool aij = InList(b->mattypes, b->nmattype, "aij"), baij = (PetscBool)(withbaij && bs > 1 && InList(b->mattypes, b->nmattype, "baij"));

  PetscFunctionBegin;
#define ADD(K, BOUND, BLK, BAIJ) \
  do { \
    cf[n].kind  = (K); \
    cf[n].bound = (BOUND); \
    cf[n].baij  = (BAIJ); \
    PetscCall(PetscStrncpy(cf[n].blocking, (BLK), sizeof(cf[n].blocking))); \
    n++; \
  } while (0)
  if (aij && InList(b->pcs, b->npc, "jacobi")) ADD(PCK_JACOBI, -1, "-", PETSC_FALSE);
  if (aij && bs > 1 && InList(b->pcs, b->npc, "pbjacobi")) ADD(PCK_PBJACOBI, -1, "-", PETSC_FALSE);
  if (InList(b->pcs, b->npc, "vbjacobi-default")) {
    if (aij) ADD(PCK_VBJACOBI_DEFAULT, -1, "auto", PETSC_FALSE);
    if (baij) ADD(PCK_VBJACOBI_DEFAULT, -1, "auto", PETSC_TRUE);
  }
  if (InList(b->pcs, b->npc, "vbjacobi")) {
    for (PetscInt q = 0; q < b->nblocking; q++) {
      const char *blk = b->blockings[q];

      if (!strcmp(blk, "matrix")) {
        if (bs == 1) continue;
        if (aij) ADD(PCK_VBJACOBI, -1, blk, PETSC_FALSE);
        if (baij) ADD(PCK_VBJACOBI, -1, blk, PETSC_TRUE);
        continue;
      }
      if (!strcmp(blk, "natural") && !b->natural_known) continue;
      for (PetscInt k = 0; k < b->nbound; k++) {
        if (aij) ADD(PCK_VBJACOBI, b->bounds[k], blk, PETSC_FALSE);
        if (baij) ADD(PCK_VBJACOBI, b->bounds[k], blk, PETSC_TRUE);
      }
    }
  }
  if (aij && InList(b->pcs, b->npc, "vpbjacobi"))
    for (PetscInt k = 0; k < b->nbound; k++) ADD(PCK_VPBJACOBI, b->bounds[k], "supervariable", PETSC_FALSE);
#undef ADD
  *ncf = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *MatTypeName(Bench *b, PetscBool baij)
{
  return b->gpu ? (baij ? "baijksparse" : "aijcusparse") : (baij ? "baij" : "aij");
}

static PetscErrorCode OptionsString(Bench *b, const Problem *p, const char *ksptype, const Config *c, char *s, size_t len)
{
  char kspo[64] = "", pco[256] = "", mato[96];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(mato, sizeof(mato), "-mat_type %s%s", MatTypeName(b, c->baij), b->gpu ? " -vec_type cuda" : ""));
  if (p->bs > 1) {
    size_t l = strlen(mato);
    PetscCall(PetscSNPrintf(mato + l, sizeof(mato) - l, " -mat_block_size %" PetscInt_FMT, p->bs));
  }
  if (!strcmp(ksptype, "idr")) PetscCall(PetscSNPrintf(kspo, sizeof(kspo), " -ksp_idr_s %d", IDR_S));
  else if (!strcmp(ksptype, "idrs")) PetscCall(PetscSNPrintf(kspo, sizeof(kspo), " -ksp_idrs_s %d%s", IDR_S, b->side == PC_LEFT ? " -ksp_pc_side left" : "")); /* its default side is right */
  else if (!strcmp(ksptype, "gmres")) PetscCall(PetscStrncpy(kspo, " -ksp_gmres_restart 30", sizeof(kspo)));
  switch (c->kind) {
  case PCK_JACOBI:
    PetscCall(PetscStrncpy(pco, "-pc_type jacobi", sizeof(pco)));
    break;
  case PCK_PBJACOBI:
    PetscCall(PetscStrncpy(pco, "-pc_type pbjacobi", sizeof(pco)));
    break;
  case PCK_VPBJACOBI:
    PetscCall(PetscSNPrintf(pco, sizeof(pco), "-pc_type vpbjacobi [MatSetVariableBlockSizes(): the blocks of -pc_type vbjacobi -pc_vbjacobi_blocking supervariable -pc_vbjacobi_max_block_size %" PetscInt_FMT "]", c->bound));
    break;
  case PCK_VBJACOBI:
    if (c->bound > 0) PetscCall(PetscSNPrintf(pco, sizeof(pco), "-pc_type vbjacobi -pc_vbjacobi_max_block_size %" PetscInt_FMT " -pc_vbjacobi_blocking %s", c->bound, c->blocking));
    else PetscCall(PetscSNPrintf(pco, sizeof(pco), "-pc_type vbjacobi -pc_vbjacobi_blocking %s", c->blocking));
    break;
  case PCK_VBJACOBI_DEFAULT:
    PetscCall(PetscStrncpy(pco, "-pc_type vbjacobi", sizeof(pco)));
    break;
  }
  PetscCall(PetscSNPrintf(s, len, "%s -ksp_type %s%s%s -ksp_rtol %g -ksp_atol 0 -ksp_divtol %g -ksp_max_it %" PetscInt_FMT " %s", mato, ksptype, kspo, b->side == PC_RIGHT ? " -ksp_pc_side right -ksp_norm_type unpreconditioned" : "", (double)b->rtol,
                          (double)b->divtol, b->max_it, pco));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocks of vbjacobi with blocking supervariable at the bound, as sizes (untimed) */
static PetscErrorCode SupervariableSizes(Problem *p, PetscInt bound, PetscInt *nblocks, PetscInt **sizes)
{
  PC              pc;
  const PetscInt *starts;

  PetscFunctionBegin;
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetOperators(pc, p->A, p->A));
  PetscCall(PCSetType(pc, PCVBJACOBI));
  PetscCall(PCVBJacobiSetMaxBlockSize(pc, bound));
  PetscCall(PCVBJacobiSetBlocking(pc, PC_VBJACOBI_BLOCKING_SUPERVARIABLE));
  PetscCall(PCSetUp(pc));
  PetscCall(PCVBJacobiGetBlocks(pc, nblocks, &starts));
  PetscCall(PetscMalloc1(*nblocks, sizes));
  for (PetscInt k = 0; k < *nblocks; k++) (*sizes)[k] = starts[k + 1] - starts[k];
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* IDR(s) vector passes (8 n bytes each) per iteration, a cycle being s + 1 iterations: s inner steps of 3 s + 13 and an
   omega step of s + 8; left preconditioning with the true residual adds the recurrence b - A x (manual page) */
static double IDRPasses(PetscInt s, PetscBool lefttrue)
{
  double ds = (double)s;

  if (lefttrue) return (ds * (3 * ds + 16) + ds * (ds - 1) / 2 + ds + 10) / (ds + 1);
  return (3 * ds * ds + 14 * ds + 8) / (ds + 1);
}

/* The bytes floor of one iteration (manual page), from the matrix M of the run and the set-up PC; -1: no count for
   this KSP (gmres) */
static PetscErrorCode FloorBytes(const Problem *p, const char *ksptype, const Config *c, Mat M, PC pc, PCSide side, KSPNormType normtype, double *bytes)
{
  double n = (double)p->n, mm, pcb = 16 * n, sq = 0;

  PetscFunctionBegin;
  *bytes = -1;
  if (c->baij) mm = (double)p->nbblocks * (8.0 * p->bs * p->bs + 4) + 4.0 * (p->n / p->bs + 1) + 16 * n;
  else mm = 12.0 * (double)p->nnz + 4 * (n + 1) + 16 * n;
  switch (c->kind) {
  case PCK_JACOBI:
    pcb = 24 * n;
    break;
  case PCK_PBJACOBI:
    pcb = 8.0 * p->bs * n + 16 * n;
    break;
  case PCK_VPBJACOBI: {
    PetscInt        nb;
    const PetscInt *sz;

    PetscCall(MatGetVariableBlockSizes(M, &nb, &sz));
    for (PetscInt k = 0; k < nb; k++) sq += (double)sz[k] * sz[k];
    pcb += 8 * sq;
  } break;
  case PCK_VBJACOBI:
  case PCK_VBJACOBI_DEFAULT: {
    PetscInt        nb;
    const PetscInt *st;

    PetscCall(PCVBJacobiGetBlocks(pc, &nb, &st));
    for (PetscInt k = 0; k < nb; k++) sq += (double)(st[k + 1] - st[k]) * (st[k + 1] - st[k]);
    pcb += 8 * sq;
  } break;
  }
  if (!strcmp(ksptype, "idr") || !strcmp(ksptype, "idrs")) *bytes = mm + pcb + 8 * n * IDRPasses(4, (PetscBool)(side == PC_LEFT && normtype == KSP_NORM_UNPRECONDITIONED));
  else if (!strcmp(ksptype, "bcgs")) *bytes = 2 * mm + 2 * pcb + 8 * n * 12;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One timed solve; errors return to the caller (which records them) */
static PetscErrorCode RunInner(Bench *b, Problem *p, const char *ksptype, const Config *c, PetscInt max_it, KSP *kspout, CapCtx *cap, Result *res)
{
  KSP                ksp;
  PC                 pc;
  Mat                M = c->baij ? p->Ab : (c->kind == PCK_VPBJACOBI ? p->Avp : p->A);
  PetscLogDouble     t0, tp, t1, t2;
  KSPConvergedReason reason;
  KSPNormType        normtype;
  PCSide             side;
  PetscReal          rn;

  PetscFunctionBegin;
  if (c->kind == PCK_VPBJACOBI) {
    PetscInt nb, *sizes;

    PetscCall(SupervariableSizes(p, c->bound, &nb, &sizes));
    PetscCall(MatSetVariableBlockSizes(p->Avp, nb, sizes));
    PetscCall(PetscFree(sizes));
  }
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  *kspout = ksp;
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(KSPSetType(ksp, !strcmp(ksptype, "idr") ? KSPIDR : !strcmp(ksptype, "idrs") ? KSPIDRS : !strcmp(ksptype, "gmres") ? KSPGMRES : KSPBCGS));
  if (!strcmp(ksptype, "idr")) PetscCall(KSPIDRSetS(ksp, 4));
  if (!strcmp(ksptype, "idrs")) PetscCall(KSPIDRSSetS(ksp, 4));
  if (!strcmp(ksptype, "gmres")) PetscCall(KSPGMRESSetRestart(ksp, 30));
  PetscCall(KSPSetTolerances(ksp, b->rtol, 0.0, b->divtol, max_it));
  if (b->side == PC_RIGHT) {
    PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  } else PetscCall(KSPSetPCSide(ksp, PC_LEFT)); /* the default side of idr, gmres, bcgs; idrs's is right. The norm stays each KSP's default */
  PetscCall(KSPGetPC(ksp, &pc));
  switch (c->kind) {
  case PCK_JACOBI:
    PetscCall(PCSetType(pc, PCJACOBI));
    break;
  case PCK_PBJACOBI:
    PetscCall(PCSetType(pc, PCPBJACOBI));
    break;
  case PCK_VPBJACOBI:
    PetscCall(PCSetType(pc, PCVPBJACOBI));
    break;
  case PCK_VBJACOBI: {
    PetscEnum val;
    PetscBool found;

    PetscCall(PCSetType(pc, PCVBJACOBI));
    if (c->bound > 0) PetscCall(PCVBJacobiSetMaxBlockSize(pc, c->bound));
    PetscCall(PetscEnumFind(PCVBJacobiBlockings, c->blocking, &val, &found));
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-pc_vbjacobi_blocking %s is not known to this build of the library", c->blocking);
    PetscCall(PCVBJacobiSetBlocking(pc, (PCVBJacobiBlocking)val));
  } break;
  case PCK_VBJACOBI_DEFAULT:
    PetscCall(PCSetType(pc, PCVBJACOBI));
    break;
  }
  PetscCall(KSPSetFromOptions(ksp)); /* command-line extras: -ksp_monitor, -pc_vbjacobi_extraction, ... */
  PetscCall(KSPConvergedDefaultCreate(&cap->dctx));
  cap->cap      = b->quiet ? 0 : b->time_cap;
  cap->stag_its = b->quiet ? 0 : b->stag_its;
  PetscCall(KSPSetConvergenceTest(ksp, CapTest, cap, NULL));
  PetscCall(VecSet(p->x, 0.0));

  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t0));
  PetscCall(PCSetUp(pc)); /* timed alone too: KSPSetUp's own part (KSPIDR: 3s+4 work vectors, a random shadow space) is the rest */
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&tp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t1));
  cap->t0 = t1;
  PetscCall(KSPSolve(ksp, p->b, p->x));
  PetscCall(BenchSync(b->gpu));
  PetscCall(PetscTime(&t2));

  res->setup    = t1 - t0;
  res->pc_setup = tp - t0;
  res->solve    = t2 - t1;
  PetscCall(KSPGetIterationNumber(ksp, &res->its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  res->cycles = (!strcmp(ksptype, "idr") || !strcmp(ksptype, "idrs")) ? (res->its + IDR_S) / (IDR_S + 1) : -1;
  res->recres = cap->r0 > 0 ? cap->rrec / cap->r0 : cap->rrec;
  if (cap->capped) PetscCall(PetscStrncpy(res->reason, "time cap", sizeof(res->reason)));
  else if (cap->stagnated) PetscCall(PetscStrncpy(res->reason, "stagnation", sizeof(res->reason)));
  else PetscCall(PetscStrncpy(res->reason, KSPConvergedReasons[reason], sizeof(res->reason)));
  PetscCall(MatMult(M, p->x, p->r));
  PetscCall(VecAYPX(p->r, -1.0, p->b));
  PetscCall(VecNorm(p->r, NORM_2, &rn));
  res->relres    = p->bnorm > 0 ? rn / p->bnorm : rn;
  res->converged = (PetscBool)(reason > 0 && !cap->capped && !cap->stagnated && res->relres <= 10 * b->rtol); /* by the true residual only */
  switch (c->kind) {
  case PCK_JACOBI:
    res->nblocks = p->n;
    break;
  case PCK_PBJACOBI:
    res->nblocks = p->n / p->bs;
    break;
  case PCK_VPBJACOBI: {
    PetscInt        nb;
    const PetscInt *sz;

    PetscCall(MatGetVariableBlockSizes(M, &nb, &sz));
    res->nblocks = nb;
  } break;
  default:
    PetscCall(PCVBJacobiGetBlocks(pc, &res->nblocks, NULL));
  }
  res->meanblock = res->nblocks ? (double)p->n / res->nblocks : 0;

  /* side and norm as KSPSetUp() resolved them (idrs: the true residual by default on either side) */
  PetscCall(KSPGetNormType(ksp, &normtype));
  PetscCall(KSPGetPCSide(ksp, &side));
  PetscCall(PetscStrncpy(res->norm, KSPNormTypes[normtype], sizeof(res->norm)));
  for (char *q = res->norm; *q; q++) *q = (char)tolower((unsigned char)*q);
  PetscCall(PetscStrncpy(res->side, side == PC_RIGHT ? "right" : side == PC_LEFT ? "left" : "symmetric", sizeof(res->side)));
  PetscCall(FloorBytes(p, ksptype, c, M, pc, side, normtype, &res->floor_bytes));

  /* the note */
  if (reason == KSP_DIVERGED_DTOL) {
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "DTOL (KSPConvergedDefault): ||r||/||r0|| = %.1e >= divtol at it %" PetscInt_FMT " (%s norm); largest one-step growth %.1e x at it %" PetscInt_FMT "; best %.1e at it %" PetscInt_FMT "%s",
                            (double)(cap->rprev / cap->r0), cap->itlast, KSPNormTypes[normtype], (double)cap->growth, cap->itgrowth, (double)(cap->rmin / cap->r0), cap->itmin, cap->growth > 1e10 ? " (one-step blow-up: a near-breakdown)" : " (gradual divergence after stagnation)"));
  } else if (reason == KSP_DIVERGED_NANORINF) {
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "NaN/Inf residual norm or inner product at it %" PetscInt_FMT "; largest one-step growth %.1e x at it %" PetscInt_FMT "; best ||r||/||r0|| %.1e at it %" PetscInt_FMT, cap->itlast, (double)cap->growth,
                            cap->itgrowth, (double)(cap->rmin / cap->r0), cap->itmin));
  } else if (reason == KSP_DIVERGED_BREAKDOWN) {
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "breakdown at it %" PetscInt_FMT "%s; best ||r||/||r0|| %.1e at it %" PetscInt_FMT, cap->itlast,
                            !strcmp(ksptype, "idr") ? " (IDR: |M[k][k]| < 10 eps ||r|| or ||A'r|| = 0)"
                            : !strcmp(ksptype, "idrs")
                              ? " (IDRS: M(k,k) = p_k^H g_k = 0, or ||A'r||, ||r|| or (A'r, r) = 0 in the omega step, or a restart that did not halve the drift: the tolerance below the attainable accuracy; -ksp_view and -info say which)"
                              : "",
                            (double)(cap->rmin / cap->r0), cap->itmin));
  } else if (cap->stagnated) {
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "stopped by -stagnation_its %" PetscInt_FMT ": no 10%% drop of ||r|| since it %" PetscInt_FMT "; ||r||/||r0|| %.1e at it %" PetscInt_FMT " (best %.1e at it %" PetscInt_FMT ")", b->stag_its,
                            cap->itref, (double)(cap->rprev / cap->r0), cap->itlast, (double)(cap->rmin / cap->r0), cap->itmin));
  } else if (cap->capped) {
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "stopped by -time_cap %g s at it %" PetscInt_FMT "; ||r||/||r0|| %.1e (best %.1e at it %" PetscInt_FMT ")", (double)b->time_cap, cap->itlast, (double)(cap->rprev / cap->r0),
                            (double)(cap->rmin / cap->r0), cap->itmin));
  } else if (reason == KSP_DIVERGED_ITS) {
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "iteration limit; ||r||/||r0|| %.1e (best %.1e at it %" PetscInt_FMT ")", (double)(cap->rprev / cap->r0), (double)(cap->rmin / cap->r0), cap->itmin));
  } else if (reason == KSP_DIVERGED_PC_FAILED) {
    PCFailedReason pcr;

    PetscCall(PCGetFailedReason(pc, &pcr));
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "PC failed: %s", PCFailedReasons[pcr]));
  } else if (reason > 0 && res->relres > 10 * b->rtol) {
    PetscCall(PetscSNPrintf(res->note, sizeof(res->note), "%s in the %s norm but the true residual %.1e > 10 rtol: not counted as converged", KSPConvergedReasons[reason], KSPNormTypes[normtype], res->relres));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CSV and the text line of one run */
static PetscErrorCode Report(Bench *b, const Problem *p, const char *ksptype, const Config *c, const Result *r)
{
  char   bound[16], tpi[32], mean[16], fbytes[32], ffrac[32], fshort[16], cyc[16];
  double total = r->setup + r->solve;

  PetscFunctionBegin;
  if (c->bound > 0) PetscCall(PetscSNPrintf(bound, sizeof(bound), "%" PetscInt_FMT, c->bound));
  else PetscCall(PetscStrncpy(bound, "-", sizeof(bound)));
  if (r->its > 0) PetscCall(PetscSNPrintf(tpi, sizeof(tpi), "%.3e", r->solve / r->its));
  else PetscCall(PetscStrncpy(tpi, "-", sizeof(tpi)));
  PetscCall(PetscSNPrintf(mean, sizeof(mean), "%.2f", r->meanblock));
  /* the bytes floor: counted wherever the KSP has a count; its fraction only with a measured bandwidth (GPU) */
  PetscCall(PetscStrncpy(fbytes, "-", sizeof(fbytes)));
  PetscCall(PetscStrncpy(ffrac, "-", sizeof(ffrac)));
  PetscCall(PetscStrncpy(fshort, "-", sizeof(fshort)));
  if (r->floor_bytes > 0 && !r->error) {
    PetscCall(PetscSNPrintf(fbytes, sizeof(fbytes), "%.0f", r->floor_bytes));
    if (b->triad_Bps > 0 && r->its > 0 && r->solve > 0) {
      double frac = r->floor_bytes / (r->solve / r->its) / b->triad_Bps;

      PetscCall(PetscSNPrintf(ffrac, sizeof(ffrac), "%.4f", frac));
      PetscCall(PetscSNPrintf(fshort, sizeof(fshort), "%.2f", frac));
    }
  }
  if (r->cycles >= 0) PetscCall(PetscSNPrintf(cyc, sizeof(cyc), "%" PetscInt_FMT, r->cycles));
  else PetscCall(PetscStrncpy(cyc, "-", sizeof(cyc)));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %8" PetscInt_FMT " %9" PetscInt64_FMT " %2" PetscInt_FMT " %-11s %-5s %-16s %5s %-13s %6" PetscInt_FMT " %6s %-20s %8.1e %8.1e %9.3e %9.3e %9.3e %9.3e %9s %5s %8" PetscInt_FMT " %5s  %s\n", p->name, p->n, p->nnz, p->bs, MatTypeName(b, c->baij), ksptype, PCKindNames[c->kind], bound, c->blocking, r->its, cyc, r->reason, r->recres, r->relres, r->setup, r->pc_setup, r->solve, total, tpi, fshort, r->nblocks, mean, r->note));
  if (b->csv) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, b->csv, "\"%s\",\"%s\",%" PetscInt_FMT ",%" PetscInt64_FMT ",%" PetscInt_FMT ",%s,%s,%s,%s,%s,%s,%s,\"%s\",%" PetscInt_FMT ",%s,%s,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%s,%s,%s,%" PetscInt_FMT ",%.4f,\"%s\",\"%s\",\"%s\"\n", b->device, p->name, p->n, p->nnz, p->bs, MatTypeName(b, c->baij), ksptype, r->side[0] ? r->side : (b->side == PC_RIGHT ? "right" : "left"), r->norm, PCKindNames[c->kind], bound, c->blocking, r->options, r->its, cyc, r->reason, r->recres, r->relres, r->setup, r->pc_setup, r->solve, total, tpi, fbytes, ffrac, r->nblocks, r->meanblock, r->note, r->rerun, p->path));
    PetscCall(PetscFFlush(b->csv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunOne(Bench *b, Problem *p, const char *ksptype, const Config *c)
{
  Result         res;
  CapCtx         cap;
  KSP            ksp = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (!b->quiet && b->budget > 0) {
    PetscLogDouble t;

    PetscCall(PetscTime(&t));
    if (t - b->tstart > b->budget) {
      size_t l = strlen(b->skipped);

      if (l < sizeof(b->skipped) - 200) { PetscCall(PetscSNPrintf(b->skipped + l, sizeof(b->skipped) - l, "  %s %s %s %s bound %" PetscInt_FMT " %s\n", p->name, MatTypeName(b, c->baij), ksptype, PCKindNames[c->kind], c->bound, c->blocking)); }
      b->nskipped++;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(PetscMemzero(&res, sizeof(res)));
  PetscCall(PetscMemzero(&cap, sizeof(cap)));
  PetscCall(OptionsString(b, p, ksptype, c, res.options, sizeof(res.options)));
  {
    char bnd[32] = "", stag[48] = "";

    if (c->bound > 0) PetscCall(PetscSNPrintf(bnd, sizeof(bnd), " -bounds %" PetscInt_FMT, c->bound));
    if (b->stag_its > 0) PetscCall(PetscSNPrintf(stag, sizeof(stag), " -stagnation_its %" PetscInt_FMT, b->stag_its));
    PetscCall(PetscSNPrintf(res.rerun, sizeof(res.rerun), "bench_solve -f %s:%" PetscInt_FMT " -ksp_types %s -pcs %s%s%s%s -mat_types %s -seed %" PetscInt_FMT " -rtol %g -divtol %g -max_it %" PetscInt_FMT " -time_cap %g%s%s%s", p->path, p->bs, ksptype, PCKindNames[c->kind], bnd, c->kind == PCK_VBJACOBI ? " -blockings " : "", c->kind == PCK_VBJACOBI ? c->blocking : "", c->baij ? "baij" : "aij", b->seed,
                            (double)b->rtol, (double)b->divtol, b->max_it, (double)b->time_cap, stag, b->side == PC_RIGHT ? " -pc_side right" : "", b->gpu ? "" : " -host"));
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = RunInner(b, p, ksptype, c, b->quiet ? 3 : b->max_it, &ksp, &cap, &res);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *text = NULL, *specific = NULL;

    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    res.error = PETSC_TRUE;
    PetscCall(PetscStrncpy(res.reason, "error", sizeof(res.reason)));
    PetscCall(PetscSNPrintf(res.note, sizeof(res.note), "PETSc error %d: %s%s%s", (int)ierr, text ? text : "", specific ? ": " : "", specific ? specific : ""));
    for (char *q = res.note; *q; q++)
      if (*q == '"' || *q == '\n') *q = ' ';
    if (b->gpu) (void)cudaGetLastError();
  }
  PetscCall(KSPDestroy(&ksp));
  if (cap.dctx) PetscCall(KSPConvergedDefaultDestroy(&cap.dctx));
  if (b->quiet) {
    if (ierr) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  warm-up %s %s %s %s: %s\n", p->name, ksptype, PCKindNames[c->kind], c->blocking, res.note));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  b->nruns++;
  if (res.converged) b->nconv++;
  if (cap.capped) b->ncapped++;
  if (cap.stagnated) b->nstag++;
  if (res.error) b->nerror++;
  PetscCall(Report(b, p, ksptype, c, &res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PrintHeaderLine(void)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %8s %9s %2s %-11s %-5s %-16s %5s %-13s %6s %6s %-20s %8s %8s %9s %9s %9s %9s %9s %5s %8s %5s  %s\n", "matrix", "rows", "nnz", "bs", "mat", "ksp", "pc", "bound", "blocking", "its", "cycles", "reason", "recres", "relres", "setup_s", "pcsetup_s", "solve_s", "total_s", "s/it", "floor", "blocks", "mean", "note"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunProblem(Bench *b, Problem *p)
{
  Config   cf[4 * MAXLIST + 16];
  PetscInt ncf;

  PetscFunctionBegin;
  PetscCall(Configs(b, p->bs, (PetscBool)(p->Ab != NULL), cf, &ncf));
  if (!b->quiet) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s: %" PetscInt_FMT " rows, %" PetscInt64_FMT " nonzeros, bs %" PetscInt_FMT " (%s)\n", p->name, p->n, p->nnz, p->bs, p->path));
    PetscCall(PrintHeaderLine());
  }
  for (PetscInt k = 0; k < b->nksp; k++)
    for (PetscInt q = 0; q < ncf; q++) PetscCall(RunOne(b, p, b->ksps[k], &cf[q]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------- the matrix list */
static PetscErrorCode AddEntry(Entry **list, PetscInt *n, PetscInt *cap, const char *path, PetscInt bs, const char *set, const char *name)
{
  PetscFunctionBegin;
  if (*n == *cap) {
    Entry *nl;

    *cap = *cap ? 2 * *cap : 32;
    PetscCall(PetscMalloc1(*cap, &nl));
    if (*n) PetscCall(PetscArraycpy(nl, *list, *n));
    PetscCall(PetscFree(*list));
    *list = nl;
  }
  PetscCall(PetscStrncpy((*list)[*n].path, path, sizeof((*list)[*n].path)));
  PetscCall(PetscStrncpy((*list)[*n].set, set, sizeof((*list)[*n].set)));
  if (name) PetscCall(PetscStrncpy((*list)[*n].name, name, sizeof((*list)[*n].name)));
  else BaseName(path, (*list)[*n].name, sizeof((*list)[*n].name));
  PetscCheck(bs >= 1 && bs <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "block size %" PetscInt_FMT " of %s is out of range", bs, path);
  (*list)[*n].bs = bs;
  (*n)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareStrings(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static PetscErrorCode ScanSuiteSparse(const char *dir, Entry **list, PetscInt *n, PetscInt *cap)
{
  DIR           *d = opendir(dir);
  struct dirent *de;
  char          *names[1024];
  PetscInt       nn = 0;

  PetscFunctionBegin;
  if (!d) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_solve: SKIP SuiteSparse matrices: no directory %s (the set is optional; the paper's subset lives in ../shared/matrices/suitesparse, the bundle's in data/suitesparse)\n", dir));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  while ((de = readdir(d)) && nn < 1024) {
    if (de->d_name[0] == '.') continue;
    if (EndsWith(de->d_name, ".mtx.gz") || EndsWith(de->d_name, ".mtx")) PetscCall(PetscStrallocpy(de->d_name, &names[nn++]));
  }
  closedir(d);
  qsort(names, (size_t)nn, sizeof(char *), CompareStrings);
  if (!nn) PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_solve: SKIP SuiteSparse matrices: no *.mtx.gz or *.mtx in %s\n", dir));
  for (PetscInt k = 0; k < nn; k++) {
    char path[PETSC_MAX_PATH_LEN], base[128];

    /* a.mtx beside a.mtx.gz: take one */
    BaseName(names[k], base, sizeof(base));
    if (EndsWith(names[k], ".mtx") && k > 0) {
      char prev[128];

      BaseName(names[k - 1], prev, sizeof(prev));
      if (!strcmp(prev, base)) continue;
    }
    if (EndsWith(names[k], ".mtx") && k + 1 < nn) {
      char next[128];

      BaseName(names[k + 1], next, sizeof(next));
      if (!strcmp(next, base)) continue;
    }
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, names[k]));
    PetscCall(AddEntry(list, n, cap, path, 1, "suitesparse", NULL));
  }
  for (PetscInt k = 0; k < nn; k++) PetscCall(PetscFree(names[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadManifest(const char *dir, Entry **list, PetscInt *n, PetscInt *cap)
{
  char      path[PETSC_MAX_PATH_LEN], line[4096];
  FILE     *fp;
  PetscBool exists;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/MANIFEST.tsv", dir));
  PetscCall(PetscTestFile(path, 'r', &exists));
  if (!exists) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_solve: SKIP the real-matrix set: no %s (make matrices installs it)\n", path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "r", &fp));
  while (fgets(line, sizeof(line), fp)) {
    char *name = strtok(line, "\t\n"), *rows = strtok(NULL, "\t\n"), *nnz = strtok(NULL, "\t\n"), *bss = strtok(NULL, "\t\n");
    char  mpath[PETSC_MAX_PATH_LEN];

    if (!name || !bss || !rows || !nnz || !strcmp(name, "name")) continue;
    PetscCall(PetscSNPrintf(mpath, sizeof(mpath), "%s/%s.petsc", dir, name));
    PetscCall(PetscTestFile(mpath, 'r', &exists));
    if (!exists) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_solve: SKIP %s: MANIFEST.tsv lists it but %s is missing\n", name, mpath));
      continue;
    }
    PetscCall(AddEntry(list, n, cap, mpath, (PetscInt)atoi(bss), "manifest", name));
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -name a,b,c into list (replacing the defaults), each entry checked against allowed */
static PetscErrorCode ListOption(PetscOptionItems PetscOptionsObject, const char *opt, const char *text, char **list, PetscInt *n, const char *const allowed[], PetscInt nallowed)
{
  char     *given[MAXLIST];
  PetscInt  ng = MAXLIST;
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(PetscOptionsStringArray(opt, text, "bench_solve", given, &ng, &flg));
  if (!flg) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < *n; k++) PetscCall(PetscFree(list[k]));
  for (PetscInt k = 0; k < ng; k++) {
    PetscBool ok = PETSC_FALSE;

    for (PetscInt q = 0; q < nallowed; q++) ok = (PetscBool)(ok || !strcmp(given[k], allowed[q]));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: unknown entry \"%s\"", opt, given[k]);
    list[k] = given[k];
  }
  *n = ng;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Bench          b;
  Entry         *list  = NULL;
  PetscInt       nlist = 0, caplist = 0, nfiles = MAXLIST;
  char          *files[MAXLIST], csvname[PETSC_MAX_PATH_LEN] = "", ssdir[PETSC_MAX_PATH_LEN] = "", mdir[PETSC_MAX_PATH_LEN] = "";
  PetscBool      fflg, host = PETSC_FALSE, warmup = PETSC_TRUE, flg;
  const char    *kspall[] = {"idr", "idrs", "gmres", "bcgs"}, *pcall[] = {"jacobi", "pbjacobi", "vpbjacobi", "vbjacobi", "vbjacobi-default"};
  const char    *blkall[] = {"supervariable", "natural", "matrix"}, *matall[] = {"aij", "baij"};
  PetscLogDouble tend;
  char           stagline[128] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscMemzero(&b, sizeof(b)));
  PetscCall(PetscTime(&b.tstart));
  b.rtol      = 1e-9;
  b.divtol    = 1e30;
  b.max_it    = 50000;
  b.time_cap  = 20;
  b.seed      = 1;
  b.side      = PC_LEFT;
  b.nbound    = 5;
  b.bounds[0] = 8, b.bounds[1] = 12, b.bounds[2] = 16, b.bounds[3] = 24, b.bounds[4] = 32;
  for (PetscInt k = 0; k < 4; k++) PetscCall(PetscStrallocpy(kspall[k], &b.ksps[k]));
  b.nksp = 4;
  for (PetscInt k = 0; k < 5; k++) PetscCall(PetscStrallocpy(pcall[k], &b.pcs[k]));
  b.npc = 5;
  PetscCall(PetscStrallocpy("supervariable", &b.blockings[0]));
  PetscCall(PetscStrallocpy("matrix", &b.blockings[1]));
  b.nblocking = 2;
  for (PetscInt k = 0; k < 2; k++) PetscCall(PetscStrallocpy(matall[k], &b.mattypes[k]));
  b.nmattype = 2;

  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_solve options", "bench_solve");
  PetscCall(PetscOptionsStringArray("-f", "matrices, FILE[:BS] (.mtx, .mtx.gz, or PETSc binary)", "bench_solve", files, &nfiles, &fflg));
  PetscCall(PetscOptionsString("-suitesparse_dir", "every *.mtx.gz / *.mtx of DIR, bs 1", "bench_solve", ssdir, ssdir, sizeof(ssdir), NULL));
  PetscCall(PetscOptionsString("-matrices_dir", "DIR/MANIFEST.tsv and DIR/NAME.petsc (conf/fetch-matrices.sh)", "bench_solve", mdir, mdir, sizeof(mdir), NULL));
  PetscCall(ListOption(PetscOptionsObject, "-ksp_types", "idr,idrs,gmres,bcgs", b.ksps, &b.nksp, kspall, 4));
  PetscCall(ListOption(PetscOptionsObject, "-pcs", "jacobi,pbjacobi,vpbjacobi,vbjacobi,vbjacobi-default", b.pcs, &b.npc, pcall, 5));
  PetscCall(ListOption(PetscOptionsObject, "-blockings", "vbjacobi blockings: supervariable,natural,matrix", b.blockings, &b.nblocking, blkall, 3));
  PetscCall(ListOption(PetscOptionsObject, "-mat_types", "aij,baij (on a GPU: aijcusparse, baijksparse)", b.mattypes, &b.nmattype, matall, 2));
  {
    PetscInt given[MAXLIST], ng = MAXLIST;

    PetscCall(PetscOptionsIntArray("-bounds", "vbjacobi maximum block sizes", "bench_solve", given, &ng, &flg));
    if (flg) {
      for (PetscInt k = 0; k < ng; k++) {
        PetscCheck(given[k] >= 1 && given[k] <= PC_VBJACOBI_MAX_BLOCK_SIZE, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bounds entries must lie in 1..%d", PC_VBJACOBI_MAX_BLOCK_SIZE);
        b.bounds[k] = given[k];
      }
      b.nbound = ng;
    }
  }
  PetscCall(PetscOptionsReal("-rtol", "relative tolerance", "bench_solve", b.rtol, &b.rtol, NULL));
  PetscCall(PetscOptionsReal("-divtol", "divergence tolerance (1e30: no early stop)", "bench_solve", b.divtol, &b.divtol, NULL));
  PetscCall(PetscOptionsInt("-max_it", "iteration limit", "bench_solve", b.max_it, &b.max_it, NULL));
  PetscCall(PetscOptionsReal("-time_cap", "wall-clock limit of one solve, seconds (0: none)", "bench_solve", b.time_cap, &b.time_cap, NULL));
  PetscCall(PetscOptionsInt("-stagnation_its", "stop a solve whose residual norm has not dropped by 10% in this many iterations (0: never)", "bench_solve", b.stag_its, &b.stag_its, NULL));
  PetscCall(PetscOptionsReal("-budget", "start no run after this many seconds (0: none)", "bench_solve", b.budget, &b.budget, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the random right-hand side", "bench_solve", b.seed, &b.seed, NULL));
  PetscCall(PetscOptionsEnum("-pc_side", "LEFT: PETSc's default (left preconditioning, each KSP's default norm); RIGHT: right preconditioning, unpreconditioned residual norm", "bench_solve", PCSides, (PetscEnum)b.side, (PetscEnum *)&b.side, NULL));
  PetscCall(PetscOptionsString("-o", "CSV output file", "bench_solve", csvname, csvname, sizeof(csvname), NULL));
  PetscCall(PetscOptionsBool("-append", "append to the CSV file (header only when it is new or empty)", "bench_solve", b.append, &b.append, NULL));
  PetscCall(PetscOptionsBool("-host", "run on the host even with a GPU present", "bench_solve", host, &host, NULL));
  PetscCall(PetscOptionsBool("-warmup", "the untimed warm-up pass", "bench_solve", warmup, &warmup, NULL));
  PetscOptionsEnd();
  if (!fflg) nfiles = 0;
  PetscCheck(b.side == PC_LEFT || b.side == PC_RIGHT, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-pc_side: left or right");
  PetscCheck(b.rtol > 0 && b.max_it >= 1 && b.time_cap >= 0 && b.budget >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "need -rtol > 0, -max_it >= 1, -time_cap >= 0, -budget >= 0");
  {
    PetscEnum val;

    PetscCall(PetscEnumFind(PCVBJacobiBlockings, "natural", &val, &b.natural_known));
  }
  if (InList(b.blockings, b.nblocking, "natural") && !b.natural_known) PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_solve: this build of the library has no -pc_vbjacobi_blocking natural; those runs are left out\n"));

  /* the device */
  if (!host) {
    int ndev = 0;

    if (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) b.gpu = PETSC_TRUE;
    else (void)cudaGetLastError();
  }
  if (b.gpu) {
    struct cudaDeviceProp prop;
    int                   dev = 0;

    PetscCall(BenchCheckCuda(cudaGetDevice(&dev), "cudaGetDevice"));
    PetscCall(BenchCheckCuda(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties"));
    PetscCall(PetscSNPrintf(b.device, sizeof(b.device), "%s (sm_%d%d, %.0f GB, %d SMs)", prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1e9, prop.multiProcessorCount));
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    PetscCall(BenchTriad(&b));
  } else PetscCall(PetscSNPrintf(b.device, sizeof(b.device), "host (%s: aij/baij, standard vectors; a functional check, not a benchmark)", host ? "-host" : "no CUDA device"));

  /* the matrices */
  for (PetscInt k = 0; k < nfiles; k++) {
    char    *colon = strrchr(files[k], ':');
    PetscInt bs    = 1;

    if (colon && colon[1] && !strchr(colon, '/')) {
      char *end;

      bs = (PetscInt)strtol(colon + 1, &end, 10);
      PetscCheck(*end == 0 && bs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-f %s: the block size after ':' must be a positive integer", files[k]);
      *colon = 0;
    }
    PetscCall(AddEntry(&list, &nlist, &caplist, files[k], bs, "file", NULL));
  }
  if (ssdir[0]) PetscCall(ScanSuiteSparse(ssdir, &list, &nlist, &caplist));
  if (mdir[0]) PetscCall(ReadManifest(mdir, &list, &nlist, &caplist));

  if (b.stag_its > 0) PetscCall(PetscSNPrintf(stagline, sizeof(stagline), ", or when ||r|| has not dropped by 10%% in %" PetscInt_FMT " iterations ('stagnation')", b.stag_its));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_solve: device %s\n", b.device));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  protocol: x0 = 0, b uniform random in [0,1) (seed %" PetscInt_FMT "), %s, stop at rtol %g of %s (abstol 0, divtol %g), at most %" PetscInt_FMT " iterations, %.1f s per solve (-time_cap; 'time cap' in reason)%s\n", b.seed, b.side == PC_RIGHT ? "right preconditioning" : "left preconditioning (PETSc's default)",
                        (double)b.rtol, b.side == PC_RIGHT ? "the unpreconditioned residual norm" : "each KSP's default norm (idr, gmres, bcgs: preconditioned; idrs: unpreconditioned)", (double)b.divtol, b.max_it, (double)b.time_cap, stagline));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  KSPs: idr = KSPIDR(s = 4), idrs = KSPIDRS(s = 4, this package's), gmres = GMRES(30), bcgs = BiCGStab; relres = true ||b - A x|| / ||b|| after the solve, recres = the relative norm the KSP tested last "
                                         "(IDR: its recurrence residual), cycles = the paper's IDR(s) iterations (ceil(its / (s + 1))); a run counts as converged only with relres <= 10 rtol\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  bytes floor per iteration (floor_bytes_per_it; manual page): matmult + pc + 8 n passes, passes = %.1f (IDR(4), right or preconditioned norm) or %.1f (left, true norm); bcgs: 2 matmult + 2 pc + 12 passes; gmres: -\n", IDRPasses(4, PETSC_FALSE), IDRPasses(4, PETSC_TRUE)));
  if (b.gpu)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  triad_Bps %.4g GB/s (a = b + s c on raw device arrays, %d bytes per entry, %" PetscInt_FMT " entries, median of 5); floor = floor_bytes_per_it / (s/it) / triad_Bps\n", b.triad_Bps / 1e9, BENCH_TRIAD_BYTES_PER_ENTRY, b.triad_n));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "  triad_Bps - (host run: floor_frac is -)\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  times: wall clock between device synchronisations; setup = PCSetUp + KSPSetUp (pcsetup = PCSetUp alone; KSPIDR's KSPSetUp makes 3s+4 work vectors and a random shadow space), solve = KSPSolve, total = "
                                         "setup + solve; a fresh KSP per run\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  vpbjacobi: PETSc's PCVPBJACOBI (host inversion) with the blocks of vbjacobi -pc_vbjacobi_blocking supervariable at the same bound\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s", IDR_NOTE));
  if (!nlist) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_solve: no matrix to solve (-f, -suitesparse_dir, -matrices_dir); nothing done\n"));
    PetscCall(PetscFree(list));
    for (PetscInt k = 0; k < b.nksp; k++) PetscCall(PetscFree(b.ksps[k]));
    for (PetscInt k = 0; k < b.npc; k++) PetscCall(PetscFree(b.pcs[k]));
    for (PetscInt k = 0; k < b.nblocking; k++) PetscCall(PetscFree(b.blockings[k]));
    for (PetscInt k = 0; k < b.nmattype; k++) PetscCall(PetscFree(b.mattypes[k]));
    for (PetscInt k = 0; k < nfiles; k++) PetscCall(PetscFree(files[k]));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (csvname[0]) PetscCall(BenchCSVOpen(csvname, CSV_HEADER, b.append, &b.csv)); /* -append: the header must be this one */

  /* warm-up: every PC and matrix type on small matrices with the block sizes of the list */
  if (warmup) {
    PetscInt       bsl[MAXLIST], nbs = 0;
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    bsl[nbs++] = 1;
    for (PetscInt k = 0; k < nlist; k++) {
      PetscBool seen = PETSC_FALSE;

      for (PetscInt q = 0; q < nbs; q++) seen = (PetscBool)(seen || bsl[q] == list[k].bs);
      if (!seen && nbs < MAXLIST) bsl[nbs++] = list[k].bs;
    }
    if (b.gpu && nbs < MAXLIST) { /* large natural supervariables, cut at each bound */
      PetscBool seen = PETSC_FALSE;

      for (PetscInt q = 0; q < nbs; q++) seen = (PetscBool)(seen || bsl[q] == 32);
      if (!seen) bsl[nbs++] = 32;
    }
    b.quiet = PETSC_TRUE;
    for (PetscInt q = 0; q < nbs; q++) {
      Problem p;

      PetscCall(WarmupProblem(&b, bsl[q], &p));
      PetscCall(RunProblem(&b, &p));
      PetscCall(ProblemDestroy(&p));
    }
    b.quiet = PETSC_FALSE;
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  warm-up pass (untimed, every PC and matrix type, block sizes of the list): %.2f s\n", t1 - t0));
  }

  for (PetscInt k = 0; k < nlist; k++) {
    Problem p;

    PetscCall(ProblemLoad(&b, &list[k], &p));
    PetscCall(RunProblem(&b, &p));
    PetscCall(ProblemDestroy(&p));
  }

  PetscCall(BenchCSVClose(&b.csv));
  PetscCall(PetscTime(&tend));
  if (b.nskipped) PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nbench_solve: -budget %g s reached: %" PetscInt_FMT " run(s) not done:\n%s", (double)b.budget, b.nskipped, b.skipped));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nbench_solve: %" PetscInt_FMT " runs on %" PetscInt_FMT " matrices, %" PetscInt_FMT " converged, %" PetscInt_FMT " stopped by the time cap, %" PetscInt_FMT " by -stagnation_its, %" PetscInt_FMT " errors, %" PetscInt_FMT " skipped; done in %.1f s%s%s\n", b.nruns, nlist, b.nconv, b.ncapped, b.nstag, b.nerror, b.nskipped, tend - b.tstart, csvname[0] ? ", CSV in " : "", csvname));
  PetscCall(PetscFree(list));
  for (PetscInt k = 0; k < b.nksp; k++) PetscCall(PetscFree(b.ksps[k]));
  for (PetscInt k = 0; k < b.npc; k++) PetscCall(PetscFree(b.pcs[k]));
  for (PetscInt k = 0; k < b.nblocking; k++) PetscCall(PetscFree(b.blockings[k]));
  for (PetscInt k = 0; k < b.nmattype; k++) PetscCall(PetscFree(b.mattypes[k]));
  for (PetscInt k = 0; k < nfiles; k++) PetscCall(PetscFree(files[k]));
  PetscCall(PetscFinalize());
  return 0;
}
