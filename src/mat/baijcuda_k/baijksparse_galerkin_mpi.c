/* The blocked sparse products of MATMPIBAIJKSPARSE on the device: A P and P^T A P with A mpibaijksparse (bs x bs blocks)
   and P an MPIAIJ prolongator (mpiaij, mpiaijcusparse) of bs x cbs blocks or an mpibaijksparse one (cbs = bs), what
   PCGAMG asks on several ranks. The sequential kernels do the work (cuda/baijksparse_galerkin.cu); this file arranges the
   rank's pieces as PETSc's own MPI products do (MatProductSymbolic_MPIAIJBACKEND()), at block level:
   - Ps: the rows of P for this rank's block columns of A, its own and its ghosts in ascending order, every column of P
     (MatCreateSubMatrices(), which fetches the ghost rows from their owners);
   - Aj: A's diagonal and off-diagonal parts side by side, their block columns numbered as Ps's block rows (a kernel);
   - A P = Aj Ps, the rank's block rows of the product with global block columns;
   - for P^T A P: P_own^T (A P), P_own the own rows of Ps (a view), which holds every coarse block row this rank's
     rows reach; the blocks of rows other ranks own are sent to them (PetscSF, from device buffers), and each owner sums
     its own and the received blocks into its result in a fixed order (a gather kernel, no atomics).
   The result of A P is the product's blocks split into the diagonal and off-diagonal parts of an mpiaijcusparse matrix (an
   AIJ P: every entry of its bs x cbs blocks) or an mpibaijksparse one (P ours); P^T A P is mpibaijksparse of block size cbs.
   Its pattern is made on the host once (MatMPIBAIJSetPreallocationCSR(), or the parts of MatCreateMPIAIJWithSeqAIJ()), with the
   maps from the product's blocks to its parts' blocks; every value stays on the device.

   Memory is that of blocks, as in the sequential products; no scalar copy of A is made and cuSPARSE's SpGEMM (whose
   buffer of scalar intermediate products limits the AIJ route) is not called. The numeric phase refreshes
   Ps (MatCreateSubMatrices() with MAT_REUSE_MATRIX) when P's values changed, A's parts side by side, and the products:
   a change of values only stays a numeric phase (-pc_gamg_reuse_interpolation, Newton steps). */
#include "baijksparsecuda.h"
#include "baijksparse_device.h"
#include "baijksparse_ghost.h"
#include <petscdevice_cuda.h>
#include <petscsf.h>

typedef struct {
  IS                     isrow, iscol;
  Mat                   *Ps;          /* [1]: P's rows of this rank's block columns of A (ascending), every column */
  Mat                    Pd;          /* an AIJ Ps[0] on the device: itself (seqaijcusparse) or its copy */
  PetscBool              Pours;       /* P is mpibaijksparse: Ps[0] is seqbaijksparse, used through its device copy */
  PetscBool              Pcopy;       /* Pd is a copy of Ps[0] */
  PetscObjectState       Psstate;     /* Ps[0]'s state when copied into Pd */
  PetscObjectState       Pstate;      /* P's state when Ps was taken */
  PetscInt64             pnnz;        /* entries of an AIJ Ps[0] */
  MatBAIJKSPARSEBlockCSR Pb;          /* an AIJ Ps[0] in blocks of bs x cbs */
  MatBAIJKSPARSEBlockCSR Aj;          /* A's parts side by side */
  MatBAIJKSPARSEBlockCSR AP;          /* A P, global block columns */
  MatBAIJKSPARSEBlockCSR Ct;          /* P^T A P: P_own^T (A P), every coarse block row */
  int                    glo, nown;   /* A's ghost block columns below its own ones; its own block columns */
  PetscBool              aijresult;   /* A P into an mpiaijcusparse result */
  PetscBool              Pexchange;   /* P's own products exchange by NCCL (baijksparse_ghost_aij.c) */
  PetscInt               nz[2];       /* blocks of the result's two parts */
  int                   *d_jmap[2];   /* device: the sources of each block of part t (NULL: one each, perm in order) */
  int                   *d_perm[2];   /* device: the source blocks (below the local count: the product's; above: received) */
  int                   *d_rowptr[2]; /* an AIJ result: the block row pointers of its parts */
  PetscScalar           *d_val[2];    /* an AIJ result: the block values of its parts, expanded into their CSR values */
  PetscSF                sf;          /* P^T A P: leaves the values of the sent blocks, roots those received */
  PetscInt               nsend, nrecv;
  int                   *d_sendperm;
  PetscScalar           *d_sendbuf, *d_recvbuf;
  PetscObjectId          Aid, Pid;
  PetscObjectState       Anz, Pnz;
  PetscInt64             npap, nptap;
} MPIBlockedProduct;

