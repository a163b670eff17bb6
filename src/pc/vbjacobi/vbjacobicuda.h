/* Device side of PCVBJACOBI: what vbjacobi.c (host logic) asks of src/pc/vbjacobi/cuda/vbjacobi_{blocks,cuda}.cu.
   All pointers named d_* are device pointers; every routine runs on PETSc's default CUDA stream
   (PetscGetCurrentCUDAStream) and returns with its results ready for that stream. */
#pragma once

#include <../src/pc/vbjacobi/vbjacobiimpl.h>

/* The local rows of the Pmat as the device holds them, with 32-bit indices (as cuSPARSE and baijksparse
   store them). bs = 1: CSR of a seqaijcusparse (or the diagonal part of an mpiaijcusparse). bs > 1: BSR
   of a baijksparse, blocks of bs x bs column-major (PETSc's layout), rowptr/colidx counting block rows
   and block columns. Column indices are local to the diagonal part. The o_* arrays give the pattern of
   the off-diagonal part of an MPI matrix (same bs, compressed column numbering), NULL when there is none:
   supervariable detection compares whole rows, as the host path does. */
typedef struct {
  PetscInt           nrows; /* scalar rows (= scalar columns of the diagonal part) */
  PetscInt           bs;
  const int         *d_rowptr, *d_colidx;
  const PetscScalar *d_values;
  const int         *d_o_rowptr, *d_o_colidx;
  PetscReal          mean_row_len; /* stored entries per row of the diagonal part (host-known; picks AUTO extraction) */
  PetscInt64         nvalues;      /* stored entries of the diagonal part */
} PCVBJacobiDeviceMat;

/* The Pmat's local rows as device arrays when it lives on the GPU and a GPU can be used (vbjacobi.c) */
PETSC_INTERN PetscErrorCode PCVBJacobiGetDeviceMat_Private(PC, PCVBJacobiDeviceMat *, PetscBool *usable);

/* Width classes of the setup: blocks of k rows are inverted by sub-warps of P = 1, 2, 4, 8, 16 or 32 lanes */
#define PC_VBJACOBI_NUM_WIDTH_CLASSES 6

/* The device copies of a PCVBJacobiBlocks (its masks say which are current), and the work space of the device setup. */
struct _n_PCVBJacobiDevice {
  PetscInt       class_count[PC_VBJACOBI_NUM_WIDTH_CLASSES]; /* blocks of each width class c: sub-warp P = 2^c lanes,
                                                   k in (P/2, P] (class 0: k = 1); set with the device starts */
  int           *d_class_perm;                               /* [nblocks] block ids sorted by size, so grouped by width class; within a size in
                                                   ascending runs (the setup's work order only) */
  size_t         cap_class_perm;                             /* its allocated length */
  PetscInt      *d_starts;                                   /* [nblocks+1] first local row of each block */
  PetscInt64    *d_inv_offsets;                              /* [nblocks+1] offset of each inverse in d_inv (sum of k^2); current with d_starts */
  PetscScalar   *d_inv;                                      /* inverses, each k x k column-major, one after the other, in FP64 slots that
                                                   hold any storage (PCVBJacobiBlocks.precision says which) */
  unsigned char *d_prec;                                     /* [nblocks] the type of each block under ADAPTIVE storage */
  /* ADAPTIVE storage grouped by type for the apply (vbjacobi_cuda.cu, BuildGroupedInverses(): ApplyGroupedKernel reads
     each group in its own type), rebuilt whenever the device inverses change */
  int                 *d_group_order;       /* [nblocks] block ids: the half blocks, then the single, then the double */
  PetscInt64          *d_group_entry;       /* [nblocks+1] exclusive sum of k^2 in that order */
  size_t               cap_group;           /* allocated blocks of both */
  char                *d_grouped;           /* the inverses in that order, each group compact in its type */
  size_t               cap_grouped;         /* its bytes */
  void                *d_group_meta;        /* counters and group bounds of the build */
  PetscInt             group_first[4];      /* positions of the groups (half, single, double, end) */
  PetscInt64           group_entry0[3];     /* d_group_entry at group_first[g] */
  size_t               group_base[3];       /* byte offset of each group in d_grouped */
  PetscBool            grouped_valid;       /* built from the current device inverses */
  short               *d_sexp;              /* [nblocks] the scale exponent of each block under reduced storage */
  size_t               cap_meta;            /* allocated entries of d_prec and d_sexp */
  PetscInt            *d_info;              /* [nblocks] 0, pivot column + 1, or -1 (NaN/Inf), as the host path */
  int                 *d_outcome;           /* [3 + 2*33] first failing block, blocks replaced, blocks stored wider, then the size-sort counters;
                                                   reused by every setup */
  size_t               cap_blocks, cap_inv; /* allocated lengths, so a new setup reuses memory */
  void                *d_scratch;           /* work space of the block detection (vbjacobi_blocks.cu), kept for the next one */
  size_t               cap_scratch;         /* its bytes */
  PCVBJacobiExtraction extraction_used;     /* of the last device setup, never AUTO */
  char                 kernel[256];         /* the setup kernel that ran, for -pc_view */
};

