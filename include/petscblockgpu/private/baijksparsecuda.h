/* What the host logic of MATSEQBAIJKSPARSE (src/mat/baijcuda_k/baijksparse.c) asks of its kernels
   (the .cu files of src/mat/baijcuda_k/cuda). Every launcher runs on the stream it is given (PETSc's current CUDA stream)
   and returns without synchronising; they check their launch with cudaGetLastError(). */
#pragma once

#include <petscblockgpu/private/baijksparseimpl.h>
#include <cuda_runtime_api.h>

/* One product y = A x (+ z) of a MATSEQBAIJKSPARSE matrix. Work items are block rows (segptr == NULL) or segments
   of balanced rows (see MatBAIJKSPARSEDevice). z may be NULL (y = A x) and may equal y. */
typedef struct {
  int                bs, mbs, nwork;
  const int         *rowptr, *colidx;
  const int         *segptr, *segrow;
  const PetscScalar *val, *x, *z;
  PetscScalar       *y, *work;
} MatBAIJKSPARSEMultArgs;

/* Checks that the parameters can be launched for block size bs (and, when msg is not NULL, says why not) */
PETSC_INTERN PetscBool MatBAIJKSPARSEParamsValid(const MatBAIJKSPARSEParams *, int bs, char *msg, size_t len);

/* y (+)= A x with the kernel and parameters p */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMult_CUDA(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t);
/* Combines the partial results of split rows: y[row] = sum of its slots (+ z[row]) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEReduce_CUDA(int bs, int nsplit, const int *splitrow, const int *splitslot, const PetscScalar *work, const PetscScalar *z, PetscScalar *y, cudaStream_t);
/* y += A^T x by atomicAdd (y already holds 0 or z); x has mbs*bs entries, y nbs*bs */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMultTransposeAtomic_CUDA(int bs, int mbs, const int *rowptr, const int *colidx, const PetscScalar *val, const PetscScalar *x, PetscScalar *y, cudaStream_t);

/* Launchers of the K2 instances, split over two files to build in parallel: bs 2..23 and 24..45 */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMultK2Lo_CUDA(const MatBAIJKSPARSEParams *, const MatBAIJKSPARSEMultArgs *, cudaStream_t);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEMultK2Hi_CUDA(const MatBAIJKSPARSEParams *, const MatBAIJKSPARSEMultArgs *, cudaStream_t);
#define MAT_BAIJKSPARSE_K2_LO_MAX_BS 23
