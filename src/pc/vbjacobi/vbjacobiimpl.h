/* Private data of PCVBJACOBI, shared between vbjacobi.c (type, options, view, host path) and blocking.c. */
#pragma once

#include <petscblockgpu/private/pbgimpl.h>
#include <petsc/private/pcimpl.h>
#include <../src/pc/vbjacobi/vbjacobiprec.h>

/* Default tolerance of -pc_vbjacobi_precision adaptive: a block goes to half when cond * 2^-11 < tol, to single when
   cond * 2^-24 < tol. With tol = 0.1 (Ginkgo's default accuracy): half for cond < 205, single for cond < 1.7e6. The
   stored inverse is then off by a relative u per entry, so the preconditioned diagonal block, I + E, has
   ||E||_1 <~ u cond < tol: its distance from the identity stays below 10%, a change a Krylov method barely sees; on
   the paper's matrices 0.1 keeps the iterations of double, and a smaller tolerance buys nothing (measured:
   doc/benchmarks.md, "Measurements behind design choices"). */
#define PC_VBJACOBI_PRECISION_TOL_DEFAULT 0.1

/* A single-precision copy of the matrix's values (the diagonal part), read by the fused sweeps instead of the matrix's
   own under -pc_vbjacobi_sweep_precision single (richardson.c says when it is made again) */
typedef struct {
  float             *d_val;
  size_t             cap; /* its allocated length */
  const PetscScalar *src; /* the device values it was made from */
  PetscObjectId      id;  /* the matrix, and its state then */
  PetscObjectState   state;
} PCVBJacobiSweepValues;

/* Device copies of the blocks and the work space of the device setup (vbjacobicuda.h) */
typedef struct _n_PCVBJacobiDevice PCVBJacobiDevice;

/* The blocks of the local diagonal part (local rows 0..n) and their inverses: one object, in which each array has one
   offload mask saying which copy is current: PETSC_OFFLOAD_UNALLOCATED (none: not made yet), CPU, GPU or BOTH.
   Whatever writes a copy marks it: host copies are written through blocks.c (found blocks, the host setup's inverses,
   copies from the device), device copies in cuda/ (device detection and setup, copies from the host). The accessors
   bring the other copy up to date when it is asked for, once:
   a GPU setup moves no O(n) data to the host until the host apply, -pc_view or PCVBJacobiGetBlocks/Inverses() asks,
   and a host setup none to the device until a device apply. The sizes are host scalars, known after any setup. */
typedef struct {
  PetscInt            nblocks;       /* local blocks */
  PetscInt            maxk;          /* the largest block */
  PetscInt64          inv_len;       /* entries of the inverses: sum of k^2 */
  PetscLogDouble      setup_flops;   /* 2 k^3 summed over the blocks */
  PetscOffloadMask    starts_mask;   /* of starts[0..nblocks]: the first local row of each block, then n */
  PetscOffloadMask    offsets_mask;  /* of inv_offsets[0..nblocks]: where each inverse begins (sum of k^2 before it) */
  PetscOffloadMask    inv_mask;      /* of inv[0..inv_len) with prec[] and sexp[]: the inverses in block order, each k x k
                                     column-major, stored as `precision` says (vbjacobiprec.h) */
  PCVBJacobiPrecision precision;     /* the storage of the current inverses: block b (entry offset o = inv_offsets[b]) is at byte
                                     o * PCVBJacobiSlotBytes(precision) of inv, in type prec[b] under ADAPTIVE, else precision */
  PetscReal           precision_tol; /* the tolerance they were chosen with (ADAPTIVE) */
  PetscInt           *starts;        /* host copies, allocated when first needed and kept for the next setup */
  PetscInt64         *inv_offsets;
  PetscScalar        *inv;        /* inv_len FP64 slots (the bytes of any storage fit) */
  unsigned char      *prec;       /* [nblocks] the type of each block (PBG_STORE_*), ADAPTIVE only */
  short              *sexp;       /* [nblocks] each block's power-of-two scale, reduced storage only */
  PetscScalar        *inv_double; /* [inv_len] the stored inverses as FP64, scale applied, for PCVBJacobiGetInverses() */
  PetscBool           inv_double_current;
  PetscInt            cap_starts, cap_offsets, cap_meta; /* allocated entries of starts, inv_offsets, prec and sexp */
  PetscInt64          cap_inv, cap_inv_double;           /* allocated entries of inv, inv_double */
  PCVBJacobiDevice   *dev;                               /* device copies; NULL until the device first holds blocks */
} PCVBJacobiBlocks;

/* Supervariable blocking with no maximum block size set by the user merges up to 32 rows on a local part of fewer
   rows than this, else up to a bound from the mean row length, at least PC_VBJACOBI_MERGE_FLOOR (blocking.c) */
#define PC_VBJACOBI_BANDWIDTH_ROWS 262144
#define PC_VBJACOBI_MERGE_FLOOR    8

