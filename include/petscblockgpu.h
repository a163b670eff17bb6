/* petscblockgpu: GPU block preconditioner and block-sparse matrix types for PETSc.

   Load at run time with -dll_append /path/to/libpetscblockgpu.so, or link the library and call
   PetscBlockGPUInitializePackage() after PetscInitialize(). */
#pragma once

#include <petscpc.h>
#include <petscmat.h>
#include <petscksp.h>

#define PETSCBLOCKGPU_VERSION_MAJOR 0
#define PETSCBLOCKGPU_VERSION_MINOR 1

PETSC_EXTERN PetscErrorCode PetscBlockGPUInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscBlockGPUFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscBlockGPUGetBuildInfo(const char **, const char **, const char **);

/* ---------------------------------------------------------------- PCVBJACOBI */
#define PCVBJACOBI "vbjacobi"

/*E
  PCVBJacobiBlocking - where the diagonal blocks of `PCVBJACOBI` come from

  Values:
+ `PC_VBJACOBI_BLOCKING_AUTO`          - variable block sizes of the matrix if set, else supervariables (merged)
. `PC_VBJACOBI_BLOCKING_SUPERVARIABLE` - the paper's supervariable blocking: runs of consecutive rows with identical column
                                         patterns (natural supervariables), adjacent ones merged greedily up to the maximum block size
. `PC_VBJACOBI_BLOCKING_MATRIX`        - the block size of the matrix (`MatSetBlockSize()`, BAIJ)
. `PC_VBJACOBI_BLOCKING_VARIABLE`      - the sizes given with `MatSetVariableBlockSizes()`
- `PC_VBJACOBI_BLOCKING_NATURAL`       - natural supervariables only, cut at the maximum block size, not merged

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetBlocking()`
E*/
typedef enum {
  PC_VBJACOBI_BLOCKING_AUTO,
  PC_VBJACOBI_BLOCKING_SUPERVARIABLE,
  PC_VBJACOBI_BLOCKING_MATRIX,
  PC_VBJACOBI_BLOCKING_VARIABLE,
  PC_VBJACOBI_BLOCKING_NATURAL
} PCVBJacobiBlocking;
PETSC_EXTERN const char *const PCVBJacobiBlockings[];

/*E
  PCVBJacobiSingularPolicy - what `PCVBJACOBI` does with a diagonal block that has a zero or tiny pivot

  Values:
+ `PC_VBJACOBI_SINGULAR_ERROR`    - the setup fails with `PC_SETUP_ERROR` (the KSP reports `KSP_DIVERGED_PC_FAILED`)
- `PC_VBJACOBI_SINGULAR_IDENTITY` - the block's inverse is replaced by the identity and the setup goes on

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetSingularPolicy()`
E*/
typedef enum {
  PC_VBJACOBI_SINGULAR_ERROR,
  PC_VBJACOBI_SINGULAR_IDENTITY
} PCVBJacobiSingularPolicy;
PETSC_EXTERN const char *const PCVBJacobiSingularPolicies[];

/*E
  PCVBJacobiExtraction - how the GPU setup of `PCVBJACOBI` reads a diagonal block out of the sparse matrix

  Values:
+ `PC_VBJACOBI_EXTRACTION_AUTO`   - chosen from the row lengths of the matrix
. `PC_VBJACOBI_EXTRACTION_CACHED` - each thread scans its own row
- `PC_VBJACOBI_EXTRACTION_SHARED` - the (sub-)warp reads each row coalesced into shared memory and takes the block transposed

  Level: advanced

.seealso: `PCVBJACOBI`
E*/
typedef enum {
  PC_VBJACOBI_EXTRACTION_AUTO,
  PC_VBJACOBI_EXTRACTION_CACHED,
  PC_VBJACOBI_EXTRACTION_SHARED
} PCVBJacobiExtraction;
PETSC_EXTERN const char *const PCVBJacobiExtractions[];

/*E
  PCVBJacobiPrecision - the floating-point type in which `PCVBJACOBI` stores the inverses of its diagonal blocks; they
  are always computed in double, and the apply always accumulates in double and leaves the vectors in double

  Values:
+ `PC_VBJACOBI_PRECISION_DOUBLE`   - FP64 (the default)
. `PC_VBJACOBI_PRECISION_SINGLE`   - FP32, each block scaled by a power of two
. `PC_VBJACOBI_PRECISION_HALF`     - IEEE binary16, each block scaled by a power of two (so it never overflows)
- `PC_VBJACOBI_PRECISION_ADAPTIVE` - per block, the lowest of half, single and double whose unit roundoff times the
                                     block's condition estimate ||A||_1 ||A^{-1}||_1 stays below a tolerance

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecision()`, `PCVBJacobiSetPrecisionTolerance()`
E*/
typedef enum {
  PC_VBJACOBI_PRECISION_DOUBLE,
  PC_VBJACOBI_PRECISION_SINGLE,
  PC_VBJACOBI_PRECISION_HALF,
  PC_VBJACOBI_PRECISION_ADAPTIVE
} PCVBJacobiPrecision;
PETSC_EXTERN const char *const PCVBJacobiPrecisions[];

