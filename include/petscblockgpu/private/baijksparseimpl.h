/* Private declarations of MATBAIJKSPARSE (MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE), shared between the host
   files src/mat/baijcuda_k/{baijksparse.c,mpibaijksparse.c}, the kernel launchers in src/mat/baijcuda_k/cuda/
   (through baijksparsecuda.h) and PCVBJACOBI (MatBAIJKSPARSEGetDeviceBSR_Private()).

   MATSEQBAIJKSPARSE is MATSEQBAIJ subclassed in place (as MATSEQBAIJMKL does): A->data stays the
   Mat_SeqBAIJ of PETSc, A->ops stay BAIJ's except for the methods saved in Mat_SeqBAIJKSPARSE, and our own
   state hangs on A->spptr (which BAIJ does not use). MATMPIBAIJKSPARSE is MATMPIBAIJ whose diagonal and
   off-diagonal parts are MATSEQBAIJKSPARSE; its state hangs on A->spptr too (Mat_MPIBAIJKSPARSE).

   The BAIJ data is reached through public calls only (MatGetRowIJ() with block compression gives BAIJ's own
   a->i, a->j; MatSeqBAIJGetArray() its a->a): an installed PETSc has no src/mat/impls headers. */
#pragma once

#include <petscblockgpu/private/pbgimpl.h>
#include <petsc/private/matimpl.h>

/* Which kernels MatMult() of a MATSEQBAIJKSPARSE matrix uses. AUTO is only an option value. */
typedef enum {
  MAT_BAIJKSPARSE_KERNEL_AUTO,
  MAT_BAIJKSPARSE_KERNEL_HOST,   /* BAIJ's host kernels: no device, bound to the CPU, or host vectors */
  MAT_BAIJKSPARSE_KERNEL_SCALAR, /* bs = 1: a group of lanes per row (CSR) */
  MAT_BAIJKSPARSE_KERNEL_K1,     /* bs 1..5: truncated (sub-)warps, several whole blocks per load */
  MAT_BAIJKSPARSE_KERNEL_K2,     /* bs 2..45: thread arrays nb x N_tg, ept rows per thread, double buffering */
  MAT_BAIJKSPARSE_KERNEL_K3      /* any bs (meant for bs > 45): 2-D grid, several thread blocks per block row */
} MatBAIJKSPARSEKernel;
PETSC_INTERN const char *const MatBAIJKSPARSEKernels[];      /* names, indexed by MatBAIJKSPARSEKernel */
PETSC_INTERN const char *const MatBAIJKSPARSEKernelOptions[]; /* option values: auto scalar k1 k2 k3 */

typedef enum {
  MAT_BAIJKSPARSE_BALANCE_AUTO,
  MAT_BAIJKSPARSE_BALANCE_ON,
  MAT_BAIJKSPARSE_BALANCE_OFF
} MatBAIJKSPARSEBalance;
PETSC_INTERN const char *const MatBAIJKSPARSEBalances[];

/* Largest block size of K2 (its templates are instantiated for bs 2..45) and of K1 (32 / bs^2 >= 1) */
#define MAT_BAIJKSPARSE_K2_MAX_BS  45
#define MAT_BAIJKSPARSE_K1_MAX_BS  5
#define MAT_BAIJKSPARSE_MAX_EPT    4
#define MAT_BAIJKSPARSE_K2_MAX_TEAMS 15 /* block rows (teams) of one K2 thread block, at most */

/* Launch parameters of one kernel; which fields count depends on the kernel:
   SCALAR: lanes (lanes per row, 2..32, power of 2; 0: from the mean row length), warps (per thread block)
   K1:     ept (1: an element of a block per lane, bs: a column per lane), lanes (per block row: 8, 16 or 32, at least
           the lanes a block takes; 0: from the mean row length), warps (per thread block)
   K2:     ept (rows of a block per thread, 1..4), warps (per block row: the nb x N_tg array, N_tg = ceil(bs/ept),
           nb = floor(32 warps / N_tg)), teams (block rows per thread block, 1..15)
   K3:     ept (rows per lane; a thread block covers 32 ept rows of the blocks, gridDim.y = ceil(bs/(32 ept))),
           warps (per thread block; each warp takes every warps-th block of the block row) */
typedef struct {
  MatBAIJKSPARSEKernel kernel;
  int                  ept, warps, teams, lanes;
} MatBAIJKSPARSEParams;

/* Lanes one block takes in K1: bs^2 with an element per lane, bs with a column per lane (ept = bs) */
static inline int MatBAIJKSPARSEK1LanesPerBlock(const MatBAIJKSPARSEParams *p, int bs)
{
  return p->ept == bs ? bs : bs * bs;
}

/* What the user asked for (options); 0 / AUTO: chosen from the tuning table or the built-in defaults */
typedef struct {
  MatBAIJKSPARSEKernel  kernel;
  PetscInt              ept, warps, teams, lanes;
  MatBAIJKSPARSEBalance balance;
  PetscInt              lambda; /* longest segment of a balanced row, in blocks (0: automatic) */
  PetscBool             read;   /* the options database has been read */
} MatBAIJKSPARSEOptions;

