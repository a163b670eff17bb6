/* KSPIDRS: IDR(s) with biorthogonalisation. The type: work vectors, options, view, the setters and the manual page; a solve
   takes the fused device path (idrs_fused.c) or the Vec path (idrs_vec.c), both built from idrs_step.c.
   Algorithm: van Gijzen and Sonneveld, "Algorithm 913: An elegant IDR(s) variant that efficiently exploits
   biorthogonality properties", ACM TOMS 38(1), 2011 (its idrs.m), with the omega of Sleijpen and van der Vorst,
   "Maintaining convergence properties of BiCGstab methods in finite precision arithmetic", Numer. Algorithms 10, 1995.

   The vector work of one step is grouped so that a fused device path can take a group over whole: the s inner products
   of a step are one VecMDot, the updates with the s basis vectors are VecMAXPY, and the s x s systems are solved on the
   host from the scalars of that VecMDot. */
#include <../src/ksp/idrs/idrsimpl.h>

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
    PetscCheck(nrm > PETSC_SQRT_MACHINE_EPSILON, PetscObjectComm((PetscObject)ksp), PETSC_ERR_PLIB, "KSPIDRS: shadow vector %" PetscInt_FMT " of %" PetscInt_FMT " is (numerically) dependent on the others (norm %g before normalisation); global size %" PetscInt_FMT, k,
               idrs->ws, (double)nrm, N);
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
  n        = 3 * s + 3 + (wtrue ? s + 2 : 0) + (idrs->smoothing ? 2 : 0);
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
    idrs->Z = idrs->work + q;
    q += s;
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

/* The recurrences keep the iterate itself in ksp->vec_sol, with either side (idrs_vec.c): KSPBuildSolutionDefault() would
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

/* -ksp_idrs_profile: the device time of the last fused solve by piece, per iteration (this rank's) */
static PetscErrorCode KSPIDRSViewProfile_Private(KSP ksp, PetscViewer viewer)
{
  KSP_IDRS             *idrs  = (KSP_IDRS *)ksp->data;
  const KSPIDRSProfile *pr    = idrs->dev->profile;
  const double          us    = 1e3 / (double)ksp->its; /* milliseconds in all -> microseconds an iteration */
  double                total = 0.0;

  PetscFunctionBegin;
  for (int p = 0; p < KSPIDRS_NUM_PHASES; p++) total += pr->ms[p];
  PetscCall(PetscViewerASCIIPrintf(viewer, "  profile of the last solve (-ksp_idrs_profile, CUDA events, rank 0), us an iteration: %.2f in all = operator %.2f + PC %.2f + vector updates %.2f + reductions %.2f + device idle, waiting for the host %.2f; host: %.2f waiting for the device, %.2f in MPI_Allreduce(), %.2f from there to the next launch\n", us * total, us * pr->ms[KSPIDRS_PHASE_OPERATOR], us * pr->ms[KSPIDRS_PHASE_PC], us * pr->ms[KSPIDRS_PHASE_UPDATE], us * pr->ms[KSPIDRS_PHASE_REDUCE], us * pr->ms[KSPIDRS_PHASE_IDLE],
                                   1e6 * pr->wait_s / (double)ksp->its, 1e6 * pr->allreduce_s / (double)ksp->its, 1e6 * pr->after_s / (double)ksp->its));
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
    PetscCall(PetscViewerASCIIPrintf(viewer, "  divergence test (dtol) at the end of each cycle, %d in a row: in the last solve inner steps above it: %" PetscInt_FMT ", peaks of cycle ends above it: %" PetscInt_FMT "\n", KSPIDRS_DTOL_CYCLES, idrs->npeaks,
                                     idrs->ncyclepeaks));
    if (idrs->stagnated)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  the last solve stopped at the attainable accuracy: the residual of the iterate stayed at %g (best %g) over %" PetscInt_FMT " restarts; the tolerance is below what this precision attains\n",
                                       (double)ksp->rnorm, (double)idrs->best_true, idrs->nrestarts));
    if (!idrs->path[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "  vector work: fused CUDA kernels on CUDA vectors (-ksp_idrs_fused %s), else PETSc Vec operations; not solved yet\n", idrs->fused ? "1" : "0"));
    else if (!idrs->fused_used || !idrs->dev) PetscCall(PetscViewerASCIIPrintf(viewer, "  vector work in the last solve: %s\n", idrs->path));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "  vector work in the last solve: %s: %" PetscInt_FMT " kernels (events KSPIDRSUpdate, KSPIDRSReduce), %" PetscInt_FMT " host synchronisations for %" PetscInt_FMT " iterations, %.3g GB of vectors moved\n",
                                       idrs->path, idrs->dev->launches, idrs->dev->waits, ksp->its, 1e-9 * idrs->dev->bytes));
    if (idrs->fused_used && idrs->dev && idrs->dev->profile && idrs->profile && ksp->its > 0) PetscCall(KSPIDRSViewProfile_Private(ksp, viewer));
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
  PetscCall(
    PetscOptionsBool("-ksp_idrs_profile", "On the fused path, time the pieces of each step with CUDA events (operator, PC, vector updates, reductions, the device waiting for the host) and show them in -ksp_view", "KSPIDRS", idrs->profile, &idrs->profile, NULL));
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
- s   - the shadow space dimension, >= 1 (default 4); a solve of a system of global size N < s runs with s = N

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
- angle - kappa in [0, 1] (default 0: the plain minimal residual omega)

  Options Database Key:
