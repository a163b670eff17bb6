/* KSPCHEBYSHEV with its steps fused into the preconditioner's sweeps. PETSc's Chebyshev iteration of the first kind
   runs, a step, a MatMult, a PCApply and two vector updates (KSPSolve_Chebyshev_FirstKind()): four kernels and four
   passes over the vectors, where one kernel that forms the residual, applies the block inverse and updates the iterate
   reads each once. It is GAMG's and PCMG's default level smoother, so its kernels are a large part of a V-cycle on the
   coarse levels, where each one is short.

   PETSc's creation routine of "chebyshev" is wrapped (registered again under its name, as src/dm/da wraps DMDA's): a
   KSPCHEBYSHEV is PETSc's own, except that after its setup a first-kind solve asks the preconditioner for the composed
   function PCApplyChebyshevSweeps_C (PCVBJACOBI offers it) and, where that runs the steps (the matrix's
   blocks on the device: src/pc/vbjacobi/richardson.c), takes its result; otherwise, and whenever a residual norm,
   monitor, error history or transpose solve is asked for, PETSc's own loop runs. The eigenvalue bounds are PETSc's:
   read from its KSP_Chebyshev (a copy of the head of PETSc 3.26's private structure below). */
#include <petsc/private/kspimpl.h>
#include <petscblockgpu/private/pbgimpl.h>

#if PETSC_VERSION_MAJOR != 3 || PETSC_VERSION_MINOR != 26
  #error "src/ksp/chebyshev reads PETSc 3.26's KSP_Chebyshev: check its layout against this PETSc's src/ksp/ksp/impls/cheby/chebyshevimpl.h"
#endif

/* The head of KSP_Chebyshev of PETSc 3.26 (src/ksp/ksp/impls/cheby/chebyshevimpl.h), as far as the bounds */
typedef struct {
  PetscReal  emin, emax;                   /* given, or computed by kspest and transformed */
  PetscReal  emin_computed, emax_computed; /* as computed by kspest */
  PetscReal  emin_provided, emax_provided; /* provided by PCGAMG (PCJACOBI only) */
  PetscReal *betas;
  PetscInt   num_betas_alloc;
  KSP        kspest;
  PetscReal  tform[4];
} KSP_Chebyshev_Head;

static PetscErrorCode (*KSPCreate_Chebyshev_PETSc)(KSP)     = NULL;
static PetscErrorCode (*KSPSetUp_Chebyshev_PETSc)(KSP)      = NULL;
static PetscErrorCode (*KSPSolve_ChebyshevFirst_PETSc)(KSP) = NULL;

/* The bounds as PETSc's KSPChebyshevGetEigenvalues_Chebyshev() takes them */
static void ChebyshevBounds(KSP ksp, PetscReal *emin, PetscReal *emax)
{
  const KSP_Chebyshev_Head *cheb = (const KSP_Chebyshev_Head *)ksp->data;

  *emax = 0;
  *emin = 0;
  if (cheb->emax != 0.) *emax = cheb->emax;
  else if (cheb->emax_computed != 0.) *emax = cheb->tform[2] * cheb->emin_computed + cheb->tform[3] * cheb->emax_computed;
  else if (cheb->emax_provided != 0.) *emax = cheb->tform[2] * cheb->emin_provided + cheb->tform[3] * cheb->emax_provided;
  if (cheb->emin != 0.) *emin = cheb->emin;
  else if (cheb->emin_computed != 0.) *emin = cheb->tform[0] * cheb->emin_computed + cheb->tform[1] * cheb->emax_computed;
  else if (cheb->emin_provided != 0.) *emin = cheb->tform[0] * cheb->emin_provided + cheb->tform[1] * cheb->emax_provided;
}

static PetscErrorCode KSPSolve_Chebyshev_Fused(KSP ksp)
{
  PetscErrorCode (*sweeps)(PC, Vec, Vec, Vec, PetscInt, PetscBool, PetscReal, PetscReal, PetscBool *) = NULL;
  PetscBool done                                                                                      = PETSC_FALSE;

  PetscFunctionBegin;
  if (ksp->normtype == KSP_NORM_NONE && !ksp->transpose_solve && !ksp->numbermonitors && !ksp->err_hist && ksp->max_it > 0) PetscCall(PetscObjectQueryFunction((PetscObject)ksp->pc, "PCApplyChebyshevSweeps_C", &sweeps));
  if (sweeps) {
    PetscReal emin, emax;

    ChebyshevBounds(ksp, &emin, &emax);
    PetscCall((*sweeps)(ksp->pc, ksp->vec_rhs, ksp->vec_sol, ksp->work[0], ksp->max_it, ksp->guess_zero, emin, emax, &done));
  }
  if (!done) {
    PetscCall((*KSPSolve_ChebyshevFirst_PETSc)(ksp));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* as PETSc's loop ends with no norm */
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->its    = ksp->max_it;
  ksp->reason = KSP_CONVERGED_ITS;
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's setup picks the solve of the kind asked for; the first kind's is replaced */
static PetscErrorCode KSPSetUp_Chebyshev_Fused(KSP ksp)
{
  KSPChebyshevKind kind;

  PetscFunctionBegin;
  PetscCall((*KSPSetUp_Chebyshev_PETSc)(ksp));
  PetscCall(KSPChebyshevGetKind(ksp, &kind));
  if (kind != KSP_CHEBYSHEV_FIRST) PetscFunctionReturn(PETSC_SUCCESS);
  if (!KSPSolve_ChebyshevFirst_PETSc) KSPSolve_ChebyshevFirst_PETSc = ksp->ops->solve;
  if (ksp->ops->solve == KSPSolve_ChebyshevFirst_PETSc) ksp->ops->solve = KSPSolve_Chebyshev_Fused;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPCreate_Chebyshev_Fused(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall((*KSPCreate_Chebyshev_PETSc)(ksp));
  if (!KSPSetUp_Chebyshev_PETSc) KSPSetUp_Chebyshev_PETSc = ksp->ops->setup;
  if (ksp->ops->setup == KSPSetUp_Chebyshev_PETSc) ksp->ops->setup = KSPSetUp_Chebyshev_Fused;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Registers the wrapper under KSPCHEBYSHEV's name, in place of PETSc's creation routine (once) */
PetscErrorCode KSPChebyshevFusedRegister_Private(void)
{
  PetscErrorCode (*create)(KSP) = NULL;

  PetscFunctionBegin;
  PetscCall(KSPInitializePackage());
  PetscCall(PetscFunctionListFind(KSPList, KSPCHEBYSHEV, &create));
  if (!create || create == KSPCreate_Chebyshev_Fused) PetscFunctionReturn(PETSC_SUCCESS);
  KSPCreate_Chebyshev_PETSc = create;
  PetscCall(KSPRegister(KSPCHEBYSHEV, KSPCreate_Chebyshev_Fused));
  PetscFunctionReturn(PETSC_SUCCESS);
}