/* The ways blocks reach the device. The two device sources set the sizes of the blocks object (nblocks, maxk, inv_len,
   setup_flops) and write the device starts and offsets, marking them the current copy (GPU; the inverses UNALLOCATED):
   no O(n) work or transfer on the host; the host gets the starts when it asks (PCVBJacobiBlocksGetHostStarts()).

   Supervariable detection: runs of consecutive rows with identical column patterns (whole rows, off-diagonal
   pattern included), cut greedily into chunks of at most maxbs rows (natural supervariables); with mergebs > 0,
   adjacent chunks then merged greedily while the merged block has at most mergebs rows (the paper's blocking; a chunk
   larger than mergebs stays as it is). Exactly the blocks of the host path. One synchronization, to read the block
   count and sizes. maxbs = 1 needs no detection (every row is a block). */
PETSC_INTERN PetscErrorCode PCVBJacobiDetectSupervariables_CUDA(const PCVBJacobiDeviceMat *, PetscInt maxbs, PetscInt mergebs, PCVBJacobiBlocks *);

/* Blocks of bs rows each (matrix blocking, bs dividing nrows): made on the device, no synchronization. */
PETSC_INTERN PetscErrorCode PCVBJacobiSetUniformBlocks_CUDA(PetscInt nrows, PetscInt bs, PCVBJacobiBlocks *);

/* Brings the device starts and offsets up to date from the host starts (blocks found on the host, variable blocking,
   or a host setup followed by a device apply): nothing when they are current, else one copy of the starts, no
   synchronization. */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksSyncStartsToDevice_CUDA(PCVBJacobiBlocks *);

/* offsets[0..nblocks] = the exclusive sum of k^2 over the blocks order[0..nblocks) (0..nblocks with NULL order), from
   the device starts, which must be current: the entry offsets of their inverses packed in that order. Queued on the
   stream, no synchronization; the scan's temporary storage is the device's scratch. */
PETSC_INTERN PetscErrorCode PCVBJacobiEntryOffsets_CUDA(PCVBJacobiDevice *, PetscInt nblocks, const int *order, PetscInt64 *offsets);

/* Brings the device inverses up to date from the host ones (a host setup followed by a device apply): nothing when they
   are current, else one copy. */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksSyncInversesToDevice_CUDA(PCVBJacobiBlocks *);

/* h_starts[0..count) = device starts [first..first+count), which must be current; marks nothing */
PETSC_INTERN PetscErrorCode PCVBJacobiCopyStartsToHost_CUDA(const PCVBJacobiBlocks *, PetscInt first, PetscInt count, PetscInt *h_starts);

/* h_inv = the device inverses as stored (the bytes of their storage), h_prec[0..nblocks) and h_sexp[0..nblocks) their types
   (ADAPTIVE) and scales (reduced storage); the device copy must be current; marks nothing */
