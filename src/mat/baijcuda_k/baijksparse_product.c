/* What PCGAMG (and PCMG with Galerkin coarse operators) ask of the operator: its graph (MatCreateGraph()) and the
   sparse products (MatMatMult(), MatPtAP() and the other MatProduct types) with AIJ or baijksparse operands.

   The graph: one vertex a block row, the weight of an edge the sum of the absolute values of its block (or of the
   sub-block given by the strength index), as PETSc's MatCreateGraph_Simple_AIJ() computes it for a blocked AIJ; the
   weights are computed where the values are newest (a kernel on the device copy, one scalar a block comes back), and the
   graph is a host AIJ matrix with one entry a stored block (on several ranks an MPIAIJ made of the parts' block patterns,
   with no assembly of entries), which PETSc's own MatCreateGraph() then symmetrizes, scales and filters: GAMG's
   coarsening reads it on the host.

   The products: BAIJ has none with sparse operands. Each baijksparse (or MAIJ) operand is converted to aijcusparse (aij
   without a usable device; the seq conversion keeps the values on the device) and PETSc's AIJ product runs on the
   converted operands (cuSPARSE's SpGEMM on the device). The result is
   - baijksparse when its blocks are square and it is an operator (PtAP, RARt) or the B operand is baijksparse: the
     coarse operators of GAMG come out blocked (bs = the columns of a prolongator block: 6 with elasticity's rigid-body
     modes), so that the V-cycle runs our products and vbjacobi finds their blocks. The AIJ product (D) is kept and
     its values copied into C at each numeric phase;
   - otherwise an AIJ matrix of the converted type, which is the product itself: the operands of the AIJ product are
     swapped in only while it runs (as PETSc's MatProductSymbolic_PtAP_Unsafe() does), so C holds no second copy.
   At a numeric phase an operand converted earlier is converted again only when its object state moved (values
   changed: Newton steps, -pc_gamg_reuse_interpolation), into the same matrix. Sequential A P and P^T A P with an AIJ P
   on the device take the blocked products instead (baijksparse_galerkin.c), and so do MPI ones of an mpibaijksparse
   operator with an MPIAIJ or mpibaijksparse P (baijksparse_galerkin_mpi.c), unless -mat_baijksparse_products aij. */
#include "baijksparseimpl.h"

/* ---------------------------------------------------------------------------------------------- the graph */
/* An AIJ matrix (on comm) of the block pattern of a seqbaijksparse matrix or part, its values the block weights, ncol
   block columns (the pattern's arrays are copied: the part keeps its own) */