. -ksp_idrs_angle <kappa> - the angle

  Level: intermediate

  Note:
  omega = (t, r)/(t, t) with t = A' r minimises the residual; when |rho| = |(t, r)|/(||t|| ||r||) < kappa it is scaled by
  kappa/|rho|, which keeps the next Krylov polynomial factor from nearly vanishing (Sleijpen and van der Vorst 1995).
  The default is 0 (no scaling), by measurement (issue 22, IDR(4) with vbjacobi, iterations with kappa 0 against 0.7):
  snes ex19 512^2 3948 against 7990 (and 1448^2 on 4 GPUs, rtol 1e-5: 4188, where 0.7 ended DIVERGED_DTOL after 865);
  ts ex5 1024^2 8873 against 9129; on the host, rtol 1e-9 of the true residual, right preconditioning: bcsstk17 3704
  against 7097, bcsstk18 1952 against 2864, s1rmt3m1 740 against 869, s2rmq4m1 1740 against 2137, utm300 183 against
  206, and within 2% on add32, bar, cavity64, grayscott128 and elasticity3d (bench/results/idrs_angle_*_s16.*).

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
. -ksp_idrs_angle <0>             - angle kappa of the omega choice, in [0, 1] (0: plain minimal residual), see `KSPIDRSSetAngle()`
. -ksp_idrs_smoothing <false>     - minimal residual smoothing of the iterates, see `KSPIDRSSetSmoothing()`
. -ksp_idrs_replacement <false>   - residual replacement, see `KSPIDRSSetReplacement()`
. -ksp_idrs_seed <0>              - seed of the rank-independent shadow space, see `KSPIDRSSetSeed()`
. -ksp_idrs_fused <true>          - on CUDA vectors, the fused device path (below); false: PETSc's Vec operations
. -ksp_idrs_profile <false>       - on the fused path, time each piece of a step with CUDA events (operator, PC, vector
                                    updates, reductions, the device idle while the host waits, reduces and launches),
                                    shown per iteration by -ksp_view
- -ksp_idrs_true_residual_check <true> - confirm a convergence on b - A x recomputed from the iterate (K^{-1}(b - A x) for
                                    the preconditioned norm), restarting from the iterate when it has not converged

  Level: intermediate

  Notes:
  Preconditioning: right (the default) and left. The default norm is the unpreconditioned (true) residual, as in the
  protocol of the paper; with right preconditioning it is the residual of the recurrence, with left preconditioning a
  second recurrence b - A x is kept (s + 2 more vectors, no more products with A). `-ksp_norm_type preconditioned`
  with `-ksp_pc_side left` tests the preconditioned residual instead. `KSP_NORM_NONE` (`-ksp_norm_type none`, what
  `PCMG` and `PCGAMG` set on their level smoothers, so `-mg_levels_ksp_type idrs` works) is supported with either side:
  no norm is computed (the monitors and the convergence test see 0), no true-residual check or residual replacement is
  made, and the solve runs max_it iterations: it ends with `KSP_CONVERGED_ITS` under `KSPConvergedSkip()` (what the
  smoothers have), `KSP_DIVERGED_ITS` under the default test, as PETSc's other methods. The fused path waits for no norm.
  A residual that becomes exactly zero (an exact preconditioner, a 1 x 1 system, a zero right-hand side) ends such a
  solve early with `KSP_CONVERGED_HAPPY_BREAKDOWN` (the iterate is exact), where `KSPIDR` reports a breakdown.

  A shadow space dimension s above the global size N of the system runs as IDR(N), which is exact after N + 1 products
  in exact arithmetic (`KSPIDR` solves such systems too); `KSPView()` says so.

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

  The divergence test (`-ksp_divtol`) counts at the end of each cycle only, and it takes three cycle ends in a row above
  the tolerance: the residual of an inner step, and of a single cycle end, may peak far above it and come back within
  the next cycle (`-info` reports such peaks, `-ksp_view` counts them). A peak of p ||b|| costs about eps p ||b|| of
  attainable accuracy, which the true-residual check below measures; a real divergence keeps growing.

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
  (Z_k) together with the updates of r, x (rt) and the residual norm; the omega update together with the norm; the
  omega step's scalars together with P^H r and P^H t, from which the next cycle's P^H r comes), the coefficients travel
  as kernel arguments, and a reduction finishes on the device (in a fixed order: deterministic) into host-mapped memory.
  A step waits for the device once and makes one `MPI_Allreduce()`: the residual norm of a step is read with the
  reduction of the next step, and its convergence test runs before that step changes x or r, so the iterations, iterate
  and residual are those of the Vec path up to rounding (the last step leaves one product with the operator unused; a
  residual replacement at a cycle's end makes the next cycle's first step again). `-ksp_view` shows the path taken, the kernels, waits and bytes of the last solve; the
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
  idrs->s          = 4;
  idrs->angle      = 0.0; /* by measurement: see KSPIDRSSetAngle() */
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
