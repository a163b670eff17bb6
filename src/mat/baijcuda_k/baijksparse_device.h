/* The device floor's memory operations, named for what the host logic of MATBAIJKSPARSE means by them (each one or two
   CUDA runtime calls in cuda/baijksparse_device.cu; baijksparse_device.c builds its copies on them). Sizes are in
   bytes; every operation is queued on the stream it is given (PETSc's current CUDA stream) and returns without waiting,
   unless it says otherwise. None skips a zero size: the callers keep their own guards. None logs the traffic: the
   callers log it (PetscLogCpuToGpu(), PetscLogGpuToCpu()) as they count it. */
#pragma once

#include "baijksparsecuda.h"

/* Kept device arrays, owned by a struct until its destroy (cudaMalloc, not stream-ordered): allocated; freed (NULL is
   fine); a device-to-device copy and a zero fill on the stream (also for other device memory: a vector's entries) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDeviceAlloc_Private(void **, size_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDeviceFree_Private(void *);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDeviceCopy_Private(void *, const void *, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDeviceZero_Private(void *, size_t, cudaStream_t);
/* Host <-> device. Upload: host to an existing device array; from pageable memory the copy has left the host array when
   it returns, from pinned memory only after MatBAIJKSPARSEDeviceWait_Private(). Download: device to host, returning
   once the host array holds the data. DownloadAsync: the same copy only queued, so that several copies (and releases of
   scratch) share one wait; the host array holds the data after MatBAIJKSPARSEDeviceWait_Private(). DeviceWait: the host
   waits for everything queued on the stream. */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEUpload_Private(void *, const void *, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDownload_Private(void *, const void *, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDownloadAsync_Private(void *, const void *, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEDeviceWait_Private(cudaStream_t);
/* A new kept array holding n ints uploaded from the host (CpuToGpu bytes added to *bytes when not NULL; from pageable
   memory the copy has left the host array when it returns) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEUploadInts_Private(int **, const int *, PetscCount, cudaStream_t, PetscLogDouble *);
/* Scratch for one operation, stream-ordered (cudaMallocAsync): got (uninitialised, or zero-filled), got holding an
   upload from the host, released on the stream after the work queued before it (NULL is fine) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEScratchGet_Private(void **, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEScratchGetZeroed_Private(void **, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEScratchUpload_Private(void **, const void *, size_t, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEScratchRelease_Private(void *, cudaStream_t);
/* Pinned (page-locked) host memory, so that copies from the device run at full speed: allocated, freed (NULL is fine) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEPinnedAlloc_Private(void **, size_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEPinnedFree_Private(void *);
/* A pinned host staging buffer, reused, for uploads that must not hold the caller: Get gives room for a size, once the
   previous upload from it has finished; Upload sends that many bytes of it into new scratch (release it with
   MatBAIJKSPARSEScratchRelease_Private()) by one asynchronous copy, whose end the staging remembers; Destroy waits for
   it */
typedef struct _n_MatBAIJKSPARSEStaging *MatBAIJKSPARSEStaging;
PETSC_INTERN PetscErrorCode              MatBAIJKSPARSEStagingCreate_Private(MatBAIJKSPARSEStaging *);
PETSC_INTERN PetscErrorCode              MatBAIJKSPARSEStagingDestroy_Private(MatBAIJKSPARSEStaging *);
PETSC_INTERN PetscErrorCode              MatBAIJKSPARSEStagingGet_Private(MatBAIJKSPARSEStaging, size_t, void **);
PETSC_INTERN PetscErrorCode              MatBAIJKSPARSEStagingUpload_Private(MatBAIJKSPARSEStaging, size_t, void **, cudaStream_t);
/* The compute capability and the PCI bus id of the current device */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEComputeCapability_CUDA(int *major, int *minor);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEPCIBusId_CUDA(char *id, int len);