/* The device copy of a MATSEQBAIJKSPARSE matrix: BSR, 32-bit indices, bs x bs blocks column-major (BAIJ's
   layout), and the segment arrays of balanced rows. Work items are block rows, or with balancing segments:
   segment s holds blocks [segptr[s], segptr[s+1]); segrow[s] >= 0 is the block row it completes, written
   directly; segrow[s] = -(slot + 1) sends its partial result to work[slot * bs ...]. Split row t
   (splitrow[t]) sums slots splitslot[t] .. splitslot[t+1]-1 in the reduction kernel. */
typedef struct {
  int          bs, mbs, nbs, nz;
  int         *rowptr, *colidx;
  PetscScalar *val;
  size_t       cap_rows, cap_nz; /* allocated lengths of rowptr (block rows + 1) and colidx (blocks) */
  int          cap_bs;           /* block size val was allocated for (cap_nz blocks of cap_bs^2) */
  /* balanced rows */
  PetscBool    balanced;
  int          lambda, nseg, nsplit, nslots, maxlen;
  int         *segptr, *segrow, *splitrow, *splitslot;
  PetscScalar *work;
  size_t       cap_seg, cap_split, cap_work;
  /* what the copy holds */
  PetscObjectState     state, nzstate;   /* of the Mat when copied */
  PetscBool            pattern_valid;    /* rowptr/colidx/segments match nzstate */
  MatBAIJKSPARSEParams params;           /* kernel chosen for this pattern */
  PetscInt             cfg_balance, cfg_lambda, cfg_kernel, cfg_ept, cfg_warps, cfg_teams, cfg_lanes;
  PetscInt             ncopies;          /* value uploads, for -mat_view */
} MatBAIJKSPARSEDevice;

/* State of a MATSEQBAIJKSPARSE matrix (A->spptr). Each saved method is BAIJ's, taken when the matrix was
   converted, called by our overrides and put back by MatConvert_SeqBAIJKSPARSE_SeqBAIJ(). */
typedef struct {
  PetscErrorCode (*destroy)(Mat);
  PetscErrorCode (*axpy)(Mat, PetscScalar, Mat, MatStructure);
  PetscErrorCode (*duplicate)(Mat, MatDuplicateOption, Mat *);
  PetscErrorCode (*view)(Mat, PetscViewer);
  PetscErrorCode (*convertfrom)(Mat, MatType, MatReuse, Mat *);
  PetscErrorCode (*mult)(Mat, Vec, Vec);
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*assemblyend)(Mat, MatAssemblyType);
  PetscErrorCode (*setvalues)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
  PetscErrorCode (*setvaluesblocked)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems);
  PetscErrorCode (*bindtocpu)(Mat, PetscBool);
  /* MATSEQBAIJ's "MatSeqBAIJSetPreallocation_C", which ours wraps (BAIJ picks bs-specific products there) */
  PetscErrorCode (*setpreallocation)(Mat, PetscInt, PetscInt, const PetscInt[]);
  MatBAIJKSPARSEKernel  kernel; /* what MatMult() ran last (HOST before the first product) */
  MatBAIJKSPARSEOptions opts;
  MatBAIJKSPARSEDevice *dev;    /* NULL until the first device use */
} Mat_SeqBAIJKSPARSE;

/* State of a MATMPIBAIJKSPARSE matrix (A->spptr); same convention as Mat_SeqBAIJKSPARSE. The ghost values of
   the device products go through our own scatter (Mvctx) into our own CUDA vector (lvec), built from the
   garray of MPIBAIJ, because MPIBAIJ's lvec and Mvctx are in its private struct. */
typedef struct {
  PetscErrorCode (*destroy)(Mat);
  PetscErrorCode (*axpy)(Mat, PetscScalar, Mat, MatStructure);
  PetscErrorCode (*view)(Mat, PetscViewer);
  PetscErrorCode (*assemblyend)(Mat, MatAssemblyType);
  PetscErrorCode (*convertfrom)(Mat, MatType, MatReuse, Mat *);
  PetscErrorCode (*mult)(Mat, Vec, Vec);
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems);
  PetscErrorCode (*bindtocpu)(Mat, PetscBool);
  /* MATMPIBAIJ's "MatMPIBAIJSetPreallocation_C", which ours wraps */
  PetscErrorCode (*setpreallocation)(Mat, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[]);
  MatBAIJKSPARSEOptions opts;     /* pushed into the parts */
  Vec                   lvec;     /* ghost values (VECSEQCUDA) */
  VecScatter            Mvctx;    /* x -> lvec */
  PetscObjectState      nzstate;  /* of the Mat when lvec/Mvctx were built */
  PetscInt              nghost;   /* ghost block columns */
  PetscInt             *garray;   /* their global block columns, when lvec/Mvctx were built */
} Mat_MPIBAIJKSPARSE;

