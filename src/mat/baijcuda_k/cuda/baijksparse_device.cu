/* The CUDA runtime calls of MATBAIJKSPARSE's host logic: memory, copies, stream and event waits
   (../baijksparse_runtime.h, called only by the device floor ../baijksparse_device.c, which offers the other files
   operations by intent), and the device's identity (../baijksparse_device.h). Thin launchers taking plain pointers, so
   that no .c file of the matrix calls the runtime itself (the same split as src/pc). Each checks its call with
   PetscCallCUDA(). */
#include "../baijksparse_runtime.h"
#include "../baijksparse_device.h"
#include <petscdevice_cuda.h>

PetscErrorCode MatBAIJKSPARSEMalloc_CUDA(void **p, size_t bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc(p, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEFree_CUDA(void *p)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEMallocAsync_CUDA(void **p, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(p, bytes, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEFreeAsync_CUDA(void *p, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFreeAsync(p, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEMallocHost_CUDA(void **p, size_t bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocHost(p, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEFreeHost_CUDA(void *p)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFreeHost(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEMemcpyAsync_CUDA(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEMemsetAsync_CUDA(void *p, int value, size_t bytes, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemsetAsync(p, value, bytes, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEStreamSynchronize_CUDA(cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEEventCreate_CUDA(cudaEvent_t *event, unsigned int flags)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventCreateWithFlags(event, flags));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEEventDestroy_CUDA(cudaEvent_t event)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventDestroy(event));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEEventRecord_CUDA(cudaEvent_t event, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventRecord(event, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEEventSynchronize_CUDA(cudaEvent_t event)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize(event));
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
