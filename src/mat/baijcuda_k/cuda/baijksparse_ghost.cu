/* The device side of the ghost exchange of MATMPIBAIJKSPARSE (see ../baijksparse_ghost.h): NCCL point-to-point, loaded
   at run time with dlopen (libnccl.so.2 from the library path: the CUDA toolkit's, or the nvidia-nccl wheel's directory,
   which the bundle's run.sh adds), so that the library neither links nor needs NCCL where it is absent; the pack and
   unpack kernels. Built without NCCL's header, NCCL is reported unavailable. */
#include "../baijksparse_ghost.h"
#include <petscdevice_cuda.h>
#include <dlfcn.h>
#include <stdlib.h>
#if __has_include(<nccl.h>)
  #include <nccl.h>
  #define PBG_HAVE_NCCL_H 1
#endif

#if defined(PBG_HAVE_NCCL_H)
/* The NCCL functions we call, looked up once */
static struct {
  int  loaded; /* 0: not tried, 1: loaded, -1: failed */
  char why[256];
  ncclResult_t (*GetVersion)(int *);
  ncclResult_t (*GetUniqueId)(ncclUniqueId *);
  ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*GroupStart)(void);
  ncclResult_t (*GroupEnd)(void);
  const char *(*GetErrorString)(ncclResult_t);
} nccl;

  #define PetscCallNCCL(call) \
    do { \
      ncclResult_t r_ = (call); \
      PetscCheck(r_ == ncclSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "NCCL error %d (%s) in %s", (int)r_, nccl.GetErrorString ? nccl.GetErrorString(r_) : "?", #call); \
    } while (0)

static void NCCLLoadOnce(void)
{
  const char *names[] = {getenv("PETSCBLOCKGPU_NCCL_LIB"), "libnccl.so.2", "libnccl.so"};
  void       *h       = NULL;
  int         version = 0;

  if (nccl.loaded) return;
  nccl.loaded = -1;
  #if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  snprintf(nccl.why, sizeof(nccl.why), "the exchange moves real double scalars (ncclDouble) only");
  return;
  #endif
  for (const char *n : names)
    if (n && n[0] && (h = dlopen(n, RTLD_NOW | RTLD_GLOBAL))) break;
  if (!h) {
    snprintf(nccl.why, sizeof(nccl.why), "libnccl.so.2 not found (%s); set PETSCBLOCKGPU_NCCL_LIB or add its directory to LD_LIBRARY_PATH", dlerror());
    return;
  }
  #define PBG_NCCL_SYM(f, s) \
    if (!(*(void **)&nccl.f = dlsym(h, s))) { \
      snprintf(nccl.why, sizeof(nccl.why), "libnccl lacks %s", s); \
      return; \
    }
  PBG_NCCL_SYM(GetVersion, "ncclGetVersion")
  PBG_NCCL_SYM(GetUniqueId, "ncclGetUniqueId")
  PBG_NCCL_SYM(CommInitRank, "ncclCommInitRank")
  PBG_NCCL_SYM(CommDestroy, "ncclCommDestroy")
  PBG_NCCL_SYM(Send, "ncclSend")
  PBG_NCCL_SYM(Recv, "ncclRecv")
  PBG_NCCL_SYM(GroupStart, "ncclGroupStart")
  PBG_NCCL_SYM(GroupEnd, "ncclGroupEnd")
  PBG_NCCL_SYM(GetErrorString, "ncclGetErrorString")
  #undef PBG_NCCL_SYM
  if (nccl.GetVersion(&version) != ncclSuccess || version < 21800) { /* grouped send/recv on any stream: 2.7; we built against 2.28 */
    snprintf(nccl.why, sizeof(nccl.why), "NCCL version %d is older than 2.18", version);
    return;
  }
  snprintf(nccl.why, sizeof(nccl.why), "NCCL %d.%d.%d", version / 10000, (version / 100) % 100, version % 100);
  nccl.loaded = 1;
}
#endif

PetscErrorCode MatBAIJKSPARSEGhostNCCLLoad_CUDA(PetscBool *ok, char *why, size_t len)
{
  PetscFunctionBegin;
#if defined(PBG_HAVE_NCCL_H)
  NCCLLoadOnce();
  *ok = (PetscBool)(nccl.loaded == 1);
  if (why) PetscCall(PetscStrncpy(why, nccl.why, len));
#else
  *ok = PETSC_FALSE;
  if (why) PetscCall(PetscStrncpy(why, "built without nccl.h", len));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PBG_HAVE_NCCL_H)
/* NCCL communicators, one per MPI communicator, kept as an MPI attribute and destroyed at PetscFinalize() (before PETSc
   frees its communicators and finalizes the device) */
static PetscMPIInt comm_keyval = MPI_KEYVAL_INVALID;
static ncclComm_t  made[64];
static int         nmade = 0;

static PetscErrorCode NCCLCommsDestroy(void)
{
  PetscFunctionBegin;
  for (int i = 0; i < nmade; i++)
    if (made[i]) (void)nccl.CommDestroy(made[i]);
  nmade = 0;
  if (comm_keyval != MPI_KEYVAL_INVALID) PetscCallMPI(MPI_Comm_free_keyval(&comm_keyval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int NCCLCommDelete(MPI_Comm, int, void *attr, void *) /* the MPI communicator went: its NCCL one too */
{
  for (int i = 0; i < nmade; i++)
    if (attr == (void *)&made[i] && made[i]) {
      (void)nccl.CommDestroy(made[i]);
      made[i] = NULL;
    }
  return MPI_SUCCESS;
}
#endif

PetscErrorCode MatBAIJKSPARSEGhostNCCLComm_CUDA(MPI_Comm comm, void **out)
{
  PetscFunctionBegin;
  *out = NULL;
#if defined(PBG_HAVE_NCCL_H)
  {
    ncclComm_t  *slot = NULL;
    PetscMPIInt  flag, rank, size;
    ncclUniqueId id;

    PetscCheck(nccl.loaded == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "NCCL is not loaded");
    if (comm_keyval == MPI_KEYVAL_INVALID) {
      PetscCallMPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, NCCLCommDelete, &comm_keyval, NULL));
      PetscCall(PetscRegisterFinalize(NCCLCommsDestroy));
    }
    PetscCallMPI(MPI_Comm_get_attr(comm, comm_keyval, &slot, &flag));
    if (flag && slot && *slot) {
      *out = (void *)*slot;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCheck(nmade < (int)(sizeof(made) / sizeof(made[0])), PETSC_COMM_SELF, PETSC_ERR_SUP, "More than %d MPI communicators with NCCL ghost exchanges", (int)(sizeof(made) / sizeof(made[0])));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    if (rank == 0) PetscCallNCCL(nccl.GetUniqueId(&id));
    PetscCallMPI(MPI_Bcast(&id, (PetscMPIInt)sizeof(id), MPI_BYTE, 0, comm));
    /* NVLink multicast stays off on shared hosts unless the user asked otherwise */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    PetscCallNCCL(nccl.CommInitRank(&made[nmade], size, id, rank));
    slot = &made[nmade++];
    PetscCallMPI(MPI_Comm_set_attr(comm, comm_keyval, slot));
    *out = (void *)*slot;
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "petscblockgpu was built without nccl.h");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PBG_HAVE_NCCL_H)
/* One NCCL group on the plan's stream: segment i of out (block offsets ooff) to orank[i], segment j of in from irank[j].
   Forward: the packed blocks out to the peers, lvec's segments in; reverse: the other way */
static PetscErrorCode GhostGroup(MatBAIJKSPARSEGhostPlan *g, const PetscScalar *out, PetscMPIInt nout, const PetscMPIInt orank[], const PetscInt ooff[], PetscScalar *in, PetscMPIInt nin, const PetscMPIInt irank[], const PetscInt ioff[])
{
  PetscFunctionBegin;
  PetscCallNCCL(nccl.GroupStart());
  for (PetscMPIInt i = 0; i < nout; i++) PetscCallNCCL(nccl.Send(out + ooff[i] * g->bs, (size_t)((ooff[i + 1] - ooff[i]) * g->bs), ncclDouble, orank[i], (ncclComm_t)g->comm, g->stream));
  for (PetscMPIInt i = 0; i < nin; i++) PetscCallNCCL(nccl.Recv(in + ioff[i] * g->bs, (size_t)((ioff[i + 1] - ioff[i]) * g->bs), ncclDouble, irank[i], (ncclComm_t)g->comm, g->stream));
  PetscCallNCCL(nccl.GroupEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatBAIJKSPARSEGhostPlanDevice_CUDA(MatBAIJKSPARSEGhostPlan *g, const int *send_idx)
{
  const size_t n = (size_t)g->nsendblocks;

  PetscFunctionBegin;
  if (n) {
    PetscCallCUDA(cudaMalloc((void **)&g->d_send_idx, n * sizeof(int)));
    PetscCallCUDA(cudaMemcpy(g->d_send_idx, send_idx, n * sizeof(int), cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMalloc((void **)&g->d_sendbuf, n * (size_t)g->bs * sizeof(PetscScalar)));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)(n * sizeof(int))));
  }
  { /* the highest priority: the product's kernel that follows fills every SM, and NCCL's blocks must not wait for its
       last wave (then the exchange would not overlap it) */
    int lo, hi;

    PetscCallCUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    PetscCallCUDA(cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, hi));
  }
  PetscCallCUDA(cudaEventCreateWithFlags(&g->ready, cudaEventDisableTiming));
  PetscCallCUDA(cudaEventCreateWithFlags(&g->done, cudaEventDisableTiming));
#if defined(PBG_HAVE_NCCL_H)
  { /* NCCL connects two peers at their first send and receive, a cost (larger on more GPUs) that the first product,
       inside the first solve, would pay. One exchange of zeros here, collectively (every rank builds its plan),
       connects them at assembly instead. (measured: doc/benchmarks.md, "Measurements behind design choices") */
    const size_t nrecv = (size_t)(g->nrecv ? g->recv_off[g->nrecv] : 0) * (size_t)g->bs;
    PetscScalar *tmp   = NULL;

    if (nrecv) PetscCallCUDA(cudaMalloc((void **)&tmp, nrecv * sizeof(PetscScalar)));
    if (n) PetscCallCUDA(cudaMemsetAsync(g->d_sendbuf, 0, n * (size_t)g->bs * sizeof(PetscScalar), g->stream));
    PetscCall(GhostGroup(g, g->d_sendbuf, g->nsend, g->send_rank, g->send_off, tmp, g->nrecv, g->recv_rank, g->recv_off));
    PetscCallCUDA(cudaStreamSynchronize(g->stream));
    PetscCallCUDA(cudaFree(tmp));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGhostPlanDestroy_CUDA(MatBAIJKSPARSEGhostPlan *g)
{
  PetscFunctionBegin;
  if (g->stream) PetscCallCUDA(cudaStreamSynchronize(g->stream)); /* an exchange may still read or write the buffers */
  PetscCallCUDA(cudaFree(g->d_send_idx));
  PetscCallCUDA(cudaFree(g->d_sendbuf));
  if (g->ready) PetscCallCUDA(cudaEventDestroy(g->ready));
  if (g->done) PetscCallCUDA(cudaEventDestroy(g->done));
  if (g->stream) PetscCallCUDA(cudaStreamDestroy(g->stream));
  g->d_send_idx = NULL;
  g->d_sendbuf  = NULL;
  g->stream     = NULL;
  g->ready = g->done = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace pbg
{
namespace baijk
{
/* buf[j bs + c] = x[idx[j] bs + c]: a thread per entry */
__global__ void GhostPackKernel(PetscInt n, int bs, const int *__restrict__ idx, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ buf)
{
  for (PetscInt e = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; e < n * bs; e += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt j = e / bs, c = e - j * bs;
    buf[e] = x[(PetscInt)idx[j] * bs + c];
  }
}

/* z[idx[j] bs + c] += buf[j bs + c] for the blocks of one peer (one launch per peer, in rank order: a block row that
   several peers send back gets their contributions in that order, with no atomics) */
__global__ void GhostUnpackAddKernel(PetscInt n, int bs, const int *__restrict__ idx, const PetscScalar *__restrict__ buf, PetscScalar *__restrict__ z)
{
  for (PetscInt e = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; e < n * bs; e += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt j = e / bs, c = e - j * bs;
    z[(PetscInt)idx[j] * bs + c] += buf[e];
  }
}

} // namespace baijk
} // namespace pbg

using namespace pbg::baijk;

static unsigned GhostGrid(PetscInt entries)
{
  return (unsigned)PetscMax(1, PetscMin((entries + 255) / 256, 4096));
}

PetscErrorCode MatBAIJKSPARSEGhostForwardBegin_CUDA(MatBAIJKSPARSEGhostPlan *g, const PetscScalar *x, PetscScalar *lvec, cudaStream_t stream)
{
  PetscFunctionBegin;
#if defined(PBG_HAVE_NCCL_H)
  /* x is ready and the last reader of lvec (the previous product) is done: from here the plan's stream packs and sends
     while the product's stream goes on to the diagonal part at once (the pack is off its path too) */
  PetscCallCUDA(cudaEventRecord(g->ready, stream));
  PetscCallCUDA(cudaStreamWaitEvent(g->stream, g->ready, 0));
  if (g->nsendblocks) {
    GhostPackKernel<<<GhostGrid(g->nsendblocks * g->bs), 256, 0, g->stream>>>(g->nsendblocks, g->bs, g->d_send_idx, x, g->d_sendbuf);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(GhostGroup(g, g->d_sendbuf, g->nsend, g->send_rank, g->send_off, lvec, g->nrecv, g->recv_rank, g->recv_off));
  PetscCallCUDA(cudaEventRecord(g->done, g->stream));
  g->nforward++;
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "petscblockgpu was built without nccl.h");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGhostForwardEnd_CUDA(MatBAIJKSPARSEGhostPlan *g, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaStreamWaitEvent(stream, g->done, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEGhostReverse_CUDA(MatBAIJKSPARSEGhostPlan *g, const PetscScalar *lvec, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
#if defined(PBG_HAVE_NCCL_H)
  PetscCallCUDA(cudaEventRecord(g->ready, stream)); /* lvec written, and the last reader of the buffer done */
  PetscCallCUDA(cudaStreamWaitEvent(g->stream, g->ready, 0));
  PetscCall(GhostGroup(g, lvec, g->nrecv, g->recv_rank, g->recv_off, g->d_sendbuf, g->nsend, g->send_rank, g->send_off));
  PetscCallCUDA(cudaEventRecord(g->done, g->stream));
  PetscCallCUDA(cudaStreamWaitEvent(stream, g->done, 0));
  for (PetscMPIInt i = 0; i < g->nsend; i++) {
    const PetscInt n = g->send_off[i + 1] - g->send_off[i];

    if (!n) continue;
    GhostUnpackAddKernel<<<GhostGrid(n * g->bs), 256, 0, stream>>>(n, g->bs, g->d_send_idx + g->send_off[i], g->d_sendbuf + g->send_off[i] * g->bs, z);
    PetscCallCUDA(cudaGetLastError());
  }
  g->nreverse++;
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "petscblockgpu was built without nccl.h");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
