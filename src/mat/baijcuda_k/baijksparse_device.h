/* The CUDA runtime as the host logic of MATBAIJKSPARSE uses it (cuda/baijksparse_device.cu): the calls of the same names,
   checked with PetscCallCUDA(), so that no .c file of the matrix calls the runtime itself. Kept apart from
   baijksparsecuda.h, which the emulator tests include with a stub runtime that has no events. */
#pragma once

#include "baijksparsecuda.h"

PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMalloc_CUDA(void **, size_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEFree_CUDA(void *);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMallocAsync_CUDA(void **, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEFreeAsync_CUDA(void *, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMallocHost_CUDA(void **, size_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEFreeHost_CUDA(void *);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMemcpyAsync_CUDA(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMemsetAsync_CUDA(void *, int, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEStreamSynchronize_CUDA(cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEEventCreate_CUDA(cudaEvent_t *, unsigned int);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEEventDestroy_CUDA(cudaEvent_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEEventRecord_CUDA(cudaEvent_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEEventSynchronize_CUDA(cudaEvent_t);
/* The floor's own operations on them (baijksparse_device.c): a kept device array freed (NULL fine), and a new one
   holding n ints uploaded from the host (CpuToGpu bytes added to *bytes when not NULL) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDeviceFree_Private(void *);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEUploadInts_Private(int **, const int *, PetscCount, cudaStream_t, PetscLogDouble *);
/* The compute capability and the PCI bus id of the current device */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEComputeCapability_CUDA(int *major, int *minor);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEPCIBusId_CUDA(char *id, int len);
