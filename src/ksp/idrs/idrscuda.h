/* Device side of KSPIDRS: the fused vector kernels of src/ksp/idrs/cuda/idrs_cuda.cu, called by idrs_fused.c.
   All vector pointers are device arrays of the n local entries, real double scalars. Every routine runs on PETSc's current
   CUDA stream and returns without waiting; the reductions leave their results in a host-mapped buffer (results), which
   is valid after KSPIDRSDeviceWait_CUDA(): one host synchronisation per group of reductions. */
#pragma once

#include <petscblockgpu/private/pbgimpl.h>

/* The fused path serves s up to this (the coefficients travel as kernel arguments); a larger s uses the Vec path */
#define KSPIDRS_FUSED_MAX_S 16
/* Inputs of one linear combination, and dot products of one reduction (the omega step's: (r, r), (t, t), (r, t), P^H r
   and P^H t) */
#define KSPIDRS_FUSED_MAX_IN   (KSPIDRS_FUSED_MAX_S + 1)
#define KSPIDRS_FUSED_MAX_DOTS (2 * KSPIDRS_FUSED_MAX_S + 3)
/* Slots of the results buffer: the dot products of the last KSPIDRSDots_CUDA() from 0, and the squared norm left by the
   last update at KSPIDRS_SLOT_NORM */
#define KSPIDRS_SLOT_NORM (KSPIDRS_FUSED_MAX_DOTS + 1)
#define KSPIDRS_NUM_SLOTS (KSPIDRS_SLOT_NORM + 1)

/* -ksp_idrs_profile: where the device's time in a fused solve goes, from CUDA events recorded on the stream between the
   pieces of each step; they are read at the step's own wait (no synchronisation of their own). The time from one mark
   to the next is charged to the later mark's phase. A KSPIDRS_PHASE_IDLE mark, recorded just before a launch, closes
   the time in which the stream had run dry: the device waited for the host (the step's wait, MPI_Allreduce(), the
   host's coefficients, the launch); recorded while the stream is busy, it adds nothing. */
typedef enum {
  KSPIDRS_PHASE_IDLE,
  KSPIDRS_PHASE_OPERATOR,
  KSPIDRS_PHASE_PC,
  KSPIDRS_PHASE_UPDATE,
  KSPIDRS_PHASE_REDUCE,
  KSPIDRS_NUM_PHASES
} KSPIDRSPhase;
#define KSPIDRS_PROFILE_MARKS 64
typedef struct {
  void  *events[KSPIDRS_PROFILE_MARKS]; /* cudaEvent_t, made once */
  int    phase[KSPIDRS_PROFILE_MARKS];  /* the phase that ends at each mark (-1: the first) */
  int    nmarks;                        /* recorded since the last read */
  double ms[KSPIDRS_NUM_PHASES];        /* device milliseconds of each phase in the last solve */
  double wait_s, allreduce_s;           /* host seconds in the steps' waits and in their MPI_Allreduce() */
  double after_s;                       /* host seconds from a wait's end (its MPI_Allreduce() done) to the next launch */
  double since;                         /* when the last wait ended, 0 once the next launch is marked */
} KSPIDRSProfile;

typedef struct {
  KSPIDRSProfile *profile;    /* -ksp_idrs_profile, made at the first profiled solve; NULL otherwise */
  double         *results;    /* [KSPIDRS_NUM_SLOTS], host memory mapped into the device: the reductions' answers */
  double         *d_partials; /* per-block partial sums of a reduction */
  unsigned int   *d_done;     /* blocks of the running reduction that have finished (the last one reduces the partials) */
  int             max_blocks; /* of a reduction: 4 per multiprocessor (32 warps each: enough loads in flight to stream), so the partials stay few */
  PetscLogDouble  bytes;      /* bytes the fused kernels moved since the last reset, for -ksp_view */
  PetscInt        launches, waits;
} KSPIDRSDevice;

PETSC_INTERN PetscErrorCode KSPIDRSDeviceCreate_CUDA(KSPIDRSDevice **);
PETSC_INTERN PetscErrorCode KSPIDRSDeviceDestroy_CUDA(KSPIDRSDevice **);
/* Waits for the stream: the results are then valid on the host (and the profile's marks read) */
PETSC_INTERN PetscErrorCode KSPIDRSDeviceWait_CUDA(KSPIDRSDevice *);

/* The profile of a solve: zeroed, with its first mark, at the start; a mark after each piece; read to the end */
PETSC_INTERN PetscErrorCode KSPIDRSProfileBegin_CUDA(KSPIDRSDevice *);
PETSC_INTERN PetscErrorCode KSPIDRSProfileMark_CUDA(KSPIDRSDevice *, KSPIDRSPhase);
PETSC_INTERN PetscErrorCode KSPIDRSProfileEnd_CUDA(KSPIDRSDevice *);

/* out0 = sum_{j < nin0} a0[j] x0[j]; and, when out1 is not NULL, out1 = b out0 + sum_{j < nin1} a1[j] x1[j]. An output
   may be one of the inputs (elementwise). nin0, nin1 <= KSPIDRS_FUSED_MAX_IN. */
PETSC_INTERN PetscErrorCode KSPIDRSCombine_CUDA(KSPIDRSDevice *, PetscInt n, PetscInt nin0, const PetscScalar a0[], const PetscScalar *const x0[], PetscScalar *out0, PetscScalar b, PetscInt nin1, const PetscScalar a1[], const PetscScalar *const x1[], PetscScalar *out1);

/* results[p] = (x[p], y[p]) (local part) for p < np <= KSPIDRS_FUSED_MAX_DOTS */
PETSC_INTERN PetscErrorCode KSPIDRSDots_CUDA(KSPIDRSDevice *, PetscInt n, PetscInt np, const PetscScalar *const x[], const PetscScalar *const y[]);

/* The end of inner step k of a cycle, in one pass: the biorthogonalisation of the new basis vectors with the k coefficients
   alpha (gk += sum_j alpha_j G[j], likewise uk with U and zk with Z when zk is not NULL), then r -= beta gk, x += beta uk,
   rt -= beta zk (rt with zk), and, when norm is true, results[KSPIDRS_SLOT_NORM] = the local ||rt||^2 (||r||^2 when rt
   is NULL); without it (KSP_NORM_NONE) the kernel makes no reduction. */
PETSC_INTERN PetscErrorCode KSPIDRSStepUpdate_CUDA(KSPIDRSDevice *, PetscInt n, PetscInt k, const PetscScalar alpha[], PetscScalar beta, const PetscScalar *const G[], const PetscScalar *const U[], const PetscScalar *const Z[], PetscScalar *gk, PetscScalar *uk, PetscScalar *zk, PetscScalar *r, PetscScalar *x, PetscScalar *rt, PetscBool norm);

/* The omega step's update, in one pass: x += omega w, r -= omega t, rt -= omega zt (when rt is not NULL); and, when norm
   is true, results[KSPIDRS_SLOT_NORM] = the local ||rt||^2 (||r||^2 without rt). */
PETSC_INTERN PetscErrorCode KSPIDRSOmegaUpdate_CUDA(KSPIDRSDevice *, PetscInt n, PetscScalar omega, const PetscScalar *w, const PetscScalar *t, const PetscScalar *zt, PetscScalar *x, PetscScalar *r, PetscScalar *rt, PetscBool norm);