static PetscErrorCode MPIBlockedProductDestroy(void *data)
{
  MPIBlockedProduct *bp = *(MPIBlockedProduct **)data;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->Pb, stream));
  PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->Aj, stream));
  PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->AP, stream));
  PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->Ct, stream));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bp->d_jmap[t]));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bp->d_perm[t]));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bp->d_rowptr[t]));
    PetscCall(MatBAIJKSPARSEDeviceFree_Private(bp->d_val[t]));
  }
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(bp->d_sendperm));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(bp->d_sendbuf));
  PetscCall(MatBAIJKSPARSEDeviceFree_Private(bp->d_recvbuf));
  PetscCall(PetscSFDestroy(&bp->sf));
  if (bp->Ps) PetscCall(MatDestroySubMatrices(1, &bp->Ps));
  PetscCall(MatDestroy(&bp->Pd));
  PetscCall(ISDestroy(&bp->isrow));
  PetscCall(ISDestroy(&bp->iscol));
  PetscCall(PetscFree(bp));
  *(MPIBlockedProduct **)data = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductBlockedApplies_MPIBAIJKSPARSE(Mat C, PetscBool *yes)
{
  Mat_Product        *product = C->product;
  Mat                 A = product->A, P = product->B;
  Mat_MPIBAIJKSPARSE *k;
  PetscBool           flg, dev, ok = PETSC_FALSE;
  PetscInt            bs = A->rmap->bs, cbs = P->cmap->bs;

  PetscFunctionBegin;
  *yes = PETSC_FALSE;
  if (product->type != MATPRODUCT_AB && product->type != MATPRODUCT_PtAP) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &flg));
  if (!flg || A->boundtocpu || P->boundtocpu || A->rmap->bs != A->cmap->bs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &dev));
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  k = (Mat_MPIBAIJKSPARSE *)A->spptr;
  if (!k->opts.read) PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, NULL, &k->opts));
  if (k->opts.products != MAT_BAIJKSPARSE_PRODUCTS_BLOCKED) PetscFunctionReturn(PETSC_SUCCESS);
  /* the conditions each rank sees; agreed on below, as the product is collective */
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)P, MATMPIAIJ, &flg));
  if (!flg) {
    PetscCall(PetscObjectTypeCompare((PetscObject)P, MATMPIBAIJKSPARSE, &flg));
    if (flg) flg = (PetscBool)(P->rmap->bs == bs && cbs == bs);
  }
  ok = (PetscBool)(flg && cbs >= 1 && P->cmap->n % cbs == 0 && P->rmap->n == A->cmap->n && P->rmap->rstart == A->cmap->rstart);
  if (product->type == MATPRODUCT_PtAP) ok = (PetscBool)(ok && A->rmap->n == A->cmap->n && A->rmap->rstart == A->cmap->rstart);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  *yes = ok;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ps (MAT_INITIAL_MATRIX the first time, refilled when P's values changed since) and its blocks on the device */
static PetscErrorCode OperandBlocks(Mat P, MPIBlockedProduct *bp, PetscInt bs, PetscInt cbs, MatBAIJKSPARSEBlockCSR *Pv, cudaStream_t stream)
{
  PetscObjectState   s;
  const PetscInt    *ci, *cj;
  const PetscScalar *ca;
  PetscBool          first = (PetscBool)!bp->Ps;
  PetscBool          refresh;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)P, &s));
  refresh = (PetscBool)(first || s != bp->Pstate);
  /* MatCreateSubMatrices() is collective: every rank refreshes when one rank's P changed */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &refresh, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)P)));
  if (refresh) {
    PetscCall(MatCreateSubMatrices(P, 1, &bp->isrow, &bp->iscol, first ? MAT_INITIAL_MATRIX : MAT_REUSE_MATRIX, &bp->Ps));
    /* MPIAIJ's method writes the host values of the sub-matrix's arrays behind its offload state (a seqaijcusparse one
       kept its old device values): they are the newest */
    if (!first && !bp->Pours) MatBAIJKSPARSEMarkHostNewer_Private(bp->Ps[0]);
    bp->Pstate = s;
  }
  if (bp->Pours) {
    PetscCall(MatSeqBAIJKSPARSEBlockView_Private(bp->Ps[0], PETSC_TRUE, Pv));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!refresh) { /* P's values unchanged: its blocks are those of the last phase */
    *Pv = bp->Pb;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (first) {
    PetscBool isdev, done;
    PetscInt  mm;

    PetscCall(PetscObjectTypeCompare((PetscObject)bp->Ps[0], MATSEQAIJCUSPARSE, &isdev));
    bp->Pcopy = (PetscBool)!isdev;
    if (isdev) {
      PetscCall(PetscObjectReference((PetscObject)bp->Ps[0]));
      bp->Pd = bp->Ps[0];
    } else {
      PetscCall(MatConvert(bp->Ps[0], MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &bp->Pd));
      PetscCall(PetscObjectStateGet((PetscObject)bp->Ps[0], &bp->Psstate));
    }
    PetscCall(MatGetRowIJ(bp->Pd, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ci, &cj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the %s matrix", MATSEQAIJCUSPARSE);
    bp->pnnz = ci[mm];
    PetscCall(MatRestoreRowIJ(bp->Pd, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ci, &cj, &done));
  } else if (bp->Pcopy) {
    PetscCall(PetscObjectStateGet((PetscObject)bp->Ps[0], &s));
    if (s != bp->Psstate) {
      PetscCall(MatCopy(bp->Ps[0], bp->Pd, SAME_NONZERO_PATTERN));
      bp->Psstate = s;
    }
  }
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(bp->Pd, &ca)); /* sends the values when the host's are newer */
  PetscCall(MatSeqAIJCUSPARSEGetIJ(bp->Pd, PETSC_FALSE, &ci, &cj));
  if (first) {
    bp->Pb.rbs = (int)bs, bp->Pb.cbs = (int)cbs, bp->Pb.mb = (int)(bp->Ps[0]->rmap->n / bs), bp->Pb.nb = (int)(P->cmap->N / cbs);
    PetscCall(MatBAIJKSPARSEBlockPatternOfCSR_CUDA((int)bp->Ps[0]->rmap->n, bp->pnnz, (const int *)ci, (const int *)cj, &bp->Pb, stream));
  }
  PetscCall(MatBAIJKSPARSEBlockValuesOfCSR_CUDA((int)bp->Ps[0]->rmap->n, bp->pnnz, (const int *)ci, (const int *)cj, ca, &bp->Pb, stream));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(bp->Pd, PETSC_FALSE, &ci, &cj));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(bp->Pd, &ca));
  *Pv = bp->Pb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's parts side by side (pattern the first time, values after) */
