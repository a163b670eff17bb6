/* KSPIDRS: the pieces of a step that the Vec path (idrs_vec.c) and the fused path (idrs_fused.c) share: the residual of
   an iterate, a start of the recurrences, the bookkeeping and convergence test of an iteration, the s x s triangular
   systems and omega. Only PETSc's Vec, Mat and KSP calls: no device code. */
#include <../src/ksp/idrs/idrsimpl.h>

/* The residual(s) of the iterate x: right preconditioning r = b - A x; left r = K^{-1}(b - A x), and with the true
   residual norm also rt = b - A x. x == NULL: x is zero. tmp is a work vector. */
PetscErrorCode KSPIDRSResidual_Private(KSP ksp, Vec x, Vec r, Vec rt, Vec tmp)
{
  Mat A;
  Vec b = ksp->vec_rhs;
  Vec w = ksp->pc_side == PC_LEFT ? (rt ? rt : tmp) : r; /* where b - A x goes */

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  if (x) {
    PetscCall(KSP_MatMult(ksp, A, x, w));
    PetscCall(VecAYPX(w, -1.0, b));
  } else PetscCall(VecCopy(b, w));
  if (ksp->pc_side == PC_LEFT) PetscCall(KSP_PCApply(ksp, w, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With KSP_NORM_NONE no norm says when the iterate is exact, so the iterations go on past it: a zero divisor may then
   come from a residual that is exactly zero (a smoother whose preconditioner solved its system, a 1 x 1 level, a zero
   right-hand side), from which no step can change x. That is a convergence, KSP_CONVERGED_HAPPY_BREAKDOWN, not a
   failure of the smoother (PCMG would flag its PC as failed). The norm is taken on this path only. With a norm the
   convergence test stops the solve at a zero residual before any divisor vanishes. */
static PetscErrorCode KSPIDRSExactResidual_Private(KSP ksp, PetscBool *exact)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscReal nr;

  PetscFunctionBegin;
  *exact = PETSC_FALSE;
  if (ksp->normtype != KSP_NORM_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecNorm(idrs->r, NORM_2, &nr));
  if (nr != 0.0) PetscFunctionReturn(PETSC_SUCCESS);
  *exact      = PETSC_TRUE;
  ksp->reason = KSP_CONVERGED_HAPPY_BREAKDOWN;
  PetscCall(PetscInfo(ksp, "KSPIDRS: the residual is exactly zero at iteration %" PetscInt_FMT " (no norm is tested): the iterate is exact, a happy breakdown\n", ksp->its));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a zero divisor: a happy breakdown when the residual is exactly zero (KSP_NORM_NONE, above); else an error under
   -ksp_error_if_not_converged, or KSP_DIVERGED_BREAKDOWN and the message in -info */
#define KSPIDRSBreakdown(ksp, ...) \
  do { \
    PetscBool exact_; \
    PetscCall(KSPIDRSExactResidual_Private((ksp), &exact_)); \
    if (!exact_) { \
      char msg_[256]; \
      PetscCall(PetscSNPrintf(msg_, sizeof(msg_), __VA_ARGS__)); \
      PetscCheck(!(ksp)->errorifnotconverged, PetscObjectComm((PetscObject)(ksp)), PETSC_ERR_NOT_CONVERGED, "%s", msg_); \
      (ksp)->reason = KSP_DIVERGED_BREAKDOWN; \
      PetscCall(PetscInfo((ksp), "%s\n", msg_)); \
    } \
  } while (0)

/* One iteration's bookkeeping, counted as KSPIDR counts (every product with the operator: s per cycle + the omega step).
   The tested norm is that of a recurrence residual (with smoothing: the smoothed residual), which drifts from the
   residual of the iterate in finite precision: a convergence is confirmed on the residual recomputed from the iterate
   (one product with the operator, at the end of the solve only), and when that one has not converged the solve restarts
   from the iterate (idrs->restart). A restart that does not lower the residual of the iterate (KSPIDRS_RESTART_GAIN)
   ends the solve with KSP_DIVERGED_BREAKDOWN: the tolerance is below the attainable accuracy (said in -info, -ksp_view).
   The divergence test (KSP_DIVERGED_DTOL) counts only at the end of a cycle (cycle_end: the omega step, whose residual
   is minimised): the residuals of the inner steps (r -= beta G_k) peak far above it and come back (ts ex5 1024^2 with
   vbjacobi on the host: 1.5e4 x ||b|| at inner step 22, beyond PETSc's default divtol 1e4, failed the Newton step).
   And it takes KSPIDRS_DTOL_CYCLES cycle ends in a row above the tolerance: one cycle end may peak too. */
PetscErrorCode KSPIDRSIterationDone_Private(KSP ksp, PetscReal dp, PetscBool cycle_end)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->its++;
  ksp->rnorm = dp;
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  PetscCall(KSPLogResidualHistory(ksp, dp));
  PetscCall(KSPMonitor(ksp, ksp->its, dp));
  PetscCall((*ksp->converged)(ksp, ksp->its, dp, &ksp->reason, ksp->cnvP));
  if (ksp->reason == KSP_DIVERGED_DTOL && !cycle_end) { /* a peak of an inner step: the divergence test is the cycle end's */
    ksp->reason = KSP_CONVERGED_ITERATING;
    idrs->npeaks++;
    PetscCall(PetscInfo(ksp, "KSPIDRS: the residual of inner step %" PetscInt_FMT " (%g) is above the divergence tolerance: a peak, not a divergence; tested again at the end of the cycle\n", ksp->its, (double)dp));
  }
  if (cycle_end) {
    if (ksp->reason == KSP_DIVERGED_DTOL && ++idrs->nabove < KSPIDRS_DTOL_CYCLES) {
      ksp->reason = KSP_CONVERGED_ITERATING;
      PetscCall(PetscInfo(ksp, "KSPIDRS: the residual at the end of cycle %" PetscInt_FMT " (iteration %" PetscInt_FMT ", %g) is above the divergence tolerance, %" PetscInt_FMT " cycle end(s) in a row: a divergence after %d\n", ksp->its / (idrs->ws + 1),
                          ksp->its, (double)dp, idrs->nabove, KSPIDRS_DTOL_CYCLES));
    } else if (ksp->reason != KSP_DIVERGED_DTOL) {
      if (idrs->nabove) idrs->ncyclepeaks++;
      idrs->nabove = 0;
    }
  }
  if (ksp->reason > 0 && idrs->check_true && ksp->normtype != KSP_NORM_NONE) {
    PetscReal dt;

    PetscCall(KSPIDRSResidual_Private(ksp, ksp->vec_sol, idrs->r, idrs->rt, idrs->t));
    PetscCall(VecNorm(idrs->wtrue ? idrs->rt : idrs->r, NORM_2, &dt));
    KSPCheckNorm(ksp, dt);
    ksp->reason = KSP_CONVERGED_ITERATING;
    ksp->rnorm  = dt;
    PetscCall((*ksp->converged)(ksp, ksp->its, dt, &ksp->reason, ksp->cnvP));
    if (!ksp->reason && ksp->its < ksp->max_it) {
      if (idrs->nrestarts > 0 && dt >= KSPIDRS_RESTART_GAIN * idrs->best_true) idrs->nogain++;
      else idrs->nogain = 0;
      if (idrs->nogain >= KSPIDRS_RESTARTS_NO_GAIN) {
        char msg[320];

        idrs->stagnated = PETSC_TRUE;
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "KSPIDRS: the residual of the iterate stays at %g (%g at the best of %" PetscInt_FMT " restarts) while the recurrence residual (%g) converged: the tolerance is below the accuracy attainable in this precision", (double)dt,
                                (double)idrs->best_true, idrs->nrestarts, (double)dp));
        PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "%s", msg);
        ksp->reason = KSP_DIVERGED_BREAKDOWN;
        PetscCall(PetscInfo(ksp, "%s\n", msg));
      } else {
        idrs->restart   = PETSC_TRUE;
        idrs->best_true = idrs->nrestarts ? PetscMin(idrs->best_true, dt) : dt;
        idrs->nrestarts++;
        PetscCall(PetscInfo(ksp, "KSPIDRS: converged on the recurrence residual (%g) at iteration %" PetscInt_FMT " but not on the residual of the iterate (%g): restart %" PetscInt_FMT " from the iterate\n", (double)dp, ksp->its, (double)dt, idrs->nrestarts));
      }
    }
  }
  if (!ksp->reason && ksp->its >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The counts of a solve that KSPView() reports (restarts, peaks) and the state of its tests, zeroed once per solve
   (before the first start; a restart keeps them) */
void KSPIDRSResetCounts_Private(KSP ksp)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  idrs->nrestarts   = 0;
  idrs->nogain      = 0;
  idrs->stagnated   = PETSC_FALSE;
  idrs->npeaks      = 0;
  idrs->ncyclepeaks = 0;
  idrs->nabove      = 0;
}

