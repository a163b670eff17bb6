/* PCVBJACOBI's public functions (setters and getters, with their manual pages) and the methods behind them */
#include <../src/pc/vbjacobi/vbjacobiimpl.h>

static PetscErrorCode PCVBJacobiSetMaxBlockSize_VBJacobi(PC pc, PetscInt maxbs)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(maxbs >= 1 && maxbs <= PC_VBJACOBI_MAX_BLOCK_SIZE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI maximum block size %" PetscInt_FMT " is outside 1..%d", maxbs, PC_VBJACOBI_MAX_BLOCK_SIZE);
  if (maxbs != jac->max_block_size) { /* find the blocks again, at the next PCSetUp() */
    jac->rows_detected = -1;
    pc->setupcalled    = PETSC_FALSE;
  }
  jac->max_block_size     = maxbs;
  jac->max_block_size_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetMaxBlockSize_VBJacobi(PC pc, PetscInt *maxbs)
{
  PetscFunctionBegin;
  *maxbs = ((PC_VBJacobi *)pc->data)->max_block_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetBlocking_VBJacobi(PC pc, PCVBJacobiBlocking blocking)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(blocking >= PC_VBJACOBI_BLOCKING_AUTO && blocking <= PC_VBJACOBI_BLOCKING_NATURAL, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCVBJacobiBlocking %d", (int)blocking);
  if (blocking != jac->blocking) { /* find the blocks again, at the next PCSetUp() */
    jac->rows_detected = -1;
    pc->setupcalled    = PETSC_FALSE;
  }
  jac->blocking = blocking;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetBlocking_VBJacobi(PC pc, PCVBJacobiBlocking *blocking)
{
  PetscFunctionBegin;
  *blocking = ((PC_VBJacobi *)pc->data)->blocking;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetSingularPolicy_VBJacobi(PC pc, PCVBJacobiSingularPolicy policy)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(policy >= PC_VBJACOBI_SINGULAR_ERROR && policy <= PC_VBJACOBI_SINGULAR_IDENTITY, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCVBJacobiSingularPolicy %d", (int)policy);
  if (policy != jac->singular) pc->setupcalled = PETSC_FALSE; /* the next PCSetUp() inverts again (a failed setup recovers) */
  jac->singular = policy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetSingularPolicy_VBJacobi(PC pc, PCVBJacobiSingularPolicy *policy)
{
  PetscFunctionBegin;
  *policy = ((PC_VBJacobi *)pc->data)->singular;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetPrecision_VBJacobi(PC pc, PCVBJacobiPrecision precision)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(precision >= PC_VBJACOBI_PRECISION_DOUBLE && precision <= PC_VBJACOBI_PRECISION_ADAPTIVE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCVBJacobiPrecision %d", (int)precision);
  if (precision != jac->precision) pc->setupcalled = PETSC_FALSE; /* the next PCSetUp() stores the inverses again (the blocks are kept) */
  jac->precision = precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetPrecision_VBJacobi(PC pc, PCVBJacobiPrecision *precision)
{
  PetscFunctionBegin;
  *precision = ((PC_VBJacobi *)pc->data)->precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiSetPrecisionTolerance_VBJacobi(PC pc, PetscReal tol)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  if (tol == (PetscReal)PETSC_DEFAULT || tol == (PetscReal)PETSC_DETERMINE) tol = PC_VBJACOBI_PRECISION_TOL_DEFAULT;
  PetscCheck(tol > 0.0 && !PetscIsInfOrNanReal(tol), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCVBJACOBI precision tolerance %g must be positive and finite", (double)tol);
  if (tol != jac->precision_tol && jac->precision == PC_VBJACOBI_PRECISION_ADAPTIVE) pc->setupcalled = PETSC_FALSE;
  jac->precision_tol = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetPrecisionTolerance_VBJacobi(PC pc, PetscReal *tol)
{
  PetscFunctionBegin;
  *tol = ((PC_VBJacobi *)pc->data)->precision_tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetBlockPrecisions_VBJacobi(PC pc, PetscInt counts[], const unsigned char *prec[], PetscInt64 *bytes)
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() before PCVBJacobiGetBlockPrecisions()");
  PetscCheck(!jac->failed, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCVBJACOBI: the setup failed (%s): no inverses are stored", jac->failure);
  PetscCall(PCVBJacobiBlocksGetPrecisions(&jac->blocks, counts, NULL, bytes, prec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetBlocks_VBJacobi(PC pc, PetscInt *nblocks, const PetscInt *starts[])
{
  PC_VBJacobi *jac = (PC_VBJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() before PCVBJacobiGetBlocks()");
  if (nblocks) *nblocks = jac->blocks.nblocks;
  if (starts) PetscCall(PCVBJacobiBlocksGetHostStarts(&jac->blocks, starts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVBJacobiGetInverses_VBJacobi(PC pc, const PetscScalar *inv[])
{
  PetscFunctionBegin;
  PetscCheck(pc->setupcalled, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Call PCSetUp() before PCVBJacobiGetInverses()");
  PetscCall(PCVBJacobiBlocksGetHostInversesDouble(&((PC_VBJacobi *)pc->data)->blocks, inv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetMaxBlockSize - Sets the largest diagonal block of `PCVBJACOBI`; supervariable blocking merges adjacent
  supervariables up to this size, and cuts longer runs of identical rows at it.

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- maxbs - the maximum block size, 1 to 32 (default 32)

  Options Database Key:
. -pc_vbjacobi_max_block_size <maxbs> - the maximum block size

  Level: intermediate

  Note:
  A change after a setup (by this call or by the option and `PCSetFromOptions()`) takes effect at the next `PCSetUp()`:
  the blocks are found again.

.seealso: `PCVBJACOBI`, `PCVBJacobiGetMaxBlockSize()`, `PCVBJacobiSetBlocking()`
@*/
PetscErrorCode PCVBJacobiSetMaxBlockSize(PC pc, PetscInt maxbs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, maxbs, 2);
  PetscTryMethod(pc, "PCVBJacobiSetMaxBlockSize_C", (PC, PetscInt), (pc, maxbs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetMaxBlockSize - Gets the largest diagonal block of `PCVBJACOBI`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. maxbs - the maximum block size

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetMaxBlockSize()`
@*/
PetscErrorCode PCVBJacobiGetMaxBlockSize(PC pc, PetscInt *maxbs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(maxbs, 2);
  PetscUseMethod(pc, "PCVBJacobiGetMaxBlockSize_C", (PC, PetscInt *), (pc, maxbs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetBlocking - Sets where the diagonal blocks of `PCVBJACOBI` come from.

  Logically Collective

  Input Parameters:
+ pc       - the preconditioner context
- blocking - `PC_VBJACOBI_BLOCKING_AUTO` (default), `PC_VBJACOBI_BLOCKING_SUPERVARIABLE`, `PC_VBJACOBI_BLOCKING_NATURAL`,
             `PC_VBJACOBI_BLOCKING_MATRIX` or `PC_VBJACOBI_BLOCKING_VARIABLE`

  Options Database Key:
. -pc_vbjacobi_blocking <auto,supervariable,matrix,variable,natural> - the source of the blocks

  Level: intermediate

  Note:
  `PC_VBJACOBI_BLOCKING_AUTO` takes, in this order:
  - the sizes set with `MatSetVariableBlockSizes()` when every rank has them and none exceeds the maximum block size;
  - the matrix block size (> 1, within the maximum) when the matrix is known symmetric, Hermitian or SPD
    (`MatSetOption()`), or when the PC is a multigrid level smoother (options prefix with "mg_levels_"): merged blocks
    lost there (3-D elasticity with CG: 818 iterations merged against 515; a geometric-multigrid smoother: slower
    merged than pbjacobi; a divergent GAMG V-cycle on a nonsymmetric problem; measured: doc/benchmarks.md,
    "Measurements behind design choices");
  - else supervariables merged up to the maximum block size: on a matrix with a block size > 1 its block rows are
    natural supervariables, so neighbouring matrix blocks are merged, which takes 17-23% fewer iterations on the
    nonsymmetric flows (driven cavity, Gray-Scott) and was measured faster to solve on most of bench_solve's block
    matrices.
  `-pc_view` says which source the setup took and why. A change after a setup (by this call or by the option and
  `PCSetFromOptions()`) takes effect at the next `PCSetUp()`: the blocks are found again.

.seealso: `PCVBJACOBI`, `PCVBJacobiBlocking`, `PCVBJacobiSetMaxBlockSize()`, `MatSetVariableBlockSizes()`
@*/
PetscErrorCode PCVBJacobiSetBlocking(PC pc, PCVBJacobiBlocking blocking)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, blocking, 2);
  PetscTryMethod(pc, "PCVBJacobiSetBlocking_C", (PC, PCVBJacobiBlocking), (pc, blocking));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetBlocking - Gets where the diagonal blocks of `PCVBJACOBI` come from, as requested.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. blocking - the requested source of the blocks

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetBlocking()`
@*/
PetscErrorCode PCVBJacobiGetBlocking(PC pc, PCVBJacobiBlocking *blocking)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(blocking, 2);
  PetscUseMethod(pc, "PCVBJacobiGetBlocking_C", (PC, PCVBJacobiBlocking *), (pc, blocking));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetSingularPolicy - Sets what `PCVBJACOBI` does with a diagonal block that has a zero or tiny pivot.

  Logically Collective

  Input Parameters:
+ pc     - the preconditioner context
- policy - `PC_VBJACOBI_SINGULAR_ERROR` (default) or `PC_VBJACOBI_SINGULAR_IDENTITY`

  Options Database Key:
. -pc_vbjacobi_singular <error,identity> - the policy

  Level: intermediate

  Notes:
  With `PC_VBJACOBI_SINGULAR_ERROR` the setup fails on every rank with `PC_SETUP_ERROR`, so that `KSPSolve()` stops
  with `KSP_DIVERGED_PC_FAILED`; with `KSPSetErrorIfNotConverged()` it raises an error naming the block and its global
  rows. A block holding NaN or Inf always fails the setup, whatever the policy.

  A change after a setup (by this call or by the option and `PCSetFromOptions()`) takes effect at the next `PCSetUp()`,
  which inverts the blocks again: a setup failed on a singular block recovers with `PC_VBJACOBI_SINGULAR_IDENTITY`.

.seealso: `PCVBJACOBI`, `PCVBJacobiSingularPolicy`
@*/
PetscErrorCode PCVBJacobiSetSingularPolicy(PC pc, PCVBJacobiSingularPolicy policy)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, policy, 2);
  PetscTryMethod(pc, "PCVBJacobiSetSingularPolicy_C", (PC, PCVBJacobiSingularPolicy), (pc, policy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetSingularPolicy - Gets what `PCVBJACOBI` does with a singular diagonal block.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. policy - the policy

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetSingularPolicy()`
@*/
PetscErrorCode PCVBJacobiGetSingularPolicy(PC pc, PCVBJacobiSingularPolicy *policy)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(policy, 2);
  PetscUseMethod(pc, "PCVBJacobiGetSingularPolicy_C", (PC, PCVBJacobiSingularPolicy *), (pc, policy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCVBJacobiGetBlocks - Gets the diagonal blocks that `PCVBJACOBI` found on this rank.

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ nblocks - the number of local blocks
- starts  - `nblocks`+1 local row offsets: block b holds local rows starts[b] to starts[b+1]-1; owned by the `PC`

  Level: advanced

.seealso: `PCVBJACOBI`, `PCVBJacobiGetInverses()`
@*/
PetscErrorCode PCVBJacobiGetBlocks(PC pc, PetscInt *nblocks, const PetscInt *starts[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCVBJacobiGetBlocks_C", (PC, PetscInt *, const PetscInt *[]), (pc, nblocks, starts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCVBJacobiGetInverses - Gets the inverses of the local diagonal blocks of `PCVBJACOBI`, on the host.

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameter:
. inv - the inverses one after the other in block order, each k x k in column-major order; owned by the `PC`

  Level: advanced

  Note:
  Always double: with reduced storage (`PCVBJacobiSetPrecision()`) these are the stored values converted to double
  (exactly, each block's power-of-two scale applied), i.e. the inverses the apply uses; the conversion is made once
  per setup, on the host.

.seealso: `PCVBJACOBI`, `PCVBJacobiGetBlocks()`, `PCVBJacobiGetBlockPrecisions()`
@*/
PetscErrorCode PCVBJacobiGetInverses(PC pc, const PetscScalar *inv[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(inv, 2);
  PetscUseMethod(pc, "PCVBJacobiGetInverses_C", (PC, const PetscScalar *[]), (pc, inv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetPrecision - Sets the floating-point type in which `PCVBJACOBI` stores the inverses of its diagonal blocks.

  Logically Collective

  Input Parameters:
+ pc        - the preconditioner context
- precision - `PC_VBJACOBI_PRECISION_DOUBLE` (default), `PC_VBJACOBI_PRECISION_SINGLE`, `PC_VBJACOBI_PRECISION_HALF` or
              `PC_VBJACOBI_PRECISION_ADAPTIVE`

  Options Database Key:
. -pc_vbjacobi_precision <double,single,half,adaptive> - the storage

  Level: intermediate

  Notes:
  The inverses are always computed in double, and the apply (plain and transposed, host and GPU) reads the stored type,
  accumulates in double and leaves the vectors in double: only the bytes the apply reads change (4 or 2 instead of 8
  per entry). Single and half store each block scaled by a power of two (its largest entry in [0.5, 1)), so that no
  block overflows half (|entry| > 65504).

  Single and half are the narrowest type a block is stored in, not a promise for every block: rounding each entry
  perturbs the stored inverse S so that ||I - S A||_1 is about u cond_1(A), and once that nears 1, S can be singular (an
  inverse spanning more than 2^24 in magnitude even loses entries to zero in half) and a left-preconditioned solve can
  report convergence to a wrong answer. A block whose condition estimate ||A||_1 ||A^{-1}||_1 times u (2^-11 for half,
  2^-24 for single) is 1/2 or more takes the next wider type that holds it (half: cond_1 < 1024, single: cond_1 < 8.4e6),
  else double. The setup then keeps each block in its own type as adaptive does (layout below; found in a first pass
  over the compact layout, so that a matrix whose blocks all fit pays nothing). `-pc_view` shows the histogram.

  Adaptive stores each block in the lowest of half, single and double whose unit roundoff (2^-11, 2^-24) times the
  block's condition estimate ||A||_1 ||A^{-1}||_1 is below the tolerance (`PCVBJacobiSetPrecisionTolerance()`; and
  below 1/2, whatever the tolerance), as in
  Flegar, Anzt, Cojean and Quintana-Orti, ACM TOMS 2021; the host and the GPU make the same choice (up to blocks whose
  estimate is within a few ulps of a threshold). The setup stores each block at the start of an FP64 slot (the layout
  of double); on the GPU the blocks are then grouped by type into a compact copy (half, then single, then double), and
  the apply reads each group in its own type, a thread block on blocks of one type. The device memory used is that
  of double plus the compact copy.

  A change takes effect at the next `PCSetUp()` (the blocks are kept; only the inverses are stored again).

.seealso: `PCVBJACOBI`, `PCVBJacobiPrecision`, `PCVBJacobiGetPrecision()`, `PCVBJacobiSetPrecisionTolerance()`, `PCVBJacobiGetBlockPrecisions()`
@*/
PetscErrorCode PCVBJacobiSetPrecision(PC pc, PCVBJacobiPrecision precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, precision, 2);
  PetscTryMethod(pc, "PCVBJacobiSetPrecision_C", (PC, PCVBJacobiPrecision), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetPrecision - Gets the floating-point type in which `PCVBJACOBI` stores its inverses.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. precision - the storage

  Level: intermediate

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecision()`
@*/
PetscErrorCode PCVBJacobiGetPrecision(PC pc, PCVBJacobiPrecision *precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(precision, 2);
  PetscUseMethod(pc, "PCVBJacobiGetPrecision_C", (PC, PCVBJacobiPrecision *), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiSetPrecisionTolerance - Sets the tolerance of the adaptive storage of `PCVBJACOBI`.

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- tol - a block is stored in half when cond * 2^-11 < tol, else in single when cond * 2^-24 < tol, else in double
        (cond = ||A||_1 ||A^{-1}||_1; a tolerance above 1/2 counts as 1/2, the most a type can hold); `PETSC_DEFAULT`
        restores the default 0.1

  Options Database Key:
. -pc_vbjacobi_precision_tol <tol> - the tolerance

  Level: advanced

  Note:
  The default 0.1 (Ginkgo's) keeps ||A^{-1}_stored A - I||_1, the distance of a preconditioned diagonal block from the
  identity, below about 10%: half for cond < 205, single for cond < 1.7e6.

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecision()`
@*/
PetscErrorCode PCVBJacobiSetPrecisionTolerance(PC pc, PetscReal tol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, tol, 2);
  PetscTryMethod(pc, "PCVBJacobiSetPrecisionTolerance_C", (PC, PetscReal), (pc, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCVBJacobiGetPrecisionTolerance - Gets the tolerance of the adaptive storage of `PCVBJACOBI`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. tol - the tolerance

  Level: advanced

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecisionTolerance()`
@*/
PetscErrorCode PCVBJacobiGetPrecisionTolerance(PC pc, PetscReal *tol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(tol, 2);
  PetscUseMethod(pc, "PCVBJacobiGetPrecisionTolerance_C", (PC, PetscReal *), (pc, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCVBJacobiGetBlockPrecisions - Gets the type in which `PCVBJACOBI` stored each local inverse.

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up (without failure)

  Output Parameters:
+ counts - (optional) array of 3: the local blocks stored in double, single and half
. prec   - (optional) the type of each local block, `PC_VBJACOBI_PRECISION_DOUBLE`, `_SINGLE` or `_HALF` as unsigned char;
           owned by the `PC`
- bytes  - (optional) the bytes holding the local inverses' values

  Level: advanced

  Note:
  After a GPU setup the types are copied to the host here (once); a GPU test compares them with those of the same PC
  set up on the host.

.seealso: `PCVBJACOBI`, `PCVBJacobiSetPrecision()`
@*/
PetscErrorCode PCVBJacobiGetBlockPrecisions(PC pc, PetscInt counts[], const unsigned char *prec[], PetscInt64 *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCVBJacobiGetBlockPrecisions_C", (PC, PetscInt[], const unsigned char *[], PetscInt64 *), (pc, counts, prec, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Composes (impl: the PC's) or removes (NULL) the methods behind the public functions above */
PetscErrorCode PCVBJacobiComposeMethods_Private(PC pc, PetscBool compose)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetMaxBlockSize_C", compose ? PCVBJacobiSetMaxBlockSize_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetMaxBlockSize_C", compose ? PCVBJacobiGetMaxBlockSize_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetBlocking_C", compose ? PCVBJacobiSetBlocking_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlocking_C", compose ? PCVBJacobiGetBlocking_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetSingularPolicy_C", compose ? PCVBJacobiSetSingularPolicy_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetSingularPolicy_C", compose ? PCVBJacobiGetSingularPolicy_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlocks_C", compose ? PCVBJacobiGetBlocks_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetInverses_C", compose ? PCVBJacobiGetInverses_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetPrecision_C", compose ? PCVBJacobiSetPrecision_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetPrecision_C", compose ? PCVBJacobiGetPrecision_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiSetPrecisionTolerance_C", compose ? PCVBJacobiSetPrecisionTolerance_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetPrecisionTolerance_C", compose ? PCVBJacobiGetPrecisionTolerance_VBJacobi : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCVBJacobiGetBlockPrecisions_C", compose ? PCVBJacobiGetBlockPrecisions_VBJacobi : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
