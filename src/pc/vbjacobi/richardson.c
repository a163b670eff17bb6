/* PCApplyRichardson() of PCVBJACOBI: damped block Jacobi sweeps, y += d D^{-1} (b - A y), for KSPRICHARDSON (a multigrid
   smoother: -mg_levels_ksp_type richardson -mg_levels_pc_type vbjacobi); and the steps of KSPCHEBYSHEV's first-kind
   iteration fused the same way (PCApplyChebyshevSweeps_C, which src/ksp/chebyshev calls). On the GPU, where the blocks
   are the BSR blocks of the matrix (baijksparse, bs 2..6, FP64 inverses, Amat = Pmat), each sweep is one kernel
   (cuda/vbjacobi_richardson.cu) that reads the matrix, the inverses and the gathered y once and writes the new y: the
   unfused sweep is a residual (matrix, y, b, r), an apply (inverses, r, z) and an update (z, y, y). On several processes
   the kernel reads the diagonal part, and its right-hand side is b - A_o y, made by the matrix after the ghost exchange
   (PBG_OFF_PROCESS_RHS). The sweeps alternate between y and the work vector, since a Jacobi sweep reads the old y of
   the neighbours. Elsewhere (host vectors, other blocks) the same sweeps run unfused. As PCSOR's, the sweeps run `its` times and test no
   tolerance (the multigrid smoothers that call it skip the convergence test). */
#include <../src/pc/vbjacobi/vbjacobicuda.h>

/* The PC's work vector of the sweeps, like b (made again for vectors of another type or size): the unfused sweeps' z,
   the fused ones' right-hand side on several processes */
