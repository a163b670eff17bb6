/* The device floor's memory operations by intent (../baijksparse_device.h, for ../baijksparse_device.c and the files
   above it) and the device's identity: the CUDA runtime calls of MATBAIJKSPARSE's host logic, each checked with
   PetscCallCUDA(), so that no .c file of the matrix calls the runtime itself (the same split as src/pc). Sizes are in
   bytes; the frees and the release skip NULL. */
#include "../baijksparse_device.h"
#include <petscdevice_cuda.h>

PetscErrorCode MatBAIJKSPARSEDeviceAlloc_Private(void **p, size_t bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc(p, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEDeviceFree_Private(void *p)
{
  PetscFunctionBegin;
  if (p) PetscCallCUDA(cudaFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEDeviceCopy_Private(void *dst, const void *src, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEDeviceZero_Private(void *p, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemsetAsync(p, 0, bytes, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEUpload_Private(void *d, const void *h, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEDownloadAsync_Private(void *h, const void *d, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEDeviceWait_Private(cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEDownload_Private(void *h, const void *d, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEScratchGet_Private(void **p, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(p, bytes, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEScratchGetZeroed_Private(void **p, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(p, bytes, stream));
  PetscCallCUDA(cudaMemsetAsync(*p, 0, bytes, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEScratchUpload_Private(void **p, const void *h, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(p, bytes, stream));
  PetscCallCUDA(cudaMemcpyAsync(*p, h, bytes, cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEScratchRelease_Private(void *p, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (p) PetscCallCUDA(cudaFreeAsync(p, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEPinnedAlloc_Private(void **p, size_t bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocHost(p, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEPinnedFree_Private(void *p)
{
  PetscFunctionBegin;
  if (p) PetscCallCUDA(cudaFreeHost(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The staging: its pinned buffer (cap bytes) and the event at the end of the last upload from it, pending until waited
   for; the buffer is written again only after that wait */
struct _n_MatBAIJKSPARSEStaging {
  void       *host;
  size_t      cap;
  cudaEvent_t done;
  PetscBool   pending;
};

PetscErrorCode MatBAIJKSPARSEStagingCreate_Private(MatBAIJKSPARSEStaging *st)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(st));
  PetscCallCUDA(cudaEventCreateWithFlags(&(*st)->done, cudaEventDisableTiming));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEStagingDestroy_Private(MatBAIJKSPARSEStaging *pst)
{
  MatBAIJKSPARSEStaging st = *pst;

  PetscFunctionBegin;
  if (!st) PetscFunctionReturn(PETSC_SUCCESS);
  if (st->pending) PetscCallCUDA(cudaEventSynchronize(st->done));
  if (st->done) PetscCallCUDA(cudaEventDestroy(st->done));
  PetscCall(MatBAIJKSPARSEPinnedFree_Private(st->host));
  PetscCall(PetscFree(*pst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEStagingGet_Private(MatBAIJKSPARSEStaging st, size_t bytes, void **host)
{
  PetscFunctionBegin;
  if (st->pending) PetscCallCUDA(cudaEventSynchronize(st->done)); /* in practice long done: the kernel read them */
  st->pending = PETSC_FALSE;
  if (bytes > st->cap) {
    PetscCall(MatBAIJKSPARSEPinnedFree_Private(st->host));
    st->host = NULL;
    st->cap  = 0;
    PetscCall(MatBAIJKSPARSEPinnedAlloc_Private(&st->host, bytes));
    st->cap = bytes;
  }
  *host = st->host;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEStagingUpload_Private(MatBAIJKSPARSEStaging st, size_t bytes, void **d, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(MatBAIJKSPARSEScratchUpload_Private(d, st->host, bytes, stream));
  PetscCallCUDA(cudaEventRecord(st->done, stream));
  st->pending = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEComputeCapability_CUDA(int *major, int *minor)
{
  int dev;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEPCIBusId_CUDA(char *id, int len)
{
  int dev;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetPCIBusId(id, len, dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
