/* Private data of KSPIDRS, shared by its files (the floors, bottom up):
     idrs_step.c   the pieces of a step that both paths share: residual, bookkeeping and convergence test, the s x s
                   systems, omega; PETSc's Vec and KSP calls only
     idrs_vec.c    the solve on PETSc's Vec operations (any vectors), built from the step pieces
     idrs_fused.c  the solve with fused kernels (CUDA vectors), built from the step pieces and cuda/ (idrscuda.h); it
                   reaches the device arrays only through VecGetArray[Read]AndMemType() pairs around each kernel group
     idrs.c        the type: work vectors, options, view, setters, KSPCreate_IDRS(); picks the path of a solve
   A file calls only into the files listed above it; idrs.c makes the work vectors before either path runs. */
#pragma once

#include <petsc/private/kspimpl.h>
#include <../src/ksp/idrs/idrscuda.h>

/* Residual replacement: the recurrence residual is recomputed as b - A x at the end of a cycle once the residual norm of
   the convergence test has dropped by this factor since the last replacement (or since the start). */
#define KSPIDRS_REPLACEMENT_DROP 1.0e-3
/* A restart from the iterate (its convergence not confirmed on b - A x) must lower the residual of the iterate below the
   best one of the earlier restarts; when KSPIDRS_RESTARTS_NO_GAIN in a row do not, the iterates no longer improve: the tolerance is below the accuracy
   that the recurrences attain in this precision (about eps ||A|| ||x||), and the solve stops there instead of
   restarting until max_it. A restart near the tolerance runs a few iterations only (the recurrence starts just above
   it), so a rule asking for a large gain there stopped solves that the next restart finished (s2rmq4m1 + vbjacobi). */
#define KSPIDRS_RESTART_GAIN     1.0
#define KSPIDRS_RESTARTS_NO_GAIN 3 /* consecutive restarts without a new best before the stop: near the floor it jitters */
/* The divergence test: KSP_DIVERGED_DTOL when the residual is above the divergence tolerance at this many cycle ends in a
   row. IDR's residual may peak above it at one cycle end and come back within the next cycle (snes ex19 512^2, vbjacobi
   with the matrix's 4 x 4 blocks on the GPU: 1e4 x the initial residual at iteration 175, back to 4 x at 180; the same
   solve on the host peaked at 1.7e3 x and converged after 2209). A peak of p x ||b|| costs about eps p ||b|| of
   attainable accuracy, which the true-residual check measures. A real divergence keeps growing and stops there. */
#define KSPIDRS_DTOL_CYCLES 3

typedef struct {
  PetscInt  s;           /* shadow space dimension */
  PetscReal angle;       /* kappa of "maintaining the convergence": |cos(r, A'r)| below it scales omega up; 0: off */
  PetscBool smoothing;   /* minimal residual smoothing of the iterates (Zhou and Walker) */
  PetscBool replacement; /* residual replacement (KSPIDRS_REPLACEMENT_DROP) */
  PetscInt  seed;        /* seed of the shadow space */

  /* work, made by KSPIDRSWork_Private for the layout below */
  PetscInt     nwork;                   /* vectors in work */
  Vec         *work;                    /* one array holding all below */
  Vec         *P, *G, *U, *Z;           /* shadow space, G = A' U, U, Z = A U (left preconditioning, true residual only) */
  Vec          r, v, t, rt, zt, xr, rs; /* residual of the recurrence, work, true residual + A r (as Z), recurrence iterate and
                                           smoothed residual (smoothing: ksp->vec_sol is the smoothed iterate) */
  PetscInt     ws;                      /* s (capped at the system size wN), true-residual recurrence and smoothing the work was made for */
  PetscInt     wN;
  PetscBool    wtrue, wsmooth, pvalid;
  PetscScalar *M, *f, *c, *nc, *m, *alpha;
  PetscInt     nreplaced;   /* residual replacements in the last solve */
  PetscBool    check_true;  /* -ksp_idrs_true_residual_check: a convergence on a recurrence residual is confirmed on b - A x */
  PetscBool    restart;     /* that check failed: the solve restarts from the current iterate */
  PetscInt     nrestarts;   /* such restarts in the last solve */
  PetscReal    best_true;   /* the smallest residual of the iterate at a failed check in the last solve */
  PetscInt     nogain;      /* restarts in a row since the last new best */
  PetscBool    stagnated;   /* the last solve stopped at the attainable accuracy (KSPIDRS_RESTART_GAIN) */
  PetscInt     npeaks;      /* inner steps of the last solve whose residual was above the divergence tolerance */
  PetscInt     ncyclepeaks; /* runs of fewer than KSPIDRS_DTOL_CYCLES cycle ends above it in the last solve */
  PetscInt     nabove;      /* cycle ends in a row above it, now */

  /* the fused device path (cuda/idrs_cuda.cu) */
  PetscBool      fused;      /* -ksp_idrs_fused: take it when the vectors are CUDA vectors */
  PetscBool      fused_used; /* the last solve took it */
  char           path[160];  /* which path the last solve took, and why */
  KSPIDRSDevice *dev;        /* its reduction buffers, made at the first fused solve */
  PetscBool      profile;    /* -ksp_idrs_profile: time the pieces of each step with CUDA events (idrscuda.h) */
} KSP_IDRS;

/* idrs.c: the work vectors and the shadow space for the current s, side, norm and smoothing (kept when unchanged) */

/* idrs_step.c */
PETSC_INTERN PetscErrorCode KSPIDRSResidual_Private(KSP, Vec, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode KSPIDRSIterationDone_Private(KSP, PetscReal, PetscBool);
PETSC_INTERN void           KSPIDRSResetCounts_Private(KSP);
PETSC_INTERN PetscErrorCode KSPIDRSStart_Private(KSP);
PETSC_INTERN PetscErrorCode KSPIDRSInitial_Private(KSP, Vec, PetscReal *);
PETSC_INTERN void           KSPIDRSSolveC_Private(PetscInt, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode KSPIDRSNewColumn_Private(KSP, PetscInt);
PETSC_INTERN PetscErrorCode KSPIDRSOmega_Private(KSP, PetscReal, PetscReal, PetscScalar, PetscScalar *);

/* idrs_vec.c: the solve on PETSc's Vec operations */
PETSC_INTERN PetscErrorCode KSPSolve_IDRS_Vec(KSP);

/* idrs_fused.c: whether a solve can take the fused path (idrs->path says which and why), and that solve */
PETSC_INTERN PetscErrorCode KSPIDRSFusedApplicable_Private(KSP, PetscBool *);
PETSC_INTERN PetscErrorCode KSPSolve_IDRS_Fused(KSP);
