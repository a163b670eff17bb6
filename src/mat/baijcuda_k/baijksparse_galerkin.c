/* The blocked sparse products of MATSEQBAIJKSPARSE on the device (kernels in cuda/baijksparse_galerkin.cu): what
   PCGAMG asks of a level's operator A (bs x bs blocks) and its prolongator P (block sizes bs x cbs: AIJ, or baijksparse
   when cbs = bs, as GAMG makes it on the levels whose operator is ours):
   - A P (the smoothed prolongator): an aijcusparse result holding every entry of its bs x cbs blocks, or a baijksparse
     one when P is baijksparse;
   - P^T A P (the coarse operator): a baijksparse result of block size cbs.
   An AIJ P is taken in blocks of bs x cbs (zeros where a block lacks an entry; a baijksparse P is used as it is), A P
   is formed in those blocks, and P^T (A P) from them: the patterns are made at block level (contributions of block pairs sorted and made unique on the
   device), so the memory of the product is that of blocks, where cuSPARSE's SpGEMM on the scalar operands needs a
   buffer of its scalar intermediate products, which runs out of device memory on ksp ex56's larger meshes (measured:
   doc/benchmarks.md). No scalar copy of A is made. The host gets the result's block pattern (a download) to make the matrix; every value stays on the device.

   The symbolic phase keeps P's blocks and A P (pattern and values) in the product; the numeric phase recomputes the
   values of P's blocks, A P and the result, so a change of A's or P's values (same patterns) is a numeric phase
   only (-pc_gamg_reuse_interpolation, Newton steps). Taken for sequential products with the device usable and
   -mat_baijksparse_products blocked (the default); every other product goes through AIJ (baijksparse_product.c). */
#include "baijksparsecuda.h"
#include <petscdevice_cuda.h>

typedef struct {
  MatBAIJKSPARSEBlockCSR P;      /* an AIJ operand in blocks of bs x cbs (unused for a baijksparse one) */
  MatBAIJKSPARSEBlockCSR AP;     /* A P in blocks of bs x cbs (unused when A P is the baijksparse result itself) */
  PetscBool              Pours;  /* P is baijksparse: its device copy is used */
  PetscBool              ABours; /* A P with a baijksparse result: computed in place in the result's device copy */
  Mat                    Pd;     /* an AIJ operand on the device: itself, or its seqaijcusparse copy */
  PetscBool              Pcopy;  /* Pd is a copy, refreshed when the operand's values change */
  PetscObjectState       Pstate; /* the operand's state when copied */
  PetscObjectState       Anz, Pnz;
  PetscObjectId          Aid, Pid;    /* the operand objects (MatProductReplaceMats() may put others of the same pattern in) */
  PetscInt64             pnnz;        /* entries of the operand */
  PetscInt64             npap, nptap; /* block contributions of A P and of P^T (A P): the flops */
} BlockedProduct;

static PetscErrorCode BlockedProductDestroy(void *data)
{
  BlockedProduct *bp = *(BlockedProduct **)data;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->P, stream));
  PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->AP, stream));
  PetscCall(MatDestroy(&bp->Pd));
  PetscCall(PetscFree(bp));
  *(BlockedProduct **)data = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block view of a seqbaijksparse matrix's device copy (also of an MPI one's parts, baijksparse_galerkin_mpi.c):
   current for an operand (values: uploaded first when the host is newer), the pattern only for a result, whose values
   the product writes */
PetscErrorCode MatSeqBAIJKSPARSEBlockView_Private(Mat A, PetscBool values, MatBAIJKSPARSEBlockCSR *v)
{
  MatBAIJKSPARSEDevice *d;

  PetscFunctionBegin;
  if (values) PetscCall(MatSeqBAIJKSPARSECopyToGPU(A));
  else PetscCall(MatSeqBAIJKSPARSECopyPatternToGPU_Private(A));
  d = ((Mat_SeqBAIJKSPARSE *)A->spptr)->dev;
  PetscCheck(d && d->pattern_valid, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no device copy of the pattern", ((PetscObject)A)->type_name);
  v->rbs = v->cbs = d->bs;
  v->mb = d->mbs, v->nb = d->nbs, v->nz = d->nz;
  v->rowptr = d->rowptr, v->colidx = d->colidx, v->val = d->val;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductBlockedApplies_SeqBAIJKSPARSE(Mat C, PetscBool *yes)
{
  Mat_Product        *product = C->product;
  Mat                 A = product->A, P = product->B;
  Mat_SeqBAIJKSPARSE *k;
  PetscBool           flg, dev;

  PetscFunctionBegin;
  *yes = PETSC_FALSE;
  if (product->type != MATPRODUCT_AB && product->type != MATPRODUCT_PtAP) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &flg));
  if (!flg) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)P, &flg, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
  if (!flg) { /* a baijksparse P whose block rows are A's block columns */
    PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQBAIJKSPARSE, &flg));
    if (flg) flg = (PetscBool)(P->rmap->bs == A->cmap->bs);
  }
  if (!flg || A->boundtocpu || P->boundtocpu || A->rmap->bs != A->cmap->bs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEUseDevice_Private(A, &dev));
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  k = (Mat_SeqBAIJKSPARSE *)A->spptr;
  if (!k->opts.read) PetscCall(MatBAIJKSPARSEOptionsRead_Private(A, NULL, &k->opts));
  *yes = (PetscBool)(k->opts.products == MAT_BAIJKSPARSE_PRODUCTS_BLOCKED);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pd for the AIJ operand P: P itself (seqaijcusparse) or its seqaijcusparse copy (a host AIJ), and its entries */
