/* The NCCL ghost exchange of baijksparse_ghost.c for PCGAMG's prolongators (issue 39). On several ranks GAMG's
   prolongators are mpiaijcusparse (their bs x cbs blocks are not square), and PETSc's products of that type exchange
   their ghost values through the VecScatter, which a MPI that is not CUDA-aware stages through the host: on two GPUs
   the finest level's restriction and interpolation took more time than on one (doc/benchmarks.md, session 29).

   When the blocked MPI products (baijksparse_galerkin_mpi.c) set up P^T A P of our operator with an mpiaijcusparse P,
   P is given the exchange: a plan of P's ghost columns (block size 1, collective; only where the operator's own
   exchange is NCCL: -mat_baijksparse_ghost_exchange), and P's MatMult(), MatMultAdd(), MatMultTranspose() and
   MatMultTransposeAdd() replaced by mpibaijksparse's own device products (baijksparse_ghost.c) given P's diagonal and
   off-diagonal parts (PETSc's seqaijcusparse products run them). P stays an mpiaijcusparse matrix for everything else.
   With vectors that are not CUDA vectors, or once P's pattern changed (a new assembly: other ghosts), PETSc's own
   products run. */
#include "baijksparse_ghost.h"

#define PBG_AIJ_EXCHANGE "PBG_AIJGhostExchange"

typedef struct {
  MatBAIJKSPARSEGhostPlan *plan;
  Vec                      lvec;    /* P's ghost values (seqcuda) */
  PetscInt                 nghost;  /* columns of P's off-diagonal part */
  PetscObjectState         nzstate; /* P's pattern the plan is of */
  char                     why[128];
  PetscErrorCode (*mult)(Mat, Vec, Vec); /* PETSc's products of P */
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
} AIJExchange;

