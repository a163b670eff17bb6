/* KSPIDRS: the fused device path (CUDA vectors, real double scalars): the recurrences of idrs_vec.c with the vector work
   of each group in one kernel of cuda/idrs_cuda.cu (idrscuda.h), built from the step pieces of idrs_step.c.
   The kernels get the device arrays of a group through VecGetArray[Read]AndMemType() pairs held across that launch only;
   nothing here reads a Vec's internals. */
#include <../src/ksp/idrs/idrsimpl.h>

/* Whether this solve can take the fused device path; idrs->path says which path and why */
PetscErrorCode KSPIDRSFusedApplicable_Private(KSP ksp, PetscBool *ok)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;
  PetscBool cuda[3], bound[3], avail;
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
  /* a CUDA vector bound to the CPU hands out its host array (VecGetArrayAndMemType()): the kernels cannot take it */
  for (int i = 0; i < 3; i++) PetscCall(VecBoundToCPU(v[i], &bound[i]));
  if (bound[0] || bound[1] || bound[2]) {
    PetscCall(PetscStrncpy(idrs->path, "PETSc Vec operations (the vectors are bound to the CPU)", sizeof(idrs->path)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrncpy(idrs->path, "fused CUDA kernels (one host synchronisation per step)", sizeof(idrs->path)));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device arrays of one kernel group. Each is taken with VecGet{Array,ArrayRead}AndMemType() just before the launch
   that uses it and given back just after it (before the wait for the results), so that no device pointer outlives its
   Restore and PETSc sees every write: a vector the kernel writes is taken read-write (its device copy brought up to
   date, then marked the newer one with a new state, so that cached norms are dropped); one it only reads is taken read
   (brought up to date only when the host holds the newer copy, as after a shell operator or PC that wrote on the host).
   A vector appears once in a group. */
#define KSPIDRS_GROUP_MAX (3 * KSPIDRS_FUSED_MAX_S + 8)
typedef struct {
  PetscInt           nr, nw;
  Vec                rv[KSPIDRS_GROUP_MAX], wv[KSPIDRS_GROUP_MAX];
  const PetscScalar *ra[KSPIDRS_GROUP_MAX];
  PetscScalar       *wa[KSPIDRS_GROUP_MAX];
} KSPIDRSGroup;

static PetscErrorCode KSPIDRSGroupRead_Private(KSPIDRSGroup *g, Vec v, const PetscScalar **a)
{
  PetscMemType mtype;

  PetscFunctionBegin;
  PetscCheck(g->nr < KSPIDRS_GROUP_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: more than %d vectors read by one kernel group", KSPIDRS_GROUP_MAX);
  PetscCall(VecGetArrayReadAndMemType(v, &g->ra[g->nr], &mtype));
  g->rv[g->nr] = v;
  *a           = g->ra[g->nr++];
  PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: the fused path got a host array from a vector");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPIDRSGroupWrite_Private(KSPIDRSGroup *g, Vec v, PetscScalar **a)
{
  PetscMemType mtype;

  PetscFunctionBegin;
  PetscCheck(g->nw < KSPIDRS_GROUP_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: more than %d vectors written by one kernel group", KSPIDRS_GROUP_MAX);
  PetscCall(VecGetArrayAndMemType(v, &g->wa[g->nw], &mtype));
  g->wv[g->nw] = v;
  *a           = g->wa[g->nw++];
  PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: the fused path got a host array from a vector");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gives back every array of the group (its launch is queued on the stream, which orders it before later work) */
static PetscErrorCode KSPIDRSGroupEnd_Private(KSPIDRSGroup *g)
{
  PetscFunctionBegin;
  for (PetscInt i = g->nw - 1; i >= 0; i--) PetscCall(VecRestoreArrayAndMemType(g->wv[i], &g->wa[i]));
  for (PetscInt i = g->nr - 1; i >= 0; i--) PetscCall(VecRestoreArrayReadAndMemType(g->rv[i], &g->ra[i]));
  g->nr = g->nw = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -ksp_idrs_profile: a mark on the stream, the end of a piece of the step (idrscuda.h) */
static PetscErrorCode KSPIDRSMark_Private(KSP ksp, KSPIDRSPhase phase)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  PetscFunctionBegin;
  if (idrs->profile) {
    KSPIDRSProfile *pr = idrs->dev->profile;

    if (phase == KSPIDRS_PHASE_IDLE && pr->since > 0.0) { /* the first launch after a wait: the host's part of the gap */
      PetscLogDouble now;

      PetscCall(PetscTime(&now));
      pr->after_s += now - pr->since;
      pr->since = 0.0;
    }
    PetscCall(KSPIDRSProfileMark_CUDA(idrs->dev, phase));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A piece of a step between two profile marks: what ends at the second is charged to PHASE, the time before the first
   (the stream run dry) to the host */
#define KSPIDRSPiece(ksp, phase, call) \
  do { \
    PetscCall(KSPIDRSMark_Private((ksp), KSPIDRS_PHASE_IDLE)); \
    PetscCall(call); \
    PetscCall(KSPIDRSMark_Private((ksp), (phase))); \
  } while (0)

/* Waits for the reductions in flight and sums them over the ranks (one MPI_Allreduce): dots[0..ndots) from the result
   slots 0.., and, when nrm2 is not NULL, the squared norm of the last update into *nrm2 */
static PetscErrorCode KSPIDRSFusedResults_Private(KSP ksp, PetscInt ndots, PetscScalar dots[], PetscReal *nrm2)
{
  KSP_IDRS   *idrs = (KSP_IDRS *)ksp->data;
  PetscScalar buf[KSPIDRS_NUM_SLOTS];
  PetscInt    cnt = 0;
  PetscMPIInt size;

  PetscLogDouble t0 = 0.0, t1 = 0.0, t2 = 0.0;

  PetscFunctionBegin;
  if (idrs->profile) PetscCall(PetscTime(&t0));
  PetscCall(KSPIDRSDeviceWait_CUDA(idrs->dev));
  if (idrs->profile) PetscCall(PetscTime(&t1));
  for (PetscInt i = 0; i < ndots; i++) buf[cnt++] = idrs->dev->results[i];
  if (nrm2) buf[cnt++] = idrs->dev->results[KSPIDRS_SLOT_NORM];
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  if (size > 1 && cnt) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, buf, (PetscMPIInt)cnt, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  if (idrs->profile) {
    PetscCall(PetscTime(&t2));
    idrs->dev->profile->wait_s += t1 - t0;
    idrs->dev->profile->allreduce_s += t2 - t1;
    idrs->dev->profile->since = t2;
  }
  for (PetscInt i = 0; i < ndots; i++) dots[i] = buf[i];
  if (nrm2) *nrm2 = PetscRealPart(buf[ndots]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f = P^H r on the device (one reduction, waited for) */
static PetscErrorCode KSPIDRSFusedPR_Private(KSP ksp, KSPIDRSGroup *g, PetscInt n, PetscScalar f[])
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  const PetscScalar *xs[KSPIDRS_FUSED_MAX_S], *ys[KSPIDRS_FUSED_MAX_S], *dR;

  PetscFunctionBegin;
  PetscCall(KSPIDRSGroupRead_Private(g, idrs->r, &dR));
  for (PetscInt k = 0; k < idrs->ws; k++) {
    PetscCall(KSPIDRSGroupRead_Private(g, idrs->P[k], &xs[k]));
    ys[k] = dR;
  }
  PetscCall(PetscLogEventBegin(PBG_IDRSReduce, ksp, 0, 0, 0));
  KSPIDRSPiece(ksp, KSPIDRS_PHASE_REDUCE, KSPIDRSDots_CUDA(idrs->dev, n, idrs->ws, xs, ys));
  PetscCall(PetscLogEventEnd(PBG_IDRSReduce, ksp, 0, 0, 0));
  PetscCall(KSPIDRSGroupEnd_Private(g));
  PetscCall(KSPIDRSFusedResults_Private(ksp, idrs->ws, f, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The norm from a summed square: NaN and Inf stay what they are, for KSPCheckNorm() */
static PetscReal KSPIDRSSqrt_Private(PetscReal sq)
{
  return sq >= 0.0 ? PetscSqrtReal(sq) : sq;
}

/* What the pieces of a fused solve share: the solve's vectors and small arrays (KSP_IDRS's, under the algorithm's
   names), the kernel group being filled (empty between groups), and omega, which a cycle's inner steps take from the
   omega step before them */
typedef struct {
  PetscInt     s, n; /* the shadow space dimension, the local length of the vectors */
  PetscScalar *M, *f, *c, *m, *alpha;
  Vec          X, R, V, T, RT, ZT;
  Vec         *G, *U, *P, *Z;
  Mat          A;
  PetscBool    left, wtrue, nonorm;
  PetscScalar  om; /* 1 before the first omega step */
  KSPIDRSGroup grp;
} KSPIDRSFusedState;

/* The device (made at the first fused solve) with its counters zeroed, and the state of this solve (st comes zeroed:
   its kernel group empty) */
static PetscErrorCode KSPIDRSFusedSetup_Private(KSP ksp, KSPIDRSFusedState *st)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  PetscFunctionBegin;
  st->om     = 1.0;
  st->nonorm = (PetscBool)(ksp->normtype == KSP_NORM_NONE);
  if (!idrs->dev) PetscCall(KSPIDRSDeviceCreate_CUDA(&idrs->dev));
  idrs->dev->bytes    = 0;
  idrs->dev->launches = 0;
  idrs->dev->waits    = 0;
  PetscCall(PCGetOperators(ksp->pc, &st->A, NULL));
  st->s           = idrs->ws;
  st->M           = idrs->M;
  st->f           = idrs->f;
  st->c           = idrs->c;
  st->m           = idrs->m;
  st->alpha       = idrs->alpha;
  st->P           = idrs->P;
  st->G           = idrs->G;
  st->U           = idrs->U;
  st->Z           = idrs->Z;
  st->X           = ksp->vec_sol;
  st->R           = idrs->r;
  st->V           = idrs->v;
  st->T           = idrs->t;
  st->RT          = idrs->rt;
  st->ZT          = idrs->zt;
  st->left        = (PetscBool)(ksp->pc_side == PC_LEFT);
  st->wtrue       = idrs->wtrue;
  idrs->nreplaced = 0;
  PetscCall(VecGetLocalSize(st->R, &st->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inner step k's new U_k: c = M(k:s-1,k:s-1) \ f(k:s-1), v = r - G(:,k:s-1) c, and U_k = omega v + U(:,k:s-1) c:
   together (left) or around v = K^{-1} v (right) */
static PetscErrorCode KSPIDRSFusedNewU_Private(KSP ksp, KSPIDRSFusedState *st, PetscInt k)
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  PetscInt           s = st->s, n = st->n, i;
  PetscScalar       *M = st->M, *f = st->f, *c = st->c, om = st->om, a0[KSPIDRS_FUSED_MAX_IN], a1[KSPIDRS_FUSED_MAX_IN], *dV, *dUk;
  Vec                R = st->R, V = st->V, T = st->T, *G = st->G, *U = st->U;
  KSPIDRSGroup      *grp = &st->grp;
  const PetscScalar *x0[KSPIDRS_FUSED_MAX_IN], *x1[KSPIDRS_FUSED_MAX_IN];

  PetscFunctionBegin;
  KSPIDRSSolveC_Private(s, k, M, f, c);
  PetscCall(KSPIDRSGroupRead_Private(grp, R, &x0[0]));
  a0[0] = 1.0;
  for (i = k; i < s; i++) {
    PetscCall(KSPIDRSGroupRead_Private(grp, G[i], &x0[1 + i - k]));
    a0[1 + i - k] = -c[i];
    a1[i - k]     = c[i];
  }
  PetscCall(KSPIDRSGroupWrite_Private(grp, V, &dV));
  if (st->left) {
    PetscCall(KSPIDRSGroupWrite_Private(grp, U[k], &dUk));
    x1[0] = dUk;
    for (i = k + 1; i < s; i++) PetscCall(KSPIDRSGroupRead_Private(grp, U[i], &x1[i - k]));
    PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_UPDATE, KSPIDRSCombine_CUDA(idrs->dev, n, 1 + s - k, a0, x0, dV, om, s - k, a1, x1, dUk));
    PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
    PetscCall(KSPIDRSGroupEnd_Private(grp));
  } else {
    PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_UPDATE, KSPIDRSCombine_CUDA(idrs->dev, n, 1 + s - k, a0, x0, dV, 0.0, 0, NULL, NULL, NULL));
    PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
    PetscCall(KSPIDRSGroupEnd_Private(grp));
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_PC, KSP_PCApply(ksp, V, T));
    /* U_k = omega t + U(:,k:s-1) c */
    PetscCall(KSPIDRSGroupWrite_Private(grp, U[k], &dUk));
    x1[0] = dUk;
    for (i = k + 1; i < s; i++) PetscCall(KSPIDRSGroupRead_Private(grp, U[i], &x1[i - k]));
    PetscCall(KSPIDRSGroupRead_Private(grp, T, &x1[s - k]));
    a1[s - k] = om;
    PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_UPDATE, KSPIDRSCombine_CUDA(idrs->dev, n, 1 + s - k, a1, x1, dUk, 0.0, 0, NULL, NULL, NULL));
    PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
    PetscCall(KSPIDRSGroupEnd_Private(grp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G_k = A' U_k (left with the true residual: Z_k = A U_k kept) */
static PetscErrorCode KSPIDRSFusedNewG_Private(KSP ksp, KSPIDRSFusedState *st, PetscInt k)
{
  Mat A = st->A;
  Vec T = st->T, *G = st->G, *U = st->U, *Z = st->Z;

  PetscFunctionBegin;
  if (!st->left) KSPIDRSPiece(ksp, KSPIDRS_PHASE_OPERATOR, KSP_MatMult(ksp, A, U[k], G[k]));
  else {
    Vec AU = st->wtrue ? Z[k] : T;

    KSPIDRSPiece(ksp, KSPIDRS_PHASE_OPERATOR, KSP_MatMult(ksp, A, U[k], AU));
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_PC, KSP_PCApply(ksp, AU, G[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m = P^H G_k in one reduction, waited for; nrm2 not NULL: read with it the squared residual norm of the previous step */
static PetscErrorCode KSPIDRSFusedProjectG_Private(KSP ksp, KSPIDRSFusedState *st, PetscInt k, PetscReal *nrm2)
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  PetscInt           s = st->s, n = st->n, i;
  Vec               *G = st->G, *P = st->P;
  KSPIDRSGroup      *grp = &st->grp;
  const PetscScalar *xs[KSPIDRS_FUSED_MAX_DOTS], *ys[KSPIDRS_FUSED_MAX_DOTS];

  PetscFunctionBegin;
  PetscCall(KSPIDRSGroupRead_Private(grp, G[k], &ys[0]));
  for (i = 0; i < s; i++) {
    PetscCall(KSPIDRSGroupRead_Private(grp, P[i], &xs[i]));
    ys[i] = ys[0];
  }
  PetscCall(PetscLogEventBegin(PBG_IDRSReduce, ksp, 0, 0, 0));
  KSPIDRSPiece(ksp, KSPIDRS_PHASE_REDUCE, KSPIDRSDots_CUDA(idrs->dev, n, s, xs, ys));
  PetscCall(PetscLogEventEnd(PBG_IDRSReduce, ksp, 0, 0, 0));
  PetscCall(KSPIDRSGroupEnd_Private(grp));
  PetscCall(KSPIDRSFusedResults_Private(ksp, s, st->m, nrm2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of inner step k, after the new column of M and alpha: biorthogonalise G_k, U_k (Z_k) against p_0..p_{k-1},
   make r orthogonal to p_0..p_k, update x (rt), in one kernel that also sums ||r||^2 (||rt||^2) unless there is no
   norm; then f(k+1:s-1) = P(:,k+1:s-1)^H r on the host, updated while the kernel runs */
static PetscErrorCode KSPIDRSFusedStepUpdate_Private(KSP ksp, KSPIDRSFusedState *st, PetscInt k)
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  PetscInt           s = st->s, n = st->n, i;
  PetscScalar       *M = st->M, *f = st->f, *alpha = st->alpha, beta, *dUk, *dGk, *dZk, *dX, *dR, *dRT;
  Vec                X = st->X, R = st->R, RT = st->RT, *G = st->G, *U = st->U, *Z = st->Z;
  PetscBool          wtrue = st->wtrue, nonorm = st->nonorm;
  KSPIDRSGroup      *grp = &st->grp;
  const PetscScalar *cG[KSPIDRS_FUSED_MAX_S], *cU[KSPIDRS_FUSED_MAX_S], *cZ[KSPIDRS_FUSED_MAX_S];

  PetscFunctionBegin;
  beta = f[k] / M[k + k * s];
  for (i = 0; i < k; i++) {
    PetscCall(KSPIDRSGroupRead_Private(grp, G[i], &cG[i]));
    PetscCall(KSPIDRSGroupRead_Private(grp, U[i], &cU[i]));
    if (wtrue) PetscCall(KSPIDRSGroupRead_Private(grp, Z[i], &cZ[i]));
  }
  dZk = NULL;
  if (k) {
    PetscCall(KSPIDRSGroupWrite_Private(grp, G[k], &dGk));
    PetscCall(KSPIDRSGroupWrite_Private(grp, U[k], &dUk));
    if (wtrue) PetscCall(KSPIDRSGroupWrite_Private(grp, Z[k], &dZk));
  } else { /* at k = 0 the kernel only reads g_0, u_0 (z_0) */
    const PetscScalar *ro;

    PetscCall(KSPIDRSGroupRead_Private(grp, G[k], &ro));
    dGk = (PetscScalar *)ro;
    PetscCall(KSPIDRSGroupRead_Private(grp, U[k], &ro));
    dUk = (PetscScalar *)ro;
    if (wtrue) {
      PetscCall(KSPIDRSGroupRead_Private(grp, Z[k], &ro));
      dZk = (PetscScalar *)ro;
    }
  }
  PetscCall(KSPIDRSGroupWrite_Private(grp, R, &dR));
  PetscCall(KSPIDRSGroupWrite_Private(grp, X, &dX));
  dRT = NULL;
  if (wtrue) PetscCall(KSPIDRSGroupWrite_Private(grp, RT, &dRT));
  PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
  KSPIDRSPiece(ksp, KSPIDRS_PHASE_UPDATE, KSPIDRSStepUpdate_CUDA(idrs->dev, n, k, alpha, beta, cG, cU, wtrue ? cZ : NULL, dGk, dUk, dZk, dR, dX, dRT, (PetscBool)!nonorm));
  PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
  PetscCall(KSPIDRSGroupEnd_Private(grp));
  /* f(k+1:s-1) = P(:,k+1:s-1)^H r, updated */
  for (i = k + 1; i < s; i++) f[i] -= beta * M[i + k * s];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The omega step's products: r is orthogonal to P, v = K^{-1} r (right) or r (left), t = A' v; then sc = (r, r), (t, t),
   (r, t), pr = P^H r and pt = P^H t in one reduction, waited for (the next cycle's f = P^H (r - omega t) = pr - omega pt
   comes from them, so that the update after needs no wait); nrm2 not NULL: read with them the squared residual norm of
   the last inner step */
static PetscErrorCode KSPIDRSFusedOmegaProducts_Private(KSP ksp, KSPIDRSFusedState *st, PetscScalar sc[3], PetscScalar pr[], PetscScalar pt[], PetscReal *nrm2)
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  PetscInt           n = st->n, s = st->s;
  Mat                A = st->A;
  Vec                R = st->R, V = st->V, T = st->T, ZT = st->ZT, *P = st->P;
  KSPIDRSGroup      *grp = &st->grp;
  const PetscScalar *xs[KSPIDRS_FUSED_MAX_DOTS], *ys[KSPIDRS_FUSED_MAX_DOTS], *cr, *ct;
  PetscScalar        d[KSPIDRS_FUSED_MAX_DOTS];

  PetscFunctionBegin;
  if (!st->left) {
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_PC, KSP_PCApply(ksp, R, V));
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_OPERATOR, KSP_MatMult(ksp, A, V, T));
  } else {
    Vec AR = st->wtrue ? ZT : V;

    KSPIDRSPiece(ksp, KSPIDRS_PHASE_OPERATOR, KSP_MatMult(ksp, A, R, AR));
    KSPIDRSPiece(ksp, KSPIDRS_PHASE_PC, KSP_PCApply(ksp, AR, T));
  }
  PetscCall(KSPIDRSGroupRead_Private(grp, R, &cr));
  PetscCall(KSPIDRSGroupRead_Private(grp, T, &ct));
  xs[0] = cr;
  ys[0] = cr;
  xs[1] = ct;
  ys[1] = ct;
  xs[2] = cr;
  ys[2] = ct;
  for (PetscInt i = 0; i < s; i++) {
    PetscCall(KSPIDRSGroupRead_Private(grp, P[i], &xs[3 + i]));
    ys[3 + i]     = cr;
    xs[3 + s + i] = xs[3 + i];
    ys[3 + s + i] = ct;
  }
  PetscCall(PetscLogEventBegin(PBG_IDRSReduce, ksp, 0, 0, 0));
  KSPIDRSPiece(ksp, KSPIDRS_PHASE_REDUCE, KSPIDRSDots_CUDA(idrs->dev, n, 3 + 2 * s, xs, ys));
  PetscCall(PetscLogEventEnd(PBG_IDRSReduce, ksp, 0, 0, 0));
  PetscCall(KSPIDRSGroupEnd_Private(grp));
  PetscCall(KSPIDRSFusedResults_Private(ksp, 3 + 2 * s, d, nrm2));
  for (PetscInt i = 0; i < 3; i++) sc[i] = d[i];
  for (PetscInt i = 0; i < s; i++) {
    pr[i] = d[3 + i];
    pt[i] = d[3 + s + i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The omega step's update: x += omega v (left: r), r -= omega t, rt -= omega zt, in one kernel that also sums ||r||^2
   (||rt||^2) unless there is no norm; not waited for: the norm is read with the next wait */
static PetscErrorCode KSPIDRSFusedOmegaUpdate_Private(KSP ksp, KSPIDRSFusedState *st)
{
  KSP_IDRS          *idrs = (KSP_IDRS *)ksp->data;
  PetscInt           n    = st->n;
  PetscScalar       *dX, *dR, *dRT;
  Vec                X = st->X, R = st->R, V = st->V, T = st->T, RT = st->RT, ZT = st->ZT;
  KSPIDRSGroup      *grp = &st->grp;
  const PetscScalar *ct, *cw, *czt;

  PetscFunctionBegin;
  PetscCall(KSPIDRSGroupWrite_Private(grp, X, &dX));
  PetscCall(KSPIDRSGroupWrite_Private(grp, R, &dR));
  dRT = NULL;
  czt = NULL;
  if (st->wtrue) {
    PetscCall(KSPIDRSGroupWrite_Private(grp, RT, &dRT));
    PetscCall(KSPIDRSGroupRead_Private(grp, ZT, &czt));
  }
  if (st->left) cw = dR;
  else PetscCall(KSPIDRSGroupRead_Private(grp, V, &cw));
  PetscCall(KSPIDRSGroupRead_Private(grp, T, &ct));
  PetscCall(PetscLogEventBegin(PBG_IDRSUpdate, ksp, 0, 0, 0));
  KSPIDRSPiece(ksp, KSPIDRS_PHASE_UPDATE, KSPIDRSOmegaUpdate_CUDA(idrs->dev, n, st->om, cw, ct, czt, dX, dR, dRT, (PetscBool)!st->nonorm));
  PetscCall(PetscLogEventEnd(PBG_IDRSUpdate, ksp, 0, 0, 0));
  PetscCall(KSPIDRSGroupEnd_Private(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Residual replacement at the end of a cycle (with -ksp_idrs_replacement and a norm, its norm dp just tested) when the
   norm dropped enough since the last: r (and rt) recomputed, and f with them */
static PetscErrorCode KSPIDRSFusedReplacement_Private(KSP ksp, KSPIDRSFusedState *st, PetscReal dp, PetscReal *ref)
{
  KSP_IDRS *idrs = (KSP_IDRS *)ksp->data;

  PetscFunctionBegin;
  if (!(dp < KSPIDRS_REPLACEMENT_DROP * *ref)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPIDRSResidual_Private(ksp, st->X, st->R, st->RT, st->T));
  idrs->nreplaced++;
  *ref = dp;
  PetscCall(PetscInfo(ksp, "KSPIDRS residual replacement %" PetscInt_FMT " at iteration %" PetscInt_FMT ", residual norm %g\n", idrs->nreplaced, ksp->its, (double)dp));
  PetscCall(KSPIDRSFusedPR_Private(ksp, &st->grp, st->n, st->f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   KSPSolve_IDRS_Vec's recurrences with the vector work of each group in one kernel (cuda/idrs_cuda.cu):
     inner step k:  v = r - G c (left: and U_k = omega v + U c, the same kernel); right: v = K^{-1} v, then U_k = omega v + U c;
                    G_k = A' U_k (PETSc's MatMult and PCApply); m = P^H G_k (one reduction, the only wait of the step);
                    the biorthogonalisation of G_k, U_k (Z_k) and the updates of r, x (rt) in one kernel that also sums
                    ||r||^2 (||rt||^2).
     omega step:    t = A' v; (r, r), (t, t), (r, t), P^H r and P^H t in one reduction (the step's only wait); the next
                    cycle's f = P^H r - omega P^H t on the host; x, r (rt) updated in one kernel that also sums ||r||^2.
   So a step waits once. The residual norm of a step is read with the next wait (that of step k + 1's m, or of the omega
   step's scalars, or of the next cycle's first m for the omega step), and the convergence test of the step runs then,
   before anything that the next step does to x or r: the iterations, the iterate and the residual are those of
   KSPSolve_IDRS_Vec; the last step leaves one unneeded product behind at most. With residual replacement the omega
   step's norm is read at once (one more wait a cycle): the replacement must come before the next cycle's first step,
   which overwrites U_0 and G_0 in place.
   The convergence tests stay here, not in the pieces: KSPCheckNorm() returns from the function that calls it, and a NaN
   or Inf norm ends the solve at once.
*/
static PetscErrorCode KSPIDRSFusedIterate_Private(KSP ksp, KSPIDRSFusedState *st, PetscReal ref)
{
  KSP_IDRS   *idrs = (KSP_IDRS *)ksp->data;
  PetscInt    k;
  PetscScalar tr, sc[3] = {0.0, 0.0, 0.0}, pr[KSPIDRS_FUSED_MAX_S], pt[KSPIDRS_FUSED_MAX_S];
  PetscReal   dp, nr, nt, sq;
  PetscBool   pending     = PETSC_FALSE; /* the residual norm of the last step is still to be read, with the next wait */
  PetscBool   pending_end = PETSC_FALSE; /* that step was a cycle's omega step */

  PetscFunctionBegin;
  PetscCall(KSPIDRSFusedPR_Private(ksp, &st->grp, st->n, st->f));
  while (!ksp->reason) {
    if (idrs->restart) { /* the convergence was not confirmed on b - A x (now in r): start again from the iterate */
      PetscCall(KSPIDRSStart_Private(ksp));
      ref = ksp->rnorm;
      PetscCall(KSPIDRSFusedPR_Private(ksp, &st->grp, st->n, st->f));
    }
    /* the s inner steps: U_k, G_k = A' U_k, m = P^H G_k and the new column of M, then the update of r and x */
    for (k = 0; k < st->s && !ksp->reason; k++) {
      PetscCall(KSPIDRSFusedNewU_Private(ksp, st, k));
      PetscCall(KSPIDRSFusedNewG_Private(ksp, st, k));
      /* m = P^H G_k, read with the residual norm of the previous step */
      PetscCall(KSPIDRSFusedProjectG_Private(ksp, st, k, pending ? &sq : NULL));
      if (pending) {
        PetscBool end = pending_end;

        pending = pending_end = PETSC_FALSE;
        dp                    = KSPIDRSSqrt_Private(sq);
        KSPCheckNorm(ksp, dp);
        PetscCall(KSPIDRSIterationDone_Private(ksp, dp, end));
        if (ksp->reason || idrs->restart) break;
      }
      PetscCall(KSPIDRSNewColumn_Private(ksp, k));
      if (ksp->reason) break;
      PetscCall(KSPIDRSFusedStepUpdate_Private(ksp, st, k));
      /* the step's residual norm is read with the next wait; without a norm (KSP_NORM_NONE) the update made no reduction
         and the step is done now, so that a smoother of max_it iterations makes no product past them */
      if (st->nonorm) PetscCall(KSPIDRSIterationDone_Private(ksp, 0.0, PETSC_FALSE));
      else pending = PETSC_TRUE;
    }
    if (ksp->reason) break;
    if (idrs->restart) continue;

    /* omega step: t = A' v and the scalars of omega with P^H r, P^H t; then the update of x and r, and f for the next cycle */
    PetscCall(KSPIDRSFusedOmegaProducts_Private(ksp, st, sc, pr, pt, pending ? &sq : NULL));
    if (pending) {
      pending = PETSC_FALSE;
      dp      = KSPIDRSSqrt_Private(sq);
      KSPCheckNorm(ksp, dp);
      PetscCall(KSPIDRSIterationDone_Private(ksp, dp, PETSC_FALSE));
      if (ksp->reason) break;
      if (idrs->restart) continue;
    }
    nr = KSPIDRSSqrt_Private(PetscRealPart(sc[0]));
    nt = KSPIDRSSqrt_Private(PetscRealPart(sc[1]));
    tr = sc[2];
    PetscCall(KSPIDRSOmega_Private(ksp, nr, nt, tr, &st->om));
    if (ksp->reason) break;
    for (PetscInt i = 0; i < st->s; i++) st->f[i] = pr[i] - st->om * pt[i];
    PetscCall(KSPIDRSFusedOmegaUpdate_Private(ksp, st));
    if (st->nonorm) PetscCall(KSPIDRSIterationDone_Private(ksp, 0.0, PETSC_TRUE));
    else if (idrs->replacement) {
      /* the norm now: a replacement comes before the next cycle overwrites U_0 and G_0 */
      PetscCall(KSPIDRSFusedResults_Private(ksp, 0, NULL, &sq));
      dp = KSPIDRSSqrt_Private(sq);
      KSPCheckNorm(ksp, dp);
      PetscCall(KSPIDRSIterationDone_Private(ksp, dp, PETSC_TRUE));
      if (ksp->reason || idrs->restart) continue;
      PetscCall(KSPIDRSFusedReplacement_Private(ksp, st, dp, &ref));
    } else pending = pending_end = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fused solve: the initial residual, then the cycles (KSPIDRSFusedIterate_Private(), which a NaN or Inf norm leaves
   at once; the profile ends after it either way) */
PetscErrorCode KSPSolve_IDRS_Fused(KSP ksp)
{
  KSP_IDRS         *idrs = (KSP_IDRS *)ksp->data;
  PetscReal         dp   = 0.0;
  KSPIDRSFusedState st   = {0};

  PetscFunctionBegin;
  PetscCall(KSPIDRSFusedSetup_Private(ksp, &st));

  PetscCall(KSPIDRSInitial_Private(ksp, ksp->guess_zero ? NULL : st.X, &dp));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);

  KSPIDRSResetCounts_Private(ksp);
  if (idrs->profile) PetscCall(KSPIDRSProfileBegin_CUDA(idrs->dev));
  PetscCall(KSPIDRSStart_Private(ksp));
  PetscCall(KSPIDRSFusedIterate_Private(ksp, &st, dp));
  if (idrs->profile) PetscCall(KSPIDRSProfileEnd_CUDA(idrs->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