PETSC_INTERN PetscErrorCode PCVBJacobiCopyInversesToHost_CUDA(const PCVBJacobiBlocks *, PetscScalar *h_inv, unsigned char *h_prec, short *h_sexp);

/* Merged setup: extraction of each diagonal block from A, Gauss-Jordan inversion with implicit pivoting and
   insertion of the inverse, one launch per size class, into the device inverses, which it marks current (GPU). The
   device starts must be current. Under PC_VBJACOBI_SINGULAR_IDENTITY a singular block (info > 0) is stored as the
   identity (NaN/Inf blocks are always failures). Returns the number of such replaced blocks, and the first failing
   block (-1 when none) with its info. extraction AUTO picks from the row lengths. The inverses are stored as precision
   says (vbjacobiprec.h: per block under ADAPTIVE, from the condition estimate, against tol). */
PETSC_INTERN PetscErrorCode PCVBJacobiSetup_CUDA(const PCVBJacobiDeviceMat *, PCVBJacobiExtraction, PCVBJacobiSingularPolicy, PCVBJacobiPrecision, PetscReal tol, PCVBJacobiBlocks *, PetscInt *nsingular, PetscInt *bad_block, PetscInt *bad_info);

/* y = D^{-1} x, or D^{-T} x when transpose, with x and y device arrays of the local rows; the device starts and
   inverses must be current. Reads the stored type, accumulates in FP64. */
PETSC_INTERN PetscErrorCode PCVBJacobiApply_CUDA(const PCVBJacobiBlocks *, const PetscScalar *d_x, PetscScalar *d_y, PetscBool transpose);

/* One damped block Jacobi sweep fused with the residual (cuda/vbjacobi_richardson.cu), for blocks that are the BSR
   blocks of A (bs = A->bs, PC_VBJACOBI_RICHARDSON_MIN_BS..PC_VBJACOBI_RICHARDSON_MAX_BS: where the fused sweep beat the
   unfused one; at bs 1 and 8 it did not: doc/benchmarks.md) with FP64 inverses current on the device:
   ynew = yold + damping D^{-1} (b - A yold) (yold NULL: a zero guess, ynew = damping D^{-1} b), and with yprev (a
   Chebyshev step) ynew = weight (that) + (1 - weight) yprev. ynew must not alias yold; it may be yprev. A warp a block
   row reads the row's blocks and the gathered yold once, then applies the row's inverse. val32: A's values in single
   precision (PCVBJacobiSweepValuesSingle_CUDA()) read in place of A's own; the sums are in double either way. lanes: 8,
   16 or 32 lanes a block row, or 0 (chosen from the mean row length). */
#define PC_VBJACOBI_RICHARDSON_MIN_BS 2
#define PC_VBJACOBI_RICHARDSON_MAX_BS 6
PETSC_INTERN PetscErrorCode PCVBJacobiRichardsonSweep_CUDA(const PCVBJacobiDeviceMat *, const float *val32, PetscInt lanes, const PCVBJacobiBlocks *, PetscReal damping, PetscReal weight, const PetscScalar *b, const PetscScalar *yold, const PetscScalar *yprev, PetscScalar *ynew);
/* sv->d_val = A's values rounded to single precision (allocated as needed), and its free */
PETSC_INTERN PetscErrorCode PCVBJacobiSweepValuesSingle_CUDA(const PCVBJacobiDeviceMat *, PCVBJacobiSweepValues *sv);
PETSC_INTERN PetscErrorCode PCVBJacobiSweepValuesFree_CUDA(PCVBJacobiSweepValues *sv);

/* The apply kernel for these blocks, for -pc_view */
PETSC_INTERN PetscErrorCode PCVBJacobiApplyKernelName_CUDA(const PCVBJacobiBlocks *, char *name, size_t len);

/* Frees the device copies (blocks->dev itself too); the caller marks the masks */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksDestroyDevice_CUDA(PCVBJacobiBlocks *);