static PetscErrorCode GraphPart(MPI_Comm comm, Mat part, PetscInt bs, PetscInt ncol, PetscInt num_idx, PetscInt index[], Mat *G)
{
  const PetscInt *ia, *ja;
  PetscInt        n;
  PetscScalar    *cv;
  PetscBool       done;
  Mat             T;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(part, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  PetscCheck(done && n == part->rmap->n / bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: cannot get the block rows", ((PetscObject)part)->type_name);
  PetscCall(PetscMalloc1(PetscMax(ia[n], 1), &cv));
  /* bs 1: the values themselves, as PETSc's graph of a scalar AIJ keeps them (their absolute values are taken when the
     graph is filtered or scaled; a strength index is ignored, as there); bs > 1: sums of absolute values */
  PetscCall(MatSeqBAIJKSPARSEBlockWeights_Private(part, bs > 1 ? num_idx : 0, index, (PetscBool)(bs > 1), cv));
  PetscCall(MatCreateSeqAIJWithArrays(comm, n, ncol, (PetscInt *)ia, (PetscInt *)ja, cv, &T));
  PetscCall(MatDuplicate(T, MAT_COPY_VALUES, G));
  PetscCall(MatDestroy(&T));
  PetscCall(MatRestoreRowIJ(part, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  PetscCall(PetscFree(cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateGraph_BAIJKSPARSE(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph)
{
  MPI_Comm        comm     = PetscObjectComm((PetscObject)A);
  PetscInt        bs       = A->rmap->bs;
  const PetscInt *garray   = NULL;
  Mat             parts[2] = {NULL, NULL}, G;
  PetscBool       mpi, isset, issym;

  PetscFunctionBegin;
  PetscCheck(A->rmap->bs == A->cmap->bs, comm, PETSC_ERR_SUP, "%s: the graph of a matrix with rectangular blocks", ((PetscObject)A)->type_name);
  PetscCheck(num_idx >= 0 && num_idx <= bs, comm, PETSC_ERR_ARG_OUTOFRANGE, "MatCreateGraph(): %" PetscInt_FMT " strength indices for block size %" PetscInt_FMT, num_idx, bs);
  for (PetscInt i = 0; i < num_idx; i++) PetscCheck(index[i] >= 0 && index[i] < bs, comm, PETSC_ERR_ARG_OUTOFRANGE, "MatCreateGraph(): strength index %" PetscInt_FMT " is outside the block size %" PetscInt_FMT, index[i], bs);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &mpi));
  if (!mpi) PetscCall(GraphPart(comm, A, bs, A->cmap->n / bs, num_idx, index, &G)); /* the graph's pattern is BAIJ's block pattern */
  else {
    /* the same of each part, put together as MPIAIJ (the off-diagonal part's block columns compressed through the block
       garray, which MPIAIJ's garray becomes): no assembly of the entries */
    Mat       Gp[2];
    PetscInt  nghost, *g;
    PetscBool isk;

    PetscCall(MatMPIBAIJKSPARSEGetSeqBAIJ_Private(A, &parts[0], &parts[1], &garray));
    PetscCheck(parts[0] && parts[1] && A->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "MatCreateGraph(): the %s matrix must be assembled", ((PetscObject)A)->type_name);
    PetscCall(PetscObjectTypeCompare((PetscObject)parts[1], MATSEQBAIJKSPARSE, &isk));
    PetscCheck(isk, PETSC_COMM_SELF, PETSC_ERR_PLIB, "An assembled %s matrix without its %s parts", MATMPIBAIJKSPARSE, MATSEQBAIJKSPARSE);
    nghost = parts[1]->cmap->n / bs;
    PetscCall(GraphPart(PETSC_COMM_SELF, parts[0], bs, A->cmap->n / bs, num_idx, index, &Gp[0]));
    PetscCall(GraphPart(PETSC_COMM_SELF, parts[1], bs, nghost, num_idx, index, &Gp[1]));
    PetscCall(PetscMalloc1(PetscMax(nghost, 1), &g)); /* owned by G; not NULL even when empty: the columns are compressed */
    if (nghost) PetscCall(PetscArraycpy(g, garray, nghost));
    PetscCall(MatCreateMPIAIJWithSeqAIJ(comm, A->rmap->N / bs, A->cmap->N / bs, Gp[0], Gp[1], g, &G));
  }
  PetscCall(MatIsSymmetricKnown(A, &isset, &issym));
  if (isset) PetscCall(MatSetOption(G, MAT_SYMMETRIC, issym));
  PetscCall(PetscInfo(A, "graph of %" PetscInt_FMT " block rows from the block weights (%s), then PETSc's AIJ graph\n", A->rmap->n / bs, num_idx ? "strength index" : "all entries"));
  /* bs 1 AIJ: PETSc's graph of G is G itself, symmetrized, scaled and filtered as asked */
  PetscCall(MatCreateGraph(G, sym, scale, filter, 0, NULL, graph));
  PetscCall(MatDestroy(&G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- products */
typedef struct {
  Mat              Aa, Ba;         /* the AIJ operands: conversions of ours, or the operands themselves */
  PetscBool        Aconv, Bconv;   /* whether Aa / Ba are conversions */
  PetscObjectState Astate, Bstate; /* the operands' states when converted */
  PetscObjectState Anz, Bnz;       /* and their nonzero states when the product was set up */
  PetscObjectId    Aid, Bid;       /* the operand objects they are of (MatProductReplaceMats() may put others in) */
  Mat              D;              /* a baijksparse result: the AIJ product whose values C copies */
  PetscBool        fresh;          /* C holds the values of the AIJ operands at the states below */
  PetscObjectState Aastate, Bastate;
  void            *inner_data; /* an AIJ result: the AIJ product's own data, numeric phase and destructor */
  PetscErrorCode (*inner_numeric)(Mat);
  PetscErrorCode (*inner_destroy)(void *); /* PETSc passes it &data */
} ProductCtx;

static PetscErrorCode IsOurs(Mat X, PetscBool *ours)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, ours, MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE, ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ type a baijksparse operand is converted to: aijcusparse where the device is usable */
static PetscErrorCode TargetAIJType(Mat X, MatType *type)
{
  PetscBool   dev;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEUseDevice_Private(X, &dev));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)X), &size));
  *type = dev ? (size > 1 ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE) : (size > 1 ? MATMPIAIJ : MATSEQAIJ);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ copy of an operand of ours (or a MAIJ: DMDA's host interpolation) is kept on it (composed) with the operand's state: GAMG multiplies a level's
   operator twice (A P for the smoothed prolongator, then P^T A P), and converts it once */
/* The AIJ copy kept on X and the state it was converted at (NULL, NULL when none) */
static PetscErrorCode CachedCopy(Mat X, Mat *cached, PetscObjectState **cs)
{
  PetscContainer c = NULL;

  PetscFunctionBegin;
  *cs = NULL;
  PetscCall(PetscObjectQuery((PetscObject)X, "PBG_AIJCopy", (PetscObject *)cached));
  PetscCall(PetscObjectQuery((PetscObject)X, "PBG_AIJCopyState", (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)cs));
  if (!*cs) *cached = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OperandAIJ(Mat X, Mat *Xa, PetscBool *conv, PetscObjectState *state)
{
  MatType          type;
  Mat              cached;
  PetscObjectState s, *cs;
  PetscBool        same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(IsOurs(X, conv));
  if (!*conv) PetscCall(PetscObjectTypeCompareAny((PetscObject)X, conv, MATSEQMAIJ, MATMPIMAIJ, "")); /* DMDA's host interpolation */
  if (*conv) {
    PetscCall(TargetAIJType(X, &type));
    PetscCall(PetscObjectStateGet((PetscObject)X, &s));
    PetscCall(CachedCopy(X, &cached, &cs));
    if (cached) PetscCall(PetscObjectTypeCompare((PetscObject)cached, type, &same));
    if (same && *cs == s) {
      PetscCall(PetscObjectReference((PetscObject)cached));
      *Xa = cached;
    } else {
      PetscBool seq;

      PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQBAIJKSPARSE, &seq));
      if (seq && !strcmp(type, MATSEQAIJCUSPARSE)) PetscCall(MatSeqBAIJKSPARSEAIJCUSPARSECopy_Private(X, Xa));
      else PetscCall(MatConvert(X, type, MAT_INITIAL_MATRIX, Xa));
      PetscCall(PetscObjectCompose((PetscObject)X, "PBG_AIJCopy", (PetscObject)*Xa));
      PetscCall(PetscMalloc1(1, &cs));
      *cs = s;
      PetscCall(PetscObjectContainerCompose((PetscObject)X, "PBG_AIJCopyState", cs, PetscCtxDestroyDefault));
    }
    *state = s;
  } else {
    PetscCall(PetscObjectReference((PetscObject)X));
    *Xa = X;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A host AIJ operand X (Xa = X) beside an aijcusparse one (the other's copy, Oa) goes to the device too: cuSPARSE has
   no product of mpiaijcusparse and mpiaij, and the product then runs where the other operand is. *Xa becomes a
   converted copy, refreshed as the others when X's values change. */
static PetscErrorCode HostAIJToDevice(Mat X, Mat Oa, Mat *Xa, PetscBool *conv, PetscObjectState *state)
{
  PetscBool host, dev;
  MatType   type;

  PetscFunctionBegin;
  if (*conv) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &host, MATSEQAIJ, MATMPIAIJ, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)Oa, &dev, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  if (!host || !dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)Oa, MATMPIAIJCUSPARSE, &dev));
  type = dev ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE;
  PetscCall(MatDestroy(Xa)); /* the reference OperandAIJ() took on X */
  PetscCall(MatConvert(X, type, MAT_INITIAL_MATRIX, Xa));
  PetscCall(PetscObjectStateGet((PetscObject)X, state));
  *conv = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of X into Xa, its conversion made for this pattern (the same object, or another of the same pattern): ours
   by the conversions' reuse (the values alone), anything else (a host MAIJ) converted anew and copied in */
static PetscErrorCode OperandConvertAgain(Mat X, Mat Xa)
{
  Mat       T;
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQBAIJKSPARSE, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATMPIBAIJKSPARSE, &mpi));
  if (seq) PetscCall(MatSeqBAIJKSPARSEAIJCUSPARSERefresh_Private(X, Xa));
  else if (mpi) PetscCall(MatConvert(X, ((PetscObject)Xa)->type_name, MAT_REUSE_MATRIX, &Xa));
  else {
    PetscCall(MatConvert(X, ((PetscObject)Xa)->type_name, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatCopy(T, Xa, SAME_NONZERO_PATTERN));
    PetscCall(MatDestroy(&T));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ operand *Xa of the operand X at a numeric phase. X may be another object than at the symbolic phase
   (MatProductReplaceMats(), which MatPtAP() and MatMatMult() call with MAT_REUSE_MATRIX): PETSc's contract is the same
   nonzero pattern, and *Xa becomes X itself or X's own converted copy. Else X's values are converted again
   into *Xa when they changed since; its pattern must be the one of the symbolic phase (nz): a new pattern needs a new
   product (MAT_INITIAL_MATRIX), as for AIJ. */
static PetscErrorCode OperandRefresh(Mat X, Mat *Xa, PetscBool conv, PetscObjectId *id, PetscObjectState *nz, PetscObjectState *state, PetscBool *changed)
{
  PetscObjectState s, *cs;
  PetscObjectId    xid;
  Mat              cached;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)X, &xid));
  if (xid != *id) {
    PetscCheck(X->rmap->N == (*Xa)->rmap->N && X->cmap->N == (*Xa)->cmap->N, PetscObjectComm((PetscObject)X), PETSC_ERR_ARG_SIZ, "The operand put in the product (%s, %" PetscInt_FMT " x %" PetscInt_FMT ") does not have the sizes of the one it replaces (%" PetscInt_FMT " x %" PetscInt_FMT ")",
               ((PetscObject)X)->type_name, X->rmap->N, X->cmap->N, (*Xa)->rmap->N, (*Xa)->cmap->N);
    if (conv) {
      /* the copy in use can be the one kept on the operand X replaces, which that operand's other products share: its
         values stay that operand's, and X gets a copy of its own (kept on X when X is ours) */
      Mat              T;
      PetscBool        kept;
      PetscObjectState s2;

      PetscCall(OperandAIJ(X, &T, &kept, &s2));
      if (!kept) { /* a host AIJ operand converted for the device (HostAIJToDevice()) */
        PetscCall(MatDestroy(&T));
        PetscCall(MatConvert(X, ((PetscObject)*Xa)->type_name, MAT_INITIAL_MATRIX, &T));
      }
      PetscCall(MatDestroy(Xa));
      *Xa = T;
    } else {
      PetscCall(PetscObjectReference((PetscObject)X));
      PetscCall(MatDestroy(Xa));
      *Xa = X;
    }
    *id = xid;
    *nz = X->nonzerostate;
    PetscCall(PetscObjectStateGet((PetscObject)X, state));
    *changed = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(X->nonzerostate == *nz, PetscObjectComm((PetscObject)X), PETSC_ERR_ARG_WRONGSTATE, "The nonzero pattern of an operand (%s) changed since the product was set up: compute the product anew (MAT_INITIAL_MATRIX)", ((PetscObject)X)->type_name);
  if (!conv) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectStateGet((PetscObject)X, &s));
  if (s == *state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CachedCopy(X, &cached, &cs));
  if (!(cached == *Xa && *cs == s)) { /* another product sharing the copy has not refreshed it yet */
    PetscCall(OperandConvertAgain(X, *Xa));
    if (cached == *Xa) *cs = s;
  }
  *state   = s;
  *changed = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductCtxDestroy(void *data)
{
  ProductCtx *ctx = *(ProductCtx **)data;

  PetscFunctionBegin;
  if (ctx->inner_destroy) PetscCall((*ctx->inner_destroy)(&ctx->inner_data));
  PetscCall(MatDestroy(&ctx->Aa));
  PetscCall(MatDestroy(&ctx->Ba));
  PetscCall(MatDestroy(&ctx->D));
  PetscCall(PetscFree(ctx));
  *(ProductCtx **)data = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block sizes of the result of the product type t of A and B, as PETSc's AIJ products set them */
static void ResultBlockSizes(MatProductType t, Mat A, Mat B, PetscInt *rbs, PetscInt *cbs)
{
  switch (t) {
  case MATPRODUCT_AtB:
    *rbs = A->cmap->bs, *cbs = B->cmap->bs;
    break;
  case MATPRODUCT_ABt:
    *rbs = A->rmap->bs, *cbs = B->rmap->bs;
    break;
  case MATPRODUCT_PtAP:
    *rbs = *cbs = B->cmap->bs;
    break;
  case MATPRODUCT_RARt:
    *rbs = *cbs = B->rmap->bs;
    break;
  default:
    *rbs = A->rmap->bs, *cbs = B->cmap->bs;
  }
}

/* The AIJ product D of the AIJ operands, symbolic and numeric */
static PetscErrorCode InnerProduct(Mat Aa, Mat Ba, MatProductType t, PetscReal fill, Mat *D)
{
  PetscFunctionBegin;
  PetscCall(MatProductCreate(Aa, Ba, NULL, D));
  PetscCall(MatProductSetType(*D, t));
  PetscCall(MatProductSetAlgorithm(*D, MATPRODUCTALGORITHMDEFAULT));
  PetscCall(MatProductSetFill(*D, fill));
  PetscCall(MatProductSetFromOptions(*D));
  PetscCall(MatProductSymbolic(*D));
  PetscCall(MatProductNumeric(*D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductNumeric_AIJResult(Mat C)
{
  Mat_Product *product = C->product;
  ProductCtx  *ctx     = (ProductCtx *)product->data;
  Mat          A = product->A, B = product->B;
  PetscBool    changed = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(OperandRefresh(A, &ctx->Aa, ctx->Aconv, &ctx->Aid, &ctx->Anz, &ctx->Astate, &changed));
  PetscCall(OperandRefresh(B, &ctx->Ba, ctx->Bconv, &ctx->Bid, &ctx->Bnz, &ctx->Bstate, &changed));
  /* another AIJ operand object put in runs in PETSc's own numeric phase, as MatProductReplaceMats() has it (a converted
     one is our own copy, refreshed in place) */
  product->A    = ctx->Aa;
  product->B    = ctx->Ba;
  product->data = ctx->inner_data;
  PetscCall((*ctx->inner_numeric)(C));
  product->data = ctx;
  product->A    = A;
  product->B    = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductNumeric_OursResult(Mat C)
{
  Mat_Product *product = C->product;
  ProductCtx  *ctx     = (ProductCtx *)product->data;
  PetscBool    changed = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(OperandRefresh(product->A, &ctx->Aa, ctx->Aconv, &ctx->Aid, &ctx->Anz, &ctx->Astate, &changed));
  PetscCall(OperandRefresh(product->B, &ctx->Ba, ctx->Bconv, &ctx->Bid, &ctx->Bnz, &ctx->Bstate, &changed));
  if (ctx->D->product->A != ctx->Aa || ctx->D->product->B != ctx->Ba) {
    /* another operand object put in: PETSc's AIJ product keeps what its symbolic phase made of the old one (cuSPARSE's
       descriptors of its arrays, intermediate products), so it is made anew; the operands have the old patterns, so the
       result keeps its pattern */
    PetscCall(MatDestroy(&ctx->D));
    PetscCall(InnerProduct(ctx->Aa, ctx->Ba, product->type, product->fill, &ctx->D));
    PetscCall(MatSeqAIJCUSPARSEBAIJKSPARSERefresh_Private(ctx->D, C));
    ctx->fresh = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ctx->fresh && !changed) { /* the symbolic phase computed the values of these operands (AIJ ones: same objects) */
    PetscObjectState sa, sb;

    PetscCall(PetscObjectStateGet((PetscObject)ctx->Aa, &sa));
    PetscCall(PetscObjectStateGet((PetscObject)ctx->Ba, &sb));
    ctx->fresh = PETSC_FALSE;
    if (sa == ctx->Aastate && sb == ctx->Bastate) PetscFunctionReturn(PETSC_SUCCESS);
  }
  ctx->fresh = PETSC_FALSE;
  PetscCall(MatProductNumeric(ctx->D));
  PetscCall(MatSeqAIJCUSPARSEBAIJKSPARSERefresh_Private(ctx->D, C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductSymbolic_ThroughAIJ(Mat C)
{
  Mat_Product   *product = C->product;
  Mat            A = product->A, B = product->B, E;
  MatProductType t = product->type;
  ProductCtx    *ctx;
  PetscInt       rbs, cbs;
  PetscBool      bours, ours;
  MatType        otype;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  PetscCall(OperandAIJ(A, &ctx->Aa, &ctx->Aconv, &ctx->Astate));
  PetscCall(OperandAIJ(B, &ctx->Ba, &ctx->Bconv, &ctx->Bstate));
  PetscCall(HostAIJToDevice(B, ctx->Aa, &ctx->Ba, &ctx->Bconv, &ctx->Bstate));
  PetscCall(HostAIJToDevice(A, ctx->Ba, &ctx->Aa, &ctx->Aconv, &ctx->Astate));
  ctx->Anz = A->nonzerostate;
  ctx->Bnz = B->nonzerostate;
  PetscCall(PetscObjectGetId((PetscObject)A, &ctx->Aid));
  PetscCall(PetscObjectGetId((PetscObject)B, &ctx->Bid));
  ResultBlockSizes(t, A, B, &rbs, &cbs);
  PetscCall(IsOurs(B, &bours));
  ours = (PetscBool)(rbs == cbs && rbs >= 1 && (t == MATPRODUCT_PtAP || t == MATPRODUCT_RARt || bours));
  if (ours) {
    /* the AIJ product D, then C becomes its baijksparse copy (C keeps its product) */
    Mat_Product *saved;
    PetscMPIInt  size;

    PetscCall(InnerProduct(ctx->Aa, ctx->Ba, t, product->fill, &ctx->D));
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)C), &size));
    otype = size > 1 ? MATMPIBAIJKSPARSE : MATSEQBAIJKSPARSE;
    if (ctx->D->rmap->bs != rbs || ctx->D->cmap->bs != cbs) PetscCall(MatSetBlockSizes(ctx->D, rbs, cbs));
    PetscCall(MatConvert(ctx->D, otype, MAT_INITIAL_MATRIX, &E));
    saved      = C->product;
    C->product = NULL;
    PetscCall(MatHeaderReplace(C, &E));
    C->product = saved;
    PetscCall(PetscObjectStateGet((PetscObject)ctx->Aa, &ctx->Aastate));
    PetscCall(PetscObjectStateGet((PetscObject)ctx->Ba, &ctx->Bastate));
    product->data          = ctx;
    product->destroy       = ProductCtxDestroy;
    ctx->fresh             = PETSC_TRUE;
    C->ops->productnumeric = ProductNumeric_OursResult;
    PetscCall(PetscInfo(C, "%s of %s and %s through %s: baijksparse result, block size %" PetscInt_FMT "\n", MatProductTypes[t], ((PetscObject)A)->type_name, ((PetscObject)B)->type_name, ((PetscObject)ctx->Aa)->type_name, rbs));
  } else {
    /* C is the AIJ product itself, its operands swapped in while it is set up and while it runs */
    product->A = ctx->Aa;
    product->B = ctx->Ba;
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(MatProductSymbolic(C));
    product->A             = A;
    product->B             = B;
    ctx->inner_data        = product->data;
    ctx->inner_destroy     = product->destroy;
    ctx->inner_numeric     = C->ops->productnumeric;
    product->data          = ctx;
    product->destroy       = ProductCtxDestroy;
    C->ops->productnumeric = ProductNumeric_AIJResult;
    PetscCall(PetscInfo(C, "%s of %s and %s through %s: %s result\n", MatProductTypes[t], ((PetscObject)A)->type_name, ((PetscObject)B)->type_name, ((PetscObject)ctx->Aa)->type_name, ((PetscObject)C)->type_name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatProductSetFromOptions() of baijksparse (the method, and "MatProductSetFromOptions_anytype_C" for mixed operands):
   sparse operands (AIJ, any AIJ subclass, or ours) take the AIJ route; others (dense) what BAIJ offers */
PetscErrorCode MatProductSetFromOptions_BAIJKSPARSE(Mat C)
{
  Mat_Product *product = C->product;
  PetscBool    aours, sparse[2];

  PetscFunctionBegin;
  PetscCall(IsOurs(product->A, &aours));
  for (PetscInt i = 0; i < 2; i++) {
    Mat       X = i ? product->B : product->A;
    PetscBool ours, aij;

    PetscCall(IsOurs(X, &ours));
    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)X, &aij, MATSEQAIJ, MATMPIAIJ, MATSEQMAIJ, MATMPIMAIJ, ""));
    sparse[i] = (PetscBool)(ours || aij);
  }
  switch (product->type) {
  case MATPRODUCT_AB:
  case MATPRODUCT_AtB:
  case MATPRODUCT_ABt:
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
    if (sparse[0] && sparse[1]) {
      PetscBool blocked, mpiblocked = PETSC_FALSE;

      PetscCall(MatProductBlockedApplies_SeqBAIJKSPARSE(C, &blocked));
      if (!blocked) PetscCall(MatProductBlockedApplies_MPIBAIJKSPARSE(C, &mpiblocked));
      C->ops->productsymbolic = blocked ? MatProductSymbolic_Blocked_SeqBAIJKSPARSE : (mpiblocked ? MatProductSymbolic_Blocked_MPIBAIJKSPARSE : ProductSymbolic_ThroughAIJ);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    break;
  default:
    break;
  }
  if (aours) { /* BAIJ's own (a dense B), which reads no values */
    PetscErrorCode (*f)(Mat) = NULL;
    PetscBool mpi;

    PetscCall(PetscObjectTypeCompare((PetscObject)product->A, MATMPIBAIJKSPARSE, &mpi));
    f = mpi ? ((Mat_MPIBAIJKSPARSE *)product->A->spptr)->host.productsetfromoptions : ((Mat_SeqBAIJKSPARSE *)product->A->spptr)->host.productsetfromoptions;
    if (f) PetscCall((*f)(C));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
