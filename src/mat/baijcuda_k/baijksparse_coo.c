/* COO assembly of MATBAIJKSPARSE (seq and mpi): MatSetPreallocationCOO() and MatSetValuesCOO(), composed as
   "MatSetPreallocationCOO_C" / "MatSetValuesCOO_C" (BAIJ has none: PETSc would fall back to a MatSetValues() per entry).

   PETSc's semantics (those of AIJ): the entries define the nonzero pattern (the old one is dropped), an entry with a
   negative row or column is ignored, one out of range is an error, repeated entries are summed, entries of rows owned by
   another rank are sent to it; MatSetValuesCOO() with INSERT_VALUES sets each nonzero to the sum of its entries (0 where
   no entry falls, within the blocks the entries touch), ADD_VALUES adds that sum. As AIJ, the matrix is left unassembled
   (values zero) by the preallocation, assembled by MatSetValuesCOO(), and refuses new nonzeros afterwards.

   Point entry (i, j) lands in block (i/bs, j/bs) at (i%bs) + (j%bs)*bs of the block (column-major, BAIJ's layout). The
   preallocation builds the block pattern (BAIJ's CSR preallocation: the block rows sorted, explicit zero blocks) and, for
   each value slot s of a part (nz blocks of bs^2), the entries summed into it: jmap[s]..jmap[s+1] into perm[] (a counting
   sort, entries in their input order: the summation order is fixed). MatSetValuesCOO() is then a gather, a thread per
   slot on the device (cuda/baijksparse_coo.cu), or the same loop on the host.

   The maps are made for one pattern: MatSetValuesCOO() refuses them when the pattern changed since (COOPartCheckPattern()),
   and MatDuplicate() shares them with the duplicate (reference counted, as AIJ shares its COO struct), which has the
   same pattern.

   MPI, as MPIAIJ: the entries of rows another rank owns go to it through a PetscSF made at the preallocation (leaves: the
   sent entries, ordered by owner; roots: the owner's receive buffer, a chunk per sender in rank order); the owner gathers
   its own entries into the diagonal part (Ad) and the off-diagonal part (Ao, its columns compressed through garray),
   while the entries travel, then adds the received ones (imap2: the slots that receive some). One rank uses the same code
   with nothing sent.

   Memory: v may be a host or a device array (PetscGetMemType()). With a device in use (present, not bound to the CPU) the
   gather runs there and leaves the device copy newer, host v uploaded first; otherwise it runs on the host values,
   device v downloaded first. The maps go to the device at the preallocation, with the pattern, so that MatSetValuesCOO()
   with device values moves nothing between host and device. */
#include "baijksparse_device.h" /*I "petscblockgpu.h" I*/
#include <petscdevice_cuda.h>
#include <petscsf.h>

/* The maps of one seqbaijksparse matrix or MPI part */
typedef struct {
  PetscInt   bs, nz; /* the pattern they were made for */
  PetscInt   mbs;
  PetscInt64 hash;                                            /* of its block rows and columns (BAIJ's ia, ja) */
  PetscCount nslots;                                          /* nz * bs^2 */
  PetscCount n1;                                              /* this rank's own entries that fall in the part */
  int       *jmap1, *perm1;                                   /* slot s = sum of v[perm1[p]], p in [jmap1[s], jmap1[s+1]); jmap1 NULL: v[perm1[s]] */
  PetscCount nimap2, n2;                                      /* slots that receive entries from other ranks, and those entries */
  int       *imap2, *jmap2, *perm2;                           /* slot imap2[t] += sum of recv[perm2[p]], p in [jmap2[t], jmap2[t+1]) */
  int       *d_jmap1, *d_perm1, *d_imap2, *d_jmap2, *d_perm2; /* device copies */
  PetscBool  on_device;                                       /* the device copies exist */
} COOPart;

/* The maps of one preallocation and the buffers of MatSetValuesCOO(): shared by the matrix and its duplicates (MatDuplicate()
   keeps the pattern, of each MPI part too), freed with the last of them. The buffers are used within one call only. */
typedef struct {
  PetscInt     refct;
  PetscCount   ncoo, nignored; /* entries given on this rank; those with a negative index */
  PetscInt     nparts;         /* 1 (seq) or 2 (Ad, Ao) */
  COOPart      part[2];
  PetscBool    comm; /* some rank sends entries: the star forest runs */
  PetscSF      sf;   /* leaves: the entries this rank sends; roots: those it receives */
  PetscCount   nsend, nrecv;
  int         *sendperm; /* [nsend] the index in v of each sent entry, in leaf order */
  PetscScalar *sendbuf, *recvbuf;
  int         *d_sendperm;
  PetscScalar *d_sendbuf, *d_recvbuf;
  PetscScalar *d_v, *h_v; /* host v uploaded, device v downloaded (allocated at first need) */
  PetscBool    on_device; /* d_sendperm, d_sendbuf, d_recvbuf exist */
} COOMaps;

/* What one matrix holds: the shared maps and its own state */
struct _n_MatBAIJKSPARSECOO {
  COOMaps         *m;
  PetscObjectId    id[2];        /* the seq matrix or the MPI parts whose pattern was last found to be the maps' one, */
  PetscInt         nass[2];      /* and their number of assemblies expected at the next MatSetValuesCOO() */
  PetscObjectState nzs[2];       /* and their nonzero state after the last MatSetValuesCOO() */
  PetscInt         nfingerprint; /* patterns compared by their fingerprint (the fast path not taken), for -mat_view */
  PetscObjectState nzstate;      /* seq: A's nonzero state when the preallocation uploaded the pattern */
  PetscInt         ncalls;       /* MatSetValuesCOO() calls, for -mat_view */
  PetscBool        last_device;  /* where the last one gathered */
};

