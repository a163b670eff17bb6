/* KSPIDRS: the solve on PETSc's Vec operations (any vector type; the reference of the fused path), from the step
   pieces of idrs_step.c */
#include <../src/ksp/idrs/idrsimpl.h>

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
PetscErrorCode KSPSolve_IDRS_Vec(KSP ksp)
{
  KSP_IDRS    *idrs = (KSP_IDRS *)ksp->data;
  PetscInt     s, i, k;
  PetscScalar *M, *f, *c, *nc, *m, *alpha, beta, om = 1.0, tr;
  PetscReal    dp = 0.0, nr, nt, ref;
  Vec          X, R, V, T, RT, ZT, XK, RN;
  Vec         *G, *U, *P, *Z;
  Mat          A;
  PetscBool    left, wtrue, nonorm = (PetscBool)(ksp->normtype == KSP_NORM_NONE);

  PetscFunctionBegin; /* the work vectors: made by KSPSolve_IDRS() before it picks the path */
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  s               = idrs->ws;
  M               = idrs->M;
  f               = idrs->f;
  c               = idrs->c;
  nc              = idrs->nc;
  m               = idrs->m;
  alpha           = idrs->alpha;
  P               = idrs->P;
  G               = idrs->G;
  U               = idrs->U;
  Z               = idrs->Z;
  X               = ksp->vec_sol;
  R               = idrs->r;
  V               = idrs->v;
  T               = idrs->t;
  RT              = idrs->rt;
  ZT              = idrs->zt;
  left            = (PetscBool)(ksp->pc_side == PC_LEFT);
  wtrue           = idrs->wtrue;
  XK              = idrs->smoothing ? idrs->xr : X; /* the recurrence iterate */
  RN              = wtrue ? RT : R;                 /* the residual whose norm is tested */
  idrs->nreplaced = 0;

  if (idrs->smoothing) PetscCall(VecCopy(X, XK));
  PetscCall(KSPIDRSInitial_Private(ksp, ksp->guess_zero ? NULL : XK, &dp));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);

  KSPIDRSResetCounts_Private(ksp);
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
