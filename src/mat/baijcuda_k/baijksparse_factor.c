/* The factorizations of a MATSEQBAIJKSPARSE matrix: PETSc's own (LU, ILU, Cholesky, ICC: solver type "petsc"), and
   cuSPARSE's complete ones (LU, Cholesky: solver type "cusparse"), the default LU and Cholesky of large matrices where a
   device is usable.

   PETSc's are BAIJ's, and their symbolic and numeric phases read the matrix's host arrays directly, not through a method
   of the matrix that our forwarders could refresh. When the values were last changed on the device (MatScale(),
   MatShift(), MatAXPY(), COO assembly, ... after a product: TS scales and shifts each Jacobian so), that host copy is
   stale, and the factor would silently be of the old values. So the factory that PETSc registered for MATSEQBAIJ under
   "petsc" (the default for ILU and ICC of a MATSEQBAIJKSPARSE matrix too: MatGetFactor() matches base types) is wrapped
   here: for a MATSEQBAIJKSPARSE matrix, the factor's symbolic and numeric phases first bring the host copy up to date (a
   download only when the device copy is newer). Any other matrix gets PETSc's factor untouched. The diagonal blocks of
   a MATMPIBAIJKSPARSE matrix are MATSEQBAIJKSPARSE, so PCBJACOBI's and PCASM's subdomain ILU/LU are covered too.

   BAIJ's factors also solve on the host, so a multigrid coarse solve moved two vectors across every V-cycle, where
   aijcusparse's default factor (PETSc's MATSOLVERCUSPARSE: the numeric factorization on the host, the triangular solves
   on the device) moves none (issue 40). The "cusparse" factor of a MATSEQBAIJKSPARSE matrix is that one: PETSc's
   MATSEQAIJCUSPARSE factor, whose phases are given the operator converted to MATSEQAIJCUSPARSE on the device (kept with
   the factor, its values refreshed before each numeric phase; host vectors are solved through CUDA work vectors); with no
   usable device, or a matrix bound to the CPU, it hands out PETSc's host factor instead. MatGetFactor() with no solver type takes it from
   -mat_baijksparse_factor_device_rows rows up (MatGetFactor_SeqBAIJKSPARSE_Default()). ILU and ICC stay BAIJ's: a block
   ILU(0) is another preconditioner than the point ILU(0) of the converted matrix.
   Other packages (MUMPS, SuperLU, ...) read BAIJ's arrays the same way and are not wrapped: known_issues.md. */
#include "baijksparseimpl.h"

#define PBG_FACTOR_OPS "PBG_BAIJKSPARSE_FactorOps"
/* the default of -mat_baijksparse_factor_device_rows */
#define PBG_FACTOR_DEVICE_ROWS 16384

/* PETSc's MATSEQAIJCUSPARSE factory under "cusparse" (aijcusparse.cu): it reads only A's sizes, block sizes and CPU
   binding, so it takes a MATSEQBAIJKSPARSE matrix; the phases are then given the converted operator. No header declares it. */
PETSC_EXTERN PetscErrorCode MatGetFactor_seqaijcusparse_cusparse(Mat, MatFactorType, Mat *);

/* PETSc's factories of MATSEQBAIJ under "petsc", by MatFactorType, saved when the wrapper is registered */
static PetscErrorCode (*PetscSeqBAIJFactory[MAT_FACTOR_NUM_TYPES])(Mat, MatFactorType, Mat *);

