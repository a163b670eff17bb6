/* Device detection shared by the PC and Mat types (a CUDA runtime query: it lives with the CUDA sources). */
#include <petscblockgpu/private/pbgimpl.h>
#include <cuda_runtime_api.h>

/* Whether this process can use a CUDA device. A machine with no driver or no device answers PETSC_FALSE
   (never an error), so that host paths run there. The answer is cached: the CUDA runtime's own is too. */
PetscErrorCode PetscBlockGPUDeviceAvailable(PetscBool *available)
{
  static int known = -1;

  PetscFunctionBegin;
  if (known < 0) {
    int         count = 0;
    cudaError_t err   = cudaGetDeviceCount(&count);

    if (err != cudaSuccess) (void)cudaGetLastError(); /* clear the sticky "no driver" status */
    known = (err == cudaSuccess && count > 0) ? 1 : 0;
  }
  *available = known ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
