/* Private data of PCVBJACOBI, shared between vbjacobi.c (type, options, view, host path) and blocking.c. */
#pragma once

#include <petscblockgpu/private/pbgimpl.h>
#include <petsc/private/pcimpl.h>

typedef struct {
  /* options */
  PetscInt                 max_block_size; /* cap on the size of a block, 1..PC_VBJACOBI_MAX_BLOCK_SIZE */
  PCVBJacobiBlocking       blocking;       /* requested source of the blocks */
  PCVBJacobiSingularPolicy singular;       /* what to do with a singular block */
  PCVBJacobiExtraction     extraction;     /* how the GPU setup reads the blocks */
  PetscBool                use_gpu;        /* set up and apply on the GPU when the Pmat lives there */

  /* blocks of the local diagonal part (rows are local: 0..n) */
  PCVBJacobiBlocking blocking_used;  /* the source the setup took (never AUTO) */
  PetscInt           nblocks;        /* local number of blocks */
  PetscInt          *starts;         /* [nblocks+1] first local row of each block (host copy; see host_starts_valid) */
  PetscBool          host_starts_valid; /* starts holds the blocks of the last detection (the GPU path fills it on demand) */
  PetscInt          *inv_offsets;    /* [nblocks+1] offset of each inverse in inv: sum of k^2 */
  PetscScalar       *inv;            /* inverses, one after the other, each k x k column-major (host) */
  PetscBool          host_inv_valid; /* inv holds the inverses of the last setup (the GPU path fills it on demand) */
  PetscBool          on_device;      /* the last setup ran on the GPU: blocks and inverses live in dev */
  void              *dev;            /* PCVBJacobiDevice of the GPU path (vbjacobicuda.h), NULL before its first use */
  PetscObjectState   nonzerostate;   /* of the Pmat when the blocks were found */
  PetscObjectId      pmat_id;        /* the Pmat object the blocks were found for */
  PetscInt           rows_detected;  /* local rows of the Pmat when the blocks were found */

  /* outcome of the last setup */
  PetscInt       nsingular;      /* local blocks that were singular (replaced by identity under the identity policy) */
  PetscBool      failed;         /* setup failed on some rank (error policy) */
  char           failure[256];   /* what failed, naming the block and its global rows */
  char           setup_where[96]; /* where the setup ran */
  PetscLogDouble time_detect, time_invert;
} PC_VBJacobi;

/* Where the blocks come from: AUTO resolved the same way on every rank (collective). */
PETSC_INTERN PetscErrorCode PCVBJacobiResolveBlocking(PC, PCVBJacobiBlocking *);
/* Host block detection (blocking.c): fills jac->nblocks and jac->starts for the local rows of pmat. */
PETSC_INTERN PetscErrorCode PCVBJacobiDetectBlocks_Host(PC, PCVBJacobiBlocking);
/* Greedy agglomeration of natural blocks (starts[0..nblocks], in place) up to maxbs rows per block. */
PETSC_INTERN PetscErrorCode PCVBJacobiAgglomerate_Host(PetscInt maxbs, PetscInt *nblocks, PetscInt *starts);
/* The block size of the matrix blocking: MatGetBlockSize(), checked against maxbs and the local rows. */
PETSC_INTERN PetscErrorCode PCVBJacobiMatrixBlockSize(Mat, PetscInt maxbs, PetscInt *bs);

/* Gauss-Jordan inversion with implicit pivoting of one n x n column-major block, in place.
   work must hold 2n PetscInts. Returns info = 0 on success, j+1 when the pivot of column j is zero or
   tiny (relative to the largest entry of the block), -1 when the block holds NaN or Inf,
   PC_VBJACOBI_INFO_INVERSE_NOT_FINITE when the block is finite but its inverse is not (it overflows). */
PETSC_INTERN PetscErrorCode PCVBJacobiInvertBlock_Host(PetscInt, PetscScalar *, PetscInt *, PetscInt *);