/* The saved phases of one factor matrix (BAIJ's, or cuSPARSE's), replaced in its method table by the wrappers below */
typedef struct {
  PetscErrorCode (*lufactorsymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*ilufactorsymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*choleskyfactorsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*iccfactorsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*lufactornumeric)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*choleskyfactornumeric)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*solve)(Mat, Vec, Vec); /* cuSPARSE's, which take CUDA vectors only */
  PetscErrorCode (*solvetranspose)(Mat, Vec, Vec);
  Vec           bw, xw;      /* CUDA work vectors of the solves of host vectors */
  PetscBool     through_aij; /* the phases take the operator as MATSEQAIJCUSPARSE (the "cusparse" factor) */
  Mat           aij;         /* A converted, made by the symbolic phase */
  Mat           op;          /* the operator of the last phase (aij, or A when it was MATSEQAIJCUSPARSE itself) */
  IS            row, col;    /* the symbolic phase's permutations (of rows) and options, for a fresh factor */
  MatFactorInfo info;
  PetscInt      numerics;      /* numeric phases since the symbolic one */
  PetscInt      transposed_at; /* the numeric phase whose values the transposed solves' analysis holds (-1: none) */
  Mat           tfact;         /* a fresh factor of the current values for transposed solves (see SolveTranspose_Current) */
} FactorOps;

static PetscErrorCode FactorOpsDestroy(PetscCtxRt ctx)
{
  FactorOps *ops = *(FactorOps **)ctx;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&ops->aij));
  PetscCall(MatDestroy(&ops->op));
  PetscCall(MatDestroy(&ops->tfact));
  PetscCall(VecDestroy(&ops->bw));
  PetscCall(VecDestroy(&ops->xw));
  PetscCall(ISDestroy(&ops->row));
  PetscCall(ISDestroy(&ops->col));
  PetscCall(PetscFree(ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetFactorOps(Mat fact, FactorOps **ops)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)fact, PBG_FACTOR_OPS, (void **)ops));
  PetscCheck(*ops, PETSC_COMM_SELF, PETSC_ERR_PLIB, "factor of a %s matrix without its saved phases", MATSEQBAIJKSPARSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host copy of A's values up to date, when A is a MATSEQBAIJKSPARSE matrix (MatLUFactorNumeric() may be given
   another matrix of the same pattern than the one the factor was made from) */
