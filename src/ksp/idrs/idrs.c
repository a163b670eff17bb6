/* KSPIDRS: IDR(s) with biorthogonalisation. Type, options, view, and the host path of the solve on PETSc's Vec operations.
   Algorithm: van Gijzen and Sonneveld, "Algorithm 913: An elegant IDR(s) variant that efficiently exploits
   biorthogonality properties", ACM TOMS 38(1), 2011 (its idrs.m), with the omega of Sleijpen and van der Vorst,
   "Maintaining convergence properties of BiCGstab methods in finite precision arithmetic", Numer. Algorithms 10, 1995.

   The vector work of one step is grouped so that a fused device path can take a group over whole: the s inner products
   of a step are one VecMDot, the updates with the s basis vectors are VecMAXPY, and the s x s systems are solved on the
   host from the scalars of that VecMDot. */
#include <petsc/private/kspimpl.h>
#include <petsc/private/vecimpl.h>
#include <petscblockgpu/private/idrscuda.h>

/* Residual replacement: the recurrence residual is recomputed as b - A x at the end of a cycle once the residual norm of
   the convergence test has dropped by this factor since the last replacement (or since the start). */
#define KSPIDRS_REPLACEMENT_DROP 1.0e-3
/* A restart from the iterate (its convergence not confirmed on b - A x) must lower the residual of the iterate below the
   best one of the earlier restarts; when KSPIDRS_RESTARTS_NO_GAIN in a row do not, the iterates no longer improve: the tolerance is below the accuracy
   that the recurrences attain in this precision (about eps ||A|| ||x||), and the solve stops there instead of
   restarting until max_it. A restart near the tolerance runs a few iterations only (the recurrence starts just above
   it), so a rule asking for a large gain there stopped solves that the next restart finished (s2rmq4m1 + vbjacobi). */
#define KSPIDRS_RESTART_GAIN 1.0
#define KSPIDRS_RESTARTS_NO_GAIN 3 /* consecutive restarts without a new best before the stop: near the floor it jitters */

typedef struct {
  PetscInt  s;           /* shadow space dimension */
  PetscReal angle;       /* kappa of "maintaining the convergence": |cos(r, A'r)| below it scales omega up; 0: off */
  PetscBool smoothing;   /* minimal residual smoothing of the iterates (Zhou and Walker) */
  PetscBool replacement; /* residual replacement (KSPIDRS_REPLACEMENT_DROP) */
  PetscInt  seed;        /* seed of the shadow space */

  /* work, made by KSPIDRSWork_Private for the layout below */
  PetscInt     nwork;                 /* vectors in work */
  Vec         *work;                  /* one array holding all below */
  Vec         *P, *G, *U, *Z;         /* shadow space, G = A' U, U, Z = A U (left preconditioning, true residual only) */
  Vec          r, v, t, rt, zt, xr, rs; /* residual of the recurrence, work, true residual + A r (as Z), recurrence iterate and
                                           smoothed residual (smoothing: ksp->vec_sol is the smoothed iterate) */
  PetscInt     ws;                    /* s (capped at the system size wN), true-residual recurrence and smoothing the work was made for */
  PetscInt     wN;
  PetscBool    wtrue, wsmooth, pvalid;
  PetscScalar *M, *f, *c, *nc, *m, *alpha;
  PetscInt     nreplaced; /* residual replacements in the last solve */
  PetscBool    check_true; /* -ksp_idrs_true_residual_check: a convergence on a recurrence residual is confirmed on b - A x */
  PetscBool    restart;    /* that check failed: the solve restarts from the current iterate */
  PetscInt     nrestarts;  /* such restarts in the last solve */
  PetscReal    best_true;  /* the smallest residual of the iterate at a failed check in the last solve */
  PetscInt     nogain;     /* restarts in a row since the last new best */
  PetscBool    stagnated;  /* the last solve stopped at the attainable accuracy (KSPIDRS_RESTART_GAIN) */
  PetscInt     npeaks;     /* inner steps of the last solve whose residual was above the divergence tolerance */

  /* the fused device path (cuda/idrs_cuda.cu) */
  PetscBool      fused;      /* -ksp_idrs_fused: take it when the vectors are CUDA vectors */
  PetscBool      fused_used; /* the last solve took it */
  char           path[160];  /* which path the last solve took, and why */
  KSPIDRSDevice *dev;        /* its reduction buffers, made at the first fused solve */
} KSP_IDRS;

/* A uniform number in [-1, 1) from the seed, the shadow vector k and the global index i (splitmix64 finaliser, twice):
   the shadow space is a function of the global indices, so it is the same on any number of ranks. */
static PetscReal KSPIDRSHash_Private(PetscInt seed, PetscInt k, PetscInt i)
{
  unsigned long long z = (unsigned long long)(PetscInt64)seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)k * 0xD1B54A32D192ED03ULL;

  for (int round = 0; round < 2; round++) {
    z += 0x9E3779B97F4A7C15ULL + (round ? 0 : (unsigned long long)i);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
  }
  return (PetscReal)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* P: s random vectors, orthonormalised by modified Gram-Schmidt */
