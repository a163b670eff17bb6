/* The CUDA runtime as the device floor uses it (cuda/baijksparse_device.cu): the calls of the same names, checked with
   PetscCallCUDA(). Only the floor includes this header: baijksparse_device.c (which builds the operations of
   baijksparse_device.h on them) and cuda/baijksparse_device.cu; every other file asks the floor by intent
   (make check: house_runtime_floor). Kept apart from baijksparsecuda.h, which the emulator tests include with a stub
   runtime that has no events. */
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