/* Largest diagonal block that PCVBJACOBI inverts (one warp per block on the GPU). */
#define PC_VBJACOBI_MAX_BLOCK_SIZE 32

/* The info of an inversion (PetscBlockGPUInvertBatched()) whose block is finite but whose inverse is not: it overflows */
#define PC_VBJACOBI_INFO_INVERSE_NOT_FINITE (-3)

PETSC_EXTERN PetscErrorCode PCVBJacobiSetMaxBlockSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetMaxBlockSize(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCVBJacobiSetBlocking(PC, PCVBJacobiBlocking);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetBlocking(PC, PCVBJacobiBlocking *);
PETSC_EXTERN PetscErrorCode PCVBJacobiSetSingularPolicy(PC, PCVBJacobiSingularPolicy);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetSingularPolicy(PC, PCVBJacobiSingularPolicy *);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetBlocks(PC, PetscInt *, const PetscInt *[]);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetInverses(PC, const PetscScalar *[]);
PETSC_EXTERN PetscErrorCode PCVBJacobiSetPrecision(PC, PCVBJacobiPrecision);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetPrecision(PC, PCVBJacobiPrecision *);
PETSC_EXTERN PetscErrorCode PCVBJacobiSetPrecisionTolerance(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetPrecisionTolerance(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCVBJacobiGetBlockPrecisions(PC, PetscInt *, const unsigned char *[], PetscInt64 *);

/* Batched inversion of variable-size blocks already on the GPU, by the batched Gauss-Jordan kernels that PCVBJACOBI also
   uses (see its manual page in src/sys/cuda/invert_batched.cu). */
PETSC_EXTERN PetscErrorCode PetscBlockGPUInvertBatched(PetscInt, PetscInt, const PetscInt[], const PetscInt64[], PetscScalar[], PetscInt[]);

/* ---------------------------------------------------------------- MATBAIJKSPARSE */
/* BAIJ whose products run on the GPU (KSPARSE kernels K1/K2/K3, balanced rows, tuning table); options
   -mat_baijksparse_kernel auto|scalar|k1|k2|k3, -mat_baijksparse_balance auto|on|off, -mat_baijksparse_lambda,
   -mat_baijksparse_ept/_warps/_teams/_lanes, -mat_baijksparse_tuning_file (see the MATSEQBAIJKSPARSE manual page) */
#define MATBAIJKSPARSE    "baijksparse"
#define MATSEQBAIJKSPARSE "seqbaijksparse"
#define MATMPIBAIJKSPARSE "mpibaijksparse"

PETSC_EXTERN PetscErrorCode MatBAIJKSPARSEGetTuningTable(PetscInt, size_t, char[], char[], PetscBool *);
PETSC_EXTERN PetscErrorCode MatCreateBAIJKSPARSE(MPI_Comm, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[], Mat *);

/* ---------------------------------------------------------------- MATSOLVERPBGDENSE */
/* The coarse-grid solve on the GPU: an LU factorization of a small MATSEQBAIJKSPARSE matrix that is its explicit
   inverse (cuSOLVER once, one GEMV a solve); -mg_coarse_pc_factor_mat_solver_type pbgdense (see its manual page) */
#define MATSOLVERPBGDENSE "pbgdense"

/* ---------------------------------------------------------------- KSPIDRS */
/* IDR(s) with biorthogonalisation (van Gijzen and Sonneveld, Algorithm 913); options -ksp_idrs_* (see the KSPIDRS manual
   page). PETSc's own KSPIDR ("idr") is left as it is. */
#define KSPIDRS "idrs"

PETSC_EXTERN PetscErrorCode KSPIDRSSetS(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPIDRSGetS(KSP, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPIDRSSetAngle(KSP, PetscReal);
PETSC_EXTERN PetscErrorCode KSPIDRSGetAngle(KSP, PetscReal *);
PETSC_EXTERN PetscErrorCode KSPIDRSSetSmoothing(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPIDRSGetSmoothing(KSP, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPIDRSSetReplacement(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPIDRSGetReplacement(KSP, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPIDRSSetSeed(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPIDRSGetSeed(KSP, PetscInt *);
