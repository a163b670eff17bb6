/* Package-wide private declarations of petscblockgpu: log events, registration hooks. */
#pragma once

#include <petscblockgpu.h>

/* The device arrays (block starts, BSR row pointers and column indices) are 32-bit, and the host hands PetscInt arrays to
   the kernels as int: the width is decided here, once. A PETSc with 64-bit indices is refused at compile time. */
#if defined(PETSC_USE_64BIT_INDICES)
  #error "petscblockgpu needs a PETSc configured with 32-bit indices (PETSc's default, not --with-64-bit-indices): its device arrays of block starts and BSR indices are 32-bit"
#endif

/* Log events (registered in PetscBlockGPUInitializePackage()) */
PETSC_INTERN PetscLogEvent PBG_VBJacobiDetect, PBG_VBJacobiInvert, PBG_VBJacobiApply;
PETSC_INTERN PetscLogEvent PBG_BAIJKMult, PBG_BAIJKCopyToGPU, PBG_BAIJKCopyFromGPU, PBG_BAIJKValues;

/* Constructors registered by the package */
PETSC_INTERN PetscErrorCode PCCreate_VBJacobi(PC);
PETSC_INTERN PetscErrorCode MatCreate_SeqBAIJKSPARSE(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIBAIJKSPARSE(Mat);
PETSC_INTERN PetscErrorCode MatCreate_BAIJKSPARSE(Mat);

/* PETSC_TRUE when a CUDA device can be used by this process (no driver or no device: PETSC_FALSE) */
PETSC_INTERN PetscErrorCode PetscBlockGPUDeviceAvailable(PetscBool *);
