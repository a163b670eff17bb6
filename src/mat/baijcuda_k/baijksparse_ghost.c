/* The ghost exchange plan of MATMPIBAIJKSPARSE (see baijksparse_ghost.h): which engine, and for NCCL who sends which
   block rows to whom. Built once per layout (when the matrix's VecScatter is built), collectively. */
#include "baijksparse_ghost.h"
#include "baijksparse_device.h"
#include <petscdevice_cuda.h>

const char *const MatBAIJKSPARSEGhostExchanges[] = {"auto", "nccl", "sf", "MatBAIJKSPARSEGhostExchange", "MAT_BAIJKSPARSE_GHOST_", NULL};

/* Whether every rank of comm drives a GPU of its own (host name and PCI bus id of the current device, gathered): NCCL
   refuses two ranks on one GPU, which the tests do on a one-GPU node */
static PetscErrorCode GPUsDistinct(MPI_Comm comm, PetscBool *distinct, char *why, size_t len)
{
  char        key[2 * MPI_MAX_PROCESSOR_NAME + 32], *all;
  PetscMPIInt size, nl;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(key, sizeof(key)));
  PetscCallMPI(MPI_Get_processor_name(key, &nl));
  key[nl] = '|';
  PetscCall(MatBAIJKSPARSEPCIBusId_CUDA(key + nl + 1, (int)(sizeof(key) - nl - 1)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc1((size_t)size * sizeof(key), &all));
  PetscCallMPI(MPI_Allgather(key, (PetscMPIInt)sizeof(key), MPI_CHAR, all, (PetscMPIInt)sizeof(key), MPI_CHAR, comm));
  *distinct = PETSC_TRUE;
  for (PetscMPIInt i = 0; i < size && *distinct; i++)
    for (PetscMPIInt j = 0; j < i && *distinct; j++) {
      PetscBool same;

      PetscCall(PetscStrcmp(all + (size_t)i * sizeof(key), all + (size_t)j * sizeof(key), &same));
      if (same) {
        *distinct = PETSC_FALSE;
        PetscCall(PetscSNPrintf(why, len, "ranks %d and %d share a GPU (%s): NCCL needs one GPU per rank", (int)j, (int)i, all + (size_t)i * sizeof(key)));
      }
    }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIBAIJKSPARSEGhostDestroy_Private(MatBAIJKSPARSEGhostPlan **plan)
{
  MatBAIJKSPARSEGhostPlan *g = *plan;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBAIJKSPARSEGhostPlanDestroy_CUDA(g));
  PetscCall(PetscFree4(g->send_rank, g->recv_rank, g->send_off, g->recv_off));
  PetscCall(PetscFree(g));
  *plan = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIBAIJKSPARSEGhostSetUp_Private(Mat A, PetscInt bs, MatBAIJKSPARSEGhostExchange want, PetscInt nghost, const PetscInt garray[], MatBAIJKSPARSEGhostPlan **plan, char *why, size_t len)
{
  MPI_Comm                 comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt              size, rank, *rcount, *scount, *rdispl, *sdispl, ns = 0, nr = 0;
  PetscInt                 cstartb = A->cmap->rstart / bs, nsendblocks = 0, *want_blocks;
  PetscBool                ok = PETSC_TRUE, lok;
  int                     *send_idx;
  MatBAIJKSPARSEGhostPlan *g;

  PetscFunctionBegin;
  *plan  = NULL;
  why[0] = 0;
  if (want == MAT_BAIJKSPARSE_GHOST_SF) {
    PetscCall(PetscStrncpy(why, "-mat_baijksparse_ghost_exchange sf", len));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (size == 1) {
    PetscCall(PetscStrncpy(why, "one rank: no ghosts", len));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* the rank's GPU chosen before its bus id is read */
  /* every rank decides the same: NCCL loads everywhere, and no two ranks share a GPU */
  PetscCall(MatBAIJKSPARSEGhostNCCLLoad_CUDA(&lok, why, len));
  PetscCallMPI(MPIU_Allreduce(&lok, &ok, 1, MPI_C_BOOL, MPI_LAND, comm));
  if (ok) PetscCall(GPUsDistinct(comm, &ok, why, len));
  else if (lok) PetscCall(PetscStrncpy(why, "NCCL did not load on another rank", len));
  if (!ok) {
    PetscCall(PetscInfo(A, "ghost exchange through the VecScatter (PetscSF): %s\n", why));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscCall(PetscNew(&g));
  g->bs = (int)bs;
  /* receive side: the ghosts of one owner are a contiguous run of garray (sorted, owners' ranges ascending) */
  PetscCall(PetscCalloc4(size, &rcount, size, &scount, size + 1, &rdispl, size + 1, &sdispl));
  for (PetscInt q = 0; q < nghost; q++) {
    PetscMPIInt o;

    PetscCall(PetscLayoutFindOwner(A->cmap, garray[q] * bs, &o));
    PetscCheck(o != rank, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ghost block column %" PetscInt_FMT " is owned by this rank", garray[q]);
    PetscCheck(q == 0 || garray[q] > garray[q - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "garray is not sorted");
    if (!rcount[o]) nr++;
    rcount[o]++;
  }
  /* send side: what each owner is asked for (counts, then the global block indices) */
  PetscCallMPI(MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++) {
    rdispl[r + 1] = rdispl[r] + rcount[r];
    sdispl[r + 1] = sdispl[r] + scount[r];
    if (scount[r]) ns++;
  }
  nsendblocks = sdispl[size];
  PetscCall(PetscMalloc2(PetscMax(nsendblocks, 1), &want_blocks, PetscMax(nsendblocks, 1), &send_idx));
  PetscCallMPI(MPI_Alltoallv(garray, rcount, rdispl, MPIU_INT, want_blocks, scount, sdispl, MPIU_INT, comm));
  for (PetscInt q = 0; q < nsendblocks; q++) {
    const PetscInt l = want_blocks[q] - cstartb;

    PetscCheck(l >= 0 && l < A->cmap->n / bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a peer asked for block column %" PetscInt_FMT ", not owned here", want_blocks[q]);
    send_idx[q] = (int)l;
  }
  g->nsend       = ns;
  g->nrecv       = nr;
  g->nsendblocks = nsendblocks;
  PetscCall(PetscMalloc4(ns, &g->send_rank, nr, &g->recv_rank, ns + 1, &g->send_off, nr + 1, &g->recv_off));
  g->send_off[0] = g->recv_off[0] = 0;
  for (PetscMPIInt r = 0, i = 0, j = 0; r < size; r++) {
    if (scount[r]) {
      g->send_rank[i]    = r;
      g->send_off[i + 1] = sdispl[r + 1];
      i++;
    }
    if (rcount[r]) {
      g->recv_rank[j]    = r;
      g->recv_off[j + 1] = rdispl[r + 1];
      j++;
    }
  }
  PetscCall(MatBAIJKSPARSEGhostNCCLComm_CUDA(comm, &g->comm));
  PetscCall(MatBAIJKSPARSEGhostPlanDevice_CUDA(g, send_idx));
  PetscCall(PetscFree2(want_blocks, send_idx));
  PetscCall(PetscFree4(rcount, scount, rdispl, sdispl));
  PetscCall(PetscInfo(A, "ghost exchange by %s: %d peers to send %" PetscInt_FMT " blocks to, %d to receive %" PetscInt_FMT " from\n", why, (int)ns, nsendblocks, (int)nr, nghost));
  *plan = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMPIBAIJKSPARSEGhostView_Private(const MatBAIJKSPARSEGhostPlan *g, const char *why, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (g)
    PetscCall(PetscViewerASCIIPrintf(viewer, "ghost exchange: %s point-to-point on a stream of its own, device to device, overlapped with the diagonal part's product (rank 0: %d peers to send %" PetscInt_FMT " blocks to, %d to receive from; %" PetscInt_FMT " forward, %" PetscInt_FMT " reverse exchanges)\n", why,
                                     (int)g->nsend, g->nsendblocks, (int)g->nrecv, g->nforward, g->nreverse));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "ghost exchange: VecScatter (PetscSF over MPI; staged through the host unless the MPI is CUDA-aware)%s%s%s\n", why && why[0] ? " (" : "", why && why[0] ? why : "", why && why[0] ? ")" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGhostsBegin_Private(const MatBAIJKSPARSEGhostParts *g, Vec x)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PBG_BAIJKGhost, g->A, x, 0, 0));
  if (g->plan) { /* NCCL on its own stream: the product's stream waits for it on the device only */
    const PetscScalar *dx;
    PetscScalar       *dl;
    cudaStream_t       stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(VecCUDAGetArrayRead(x, &dx));
    PetscCall(VecCUDAGetArrayWrite(g->lvec, &dl));
    PetscCall(MatBAIJKSPARSEGhostForwardBegin_CUDA(g->plan, dx, dl, stream));
    PetscCall(VecCUDARestoreArrayWrite(g->lvec, &dl));
    PetscCall(VecCUDARestoreArrayRead(x, &dx));
  } else PetscCall(VecScatterBegin(g->sf, x, g->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventEnd(PBG_BAIJKGhost, g->A, x, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGhostsEnd_Private(const MatBAIJKSPARSEGhostParts *g, Vec x)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PBG_BAIJKGhost, g->A, x, 0, 0));
  if (g->plan) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(MatBAIJKSPARSEGhostForwardEnd_CUDA(g->plan, stream));
  } else PetscCall(VecScatterEnd(g->sf, x, g->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventEnd(PBG_BAIJKGhost, g->A, x, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGhostMultAdd_Private(const MatBAIJKSPARSEGhostParts *g, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEGhostsBegin_Private(g, x));
  if (y) PetscUseTypeMethod(g->Ad, multadd, x, y, z);
  else PetscUseTypeMethod(g->Ad, mult, x, z);
  PetscCall(MatBAIJKSPARSEGhostsEnd_Private(g, x));
  if (g->nghost) PetscUseTypeMethod(g->Ao, multadd, g->lvec, z, z);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGhostMultTransposeAdd_Private(const MatBAIJKSPARSEGhostParts *g, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (g->nghost) PetscUseTypeMethod(g->Ao, multtranspose, x, g->lvec);
  if (y) PetscUseTypeMethod(g->Ad, multtransposeadd, x, y, z);
  else PetscUseTypeMethod(g->Ad, multtranspose, x, z);
  PetscCall(PetscLogEventBegin(PBG_BAIJKGhost, g->A, x, 0, 0));
  if (g->plan) { /* each owner adds its peers' contributions, in rank order */
    const PetscScalar *dl;
    PetscScalar       *dz;
    cudaStream_t       stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(VecCUDAGetArrayRead(g->lvec, &dl));
    PetscCall(VecCUDAGetArray(z, &dz));
    PetscCall(MatBAIJKSPARSEGhostReverse_CUDA(g->plan, dl, dz, stream));
    PetscCall(VecCUDARestoreArray(z, &dz));
    PetscCall(VecCUDARestoreArrayRead(g->lvec, &dl));
  } else {
    PetscCall(VecScatterBegin(g->sf, g->lvec, z, ADD_VALUES, SCATTER_REVERSE)); /* on every rank (see the forward one) */
    PetscCall(VecScatterEnd(g->sf, g->lvec, z, ADD_VALUES, SCATTER_REVERSE));
  }
  PetscCall(PetscLogEventEnd(PBG_BAIJKGhost, g->A, x, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