/* Block-row statistics of the local rows of a BAIJ matrix (the union of a diagonal and an off-diagonal part
   for MPI): printed by MatView() with PETSC_VIEWER_ASCII_INFO, and the input of row balancing. */
typedef struct {
  PetscInt bs;
  PetscInt mbs;       /* block rows */
  PetscInt nblocks;   /* stored (nonzero) blocks */
  PetscInt minblocks; /* fewest blocks in a block row (PETSC_INT_MAX when mbs == 0) */
  PetscInt maxblocks; /* most blocks in a block row */
  PetscInt nempty;    /* block rows without blocks */
} MatBAIJKSPARSEStats;

/* In-place subclassing: MATSEQBAIJ <-> MATSEQBAIJKSPARSE, MATMPIBAIJ <-> MATMPIBAIJKSPARSE. Each handles
   MAT_INITIAL_MATRIX (duplicate first), MAT_REUSE_MATRIX (copy values into *newmat, same nonzero pattern) and
   MAT_INPLACE_MATRIX (the object pointer is kept). */
PETSC_INTERN PetscErrorCode MatConvert_SeqBAIJ_SeqBAIJKSPARSE(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_SeqBAIJKSPARSE_SeqBAIJ(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIBAIJ_MPIBAIJKSPARSE(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIBAIJKSPARSE_MPIBAIJ(Mat, MatType, MatReuse, Mat *);

/* Converter from any matrix that MatConvert() can turn into MATSEQBAIJ / MATMPIBAIJ (aij, baij, ...): it goes
   through BAIJ (keeping the block size of the input) and then subclasses in place. Composed as
   "MatConvert_{seqaij,seqbaij}_seqbaijksparse_C", "MatConvert_{mpiaij,mpibaij}_mpibaijksparse_C" and set as
   ops->convertfrom on every baijksparse matrix, so that MatConvert(X, MATBAIJKSPARSE, ...) finds it. */
PETSC_INTERN PetscErrorCode MatConvert_Any_BAIJKSPARSE(Mat, MatType, MatReuse, Mat *);

/* The diagonal and off-diagonal parts of a MATMPIBAIJ or MATMPIBAIJKSPARSE matrix (either may be NULL before
   preallocation). PETSc's MatMPIBAIJGetSeqBAIJ() accepts only the exact type name MATMPIBAIJ. */
PETSC_INTERN PetscErrorCode MatMPIBAIJKSPARSEGetSeqBAIJ_Private(Mat, Mat *, Mat *, const PetscInt *[]);

/* Statistics of the block rows of the local part: Ad (seq BAIJ) plus, if not NULL, Ao (same block rows) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGetStats_Private(Mat, Mat, MatBAIJKSPARSEStats *);
/* Prints the statistics (called on every rank, prints through the viewer) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEViewStats_Private(PetscViewer, const MatBAIJKSPARSEStats *);
/* Prints which kernels MatMult() of the MATSEQBAIJKSPARSE matrix A uses (or would use), with their parameters;
   what names the part ("" for a sequential matrix, "diagonal part: " ...) */
PETSC_INTERN PetscErrorCode MatSeqBAIJKSPARSEViewKernel_Private(Mat, PetscViewer, const char *);

/* Options of MATBAIJKSPARSE: read from the database (PetscOptionsObject NULL: quietly, without -help text) */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEOptionsRead_Private(Mat, PetscOptionItems, MatBAIJKSPARSEOptions *);
/* Gives the MATSEQBAIJKSPARSE matrix A the options opts (the MPI type pushes its own into its parts) */
PETSC_INTERN PetscErrorCode MatSeqBAIJKSPARSESetOptions_Private(Mat, const MatBAIJKSPARSEOptions *);
/* Whether products of A run on the device: a device is present and A is not bound to the CPU */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEUseDevice_Private(Mat, PetscBool *);
/* Host -> device copy of a MATSEQBAIJKSPARSE matrix when the host is newer (A->offloadmask, object state) */
PETSC_INTERN PetscErrorCode MatSeqBAIJKSPARSECopyToGPU(Mat);

/* The device BSR of a MATSEQBAIJKSPARSE matrix (copied first if the host is newer): bs, block rows, and device
   pointers to rowptr [mbs+1], colidx [nz] (32-bit) and the values (nz blocks of bs x bs, column-major). The
   pointers stay valid until the matrix changes its nonzero pattern or is destroyed; the values are read-only. */
PETSC_INTERN PetscErrorCode MatBAIJKSPARSEGetDeviceBSR_Private(Mat, PetscInt *, PetscInt *, const int **, const int **, const PetscScalar **);
/* Makes the kernel choice of an assembled seqbaijksparse (or part) on any path: refuses options and tuning tables the GPU
   path would refuse */
PETSC_INTERN PetscErrorCode MatSeqBAIJKSPARSECheckOptions_Private(Mat);