static PetscErrorCode SweepWork(PC pc, Vec b)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  if (jac->richardson_work) {
    PetscBool same;
    PetscInt  nw, nb;

    PetscCall(PetscStrcmp(((PetscObject)jac->richardson_work)->type_name, ((PetscObject)b)->type_name, &same));
    PetscCall(VecGetLocalSize(jac->richardson_work, &nw));
    PetscCall(VecGetLocalSize(b, &nb));
    if (!same || nw != nb) PetscCall(VecDestroy(&jac->richardson_work));
  }
  if (!jac->richardson_work) PetscCall(VecDuplicate(b, &jac->richardson_work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the sweeps can be fused for these vectors: the conditions above, and the device view of the matrix. On several
   processes the matrix must also give the off-process part of the residual (PBG_OFF_PROCESS_RHS, mpibaijksparse), and
   every process must fuse, since the two paths exchange ghosts differently: asked of all once after each setup (a
   process with no rows has no blocks to compare) */
static PetscErrorCode FusedUsable(PC pc, Vec b, Vec y, PCVBJacobiDeviceMat *dm, PBGOffProcessRhsFn **offrhs, PetscBool *fused)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  PetscMPIInt  size;
  PetscBool    dev, usable, local = PETSC_FALSE;

  PetscFunctionBegin;
  *fused  = PETSC_FALSE;
  *offrhs = NULL;
  PetscCall(PetscMemzero(dm, sizeof(*dm)));
  if (!jac->use_gpu || pc->mat != pc->pmat || jac->blocks.precision != PC_VBJACOBI_PRECISION_DOUBLE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &dev, VECSEQCUDA, VECMPICUDA, ""));
  if (dev) PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &dev, VECSEQCUDA, VECMPICUDA, ""));
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS); /* the same type on every process */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) {
    PetscCall(PetscObjectQueryFunction((PetscObject)pc->mat, PBG_OFF_PROCESS_RHS, offrhs));
    if (!*offrhs || jac->sweep_fused_all == 0) PetscFunctionReturn(PETSC_SUCCESS); /* the matrix type is the same on every process */
  }
  PetscCall(PCVBJacobiGetDeviceMat_Private(pc, dm, &usable));
  if (usable && dm->bs >= PC_VBJACOBI_RICHARDSON_MIN_BS && dm->bs <= PC_VBJACOBI_RICHARDSON_MAX_BS) {
    /* uniform blocks of the matrix's block size: the blocks are the BSR blocks */
    local = (PetscBool)((jac->blocks.maxk == dm->bs || jac->blocks.nblocks == 0) && jac->blocks.nblocks * dm->bs == dm->nrows);
  }
  if (size > 1 && jac->sweep_fused_all < 0) {
    PetscBool all;

    PetscCallMPI(MPIU_Allreduce(&local, &all, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)pc)));
    jac->sweep_fused_all = all ? 1 : 0;
  }
  *fused = (PetscBool)(local && (size == 1 || jac->sweep_fused_all == 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The right-hand side of a sweep from y: b itself on one process (offrhs NULL) or when y is zero, else b - A_o y (the
   off-process columns, after the ghost exchange), which the matrix (offrhs, FusedUsable()'s) leaves in the PC's work
   vector (or b, with no off-process columns here) */
static PetscErrorCode SweepRhs(PC pc, PBGOffProcessRhsFn *offrhs, Vec b, Vec y, Vec *rhs)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  *rhs = b;
  if (!y || !offrhs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SweepWork(pc, b));
  PetscCall((*offrhs)(pc->mat, b, y, jac->richardson_work, rhs));
  PetscCheck(*rhs, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "PCVBJACOBI: the off-process residual of the fused sweeps did not run on the device");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One fused sweep: out = weight (cur + d D^{-1} (b - A cur)) + (1 - weight) prev; cur NULL: zero; prev NULL: weight 1; prev
   may be out (each entry is read before it is written) */
static PetscErrorCode Sweep(PC pc, const PCVBJacobiDeviceMat *dm, PBGOffProcessRhsFn *offrhs, const float *val32, PetscReal d, PetscReal weight, Vec b, Vec cur, Vec prev, Vec out)
{
  PC_VBJacobi       *jac = (PC_VBJacobi *)pc->data;
  Vec                rhs;
  const PetscScalar *ba, *ca = NULL, *pa = NULL;
  PetscScalar       *oa;
  PetscMemType       mb, mc = PETSC_MEMTYPE_CUDA, mp = PETSC_MEMTYPE_CUDA, mo;

  PetscFunctionBegin;
  PetscCall(SweepRhs(pc, offrhs, b, cur, &rhs));
  PetscCall(VecGetArrayReadAndMemType(rhs, &ba, &mb));
  if (cur) PetscCall(VecGetArrayReadAndMemType(cur, &ca, &mc));
  if (prev && prev != out) PetscCall(VecGetArrayReadAndMemType(prev, &pa, &mp));
  if (prev == out) PetscCall(VecGetArrayAndMemType(out, &oa, &mo));
  else PetscCall(VecGetArrayWriteAndMemType(out, &oa, &mo));
  if (prev == out) pa = oa;
  PetscCheck(PetscMemTypeDevice(mb) && PetscMemTypeDevice(mc) && PetscMemTypeDevice(mp) && PetscMemTypeDevice(mo), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCVBJACOBI: the fused sweeps need device vectors");
  PetscCall(PCVBJacobiRichardsonSweep_CUDA(dm, val32, jac->sweep_lanes, &jac->blocks, d, weight, ba, ca, pa, oa));
  if (prev == out) PetscCall(VecRestoreArrayAndMemType(out, &oa));
  else PetscCall(VecRestoreArrayWriteAndMemType(out, &oa));
  if (prev && prev != out) PetscCall(VecRestoreArrayReadAndMemType(prev, &pa));
  if (cur) PetscCall(VecRestoreArrayReadAndMemType(cur, &ca));
  PetscCall(VecRestoreArrayReadAndMemType(rhs, &ba));
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

static PetscErrorCode SweepsFused(PC pc, const PCVBJacobiDeviceMat *dm, PBGOffProcessRhsFn *offrhs, Vec b, Vec y, Vec w, PetscInt its, PetscBool guesszero)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  const float *val32;

  PetscFunctionBegin;
  PetscCall(PCVBJacobiBlocksSyncInversesToDevice_CUDA(&jac->blocks)); /* after a host setup, once */
  PetscCall(SweepValues(pc, dm, &val32));
  for (PetscInt k = 0; k < its; k++) {
    Vec src = k % 2 ? w : y, dst = k % 2 ? y : w;

    PetscCall(Sweep(pc, dm, offrhs, val32, jac->richardson_damping, 1.0, b, guesszero && k == 0 ? NULL : src, NULL, dst));
  }
  if (its % 2) PetscCall(VecCopy(w, y)); /* the last sweep wrote the work vector */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same sweeps as residual, apply and update: w = b - A y, z = D^{-1} w, y += d z */
static PetscErrorCode SweepsUnfused(PC pc, Vec b, Vec y, Vec w, PetscInt its, PetscBool guesszero)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;
  Vec          z;

  PetscFunctionBegin;
  PetscCall(SweepWork(pc, b));
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
  PBGOffProcessRhsFn *offrhs;
  PetscBool           fused;

  PetscFunctionBegin;
  (void)rtol, (void)abstol, (void)dtol; /* no tolerance is tested (see above) */
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  if (jac->failed) { /* PETSc's convention: a failed preconditioner returns Inf, so the KSP stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FusedUsable(pc, b, y, &dm, &offrhs, &fused));
  if (fused && jac->richardson_fused != 1) PetscCall(PetscInfo(pc, "Richardson sweeps fused on the GPU: %" PetscInt_FMT " blocks of %" PetscInt_FMT ", damping %g\n", jac->blocks.nblocks, dm.bs, (double)jac->richardson_damping));
  if (!fused && jac->richardson_fused != 0) PetscCall(PetscInfo(pc, "Richardson sweeps unfused (residual, apply, update), damping %g\n", (double)jac->richardson_damping));
  jac->richardson_fused = fused ? 1 : 0;
  PetscCall(PetscLogEventBegin(PBG_VBJacobiRichardson, pc, b, y, 0));
  if (fused) PetscCall(SweepsFused(pc, &dm, offrhs, b, y, w, its, guesszero));
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
  PBGOffProcessRhsFn *offrhs;
  PetscBool           fused;
  Vec                 cur, prev;
  PetscReal           s, alpha, mu, c_prev, c_cur;
  const float        *val32;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (jac->failed || its < 1 || !(emax > 0.0) || !(emax + emin > 0.0)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FusedUsable(pc, b, y, &dm, &offrhs, &fused));
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
  PetscCall(Sweep(pc, &dm, offrhs, val32, s, 1.0, b, guesszero ? NULL : y, NULL, w));
  cur  = w;
  prev = y;
  for (PetscInt k = 1; k < its; k++) {
    const PetscReal c_next = 2.0 * mu * c_cur - c_prev, weight = 2.0 * c_cur / (alpha * c_next);
    Vec             t;

    PetscCall(Sweep(pc, &dm, offrhs, val32, s, weight, b, cur, prev, prev));
    c_prev = c_cur;
    c_cur  = c_next;
    t      = cur;
    cur    = prev;
    prev   = t;
  }
  if (cur == w) PetscCall(VecCopy(w, y)); /* an odd number of steps ends in the work vector */
  PetscCall(PetscLogEventEnd(PBG_VBJacobiChebyshev, pc, b, y, 0));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