static PetscErrorCode RefreshHost(Mat A)
{
  PetscBool isk;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &isk));
  if (isk) PetscCall(MatSeqBAIJKSPARSEHostAccess_Private(A, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator of the "cusparse" factor's phase: A itself when it is MATSEQAIJCUSPARSE already, else A converted on the
   device (a new conversion at a symbolic phase, which may come with a new pattern; new values into the kept one at a
   numeric phase, whose conversion checks that the pattern is the same) */
static PetscErrorCode OperatorAsAIJ(Mat A, FactorOps *ops, PetscBool symbolic, Mat *op)
{
  PetscBool isaij;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &isaij));
  if (isaij) *op = A;
  else {
    if (symbolic) PetscCall(MatDestroy(&ops->aij));
    PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, ops->aij ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &ops->aij));
    *op = ops->aij;
  }
  PetscCall(PetscObjectReference((PetscObject)*op));
  PetscCall(MatDestroy(&ops->op));
  ops->op = *op;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before a phase of the factor: its saved phases, and the operator they are to read: A with its host copy current
   (PETSc's factor), or A as MATSEQAIJCUSPARSE (the "cusparse" factor) */
static PetscErrorCode BeginPhase(Mat fact, Mat A, PetscBool symbolic, FactorOps **ops, Mat *op)
{
  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, ops));
  if ((*ops)->through_aij) PetscCall(OperatorAsAIJ(A, *ops, symbolic, op));
  else {
    PetscCall(RefreshHost(A));
    *op = A;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solves of a "cusparse" factor take CUDA vectors only (PETSc's cuSPARSE solves get their device arrays), where a
   baijksparse matrix also serves host vectors: b and x themselves when both are CUDA vectors, else CUDA work vectors,
   b's values copied in (StageOut() copies x's values back) */
/* dst's local values = src's, through their host arrays (vectors of different types) */
static PetscErrorCode CopyLocalValues(Vec src, Vec dst)
{
  const PetscScalar *a;
  PetscScalar       *d;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayRead(src, &a));
  PetscCall(VecGetArrayWrite(dst, &d));
  PetscCall(PetscArraycpy(d, a, n));
  PetscCall(VecRestoreArrayWrite(dst, &d));
  PetscCall(VecRestoreArrayRead(src, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StageIn(Mat fact, FactorOps *ops, Vec b, Vec x, Vec *db, Vec *dx)
{
  PetscBool cb, cx;
  PetscInt  n;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &cb, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cx, VECSEQCUDA, VECMPICUDA, ""));
  if (cb && cx) {
    *db = b;
    *dx = x;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ops->bw) {
    PetscCall(VecGetLocalSize(b, &n));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &ops->bw));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &ops->xw));
    PetscCall(PetscInfo(fact, "solves of host vectors through CUDA work vectors\n"));
  }
  PetscCall(CopyLocalValues(b, ops->bw));
  *db = ops->bw;
  *dx = ops->xw;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StageOut(Vec dx, Vec x)
{
  PetscFunctionBegin;
  if (dx != x) PetscCall(CopyLocalValues(dx, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve_Staged(Mat fact, Vec b, Vec x)
{
  FactorOps *ops;
  Vec        db, dx;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(StageIn(fact, ops, b, x, &db, &dx));
  PetscCall((*ops->solve)(fact, db, dx));
  PetscCall(StageOut(dx, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transposed solve of a "cusparse" LU factor. PETSc 3.26's cuSPARSE factor (aijcusparse.cu) makes the analysis of
   its transposed triangular solves at the first MatSolveTranspose() and, at a later numeric factorization of the same
   pattern, updates the values of the plain solves' analysis only: the transposed solves then keep the old values (the
   GPU factor tests found relative residuals of 1e-1 after a refactorization; aijcusparse's own factor does the same).
   So the factor's own transposed solve serves only while its analysis is of the current values (or not made yet);
   after a refactorization a fresh factor of the current values, made at the first transposed solve, serves them. */
static PetscErrorCode SolveTranspose_Current(Mat fact, Vec b, Vec x)
{
  FactorOps *ops;
  Vec        db, dx;

  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, &ops));
  PetscCall(StageIn(fact, ops, b, x, &db, &dx));
  if (ops->transposed_at < 0 || ops->transposed_at == ops->numerics) {
    ops->transposed_at = ops->numerics;
    PetscCall((*ops->solvetranspose)(fact, db, dx));
  } else {
    if (!ops->tfact) {
      PetscCall(PetscInfo(fact, "transposed solves after a refactorization: a fresh cuSPARSE factor of the current values\n"));
      PetscCall(MatGetFactor_seqaijcusparse_cusparse(ops->op, MAT_FACTOR_LU, &ops->tfact));
      PetscCall(MatLUFactorSymbolic(ops->tfact, ops->op, ops->row, ops->col, &ops->info));
      PetscCall(MatLUFactorNumeric(ops->tfact, ops->op, &ops->info));
    }
    PetscCall(MatSolveTranspose(ops->tfact, db, dx));
  }
  PetscCall(StageOut(dx, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a numeric phase of a "cusparse" factor: the solves it set (PETSc's) saved, with Solve_Staged() in their place;
   for LU the phase counted, a fresh factor of older values dropped, and SolveTranspose_Current() in place of the
   transposed solve (Cholesky's is its plain solve: symmetric) */
static PetscErrorCode AfterNumeric(Mat fact, FactorOps *ops)
{
  PetscFunctionBegin;
  if (!ops->through_aij) PetscFunctionReturn(PETSC_SUCCESS);
  if (fact->ops->solve && fact->ops->solve != Solve_Staged) {
    ops->solve       = fact->ops->solve;
    fact->ops->solve = Solve_Staged;
  }
  if (fact->factortype == MAT_FACTOR_LU) {
    ops->numerics++;
    PetscCall(MatDestroy(&ops->tfact));
    if (fact->ops->solvetranspose && fact->ops->solvetranspose != SolveTranspose_Current) {
      ops->solvetranspose       = fact->ops->solvetranspose;
      fact->ops->solvetranspose = SolveTranspose_Current;
    }
  } else if (fact->ops->solvetranspose == ops->solve) fact->ops->solvetranspose = Solve_Staged;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A numeric phase put in the place of the saved one (field of FactorOps): its operator made ready, then the saved phase
   on it */
#define PBG_NUMERIC_PHASE(name, field, params, args) \
  static PetscErrorCode name params \
  { \
    FactorOps *ops; \
    Mat        op; \
\
    PetscFunctionBegin; \
    PetscCall(BeginPhase(fact, A, PETSC_FALSE, &ops, &op)); \
    PetscCall((*ops->field)args); \
    PetscCall(AfterNumeric(fact, ops)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

PBG_NUMERIC_PHASE(LUFactorNumeric_Refreshed, lufactornumeric, (Mat fact, Mat A, const MatFactorInfo *info), (fact, op, info))
PBG_NUMERIC_PHASE(CholeskyFactorNumeric_Refreshed, choleskyfactornumeric, (Mat fact, Mat A, const MatFactorInfo *info), (fact, op, info))

/* After a symbolic phase, which sets the numeric phase it chose (BAIJ's by block size and ordering): save it and put the
   refreshing one in its place */
static PetscErrorCode WrapNumeric(Mat fact, FactorOps *ops)
{
  PetscFunctionBegin;
  if (fact->ops->lufactornumeric && fact->ops->lufactornumeric != LUFactorNumeric_Refreshed) {
    ops->lufactornumeric       = fact->ops->lufactornumeric;
    fact->ops->lufactornumeric = LUFactorNumeric_Refreshed;
  }
  if (fact->ops->choleskyfactornumeric && fact->ops->choleskyfactornumeric != CholeskyFactorNumeric_Refreshed) {
    ops->choleskyfactornumeric       = fact->ops->choleskyfactornumeric;
    fact->ops->choleskyfactornumeric = CholeskyFactorNumeric_Refreshed;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A permutation for the phase's operator: PETSc's orderings of a BAIJ matrix (MatGetOrdering(), on the block graph) are
   of block rows, which BAIJ's factors take; the converted MATSEQAIJCUSPARSE operator needs them of rows, each block row
   b standing for rows b bs .. b bs + bs - 1. Any other permutation is taken as it is (a new reference). */
static PetscErrorCode PermutationForOperator(FactorOps *ops, Mat A, IS perm, IS *pperm)
{
  PetscInt        m, bs, n = A->rmap->n, *idx;
  const PetscInt *bidx;

  PetscFunctionBegin;
  *pperm = NULL;
  if (!perm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ISGetLocalSize(perm, &m));
  PetscCall(MatGetBlockSize(A, &bs));
  if (!ops->through_aij || m == n) {
    PetscCall(PetscObjectReference((PetscObject)perm));
    *pperm = perm;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(m * bs == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "a permutation of %" PetscInt_FMT " entries for a matrix of %" PetscInt_FMT " rows in blocks of %" PetscInt_FMT, m, n, bs);
  PetscCall(ISGetIndices(perm, &bidx));
  PetscCall(PetscMalloc1(n, &idx));
  for (PetscInt b = 0; b < m; b++)
    for (PetscInt i = 0; i < bs; i++) idx[b * bs + i] = bidx[b] * bs + i;
  PetscCall(ISRestoreIndices(perm, &bidx));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, idx, PETSC_OWN_POINTER, pperm));
  PetscCall(ISSetPermutation(*pperm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a symbolic phase: its permutations (handed over) and options kept for a fresh factor, the count of numeric
   phases started again */
static PetscErrorCode RememberSymbolic(FactorOps *ops, IS *row, IS *col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(ISDestroy(&ops->row));
  PetscCall(ISDestroy(&ops->col));
  ops->row           = *row;
  ops->col           = *col;
  *row               = NULL;
  *col               = NULL;
  ops->info          = *info;
  ops->numerics      = 0;
  ops->transposed_at = -1;
  PetscCall(MatDestroy(&ops->tfact));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A symbolic phase put in the place of the saved one: its operator and permutations made ready, then the saved phase
   on them, then the numeric phase it chose wrapped. Cholesky's and ICC's take one permutation (col NULL). */
#define PBG_SYMBOLIC_PHASE(name, field, params, col, args) \
  static PetscErrorCode name params \
  { \
    FactorOps *ops; \
    Mat        op; \
    IS         prow, pcol; \
\
    PetscFunctionBegin; \
    PetscCall(BeginPhase(fact, A, PETSC_TRUE, &ops, &op)); \
    PetscCall(PermutationForOperator(ops, A, row, &prow)); \
    PetscCall(PermutationForOperator(ops, A, col, &pcol)); \
    PetscCall((*ops->field)args); \
    PetscCall(RememberSymbolic(ops, &prow, &pcol, info)); \
    PetscCall(WrapNumeric(fact, ops)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

PBG_SYMBOLIC_PHASE(LUFactorSymbolic_Refreshed, lufactorsymbolic, (Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info), col, (fact, op, prow, pcol, info))
PBG_SYMBOLIC_PHASE(ILUFactorSymbolic_Refreshed, ilufactorsymbolic, (Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info), col, (fact, op, prow, pcol, info))
PBG_SYMBOLIC_PHASE(CholeskyFactorSymbolic_Refreshed, choleskyfactorsymbolic, (Mat fact, Mat A, IS row, const MatFactorInfo *info), NULL, (fact, op, prow, info))
PBG_SYMBOLIC_PHASE(ICCFactorSymbolic_Refreshed, iccfactorsymbolic, (Mat fact, Mat A, IS row, const MatFactorInfo *info), NULL, (fact, op, prow, info))

/* Puts the refreshing symbolic phases in the place of B's, saving them (through_aij: they are to read the operator as
   MATSEQAIJCUSPARSE) */
static PetscErrorCode WrapSymbolic(Mat B, PetscBool through_aij)
{
  FactorOps *ops;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ops));
  ops->through_aij            = through_aij;
  ops->transposed_at          = -1;
  ops->lufactorsymbolic       = B->ops->lufactorsymbolic;
  ops->ilufactorsymbolic      = B->ops->ilufactorsymbolic;
  ops->choleskyfactorsymbolic = B->ops->choleskyfactorsymbolic;
  ops->iccfactorsymbolic      = B->ops->iccfactorsymbolic;
  PetscCall(PetscObjectContainerCompose((PetscObject)B, PBG_FACTOR_OPS, ops, FactorOpsDestroy));
  if (ops->lufactorsymbolic) B->ops->lufactorsymbolic = LUFactorSymbolic_Refreshed;
  if (ops->ilufactorsymbolic) B->ops->ilufactorsymbolic = ILUFactorSymbolic_Refreshed;
  if (ops->choleskyfactorsymbolic) B->ops->choleskyfactorsymbolic = CholeskyFactorSymbolic_Refreshed;
  if (ops->iccfactorsymbolic) B->ops->iccfactorsymbolic = ICCFactorSymbolic_Refreshed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factory registered for MATSEQBAIJ under "petsc" in place of PETSc's: PETSc's factor, whose phases refresh the
   host copy first when A is MATSEQBAIJKSPARSE */
static PetscErrorCode MatGetFactor_SeqBAIJ_PETSc_Refreshed(Mat A, MatFactorType ftype, Mat *F)
{
  PetscBool isk;

  PetscFunctionBegin;
  PetscCheck(PetscSeqBAIJFactory[ftype], PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc has no %s factorization of %s matrices", MatFactorTypes[ftype], MATSEQBAIJ);
  PetscCall((*PetscSeqBAIJFactory[ftype])(A, ftype, F));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &isk));
  if (isk && *F) PetscCall(WrapSymbolic(*F, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factory registered for MATSEQBAIJKSPARSE under "cusparse" (LU, Cholesky): cuSPARSE's factor of the converted
   operator, or, with no usable device or a matrix bound to the CPU, PETSc's host factor (its solver type says "petsc") */
static PetscErrorCode MatGetFactor_SeqBAIJKSPARSE_CUSPARSE(Mat A, MatFactorType ftype, Mat *F)
{
  PetscBool avail;

  PetscFunctionBegin;
  PetscCall(PetscBlockGPUDeviceAvailable(&avail));
  if (!avail || A->boundtocpu) {
    PetscCall(PetscInfo(A, "no usable device or bound to the CPU: PETSc's %s factorization on the host\n", MatFactorTypes[ftype]));
    PetscCall(MatGetFactor_SeqBAIJ_PETSc_Refreshed(A, ftype, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetFactor_seqaijcusparse_cusparse(A, ftype, F));
  PetscCall(WrapSymbolic(*F, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The default LU and Cholesky of a MATSEQBAIJKSPARSE matrix (MatGetFactor() with no solver type; registered under
   "petsc" for the exact type, which that lookup tries first): cuSPARSE's from -mat_baijksparse_factor_device_rows rows
   up, where a device is usable; PETSc's host factor below. PETSc's lookup by the name "petsc" finds BAIJ's factory
   first (registered before, for MATSEQBAIJ, whose name begins this type's), so that name still gives the host factor.
   Why rows: the device's triangular solves go level by level, about a millisecond a solve on coarse grids of a few
   thousand unknowns, where the host solves in a tenth of it plus two vector copies; on larger grids the host's solve
   grows with the fill and the device's much less (bench/results/mg/, doc/benchmarks.md). */
static PetscErrorCode MatGetFactor_SeqBAIJKSPARSE_Default(Mat A, MatFactorType ftype, Mat *F)
{
  PetscInt rows = PBG_FACTOR_DEVICE_ROWS;

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, "MATSEQBAIJKSPARSE factorization options", "Mat"); /* a title of its own: -help prints a title and prefix once */
  PetscCall(PetscOptionsInt("-mat_baijksparse_factor_device_rows", "Rows from which the default LU and Cholesky of a seqbaijksparse matrix are cuSPARSE's (solves on the device); below, PETSc's host factor", "MATSOLVERCUSPARSE", rows, &rows, NULL));
  PetscOptionsEnd();
  if (A->rmap->n >= rows) PetscCall(MatGetFactor_SeqBAIJKSPARSE_CUSPARSE(A, ftype, F));
  else PetscCall(MatGetFactor_SeqBAIJ_PETSc_Refreshed(A, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatLUFactor() in place (also -pc_factor_in_place): BAIJ's ends in MatHeaderMerge(), which gives A the factor's data
   but keeps A's methods and type name, so A would be a seqbaijksparse without its private data (its destroy failed).
   A becomes a plain MATSEQBAIJ first (host copy current, device copy freed), as an in-place factor of AIJ is left a
   factored MATSEQAIJ: a factor has no products for the device to run. */
PetscErrorCode MatLUFactor_SeqBAIJKSPARSE(Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_SeqBAIJKSPARSE_SeqBAIJ(A, MATSEQBAIJ, MAT_INPLACE_MATRIX, &A));
  PetscUseTypeMethod(A, lufactor, row, col, info);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called by PetscBlockGPUInitializePackage() (again after each PetscInitialize(): PETSc's registry is rebuilt then) */
PetscErrorCode MatBAIJKSPARSERegisterFactors_Private(void)
{
  const MatFactorType ftypes[]   = {MAT_FACTOR_LU, MAT_FACTOR_ILU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ICC};
  const MatFactorType complete[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY};

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ftypes); i++) {
    PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;

    PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQBAIJ, ftypes[i], NULL, NULL, &create));
    if (!create || create == MatGetFactor_SeqBAIJ_PETSc_Refreshed) continue; /* none, or ours already */
    PetscSeqBAIJFactory[ftypes[i]] = create;
    PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQBAIJ, ftypes[i], MatGetFactor_SeqBAIJ_PETSc_Refreshed));
  }
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(complete); i++) {
    PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, MATSEQBAIJKSPARSE, complete[i], MatGetFactor_SeqBAIJKSPARSE_CUSPARSE));
    PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQBAIJKSPARSE, complete[i], MatGetFactor_SeqBAIJKSPARSE_Default));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
