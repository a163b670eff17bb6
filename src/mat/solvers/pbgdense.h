/* The dense coarse-grid solver MATSOLVERPBGDENSE (pbgdense.c): the device part (cuda/pbgdense.cu). The factor holds the
   explicit inverse of the matrix, n x n column-major, so that a solve is one GEMV. */
#pragma once

#include <petscmat.h>
#include <petscblockgpu/private/pbgimpl.h>

/* Device work of one factorization, kept with the factor: pivots, cuSOLVER's workspace, its info, an n x n buffer */
typedef struct _n_PBGDenseWork *PBGDenseWork;

/* The dense column-major a[n x n] of the BSR matrix (bs, mbs block rows, nz blocks of bs x bs, column-major in a block,
   32-bit indices) on the device: zeros, then every stored entry */
/* dst = src, n x n, device to device */
PETSC_INTERN PetscErrorCode PBGDenseCopy_CUDA(PetscInt n, const PetscScalar *src, PetscScalar *dst);
PETSC_INTERN PetscErrorCode PBGDenseFromBSR_CUDA(PetscInt bs, PetscInt mbs, PetscInt nz, const int *rowptr, const int *colidx, const PetscScalar *val, PetscScalar *a);
/* a[n x n] (device) replaced by its inverse: LU with partial pivoting (cuSOLVER getrf), then the solve of the identity
   (getrs). *zero_pivot_row: -1, or the first row whose pivot is exactly zero (a is then left factored, not inverted).
   The work is made on the first call and kept in *work; it is remade when n grows. */
PETSC_INTERN PetscErrorCode PBGDenseInvert_CUDA(PetscInt n, PetscScalar *a, PBGDenseWork *work, PetscInt *zero_pivot_row);
PETSC_INTERN PetscErrorCode PBGDenseWorkDestroy_CUDA(PBGDenseWork *);
/* y = op(inv) x with op the identity or the transpose (one GEMV), or Y = op(inv) X for nrhs columns (one GEMM); device */
PETSC_INTERN PetscErrorCode PBGDenseApply_CUDA(PetscInt n, const PetscScalar *inv, PetscBool trans, PetscInt nrhs, const PetscScalar *x, PetscInt ldx, PetscScalar *y, PetscInt ldy);
