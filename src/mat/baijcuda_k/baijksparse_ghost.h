/* The ghost exchange of the device products of MATMPIBAIJKSPARSE: between baijksparse_ghost.c (the plan: who sends which
   block rows to whom, built once per layout with MPI; the choice of the engine; the view) and cuda/baijksparse_ghost.cu
   (NCCL, loaded at run time, and the pack/unpack kernels). Private to src/mat/baijcuda_k.

   The forward exchange (MatMult, MatMultAdd) brings the ghost values of x into lvec: on a stream of the plan's own (the
   highest priority), the owner packs the block rows its peers need into a send buffer and NCCL point-to-point moves
   them, in one group, straight into each peer's segment of lvec (the ghosts of one owner are contiguous in lvec: garray is
   sorted and the owners' ranges ascend). The product's stream waits only for that stream (an event), never for the
   host, so the diagonal part's product runs meanwhile. The reverse exchange (MatMultTranspose) sends lvec's segments
   back and adds each peer's contribution into the owner's rows, in rank order (the same sums on every run). */
#pragma once

#include "baijksparseimpl.h"
#include <cuda_runtime_api.h>

/* The engines (MatBAIJKSPARSEGhostExchange, baijksparseimpl.h), by name */
PETSC_INTERN const char *const MatBAIJKSPARSEGhostExchanges[];

struct _n_MatBAIJKSPARSEGhostPlan {
  int          bs;
  PetscMPIInt  nsend, nrecv;          /* peers this rank sends to (owner side) and receives from */
  PetscMPIInt *send_rank, *recv_rank; /* [nsend], [nrecv], ascending */
  PetscInt    *send_off, *recv_off;   /* [n + 1] block offsets: into the send list, into lvec */
  PetscInt     nsendblocks;           /* send_off[nsend] */
  int         *d_send_idx;            /* [nsendblocks] local block rows of x to send, peer after peer */
  PetscScalar *d_sendbuf;             /* [nsendblocks * bs] packed values (forward); received values (reverse) */
  void        *comm;                  /* ncclComm_t shared by the matrices of the MPI communicator */
  cudaStream_t stream;                /* NCCL's stream */
  cudaEvent_t  ready, done;           /* the product's stream -> NCCL's, and back */
  PetscInt     nforward, nreverse;    /* exchanges made, for -mat_view */
};

/* The plan of A (collective; its ghost block columns garray[nghost], sorted, in blocks of bs of A's column layout): *plan
   NULL, and why, when the exchange goes through the VecScatter (want SF, NCCL absent, or two ranks on one GPU: NCCL
   needs a GPU per rank) */
PETSC_INTERN PetscErrorCode MatMPIBAIJKSPARSEGhostSetUp_Private(Mat A, PetscInt bs, MatBAIJKSPARSEGhostExchange want, PetscInt nghost, const PetscInt garray[], MatBAIJKSPARSEGhostPlan **plan, char *why, size_t len);
PETSC_INTERN PetscErrorCode MatMPIBAIJKSPARSEGhostDestroy_Private(MatBAIJKSPARSEGhostPlan **plan);
PETSC_INTERN PetscErrorCode MatMPIBAIJKSPARSEGhostView_Private(const MatBAIJKSPARSEGhostPlan *plan, const char *why, PetscViewer viewer);

/* The device products of a matrix in two parts (Ad x's own columns, Ao its nghost ghost columns, sorted) around the
   ghost exchange of x: by NCCL's plan, or by PETSc's VecScatter sf where plan is NULL; lvec holds the ghost values. Used
   by mpibaijksparse (its parts) and by the prolongators of baijksparse_ghost_aij.c (mpiaijcusparse's parts); A is the
   matrix the exchange is logged for (PBG_BAIJKGhost). */
typedef struct {
  Mat                      A, Ad, Ao;
  PetscInt                 nghost;
  Vec                      lvec;
  MatBAIJKSPARSEGhostPlan *plan;
  VecScatter               sf;
} MatBAIJKSPARSEGhostParts;

/* The forward exchange of x's ghost values into lvec in two halves, so that a product can run between them. Every rank
   takes part, also one without ghosts of its own: its values may be others' ghosts (a rank that skipped it would hang
   them) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostsBegin_Private(const MatBAIJKSPARSEGhostParts *g, Vec x);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostsEnd_Private(const MatBAIJKSPARSEGhostParts *g, Vec x);
/* z = A x + y (y NULL: z = A x), the forward exchange overlapping Ad's product */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostMultAdd_Private(const MatBAIJKSPARSEGhostParts *g, Vec x, Vec y, Vec z);
/* z = A^T x + y (y NULL: z = A^T x), Ao^T x added into its owners' rows, in rank order */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostMultTransposeAdd_Private(const MatBAIJKSPARSEGhostParts *g, Vec x, Vec y, Vec z);

/* The same exchange for the products of an mpiaijcusparse prolongator of PCGAMG (baijksparse_ghost_aij.c; collective):
   *given, whether its MatMult() family now takes it */
PETSC_INTERN PetscErrorCode MatAIJCUSPARSEGhostExchangeSetUp_Private(Mat P, MatBAIJKSPARSEGhostExchange want, PetscBool *given);

/* Whether NCCL can be used (its library loaded, with dlopen, once; why: the reason when not) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostNCCLLoad_CUDA(PetscBool *ok, char *why, size_t len);
/* The NCCL communicator of the MPI communicator comm (collective: made once, cached on comm, destroyed at PetscFinalize()) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostNCCLComm_CUDA(MPI_Comm comm, void **nccl);
/* The plan's device side: the send list to the device, buffers, stream, events (send_idx: host, nsendblocks) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostPlanDevice_CUDA(MatBAIJKSPARSEGhostPlan *, const int *send_idx);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostPlanDestroy_CUDA(MatBAIJKSPARSEGhostPlan *);
/* Forward: the plan's stream packs x and runs the NCCL group into lvec, after what stream has queued so far; End makes
   stream wait for it */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostForwardBegin_CUDA(MatBAIJKSPARSEGhostPlan *, const PetscScalar *x, PetscScalar *lvec, cudaStream_t stream);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostForwardEnd_CUDA(MatBAIJKSPARSEGhostPlan *, cudaStream_t stream);
/* Reverse: z[owned rows] += the peers' lvec segments for them (lvec ready on stream); stream waits for it all */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGhostReverse_CUDA(MatBAIJKSPARSEGhostPlan *, const PetscScalar *lvec, PetscScalar *z, cudaStream_t stream);