/* A (re)start of the recurrences from the residual in r (rt): empty basis, M = I */
PetscErrorCode KSPIDRSStart_Private(KSP ksp)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscInt  s    = idrs->ws;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < s; k++) {
    PetscCall(VecSet(idrs->G[k], 0.0));
    PetscCall(VecSet(idrs->U[k], 0.0));
    if (idrs->wtrue) PetscCall(VecSet(idrs->Z[k], 0.0));
  }
  PetscCall(PetscArrayzero(idrs->M, s * s));
  for (PetscInt k = 0; k < s; k++) idrs->M[k + k * s] = 1.0;
  idrs->restart = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The residual of the initial iterate x (NULL: zero), its norm and iteration 0's bookkeeping; ksp->reason says whether
   the solve is over already */
PetscErrorCode KSPIDRSInitial_Private(KSP ksp, Vec x, PetscReal *dp)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  Vec       rn   = idrs->wtrue ? idrs->rt : idrs->r;

  PetscFunctionBegin;
  PetscCall(KSPIDRSResidual_Private(ksp, x, idrs->r, idrs->rt, idrs->t));
  if (idrs->smoothing) PetscCall(VecCopy(rn, idrs->rs));
  *dp = 0.0; /* KSP_NORM_NONE (multigrid smoothers): no norm, the iterations run to max_it */
  if (ksp->normtype != KSP_NORM_NONE) PetscCall(VecNorm(rn, NORM_2, dp));
  KSPCheckNorm(ksp, *dp);
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->its   = 0;
  ksp->rnorm = *dp;
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  PetscCall(KSPLogResidualHistory(ksp, *dp));
  PetscCall(KSPMonitor(ksp, 0, *dp));
  PetscCall((*ksp->converged)(ksp, 0, *dp, &ksp->reason, ksp->cnvP));
  if (!ksp->reason && ksp->max_it <= 0) ksp->reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* c(k:s-1) = M(k:s-1,k:s-1) \ f(k:s-1): M is lower triangular, its diagonal checked nonzero when it was made */