static PetscErrorCode AIJExchangeDestroy(PetscCtxRt ctx)
{
  AIJExchange *e = *(AIJExchange **)ctx;

  PetscFunctionBegin;
  PetscCall(MatMPIBAIJKSPARSEGhostDestroy_Private(&e->plan));
  PetscCall(VecDestroy(&e->lvec));
  PetscCall(PetscFree(e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P's parts and exchange for the shared device products of baijksparse_ghost.c, when this product takes them: CUDA
   vectors (the same on every rank) and P's pattern the plan's; *e for PETSc's products otherwise */
static PetscErrorCode ExchangeParts(Mat P, Vec x, Vec y, AIJExchange **e, MatBAIJKSPARSEGhostParts *g, PetscBool *use)
{
  PetscBool cx, cy;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)P, PBG_AIJ_EXCHANGE, (PetscCtxRt)e));
  PetscCheck(*e, PETSC_COMM_SELF, PETSC_ERR_PLIB, "an %s product without its ghost exchange", MATMPIAIJCUSPARSE);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cx, VECMPICUDA, VECSEQCUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &cy, VECMPICUDA, VECSEQCUDA, ""));
  *use = (PetscBool)(cx && cy && P->nonzerostate == (*e)->nzstate);
  if (!*use) PetscFunctionReturn(PETSC_SUCCESS);
  g->A = P;
  PetscCall(MatMPIAIJGetSeqAIJ(P, &g->Ad, &g->Ao, NULL));
  g->nghost = (*e)->nghost;
  g->lvec   = (*e)->lvec;
  g->plan   = (*e)->plan;
  g->sf     = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MultAdd_Exchange(Mat P, Vec x, Vec y, Vec z)
{
  AIJExchange             *e;
  MatBAIJKSPARSEGhostParts g;
  PetscBool                use;

  PetscFunctionBegin;
  PetscCall(ExchangeParts(P, x, z, &e, &g, &use));
  if (use) PetscCall(MatBAIJKSPARSEGhostMultAdd_Private(&g, x, y, z));
  else PetscCall((*e->multadd)(P, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MultTransposeAdd_Exchange(Mat P, Vec x, Vec y, Vec z)
{
  AIJExchange             *e;
  MatBAIJKSPARSEGhostParts g;
  PetscBool                use;

  PetscFunctionBegin;
  PetscCall(ExchangeParts(P, x, z, &e, &g, &use));
  if (use) PetscCall(MatBAIJKSPARSEGhostMultTransposeAdd_Private(&g, x, y, z));
  else PetscCall((*e->multtransposeadd)(P, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Mult_Exchange(Mat P, Vec x, Vec y)
{
  AIJExchange             *e;
  MatBAIJKSPARSEGhostParts g;
  PetscBool                use;

  PetscFunctionBegin;
  PetscCall(ExchangeParts(P, x, y, &e, &g, &use));
  if (use) PetscCall(MatBAIJKSPARSEGhostMultAdd_Private(&g, x, NULL, y));
  else PetscCall((*e->mult)(P, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MultTranspose_Exchange(Mat P, Vec x, Vec y)
{
  AIJExchange             *e;
  MatBAIJKSPARSEGhostParts g;
  PetscBool                use;

  PetscFunctionBegin;
  PetscCall(ExchangeParts(P, x, y, &e, &g, &use));
  if (use) PetscCall(MatBAIJKSPARSEGhostMultTransposeAdd_Private(&g, x, NULL, y));
  else PetscCall((*e->multtranspose)(P, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gives the mpiaijcusparse P the NCCL exchange (collective over P's ranks), unless it has it already for its current
   pattern, or want is the VecScatter, or NCCL cannot serve (then PETSc's products stay, and PetscInfo says why). A P whose
   pattern changed since gets a new plan. *given: whether P's products now take it. */
PetscErrorCode MatAIJCUSPARSEGhostExchangeSetUp_Private(Mat P, MatBAIJKSPARSEGhostExchange want, PetscBool *given)
{
  AIJExchange    *e = NULL;
  Mat             Ao;
  const PetscInt *garray;
  PetscBool       isaij;
  PetscMPIInt     size;

  PetscFunctionBegin;
  *given = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATMPIAIJCUSPARSE, &isaij));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)P), &size));
  if (!isaij || size == 1 || want == MAT_BAIJKSPARSE_GHOST_SF || P->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectContainerQuery((PetscObject)P, PBG_AIJ_EXCHANGE, (PetscCtxRt)&e));
  if (e && e->plan && e->nzstate == P->nonzerostate && P->ops->mult == Mult_Exchange) { /* (MatBindToCPU() resets the methods) */
    *given = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!e) {
    PetscCall(PetscNew(&e));
    e->mult             = P->ops->mult;
    e->multadd          = P->ops->multadd;
    e->multtranspose    = P->ops->multtranspose;
    e->multtransposeadd = P->ops->multtransposeadd;
    PetscCall(PetscObjectContainerCompose((PetscObject)P, PBG_AIJ_EXCHANGE, e, AIJExchangeDestroy));
  }
  PetscCall(MatMPIBAIJKSPARSEGhostDestroy_Private(&e->plan));
  PetscCall(VecDestroy(&e->lvec));
  PetscCall(MatMPIAIJGetSeqAIJ(P, NULL, &Ao, &garray));
  e->nghost  = Ao ? Ao->cmap->n : 0;
  e->nzstate = P->nonzerostate;
  PetscCall(MatMPIBAIJKSPARSEGhostSetUp_Private(P, 1, want, e->nghost, garray, &e->plan, e->why, sizeof(e->why)));
  if (!e->plan) { /* the same answer on every rank: PETSc's products (the saved ones) */
    P->ops->mult             = e->mult;
    P->ops->multadd          = e->multadd;
    P->ops->multtranspose    = e->multtranspose;
    P->ops->multtransposeadd = e->multtransposeadd;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, e->nghost, &e->lvec));
  P->ops->mult             = Mult_Exchange;
  P->ops->multadd          = MultAdd_Exchange;
  P->ops->multtranspose    = MultTranspose_Exchange;
  P->ops->multtransposeadd = MultTransposeAdd_Exchange;
  *given                   = PETSC_TRUE;
  PetscCall(PetscInfo(P, "the products of this %s prolongator exchange its %" PetscInt_FMT " ghost values by %s\n", MATMPIAIJCUSPARSE, e->nghost, e->why));
  PetscFunctionReturn(PETSC_SUCCESS);
}
