/* PCApplyRichardson() of PCVBJACOBI: damped block Jacobi sweeps, y += d D^{-1} (b - A y), for KSPRICHARDSON (a multigrid
   smoother: -mg_levels_ksp_type richardson -mg_levels_pc_type vbjacobi); and the steps of KSPCHEBYSHEV's first-kind
   iteration fused the same way (PCApplyChebyshevSweeps_C, which src/ksp/chebyshev calls). On the GPU, where the blocks are the BSR blocks
   of the matrix (baijksparse, bs 2..6, one process, FP64 inverses, Amat = Pmat), each sweep
   is one kernel (cuda/vbjacobi_richardson.cu) that reads the matrix, the inverses and the gathered y once and writes the
   new y: the unfused sweep is a residual (matrix, y, b, r), an apply (inverses, r, z) and an update (z, y, y). The
   sweeps alternate between y and the work vector, since a Jacobi sweep reads the old y of the neighbours. Elsewhere
   (host vectors, MPI, other blocks) the same sweeps run unfused. As PCSOR's, the sweeps run `its` times and test no
   tolerance (the multigrid smoothers that call it skip the convergence test). */
#include <../src/pc/vbjacobi/vbjacobicuda.h>

/* Whether the sweeps can be fused for these vectors: the conditions above, and the device view of the matrix */
static PetscErrorCode FusedUsable(PC pc, Vec b, Vec y, PCVBJacobiDeviceMat *dm, PetscBool *fused)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  PetscMPIInt  size;
  PetscBool    dev, usable;

  PetscFunctionBegin;
  *fused = PETSC_FALSE;
  if (!jac->use_gpu || pc->mat != pc->pmat || jac->blocks.precision != PC_VBJACOBI_PRECISION_DOUBLE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &dev, VECSEQCUDA, VECMPICUDA, ""));
  if (dev) PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &dev, VECSEQCUDA, VECMPICUDA, ""));
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCVBJacobiGetDeviceMat_Private(pc, dm, &usable));
  if (!usable || dm->bs < PC_VBJACOBI_RICHARDSON_MIN_BS || dm->bs > PC_VBJACOBI_RICHARDSON_MAX_BS) PetscFunctionReturn(PETSC_SUCCESS);
  /* uniform blocks of the matrix's block size: the blocks are the BSR blocks */
  *fused = (PetscBool)(jac->blocks.maxk == dm->bs && jac->blocks.nblocks * dm->bs == dm->nrows);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values the fused sweeps read: the matrix's own (NULL), or under -pc_vbjacobi_sweep_precision single their copy in
   single precision, made again when the matrix object, its state (any change of values raises it) or its device array
   changed since it was made */