void KSPIDRSSolveC_Private(PetscInt s, PetscInt k, const PetscScalar *M, const PetscScalar *f, PetscScalar *c)
{
  for (PetscInt i = k; i < s; i++) {
    PetscScalar sum = f[i];

    for (PetscInt j = k; j < i; j++) sum -= M[i + j * s] * c[j];
    c[i] = sum / M[i + i * s];
  }
}

/* From idrs->m = P^H g_k (before the biorthogonalisation): alpha(0:k-1) by forward substitution with M(0:k-1,0:k-1),
   returned negated (g_k += G(:,0:k-1) alpha makes g_k orthogonal to p_0..p_{k-1}), and the new column M(k:s-1,k).
   A zero or non-finite M(k,k), the next divisor, ends the solve with KSP_DIVERGED_BREAKDOWN (ksp->reason). */
PetscErrorCode KSPIDRSNewColumn_Private(KSP ksp, PetscInt k)
{
  KSP_IDRS    *idrs = (KSP_IDRS *)ksp->data;
  PetscInt     s    = idrs->ws;
  PetscScalar *M = idrs->M, *m = idrs->m, *alpha = idrs->alpha;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < s; i++) KSPCheckDot(ksp, m[i]);
  for (PetscInt i = 0; i < k; i++) {
    PetscScalar sum = m[i];

    for (PetscInt j = 0; j < i; j++) sum -= M[i + j * s] * alpha[j];
    alpha[i] = sum / M[i + i * s];
  }
  for (PetscInt i = k; i < s; i++) {
    PetscScalar sum = m[i];

    for (PetscInt j = 0; j < k; j++) sum -= M[i + j * s] * alpha[j];
    M[i + k * s] = sum;
  }
  for (PetscInt i = 0; i < k; i++) alpha[i] = -alpha[i];
  if (M[k + k * s] == 0.0 || PetscIsInfOrNanScalar(M[k + k * s]))
    KSPIDRSBreakdown(ksp, "KSPIDRS breakdown: p_%" PetscInt_FMT "^H g_%" PetscInt_FMT " = %g (M(k,k), a divisor) in step %" PetscInt_FMT " of a cycle", k, k, (double)PetscAbsScalar(M[k + k * s]), k);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* omega of the omega step from ||r||, ||t|| and (r, t), t = A' v: minimal residual, scaled up when |cos(r, t)| is below
   the angle; a zero among them ends the solve with KSP_DIVERGED_BREAKDOWN (ksp->reason) */
PetscErrorCode KSPIDRSOmega_Private(KSP ksp, PetscReal nr, PetscReal nt, PetscScalar tr, PetscScalar *om)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscReal rho;

  PetscFunctionBegin;
  KSPCheckNorm(ksp, nt);
  KSPCheckDot(ksp, tr);
  if (nt == 0.0 || nr == 0.0 || tr == 0.0) {
    KSPIDRSBreakdown(ksp, "KSPIDRS breakdown in the omega step: ||A'r|| = %g, ||r|| = %g, (A'r, r) = %g", (double)nt, (double)nr, (double)PetscAbsScalar(tr));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *om = tr / (nt * nt);
  rho = PetscAbsScalar(tr) / (nt * nr);
  if (rho < idrs->angle) *om *= idrs->angle / rho;
  PetscFunctionReturn(PETSC_SUCCESS);
}
