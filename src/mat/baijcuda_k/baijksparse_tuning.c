/* The tuning of MATBAIJKSPARSE's products: the names of the kernels, the tuning table (-mat_baijksparse_tuning_file, or
   baijksparse_tuning_sm<XY>.txt in share/petscblockgpu/ beside lib/), the built-in defaults, the options, the kernel choice for a
   pattern (MatSeqBAIJKSPARSEChoose_Private()) and its description in MatView(). */
#if !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* dladdr() */
#endif
#include <dlfcn.h>
#include <unistd.h> /* access() */
#include "baijksparse_device.h"
#include <petscdevice_cuda.h>

const char *const MatBAIJKSPARSEKernels[]       = {"auto", "host", "scalar", "K1", "K2", "K3"};
const char *const MatBAIJKSPARSEKernelOptions[] = {"auto", "scalar", "k1", "k2", "k3"};
const char *const MatBAIJKSPARSEBalances[]      = {"auto", "on", "off"};
const char *const MatBAIJKSPARSETransposes[]    = {"auto", "explicit", "atomic"};
const char *const MatBAIJKSPARSEProductRoutes[] = {"blocked", "aij"};

/* ---------------------------------------------------------------------------------------------- tuning table */
#define PBG_TABLE_MAX_BS 256
static PetscBool PBGTableLoaded                         = PETSC_FALSE;
static char      PBGTableFile[PETSC_MAX_PATH_LEN]       = ""; /* -mat_baijksparse_tuning_file, or "" */
static char      PBGTableUsed[PETSC_MAX_PATH_LEN]       = ""; /* the file read, or "" */
static char      PBGTableStatus[6 * PETSC_MAX_PATH_LEN] = ""; /* for MatView(): the file read, or why none */
/* per bs, up to PBG_TABLE_CLASSES lines, each for the matrices whose mean block-row length is at most its maxlen (0: any) */
#define PBG_TABLE_CLASSES 4
typedef struct {
  MatBAIJKSPARSEParams p;
  int                  maxlen;
} TableEntry;
static int        PBGTableCount[PBG_TABLE_MAX_BS + 1];
static TableEntry PBGTable[PBG_TABLE_MAX_BS + 1][PBG_TABLE_CLASSES];

/* The line of the table for block size bs and mean block-row length mean: the smallest maxlen >= mean, else the
   line for any length; NULL when the table has none */
static const TableEntry *TableFind(int bs, PetscReal mean)
{
  const TableEntry *best = NULL;

  if (bs < 1 || bs > PBG_TABLE_MAX_BS) return NULL;
  for (int i = 0; i < PBGTableCount[bs]; i++) {
    const TableEntry *e = &PBGTable[bs][i];

    if (e->maxlen && mean > e->maxlen) continue;
    if (!best || (e->maxlen && (!best->maxlen || e->maxlen < best->maxlen))) best = e;
  }
  return best;
}