static PetscErrorCode SweepValues(PC pc, const PCVBJacobiDeviceMat *dm, const float **val32)
{
  PC_VBJacobi           *jac = (PC_VBJacobi *)pc->data;
  PCVBJacobiSweepValues *sv  = &jac->sweep_values;
  PetscObjectState       state;

  PetscFunctionBegin;
  *val32 = NULL;
  if (!jac->sweep_single) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectStateGet((PetscObject)pc->mat, &state));
  if (!sv->d_val || sv->src != dm->d_values || sv->id != ((PetscObject)pc->mat)->id || sv->state != state) {
    PetscCall(PCVBJacobiSweepValuesSingle_CUDA(dm, sv));
    sv->src   = dm->d_values;
    sv->id    = ((PetscObject)pc->mat)->id;
    sv->state = state;
  }
  *val32 = sv->d_val;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SweepsFused(PC pc, const PCVBJacobiDeviceMat *dm, Vec b, Vec y, Vec w, PetscInt its, PetscBool guesszero)
{
  PC_VBJacobi       *jac = (PC_VBJacobi *)pc->data;
  const PetscScalar *ba;
  PetscScalar       *ya, *wa;
  PetscMemType       mb, my, mw;
  const float       *val32;

  PetscFunctionBegin;
  PetscCall(PCVBJacobiBlocksSyncInversesToDevice_CUDA(&jac->blocks)); /* after a host setup, once */
  PetscCall(SweepValues(pc, dm, &val32));
  PetscCall(VecGetArrayReadAndMemType(b, &ba, &mb));
  PetscCall(VecGetArrayAndMemType(y, &ya, &my));
  PetscCall(VecGetArrayAndMemType(w, &wa, &mw));
  PetscCheck(PetscMemTypeDevice(mb) && PetscMemTypeDevice(my) && PetscMemTypeDevice(mw), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the fused sweeps need device vectors");
  for (PetscInt k = 0; k < its; k++) {
    const PetscScalar *src = k % 2 ? wa : ya;
    PetscScalar       *dst = k % 2 ? ya : wa;

    PetscCall(PCVBJacobiRichardsonSweep_CUDA(dm, val32, jac->sweep_lanes, &jac->blocks, jac->richardson_damping, 1.0, ba, guesszero && k == 0 ? NULL : src, NULL, dst));
  }
  PetscCall(VecRestoreArrayAndMemType(w, &wa));
  PetscCall(VecRestoreArrayAndMemType(y, &ya));
  PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  if (its % 2) PetscCall(VecCopy(w, y)); /* the last sweep wrote the work vector */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same sweeps as residual, apply and update: w = b - A y, z = D^{-1} w, y += d z */
static PetscErrorCode SweepsUnfused(PC pc, Vec b, Vec y, Vec w, PetscInt its, PetscBool guesszero)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  Vec          z;

  PetscFunctionBegin;
  if (jac->richardson_work) { /* made for vectors of another type or size: made again */
    PetscBool same;
    PetscInt  nw, nb;

    PetscCall(PetscStrcmp(((PetscObject)jac->richardson_work)->type_name, ((PetscObject)b)->type_name, &same));
    PetscCall(VecGetLocalSize(jac->richardson_work, &nw));
    PetscCall(VecGetLocalSize(b, &nb));
    if (!same || nw != nb) PetscCall(VecDestroy(&jac->richardson_work));
  }
  if (!jac->richardson_work) PetscCall(VecDuplicate(b, &jac->richardson_work));
  z = jac->richardson_work;
  for (PetscInt k = 0; k < its; k++) {
    if (guesszero && k == 0) {
      PetscCall(PCVBJacobiApplyBlocks_Private(pc, b, z, PETSC_FALSE));
      PetscCall(VecAXPBY(y, jac->richardson_damping, 0.0, z));
    } else {
      PetscCall(MatResidual(pc->mat, b, y, w));
      PetscCall(PCVBJacobiApplyBlocks_Private(pc, w, z, PETSC_FALSE));
      PetscCall(VecAXPY(y, jac->richardson_damping, z));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCApplyRichardson_VBJacobi(PC pc, Vec b, Vec y, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_VBJacobi        *jac = (PC_VBJacobi *)pc->data;
  PCVBJacobiDeviceMat dm;
  PetscBool           fused;

  PetscFunctionBegin;
  (void)rtol, (void)abstol, (void)dtol; /* no tolerance is tested (see above) */
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  if (jac->failed) { /* PETSc's convention: a failed preconditioner returns Inf, so the KSP stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FusedUsable(pc, b, y, &dm, &fused));
  if (fused && jac->richardson_fused != 1) PetscCall(PetscInfo(pc, "Richardson sweeps fused on the GPU: %" PetscInt_FMT " blocks of %" PetscInt_FMT ", damping %g\n", jac->blocks.nblocks, dm.bs, (double)jac->richardson_damping));
  if (!fused && jac->richardson_fused != 0) PetscCall(PetscInfo(pc, "Richardson sweeps unfused (residual, apply, update), damping %g\n", (double)jac->richardson_damping));
  jac->richardson_fused = fused ? 1 : 0;
  PetscCall(PetscLogEventBegin(PBG_VBJacobiRichardson, pc, b, y, 0));
  if (fused) PetscCall(SweepsFused(pc, &dm, b, y, w, its, guesszero));
  else PetscCall(SweepsUnfused(pc, b, y, w, its, guesszero));
  PetscCall(PetscLogEventEnd(PBG_VBJacobiRichardson, pc, b, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPCHEBYSHEV's first-kind iteration as PETSc runs it with no norm (KSPSolve_Chebyshev_FirstKind(): scale s = 2 / (emax +
   emin), alpha = 1 - s emin, mu = 1 / alpha, c_0 = 1, c_1 = mu), a fused sweep a step:
     y_1 = y_0 + s D^{-1} (b - A y_0),
     y_{k+1} = w_k (y_k + s D^{-1} (b - A y_k)) + (1 - w_k) y_{k-1},  c_{k+1} = 2 mu c_k - c_{k-1},  w_k = 2 c_k / (alpha c_{k+1}),
   PETSc's VecAXPBYPCZ(p[k+1], 1 - w, w, w s, p[k-1], p[k]) after p[k+1] = D^{-1} (b - A p[k]). y_{k+1} overwrites y_{k-1}
   (each entry is read before it is written), so y and one work vector hold the iterates. done: false where the sweep
   does not fuse (the KSP then runs its own loop). */
PetscErrorCode PCApplyChebyshevSweeps_VBJacobi(PC pc, Vec b, Vec y, Vec w, PetscInt its, PetscBool guesszero, PetscReal emin, PetscReal emax, PetscBool *done)
{
  PC_VBJacobi        *jac = (PC_VBJacobi *)pc->data;
  PCVBJacobiDeviceMat dm;
  PetscBool           fused;
  const PetscScalar  *ba;
  PetscScalar        *ya, *wa, *cur, *prev;
  PetscBool           in_work;
  PetscMemType        mb, my, mw;
  PetscReal           s, alpha, mu, c_prev, c_cur;
  const float        *val32;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (jac->failed || its < 1 || !(emax > 0.0) || !(emax + emin > 0.0)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FusedUsable(pc, b, y, &dm, &fused));
  if (fused && jac->chebyshev_fused != 1) PetscCall(PetscInfo(pc, "Chebyshev steps fused on the GPU: %" PetscInt_FMT " blocks of %" PetscInt_FMT ", eigenvalue bounds %g %g\n", jac->blocks.nblocks, dm.bs, (double)emin, (double)emax));
  jac->chebyshev_fused = fused ? 1 : 0;
  if (!fused) PetscFunctionReturn(PETSC_SUCCESS);
  s      = 2.0 / (emax + emin);
  alpha  = 1.0 - s * emin;
  mu     = 1.0 / alpha;
  c_prev = 1.0;
  c_cur  = mu;
  PetscCall(PetscLogEventBegin(PBG_VBJacobiChebyshev, pc, b, y, 0));
  PetscCall(PCVBJacobiBlocksSyncInversesToDevice_CUDA(&jac->blocks)); /* after a host setup, once */
  PetscCall(SweepValues(pc, &dm, &val32));
  PetscCall(VecGetArrayReadAndMemType(b, &ba, &mb));
  PetscCall(VecGetArrayAndMemType(y, &ya, &my));
  PetscCall(VecGetArrayAndMemType(w, &wa, &mw));
  PetscCheck(PetscMemTypeDevice(mb) && PetscMemTypeDevice(my) && PetscMemTypeDevice(mw), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the fused steps need device vectors");
  PetscCall(PCVBJacobiRichardsonSweep_CUDA(&dm, val32, jac->sweep_lanes, &jac->blocks, s, 1.0, ba, guesszero ? NULL : ya, NULL, wa));
  cur  = wa;
  prev = ya;
  for (PetscInt k = 1; k < its; k++) {
    const PetscReal c_next = 2.0 * mu * c_cur - c_prev, weight = 2.0 * c_cur / (alpha * c_next);

    PetscCall(PCVBJacobiRichardsonSweep_CUDA(&dm, val32, jac->sweep_lanes, &jac->blocks, s, weight, ba, cur, prev, prev));
    c_prev         = c_cur;
    c_cur          = c_next;
    PetscScalar *t = cur;
    cur            = prev;
    prev           = t;
  }
  in_work = (PetscBool)(cur == wa); /* an odd number of steps ends in the work vector (the restores clear the pointers) */
  PetscCall(VecRestoreArrayAndMemType(w, &wa));
  PetscCall(VecRestoreArrayAndMemType(y, &ya));
  PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  if (in_work) PetscCall(VecCopy(w, y));
  PetscCall(PetscLogEventEnd(PBG_VBJacobiChebyshev, pc, b, y, 0));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