static PetscErrorCode OperandSet(Mat P, BlockedProduct *bp)
{
  const PetscInt *hi, *hj;
  PetscInt        mm;
  PetscBool       isdev, done;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&bp->Pd));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJCUSPARSE, &isdev));
  bp->Pcopy = (PetscBool)!isdev;
  if (isdev) {
    PetscCall(PetscObjectReference((PetscObject)P));
    bp->Pd = P;
  } else { /* a host AIJ operand: its seqaijcusparse copy, refreshed when its values change */
    PetscCall(MatConvert(P, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &bp->Pd));
    PetscCall(PetscObjectStateGet((PetscObject)P, &bp->Pstate));
  }
  PetscCall(MatGetRowIJ(bp->Pd, 0, PETSC_FALSE, PETSC_FALSE, &mm, &hi, &hj, &done)); /* the host copy of the pattern is current */
  PetscCheck(done && mm == P->rmap->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cannot get the rows of the %s matrix", MATSEQAIJCUSPARSE);
  bp->pnnz = hi[mm];
  PetscCall(MatRestoreRowIJ(bp->Pd, 0, PETSC_FALSE, PETSC_FALSE, &mm, &hi, &hj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At a numeric phase: X is the operand recorded (id, nonzero state) or another object of the same pattern that
   MatProductReplaceMats() put in (PETSc's contract; MatPtAP() and MatMatMult() call it with MAT_REUSE_MATRIX): then
   the record follows it and *replaced says so. The same object must keep its pattern. */
PetscErrorCode MatProductOperandCheck_Private(Mat X, PetscObjectId *id, PetscObjectState *nz, PetscBool *replaced)
{
  PetscObjectId xid;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)X, &xid));
  *replaced = (PetscBool)(xid != *id);
  if (*replaced) {
    *id = xid;
    *nz = X->nonzerostate;
  } else
    PetscCheck(X->nonzerostate == *nz, PetscObjectComm((PetscObject)X), PETSC_ERR_ARG_WRONGSTATE, "The nonzero pattern of an operand (%s) changed since the product was set up: compute the product anew (MAT_INITIAL_MATRIX)", ((PetscObject)X)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ operand on the device with its current values, and its CSR there */
static PetscErrorCode OperandOnDevice(Mat P, BlockedProduct *bp, const int **pi, const int **pj, const PetscScalar **pa)
{
  PetscObjectState s;
  const PetscInt  *i, *j;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)P, &s));
  if (bp->Pcopy && s != bp->Pstate) {
    PetscCall(MatCopy(P, bp->Pd, SAME_NONZERO_PATTERN));
    bp->Pstate = s;
  }
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(bp->Pd, pa)); /* sends the values when the host's are newer */
  PetscCall(MatSeqAIJCUSPARSEGetIJ(bp->Pd, PETSC_FALSE, &i, &j));
  *pi = (const int *)i, *pj = (const int *)j; /* 32-bit PetscInt (pbgimpl.h) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OperandRestore(BlockedProduct *bp, const int **pi, const int **pj, const PetscScalar **pa)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(bp->Pd, PETSC_FALSE, (const PetscInt **)pi, (const PetscInt **)pj));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(bp->Pd, pa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductNumeric_Blocked(Mat C)
{
  Mat_Product           *product = C->product;
  BlockedProduct        *bp      = (BlockedProduct *)product->data;
  Mat                    A = product->A, P = product->B;
  MatBAIJKSPARSEBlockCSR Av, Pv, Cv;
  const int             *pi = NULL, *pj = NULL;
  const PetscScalar     *pa = NULL;
  cudaStream_t           stream;
  const PetscInt         bs = A->rmap->bs, cbs = P->cmap->bs;
  PetscBool              replaced;

  PetscFunctionBegin;
  PetscCall(MatProductOperandCheck_Private(A, &bp->Aid, &bp->Anz, &replaced)); /* another A: read from the product as it is */
  PetscCall(MatProductOperandCheck_Private(P, &bp->Pid, &bp->Pnz, &replaced));
  if (replaced) { /* another P: of the kind of the first (baijksparse or AIJ), with the same number of entries */
    PetscBool ours;

    PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQBAIJKSPARSE, &ours));
    PetscCheck(ours == bp->Pours, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The operand put in the product (%s) is not of the kind of the one it replaces", ((PetscObject)P)->type_name);
    if (!ours) {
      PetscInt64 nnz = bp->pnnz;

      PetscCall(OperandSet(P, bp));
      PetscCheck(bp->pnnz == nnz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The operand put in the product has %" PetscInt64_FMT " entries, the one it replaces %" PetscInt64_FMT ": not the same pattern", bp->pnnz, nnz);
    }
  }
  PetscCall(PetscLogEventBegin(PBG_BAIJKProductNumeric, A, P, C, 0));
  PetscCall(MatSeqBAIJKSPARSEBlockView_Private(A, PETSC_TRUE, &Av));
  if (bp->Pours) PetscCall(MatSeqBAIJKSPARSEBlockView_Private(P, PETSC_TRUE, &Pv));
  else PetscCall(OperandOnDevice(P, bp, &pi, &pj, &pa));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (!bp->Pours) {
    PetscCall(MatBAIJKSPARSEBlockValuesOfCSR_CUDA((int)P->rmap->n, bp->pnnz, pi, pj, pa, &bp->P, stream));
    Pv = bp->P;
  }
  if (bp->ABours) {
    PetscCall(MatSeqBAIJKSPARSEBlockView_Private(C, PETSC_FALSE, &Cv));
    PetscCall(MatBAIJKSPARSEBlockProduct_CUDA(&Av, &Pv, &Cv, stream));
  } else {
    PetscCall(MatBAIJKSPARSEBlockProduct_CUDA(&Av, &Pv, &bp->AP, stream));
    if (product->type == MATPRODUCT_PtAP) {
      PetscCall(MatSeqBAIJKSPARSEBlockView_Private(C, PETSC_FALSE, &Cv));
      PetscCall(MatBAIJKSPARSEBlockTransposeProduct_CUDA(&Pv, &bp->AP, &Cv, stream));
    } else {
      PetscScalar *cv;

      PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(C, &cv));
      PetscCall(MatBAIJKSPARSEBlocksToCSR_CUDA(&bp->AP, cv, stream));
      PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(C, &cv));
    }
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * bs * bs * cbs * (PetscLogDouble)bp->npap + 2.0 * cbs * bs * cbs * (PetscLogDouble)bp->nptap));
  if (!bp->Pours) PetscCall(OperandRestore(bp, &pi, &pj, &pa));
  if (product->type == MATPRODUCT_PtAP || bp->ABours) {
    MatBAIJKSPARSEMarkDeviceNewer_Private(C); /* every value written on the device */
    PetscCall(PetscObjectStateIncrease((PetscObject)C));
  }
  PetscCall(PetscLogEventEnd(PBG_BAIJKProductNumeric, A, P, C, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatProductSymbolic_Blocked_SeqBAIJKSPARSE - the symbolic phase of A P and P^T A P by blocks: P's block pattern, the
  pattern of A P, and for P^T A P the pattern of the result; the result C is made from its block pattern (host) and
  takes the product's numeric phase.
*/
PetscErrorCode MatProductSymbolic_Blocked_SeqBAIJKSPARSE(Mat C)
{
  Mat_Product           *product = C->product;
  Mat                    A = product->A, P = product->B, E;
  MPI_Comm               comm = PetscObjectComm((PetscObject)C);
  BlockedProduct        *bp;
  MatBAIJKSPARSEBlockCSR Av, Pv, Cp;
  const int             *pi, *pj;
  const PetscScalar     *pa;
  PetscInt              *bi, *bj, bs = A->rmap->bs, cbs = P->cmap->bs;
  int                    nap;
  cudaStream_t           stream;
  Mat_Product           *saved;

  PetscFunctionBegin;
  PetscCheck(P->rmap->n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "A P: A has %" PetscInt_FMT " columns, P %" PetscInt_FMT " rows", A->cmap->n, P->rmap->n);
  PetscCheck(cbs >= 1 && P->cmap->n % cbs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "P's column block size %" PetscInt_FMT " does not divide its %" PetscInt_FMT " columns", cbs, P->cmap->n);
  PetscCall(PetscLogEventBegin(PBG_BAIJKProductSymbolic, A, P, C, 0));
  PetscCall(PetscNew(&bp));
  bp->Anz = A->nonzerostate;
  bp->Pnz = P->nonzerostate;
  PetscCall(PetscObjectGetId((PetscObject)A, &bp->Aid));
  PetscCall(PetscObjectGetId((PetscObject)P, &bp->Pid));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQBAIJKSPARSE, &bp->Pours));
  bp->ABours = (PetscBool)(bp->Pours && product->type == MATPRODUCT_AB);
  PetscCall(MatSeqBAIJKSPARSEBlockView_Private(A, PETSC_TRUE, &Av));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (bp->Pours) PetscCall(MatSeqBAIJKSPARSEBlockView_Private(P, PETSC_TRUE, &Pv));
  else {
    PetscCall(OperandSet(P, bp));
    PetscCall(OperandOnDevice(P, bp, &pi, &pj, &pa));
    bp->P.rbs = (int)bs, bp->P.cbs = (int)cbs, bp->P.mb = (int)(P->rmap->n / bs), bp->P.nb = (int)(P->cmap->n / cbs);
    PetscCall(MatBAIJKSPARSEBlockPatternOfCSR_CUDA((int)P->rmap->n, bp->pnnz, pi, pj, &bp->P, stream));
    PetscCall(OperandRestore(bp, &pi, &pj, &pa));
    Pv = bp->P;
  }
  PetscCall(MatBAIJKSPARSEBlockProductPattern_CUDA(&Av, &Pv, (PetscBool)!bp->ABours, &bp->AP, &bp->npap, stream));
  nap = bp->AP.nz;
  if (product->type == MATPRODUCT_PtAP) {
    PetscCall(MatBAIJKSPARSEBlockTransposeProductPattern_CUDA(&Pv, &bp->AP, PETSC_FALSE, &Cp, &bp->nptap, stream));
    PetscCall(PetscMalloc1(Cp.mb + 1, &bi));
    PetscCall(PetscMalloc1(PetscMax(Cp.nz, 1), &bj));
    PetscCall(MatBAIJKSPARSEBlockCSRDownload_CUDA(&Cp, bi, bj, stream));
    PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&Cp, stream));
    PetscCall(MatSeqBAIJKSPARSEOfBlockPattern_Private(comm, cbs, Cp.mb, Cp.nb, bi, bj, &E));
  } else {
    PetscCall(PetscMalloc1(bp->AP.mb + 1, &bi));
    PetscCall(PetscMalloc1(PetscMax(bp->AP.nz, 1), &bj));
    PetscCall(MatBAIJKSPARSEBlockCSRDownload_CUDA(&bp->AP, bi, bj, stream));
    if (bp->ABours) { /* A P is the result: its device copy holds the pattern, the product writes its values there */
      PetscCall(MatSeqBAIJKSPARSEOfBlockPattern_Private(comm, bs, bp->AP.mb, bp->AP.nb, bi, bj, &E));
      PetscCall(MatBAIJKSPARSEBlockCSRFree_CUDA(&bp->AP, stream));
    } else PetscCall(MatSeqAIJCUSPARSEOfBlockPattern_Private(comm, bs, cbs, bp->AP.mb, bp->AP.nb, bi, bj, &E));
  }
  PetscCall(PetscFree(bi));
  PetscCall(PetscFree(bj));
  saved      = C->product;
  C->product = NULL;
  PetscCall(MatHeaderReplace(C, &E));
  C->product             = saved;
  product->data          = bp;
  product->destroy       = BlockedProductDestroy;
  C->ops->productnumeric = ProductNumeric_Blocked;
  PetscCall(PetscInfo(C, "%s of %s (bs %" PetscInt_FMT ") and %s (column block size %" PetscInt_FMT ") by blocks on the device: %d blocks of P, %d of A P, %lld block contributions; %s result\n", MatProductTypes[product->type], ((PetscObject)A)->type_name, bs,
                      ((PetscObject)P)->type_name, cbs, Pv.nz, nap, (long long)(bp->npap + bp->nptap), ((PetscObject)C)->type_name));
  PetscCall(PetscLogEventEnd(PBG_BAIJKProductSymbolic, A, P, C, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
