/* Package-wide private declarations of petscblockgpu: log events, registration hooks. */
#pragma once

#include <petscblockgpu.h>

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