static PetscErrorCode JoinedOperator(Mat A, MPIBlockedProduct *bp, PetscBool pattern, cudaStream_t stream)
{
  Mat                    Ad, Ao;
  const PetscInt        *garray;
  MatBAIJKSPARSEBlockCSR dv, ov;
  PetscBool              ghosts;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, &garray));
  PetscCheck(Ad, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "%s: not preallocated", MATMPIBAIJKSPARSE);
  ghosts = (PetscBool)(Ao && Ao->cmap->n > 0);
  PetscCall(MatSeqBAIJKSPARSEBlockView_Private(Ad, PETSC_TRUE, &dv));
  if (ghosts) PetscCall(MatSeqBAIJKSPARSEBlockView_Private(Ao, PETSC_TRUE, &ov));
  if (!pattern) PetscCheck(bp->Aj.nz == dv.nz + (ghosts ? ov.nz : 0), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The operator's number of blocks changed since the product was set up (%d, now %d)", bp->Aj.nz, dv.nz + (ghosts ? ov.nz : 0));
  PetscCall(MatBAIJKSPARSEBlockCSRJoinColumns_CUDA(&dv, ghosts ? &ov : NULL, bp->glo, bp->nown, pattern, &bp->Aj, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of the product's blocks into the result's parts: local sources (A P's or P^T A P's blocks) and, for
   P^T A P, the received blocks */
static PetscErrorCode ResultValues(Mat C, MPIBlockedProduct *bp, const MatBAIJKSPARSEBlockCSR *src, const PetscScalar *recv, cudaStream_t stream)
{
  Mat             parts[2];
  const PetscInt *garray;
  const int       blk = src->rbs * src->cbs;

  PetscFunctionBegin;
  if (bp->aijresult) {
    PetscCall(MatMPIAIJGetSeqAIJ(C, &parts[0], &parts[1], &garray));
    for (PetscInt t = 0; t < 2; t++) {
      MatBAIJKSPARSEBlockCSR v = *src;
      PetscScalar           *a;

      if (!bp->nz[t]) continue;
      PetscCall(MatBAIJKSPARSEBlockGather_CUDA((int)bp->nz[t], blk, bp->d_jmap[t], bp->d_perm[t], src->val, src->nz, recv, bp->d_val[t], stream));
      v.mb = (int)(parts[t]->rmap->n / src->rbs), v.nz = (int)bp->nz[t], v.rowptr = bp->d_rowptr[t], v.colidx = NULL, v.val = bp->d_val[t];
      PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(parts[t], &a));
      PetscCall(MatBAIJKSPARSEBlocksToCSR_CUDA(&v, a, stream));
      PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(parts[t], &a));
    }
  } else {
    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(C, &parts[0], &parts[1], &garray));
    for (PetscInt t = 0; t < 2; t++) {
      MatBAIJKSPARSEBlockCSR v;

      if (!bp->nz[t]) continue;
      PetscCall(MatSeqBAIJKSPARSEBlockView_Private(parts[t], PETSC_FALSE, &v));
      PetscCall(MatBAIJKSPARSEBlockGather_CUDA((int)bp->nz[t], blk, bp->d_jmap[t], bp->d_perm[t], src->val, src->nz, recv, v.val, stream));
      MatBAIJKSPARSEMarkDeviceNewer_Private(parts[t]); /* every value written on the device */
      PetscCall(PetscObjectStateIncrease((PetscObject)parts[t]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductNumeric_MPIBlocked(Mat C)
{
  Mat_Product           *product = C->product;
  MPIBlockedProduct     *bp      = (MPIBlockedProduct *)product->data;
  Mat                    A = product->A, P = product->B;
  MatBAIJKSPARSEBlockCSR Pv, Pown;
  cudaStream_t           stream;
  const PetscInt         bs = A->rmap->bs, cbs = P->cmap->bs;
  PetscBool              replaced;
  int                    pnz = 0;

  PetscFunctionBegin;
  PetscCall(MatProductOperandCheck_Private(A, &bp->Aid, &bp->Anz, &replaced)); /* another A: its parts are read as they are */
  PetscCall(MatProductOperandCheck_Private(P, &bp->Pid, &bp->Pnz, &replaced));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (replaced) { /* another P of the same pattern: its rows taken anew (below), their block pattern must be the same */
    if (bp->Ps) PetscCall(MatDestroySubMatrices(1, &bp->Ps));
    PetscCall(MatDestroy(&bp->Pd));
    pnz = bp->Pb.nz;
    PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->Pb, stream));
  }
  PetscCall(PetscLogEventBegin(PBG_BAIJKProductNumeric, A, P, C, 0));
  PetscCall(OperandBlocks(P, bp, bs, cbs, &Pv, stream));
  PetscCheck(!replaced || bp->Pours || Pv.nz == pnz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The operand put in the product has %d blocks where the one it replaces had %d: not the same pattern", Pv.nz, pnz);
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(JoinedOperator(A, bp, PETSC_FALSE, stream));
  PetscCall(MatBAIJKSPARSEBlockProduct_CUDA(&bp->Aj, &Pv, &bp->AP, stream));
  if (product->type == MATPRODUCT_PtAP) {
    Pown = Pv, Pown.mb = bp->nown, Pown.rowptr = Pv.rowptr + bp->glo;
    PetscCall(MatBAIJKSPARSEBlockTransposeProduct_CUDA(&Pown, &bp->AP, &bp->Ct, stream));
    if (bp->sf) { /* the blocks of other ranks' rows to them, then every block of this rank's parts in a fixed order */
      const int blk = (int)(cbs * cbs);

      PetscCall(MatBAIJKSPARSEBlockGather_CUDA((int)bp->nsend, blk, NULL, bp->d_sendperm, bp->Ct.val, bp->Ct.nz, NULL, bp->d_sendbuf, stream));
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(PetscSFReduceWithMemTypeBegin(bp->sf, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, bp->d_sendbuf, PETSC_MEMTYPE_CUDA, bp->d_recvbuf, MPI_REPLACE));
      PetscCall(PetscSFReduceEnd(bp->sf, MPIU_SCALAR, bp->d_sendbuf, bp->d_recvbuf, MPI_REPLACE));
      PetscCall(PetscLogGpuTimeBegin());
    }
    PetscCall(ResultValues(C, bp, &bp->Ct, bp->d_recvbuf, stream));
  } else PetscCall(ResultValues(C, bp, &bp->AP, NULL, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * bs * bs * cbs * (PetscLogDouble)bp->npap + 2.0 * cbs * bs * cbs * (PetscLogDouble)bp->nptap));
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscCall(PetscLogEventEnd(PBG_BAIJKProductNumeric, A, P, C, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------- the result's pattern */
/* The maps of the result's parts from its sources: source s (its local block row, global block column) lands in the
   block of part part[s] at position pos[s]; each part's blocks gather their sources in source order (jmap; none when each
   block has one source); the gather reads source s as srcid[s] (NULL: s) */
static PetscErrorCode PartMaps(MPIBlockedProduct *bp, PetscCount nsrc, const PetscInt part[], const PetscInt pos[], const int srcid[], cudaStream_t stream)
{
  PetscFunctionBegin;
  for (PetscInt t = 0; t < 2; t++) {
    int       *jmap, *perm;
    PetscBool  one = PETSC_TRUE;
    PetscCount n   = 0;

    PetscCall(PetscCalloc1(bp->nz[t] + 1, &jmap));
    for (PetscCount s = 0; s < nsrc; s++)
      if (part[s] == t) jmap[pos[s] + 1]++, n++;
    for (PetscInt b = 0; b < bp->nz[t]; b++) {
      one = (PetscBool)(one && jmap[b + 1] == 1);
      jmap[b + 1] += jmap[b];
    }
    PetscCall(PetscMalloc1(PetscMax(n, 1), &perm));
    for (PetscCount s = 0; s < nsrc; s++)
      if (part[s] == t) perm[jmap[pos[s]]++] = srcid ? srcid[s] : (int)s;
    for (PetscInt b = bp->nz[t]; b > 0; b--) jmap[b] = jmap[b - 1];
    jmap[0] = 0;
    if (!one) PetscCall(MatBAIJKSPARSEUploadInts_Private(&bp->d_jmap[t], jmap, bp->nz[t] + 1, stream, NULL));
    PetscCall(MatBAIJKSPARSEUploadInts_Private(&bp->d_perm[t], perm, n, stream, NULL));
    PetscCall(PetscFree(jmap));
    PetscCall(PetscFree(perm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where the block (local block row r, global block column J) lies in the parts of an MPI result with the diagonal
   columns [cs, ce) and the off-diagonal part's compressed columns garray[ng] */
static PetscErrorCode PartOf(const PetscInt *ia[2], const PetscInt *ja[2], PetscInt cs, PetscInt ce, PetscInt ng, const PetscInt garray[], PetscInt r, PetscInt J, PetscInt *part, PetscInt *pos)
{
  PetscInt t = (J >= cs && J < ce) ? 0 : 1, c = J - cs, loc;

  PetscFunctionBegin;
  if (t) {
    PetscCall(PetscFindInt(J, ng, garray, &c));
    PetscCheck(c >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Block column %" PetscInt_FMT " is missing from the result's ghosts", J);
  }
  PetscCall(PetscFindInt(c, ia[t][r + 1] - ia[t][r], ja[t] + ia[t][r], &loc));
  PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Block (%" PetscInt_FMT ", %" PetscInt_FMT ") is missing from the result's pattern", r, J);
  *part = t;
  *pos  = ia[t][r] + loc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An mpibaijksparse result of block size bs from the block CSR of its local rows (global block columns, sorted and
   unique in each row), values zero, on the device, and the maps of nsrc sources (local block row srow, global block
   column scol) into its parts */
static PetscErrorCode OursResult(MPI_Comm comm, PetscInt bs, PetscInt m, PetscInt n, PetscInt M, PetscInt N, const PetscInt ii[], const PetscInt jj[], PetscCount nsrc, const PetscInt srow[], const PetscInt scol[], const int srcid[], MPIBlockedProduct *bp, Mat *E, cudaStream_t stream)
{
  Mat             parts[2];
  const PetscInt *garray, *ia[2], *ja[2];
  PetscInt        mbs = m / bs, cs = 0, ce, ng = 0, nrow, *part, *pos;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, E));
  PetscCall(MatSetSizes(*E, m, n, M, N));
  PetscCall(MatSetBlockSize(*E, bs));
  PetscCall(MatSetType(*E, MATMPIBAIJKSPARSE));
  PetscCall(MatMPIBAIJSetPreallocationCSR(*E, bs, ii, jj, NULL));
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(*E, &parts[0], &parts[1], &garray));
  cs = (*E)->cmap->rstart / bs, ce = (*E)->cmap->rend / bs;
  if (parts[1] && garray) ng = parts[1]->cmap->n / bs;
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatGetRowIJ(parts[t], 0, PETSC_FALSE, PETSC_TRUE, &nrow, &ia[t], &ja[t], &done));
    PetscCheck(done && nrow == mbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the block rows of a part of the %s result", MATMPIBAIJKSPARSE);
    bp->nz[t] = mbs ? ia[t][mbs] : 0;
  }
  PetscCall(PetscMalloc2(PetscMax(nsrc, 1), &part, PetscMax(nsrc, 1), &pos));
  for (PetscCount s = 0; s < nsrc; s++) PetscCall(PartOf(ia, ja, cs, ce, ng, garray, srow[s], scol[s], &part[s], &pos[s]));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatRestoreRowIJ(parts[t], 0, PETSC_FALSE, PETSC_TRUE, &nrow, &ia[t], &ja[t], &done));
  PetscCall(PartMaps(bp, nsrc, part, pos, srcid, stream));
  PetscCall(PetscFree2(part, pos));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatSeqBAIJKSPARSECopyToGPU(parts[t])); /* the pattern on the device once */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A P's result from its block pattern (downloaded): mpiaijcusparse for an AIJ P (its parts made of the blocks, every
   entry), mpibaijksparse for ours; the source of each block is A P's block of the same position */
static PetscErrorCode ResultOfAP(Mat A, Mat P, MPIBlockedProduct *bp, Mat *E, cudaStream_t stream)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  PetscInt bs = A->rmap->bs, cbs = P->cmap->bs, mb = bp->AP.mb, nz = bp->AP.nz, *ii, *jj, *srow;
  PetscInt cs = P->cmap->rstart / cbs, ce = P->cmap->rend / cbs;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(mb + 1, &ii, PetscMax(nz, 1), &jj));
  PetscCall(MatBAIJKSPARSEBlockCSRDownload_CUDA(&bp->AP, ii, jj, stream));
  if (!bp->aijresult) {
    PetscCall(PetscMalloc1(PetscMax(nz, 1), &srow));
    for (PetscInt r = 0; r < mb; r++)
      for (PetscInt e = ii[r]; e < ii[r + 1]; e++) srow[e] = r;
    PetscCall(OursResult(comm, bs, A->rmap->n, P->cmap->n, A->rmap->N, P->cmap->N, ii, jj, nz, srow, jj, NULL, bp, E, stream));
    PetscCall(PetscFree(srow));
  } else { /* the parts' block patterns: the diagonal columns local, the others compressed through the sorted ghosts */
    PetscInt *pi[2], *pj[2], *ghosts, ng = 0, *garray, *part, *pos;
    Mat       E0, E1;

    PetscCall(PetscMalloc1(PetscMax(nz, 1), &ghosts));
    for (PetscInt e = 0; e < nz; e++)
      if (jj[e] < cs || jj[e] >= ce) ghosts[ng++] = jj[e];
    PetscCall(PetscSortRemoveDupsInt(&ng, ghosts));
    PetscCall(PetscMalloc2(PetscMax(nz, 1), &part, PetscMax(nz, 1), &pos));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(PetscCalloc1(mb + 1, &pi[t]));
      PetscCall(PetscMalloc1(PetscMax(nz, 1), &pj[t]));
    }
    for (PetscInt e = 0; e < nz; e++) part[e] = (jj[e] >= cs && jj[e] < ce) ? 0 : 1;
    for (PetscInt r = 0; r < mb; r++) /* counts, then row pointers */
      for (PetscInt e = ii[r]; e < ii[r + 1]; e++) pi[part[e]][r + 1]++;
    for (PetscInt t = 0; t < 2; t++)
      for (PetscInt r = 0; r < mb; r++) pi[t][r + 1] += pi[t][r];
    for (PetscInt r = 0; r < mb; r++) { /* each part's blocks in A P's order: sorted columns in each row */
      PetscInt w[2] = {pi[0][r], pi[1][r]};

      for (PetscInt e = ii[r]; e < ii[r + 1]; e++) {
        const PetscInt t = part[e];
        PetscInt       c = jj[e] - cs;

        if (t) PetscCall(PetscFindInt(jj[e], ng, ghosts, &c));
        pos[e]        = w[t];
        pj[t][w[t]++] = c;
      }
    }
    for (PetscInt t = 0; t < 2; t++) bp->nz[t] = pi[t][mb];
    PetscCall(PartMaps(bp, nz, part, pos, NULL, stream));
    PetscCall(MatSeqAIJCUSPARSEOfBlockPattern_Private(PETSC_COMM_SELF, bs, cbs, mb, ce - cs, pi[0], pj[0], &E0));
    PetscCall(MatSeqAIJCUSPARSEOfBlockPattern_Private(PETSC_COMM_SELF, bs, cbs, mb, ng, pi[1], pj[1], &E1));
    for (PetscInt t = 0; t < 2; t++) { /* the parts' block row pointers (32-bit PetscInt, pbgimpl.h) and room for their blocks */
      PetscCall(MatBAIJKSPARSEUploadInts_Private(&bp->d_rowptr[t], (const int *)pi[t], mb + 1, stream, NULL));
      PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bp->d_val[t], (size_t)PetscMax(bp->nz[t], 1) * bs * cbs * sizeof(PetscScalar)));
      PetscCall(PetscFree(pi[t]));
      PetscCall(PetscFree(pj[t]));
    }
    PetscCall(PetscMalloc1(PetscMax(ng * cbs, 1), &garray)); /* owned by the result */
    for (PetscInt g = 0; g < ng; g++)
      for (PetscInt c = 0; c < cbs; c++) garray[g * cbs + c] = ghosts[g] * cbs + c;
    PetscCall(MatCreateMPIAIJWithSeqAIJ(comm, A->rmap->N, P->cmap->N, E0, E1, garray, E));
    PetscCall(MatSetBlockSizes(*E, bs, cbs));
    PetscCall(PetscFree2(part, pos));
    PetscCall(PetscFree(ghosts));
  }
  PetscCall(PetscFree2(ii, jj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P^T A P's result: the rows of Ct (downloaded) that other ranks own go to them (their (row, column) pairs once, here;
   their values at each numeric phase through bp->sf); the owner's pattern is the union of its rows of Ct and those
   received; sources: Ct's blocks in its own rows, then the received blocks */
static PetscErrorCode ResultOfPtAP(Mat A, Mat P, MPIBlockedProduct *bp, Mat *E, cudaStream_t stream)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  PetscInt        cbs = P->cmap->bs, Nb = bp->Ct.mb, nz = bp->Ct.nz, *ii, *jj, rs = P->cmap->rstart / cbs, re = P->cmap->rend / cbs, mbs = re - rs;
  PetscMPIInt     size, rank;
  const PetscInt *ranges;
  PetscInt64     *sendcount, *offset, nrecv = 0;
  PetscInt        nlocal = 0, nsend = 0, *srow, *scol, *sendi, *sendj, *bi, *bj;
  int            *sendperm, *srcid;
  PetscBool       any;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscLayoutGetRanges(P->cmap, &ranges));
  PetscCall(PetscMalloc2(Nb + 1, &ii, PetscMax(nz, 1), &jj));
  PetscCall(MatBAIJKSPARSEBlockCSRDownload_CUDA(&bp->Ct, ii, jj, stream));
  PetscCall(PetscCalloc2(size, &sendcount, size + 1, &offset));
  for (PetscMPIInt o = 0; o < size; o++) {
    PetscInt b0 = ranges[o] / cbs, b1 = ranges[o + 1] / cbs;

    if (o == rank) nlocal = ii[b1] - ii[b0];
    else sendcount[o] = ii[b1] - ii[b0];
    if (o != rank) nsend += (PetscInt)sendcount[o];
  }
  PetscCallMPI(MPI_Exscan(sendcount, offset, size, MPIU_INT64, MPI_SUM, comm));
  if (rank == 0) PetscCall(PetscArrayzero(offset, size));
  PetscCallMPI(MPI_Reduce_scatter_block(sendcount, &nrecv, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCheck(nrecv + nz <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "P^T A P: %" PetscInt64_FMT " blocks exceed the 32-bit maps", nrecv + nz);
  any = (PetscBool)(nsend > 0);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &any, 1, MPI_C_BOOL, MPI_LOR, comm));
  bp->nsend = nsend, bp->nrecv = (PetscInt)nrecv;
  /* sources: the own rows' blocks, then the received ones (their rows and columns sent once) */
  PetscCall(PetscMalloc2(nlocal + nrecv + 1, &srow, nlocal + nrecv + 1, &scol));
  for (PetscInt R = rs; R < re; R++)
    for (PetscInt e = ii[R]; e < ii[R + 1]; e++) srow[e - ii[rs]] = R - rs, scol[e - ii[rs]] = jj[e];
  PetscCall(PetscMalloc3(PetscMax(nsend, 1), &sendperm, PetscMax(nsend, 1), &sendi, PetscMax(nsend, 1), &sendj));
  {
    PetscInt q = 0;

    for (PetscMPIInt o = 0; o < size; o++) {
      if (o == rank) continue;
      for (PetscInt R = ranges[o] / cbs; R < ranges[o + 1] / cbs; R++)
        for (PetscInt e = ii[R]; e < ii[R + 1]; e++) sendperm[q] = (int)e, sendi[q] = R - ranges[o] / cbs, sendj[q++] = jj[e];
    }
  }
  if (any) {
    PetscSFNode *iremote, *vremote;
    PetscSF      bsf;
    const int    blk = (int)(cbs * cbs);
    PetscInt     q   = 0;

    PetscCall(PetscMalloc1(PetscMax(nsend, 1), &iremote));
    PetscCall(PetscMalloc1(PetscMax(nsend * blk, 1), &vremote));
    for (PetscMPIInt o = 0; o < size; o++) {
      if (o == rank) continue;
      for (PetscInt c = 0; c < (PetscInt)sendcount[o]; c++, q++) {
        iremote[q].rank  = o;
        iremote[q].index = (PetscInt)offset[o] + c;
        for (PetscInt t = 0; t < blk; t++) vremote[q * blk + t].rank = o, vremote[q * blk + t].index = ((PetscInt)offset[o] + c) * blk + t;
      }
    }
    PetscCall(PetscSFCreate(comm, &bsf));
    PetscCall(PetscSFSetGraph(bsf, (PetscInt)nrecv, nsend, NULL, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
    PetscCall(PetscSFSetUp(bsf));
    PetscCall(PetscSFReduceBegin(bsf, MPIU_INT, sendi, srow + nlocal, MPI_REPLACE));
    PetscCall(PetscSFReduceEnd(bsf, MPIU_INT, sendi, srow + nlocal, MPI_REPLACE));
    PetscCall(PetscSFReduceBegin(bsf, MPIU_INT, sendj, scol + nlocal, MPI_REPLACE));
    PetscCall(PetscSFReduceEnd(bsf, MPIU_INT, sendj, scol + nlocal, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&bsf));
    PetscCall(PetscSFCreate(comm, &bp->sf));
    PetscCall(PetscSFSetGraph(bp->sf, (PetscInt)nrecv * blk, nsend * blk, NULL, PETSC_OWN_POINTER, vremote, PETSC_OWN_POINTER));
    PetscCall(PetscSFSetUp(bp->sf));
    PetscCall(MatBAIJKSPARSEUploadInts_Private(&bp->d_sendperm, sendperm, nsend, stream, NULL));
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bp->d_sendbuf, (size_t)PetscMax(nsend * blk, 1) * sizeof(PetscScalar)));
    PetscCall(MatBAIJKSPARSEDeviceAlloc_Private((void **)&bp->d_recvbuf, (size_t)PetscMax(nrecv * blk, 1) * sizeof(PetscScalar)));
  }
  /* the owner's pattern: the union of its sources, sorted and unique in each row */
  PetscCall(MatBAIJKSPARSEBlockCSROfPairs_Private(mbs, nlocal + (PetscCount)nrecv, srow, scol, &bi, &bj));
  /* the gather's source ids: Ct's block index for an own row's block, Ct's count plus the receive index for the others */
  PetscCall(PetscMalloc1(nlocal + nrecv + 1, &srcid));
  for (PetscInt s = 0; s < nlocal; s++) srcid[s] = (int)(ii[rs] + s);
  for (PetscInt q = 0; q < (PetscInt)nrecv; q++) srcid[nlocal + q] = (int)(nz + q);
  PetscCall(OursResult(comm, cbs, P->cmap->n, P->cmap->n, P->cmap->N, P->cmap->N, bi, bj, nlocal + (PetscCount)nrecv, srow, scol, srcid, bp, E, stream));
  PetscCall(PetscFree(srcid));
  PetscCall(PetscFree(bi));
  PetscCall(PetscFree(bj));
  PetscCall(PetscFree2(srow, scol));
  PetscCall(PetscFree3(sendperm, sendi, sendj));
  PetscCall(PetscFree2(sendcount, offset));
  PetscCall(PetscFree2(ii, jj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatProductSymbolic_Blocked_MPIBAIJKSPARSE - the symbolic phase of A P and P^T A P of an mpibaijksparse A by blocks on the
  device: P's rows for A's block columns, A's parts side by side, the patterns of A P (and of P_own^T (A P)), the result
  and the maps into it; the result C takes the product's numeric phase.
*/
PetscErrorCode MatProductSymbolic_Blocked_MPIBAIJKSPARSE(Mat C)
{
  Mat_Product           *product = C->product;
  Mat                    A = product->A, P = product->B, E, Ad, Ao;
  MPIBlockedProduct     *bp;
  MatBAIJKSPARSEBlockCSR Pv, Pown;
  const PetscInt        *garray;
  PetscInt               bs = A->rmap->bs, cbs = P->cmap->bs, nghost, cstart, *idx, n = 0;
  cudaStream_t           stream;
  Mat_Product           *saved;
  PetscMPIInt            size;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PBG_BAIJKProductSymbolic, A, P, C, 0));
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscNew(&bp));
  bp->Anz = A->nonzerostate;
  bp->Pnz = P->nonzerostate;
  PetscCall(PetscObjectGetId((PetscObject)A, &bp->Aid));
  PetscCall(PetscObjectGetId((PetscObject)P, &bp->Pid));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATMPIBAIJKSPARSE, &bp->Pours));
  bp->aijresult = (PetscBool)(!bp->Pours && product->type == MATPRODUCT_AB);
  /* P's rows for A's block columns: the ghosts below the own ones, the own ones, the ghosts above (ascending) */
  PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &Ad, &Ao, &garray));
  nghost   = (Ao && garray) ? Ao->cmap->n / bs : 0;
  cstart   = A->cmap->rstart / bs;
  bp->nown = (int)(A->cmap->n / bs);
  bp->glo  = 0;
  while (bp->glo < nghost && garray[bp->glo] < cstart) bp->glo++;
  PetscCall(PetscMalloc1(PetscMax((nghost + bp->nown) * bs, 1), &idx));
  for (PetscInt g = 0; g < bp->glo; g++)
    for (PetscInt c = 0; c < bs; c++) idx[n++] = garray[g] * bs + c;
  for (PetscInt i = 0; i < bp->nown * bs; i++) idx[n++] = A->cmap->rstart + i;
  for (PetscInt g = bp->glo; g < nghost; g++)
    for (PetscInt c = 0; c < bs; c++) idx[n++] = garray[g] * bs + c;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, idx, PETSC_OWN_POINTER, &bp->isrow));
  PetscCall(ISSetBlockSize(bp->isrow, bs));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, P->cmap->N, 0, 1, &bp->iscol));
  PetscCall(ISSetBlockSize(bp->iscol, cbs));
  PetscCall(OperandBlocks(P, bp, bs, cbs, &Pv, stream));
  PetscCheck(Pv.mb == bp->nown + nghost && Pv.nb == P->cmap->N / cbs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "P's rows for the operator's columns: %d x %d blocks, expected %" PetscInt_FMT " x %" PetscInt_FMT, Pv.mb, Pv.nb, bp->nown + nghost, P->cmap->N / cbs);
  PetscCall(JoinedOperator(A, bp, PETSC_TRUE, stream));
  PetscCall(MatBAIJKSPARSEBlockProductPattern_CUDA(&bp->Aj, &Pv, PETSC_TRUE, &bp->AP, &bp->npap, stream));
  if (product->type == MATPRODUCT_PtAP) {
    Pown = Pv, Pown.mb = bp->nown, Pown.rowptr = Pv.rowptr + bp->glo;
    PetscCall(MatBAIJKSPARSEBlockTransposeProductPattern_CUDA(&Pown, &bp->AP, PETSC_TRUE, &bp->Ct, &bp->nptap, stream));
    PetscCall(ResultOfPtAP(A, P, bp, &E, stream));
    /* P is the level's transfer: its own products exchange their ghosts as A's do (an mpiaijcusparse P: NCCL) */
    PetscCall(MatAIJCUSPARSEGhostExchangeSetUp_Private(P, ((Mat_MPIBAIJKSPARSE *)A->spptr)->ghost_want, &bp->Pexchange));
  } else PetscCall(ResultOfAP(A, P, bp, &E, stream));
  saved      = C->product;
  C->product = NULL;
  PetscCall(MatHeaderReplace(C, &E));
  C->product             = saved;
  product->data          = bp;
  product->destroy       = MPIBlockedProductDestroy;
  C->ops->productnumeric = ProductNumeric_MPIBlocked;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)C), &size));
  PetscCall(PetscInfo(C, "%s of %s (bs %" PetscInt_FMT ") and %s (column block size %" PetscInt_FMT ") by blocks on the device, %d ranks: %d blocks of P's rows, %d of A P, %" PetscInt_FMT " sent; %s result; P's products exchange by %s\n",
                      MatProductTypes[product->type], ((PetscObject)A)->type_name, bs, ((PetscObject)P)->type_name, cbs, size, Pv.nz, bp->AP.nz, bp->nsend, ((PetscObject)C)->type_name, bp->Pexchange ? "NCCL" : "its own scatter"));
  PetscCall(PetscLogEventEnd(PBG_BAIJKProductSymbolic, A, P, C, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