static PetscErrorCode ParseKernelName(const char *name, MatBAIJKSPARSEKernel *kernel, PetscBool *ok)
{
  PetscBool flg;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  for (int i = MAT_BAIJKSPARSE_KERNEL_SCALAR; i <= MAT_BAIJKSPARSE_KERNEL_K3; i++) {
    PetscCall(PetscStrcasecmp(name, MatBAIJKSPARSEKernels[i], &flg));
    if (flg) {
      *kernel = (MatBAIJKSPARSEKernel)i;
      *ok     = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where the tables are, relative to the library's directory <libdir>: share/petscblockgpu/ beside lib/ (the source tree
   keeps them where an install puts them: the build tree, the bundle, an install, also moved elsewhere as a whole), then
   the install prefix compiled into an installed library (a library copied or linked away from its prefix). */
static PetscErrorCode TableSearch(int arch, size_t plen, char path[], size_t tlen, char tried[], PetscBool *found)
{
  char    dirs[2][PETSC_MAX_PATH_LEN];
  int     ndirs = 0;
  Dl_info info;

  PetscFunctionBegin;
  *found  = PETSC_FALSE;
  path[0] = 0;
  if (tried) tried[0] = 0;
  if (dladdr((void *)TableSearch, &info) && info.dli_fname) {
    char  libdir[PETSC_MAX_PATH_LEN];
    char *slash;

    PetscCall(PetscStrncpy(libdir, info.dli_fname, sizeof(libdir)));
    slash = strrchr(libdir, '/');
    if (slash) *slash = 0;
    else PetscCall(PetscStrncpy(libdir, ".", sizeof(libdir)));
    PetscCall(PetscSNPrintf(dirs[ndirs++], PETSC_MAX_PATH_LEN, "%s/../share/petscblockgpu", libdir));
  }
  if (PetscBlockGPUInstallPrefix[0]) PetscCall(PetscSNPrintf(dirs[ndirs++], PETSC_MAX_PATH_LEN, "%s/share/petscblockgpu", PetscBlockGPUInstallPrefix));
  for (int i = 0; i < ndirs && !*found; i++) {
    PetscCall(PetscSNPrintf(path, plen, "%s/baijksparse_tuning_sm%d.txt", dirs[i], arch));
    if (access(path, R_OK) == 0) *found = PETSC_TRUE;
    else if (tried) {
      if (tried[0]) PetscCall(PetscStrlcat(tried, ", ", tlen));
      PetscCall(PetscStrlcat(tried, path, tlen));
    }
  }
  if (!*found) path[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The table for architecture arch (10 major + minor): -mat_baijksparse_tuning_file, else $PETSCBLOCKGPU_TUNING_FILE (an
   explicit file, read even on the host path, so *found is PETSC_TRUE and a missing file is an error at the load), else
   TableSearch(). "none" disables the table: *found PETSC_FALSE, path "none". */
static PetscErrorCode TableLocate(int arch, size_t plen, char path[], size_t tlen, char tried[], PetscBool *found, PetscBool *explicit_file)
{
  const char *env = getenv("PETSCBLOCKGPU_TUNING_FILE");
  PetscBool   none;

  PetscFunctionBegin;
  *explicit_file = PETSC_TRUE;
  if (tried) tried[0] = 0;
  if (PBGTableFile[0]) PetscCall(PetscStrncpy(path, PBGTableFile, plen));
  else if (env && env[0]) PetscCall(PetscStrncpy(path, env, plen));
  else {
    *explicit_file = PETSC_FALSE;
    PetscCall(TableSearch(arch, plen, path, tlen, tried, found));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(path, "none", &none));
  *found = (PetscBool)!none;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatBAIJKSPARSEGetTuningTable - The tuning table that `MATBAIJKSPARSE` reads for a GPU architecture, or where it looked

  Not Collective

  Input Parameters:
+ arch - the compute capability as 10 x major + minor (90 for sm_90), or `PETSC_DECIDE` for the current CUDA device
- len  - the size of `path` and `tried`

  Output Parameters:
+ path  - the table: `-mat_baijksparse_tuning_file`, else `$PETSCBLOCKGPU_TUNING_FILE`, else the first existing
          `baijksparse_tuning_sm<arch>.txt` of the search; "" when there is none ("none" when the option or variable says so)
. tried - the files searched for in vain, separated by ", " (pass `NULL` if not wanted)
- found - whether a table will be read

  Level: intermediate

  Notes:
  The search, relative to the directory `<libdir>` of libpetscblockgpu: `<libdir>/../share/petscblockgpu/` (the build
  tree, the bundle, an installed library), then `<PREFIX>/share/petscblockgpu/`, the prefix of
  `make install` compiled into the installed library. Without a table the kernels take built-in parameters, and
  `MatView()` and `-info` say so.

  The answer needs no GPU, so an installation can be checked on any machine.

.seealso: `MATBAIJKSPARSE`, `MATSEQBAIJKSPARSE`, `PetscBlockGPUGetBuildInfo()`
@*/
PetscErrorCode MatBAIJKSPARSEGetTuningTable(PetscInt arch, size_t len, char path[], char tried[], PetscBool *found)
{
  PetscBool explicit_file;

  PetscFunctionBegin;
  PetscAssertPointer(path, 3);
  PetscAssertPointer(found, 5);
  if (arch == PETSC_DECIDE) {
    int       major = 0, minor = 0;
    PetscBool avail;

    PetscCall(PetscBlockGPUDeviceAvailable(&avail));
    PetscCheck(avail, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "MatBAIJKSPARSEGetTuningTable(): no CUDA device to take the architecture from; pass it (e.g. 90 for sm_90)");
    PetscCall(MatBAIJKSPARSEComputeCapability_CUDA(&major, &minor));
    arch = 10 * major + minor;
  }
  PetscCheck(arch > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatBAIJKSPARSEGetTuningTable(): architecture %" PetscInt_FMT " is not 10 x major + minor (e.g. 90) nor PETSC_DECIDE", arch);
  PetscCall(TableLocate((int)arch, len, path, len, tried, found, &explicit_file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The table of this device's architecture (TableLocate()). Lines "bs kernel ept warps teams [lanes [maxlen]]", '#' starts
   a comment; a line with maxlen > 0 serves only matrices whose mean block-row length is at most maxlen (the tuner's
   short-row class), so a block size may have a line per row-length class. No table found means built-in defaults,
   said by -info and MatView() (PBGTableStatus); an explicit file that cannot be read and a malformed line are errors. */
static PetscErrorCode MatBAIJKSPARSETableLoad(void)
{
  char      path[PETSC_MAX_PATH_LEN] = "", tried[4 * PETSC_MAX_PATH_LEN] = "", line[512];
  FILE     *fp;
  PetscBool found, explicit_file, avail;
  int       lineno = 0, arch = 0;

  PetscFunctionBegin;
  if (PBGTableLoaded) PetscFunctionReturn(PETSC_SUCCESS);
  PBGTableLoaded    = PETSC_TRUE;
  PBGTableStatus[0] = 0;
  PetscCall(PetscArrayzero(PBGTableCount, PBG_TABLE_MAX_BS + 1));
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  if (avail) {
    int major = 0, minor = 0;

    PetscCall(MatBAIJKSPARSEComputeCapability_CUDA(&major, &minor));
    arch = 10 * major + minor;
  }
  PetscCall(TableLocate(arch, sizeof(path), path, sizeof(tried), tried, &found, &explicit_file));
  /* no device and no explicit file: no architecture, so no table of its own (the host path only checks the choice) */
  if (!avail && !explicit_file) PetscFunctionReturn(PETSC_SUCCESS);
  if (!found) {
    if (explicit_file) PetscCall(PetscStrncpy(PBGTableStatus, "none (disabled by -mat_baijksparse_tuning_file or PETSCBLOCKGPU_TUNING_FILE), built-in kernel parameters", sizeof(PBGTableStatus)));
    else PetscCall(PetscSNPrintf(PBGTableStatus, sizeof(PBGTableStatus), "none found for sm_%d (looked for %s), built-in kernel parameters", arch, tried));
    PetscCall(PetscInfo(NULL, "baijksparse: tuning table: %s\n", PBGTableStatus));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  fp = fopen(path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open the tuning table %s (given by -mat_baijksparse_tuning_file or PETSCBLOCKGPU_TUNING_FILE; \"none\" selects the built-in parameters)", path);
  while (fgets(line, sizeof(line), fp)) {
    char                 kname[32];
    int                  bs, ept, warps, teams, lanes = 0, maxlen = 0, n;
    char                *hash   = strchr(line, '#');
    MatBAIJKSPARSEKernel kernel = MAT_BAIJKSPARSE_KERNEL_AUTO;
    PetscBool            ok;

    lineno++;
    if (hash) *hash = 0;
    n = sscanf(line, "%d %31s %d %d %d %d %d", &bs, kname, &ept, &warps, &teams, &lanes, &maxlen);
    if (n <= 0) continue;
    if (n >= 5) PetscCall(ParseKernelName(kname, &kernel, &ok));
    else ok = PETSC_FALSE;
    if (!ok || bs < 1 || maxlen < 0) {
      (void)fclose(fp);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Tuning table %s, line %d: expected \"bs kernel ept warps teams [lanes [maxlen]]\" with kernel scalar, K1, K2 or K3 and maxlen >= 0", path, lineno);
    }
    if (bs > PBG_TABLE_MAX_BS) continue;
    {
      TableEntry *e = NULL;

      for (int i = 0; i < PBGTableCount[bs]; i++)
        if (PBGTable[bs][i].maxlen == maxlen) e = &PBGTable[bs][i]; /* a later line for the same class replaces it */
      if (!e) {
        if (PBGTableCount[bs] == PBG_TABLE_CLASSES) {
          (void)fclose(fp);
          SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Tuning table %s, line %d: more than %d row-length classes for bs %d", path, lineno, PBG_TABLE_CLASSES, bs);
        }
        e = &PBGTable[bs][PBGTableCount[bs]++];
      }
      e->p.kernel = kernel;
      e->p.ept    = ept;
      e->p.warps  = warps;
      e->p.teams  = teams;
      e->p.lanes  = lanes;
      e->maxlen   = maxlen;
    }
  }
  (void)fclose(fp);
  PetscCall(PetscStrncpy(PBGTableUsed, path, sizeof(PBGTableUsed)));
  PetscCall(PetscStrncpy(PBGTableStatus, path, sizeof(PBGTableStatus)));
  PetscCall(PetscInfo(NULL, "baijksparse: read the tuning table %s\n", path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Built-in parameters of each kernel for block size bs (used when the table has no line for bs) */
static void DefaultParams(MatBAIJKSPARSEKernel kernel, int bs, MatBAIJKSPARSEParams *p)
{
  p->kernel = kernel;
  p->ept    = 1;
  p->warps  = 4;
  p->teams  = 1;
  p->lanes  = 0;
  switch (kernel) {
  case MAT_BAIJKSPARSE_KERNEL_K2: {
    /* the shape of the sm90 table (share/petscblockgpu/baijksparse_tuning_sm90.txt): 1 warp per block row below bs 6, 2 below bs 10,
       else 4 (more columns, so more loads, in flight per block row); ept 2..4, the one that leaves the fewest thread
       slots idle (idle lanes, rows past bs), the smaller on ties; 128 threads per thread block */
    const int maxept = bs >= 6 ? MAT_BAIJKSPARSE_MAX_EPT : 2;
    double    best   = -1;

    p->warps = bs < 6 ? 1 : (bs < 10 ? 2 : 4);
    for (int ept = 2; ept <= maxept; ept++) {
      const int    ntg = (bs + ept - 1) / ept, nb = 32 * p->warps / ntg;
      const double eff = (double)nb * bs / (32.0 * p->warps * ept);

      if (nb >= 1 && eff > best + 1e-9) {
        best   = eff;
        p->ept = ept;
      }
    }
    p->teams = 4 / p->warps;
  } break;
  case MAT_BAIJKSPARSE_KERNEL_K3:
    p->ept   = 1;
    p->warps = 4;
    break;
  case MAT_BAIJKSPARSE_KERNEL_K1:
    /* a column per lane: the sm90 tuner's choice for bs 2..5 on short rows, and for bs 2 on long ones too */
    p->ept = bs;
    break;
  default:
    break;
  }
}

static MatBAIJKSPARSEKernel DefaultKernel(int bs)
{
  if (bs == 1) return MAT_BAIJKSPARSE_KERNEL_SCALAR;
  if (bs <= MAT_BAIJKSPARSE_K1_MAX_BS) return MAT_BAIJKSPARSE_KERNEL_K1;
  if (bs <= MAT_BAIJKSPARSE_K2_MAX_BS) return MAT_BAIJKSPARSE_KERNEL_K2;
  return MAT_BAIJKSPARSE_KERNEL_K3;
}

/* ---------------------------------------------------------------------------------------------- options */
PetscErrorCode MatBAIJKSPARSEOptionsRead_Private(Mat A, PetscOptionItems PetscOptionsObject, MatBAIJKSPARSEOptions *o)
{
  PetscInt    kidx = o->kernel == MAT_BAIJKSPARSE_KERNEL_AUTO ? 0 : (PetscInt)o->kernel - 1, bidx = (PetscInt)o->balance, cidx = (PetscInt)o->compress, tidx = (PetscInt)o->transpose, pidx = (PetscInt)o->products;
  char        file[PETSC_MAX_PATH_LEN] = "";
  PetscBool   fset                     = PETSC_FALSE;
  const char *prefix;

  PetscFunctionBegin;
  if (PetscOptionsObject) {
    PetscCall(PetscOptionsEList("-mat_baijksparse_kernel", "MatMult kernel on the GPU (auto: tuning table, else scalar for bs 1, k1 for bs 2-5, k2 for bs 6-45, k3 above)", "MATBAIJKSPARSE", MatBAIJKSPARSEKernelOptions, 5, MatBAIJKSPARSEKernelOptions[kidx], &kidx, NULL));
    PetscCall(PetscOptionsEList("-mat_baijksparse_balance", "Split long block rows into segments (auto: when the longest row exceeds lambda)", "MATBAIJKSPARSE", MatBAIJKSPARSEBalances, 3, MatBAIJKSPARSEBalances[bidx], &bidx, NULL));
    PetscCall(PetscOptionsInt("-mat_baijksparse_lambda", "Longest segment of a balanced block row, in blocks (0: max(32, 4 x mean row length))", "MATBAIJKSPARSE", o->lambda, &o->lambda, NULL));
    PetscCall(PetscOptionsEList("-mat_baijksparse_compress_rows", "Launch work only for block rows with blocks (auto: when at least half of them are empty, as in the off-diagonal part of an MPI matrix)", "MATBAIJKSPARSE", MatBAIJKSPARSEBalances, 3, MatBAIJKSPARSEBalances[cidx], &cidx, NULL));
    PetscCall(PetscOptionsEList("-mat_baijksparse_transpose", "MatMultTranspose() on the GPU: explicit (a device copy of the transpose, multiplied like MatMult()), atomic (atomicAdd, no extra memory), auto (explicit with MAT_FORM_EXPLICIT_TRANSPOSE, else atomic)", "MATBAIJKSPARSE", MatBAIJKSPARSETransposes, 3, MatBAIJKSPARSETransposes[tidx], &tidx, NULL));
    PetscCall(PetscOptionsEList("-mat_baijksparse_products", "Sparse products with an AIJ operand on the GPU (A P and P^T A P of PCGAMG): blocked (the block pattern and the block products on the device, the memory of blocks) or aij (through aijcusparse and cuSPARSE's SpGEMM)", "MATBAIJKSPARSE", MatBAIJKSPARSEProductRoutes, 2, MatBAIJKSPARSEProductRoutes[pidx], &pidx, NULL));
    PetscCall(PetscOptionsInt("-mat_baijksparse_ept", "Rows of a block per thread: K1 1 (an element per lane) or bs (a column per lane); K2, K3 1-4 (0: table or default)", "MATBAIJKSPARSE", o->ept, &o->ept, NULL));
    PetscCall(PetscOptionsInt("-mat_baijksparse_warps", "Warps per block row (K2) or per thread block (scalar, K1, K3) (0: table or default)", "MATBAIJKSPARSE", o->warps, &o->warps, NULL));
    PetscCall(PetscOptionsInt("-mat_baijksparse_teams", "K2: block rows per thread block, 1-15 (0: table or default)", "MATBAIJKSPARSE", o->teams, &o->teams, NULL));
    PetscCall(PetscOptionsInt("-mat_baijksparse_lanes", "Scalar kernel (bs 1): lanes per row, 2-32; K1: lanes per block row, 8, 16 or 32 (0: from the mean row length)", "MATBAIJKSPARSE", o->lanes, &o->lanes, NULL));
    PetscCall(PetscOptionsString("-mat_baijksparse_tuning_file", "Tuning table of the kernels (default: baijksparse_tuning_sm<XY>.txt in share/petscblockgpu/ beside lib/, or PREFIX/share/petscblockgpu; none: built-in defaults)", "MATBAIJKSPARSE", PBGTableFile, file, sizeof(file), &fset));
  } else {
    PetscOptions options = ((PetscObject)A)->options;

    PetscCall(MatGetOptionsPrefix(A, &prefix));
    PetscCall(PetscOptionsGetEList(options, prefix, "-mat_baijksparse_kernel", MatBAIJKSPARSEKernelOptions, 5, &kidx, NULL));
    PetscCall(PetscOptionsGetEList(options, prefix, "-mat_baijksparse_balance", MatBAIJKSPARSEBalances, 3, &bidx, NULL));
    PetscCall(PetscOptionsGetInt(options, prefix, "-mat_baijksparse_lambda", &o->lambda, NULL));
    PetscCall(PetscOptionsGetEList(options, prefix, "-mat_baijksparse_compress_rows", MatBAIJKSPARSEBalances, 3, &cidx, NULL));
    PetscCall(PetscOptionsGetEList(options, prefix, "-mat_baijksparse_transpose", MatBAIJKSPARSETransposes, 3, &tidx, NULL));
    PetscCall(PetscOptionsGetEList(options, prefix, "-mat_baijksparse_products", MatBAIJKSPARSEProductRoutes, 2, &pidx, NULL));
    PetscCall(PetscOptionsGetInt(options, prefix, "-mat_baijksparse_ept", &o->ept, NULL));
    PetscCall(PetscOptionsGetInt(options, prefix, "-mat_baijksparse_warps", &o->warps, NULL));
    PetscCall(PetscOptionsGetInt(options, prefix, "-mat_baijksparse_teams", &o->teams, NULL));
    PetscCall(PetscOptionsGetInt(options, prefix, "-mat_baijksparse_lanes", &o->lanes, NULL));
    PetscCall(PetscOptionsGetString(options, prefix, "-mat_baijksparse_tuning_file", file, sizeof(file), &fset));
  }
  PetscCheck(o->lambda >= 0 && o->ept >= 0 && o->warps >= 0 && o->teams >= 0 && o->lanes >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "-mat_baijksparse_lambda, _ept, _warps, _teams and _lanes take values >= 0 (0: automatic)");
  o->kernel    = kidx == 0 ? MAT_BAIJKSPARSE_KERNEL_AUTO : (MatBAIJKSPARSEKernel)(kidx + 1);
  o->balance   = (MatBAIJKSPARSEBalance)bidx;
  o->compress  = (MatBAIJKSPARSEBalance)cidx;
  o->transpose = (MatBAIJKSPARSETranspose)tidx;
  o->products  = (MatBAIJKSPARSEProductRoute)pidx;
  o->read      = PETSC_TRUE;
  if (fset) {
    PetscBool same;

    PetscCall(PetscStrcmp(file, PBGTableFile, &same));
    if (!same) {
      PetscCall(PetscStrncpy(PBGTableFile, file, sizeof(PBGTableFile)));
      PBGTableLoaded  = PETSC_FALSE; /* read again at the next use */
      PBGTableUsed[0] = 0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- kernel choice */
/* An auto/on/off option (-mat_baijksparse_balance, -mat_baijksparse_compress_rows): on, off, or the automatic rule's value */
static PetscBool AutoOnOff(MatBAIJKSPARSEBalance setting, PetscBool automatic)
{
  return setting == MAT_BAIJKSPARSE_BALANCE_ON ? PETSC_TRUE : setting == MAT_BAIJKSPARSE_BALANCE_OFF ? PETSC_FALSE : automatic;
}

/* Kernel, parameters and balancing of A for its current pattern (ia: BAIJ's block row pointers) */
PetscErrorCode MatSeqBAIJKSPARSEChoose_Private(Mat A, PetscInt mbs, const PetscInt *ia, MatBAIJKSPARSEChoice *c)
{
  Mat_SeqBAIJKSPARSE          *k  = (Mat_SeqBAIJKSPARSE *)A->spptr;
  const MatBAIJKSPARSEOptions *o  = &k->opts;
  const int                    bs = (int)A->rmap->bs;
  PetscReal                    mean;
  char                         msg[256];

  PetscFunctionBegin;
  if (!o->read) PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, NULL, &k->opts));
  PetscCall(MatBAIJKSPARSETableLoad());
  c->mbs    = mbs;
  c->nz     = mbs ? ia[mbs] : 0;
  c->maxlen = 0;
  c->nempty = 0;
  for (PetscInt r = 0; r < mbs; r++) {
    c->maxlen = PetscMax(c->maxlen, ia[r + 1] - ia[r]);
    if (ia[r + 1] == ia[r]) c->nempty++;
  }
  /* auto: a pass over empty rows reads their row pointers and writes y (reads z) there, for nothing */
  c->compressed = AutoOnOff(o->compress, (PetscBool)(c->nempty > 0 && 2 * c->nempty >= mbs));
  /* the mean over the rows that get work: kernel parameters for the rows that have blocks */
  mean = mbs - (c->compressed ? c->nempty : 0) > 0 ? (PetscReal)c->nz / (PetscReal)(mbs - (c->compressed ? c->nempty : 0)) : 0;

  {
    const TableEntry          *e    = TableFind(bs, mean);
    const MatBAIJKSPARSEKernel kern = o->kernel == MAT_BAIJKSPARSE_KERNEL_AUTO ? (e ? e->p.kernel : DefaultKernel(bs)) : o->kernel;

    if (e && e->p.kernel == kern) {
      char cls[64] = "";

      c->p = e->p;
      if (e->maxlen) PetscCall(PetscSNPrintf(cls, sizeof(cls), ", line for mean block-row length <= %d", e->maxlen));
      PetscCall(PetscSNPrintf(c->source, sizeof(c->source), "tuning table: %s%s", PBGTableUsed, cls));
    } else {
      DefaultParams(kern, bs, &c->p);
      PetscCall(PetscStrncpy(c->source, "built-in defaults", sizeof(c->source)));
    }
  }
  if (o->ept || o->warps || o->teams || o->lanes) PetscCall(PetscStrncpy(c->source, "options", sizeof(c->source)));
  if (o->ept) c->p.ept = (int)o->ept;
  if (o->warps) c->p.warps = (int)o->warps;
  if (o->teams) c->p.teams = (int)o->teams;
  if (o->lanes) c->p.lanes = (int)o->lanes;
  if (c->p.kernel == MAT_BAIJKSPARSE_KERNEL_K3 && !o->warps) {
    /* warp q of K3 takes blocks q, q + warps, ... of the block row: warps past the mean row length would idle (a table
       tuned on longer rows, e.g. 16 warps from 3d7/3d27 on a 2-D 5-point pattern) */
    const int cap = (int)PetscMax(1, PetscCeilReal(mean));

    if (c->p.warps > cap) c->p.warps = cap;
  }
  if (c->p.kernel == MAT_BAIJKSPARSE_KERNEL_SCALAR && c->p.lanes == 0) {
    c->p.lanes = 2;
    while (c->p.lanes < 32 && c->p.lanes < mean) c->p.lanes *= 2;
  }
  if (c->p.kernel == MAT_BAIJKSPARSE_KERNEL_K1 && c->p.lanes == 0) {
    /* the smallest sub-warp holding a block (or its columns) whose two loads in flight cover a mean row */
    const int per = MatBAIJKSPARSEK1LanesPerBlock(&c->p, (int)bs);

    c->p.lanes = 8;
    while (c->p.lanes < 32 && (c->p.lanes < per || 2 * (c->p.lanes / per) < mean)) c->p.lanes *= 2;
  }
  PetscCheck(MatBAIJKSPARSEParamsValid(&c->p, bs, msg, sizeof(msg)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: kernel %s (%s) cannot run this matrix: %s", MATSEQBAIJKSPARSE, MatBAIJKSPARSEKernels[c->p.kernel], c->source, msg);

  c->lambda   = o->lambda ? o->lambda : PetscMax(32, 4 * (PetscInt)PetscCeilReal(mean));
  c->balanced = AutoOnOff(o->balance, (PetscBool)(c->maxlen > c->lambda));
  /* K2 counts the columns of a work item (blocks x bs) in an int */
  PetscCheck(c->p.kernel != MAT_BAIJKSPARSE_KERNEL_K2 || (PetscInt64)(c->balanced ? PetscMin(c->lambda, c->maxlen) : c->maxlen) * bs <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: a block row of %" PetscInt_FMT " blocks is too long for kernel K2; use -mat_baijksparse_balance on", MATSEQBAIJKSPARSE, c->maxlen);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void DescribeParams(const MatBAIJKSPARSEParams *p, int bs, char *buf, size_t len)
{
  switch (p->kernel) {
  case MAT_BAIJKSPARSE_KERNEL_SCALAR:
    snprintf(buf, len, "%d lanes per row, %d warps per thread block", p->lanes, p->warps);
    break;
  case MAT_BAIJKSPARSE_KERNEL_K1:
    if (p->ept == bs && bs > 1) snprintf(buf, len, "%d lanes per block row, a column per lane (ept %d), %d blocks per load, %d warps per thread block", p->lanes, bs, p->lanes / MatBAIJKSPARSEK1LanesPerBlock(p, bs), p->warps);
    else snprintf(buf, len, "%d lanes per block row, an element per lane, %d blocks per load, %d warps per thread block", p->lanes, p->lanes / MatBAIJKSPARSEK1LanesPerBlock(p, bs), p->warps);
    break;
  case MAT_BAIJKSPARSE_KERNEL_K2: {
    const int ntg = (bs + p->ept - 1) / p->ept;
    snprintf(buf, len, "ept %d, thread array nb %d x N_tg %d, %d warp(s) per block row, %d block rows per thread block", p->ept, 32 * p->warps / ntg, ntg, p->warps, p->teams);
  } break;
  case MAT_BAIJKSPARSE_KERNEL_K3:
    snprintf(buf, len, "ept %d, %d thread blocks per block row, %d warps per thread block", p->ept, (bs + 32 * p->ept - 1) / (32 * p->ept), p->warps);
    break;
  default:
    snprintf(buf, len, "-");
  }
}

PetscErrorCode MatSeqBAIJKSPARSEViewKernel_Private(Mat A, PetscViewer viewer, const char *what, PetscBool *gpu)
{
  Mat_SeqBAIJKSPARSE  *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  PetscBool            avail, done;
  const PetscInt      *ia, *ja;
  PetscInt             mbs;
  MatBAIJKSPARSEChoice c;
  char                 buf[256];

  PetscFunctionBegin;
  *gpu = PETSC_FALSE;
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  if (!avail || A->boundtocpu) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %sMatMult: host BAIJ kernels (%s)\n", what, !avail ? "no CUDA device" : "bound to the CPU"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!A->assembled) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %sMatMult: GPU kernels, chosen at assembly\n", what));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  PetscCall(MatSeqBAIJKSPARSEChoose_Private(A, mbs, ia, &c));
  DescribeParams(&c.p, (int)A->rmap->bs, buf, sizeof(buf));
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %sMatMult: GPU kernel %s (%s; parameters from %s)\n", what, MatBAIJKSPARSEKernels[c.p.kernel], buf, c.source));
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %stuning table: %s\n", what, PBGTableStatus));
  if (c.balanced) {
    PetscInt nsplit = 0, nseg = 0;

    for (PetscInt r = 0; r < mbs; r++) {
      PetscInt len = ia[r + 1] - ia[r];

      if (len > c.lambda) {
        nsplit++;
        nseg += (len + c.lambda - 1) / c.lambda;
      } else nseg++;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %srows balanced: yes (lambda %" PetscInt_FMT " blocks; %" PetscInt_FMT " block rows split, %" PetscInt_FMT " segments)\n", what, c.lambda, nsplit, nseg));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %srows balanced: no (longest block row %" PetscInt_FMT " blocks, lambda %" PetscInt_FMT ")\n", what, c.maxlen, c.lambda));
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %srows compressed: %s (%" PetscInt_FMT " of %" PetscInt_FMT " block rows empty)\n", what, c.compressed ? "yes, work only for block rows with blocks" : "no", c.nempty, mbs));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  if (k->dev)
    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: %scopies to the GPU: %" PetscInt_FMT ", device copy %s\n", what, k->dev->ncopies,
                                     A->offloadmask == PETSC_OFFLOAD_BOTH  ? "current"
                                     : A->offloadmask == PETSC_OFFLOAD_GPU ? "newer than the host copy"
                                                                           : "stale (host newer)"));
  *gpu = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- the choice on the device copy */
/* The work items as segments (see MatBAIJKSPARSEDevice), built on the host and uploaded: rows longer than lambda split
   (balanced rows; lambda PETSC_INT_MAX: none), and no item for an empty row when skip_empty (compressed rows) */
static PetscErrorCode BuildSegments(MatBAIJKSPARSEDevice *d, PetscInt mbs, const PetscInt *ia, PetscInt lambda, PetscBool skip_empty, cudaStream_t stream, PetscInt64 *bytes)
{
  PetscInt nseg = 0, nsplit = 0, nslots = 0, s = 0, t = 0, q = 0;
  int     *segptr, *segrow, *splitrow, *splitslot;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < mbs; r++) {
    PetscInt len = ia[r + 1] - ia[r], parts = len > lambda ? (len + lambda - 1) / lambda : 1;

    if (skip_empty && !len) continue;
    nseg += parts;
    if (parts > 1) {
      nsplit++;
      nslots += parts;
    }
  }
  PetscCheck(nseg <= PETSC_INT32_MAX && (PetscInt64)nslots * d->bs <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: too many segments", MATSEQBAIJKSPARSE);
  PetscCall(PetscMalloc4(nseg + 1, &segptr, nseg, &segrow, nsplit, &splitrow, nsplit + 1, &splitslot));
  for (PetscInt r = 0; r < mbs; r++) {
    PetscInt len = ia[r + 1] - ia[r], parts = len > lambda ? (len + lambda - 1) / lambda : 1;

    if (skip_empty && !len) continue;
    if (parts == 1) {
      segptr[s] = (int)ia[r];
      segrow[s] = (int)r;
      s++;
    } else {
      splitrow[t]  = (int)r;
      splitslot[t] = (int)q;
      t++;
      for (PetscInt p = 0; p < parts; p++) { /* equal pieces of at most lambda blocks */
        segptr[s] = (int)(ia[r] + (PetscInt)(((PetscInt64)len * p) / parts));
        segrow[s] = (int)(-(q + 1));
        s++;
        q++;
      }
    }
  }
  segptr[nseg]      = (int)(mbs ? ia[mbs] : 0);
  splitslot[nsplit] = (int)nslots;
  d->nseg           = (int)nseg;
  d->nsplit         = (int)nsplit;
  d->nslots         = (int)nslots;
  PetscCall(MatBAIJKSPARSEDeviceRealloc_Private((void **)&d->segptr, &d->cap_seg, nseg + 1, sizeof(int)));
  { /* segrow shares the capacity of segptr (one fewer) */
    size_t cap = d->cap_seg;

    PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->segrow));
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->segrow, cap * sizeof(int)));
  }
  PetscCall(MatBAIJKSPARSEDeviceRealloc_Private((void **)&d->splitrow, &d->cap_split, nsplit + 1, sizeof(int)));
  {
    size_t cap = d->cap_split;

    PetscCall(MatBAIJKSPARSEDeviceFree_Private(d->splitslot));
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&d->splitslot, cap * sizeof(int)));
  }
  PetscCall(MatBAIJKSPARSEDeviceRealloc_Private((void **)&d->work, &d->cap_work, (size_t)nslots * d->bs, sizeof(PetscScalar)));
  PetscCall(MatBAIJKSPARSEUpload_Private(d->segptr, segptr, (nseg + 1) * sizeof(int), stream));
  if (nseg) PetscCall(MatBAIJKSPARSEUpload_Private(d->segrow, segrow, nseg * sizeof(int), stream));
  if (nsplit) PetscCall(MatBAIJKSPARSEUpload_Private(d->splitrow, splitrow, nsplit * sizeof(int), stream));
  PetscCall(MatBAIJKSPARSEUpload_Private(d->splitslot, splitslot, (nsplit + 1) * sizeof(int), stream));
  PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream)); /* before the host arrays go */
  *bytes += (PetscInt64)(2 * nseg + 2 * nsplit + 2) * (PetscInt64)sizeof(int);
  PetscCall(PetscFree4(segptr, segrow, splitrow, splitslot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool ConfigChanged(const MatBAIJKSPARSEDevice *d, const MatBAIJKSPARSEOptions *o)
{
  return (PetscBool)(d->cfg_balance != (PetscInt)o->balance || d->cfg_compress != (PetscInt)o->compress || d->cfg_lambda != o->lambda || d->cfg_kernel != (PetscInt)o->kernel || d->cfg_ept != o->ept || d->cfg_warps != o->warps || d->cfg_teams != o->teams || d->cfg_lanes != o->lanes);
}

/* The kernel, parameters and segments of the products of the device copy d (a pattern of mbs block rows, ia its host row
   pointers) with the options of A: made again after a change of the pattern (the caller clears d->choice_valid) or of
   the options */
PetscErrorCode MatSeqBAIJKSPARSEPrepareDevice_Private(Mat A, MatBAIJKSPARSEDevice *d, PetscInt mbs, const PetscInt *ia)
{
  Mat_SeqBAIJKSPARSE  *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEChoice c;
  cudaStream_t         stream;
  PetscInt64           bytes = 0;

  PetscFunctionBegin;
  if (d->choice_valid && !ConfigChanged(d, &k->opts)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatSeqBAIJKSPARSEChoose_Private(A, mbs, ia, &c));
  if (!d->choice_valid || c.balanced != d->balanced || c.compressed != d->compressed || (c.balanced && c.lambda != d->lambda)) {
    if (c.balanced || c.compressed) PetscCall(BuildSegments(d, mbs, ia, c.balanced ? c.lambda : PETSC_INT_MAX, c.compressed, stream, &bytes));
    else d->nseg = d->nsplit = d->nslots = 0;
  }
  d->params       = c.p;
  d->maxlen       = (int)c.maxlen;
  d->lambda       = (int)c.lambda;
  d->balanced     = c.balanced;
  d->compressed   = c.compressed;
  d->nempty       = (int)c.nempty;
  d->cfg_balance  = (PetscInt)k->opts.balance;
  d->cfg_compress = (PetscInt)k->opts.compress;
  d->cfg_lambda   = k->opts.lambda;
  d->cfg_kernel   = (PetscInt)k->opts.kernel;
  d->cfg_ept      = k->opts.ept;
  d->cfg_warps    = k->opts.warps;
  d->cfg_teams    = k->opts.teams;
  d->cfg_lanes    = k->opts.lanes;
  d->choice_valid = PETSC_TRUE;
  if (bytes) PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device copy, and the kernel, parameters and segments of the products for its pattern and the options: made again
   after a change of the pattern or of the options */
PetscErrorCode MatSeqBAIJKSPARSEPrepareMult_Private(Mat A)
{
  Mat_SeqBAIJKSPARSE   *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSEDevice *d;
  const PetscInt       *ia, *ja;
  PetscInt              mbs;
  PetscBool             done;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(A));
  d = k->dev;
  if (d->choice_valid && !ConfigChanged(d, &k->opts)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  PetscCall(MatSeqBAIJKSPARSEPrepareDevice_Private(A, d, mbs, ia));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- block-row statistics */
PetscErrorCode MatBAIJKSPARSEGetStats_Private(Mat Ad, Mat Ao, MatBAIJKSPARSEStats *s)
{
  const PetscInt *ia, *ja, *ib = NULL, *jb = NULL;
  PetscInt        n, nb = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(MatGetBlockSize(Ad, &s->bs));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the block rows of a %s matrix", ((PetscObject)Ad)->type_name);
  if (Ao) {
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ib, &jb, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the block rows of a %s matrix", ((PetscObject)Ao)->type_name);
    PetscCheck(nb == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Diagonal part has %" PetscInt_FMT " block rows, off-diagonal part %" PetscInt_FMT, n, nb);
  }
  s->mbs       = n;
  s->minblocks = PETSC_INT_MAX;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt len = ia[i + 1] - ia[i] + (ib ? ib[i + 1] - ib[i] : 0);

    s->nblocks += len;
    s->minblocks = PetscMin(s->minblocks, len);
    s->maxblocks = PetscMax(s->maxblocks, len);
    if (!len) s->nempty++;
  }
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  if (Ao) PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_TRUE, &nb, &ib, &jb, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEViewStats_Private(PetscViewer viewer, const MatBAIJKSPARSEStats *s)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: bs %" PetscInt_FMT ", block rows %" PetscInt_FMT ", nonzero blocks %" PetscInt_FMT "\n", s->bs, s->mbs, s->nblocks));
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse: blocks per block row: min %" PetscInt_FMT ", mean %.2f, max %" PetscInt_FMT "; empty block rows %" PetscInt_FMT "\n", s->mbs ? s->minblocks : 0, s->mbs ? (double)s->nblocks / (double)s->mbs : 0.0, s->maxblocks, s->nempty));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The kernel choice of the assembled pattern, made (and thrown away) on every path, so that an option or tuning table the
   GPU path would refuse (-mat_baijksparse_ept 7, a malformed table line) is refused on a host run too, where the options
   are read, rather than accepted silently until a GPU run */
PetscErrorCode MatSeqBAIJKSPARSECheckOptions_Private(Mat A)
{
  const PetscInt      *ia, *ja;
  PetscInt             mbs;
  PetscBool            done;
  MatBAIJKSPARSEChoice c;

  PetscFunctionBegin;
  if (A->hash_active) PetscFunctionReturn(PETSC_SUCCESS); /* (called at the end of an assembly: A->assembled is set after it) */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  PetscCall(MatSeqBAIJKSPARSEChoose_Private(A, mbs, ia, &c));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}
