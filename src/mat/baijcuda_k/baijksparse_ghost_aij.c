/* The NCCL ghost exchange of baijksparse_ghost.c for PCGAMG's prolongators (issue 39). On several ranks GAMG's
   prolongators are mpiaijcusparse (their bs x cbs blocks are not square), and PETSc's products of that type exchange
   their ghost values through the VecScatter, which a MPI that is not CUDA-aware stages through the host: on two GPUs
   the finest level's restriction and interpolation took more time than on one (doc/benchmarks.md, session 29).

   When the blocked MPI products (baijksparse_galerkin_mpi.c) set up P^T A P of our operator with an mpiaijcusparse P,
   P is given the exchange: a plan of P's ghost columns (block size 1, collective; only where the operator's own
   exchange is NCCL: -mat_baijksparse_ghost_exchange), and P's MatMult(), MatMultAdd(), MatMultTranspose() and
   MatMultTransposeAdd() replaced by ones that run P's diagonal and off-diagonal parts (PETSc's seqaijcusparse
   products) around that exchange, as mpibaijksparse's own products do: the forward exchange overlaps the diagonal
   part's product; the transposed products add the off-diagonal part's contributions into their owners' rows in rank
   order. P stays an mpiaijcusparse matrix for everything else. With vectors that are not CUDA vectors, or once P's
   pattern changed (a new assembly: other ghosts), PETSc's own products run. */
#include "baijksparse_ghost.h"
#include <petscdevice_cuda.h>

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

static PetscErrorCode GetExchange(Mat P, AIJExchange **e)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)P, PBG_AIJ_EXCHANGE, (PetscCtxRt)e));
  PetscCheck(*e, PETSC_COMM_SELF, PETSC_ERR_PLIB, "an %s product without its ghost exchange", MATMPIAIJCUSPARSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether this product takes the exchange: CUDA vectors (the same on every rank) and P's pattern the plan's */
static PetscErrorCode ExchangeUsable(Mat P, AIJExchange *e, Vec x, Vec y, PetscBool *use)
{
  PetscBool cx, cy;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cx, VECMPICUDA, VECSEQCUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &cy, VECMPICUDA, VECSEQCUDA, ""));
  *use = (PetscBool)(cx && cy && P->nonzerostate == e->nzstate);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = P x + y (y NULL: z = P x): the forward exchange of x's ghosts overlaps the diagonal part's product */
static PetscErrorCode MultAdd_Exchange(Mat P, Vec x, Vec y, Vec z)
{
  AIJExchange       *e;
  Mat                Ad, Ao;
  const PetscScalar *dx;
  PetscScalar       *dl;
  cudaStream_t       stream;
  PetscBool          use;

  PetscFunctionBegin;
  PetscCall(GetExchange(P, &e));
  PetscCall(ExchangeUsable(P, e, x, z, &use));
  if (!use) {
    if (y) PetscCall((*e->multadd)(P, x, y, z));
    else PetscCall((*e->mult)(P, x, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(P, &Ad, &Ao, NULL));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKGhost, P, x, 0, 0));
  PetscCall(VecCUDAGetArrayRead(x, &dx));
  PetscCall(VecCUDAGetArrayWrite(e->lvec, &dl));
  PetscCall(MatBAIJKSPARSEGhostForwardBegin_CUDA(e->plan, dx, dl, stream));
  PetscCall(VecCUDARestoreArrayWrite(e->lvec, &dl));
  PetscCall(VecCUDARestoreArrayRead(x, &dx));
  PetscCall(PetscLogEventEnd(PBG_BAIJKGhost, P, x, 0, 0));
  if (y) PetscUseTypeMethod(Ad, multadd, x, y, z);
  else PetscUseTypeMethod(Ad, mult, x, z);
  PetscCall(PetscLogEventBegin(PBG_BAIJKGhost, P, x, 0, 0));
  PetscCall(MatBAIJKSPARSEGhostForwardEnd_CUDA(e->plan, stream));
  PetscCall(PetscLogEventEnd(PBG_BAIJKGhost, P, x, 0, 0));
  if (e->nghost) PetscUseTypeMethod(Ao, multadd, e->lvec, z, z);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = P^T x + y (y NULL: z = P^T x): the off-diagonal part's contributions go to their owners, added in rank order */
static PetscErrorCode MultTransposeAdd_Exchange(Mat P, Vec x, Vec y, Vec z)
{
  AIJExchange       *e;
  Mat                Ad, Ao;
  const PetscScalar *dl;
  PetscScalar       *dz;
  cudaStream_t       stream;
  PetscBool          use;

  PetscFunctionBegin;
  PetscCall(GetExchange(P, &e));
  PetscCall(ExchangeUsable(P, e, x, z, &use));
  if (!use) {
    if (y) PetscCall((*e->multtransposeadd)(P, x, y, z));
    else PetscCall((*e->multtranspose)(P, x, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(P, &Ad, &Ao, NULL));
  if (e->nghost) PetscUseTypeMethod(Ao, multtranspose, x, e->lvec);
  if (y) PetscUseTypeMethod(Ad, multtransposeadd, x, y, z);
  else PetscUseTypeMethod(Ad, multtranspose, x, z);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogEventBegin(PBG_BAIJKGhost, P, x, 0, 0));
  PetscCall(VecCUDAGetArrayRead(e->lvec, &dl));
  PetscCall(VecCUDAGetArray(z, &dz));
  PetscCall(MatBAIJKSPARSEGhostReverse_CUDA(e->plan, dl, dz, stream));
  PetscCall(VecCUDARestoreArray(z, &dz));
  PetscCall(VecCUDARestoreArrayRead(e->lvec, &dl));
  PetscCall(PetscLogEventEnd(PBG_BAIJKGhost, P, x, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Mult_Exchange(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MultAdd_Exchange(P, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MultTranspose_Exchange(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MultTransposeAdd_Exchange(P, x, NULL, y));
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