static PetscErrorCode COOPartReset(COOPart *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(p->jmap1));
  PetscCall(PetscFree(p->perm1));
  PetscCall(PetscFree3(p->imap2, p->jmap2, p->perm2));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(p->d_jmap1));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(p->d_perm1));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(p->d_imap2));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(p->d_jmap2));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(p->d_perm2));
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COOMapsDestroy(COOMaps **pm)
{
  COOMaps *m = *pm;

  PetscFunctionBegin;
  *pm = NULL;
  if (!m || --m->refct > 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < 2; i++) PetscCall(COOPartReset(&m->part[i]));
  PetscCall(PetscSFDestroy(&m->sf));
  PetscCall(PetscFree3(m->sendperm, m->sendbuf, m->recvbuf));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(m->d_sendperm));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(m->d_sendbuf));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(m->d_recvbuf));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(m->d_v));
  PetscCall(PetscFree(m->h_v));
  PetscCall(PetscFree(m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSECOODestroy_Private(MatBAIJKSPARSECOO *pc)
{
  PetscFunctionBegin;
  if (!*pc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(COOMapsDestroy(&(*pc)->m));
  PetscCall(PetscFree(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The COO state of a duplicate (same pattern): the maps shared, the counts of the view its own */
PetscErrorCode MatBAIJKSPARSECOODuplicate_Private(MatBAIJKSPARSECOO c, MatBAIJKSPARSECOO *d)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSECOODestroy_Private(d));
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(d));
  (*d)->m       = c->m;
  (*d)->nzstate = c->nzstate;
  c->m->refct++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --------------------------------------------------------------------------------------------- building the maps */
/* The block rows and columns of square blocks: the row and column block sizes must agree (BAIJ's own rule) */
static PetscErrorCode COOBlockSize(Mat A, PetscInt *bs)
{
  PetscInt rbs, cbs;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
  PetscCheck(rbs == cbs, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP, "%s: COO assembly needs equal row and column block sizes, not %" PetscInt_FMT " and %" PetscInt_FMT, ((PetscObject)A)->type_name, rbs, cbs);
  *bs = rbs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block CSR of ne entries in block rows brow[] (0 <= brow < mbs) and block columns bcol[]: ii[mbs + 1], jj[] sorted and
   unique in each row. A counting sort by row, then a sort per row: O(ne log) */
PetscErrorCode MatBAIJKSPARSEBlockCSROfPairs_Private(PetscInt mbs, PetscCount ne, const PetscInt brow[], const PetscInt bcol[], PetscInt **ii, PetscInt **jj)
{
  PetscInt *ia, *cols, *next, beg = 0, w = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(mbs + 1, &ia));
  PetscCall(PetscMalloc1(PetscMax(ne, 1), &cols));
  PetscCall(PetscMalloc1(mbs + 1, &next));
  for (PetscCount e = 0; e < ne; e++) ia[brow[e] + 1]++;
  for (PetscInt r = 0; r < mbs; r++) ia[r + 1] += ia[r];
  PetscCall(PetscArraycpy(next, ia, mbs + 1));
  for (PetscCount e = 0; e < ne; e++) cols[next[brow[e]]++] = bcol[e];
  for (PetscInt r = 0; r < mbs; r++) { /* sort and compact in place: ia[r] becomes the start of the unique columns */
    const PetscInt end = ia[r + 1];
    PetscInt       n   = end - beg;

    PetscCall(PetscSortRemoveDupsInt(&n, cols + beg));
    if (w != beg) PetscCall(PetscArraymove(cols + w, cols + beg, n));
    ia[r] = w;
    w += n;
    beg = end;
  }
  ia[mbs] = w;
  PetscCall(PetscFree(next));
  *ii = ia;
  *jj = cols;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The position of block column c in block row r of a BAIJ pattern (ia, ja sorted per row) */
static PetscErrorCode FindBlock(const PetscInt ia[], const PetscInt ja[], PetscInt r, PetscInt c, PetscInt *b)
{
  PetscInt loc;

  PetscFunctionBegin;
  PetscCall(PetscFindInt(c, ia[r + 1] - ia[r], ja + ia[r], &loc));
  PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO: block (%" PetscInt_FMT ", %" PetscInt_FMT ") is missing from the pattern just built", r, c);
  *b = ia[r] + loc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* jmap[0..n] from a count per slot in jmap[1..n] (jmap[0] = 0), then perm[] by a counting sort (entries in input order);
   jmap is used as the cursor and shifted back afterwards */
static PetscErrorCode CountingSort(PetscCount n, int jmap[], PetscCount ne, const PetscInt64 slot[], const PetscCount idx[], const int src[], int perm[])
{
  PetscFunctionBegin;
  for (PetscCount s = 0; s < n; s++) jmap[s + 1] += jmap[s];
  for (PetscCount e = 0; e < ne; e++) perm[jmap[idx ? idx[e] : slot[e]]++] = src[e];
  for (PetscCount s = n; s > 0; s--) jmap[s] = jmap[s - 1];
  jmap[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The maps of a part with nz blocks: its own entries (slot1[e], index src1[e] in v) and the received ones (slot2[e],
   index src2[e] in the receive buffer) */
static PetscErrorCode BuildPart(COOPart *p, PetscInt bs, PetscInt nz, PetscCount n1, const PetscInt64 slot1[], const int src1[], PetscCount n2, const PetscInt64 slot2[], const int src2[])
{
  PetscBool one = PETSC_TRUE;

  PetscFunctionBegin;
  p->bs     = bs;
  p->nz     = nz;
  p->nslots = (PetscCount)nz * bs * bs;
  p->n1     = n1;
  p->n2     = n2;
  PetscCall(PetscCalloc1(p->nslots + 1, &p->jmap1));
  PetscCall(PetscMalloc1(PetscMax(n1, 1), &p->perm1));
  for (PetscCount e = 0; e < n1; e++) p->jmap1[slot1[e] + 1]++;
  PetscCall(CountingSort(p->nslots, p->jmap1, n1, slot1, NULL, src1, p->perm1));
  /* one entry in every slot: a pure permutation, no jmap to read */
  if (n1 != p->nslots || !n1) one = PETSC_FALSE;
  for (PetscCount s = 0; one && s < p->nslots; s++) one = (PetscBool)(p->jmap1[s + 1] - p->jmap1[s] == 1);
  if (one) PetscCall(PetscFree(p->jmap1));
  if (n2) {
    int        *where;
    PetscCount *t2;

    PetscCheck(p->nslots <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "COO: %" PetscCount_FMT " value slots in a part receiving entries from other ranks exceed the 32-bit maps", p->nslots);
    PetscCall(PetscCalloc1(p->nslots, &where));
    for (PetscCount e = 0; e < n2; e++) where[slot2[e]]++;
    for (PetscCount s = 0; s < p->nslots; s++) p->nimap2 += where[s] ? 1 : 0;
    PetscCall(PetscCalloc3(p->nimap2, &p->imap2, p->nimap2 + 1, &p->jmap2, n2, &p->perm2));
    for (PetscCount s = 0, t = 0; s < p->nslots; s++) {
      if (!where[s]) continue;
      p->imap2[t]     = (int)s;
      p->jmap2[t + 1] = where[s];
      where[s]        = (int)t++;
    }
    PetscCall(PetscMalloc1(n2, &t2));
    for (PetscCount e = 0; e < n2; e++) t2[e] = where[slot2[e]];
    PetscCall(CountingSort(p->nimap2, p->jmap2, n2, NULL, t2, src2, p->perm2));
    PetscCall(PetscFree(t2));
    PetscCall(PetscFree(where));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value slot of point entry (i, j) in block b */
static inline PetscInt64 Slot(PetscInt b, PetscInt bs, PetscInt i, PetscInt j)
{
  return (PetscInt64)b * bs * bs + (i % bs) + (PetscInt64)(j % bs) * bs;
}

/* A fingerprint of a block pattern (FNV-1a over the row pointers, the columns and, for MPIBAIJ's off-diagonal part, the
   global block column of each compressed one: garray[ncol]; ncol 0 elsewhere). Without garray, ghost blocks that move to
   other global columns while the compressed pattern stays the same would go unnoticed */
static PetscInt64 PatternHash(PetscInt mbs, const PetscInt ia[], const PetscInt ja[], PetscInt ncol, const PetscInt garray[])
{
  unsigned long long h = 1469598103934665603ULL;

  for (PetscInt r = 0; r <= mbs; r++) h = (h ^ (unsigned long long)ia[r]) * 1099511628211ULL;
  for (PetscInt b = 0; b < (mbs ? ia[mbs] : 0); b++) h = (h ^ (unsigned long long)ja[b]) * 1099511628211ULL;
  for (PetscInt q = 0; q < ncol; q++) h = (h ^ (unsigned long long)garray[q]) * 1099511628211ULL;
  return (PetscInt64)(h & 0x7fffffffffffffffULL);
}

/* Whether part t (P: the seq matrix or an MPI part) still has the pattern the maps were made for (same), and its block
   count now (nz). The block count is cheap but not enough: BAIJ's preallocation does not move the nonzero state when the
   new pattern is filled exactly, so another pattern of as many blocks (MatXAIJSetPreallocation() and MatSetValues())
   would take the old maps and the values land in the wrong places. The pattern is compared (its fingerprint, O(nz))
   unless nothing can have changed it since the last call: the same matrix (MPIBAIJ's preallocation makes new parts),
   assembled, and its only assembly since then the one that ended that MatSetValuesCOO() (a new preallocation leaves the
   matrix unassembled, and was_assembled false until a second assembly), and its nonzero state unchanged (MatZeroRows()
   without MAT_KEEP_NONZERO_PATTERN drops blocks and compresses the rows inside BAIJ's method, with no assembly that
   the count would see, but it moves the nonzero state). assembled: whether the matrix was assembled
   before MatSetValuesCOO() marks it (MPI: the matrix and the part; MatSetValues() on MPIBAIJ inserts into the parts
   without marking them unassembled). garray (ncol of them): the global block columns of MPIBAIJ's off-diagonal part,
   else NULL. BAIJ's own MatGetRowIJ(): the forwarder would download a newer device copy of the values. */
static PetscErrorCode COOPartSamePattern(Mat P, MatBAIJKSPARSECOO c, PetscInt t, PetscBool assembled, PetscInt ncol, const PetscInt garray[], PetscBool *same, PetscInt *nz)
{
  Mat_SeqBAIJKSPARSE *kp = (Mat_SeqBAIJKSPARSE *)P->spptr;
  const COOPart      *p  = &c->m->part[t];
  const PetscInt     *ia, *ja;
  PetscInt            n;
  PetscBool           done = PETSC_TRUE; /* (MatGetRowIJ() sets it before calling the method, which may not) */

  PetscFunctionBegin;
  *same = PETSC_TRUE;
  *nz   = p->nz;
  if (c->id[t] == ((PetscObject)P)->id && assembled && P->was_assembled && P->num_ass == c->nass[t] && P->nonzerostate == c->nzs[t] && P->rmap->bs == p->bs) PetscFunctionReturn(PETSC_SUCCESS);
  c->nfingerprint++;
  PetscCall((*kp->host.getrowij)(P, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  *nz   = n ? ia[n] : 0;
  *same = (PetscBool)(n == p->mbs && *nz == p->nz && P->rmap->bs == p->bs && PatternHash(n, ia, ja, ncol, garray) == p->hash);
  PetscCall((*kp->host.restorerowij)(P, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  if (*same) c->id[t] = ((PetscObject)P)->id;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The error of a part whose pattern changed (COOPartSamePattern()): nz blocks of bs now */
static PetscErrorCode COOPatternChanged(const COOPart *p, PetscInt nz, PetscInt bs)
{
  PetscFunctionBegin;
  PetscCheck(nz == p->nz && bs == p->bs, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO(): the nonzero pattern changed since MatSetPreallocationCOO() (%" PetscInt_FMT " blocks of %" PetscInt_FMT ", now %" PetscInt_FMT " of %" PetscInt_FMT "); call MatSetPreallocationCOO() again", p->nz, p->bs, nz, bs);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO(): the nonzero pattern changed since MatSetPreallocationCOO() (as many blocks, %" PetscInt_FMT ", other ones); call MatSetPreallocationCOO() again", nz);
}

/* ---------------------------------------------------------------------------------------------- device side */
/* The part's pattern and values (CopyToGPU) and its maps on the device */
static PetscErrorCode COOPartToDevice(Mat P, COOPart *p)
{
  cudaStream_t   stream;
  PetscLogDouble bytes = 0;

  PetscFunctionBegin;
  PetscCall(MatSeqBAIJKSPARSECopyToGPU(P));
  if (p->on_device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (p->jmap1) PetscCall(MatBAIJKSPARSEUploadInts_Private(&p->d_jmap1, p->jmap1, p->nslots + 1, stream, &bytes));
  PetscCall(MatBAIJKSPARSEUploadInts_Private(&p->d_perm1, p->perm1, p->jmap1 ? p->n1 : p->nslots, stream, &bytes));
  if (p->n2) {
    PetscCall(MatBAIJKSPARSEUploadInts_Private(&p->d_imap2, p->imap2, p->nimap2, stream, &bytes));
    PetscCall(MatBAIJKSPARSEUploadInts_Private(&p->d_jmap2, p->jmap2, p->nimap2 + 1, stream, &bytes));
    PetscCall(MatBAIJKSPARSEUploadInts_Private(&p->d_perm2, p->perm2, p->n2, stream, &bytes));
  }
  PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
  PetscCall(PetscLogCpuToGpu(bytes));
  p->on_device = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The buffers of the sent and received entries on the device */
static PetscErrorCode COOCommToDevice(COOMaps *m)
{
  cudaStream_t   stream;
  PetscLogDouble bytes = 0;

  PetscFunctionBegin;
  if (m->on_device || !m->comm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatBAIJKSPARSEUploadInts_Private(&m->d_sendperm, m->sendperm, m->nsend, stream, &bytes));
  PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&m->d_sendbuf, (size_t)PetscMax(m->nsend, 1) * sizeof(PetscScalar)));
  PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&m->d_recvbuf, (size_t)PetscMax(m->nrecv, 1) * sizeof(PetscScalar)));
  PetscCall(MatBAIJKSPARSEDeviceWait_Private(stream));
  PetscCall(PetscLogCpuToGpu(bytes));
  m->on_device = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -------------------------------------------------------------------------------------------------- the gather */
/* The host twin of MatBAIJKSPARSECOOGather_CUDA() */
static void GatherHost(PetscCount n, const int *imap, const int *jmap, const int *perm, const PetscScalar *v, PetscScalar *val, PetscBool add)
{
  for (PetscCount t = 0; t < n; t++) {
    const PetscCount s = imap ? imap[t] : t;
    PetscScalar      sum;

    if (jmap) {
      if (add && jmap[t] == jmap[t + 1]) continue;
      sum = 0;
      for (int p = jmap[t]; p < jmap[t + 1]; p++) sum += v[perm[p]];
    } else sum = v[perm[t]];
    val[s] = add ? val[s] + sum : sum;
  }
}

/* v where the gather runs: the user's array, or its copy in the other memory */
static PetscErrorCode COOValuesWhere(COOMaps *m, const PetscScalar v[], PetscBool device, const PetscScalar **w)
{
  PetscMemType mt;
  PetscBool    avail;
  cudaStream_t stream;
  const size_t len = (size_t)m->ncoo * sizeof(PetscScalar);

  PetscFunctionBegin;
  *w = v;
  if (!m->ncoo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(v, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MatSetValuesCOO(): no values (NULL) for %" PetscCount_FMT " COO entries", m->ncoo);
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  if (avail) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* PetscGetMemType() asks CUDA only once it is */
  PetscCall(PetscGetMemType(v, &mt));
  if (device && PetscMemTypeHost(mt)) {
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    if (!m->d_v) PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&m->d_v, len));
    PetscCall(MatBAIJKSPARSEUpload_Private(m->d_v, v, len, stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)len));
    *w = m->d_v;
  } else if (!device && PetscMemTypeDevice(mt)) {
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    if (!m->h_v) PetscCall(PetscMalloc1(m->ncoo, &m->h_v));
    PetscCall(MatBAIJKSPARSEDownload_Private(m->h_v, v, len, stream));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)len));
    *w = m->h_v;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The part's own entries into its values (INSERT: every slot written, ADD: added) */
static PetscErrorCode COOPartGatherLocal(Mat P, COOPart *p, const PetscScalar *v, InsertMode imode, PetscBool device)
{
  Mat_SeqBAIJKSPARSE *kp  = (Mat_SeqBAIJKSPARSE *)P->spptr;
  const PetscBool     add = (PetscBool)(imode == ADD_VALUES);

  PetscFunctionBegin;
  if (device) {
    PetscBool    ondev;
    cudaStream_t stream;

    PetscCall(MatSeqBAIJKSPARSEValuesOnDevice_Private(P, &ondev));
    if (ondev && !add && P->offloadmask == PETSC_OFFLOAD_CPU) MatBAIJKSPARSEMarkDeviceNewer_Private(P); /* all overwritten: no upload */
    PetscCall(COOPartToDevice(P, p));
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatBAIJKSPARSECOOGather_CUDA(p->nslots, NULL, p->d_jmap1, p->d_perm1, v, kp->dev->val, add, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((PetscLogDouble)p->n1));
    MatBAIJKSPARSEMarkDeviceNewer_Private(P);
  } else {
    PetscScalar *a;

    if (!add && P->offloadmask == PETSC_OFFLOAD_GPU) MatBAIJKSPARSEMarkHostNewer_Private(P); /* all overwritten: no download */
    else PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(P, PETSC_TRUE));
    PetscCall((*kp->getarray)(P, &a));
    GatherHost(p->nslots, NULL, p->jmap1, p->perm1, v, a, add);
    PetscCall((*kp->restorearray)(P, &a));
    PetscCall(PetscLogFlops((PetscLogDouble)p->n1));
    if (P->offloadmask != PETSC_OFFLOAD_UNALLOCATED) MatBAIJKSPARSEMarkHostNewer_Private(P);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The entries received from other ranks, added after the local ones (where COOPartGatherLocal() left the values) */
static PetscErrorCode COOPartGatherRemote(Mat P, COOPart *p, const PetscScalar *recv, PetscBool device)
{
  Mat_SeqBAIJKSPARSE *kp = (Mat_SeqBAIJKSPARSE *)P->spptr;

  PetscFunctionBegin;
  if (!p->n2) PetscFunctionReturn(PETSC_SUCCESS);
  if (device) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatBAIJKSPARSECOOGather_CUDA(p->nimap2, p->d_imap2, p->d_jmap2, p->d_perm2, recv, kp->dev->val, PETSC_TRUE, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((PetscLogDouble)p->n2));
  } else {
    PetscScalar *a;

    PetscCall((*kp->getarray)(P, &a));
    GatherHost(p->nimap2, p->imap2, p->jmap2, p->perm2, recv, a, PETSC_TRUE);
    PetscCall((*kp->restorearray)(P, &a));
    PetscCall(PetscLogFlops((PetscLogDouble)p->n2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checks of the entries (M x N global rows and columns), before anything is allocated or the old maps dropped: a
   refused preallocation leaves the matrix as it was. Collective on comm: a rank whose entries are fine errors too
   (naming the rank that holds the bad entry), so the error returns on every rank instead of one rank aborting the
   job while the others wait in the preallocation's communication. coo_i NULL: the count only. */
static PetscErrorCode COOCheckEntries(MPI_Comm comm, PetscCount ncoo, const PetscInt coo_i[], const PetscInt coo_j[], PetscInt M, PetscInt N)
{
  PetscMPIInt rank, bad = -1, firstbad;
  PetscCount  e = 0;
  PetscInt    i = 0, j = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (ncoo < 0 || ncoo > PETSC_INT32_MAX) bad = rank;
  for (; bad < 0 && coo_i && e < ncoo; e++) {
    i = coo_i[e];
    j = coo_j[e];
    if (i < 0 || j < 0) continue; /* ignored */
    if (i >= M || j >= N) bad = rank;
  }
  if (bad >= 0) e--; /* the entry found */
  firstbad = bad < 0 ? PETSC_MPI_INT_MAX : bad;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &firstbad, 1, MPI_INT, MPI_MIN, comm));
  if (firstbad == PETSC_MPI_INT_MAX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ncoo >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO: the number of entries %" PetscCount_FMT " is negative", ncoo);
  PetscCheck(ncoo <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO: %" PetscCount_FMT " entries on one rank: the maps of MATBAIJKSPARSE index them with 32-bit integers", ncoo);
  PetscCheck(bad < 0 || i < M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO entry %" PetscCount_FMT ": row %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", e, i, M);
  PetscCheck(bad < 0 || j < N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO entry %" PetscCount_FMT ": column %" PetscInt_FMT " is out of range [0, %" PetscInt_FMT ")", e, j, N);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO: rank %d passed an out-of-range entry or count to MatSetPreallocationCOO()", (int)firstbad);
}

/* MatSetPreallocationCOOLocal() of seq and mpi baijksparse. PETSc's generic path casts the count to PetscInt before
   anything checks it: a negative count below -2^31 was reported as too big for PetscInt (configure with 64-bit indices).
   The count is checked first (collectively), then the indices are mapped as PETSc does and the type's
   MatSetPreallocationCOO() runs; MatSetPreallocationCOOLocal() then marks the matrix preallocated and its new pattern. */
PetscErrorCode MatSetPreallocationCOOLocal_BAIJKSPARSE(Mat A, PetscCount ncoo, PetscInt coo_i[], PetscInt coo_j[])
{
  ISLocalToGlobalMapping rmap, cmap;
  PetscErrorCode (*f)(Mat, PetscCount, PetscInt[], PetscInt[]) = NULL;

  PetscFunctionBegin;
  PetscCall(COOCheckEntries(PetscObjectComm((PetscObject)A), ncoo, NULL, NULL, A->rmap->N, A->cmap->N));
  PetscCall(MatGetLocalToGlobalMapping(A, &rmap, &cmap));
  if (rmap) PetscCall(ISLocalToGlobalMappingApply(rmap, (PetscInt)ncoo, coo_i, coo_i));
  if (cmap) PetscCall(ISLocalToGlobalMappingApply(cmap, (PetscInt)ncoo, coo_j, coo_j));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetPreallocationCOO_C", &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no MatSetPreallocationCOO()", ((PetscObject)A)->type_name);
  PetscCall((*f)(A, ncoo, coo_i, coo_j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode COOCreate(PetscCount ncoo, MatBAIJKSPARSECOO *c)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(c));
  PetscCall(PetscNew(&(*c)->m));
  (*c)->m->refct = 1;
  (*c)->m->ncoo  = ncoo;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSECOOView_Private(MatBAIJKSPARSECOO c, PetscViewer viewer)
{
  static const char *const name[2] = {"diagonal part: ", "off-diagonal part: "};
  COOMaps                 *m;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  m = c->m;
  PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse COO: %" PetscCount_FMT " entries (%" PetscCount_FMT " ignored, %" PetscCount_FMT " sent to other ranks, %" PetscCount_FMT " received) on rank 0; %" PetscInt_FMT " MatSetValuesCOO(), the last gathered on the %s; patterns compared by fingerprint %" PetscInt_FMT "%s\n", m->ncoo, m->nignored, m->nsend, m->nrecv, c->ncalls, c->ncalls ? (c->last_device ? "device" : "host") : "-", c->nfingerprint, m->refct > 1 ? "; maps shared with a duplicate" : ""));
  for (PetscInt t = 0; t < m->nparts; t++) {
    const COOPart *p = &m->part[t];

    PetscCall(PetscViewerASCIIPrintf(viewer, "baijksparse COO: %s%" PetscCount_FMT " value slots from %" PetscCount_FMT " local entries (%s) and %" PetscCount_FMT " received into %" PetscCount_FMT " slots\n", m->nparts > 1 ? name[t] : "", p->nslots, p->n1, p->jmap1 ? "summed" : "a permutation", p->n2, p->nimap2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ seq */
PetscErrorCode MatSetPreallocationCOO_SeqBAIJKSPARSE(Mat A, PetscCount ncoo, PetscInt coo_i[], PetscInt coo_j[])
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSECOO   c;
  PetscInt            bs, m = A->rmap->n, n = A->cmap->n, mbs, *brow, *bcol, *ii, *jj, mbs2;
  const PetscInt     *ia, *ja;
  int                *src;
  PetscInt64         *slot;
  PetscCount          ne = 0;
  PetscBool           done, use;

  PetscFunctionBegin;
  PetscCall(COOCheckEntries(PETSC_COMM_SELF, ncoo, coo_i, coo_j, m, n));
  PetscCall(COOBlockSize(A, &bs));
  PetscCall(MatBAIJKSPARSECOODestroy_Private(&k->coo));
  PetscCall(COOCreate(ncoo, &c));
  mbs = m / bs;
  PetscCall(PetscMalloc4(PetscMax(ncoo, 1), &brow, PetscMax(ncoo, 1), &bcol, PetscMax(ncoo, 1), &src, PetscMax(ncoo, 1), &slot));
  for (PetscCount e = 0; e < ncoo; e++) {
    const PetscInt i = coo_i[e], j = coo_j[e];

    if (i < 0 || j < 0) {
      c->m->nignored++;
      continue;
    }
    brow[ne] = i / bs;
    bcol[ne] = j / bs;
    src[ne]  = (int)e;
    ne++;
  }
  /* the block pattern, with explicit zero blocks, assembled: BAIJ's own CSR preallocation */
  PetscCall(MatBAIJKSPARSEBlockCSROfPairs_Private(mbs, ne, brow, bcol, &ii, &jj));
  PetscCall(MatSeqBAIJSetPreallocationCSR(A, bs, ii, jj, NULL));
  /* a new pattern goes to the device again even where the nonzero state did not move (BAIJ's exact-fill preallocation) */
  if (k->dev) k->dev->pattern_valid = PETSC_FALSE;
  PetscCall(PetscFree(ii));
  PetscCall(PetscFree(jj));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs2, &ia, &ja, &done));
  PetscCheck(done && mbs2 == mbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of the %s matrix", MATSEQBAIJKSPARSE);
  for (PetscCount e = 0; e < ne; e++) {
    PetscInt b;

    PetscCall(FindBlock(ia, ja, brow[e], bcol[e], &b));
    slot[e] = Slot(b, bs, coo_i[src[e]], coo_j[src[e]]);
  }
  PetscCall(BuildPart(&c->m->part[0], bs, mbs ? ia[mbs] : 0, ne, slot, src, 0, NULL, NULL));
  c->m->part[0].mbs  = mbs;
  c->m->part[0].hash = PatternHash(mbs, ia, ja, 0, NULL);
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &mbs2, &ia, &ja, &done));
  PetscCall(PetscFree4(brow, bcol, src, slot));
  c->m->nparts = 1;
  k->coo       = c;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use)); /* the maps and the pattern go to the device here, once */
  if (use) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  if (use) PetscCall(COOPartToDevice(A, &c->m->part[0])); /* the pattern (and zero values) and the maps, once */
  c->nzstate   = A->nonzerostate;
  A->assembled = PETSC_FALSE; /* as AIJ: values zero, MatSetValuesCOO() assembles */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetValuesCOO_SeqBAIJKSPARSE(Mat A, const PetscScalar v[], InsertMode imode)
{
  Mat_SeqBAIJKSPARSE *k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSECOO   c = k->coo;
  const PetscScalar  *w;
  PetscInt            nz;
  PetscBool           use, same;

  PetscFunctionBegin;
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO() on a %s matrix needs MatSetPreallocationCOO() first", MATSEQBAIJKSPARSE);
  PetscCheck(imode == INSERT_VALUES || imode == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatSetValuesCOO(): InsertMode must be INSERT_VALUES or ADD_VALUES");
  PetscCall(COOPartSamePattern(A, c, 0, A->assembled, 0, NULL, &same, &nz));
  if (!same) PetscCall(COOPatternChanged(&c->m->part[0], nz, A->rmap->bs));
  A->assembled = PETSC_TRUE;
  /* MatSetPreallocationCOO() advances the nonzero state once more after ours returns: the pattern uploaded there is still
     A's (else the first call would upload it again, and the values with it) */
  if (k->dev && k->dev->pattern_valid && k->dev->nzstate == c->nzstate && A->nonzerostate == c->nzstate + 1) k->dev->nzstate = A->nonzerostate;
  c->nzstate = A->nonzerostate;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use));
  if (use) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscLogEventBegin(PBG_BAIJKCOO, A, 0, 0, 0));
  PetscCall(COOValuesWhere(c->m, v, use, &w));
  PetscCall(COOPartGatherLocal(A, &c->m->part[0], w, imode, use));
  PetscCall(PetscLogEventEnd(PBG_BAIJKCOO, A, 0, 0, 0));
  c->nass[0] = A->num_ass + 1; /* the assembly PETSc's MatSetValuesCOO() ends with */
  c->nzs[0]  = A->nonzerostate;
  c->ncalls++;
  c->last_device = use;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------ mpi */
/* Which entries stay and which go to the owner of their row (cm's send permutation and star forest, in owner order,
   input order within one); the local entries then the received ones, as global (row, column) pairs with their source
   (an input index for a local entry, a receive-buffer index for a received one): *pgi, *pgj, *psrc of *pne entries,
   the first *pnlocal local */
static PetscErrorCode COOExchangeEntries(Mat A, PetscCount ncoo, const PetscInt coo_i[], const PetscInt coo_j[], COOMaps *cm, PetscCount *pnlocal, PetscCount *pne, PetscInt **pgi, PetscInt **pgj, int **psrc)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt  size, rank;
  PetscInt     rstart = A->rmap->rstart, rend = A->rmap->rend;
  PetscInt    *gi, *gj;
  PetscInt64  *sendcount, *offset, nrecv = 0;
  PetscMPIInt *owner;
  int         *src;
  PetscCount   nlocal = 0, nsend = 0, ne;
  PetscBool    any;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* which entries stay, which go to their owner (ordered by owner, in input order within one) */
  PetscCall(PetscMalloc1(PetscMax(ncoo, 1), &owner));
  PetscCall(PetscCalloc2(size, &sendcount, size + 1, &offset));
  for (PetscCount e = 0; e < ncoo; e++) {
    const PetscInt i = coo_i[e], j = coo_j[e];

    owner[e] = -1;
    if (i < 0 || j < 0) {
      cm->nignored++;
      continue;
    }
    if (i >= rstart && i < rend) {
      owner[e] = rank;
      nlocal++;
    } else {
      PetscCall(PetscLayoutFindOwner(A->rmap, i, &owner[e]));
      sendcount[owner[e]]++;
      nsend++;
    }
  }
  cm->nsend = nsend;
  /* the receive buffer of an owner: a chunk per sender, in rank order; the chunk's start is the sum of the counts of the
     ranks before (an exclusive scan) */
  PetscCallMPI(MPI_Exscan(sendcount, offset, size, MPIU_INT64, MPI_SUM, comm));
  if (rank == 0) PetscCall(PetscArrayzero(offset, size));
  PetscCallMPI(MPI_Reduce_scatter_block(sendcount, &nrecv, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCheck(nrecv <= PETSC_INT32_MAX - ncoo, PETSC_COMM_SELF, PETSC_ERR_SUP, "COO: %" PetscInt64_FMT " entries received from other ranks exceed the 32-bit maps", nrecv);
  cm->nrecv = (PetscCount)nrecv;
  any       = (PetscBool)(nsend > 0);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &any, 1, MPI_C_BOOL, MPI_LOR, comm));
  cm->comm = any;
  PetscCall(PetscMalloc3(PetscMax(nsend, 1), &cm->sendperm, PetscMax(nsend, 1), &cm->sendbuf, PetscMax(cm->nrecv, 1), &cm->recvbuf));
  ne = nlocal + cm->nrecv;
  PetscCall(PetscMalloc3(PetscMax(ne, 1), &gi, PetscMax(ne, 1), &gj, PetscMax(ne, 1), &src));
  {
    PetscInt64 *next;
    PetscInt   *sendi, *sendj;

    PetscCall(PetscMalloc1(size + 1, &next));
    next[0] = 0; /* where each owner's entries start among the sent ones */
    for (PetscMPIInt r = 0; r < size; r++) next[r + 1] = next[r] + sendcount[r];
    for (PetscCount e = 0, l = 0; e < ncoo; e++) {
      if (owner[e] < 0) continue;
      if (owner[e] == rank) {
        gi[l]  = coo_i[e];
        gj[l]  = coo_j[e];
        src[l] = (int)e;
        l++;
      } else cm->sendperm[next[owner[e]]++] = (int)e;
    }
    PetscCall(PetscFree(next));
    if (cm->comm) {
      PetscSFNode *iremote;

      PetscCall(PetscMalloc1(nsend, &iremote));
      for (PetscCount q = 0; q < nsend; q++) {
        const PetscMPIInt o = owner[cm->sendperm[q]];

        iremote[q].rank  = o;
        iremote[q].index = (PetscInt)offset[o]++;
      }
      PetscCall(PetscSFCreate(comm, &cm->sf));
      PetscCall(PetscSFSetGraph(cm->sf, (PetscInt)cm->nrecv, (PetscInt)nsend, NULL, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
      PetscCall(PetscSFSetUp(cm->sf));
      /* the rows and columns of the sent entries, to their owners: received entry q is (gi, gj)[nlocal + q] */
      PetscCall(PetscMalloc2(PetscMax(nsend, 1), &sendi, PetscMax(nsend, 1), &sendj));
      for (PetscCount q = 0; q < nsend; q++) {
        sendi[q] = coo_i[cm->sendperm[q]];
        sendj[q] = coo_j[cm->sendperm[q]];
      }
      PetscCall(PetscSFReduceBegin(cm->sf, MPIU_INT, sendi, gi + nlocal, MPI_REPLACE));
      PetscCall(PetscSFReduceEnd(cm->sf, MPIU_INT, sendi, gi + nlocal, MPI_REPLACE));
      PetscCall(PetscSFReduceBegin(cm->sf, MPIU_INT, sendj, gj + nlocal, MPI_REPLACE));
      PetscCall(PetscSFReduceEnd(cm->sf, MPIU_INT, sendj, gj + nlocal, MPI_REPLACE));
      PetscCall(PetscFree2(sendi, sendj));
    }
    for (PetscCount q = 0; q < cm->nrecv; q++) src[nlocal + q] = (int)q;
  }
  PetscCall(PetscFree(owner));
  PetscCall(PetscFree2(sendcount, offset));
  *pnlocal = nlocal;
  *pne     = ne;
  *pgi     = gi;
  *pgj     = gj;
  *psrc    = src;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slot of every entry (global rows gi, columns gj; block row brow local, block column bcol global) in the part of
   A that holds it (the diagonal part or the off-diagonal one, its columns compressed through garray), and each part's
   maps: its local entries, then the received ones */
static PetscErrorCode COOMPIParts(Mat A, PetscInt bs, COOMaps *cm, PetscCount ne, PetscCount nlocal, const PetscInt gi[], const PetscInt gj[], const PetscInt brow[], const PetscInt bcol[], const int src[], Mat P[2])
{
  PetscInt        mbs = A->rmap->n / bs, cstartb = A->cmap->rstart / bs, cendb = A->cmap->rend / bs, nghost = 0;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &P[0], &P[1], &garray));
  if (P[1] && garray) nghost = P[1]->cmap->n / bs;
  {
    const PetscInt *ia[2], *ja[2];
    PetscInt        n, nz[2];
    PetscInt64      hash[2];
    PetscBool       done;
    PetscInt64     *slot;
    PetscInt       *part;
    PetscCount      cnt[2][2] = {{0, 0}, {0, 0}};

    PetscCall(PetscMalloc2(PetscMax(ne, 1), &slot, PetscMax(ne, 1), &part));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(MatGetRowIJ(P[t], 0, PETSC_FALSE, PETSC_TRUE, &n, &ia[t], &ja[t], &done));
      PetscCheck(done && n == mbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of a part of the %s matrix", MATMPIBAIJKSPARSE);
      nz[t]   = n ? ia[t][n] : 0;
      hash[t] = PatternHash(n, ia[t], ja[t], t ? nghost : 0, garray);
    }
    for (PetscCount e = 0; e < ne; e++) {
      PetscInt b, col = bcol[e];

      if (col >= cstartb && col < cendb) {
        part[e] = 0;
        col -= cstartb;
      } else {
        part[e] = 1;
        if (garray) { /* compressed columns: the position in garray */
          PetscInt loc;

          PetscCall(PetscFindInt(col, nghost, garray, &loc));
          PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO: block column %" PetscInt_FMT " is missing from garray", col);
          col = loc;
        }
      }
      PetscCall(FindBlock(ia[part[e]], ja[part[e]], brow[e], col, &b));
      slot[e] = Slot(b, bs, gi[e], gj[e]);
      cnt[part[e]][e < nlocal ? 0 : 1]++;
    }
    for (PetscInt t = 0; t < 2; t++) PetscCall(MatRestoreRowIJ(P[t], 0, PETSC_FALSE, PETSC_TRUE, &n, &ia[t], &ja[t], &done));
    /* entries grouped by part, local before received (input order kept within each group) */
    for (PetscInt t = 0; t < 2; t++) {
      PetscInt64 *s1, *s2;
      int        *r1, *r2;
      PetscCount  a = 0, b = 0;

      PetscCall(PetscMalloc4(PetscMax(cnt[t][0], 1), &s1, PetscMax(cnt[t][0], 1), &r1, PetscMax(cnt[t][1], 1), &s2, PetscMax(cnt[t][1], 1), &r2));
      for (PetscCount e = 0; e < ne; e++) {
        if (part[e] != t) continue;
        if (e < nlocal) {
          s1[a]   = slot[e];
          r1[a++] = src[e];
        } else {
          s2[b]   = slot[e];
          r2[b++] = src[e];
        }
      }
      PetscCall(BuildPart(&cm->part[t], bs, nz[t], cnt[t][0], s1, r1, cnt[t][1], s2, r2));
      cm->part[t].mbs  = mbs;
      cm->part[t].hash = hash[t];
      PetscCall(PetscFree4(s1, r1, s2, r2));
    }
    PetscCall(PetscFree2(slot, part));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetPreallocationCOO_MPIBAIJKSPARSE(Mat A, PetscCount ncoo, PetscInt coo_i[], PetscInt coo_j[])
{
  Mat_MPIBAIJKSPARSE *k    = (Mat_MPIBAIJKSPARSE *)A->spptr;
  MPI_Comm            comm = PetscObjectComm((PetscObject)A);
  MatBAIJKSPARSECOO   c;
  COOMaps            *cm;
  PetscInt            bs, mbs, *gi, *gj, *brow, *bcol, *ii, *jj;
  int                *src;
  PetscCount          nlocal, ne;
  Mat                 P[2];
  PetscBool           use;

  PetscFunctionBegin;
  PetscCall(COOCheckEntries(comm, ncoo, coo_i, coo_j, A->rmap->N, A->cmap->N));
  PetscCall(COOBlockSize(A, &bs));
  PetscCall(MatBAIJKSPARSECOODestroy_Private(&k->coo));
  PetscCall(COOCreate(ncoo, &c));
  cm  = c->m;
  mbs = A->rmap->n / bs;
  PetscCall(COOExchangeEntries(A, ncoo, coo_i, coo_j, cm, &nlocal, &ne, &gi, &gj, &src));

  /* the block pattern of the local rows (global block columns), with explicit zero blocks, assembled: MPIBAIJ's own CSR
     preallocation (which also splits it into the parts and compresses the off-diagonal columns) */
  PetscCall(PetscMalloc2(PetscMax(ne, 1), &brow, PetscMax(ne, 1), &bcol));
  for (PetscCount e = 0; e < ne; e++) {
    brow[e] = gi[e] / bs - A->rmap->rstart / bs;
    bcol[e] = gj[e] / bs;
  }
  PetscCall(MatBAIJKSPARSEBlockCSROfPairs_Private(mbs, ne, brow, bcol, &ii, &jj));
  PetscCall(MatMPIBAIJSetPreallocationCSR(A, bs, ii, jj, NULL));
  PetscCall(PetscFree(ii));
  PetscCall(PetscFree(jj));
  PetscCall(COOMPIParts(A, bs, cm, ne, nlocal, gi, gj, brow, bcol, src, P));
  PetscCall(PetscFree2(brow, bcol));
  PetscCall(PetscFree3(gi, gj, src));
  cm->nparts = 2;
  k->coo     = c;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use)); /* the maps and the pattern go to the device here, once */
  if (use) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  if (use) {
    for (PetscInt t = 0; t < 2; t++) PetscCall(COOPartToDevice(P[t], &cm->part[t]));
    PetscCall(COOCommToDevice(cm));
  }
  /* as MPIAIJ: the parts assembled, values zero, MatSetValuesCOO() assembles. was_assembled: the assembly of the CSR
     preallocation compressed the ghost columns of Ao and built MPIBAIJ's scatter; without it the next assembly would do
     both again on the compressed columns (values misplaced, the first scatter leaked) and MatSetValues() would take global
     columns for Ao's compressed ones (an entry of the pattern refused as new) */
  A->assembled     = PETSC_FALSE;
  A->was_assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetValuesCOO_MPIBAIJKSPARSE(Mat A, const PetscScalar v[], InsertMode imode)
{
  Mat_MPIBAIJKSPARSE *k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  MatBAIJKSPARSECOO   c = k->coo;
  COOMaps            *m;
  Mat                 P[2];
  const PetscScalar  *w, *recv = NULL;
  const PetscInt     *garray;
  PetscInt            nz[2];
  PetscBool           use, same[2], all;

  PetscFunctionBegin;
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO() on a %s matrix needs MatSetPreallocationCOO() first", MATMPIBAIJKSPARSE);
  PetscCheck(imode == INSERT_VALUES || imode == ADD_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MatSetValuesCOO(): InsertMode must be INSERT_VALUES or ADD_VALUES");
  m = c->m;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &P[0], &P[1], &garray));
  for (PetscInt t = 0; t < 2; t++) PetscCall(COOPartSamePattern(P[t], c, t, (PetscBool)(A->assembled && P[t]->assembled), t && garray ? P[1]->cmap->n / A->rmap->bs : 0, garray, &same[t], &nz[t]));
  /* collective, as the communication that follows: every rank refuses when one does, instead of the others waiting */
  all = (PetscBool)(same[0] && same[1]);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &all, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (!all) {
    for (PetscInt t = 0; t < 2; t++)
      if (!same[t]) PetscCall(COOPatternChanged(&m->part[t], nz[t], A->rmap->bs));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO(): the nonzero pattern changed since MatSetPreallocationCOO() on another rank; call MatSetPreallocationCOO() again");
  }
  A->assembled = PETSC_TRUE;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &use));
  if (use) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscLogEventBegin(PBG_BAIJKCOO, A, 0, 0, 0));
  PetscCall(COOValuesWhere(m, v, use, &w));
  if (m->comm) { /* the entries of other ranks' rows on their way while the local ones are gathered */
    PetscMemType mt = use ? PETSC_MEMTYPE_CUDA : PETSC_MEMTYPE_HOST;
    PetscScalar *sendbuf, *recvbuf;

    if (use) {
      cudaStream_t stream;

      PetscCall(COOCommToDevice(m));
      PetscCall(PetscGetCurrentCUDAStream(&stream));
      PetscCall(PetscLogGpuTimeBegin());
      PetscCall(MatBAIJKSPARSECOOGather_CUDA(m->nsend, NULL, NULL, m->d_sendperm, w, m->d_sendbuf, PETSC_FALSE, stream));
      PetscCall(PetscLogGpuTimeEnd());
      sendbuf = m->d_sendbuf;
      recvbuf = m->d_recvbuf;
    } else {
      GatherHost(m->nsend, NULL, NULL, m->sendperm, w, m->sendbuf, PETSC_FALSE);
      sendbuf = m->sendbuf;
      recvbuf = m->recvbuf;
    }
    PetscCall(PetscSFReduceWithMemTypeBegin(m->sf, MPIU_SCALAR, mt, sendbuf, mt, recvbuf, MPI_REPLACE));
    recv = recvbuf;
  }
  for (PetscInt t = 0; t < 2; t++) PetscCall(COOPartGatherLocal(P[t], &m->part[t], w, imode, use));
  if (m->comm) {
    PetscCall(PetscSFReduceEnd(m->sf, MPIU_SCALAR, use ? m->d_sendbuf : m->sendbuf, (PetscScalar *)recv, MPI_REPLACE));
    for (PetscInt t = 0; t < 2; t++) PetscCall(COOPartGatherRemote(P[t], &m->part[t], recv, use));
  }
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(PetscObjectStateIncrease((PetscObject)P[t]));
    c->nass[t] = P[t]->num_ass + 1; /* MPIBAIJ's assembly of the parts in the one PETSc's MatSetValuesCOO() ends with */
    c->nzs[t]  = P[t]->nonzerostate;
  }
  PetscCall(PetscLogEventEnd(PBG_BAIJKCOO, A, 0, 0, 0));
  c->ncalls++;
  c->last_device = use;
  PetscFunctionReturn(PETSC_SUCCESS);
}