static PetscErrorCode KSPIDRSShadowSpace_Private(KSP ksp)
{
  KSP_IDRS    *idrs = (KSP_IDRS *)ksp->data;
  PetscInt     lo, hi, N;
  PetscScalar *a, d;
  PetscReal    nrm;

  PetscFunctionBegin;
  PetscCall(VecGetSize(idrs->P[0], &N));
  PetscCall(VecGetOwnershipRange(idrs->P[0], &lo, &hi));
  for (PetscInt k = 0; k < idrs->ws; k++) {
    PetscCall(VecGetArrayWrite(idrs->P[k], &a));
    for (PetscInt i = lo; i < hi; i++) a[i - lo] = KSPIDRSHash_Private(idrs->seed, k, i);
    PetscCall(VecRestoreArrayWrite(idrs->P[k], &a));
  }
  for (PetscInt k = 0; k < idrs->ws; k++) {
    for (PetscInt j = 0; j < k; j++) {
      PetscCall(VecDot(idrs->P[k], idrs->P[j], &d));
      PetscCall(VecAXPY(idrs->P[k], -d, idrs->P[j]));
    }
    PetscCall(VecNormalize(idrs->P[k], &nrm));
    PetscCheck(nrm > PETSC_SQRT_MACHINE_EPSILON, PetscObjectComm((PetscObject)ksp), PETSC_ERR_PLIB, "KSPIDRS: shadow vector %" PetscInt_FMT " of %" PetscInt_FMT " is (numerically) dependent on the others (norm %g before normalisation); global size %" PetscInt_FMT, k, idrs->ws, (double)nrm, N);
  }
  idrs->pvalid = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSFreeWork_Private(KSP_IDRS *idrs)
{
  PetscFunctionBegin;
  if (idrs->work) PetscCall(VecDestroyVecs(idrs->nwork, &idrs->work));
  idrs->nwork  = 0;
  idrs->pvalid = PETSC_FALSE;
  idrs->P = idrs->G = idrs->U = idrs->Z = NULL;
  idrs->r = idrs->v = idrs->t = idrs->rt = idrs->zt = idrs->xr = idrs->rs = NULL;
  PetscCall(PetscFree6(idrs->M, idrs->f, idrs->c, idrs->nc, idrs->m, idrs->alpha));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Makes the work vectors for the current s, side, norm and smoothing, keeping them when the layout is unchanged (the
   norm type or side may change between KSPSetUp() and KSPSolve()) */
static PetscErrorCode KSPIDRSWork_Private(KSP ksp)
{
  KSP_IDRS *idrs  = (KSP_IDRS *)ksp->data;
  PetscBool wtrue = (PetscBool)(ksp->pc_side == PC_LEFT && ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  PetscInt  s, n, N, q = 0;
  Mat       A;

  PetscFunctionBegin;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  /* s orthonormal shadow vectors need s <= N: a smaller system runs with s = N (IDR(N) is exact after N + 1 products), as
     KSPIDR solves it; the view says so */
  s = PetscMin(idrs->s, N);
  if (idrs->work && idrs->ws == s && idrs->wtrue == wtrue && idrs->wsmooth == idrs->smoothing && idrs->pvalid) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPIDRSFreeWork_Private(idrs));
  idrs->wN = N;
  n = 3 * s + 3 + (wtrue ? s + 2 : 0) + (idrs->smoothing ? 2 : 0);
  PetscCall(KSPCreateVecs(ksp, n, &idrs->work, 0, NULL));
  idrs->nwork = n;
  idrs->P     = idrs->work;
  idrs->G     = idrs->work + s;
  idrs->U     = idrs->work + 2 * s;
  q           = 3 * s;
  idrs->r     = idrs->work[q++];
  idrs->v     = idrs->work[q++];
  idrs->t     = idrs->work[q++];
  if (wtrue) {
    idrs->Z  = idrs->work + q;
    q       += s;
    idrs->rt = idrs->work[q++];
    idrs->zt = idrs->work[q++];
  }
  if (idrs->smoothing) {
    idrs->xr = idrs->work[q++];
    idrs->rs = idrs->work[q++];
  }
  PetscCall(PetscMalloc6(s * s, &idrs->M, s, &idrs->f, s, &idrs->c, s, &idrs->nc, s, &idrs->m, s, &idrs->alpha));
  idrs->ws      = s;
  idrs->wtrue   = wtrue;
  idrs->wsmooth = idrs->smoothing;
  PetscCall(KSPIDRSShadowSpace_Private(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetUp_IDRS(KSP ksp)
{
  PetscFunctionBegin;
  PetscCheck(ksp->pc_side == PC_LEFT || ksp->pc_side == PC_RIGHT, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "KSPIDRS supports left and right preconditioning only, not %s", PCSides[ksp->pc_side]);
  PetscCall(KSPIDRSWork_Private(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The residual(s) of the iterate x: right preconditioning r = b - A x; left r = K^{-1}(b - A x), and with the true
   residual norm also rt = b - A x. x == NULL: x is zero. tmp is a work vector. */
static PetscErrorCode KSPIDRSResidual_Private(KSP ksp, Vec x, Vec r, Vec rt, Vec tmp)
{
  Mat  A;
  Vec  b = ksp->vec_rhs;
  Vec  w = ksp->pc_side == PC_LEFT ? (rt ? rt : tmp) : r; /* where b - A x goes */

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  if (x) {
    PetscCall(KSP_MatMult(ksp, A, x, w));
    PetscCall(VecAYPX(w, -1.0, b));
  } else PetscCall(VecCopy(b, w));
  if (ksp->pc_side == PC_LEFT) PetscCall(KSP_PCApply(ksp, w, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Minimal residual smoothing (Zhou and Walker 1994), as idrs.m: with d = rs - r, gamma = (d, rs)/(d, d),
   rs -= gamma d, xs -= gamma (xs - x). xs is ksp->vec_sol, x the recurrence iterate. tmp is a work vector. */
static PetscErrorCode KSPIDRSSmooth_Private(KSP ksp, Vec rn, Vec tmp, PetscReal *dp) /* dp NULL: no norm (KSP_NORM_NONE) */
{
  KSP_IDRS   *idrs = (KSP_IDRS *)ksp->data;
  PetscScalar dd, drs, gamma;

  PetscFunctionBegin;
  PetscCall(VecWAXPY(tmp, -1.0, rn, idrs->rs));
  PetscCall(VecDotBegin(tmp, tmp, &dd));
  PetscCall(VecDotBegin(idrs->rs, tmp, &drs));
  PetscCall(VecDotEnd(tmp, tmp, &dd));
  PetscCall(VecDotEnd(idrs->rs, tmp, &drs));
  if (PetscRealPart(dd) > 0.0 && !PetscIsInfOrNanScalar(dd) && !PetscIsInfOrNanScalar(drs)) {
    gamma = drs / dd;
    PetscCall(VecAXPY(idrs->rs, -gamma, tmp));
    PetscCall(VecAXPBY(ksp->vec_sol, gamma, 1.0 - gamma, idrs->xr));
  }
  if (dp) PetscCall(VecNorm(idrs->rs, NORM_2, dp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a zero divisor: an error under -ksp_error_if_not_converged, else KSP_DIVERGED_BREAKDOWN and the message in -info */
#define KSPIDRSBreakdown(ksp, ...) \
  do { \
    char msg_[256]; \
    PetscCall(PetscSNPrintf(msg_, sizeof(msg_), __VA_ARGS__)); \
    PetscCheck(!(ksp)->errorifnotconverged, PetscObjectComm((PetscObject)(ksp)), PETSC_ERR_NOT_CONVERGED, "%s", msg_); \
    (ksp)->reason = KSP_DIVERGED_BREAKDOWN; \
    PetscCall(PetscInfo((ksp), "%s\n", msg_)); \
  } while (0)

/* One iteration's bookkeeping, counted as KSPIDR counts (every product with the operator: s per cycle + the omega step).
   The tested norm is that of a recurrence residual (with smoothing: the smoothed residual), which drifts from the
   residual of the iterate in finite precision: a convergence is confirmed on the residual recomputed from the iterate
   (one product with the operator, at the end of the solve only), and when that one has not converged the solve restarts
   from the iterate (idrs->restart). A restart that does not lower the residual of the iterate (KSPIDRS_RESTART_GAIN)
   ends the solve with KSP_DIVERGED_BREAKDOWN: the tolerance is below the attainable accuracy (said in -info, -ksp_view).
   The divergence test (KSP_DIVERGED_DTOL) counts only at the end of a cycle (cycle_end: the omega step, whose residual
   is minimised): the residuals of the inner steps (r -= beta G_k) peak far above it and come back (ts ex5 1024^2 with
   vbjacobi on the host: 1.5e4 x ||b|| at inner step 22, beyond PETSc's default divtol 1e4, failed the Newton step). */
static PetscErrorCode KSPIDRSIterationDone_Private(KSP ksp, PetscReal dp, PetscBool cycle_end)
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
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "KSPIDRS: the residual of the iterate stays at %g (%g at the best of %" PetscInt_FMT " restarts) while the recurrence residual (%g) converged: the tolerance is below the accuracy attainable in this precision", (double)dt, (double)idrs->best_true, idrs->nrestarts, (double)dp));
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

/* A (re)start of the recurrences from the residual in r (rt): empty basis, M = I */
static PetscErrorCode KSPIDRSStart_Private(KSP ksp)
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
static PetscErrorCode KSPIDRSInitial_Private(KSP ksp, Vec x, PetscReal *dp)
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
static void KSPIDRSSolveC_Private(PetscInt s, PetscInt k, const PetscScalar *M, const PetscScalar *f, PetscScalar *c)
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
static PetscErrorCode KSPIDRSNewColumn_Private(KSP ksp, PetscInt k)
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
  if (M[k + k * s] == 0.0 || PetscIsInfOrNanScalar(M[k + k * s])) KSPIDRSBreakdown(ksp, "KSPIDRS breakdown: p_%" PetscInt_FMT "^H g_%" PetscInt_FMT " = %g (M(k,k), a divisor) in step %" PetscInt_FMT " of a cycle", k, k, (double)PetscAbsScalar(M[k + k * s]), k);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* omega of the omega step from ||r||, ||t|| and (r, t), t = A' v: minimal residual, scaled up when |cos(r, t)| is below
   the angle; a zero among them ends the solve with KSP_DIVERGED_BREAKDOWN (ksp->reason) */
static PetscErrorCode KSPIDRSOmega_Private(KSP ksp, PetscReal nr, PetscReal nt, PetscScalar tr, PetscScalar *om)
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

/*
   The recurrences (idrs.m of Algorithm 913) keep the iterate x itself, for either side:
     right: r = b - A x;          v = K^{-1}(r - G c);  U_k = U c + omega v;  G_k = A U_k
     left:  r = K^{-1}(b - A x);  v = r - G c;          U_k = U c + omega v;  G_k = K^{-1} A U_k
   so x needs no unwinding at the end. With left preconditioning and the true residual norm, rt = b - A x is a second
   recurrence: Z_k = A U_k (the product computed anyway before K^{-1}) gets the same biorthogonalisation updates as U_k
   and G_k, and rt -= beta Z_k alongside r -= beta G_k (no extra product with A).
   M = P^H G is lower triangular; one VecMDot gives m = P^H G_k (before biorthogonalisation), from which the host finds
   the coefficients alpha (forward substitution with M(0:k-1,0:k-1)) and the new column M(k:s-1,k).
*/
static PetscErrorCode KSPSolve_IDRS_Vec(KSP ksp)
{
  KSP_IDRS    *idrs = (KSP_IDRS *)ksp->data;
  PetscInt     s, i, k;
  PetscScalar *M, *f, *c, *nc, *m, *alpha, beta, om = 1.0, tr;
  PetscReal    dp = 0.0, nr, nt, ref;
  Vec          X, R, V, T, RT, ZT, XK, RN;
  Vec         *G, *U, *P, *Z;
  Mat          A;
  PetscBool    left, wtrue, nonorm = (PetscBool)(ksp->normtype == KSP_NORM_NONE);

  PetscFunctionBegin;
  PetscCall(KSPIDRSWork_Private(ksp));
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  s     = idrs->ws;
  M     = idrs->M;
  f     = idrs->f;
  c     = idrs->c;
  nc    = idrs->nc;
  m     = idrs->m;
  alpha = idrs->alpha;
  P     = idrs->P;
  G     = idrs->G;
  U     = idrs->U;
  Z     = idrs->Z;
  X     = ksp->vec_sol;
  R     = idrs->r;
  V     = idrs->v;
  T     = idrs->t;
  RT    = idrs->rt;
  ZT    = idrs->zt;
  left  = (PetscBool)(ksp->pc_side == PC_LEFT);
  wtrue = idrs->wtrue;
  XK    = idrs->smoothing ? idrs->xr : X; /* the recurrence iterate */
  RN    = wtrue ? RT : R;                 /* the residual whose norm is tested */
  idrs->nreplaced = 0;

  if (idrs->smoothing) PetscCall(VecCopy(X, XK));
  PetscCall(KSPIDRSInitial_Private(ksp, ksp->guess_zero ? NULL : XK, &dp));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);

  idrs->nrestarts = 0;
  idrs->nogain    = 0;
  idrs->stagnated = PETSC_FALSE;
  idrs->npeaks    = 0;
  PetscCall(KSPIDRSStart_Private(ksp));
  ref = dp;

  while (!ksp->reason) {
    if (idrs->restart) { /* the convergence was not confirmed on b - A x: start again from the iterate */
      PetscCall(KSPIDRSStart_Private(ksp));
      ref = ksp->rnorm;
      if (idrs->smoothing) { /* the recurrences go on from the smoothed iterate and its residual */
        PetscCall(VecCopy(X, XK));
        PetscCall(VecCopy(RN, idrs->rs));
      }
    }
    /* f = P^H r */
    PetscCall(VecMDot(R, s, P, f));
    for (k = 0; k < s && !ksp->reason && !idrs->restart; k++) {
      KSPIDRSSolveC_Private(s, k, M, f, c);
      for (i = k; i < s; i++) nc[i] = -c[i];
      /* v = r - G(:,k:s-1) c; right: v = K^{-1} v (into T) */
      PetscCall(VecCopy(R, V));
      PetscCall(VecMAXPY(V, s - k, nc + k, G + k));
      if (!left) PetscCall(KSP_PCApply(ksp, V, T));
      /* U_k = omega v + U(:,k:s-1) c */
      PetscCall(VecAXPBY(U[k], om, c[k], left ? V : T));
      if (s - k - 1 > 0) PetscCall(VecMAXPY(U[k], s - k - 1, c + k + 1, U + k + 1));
      /* G_k = A' U_k (left with the true residual: Z_k = A U_k kept) */
      if (!left) PetscCall(KSP_MatMult(ksp, A, U[k], G[k]));
      else {
        Vec AU = wtrue ? Z[k] : T;

        PetscCall(KSP_MatMult(ksp, A, U[k], AU));
        PetscCall(KSP_PCApply(ksp, AU, G[k]));
      }
      /* m = P^H G_k; biorthogonalise G_k (and U_k, Z_k) against p_0..p_{k-1}, new column k of M */
      PetscCall(VecMDot(G[k], s, P, m));
      PetscCall(KSPIDRSNewColumn_Private(ksp, k));
      if (ksp->reason) break;
      if (k > 0) {
        PetscCall(VecMAXPY(G[k], k, alpha, G));
        PetscCall(VecMAXPY(U[k], k, alpha, U));
        if (wtrue) PetscCall(VecMAXPY(Z[k], k, alpha, Z));
      }
      /* make r orthogonal to p_0..p_k */
      beta = f[k] / M[k + k * s];
      PetscCall(VecAXPY(R, -beta, G[k]));
      PetscCall(VecAXPY(XK, beta, U[k]));
      if (wtrue) PetscCall(VecAXPY(RT, -beta, Z[k]));
      if (idrs->smoothing) PetscCall(KSPIDRSSmooth_Private(ksp, RN, V, nonorm ? NULL : &dp));
      else if (!nonorm) PetscCall(VecNorm(RN, NORM_2, &dp));
      KSPCheckNorm(ksp, dp);
      PetscCall(KSPIDRSIterationDone_Private(ksp, dp, PETSC_FALSE));
      /* f(k+1:s-1) = P(:,k+1:s-1)^H r, updated */
      for (i = k + 1; i < s; i++) f[i] -= beta * M[i + k * s];
    }
    if (ksp->reason) break;
    if (idrs->restart) continue;

    /* omega step: r is orthogonal to P, v = K^{-1} r (right) or r (left), t = A' v */
    if (!left) {
      PetscCall(KSP_PCApply(ksp, R, V));
      PetscCall(KSP_MatMult(ksp, A, V, T));
    } else {
      Vec AR = wtrue ? ZT : V;

      PetscCall(KSP_MatMult(ksp, A, R, AR));
      PetscCall(KSP_PCApply(ksp, AR, T));
    }
    PetscCall(VecNormBegin(R, NORM_2, &nr));
    PetscCall(VecNormBegin(T, NORM_2, &nt));
    PetscCall(VecDotBegin(R, T, &tr));
    PetscCall(VecNormEnd(R, NORM_2, &nr));
    PetscCall(VecNormEnd(T, NORM_2, &nt));
    PetscCall(VecDotEnd(R, T, &tr));
    PetscCall(KSPIDRSOmega_Private(ksp, nr, nt, tr, &om));
    if (ksp->reason) break;
    PetscCall(VecAXPY(XK, om, left ? R : V));
    PetscCall(VecAXPY(R, -om, T));
    if (wtrue) PetscCall(VecAXPY(RT, -om, ZT));
    if (idrs->smoothing) PetscCall(KSPIDRSSmooth_Private(ksp, RN, V, nonorm ? NULL : &dp));
    else if (!nonorm) PetscCall(VecNorm(RN, NORM_2, &dp));
    KSPCheckNorm(ksp, dp);
    PetscCall(KSPIDRSIterationDone_Private(ksp, dp, PETSC_TRUE));

    /* residual replacement at the end of a cycle: G, U (and Z) keep G = A' U, so only r (and rt) are recomputed */
    if (!ksp->reason && !idrs->restart && idrs->replacement && !nonorm && dp < KSPIDRS_REPLACEMENT_DROP * ref) {
      PetscCall(KSPIDRSResidual_Private(ksp, XK, R, RT, T));
      idrs->nreplaced++;
      ref = dp;
      PetscCall(PetscInfo(ksp, "KSPIDRS residual replacement %" PetscInt_FMT " at iteration %" PetscInt_FMT ", residual norm %g\n", idrs->nreplaced, ksp->its, (double)dp));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ fused device path */

/* Whether this solve can take the fused device path; idrs->path says which path and why */
static PetscErrorCode KSPIDRSFusedApplicable_Private(KSP ksp, PetscBool *ok)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscBool cuda[3], avail;
  Vec       v[3] = {ksp->vec_sol, ksp->vec_rhs, idrs->work[0]};

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (!idrs->fused) {
    PetscCall(PetscStrncpy(idrs->path, "PETSc Vec operations (-ksp_idrs_fused 0)", sizeof(idrs->path)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  PetscCall(PetscStrncpy(idrs->path, "PETSc Vec operations (the fused kernels are for real double scalars)", sizeof(idrs->path)));
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
  if (idrs->smoothing) {
    PetscCall(PetscStrncpy(idrs->path, "PETSc Vec operations (minimal residual smoothing runs on them)", sizeof(idrs->path)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (idrs->ws > KSPIDRS_FUSED_MAX_S) {
    PetscCall(PetscSNPrintf(idrs->path, sizeof(idrs->path), "PETSc Vec operations (s > %d, the largest s of the fused kernels)", KSPIDRS_FUSED_MAX_S));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int i = 0; i < 3; i++) PetscCall(PetscObjectTypeCompareAny((PetscObject)v[i], &cuda[i], VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  if (!cuda[0] || !cuda[1] || !cuda[2] || !avail) {
    PetscCall(PetscStrncpy(idrs->path, "PETSc Vec operations (the vectors are not CUDA vectors)", sizeof(idrs->path)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrncpy(idrs->path, "fused CUDA kernels (one host synchronisation per step)", sizeof(idrs->path)));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device array of v for a kernel that reads it: the device copy is brought up to date only when the host holds the
   newer one (a shell operator or PC that wrote on the host); the pointer is the one taken at the start of the solve */
static PetscErrorCode KSPIDRSDevRead_Private(Vec v)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  if (v->offloadmask == PETSC_OFFLOAD_CPU) {
    PetscCall(VecCUDAGetArrayRead(v, &a));
    PetscCall(VecCUDARestoreArrayRead(v, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v is about to be written on the device by a kernel that also reads it: device copy current, marked newer, and the state
   moved so that PETSc's cached norms of v are dropped */
static PetscErrorCode KSPIDRSDevWrite_Private(Vec v)
{
  PetscScalar *a;

  PetscFunctionBegin;
  if (v->offloadmask != PETSC_OFFLOAD_GPU) {
    PetscCall(VecCUDAGetArray(v, &a));
    PetscCall(VecCUDARestoreArray(v, &a));
  } else PetscCall(PetscObjectStateIncrease((PetscObject)v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSDevPointer_Private(Vec v, PetscScalar **p)
{
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArray(v, &a));
  *p = a;
  PetscCall(VecCUDARestoreArray(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Waits for the reductions in flight and sums them over the ranks (one MPI_Allreduce): dots[0..ndots) from the result
   slots 0.., and, when nrm2 is not NULL, the squared norm of the last update into *nrm2 */
static PetscErrorCode KSPIDRSFusedResults_Private(KSP ksp, PetscInt ndots, PetscScalar dots[], PetscReal *nrm2)
{
  KSP_IDRS   *idrs = (KSP_IDRS *)ksp->data;
  PetscScalar buf[KSPIDRS_NUM_SLOTS];
  PetscInt    cnt = 0;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(KSPIDRSDeviceWait_CUDA(idrs->dev));
  for (PetscInt i = 0; i < ndots; i++) buf[cnt++] = idrs->dev->results[i];
  if (nrm2) buf[cnt++] = idrs->dev->results[KSPIDRS_SLOT_NORM];
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  if (size > 1 && cnt) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, buf, (PetscMPIInt)cnt, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  for (PetscInt i = 0; i < ndots; i++) dots[i] = buf[i];
  if (nrm2) *nrm2 = PetscRealPart(buf[ndots]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f = P^H r on the device (one reduction, waited for); dR is r's device array */
static PetscErrorCode KSPIDRSFusedPR_Private(KSP ksp, PetscInt n, PetscScalar *const dP[], const PetscScalar *dR, PetscScalar f[])
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  const PetscScalar *xs[KSPIDRS_FUSED_MAX_S], *ys[KSPIDRS_FUSED_MAX_S];

  PetscFunctionBegin;
  PetscCall(KSPIDRSDevRead_Private(idrs->r));
  for (PetscInt k = 0; k < idrs->ws; k++) {
    xs[k] = dP[k];
    ys[k] = dR;
  }
  PetscCall(PetscLogEventBegin(PBG_IDRSReduce, ksp, 0, 0, 0));
  PetscCall(KSPIDRSDots_CUDA(idrs->dev, n, idrs->ws, xs, ys));
  PetscCall(PetscLogEventEnd(PBG_IDRSReduce, ksp, 0, 0, 0));
  PetscCall(KSPIDRSFusedResults_Private(ksp, idrs->ws, f, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The norm from a summed square: NaN and Inf stay what they are, for KSPCheckNorm() */
static PetscReal KSPIDRSSqrt_Private(PetscReal sq)
{
  return sq >= 0.0 ? PetscSqrtReal(sq) : sq;
}

/*
   KSPSolve_IDRS_Vec's recurrences with the vector work of each group in one kernel (cuda/idrs_cuda.cu):
     inner step k:  v = r - G c (left: and U_k = omega v + U c, the same kernel); right: v = K^{-1} v, then U_k = omega v + U c;
                    G_k = A' U_k (PETSc's MatMult and PCApply); m = P^H G_k (one reduction, the only wait of the step);
                    the biorthogonalisation of G_k, U_k (Z_k) and the updates of r, x (rt) in one kernel that also sums
                    ||r||^2 (||rt||^2).
     omega step:    t = A' v; (r, r), (t, t), (r, t) in one reduction; x, r (rt) updated in one kernel that also gives
                    ||r||^2 and f = P^H r for the next cycle, read with one wait.
   The residual norm of a step is read with the next wait (that of step k + 1's m, or of the omega step's scalars), and the
   convergence test of the step runs then, before anything that step k + 1 does to x or r: the iterations, the iterate and
   the residual are those of KSPSolve_IDRS_Vec; the last step leaves one unneeded product behind at most.
*/
static PetscErrorCode KSPSolve_IDRS_Fused(KSP ksp)
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  PetscInt           s, i, k, n;
  PetscScalar       *M, *f, *c, *m, *alpha, beta, om = 1.0, tr, sc[3], a0[KSPIDRS_FUSED_MAX_IN], a1[KSPIDRS_FUSED_MAX_IN];
  PetscReal          dp = 0.0, nr, nt, ref, sq;
  Vec                X, R, V, T, RT, ZT;
  Vec               *G, *U, *P, *Z;
  Mat                A;
  PetscBool          left, wtrue, pending = PETSC_FALSE, nonorm = (PetscBool)(ksp->normtype == KSP_NORM_NONE);
  PetscScalar       *dG[KSPIDRS_FUSED_MAX_S], *dU[KSPIDRS_FUSED_MAX_S], *dZ[KSPIDRS_FUSED_MAX_S], *dP[KSPIDRS_FUSED_MAX_S], *dX, *dR, *dV, *dT, *dRT = NULL, *dZT = NULL;
  const PetscScalar *x0[KSPIDRS_FUSED_MAX_IN], *x1[KSPIDRS_FUSED_MAX_IN], *xs[KSPIDRS_FUSED_MAX_DOTS], *ys[KSPIDRS_FUSED_MAX_DOTS];

  PetscFunctionBegin;
  if (!idrs->dev) PetscCall(KSPIDRSDeviceCreate_CUDA(&idrs->dev));
  idrs->dev->bytes    = 0;
  idrs->dev->launches = 0;
  idrs->dev->waits    = 0;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  s     = idrs->ws;
  M     = idrs->M;
  f     = idrs->f;
  c     = idrs->c;
  m     = idrs->m;
  alpha = idrs->alpha;
  P     = idrs->P;
  G     = idrs->G;
  U     = idrs->U;
  Z     = idrs->Z;
  X     = ksp->vec_sol;
  R     = idrs->r;
  V     = idrs->v;
  T     = idrs->t;
  RT    = idrs->rt;
  ZT    = idrs->zt;
  left  = (PetscBool)(ksp->pc_side == PC_LEFT);
  wtrue = idrs->wtrue;
  idrs->nreplaced = 0;
  PetscCall(VecGetLocalSize(R, &n));

  PetscCall(KSPIDRSInitial_Private(ksp, ksp->guess_zero ? NULL : X, &dp));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);

  idrs->nrestarts = 0;
  idrs->nogain    = 0;
  idrs->stagnated = PETSC_FALSE;
  idrs->npeaks    = 0;
  PetscCall(KSPIDRSStart_Private(ksp));
  ref = dp;

  /* the device arrays: stable for the solve (PETSc's operators write these vectors through their own accessors) */
  for (k = 0; k < s; k++) {
    PetscCall(KSPIDRSDevPointer_Private(P[k], &dP[k]));
    PetscCall(KSPIDRSDevPointer_Private(G[k], &dG[k]));
    PetscCall(KSPIDRSDevPointer_Private(U[k], &dU[k]));
    if (wtrue) PetscCall(KSPIDRSDevPointer_Private(Z[k], &dZ[k]));
  }
  PetscCall(KSPIDRSDevPointer_Private(X, &dX));
  PetscCall(KSPIDRSDevPointer_Private(R, &dR));
  PetscCall(KSPIDRSDevPointer_Private(V, &dV));
  PetscCall(KSPIDRSDevPointer_Private(T, &dT));
  if (wtrue) {
    PetscCall(KSPIDRSDevPointer_Private(RT, &dRT));
    PetscCall(KSPIDRSDevPointer_Private(ZT, &dZT));
  }

  PetscCall(KSPIDRSFusedPR_Private(ksp, n, dP, dR, f));

  while (!ksp->reason) {
    if (idrs->restart) { /* the convergence was not confirmed on b - A x (now in r): start again from the iterate */
      PetscCall(KSPIDRSStart_Private(ksp));
      ref = ksp->rnorm;
      PetscCall(KSPIDRSFusedPR_Private(ksp, n, dP, dR, f));
    }
    for (k = 0; k < s && !ksp->reason; k++) {
      KSPIDRSSolveC_Private(s, k, M, f, c);
      /* v = r - G(:,k:s-1) c, and U_k = omega v + U(:,k:s-1) c: together (left) or around v = K^{-1} v (right) */
      x0[0] = dR;
      a0[0] = 1.0;
      for (i = k; i < s; i++) {
        x0[1 + i - k] = dG[i];
        a0[1 + i - k] = -c[i];
        x1[i - k]     = dU[i];
        a1[i - k]     = c[i];
      }
      PetscCall(KSPIDRSDevRead_Private(R));
      for (i = k; i < s; i++) {
        PetscCall(KSPIDRSDevRead_Private(G[i]));
        PetscCall(KSPIDRSDevRead_Private(U[i]));
      }
      PetscCall(KSPIDRSDevWrite_Private(V));
      PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
      if (left) {
        PetscCall(KSPIDRSDevWrite_Private(U[k]));
        PetscCall(KSPIDRSCombine_CUDA(idrs->dev, n, 1 + s - k, a0, x0, dV, om, s - k, a1, x1, dU[k]));
        PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
      } else {
        PetscCall(KSPIDRSCombine_CUDA(idrs->dev, n, 1 + s - k, a0, x0, dV, 0.0, 0, NULL, NULL, NULL));
        PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
        PetscCall(KSP_PCApply(ksp, V, T));
        x1[s - k] = dT; /* U_k = omega t + U(:,k:s-1) c */
        a1[s - k] = om;
        PetscCall(KSPIDRSDevRead_Private(T));
        PetscCall(KSPIDRSDevWrite_Private(U[k]));
        PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
        PetscCall(KSPIDRSCombine_CUDA(idrs->dev, n, 1 + s - k, a1, x1, dU[k], 0.0, 0, NULL, NULL, NULL));
        PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
      }
      /* G_k = A' U_k (left with the true residual: Z_k = A U_k kept) */
      if (!left) PetscCall(KSP_MatMult(ksp, A, U[k], G[k]));
      else {
        Vec AU = wtrue ? Z[k] : T;

        PetscCall(KSP_MatMult(ksp, A, U[k], AU));
        PetscCall(KSP_PCApply(ksp, AU, G[k]));
      }
      /* m = P^H G_k, read with the residual norm of the previous step */
      PetscCall(KSPIDRSDevRead_Private(G[k]));
      for (i = 0; i < s; i++) {
        xs[i] = dP[i];
        ys[i] = dG[k];
      }
      PetscCall(PetscLogEventBegin(PBG_IDRSReduce, ksp, 0, 0, 0));
      PetscCall(KSPIDRSDots_CUDA(idrs->dev, n, s, xs, ys));
      PetscCall(PetscLogEventEnd(PBG_IDRSReduce, ksp, 0, 0, 0));
      PetscCall(KSPIDRSFusedResults_Private(ksp, s, m, pending ? &sq : NULL));
      if (pending) {
        dp = KSPIDRSSqrt_Private(sq);
        KSPCheckNorm(ksp, dp);
        PetscCall(KSPIDRSIterationDone_Private(ksp, dp, PETSC_FALSE));
        pending = PETSC_FALSE;
        if (ksp->reason || idrs->restart) break;
      }
      PetscCall(KSPIDRSNewColumn_Private(ksp, k));
      if (ksp->reason) break;
      /* biorthogonalise G_k, U_k (Z_k) against p_0..p_{k-1}, make r orthogonal to p_0..p_k, update x (rt): one kernel */
      beta = f[k] / M[k + k * s];
      PetscCall(KSPIDRSDevRead_Private(U[k]));
      if (wtrue) PetscCall(KSPIDRSDevRead_Private(Z[k]));
      for (i = 0; i < k; i++) {
        PetscCall(KSPIDRSDevRead_Private(G[i]));
        PetscCall(KSPIDRSDevRead_Private(U[i]));
        if (wtrue) PetscCall(KSPIDRSDevRead_Private(Z[i]));
      }
      if (k) {
        PetscCall(KSPIDRSDevWrite_Private(G[k]));
        PetscCall(KSPIDRSDevWrite_Private(U[k]));
        if (wtrue) PetscCall(KSPIDRSDevWrite_Private(Z[k]));
      }
      PetscCall(KSPIDRSDevWrite_Private(R));
      PetscCall(KSPIDRSDevWrite_Private(X));
      if (wtrue) PetscCall(KSPIDRSDevWrite_Private(RT));
      PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
      PetscCall(KSPIDRSStepUpdate_CUDA(idrs->dev, n, k, alpha, beta, (const PetscScalar *const *)dG, (const PetscScalar *const *)dU, wtrue ? (const PetscScalar *const *)dZ : NULL, dG[k], dU[k], wtrue ? dZ[k] : NULL, dR, dX, dRT));
      PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
      /* f(k+1:s-1) = P(:,k+1:s-1)^H r, updated */
      for (i = k + 1; i < s; i++) f[i] -= beta * M[i + k * s];
      /* the step's residual norm is read with the next wait; without a norm (KSP_NORM_NONE) the step is done now, so that
         a smoother of max_it iterations makes no product past them */
      if (nonorm) PetscCall(KSPIDRSIterationDone_Private(ksp, 0.0, PETSC_FALSE));
      else pending = PETSC_TRUE;
    }
    if (ksp->reason) break;
    if (idrs->restart) continue;

    /* omega step: r is orthogonal to P, v = K^{-1} r (right) or r (left), t = A' v */
    if (!left) {
      PetscCall(KSP_PCApply(ksp, R, V));
      PetscCall(KSP_MatMult(ksp, A, V, T));
    } else {
      Vec AR = wtrue ? ZT : V;

      PetscCall(KSP_MatMult(ksp, A, R, AR));
      PetscCall(KSP_PCApply(ksp, AR, T));
    }
    PetscCall(KSPIDRSDevRead_Private(R));
    PetscCall(KSPIDRSDevRead_Private(T));
    xs[0] = dR;
    ys[0] = dR;
    xs[1] = dT;
    ys[1] = dT;
    xs[2] = dR;
    ys[2] = dT;
    PetscCall(PetscLogEventBegin(PBG_IDRSReduce, ksp, 0, 0, 0));
    PetscCall(KSPIDRSDots_CUDA(idrs->dev, n, 3, xs, ys));
    PetscCall(PetscLogEventEnd(PBG_IDRSReduce, ksp, 0, 0, 0));
    PetscCall(KSPIDRSFusedResults_Private(ksp, 3, sc, pending ? &sq : NULL));
    if (pending) {
      dp = KSPIDRSSqrt_Private(sq);
      KSPCheckNorm(ksp, dp);
      PetscCall(KSPIDRSIterationDone_Private(ksp, dp, PETSC_FALSE));
      pending = PETSC_FALSE;
      if (ksp->reason) break;
      if (idrs->restart) continue;
    }
    nr = KSPIDRSSqrt_Private(PetscRealPart(sc[0]));
    nt = KSPIDRSSqrt_Private(PetscRealPart(sc[1]));
    tr = sc[2];
    PetscCall(KSPIDRSOmega_Private(ksp, nr, nt, tr, &om));
    if (ksp->reason) break;
    /* x += omega v (left: r), r -= omega t, rt -= omega zt; ||r|| (||rt||) and the next cycle's f = P^H r */
    PetscCall(KSPIDRSDevRead_Private(left ? R : V));
    if (wtrue) PetscCall(KSPIDRSDevRead_Private(ZT));
    for (i = 0; i < s; i++) PetscCall(KSPIDRSDevRead_Private(P[i]));
    PetscCall(KSPIDRSDevWrite_Private(X));
    PetscCall(KSPIDRSDevWrite_Private(R));
    if (wtrue) PetscCall(KSPIDRSDevWrite_Private(RT));
    PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
    PetscCall(KSPIDRSOmegaUpdate_CUDA(idrs->dev, n, om, left ? dR : dV, dT, dZT, dX, dR, dRT, s, (const PetscScalar *const *)dP));
    PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
    PetscCall(KSPIDRSFusedResults_Private(ksp, s, f, nonorm ? NULL : &sq));
    dp = nonorm ? 0.0 : KSPIDRSSqrt_Private(sq);
    KSPCheckNorm(ksp, dp);
    PetscCall(KSPIDRSIterationDone_Private(ksp, dp, PETSC_TRUE));

    /* residual replacement at the end of a cycle: r (and rt) recomputed, and f with them */
    if (!ksp->reason && !idrs->restart && idrs->replacement && !nonorm && dp < KSPIDRS_REPLACEMENT_DROP * ref) {
      PetscCall(KSPIDRSResidual_Private(ksp, X, R, RT, T));
      idrs->nreplaced++;
      ref = dp;
      PetscCall(PetscInfo(ksp, "KSPIDRS residual replacement %" PetscInt_FMT " at iteration %" PetscInt_FMT ", residual norm %g\n", idrs->nreplaced, ksp->its, (double)dp));
      PetscCall(KSPIDRSFusedPR_Private(ksp, n, dP, dR, f));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The recurrences keep the iterate itself in ksp->vec_sol, with either side (see above): KSPBuildSolutionDefault() would
   apply K^{-1} to it under right preconditioning (as for GMRES, whose vec_sol is the preconditioned variable), and
   -ksp_monitor_true_residual and KSPBuildSolution() mid-solve would then report b - A K^{-1} x. */
static PetscErrorCode KSPBuildSolution_IDRS(KSP ksp, Vec v, Vec *V)
{
  PetscFunctionBegin;
  if (v) {
    PetscCall(VecCopy(ksp->vec_sol, v));
    if (V) *V = v;
  } else if (V) *V = ksp->vec_sol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSolve_IDRS(KSP ksp)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscBool fused;

  PetscFunctionBegin;
  PetscCall(KSPIDRSWork_Private(ksp));
  PetscCall(KSPIDRSFusedApplicable_Private(ksp, &fused));
  idrs->fused_used = fused;
  if (fused) PetscCall(KSPSolve_IDRS_Fused(ksp));
  else PetscCall(KSPSolve_IDRS_Vec(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_IDRS(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPIDRSFreeWork_Private((KSP_IDRS *)ksp->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDestroy_IDRS(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPReset_IDRS(ksp));
  PetscCall(KSPIDRSDeviceDestroy_CUDA(&((KSP_IDRS *)ksp->data)->dev));
  PetscCall(KSPDestroyDefault(ksp));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetS_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetS_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetAngle_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetAngle_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetSmoothing_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetSmoothing_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetReplacement_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetReplacement_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetSeed_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetSeed_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_IDRS(KSP ksp, PetscViewer viewer)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    const char *norm;

    if (ksp->normtype == KSP_NORM_NONE) norm = "no norm (KSP_NORM_NONE): max_it iterations";
    else if (ksp->normtype == KSP_NORM_PRECONDITIONED) norm = "preconditioned residual K^{-1}(b - A x) (left preconditioning)";
    else if (ksp->pc_side == PC_LEFT) norm = "true residual b - A x (left preconditioning: kept as a second recurrence with A U)";
    else norm = "true residual b - A x (right preconditioning: the recurrence residual)";
    PetscCall(PetscViewerASCIIPrintf(viewer, "  IDR(s) with biorthogonalisation: s (shadow space dimension) = %" PetscInt_FMT "\n", idrs->s));
    if (idrs->work && idrs->ws < idrs->s) PetscCall(PetscViewerASCIIPrintf(viewer, "  s capped at the size %" PetscInt_FMT " of the system: the last solve ran with s = %" PetscInt_FMT "\n", idrs->wN, idrs->ws));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  omega: minimal residual, angle (kappa) = %g%s\n", (double)idrs->angle, idrs->angle > 0.0 ? "" : " (off)"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  minimal residual smoothing: %s\n", idrs->smoothing ? "on" : "off"));
    if (idrs->replacement) PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement: on (r = b - A x at the end of a cycle after a drop by %g); replacements in the last solve: %" PetscInt_FMT "\n", KSPIDRS_REPLACEMENT_DROP, idrs->nreplaced));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement: off\n"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  shadow space: seed %" PetscInt_FMT " (random by global index, orthonormalised: the same on any number of ranks)\n", idrs->seed));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  convergence test on the %s\n", norm));
    if (idrs->check_true) PetscCall(PetscViewerASCIIPrintf(viewer, "  a convergence is confirmed on the residual of the iterate (-ksp_idrs_true_residual_check); restarts in the last solve: %" PetscInt_FMT "\n", idrs->nrestarts));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  convergence not confirmed on the residual of the iterate (-ksp_idrs_true_residual_check 0)\n"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  divergence test (dtol) at the end of each cycle: inner steps above it in the last solve: %" PetscInt_FMT "\n", idrs->npeaks));
    if (idrs->stagnated) PetscCall(PetscViewerASCIIPrintf(viewer, "  the last solve stopped at the attainable accuracy: the residual of the iterate stayed at %g (best %g) over %" PetscInt_FMT " restarts; the tolerance is below what this precision attains\n", (double)ksp->rnorm, (double)idrs->best_true, idrs->nrestarts));
    if (!idrs->path[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "  vector work: fused CUDA kernels on CUDA vectors (-ksp_idrs_fused %s), else PETSc Vec operations; not solved yet\n", idrs->fused ? "1" : "0"));
    else if (!idrs->fused_used || !idrs->dev) PetscCall(PetscViewerASCIIPrintf(viewer, "  vector work in the last solve: %s\n", idrs->path));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "  vector work in the last solve: %s: %" PetscInt_FMT " kernels (events KSPIDRSUpdate, KSPIDRSReduce), %" PetscInt_FMT " host synchronisations for %" PetscInt_FMT " iterations, %.3g GB of vectors moved\n", idrs->path, idrs->dev->launches, idrs->dev->waits, ksp->its, 1e-9 * idrs->dev->bytes));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_IDRS(KSP ksp, PetscOptionItems PetscOptionsObject)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscReal angle;
  PetscInt  s, seed;
  PetscBool flg, b;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP IDR(s) with biorthogonalisation (idrs) options");
  PetscCall(PetscOptionsInt("-ksp_idrs_s", "Shadow space dimension", "KSPIDRSSetS", idrs->s, &s, &flg));
  if (flg) PetscCall(KSPIDRSSetS(ksp, s));
  PetscCall(PetscOptionsReal("-ksp_idrs_angle", "Angle kappa of the omega choice, in [0, 1] (0: plain minimal residual omega)", "KSPIDRSSetAngle", idrs->angle, &angle, &flg));
  if (flg) PetscCall(KSPIDRSSetAngle(ksp, angle));
  PetscCall(PetscOptionsBool("-ksp_idrs_smoothing", "Minimal residual smoothing of the iterates", "KSPIDRSSetSmoothing", idrs->smoothing, &b, &flg));
  if (flg) PetscCall(KSPIDRSSetSmoothing(ksp, b));
  PetscCall(PetscOptionsBool("-ksp_idrs_replacement", "Residual replacement: r = b - A x at the end of a cycle once the residual norm dropped by 1e3", "KSPIDRSSetReplacement", idrs->replacement, &b, &flg));
  if (flg) PetscCall(KSPIDRSSetReplacement(ksp, b));
  PetscCall(PetscOptionsBool("-ksp_idrs_true_residual_check", "Confirm a convergence on the residual recomputed from the iterate; restart from the iterate when it fails", "KSPIDRS", idrs->check_true, &idrs->check_true, NULL));
  PetscCall(PetscOptionsBool("-ksp_idrs_fused", "On CUDA vectors, the vector work of each step in fused kernels with one host synchronisation per step (0: PETSc's Vec operations)", "KSPIDRS", idrs->fused, &idrs->fused, NULL));
  PetscCall(PetscOptionsInt("-ksp_idrs_seed", "Seed of the shadow space (random by global index: rank-independent)", "KSPIDRSSetSeed", idrs->seed, &seed, &flg));
  if (flg) PetscCall(KSPIDRSSetSeed(ksp, seed));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A change of s, smoothing or seed changes the work vectors or the shadow space: they are made again at the next solve */
static PetscErrorCode KSPIDRSSetS_IDRS(KSP ksp, PetscInt s)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(s >= 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "KSPIDRS: the shadow space dimension s (-ksp_idrs_s) must be >= 1, got %" PetscInt_FMT, s);
  if (s != idrs->s) PetscCall(KSPIDRSFreeWork_Private(idrs));
  idrs->s = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSGetS_IDRS(KSP ksp, PetscInt *s)
{
  PetscFunctionBegin;
  *s = ((KSP_IDRS *)ksp->data)->s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSSetAngle_IDRS(KSP ksp, PetscReal angle)
{
  PetscFunctionBegin;
  PetscCheck(angle >= 0.0 && angle <= 1.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "KSPIDRS: the angle kappa (-ksp_idrs_angle) must be in [0, 1], got %g", (double)angle);
  ((KSP_IDRS *)ksp->data)->angle = angle;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSGetAngle_IDRS(KSP ksp, PetscReal *angle)
{
  PetscFunctionBegin;
  *angle = ((KSP_IDRS *)ksp->data)->angle;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSSetSmoothing_IDRS(KSP ksp, PetscBool flg)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  PetscFunctionBegin;
  if (flg != idrs->smoothing) PetscCall(KSPIDRSFreeWork_Private(idrs));
  idrs->smoothing = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSGetSmoothing_IDRS(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((KSP_IDRS *)ksp->data)->smoothing;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSSetReplacement_IDRS(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  ((KSP_IDRS *)ksp->data)->replacement = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSGetReplacement_IDRS(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((KSP_IDRS *)ksp->data)->replacement;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSSetSeed_IDRS(KSP ksp, PetscInt seed)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  PetscFunctionBegin;
  if (seed != idrs->seed) idrs->pvalid = PETSC_FALSE;
  idrs->seed = seed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSGetSeed_IDRS(KSP ksp, PetscInt *seed)
{
  PetscFunctionBegin;
  *seed = ((KSP_IDRS *)ksp->data)->seed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSSetS - Sets the shadow space dimension s of `KSPIDRS`

  Logically Collective

  Input Parameters:
+ ksp - the Krylov solver context
- s   - the shadow space dimension, >= 1 and at most the size of the system (default 4)

  Options Database Key:
. -ksp_idrs_s <s> - the shadow space dimension

  Level: intermediate

  Note:
  A cycle of IDR(s) takes s + 1 products with the preconditioned operator; the memory is 3s + 3 vectors (plus s + 2 with
  left preconditioning and the true residual norm, plus 2 with smoothing). Changing s after `KSPSetUp()` makes the work
  vectors and the shadow space again at the next solve.

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSGetS()`
@*/
PetscErrorCode KSPIDRSSetS(KSP ksp, PetscInt s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, s, 2);
  PetscTryMethod(ksp, "KSPIDRSSetS_C", (KSP, PetscInt), (ksp, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSGetS - Gets the shadow space dimension s of `KSPIDRS`

  Not Collective

  Input Parameter:
. ksp - the Krylov solver context

  Output Parameter:
. s - the shadow space dimension

  Level: intermediate

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSSetS()`
@*/
PetscErrorCode KSPIDRSGetS(KSP ksp, PetscInt *s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(s, 2);
  PetscUseMethod(ksp, "KSPIDRSGetS_C", (KSP, PetscInt *), (ksp, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSSetAngle - Sets the angle kappa of the omega choice of `KSPIDRS` ("maintaining the convergence")

  Logically Collective

  Input Parameters:
+ ksp   - the Krylov solver context
- angle - kappa in [0, 1] (default 0.7); 0 gives the plain minimal residual omega

  Options Database Key:
. -ksp_idrs_angle <kappa> - the angle

  Level: intermediate

  Note:
  omega = (t, r)/(t, t) with t = A' r minimises the residual; when |rho| = |(t, r)|/(||t|| ||r||) < kappa it is scaled by
  kappa/|rho|, which keeps the next Krylov polynomial factor from nearly vanishing (Sleijpen and van der Vorst 1995).

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSGetAngle()`
@*/
PetscErrorCode KSPIDRSSetAngle(KSP ksp, PetscReal angle)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveReal(ksp, angle, 2);
  PetscTryMethod(ksp, "KSPIDRSSetAngle_C", (KSP, PetscReal), (ksp, angle));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSGetAngle - Gets the angle kappa of the omega choice of `KSPIDRS`

  Not Collective

  Input Parameter:
. ksp - the Krylov solver context

  Output Parameter:
. angle - kappa

  Level: intermediate

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSSetAngle()`
@*/
PetscErrorCode KSPIDRSGetAngle(KSP ksp, PetscReal *angle)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(angle, 2);
  PetscUseMethod(ksp, "KSPIDRSGetAngle_C", (KSP, PetscReal *), (ksp, angle));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSSetSmoothing - Turns the minimal residual smoothing of the iterates of `KSPIDRS` on or off

  Logically Collective

  Input Parameters:
+ ksp - the Krylov solver context
- flg - `PETSC_TRUE` to smooth (default `PETSC_FALSE`)

  Options Database Key:
. -ksp_idrs_smoothing <bool> - smoothing

  Level: intermediate

  Note:
  With smoothing (Zhou and Walker, SIAM J. Sci. Comput. 15, 1994) the solution vector holds the smoothed iterate, whose
  residual norm (the one tested and monitored) never increases; the recurrence itself is unchanged. It costs two vectors,
  two inner products and a norm per iteration.

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSGetSmoothing()`
@*/
PetscErrorCode KSPIDRSSetSmoothing(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPIDRSSetSmoothing_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSGetSmoothing - Says whether `KSPIDRS` smooths its iterates

  Not Collective

  Input Parameter:
. ksp - the Krylov solver context

  Output Parameter:
. flg - `PETSC_TRUE` when smoothing is on

  Level: intermediate

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSSetSmoothing()`
@*/
PetscErrorCode KSPIDRSGetSmoothing(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscUseMethod(ksp, "KSPIDRSGetSmoothing_C", (KSP, PetscBool *), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSSetReplacement - Turns the residual replacement of `KSPIDRS` on or off

  Logically Collective

  Input Parameters:
+ ksp - the Krylov solver context
- flg - `PETSC_TRUE` to replace (default `PETSC_FALSE`)

  Options Database Key:
. -ksp_idrs_replacement <bool> - residual replacement

  Level: intermediate

  Note:
  The rule: at the end of a cycle (after the omega step), once the residual norm of the convergence test has dropped by a
  factor 1e3 since the last replacement (or the start), the recurrence residual is recomputed from the iterate,
  r = b - A x (left preconditioning: r = K^{-1}(b - A x), and the second recurrence b - A x too), at the cost of one
  product with A (and one with K^{-1}). The basis G = A' U stays. This keeps the gap between the recurrence and the true
  residual at the level of the last replacement instead of the largest residual of the run. The count of replacements
  of the last solve is shown by `KSPView()`; they are not counted as iterations.

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSGetReplacement()`
@*/
PetscErrorCode KSPIDRSSetReplacement(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPIDRSSetReplacement_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSGetReplacement - Says whether `KSPIDRS` replaces its residual

  Not Collective

  Input Parameter:
. ksp - the Krylov solver context

  Output Parameter:
. flg - `PETSC_TRUE` when residual replacement is on

  Level: intermediate

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSSetReplacement()`
@*/
PetscErrorCode KSPIDRSGetReplacement(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscUseMethod(ksp, "KSPIDRSGetReplacement_C", (KSP, PetscBool *), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSSetSeed - Sets the seed of the shadow space of `KSPIDRS`

  Logically Collective

  Input Parameters:
+ ksp  - the Krylov solver context
- seed - the seed (default 0)

  Options Database Key:
. -ksp_idrs_seed <seed> - the seed

  Level: advanced

  Note:
  Entry i of shadow vector k is a uniform random number in [-1, 1) computed from a hash of (seed, k, i), i the global
  index; the s vectors are then orthonormalised. So the shadow space, and with it the iterations, do not depend on the
  number of ranks (up to the rounding of parallel reductions), unlike `VecSetRandom()`.

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSGetSeed()`
@*/
PetscErrorCode KSPIDRSSetSeed(KSP ksp, PetscInt seed)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, seed, 2);
  PetscTryMethod(ksp, "KSPIDRSSetSeed_C", (KSP, PetscInt), (ksp, seed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPIDRSGetSeed - Gets the seed of the shadow space of `KSPIDRS`

  Not Collective

  Input Parameter:
. ksp - the Krylov solver context

  Output Parameter:
. seed - the seed

  Level: advanced

.seealso: [](ch_ksp), `KSPIDRS`, `KSPIDRSSetSeed()`
@*/
PetscErrorCode KSPIDRSGetSeed(KSP ksp, PetscInt *seed)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscAssertPointer(seed, 2);
  PetscUseMethod(ksp, "KSPIDRSGetSeed_C", (KSP, PetscInt *), (ksp, seed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  KSPIDRS - IDR(s) with biorthogonalisation, the variant of van Gijzen and Sonneveld (Algorithm 913), written so that
  its vector work can be fused on the GPU

  Options Database Keys:
+ -ksp_idrs_s <4>                 - shadow space dimension, see `KSPIDRSSetS()`
. -ksp_idrs_angle <0.7>           - angle kappa of the omega choice, in [0, 1] (0: plain minimal residual), see `KSPIDRSSetAngle()`
. -ksp_idrs_smoothing <false>     - minimal residual smoothing of the iterates, see `KSPIDRSSetSmoothing()`
. -ksp_idrs_replacement <false>   - residual replacement, see `KSPIDRSSetReplacement()`
. -ksp_idrs_seed <0>              - seed of the rank-independent shadow space, see `KSPIDRSSetSeed()`
. -ksp_idrs_fused <true>          - on CUDA vectors, the fused device path (below); false: PETSc's Vec operations
- -ksp_idrs_true_residual_check <true> - confirm a convergence on b - A x recomputed from the iterate (K^{-1}(b - A x) for
                                    the preconditioned norm), restarting from the iterate when it has not converged

  Level: intermediate

  Notes:
  Preconditioning: right (the default) and left. The default norm is the unpreconditioned (true) residual, as in the
  protocol of the paper; with right preconditioning it is the residual of the recurrence, with left preconditioning a
  second recurrence b - A x is kept (s + 2 more vectors, no more products with A). `-ksp_norm_type preconditioned`
  with `-ksp_pc_side left` tests the preconditioned residual instead.

  Iterations are counted as PETSc's `KSPIDR` counts them: one per product with the preconditioned operator, s + 1 per
  cycle, each followed by the convergence test, `KSPMonitor()` and the residual history.

  The tested norm is that of a recurrence residual, which drifts from the residual of the iterate in finite precision
  (by 10x and more on stiff problems). So a convergence is confirmed on the residual recomputed from the iterate (one
  more product with the operator at the end); when it has not converged, the solve restarts from the iterate with an
  empty basis and goes on (`-info` reports it, `-ksp_view` counts it). With smoothing the smoothed iterate is checked,
  and the recurrences restart from it. When three restarts in a row do not lower the residual of the iterate below the
  best one of the earlier restarts, the tolerance is below the accuracy that the recurrences attain in this precision
  (about eps ||A|| ||x||), and the solve stops there with `KSP_DIVERGED_BREAKDOWN`, saying so in `-info` and
  `-ksp_view`, instead of restarting until max_it. So the converged reason never says CONVERGED while b - A x is
  above the tolerance (unless `-ksp_idrs_true_residual_check 0`).

  The divergence test (`-ksp_divtol`) counts at the end of each cycle only: the residual of an inner step may peak far
  above it and come back (`-info` reports such peaks, `-ksp_view` counts them).

  A zero inner product that a division needs (M(k,k) = p_k^H g_k, or (A'r, r) in the omega step) stops the solve with
  `KSP_DIVERGED_BREAKDOWN`; a residual or inner product that is infinite or NaN with `KSP_DIVERGED_NANORINF`.

  Differences from PETSc's `KSPIDR` (`-ksp_type idr`), which implements the same algorithm:
  - the iterate x is kept by the recurrences for both sides (the paper's form of right preconditioning), so nothing is
    unwound at the end and smoothing and replacement see the real iterate;
  - the default test is on the true residual, also with left preconditioning;
  - the biorthogonalisation of a step takes one `VecMDot()` (all s inner products of g_k with P at once) and the new
    column of M and the coefficients come from a small triangular solve on the host, where `KSPIDR` takes k `VecDot()`s
    and k pairs of `VecAXPY()`; the updates are `VecMAXPY()`s: groups that a fused GPU path replaces;
  - the shadow space comes from a hash of the global index and a seed, so it does not depend on the number of ranks;
  - minimal residual smoothing and residual replacement are available.

  The fused device path (CUDA vectors, real double scalars, s <= 16, no smoothing): each group of vector updates of a
  step is one kernel over all its vectors (v = r - G c with U_k = omega v + U c; the biorthogonalisation of G_k, U_k
  (Z_k) together with the updates of r, x (rt) and the residual norm; the omega update together with the norm and the
  next cycle's P^H r), the coefficients travel as kernel arguments, and a reduction finishes on the device (in a fixed
  order: deterministic) into host-mapped memory. A step waits for the device once and makes one `MPI_Allreduce()`: the
  residual norm of a step is read with the reduction of the next step, and its convergence test runs before that step
  changes x or r, so the iterations, iterate and residual are those of the Vec path (the last step leaves one product
  with the operator unused). `-ksp_view` shows the path taken, the kernels, waits and bytes of the last solve; the
  events are `KSPIDRSUpdate` and `KSPIDRSReduce`.

  References:
+ * - M. B. van Gijzen and P. Sonneveld, Algorithm 913: An elegant IDR(s) variant that efficiently exploits
      biorthogonality properties, ACM Trans. Math. Softw. 38(1), 2011.
. * - G. L. G. Sleijpen and H. A. van der Vorst, Maintaining convergence properties of BiCGstab methods in finite precision
      arithmetic, Numer. Algorithms 10, 1995.
. * - L. Zhou and H. F. Walker, Residual smoothing techniques for iterative methods, SIAM J. Sci. Comput. 15, 1994.
- * - H. Anzt et al., Optimization and performance evaluation of the IDR iterative Krylov solver on GPUs, IJHPCA 2016.

.seealso: [](ch_ksp), `KSPCreate()`, `KSPSetType()`, `KSPIDR`, `KSPBCGS`, `KSPGMRES`, `KSPIDRSSetS()`, `KSPIDRSSetAngle()`,
          `KSPIDRSSetSmoothing()`, `KSPIDRSSetReplacement()`, `KSPIDRSSetSeed()`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_IDRS(KSP ksp)
{
  KSP_IDRS *idrs;

  PetscFunctionBegin;
  PetscCall(PetscNew(&idrs));
  idrs->s     = 4;
  idrs->angle = 0.7;
  idrs->fused      = PETSC_TRUE;
  idrs->check_true = PETSC_TRUE;
  ksp->data        = (void *)idrs;

  /* the true residual is the default for either side; right preconditioning is the default side */
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_RIGHT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 1));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_RIGHT, 1)); /* multigrid smoothers: a fixed number of iterations */
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));

  ksp->ops->setup          = KSPSetUp_IDRS;
  ksp->ops->solve          = KSPSolve_IDRS;
  ksp->ops->reset          = KSPReset_IDRS;
  ksp->ops->destroy        = KSPDestroy_IDRS;
  ksp->ops->view           = KSPView_IDRS;
  ksp->ops->setfromoptions = KSPSetFromOptions_IDRS;
  ksp->ops->buildsolution  = KSPBuildSolution_IDRS;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;

  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetS_C", KSPIDRSSetS_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetS_C", KSPIDRSGetS_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetAngle_C", KSPIDRSSetAngle_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetAngle_C", KSPIDRSGetAngle_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetSmoothing_C", KSPIDRSSetSmoothing_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetSmoothing_C", KSPIDRSGetSmoothing_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetReplacement_C", KSPIDRSSetReplacement_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetReplacement_C", KSPIDRSGetReplacement_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSSetSeed_C", KSPIDRSSetSeed_IDRS));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPIDRSGetSeed_C", KSPIDRSGetSeed_IDRS));
  PetscFunctionReturn(PETSC_SUCCESS);
}
