/* PETSc's own factorizations (LU, ILU, Cholesky, ICC: solver type "petsc") of a MATSEQBAIJKSPARSE matrix.

   They are BAIJ's, and their symbolic and numeric phases read the matrix's host arrays directly, not through a method
   of the matrix that our forwarders could refresh. When the values were last changed on the device (MatScale(),
   MatShift(), MatAXPY(), COO assembly, ... after a product: TS scales and shifts each Jacobian so), that host copy is
   stale, and the factor would silently be of the old values. So the factory that PETSc registered for MATSEQBAIJ under
   "petsc" (the default for a MATSEQBAIJKSPARSE matrix too: MatGetFactor() matches base types) is wrapped here: for a
   MATSEQBAIJKSPARSE matrix, the factor's symbolic and numeric phases first bring the host copy up to date (a download
   only when the device copy is newer). Any other matrix gets PETSc's factor untouched. The diagonal blocks of a
   MATMPIBAIJKSPARSE matrix are MATSEQBAIJKSPARSE, so PCBJACOBI's and PCASM's subdomain ILU/LU are covered too.
   Other packages (MUMPS, SuperLU, ...) read BAIJ's arrays the same way and are not wrapped: known_issues.md. */
#include "baijksparseimpl.h"

#define PBG_FACTOR_OPS "PBG_BAIJKSPARSE_FactorOps"

/* PETSc's factories of MATSEQBAIJ under "petsc", by MatFactorType, saved when the wrapper is registered */
static PetscErrorCode (*PetscSeqBAIJFactory[MAT_FACTOR_NUM_TYPES])(Mat, MatFactorType, Mat *);

/* BAIJ's phases of one factor matrix, replaced in its method table by the wrappers below */
typedef struct {
  PetscErrorCode (*lufactorsymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*ilufactorsymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*choleskyfactorsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*iccfactorsymbolic)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*lufactornumeric)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*choleskyfactornumeric)(Mat, Mat, const MatFactorInfo *);
} FactorOps;

static PetscErrorCode GetFactorOps(Mat fact, FactorOps **ops)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)fact, PBG_FACTOR_OPS, (void **)ops));
  PetscCheck(*ops, PETSC_COMM_SELF, PETSC_ERR_PLIB, "factor of a %s matrix without its saved BAIJ phases", MATSEQBAIJKSPARSE);
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

/* Before a phase of the factor: its saved BAIJ phases, and A's host copy current */
static PetscErrorCode BeginPhase(Mat fact, Mat A, FactorOps **ops)
{
  PetscFunctionBegin;
  PetscCall(GetFactorOps(fact, ops));
  PetscCall(RefreshHost(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A phase put in the place of BAIJ's: the host copy refreshed, then BAIJ's phase (field of FactorOps), then AFTER */
#define PBG_REFRESHED_PHASE(name, field, params, args, after) \
  static PetscErrorCode name params \
  { \
    FactorOps *ops; \
\
    PetscFunctionBegin; \
    PetscCall(BeginPhase(fact, A, &ops)); \
    PetscCall((*ops->field)args); \
    after; \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

PBG_REFRESHED_PHASE(LUFactorNumeric_Refreshed, lufactornumeric, (Mat fact, Mat A, const MatFactorInfo *info), (fact, A, info), (void)0)
PBG_REFRESHED_PHASE(CholeskyFactorNumeric_Refreshed, choleskyfactornumeric, (Mat fact, Mat A, const MatFactorInfo *info), (fact, A, info), (void)0)

/* After a symbolic phase, which sets the numeric phase BAIJ chose (by block size and ordering): save it and put the
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

PBG_REFRESHED_PHASE(LUFactorSymbolic_Refreshed, lufactorsymbolic, (Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info), (fact, A, row, col, info), PetscCall(WrapNumeric(fact, ops)))
PBG_REFRESHED_PHASE(ILUFactorSymbolic_Refreshed, ilufactorsymbolic, (Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info), (fact, A, row, col, info), PetscCall(WrapNumeric(fact, ops)))
PBG_REFRESHED_PHASE(CholeskyFactorSymbolic_Refreshed, choleskyfactorsymbolic, (Mat fact, Mat A, IS perm, const MatFactorInfo *info), (fact, A, perm, info), PetscCall(WrapNumeric(fact, ops)))
PBG_REFRESHED_PHASE(ICCFactorSymbolic_Refreshed, iccfactorsymbolic, (Mat fact, Mat A, IS perm, const MatFactorInfo *info), (fact, A, perm, info), PetscCall(WrapNumeric(fact, ops)))

/* The factory registered for MATSEQBAIJ under "petsc" in place of PETSc's: PETSc's factor, whose phases refresh the
   host copy first when A is MATSEQBAIJKSPARSE */
static PetscErrorCode MatGetFactor_SeqBAIJ_PETSc_Refreshed(Mat A, MatFactorType ftype, Mat *F)
{
  PetscBool  isk;
  FactorOps *ops;
  Mat        B;

  PetscFunctionBegin;
  PetscCheck(PetscSeqBAIJFactory[ftype], PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc has no %s factorization of %s matrices", MatFactorTypes[ftype], MATSEQBAIJ);
  PetscCall((*PetscSeqBAIJFactory[ftype])(A, ftype, F));
  B = *F;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJKSPARSE, &isk));
  if (!isk || !B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&ops));
  ops->lufactorsymbolic       = B->ops->lufactorsymbolic;
  ops->ilufactorsymbolic      = B->ops->ilufactorsymbolic;
  ops->choleskyfactorsymbolic = B->ops->choleskyfactorsymbolic;
  ops->iccfactorsymbolic      = B->ops->iccfactorsymbolic;
  PetscCall(PetscObjectContainerCompose((PetscObject)B, PBG_FACTOR_OPS, ops, PetscCtxDestroyDefault));
  if (ops->lufactorsymbolic) B->ops->lufactorsymbolic = LUFactorSymbolic_Refreshed;
  if (ops->ilufactorsymbolic) B->ops->ilufactorsymbolic = ILUFactorSymbolic_Refreshed;
  if (ops->choleskyfactorsymbolic) B->ops->choleskyfactorsymbolic = CholeskyFactorSymbolic_Refreshed;
  if (ops->iccfactorsymbolic) B->ops->iccfactorsymbolic = ICCFactorSymbolic_Refreshed;
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
  const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_ILU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ICC};

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ftypes); i++) {
    PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;

    PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQBAIJ, ftypes[i], NULL, NULL, &create));
    if (!create || create == MatGetFactor_SeqBAIJ_PETSc_Refreshed) continue; /* none, or ours already */
    PetscSeqBAIJFactory[ftypes[i]] = create;
    PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQBAIJ, ftypes[i], MatGetFactor_SeqBAIJ_PETSc_Refreshed));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