typedef struct {
  /* options */
  PetscInt                 max_block_size;     /* cap on the size of a block, 1..PC_VBJACOBI_MAX_BLOCK_SIZE */
  PetscBool                max_block_size_set; /* set by the user: also the merge bound of supervariable blocking */
  PCVBJacobiBlocking       blocking;           /* requested source of the blocks */
  PCVBJacobiSingularPolicy singular;           /* what to do with a singular block */
  PCVBJacobiExtraction     extraction;         /* how the GPU setup reads the blocks */
  PCVBJacobiPrecision      precision;          /* storage of the inverses */
  PetscReal                precision_tol;      /* tolerance of the adaptive choice */
  PetscBool                use_gpu;            /* set up and apply on the GPU when the Pmat (setup) or the vectors (apply) live there */
  PetscBool                richardson;         /* PCApplyRichardson() by our sweeps (richardson.c) */
  PetscReal                richardson_damping; /* their damping */
  Vec                      richardson_work;    /* the second work vector of the unfused sweeps */
  PetscInt                 richardson_fused;   /* the last PCApplyRichardson(): 1 fused on the GPU, 0 not, -1 none yet (-pc_view) */
  PetscBool                sweep_single;       /* the fused sweeps read sweep_values (-pc_vbjacobi_sweep_precision single) */
  PCVBJacobiSweepValues    sweep_values;
  PetscInt                 sweep_lanes;     /* lanes a block row of the fused sweep kernel: 8, 16, 32, or 0 (auto) */
  PetscBool                chebyshev;       /* KSPCHEBYSHEV's steps offered fused (richardson.c) */
  PetscInt                 chebyshev_fused; /* the last Chebyshev solve: 1 fused, 0 KSPCHEBYSHEV's own loop, -1 none yet */
  PetscInt                 sweep_fused_all; /* several processes: whether every one can fuse its sweeps (1, 0), -1 not yet asked since the setup */

  /* the blocks of the last setup, and what they were found for */
  PCVBJacobiBlocks   blocks;
  PCVBJacobiBlocking blocking_used;     /* the source the setup took (never AUTO) */
  char               blocking_why[256]; /* why AUTO took it (empty when the source was asked for) */
  PetscInt           merge_bound;       /* supervariables were merged up to this size, 0 for the other blockings (PCVBJacobiResolveBlocking()) */
  char               merge_why[128];    /* how the bound was chosen when the user set none */
  PetscObjectState   nonzerostate;      /* of the Pmat when the blocks were found */
  PetscObjectId      pmat_id;           /* the Pmat object the blocks were found for */
  PetscInt           rows_detected;     /* local rows of the Pmat when the blocks were found, -1 when there are no valid blocks */

  /* outcome of the last setup */
  PetscBool      setup_on_gpu;    /* it ran on the GPU (-pc_view shows its kernels) */
  PetscInt       nsingular;       /* local blocks that were singular (replaced by identity under the identity policy) */
  PetscBool      failed;          /* setup failed on some rank (error policy) */
  char           failure[256];    /* what failed, naming the block and its global rows */
  char           setup_where[96]; /* where the setup ran */
  PetscLogDouble time_detect, time_invert;
} PC_VBJacobi;

/* The blocks object (blocks.c). SetHostStarts() takes the PetscMalloc()ed starts[0..nblocks] of new blocks found on the
   host (*starts becomes NULL): it checks them and computes the sizes; every copy of the inverses is then out of date.
   The Get*() accessors return host arrays owned by the object, brought up to date from the device when needed;
   GetHostInversesWrite() is for a host setup: the device copy of the inverses is out of date afterwards. */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksSetHostStarts(PCVBJacobiBlocks *, PetscInt nblocks, PetscInt **starts);
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksGetHostStarts(PCVBJacobiBlocks *, const PetscInt *starts[]);
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksGetHostInverseOffsets(PCVBJacobiBlocks *, const PetscInt64 *offsets[]);
/* The inverses as stored (blocks->precision), with the per-block types (ADAPTIVE, else NULL) and scales (reduced storage,
   else NULL). GetHostInversesWrite() is for a host setup in storage precision: prec and sexp hold nblocks entries. */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksGetHostInverses(PCVBJacobiBlocks *, const PetscScalar *inv[], const unsigned char *prec[], const short *sexp[]);
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksGetHostInversesWrite(PCVBJacobiBlocks *, PCVBJacobiPrecision, PetscReal tol, PetscScalar *inv[], unsigned char *prec[], short *sexp[]);
/* The stored inverses as FP64 (exact conversion, scale applied): inv itself under DOUBLE, else a conversion made once */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksGetHostInversesDouble(PCVBJacobiBlocks *, const PetscScalar *inv[]);
/* The type of every block: counts[3] blocks stored in double, single, half; bytes holding values; prec[b] for every block
   (a fixed mode fills it once). Any output may be NULL. */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksGetPrecisions(PCVBJacobiBlocks *, PetscInt counts[], PetscInt rows[], PetscInt64 *bytes, const unsigned char *prec[]);
