/* Package-wide private declarations of petscblockgpu: log events, registration hooks. */
#pragma once

#include <petscblockgpu.h>

/* The device arrays (block starts, BSR row pointers and column indices) are 32-bit, and the host hands PetscInt arrays to
   the kernels as int: the width is decided here, once. A PETSc with 64-bit indices is refused at compile time. */
#if defined(PETSC_USE_64BIT_INDICES)
  #error "petscblockgpu needs a PETSc configured with 32-bit indices (PETSc's default, not --with-64-bit-indices): its device arrays of block starts and BSR indices are 32-bit"
#endif

/* Kernel namespaces, one rule for every .cu and .cuh of the project: the kernels, device functions and kernel-argument
   types of a component live in pbg::<component> (pbg::gj: the batched Gauss-Jordan of src/sys/cuda/; pbg::vbj: PCVBJACOBI;
   pbg::idrs: KSPIDRS; pbg::baijk: MATBAIJKSPARSE, its conversions and products included; pbg::dense:
   MATSOLVERPBGDENSE). A component's kernels may use pbg::gj, no other component's. The
   launchers that the .c files call stay at global scope with C linkage (PETSC_INTERN, named <Component>..._CUDA); host
   helpers private to one .cu are static or in an anonymous namespace. */

/* Log events (registered in PetscBlockGPUInitializePackage()) */
PETSC_INTERN PetscLogEvent PBG_VBJacobiDetect, PBG_VBJacobiInvert, PBG_VBJacobiApply, PBG_VBJacobiRichardson, PBG_VBJacobiChebyshev;
PETSC_INTERN PetscLogEvent PBG_BAIJKMult, PBG_BAIJKCopyToGPU, PBG_BAIJKCopyFromGPU, PBG_BAIJKValues;
PETSC_INTERN PetscLogEvent PBG_BAIJKCOO;                                      /* MatSetValuesCOO() of baijksparse: the gather of the values */
PETSC_INTERN PetscLogEvent PBG_BAIJKInvertDiag;                               /* MatInvertBlockDiagonal(), MatInvertVariableBlockDiagonal() of baijksparse */
PETSC_INTERN PetscLogEvent PBG_BAIJKConvert;                                  /* MatConvert() between aijcusparse and baijksparse on the device: the value kernels */
PETSC_INTERN PetscLogEvent PBG_BAIJKConvertPattern;                           /* the same conversions: the host's part (the target's pattern, the new matrix, its upload) */
PETSC_INTERN PetscLogEvent PBG_BAIJKProductSymbolic, PBG_BAIJKProductNumeric; /* the blocked products of baijksparse (A P, P^T A P): patterns, values */
PETSC_INTERN PetscLogEvent PBG_BAIJKTranspose;                                /* the explicit transpose of baijksparse: its pattern (host, upload) and the gather of its values (device) */
PETSC_INTERN PetscLogEvent PBG_BAIJKGhost;                                    /* the ghost exchange of the device products of mpibaijksparse (the host's part: launches, or the VecScatter) */
PETSC_INTERN PetscLogEvent PBG_IDRSUpdate, PBG_IDRSReduce;                    /* KSPIDRS's fused kernels: the updates (with their norm), the reductions */

/* Constructors registered by the package */
PETSC_INTERN PetscErrorCode PCCreate_VBJacobi(PC);
PETSC_INTERN PetscErrorCode MatCreate_SeqBAIJKSPARSE(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIBAIJKSPARSE(Mat);
PETSC_INTERN PetscErrorCode MatCreate_BAIJKSPARSE(Mat);
PETSC_INTERN PetscErrorCode KSPCreate_IDRS(KSP);
/* PETSc's "petsc" factorizations of MATSEQBAIJ, wrapped so that a MATSEQBAIJKSPARSE matrix's host copy is current */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSERegisterFactors_Private(void);
/* DMDA matrices of our type keep DMDA's block preallocation (src/dm/da): the DMDA hides the AIJ preallocation of the
   baijksparse matrices it makes, then composes it (src/mat/baijcuda_k/baijksparse_prealloc.c) */
PETSC_INTERN PetscErrorCode DMDABAIJKSPARSERegister_Private(void);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEHideAIJPreallocation_Private(PetscBool);
/* MATSOLVERPBGDENSE (src/mat/solvers/pbgdense.c) registered for MATSEQBAIJKSPARSE */
PETSC_INTERN PetscErrorCode MatPBGDenseRegister_Private(void);
/* KSPCHEBYSHEV's creation wrapped (src/ksp/chebyshev): its first-kind steps run as the PC's fused sweeps where the PC
   offers them (PCApplyChebyshevSweeps_C, composed by PCVBJACOBI) */
PETSC_INTERN PetscErrorCode KSPChebyshevFusedRegister_Private(void);
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEComposeAIJPreallocation_Private(Mat);

/* PETSC_TRUE when a CUDA device can be used by this process (no driver or no device: PETSC_FALSE) */
PETSC_INTERN PetscErrorCode PetscBlockGPUDeviceAvailable(PetscBool *);

/* The PREFIX of `make install` compiled into the installed library (src/sys/buildinfo.c); "" in the build tree */
PETSC_INTERN const char PetscBlockGPUInstallPrefix[];

/* A read-only view of the local rows of a matrix on the device: all that a consumer (PCVBJACOBI) uses of a matrix type of
   this package, got through the composed function PBG_GET_DEVICE_MAT_VIEW. Making the view brings the device copy up to
   date (values and pattern); it chooses no product kernel. The arrays stay valid until the matrix changes its nonzero
   pattern or is destroyed; the values until they change. */
typedef struct {
  PetscMemType       mtype;               /* where the arrays are: PETSC_MEMTYPE_CUDA, or PETSC_MEMTYPE_HOST when the matrix
                                            cannot give a device view (bound to the CPU, no device): arrays NULL */
  PetscDataType      itype;               /* the type of the entries of rowptr and colidx (PETSC_INT32) */
  PetscInt           bs;                  /* block size: bs x bs blocks, column-major (1: CSR) */
  PetscInt           mbs;                 /* local block rows (local rows / bs) */
  PetscInt           nz;                  /* stored blocks of the local diagonal part */
  const void        *rowptr, *colidx;     /* local diagonal part: [mbs + 1], [nz] (local block columns) */
  const PetscScalar *values;              /* [nz * bs * bs] */
  const void        *o_rowptr, *o_colidx; /* pattern of the off-process columns (MPI): NULL when there are none */
} PetscBlockGPUDeviceMatView;
#define PBG_GET_DEVICE_MAT_VIEW "PetscBlockGPUGetDeviceMatView_C" /* PetscErrorCode f(Mat, PetscBlockGPUDeviceMatView *) */

/* b - A_o x on the device, A_o the off-process columns of an MPI matrix of this package and x's ghost values exchanged
   (collective): with the diagonal part of the device view, the residual b - A x of a fused smoother. *rhs is the work
   vector t that holds it, or b itself where the process has no off-process columns, or NULL, on every rank alike,
   where the matrix's products run on the host for these vectors. */
#define PBG_OFF_PROCESS_RHS "PetscBlockGPUOffProcessRhs_C" /* PetscErrorCode f(Mat A, Vec b, Vec x, Vec t, Vec *rhs) */
typedef PetscErrorCode PBGOffProcessRhsFn(Mat A, Vec b, Vec x, Vec t, Vec *rhs);