/* Stores the FP64 inverse inv (k x k) of a block whose own 1-norm is anorm at dst in the type the rule of `mode` picks:
   returns its type and scale exponent (the host path of the device kernels' store, vbjacobiprec.h). Returns 0 and stores
   nothing when `layout` is a compact one (a fixed mode's) of another type: the block needs a wider one. */
PETSC_INTERN int PCVBJacobiStoreBlock_Host(int mode, int layout, double tol, PetscInt k, const PetscScalar *inv, double anorm, void *dst, int *type, int *sexp);
/* First and last local row of block b: from the host copy of the starts when current, else two entries from the device */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksGetBlockRows(PCVBJacobiBlocks *, PetscInt b, PetscInt *first, PetscInt *last);
/* Frees both copies; the object is then empty (all masks UNALLOCATED) */
PETSC_INTERN PetscErrorCode PCVBJacobiBlocksReset(PCVBJacobiBlocks *);

/* Where the blocks come from: AUTO resolved the same way on every rank (collective). */
PETSC_INTERN PetscErrorCode PCVBJacobiResolveBlocking(PC, PCVBJacobiBlocking *);
/* Host block detection (blocking.c) from the source how (never AUTO): the blocks of the local rows of pmat, as nblocks and
   a PetscMalloc()ed starts[0..nblocks] (for PCVBJacobiBlocksSetHostStarts()). */
PETSC_INTERN PetscErrorCode PCVBJacobiDetectBlocks_Host(PC, PCVBJacobiBlocking how, PetscInt *nblocks, PetscInt **starts);
/* Greedy agglomeration of natural blocks (starts[0..nblocks], in place) up to maxbs rows per block. */
PETSC_INTERN PetscErrorCode PCVBJacobiAgglomerate_Host(PetscInt maxbs, PetscInt *nblocks, PetscInt *starts);
/* The block size of the matrix blocking: MatGetBlockSize(), checked against maxbs and the local rows. */
PETSC_INTERN PetscErrorCode PCVBJacobiMatrixBlockSize(Mat, PetscInt maxbs, PetscInt *bs);

/* PCApplyRichardson() of PCVBJACOBI (richardson.c): damped block Jacobi sweeps, fused on the GPU where the blocks are the
   matrix's own BSR blocks */
PETSC_INTERN PetscErrorCode PCApplyRichardson_VBJacobi(PC, Vec, Vec, Vec, PetscReal, PetscReal, PetscReal, PetscInt, PetscBool, PetscInt *, PCRichardsonConvergedReason *);
/* KSPCHEBYSHEV's first-kind steps as fused sweeps (richardson.c), composed as PCApplyChebyshevSweeps_C for src/ksp/chebyshev
   (withdrawn by -pc_vbjacobi_chebyshev false); done: false where they do not fuse */
PETSC_INTERN PetscErrorCode PCApplyChebyshevSweeps_VBJacobi(PC, Vec b, Vec y, Vec w, PetscInt its, PetscBool guesszero, PetscReal emin, PetscReal emax, PetscBool *done);
/* y = D^{-1} x (D^{-T} with transpose), on the device when the vectors are there (vbjacobi.c) */
PETSC_INTERN PetscErrorCode PCVBJacobiApplyBlocks_Private(PC, Vec, Vec, PetscBool);
/* Gauss-Jordan inversion with implicit pivoting of one n x n column-major block, in place.
   work must hold 2n PetscInts. Returns info = 0 on success, j+1 when the pivot of column j is zero or
   tiny (relative to the largest entry of the block), -1 when the block holds NaN or Inf,
   PC_VBJACOBI_INFO_INVERSE_NOT_FINITE when the block is finite but its inverse is not (it overflows). */
PETSC_INTERN PetscErrorCode PCVBJacobiInvertBlock_Host(PetscInt, PetscScalar *, PetscInt *, PetscInt *);
/* The host path (vbjacobi_host.c): the setup into the host copy of the inverses (bad_block/bad_info: the first block
   that failed, or -1), and y = D^{-1} x (D^{-T} x) on host arrays */
PETSC_INTERN PetscErrorCode PCVBJacobiSetUp_Host(PC, PetscBool redetect, PetscInt *bad_block, PetscInt *bad_info);
PETSC_INTERN PetscErrorCode PCVBJacobiApplyBlocks_Host(PC, Vec, Vec, PetscBool transpose);
/* The methods behind the public setters and getters (vbjacobi_api.c), composed on the PC or removed */
PETSC_INTERN PetscErrorCode PCVBJacobiComposeMethods_Private(PC, PetscBool compose);
