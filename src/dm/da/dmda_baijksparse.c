/* DMDA matrices of type baijksparse keep DMDA's BAIJ route.

   DMCreateMatrix() of a DMDA picks its preallocation routine by the functions the new matrix has, AIJ's first
   (src/dm/impls/da/fdda.c). baijksparse accepts MatSeqAIJSetPreallocation() / MatMPIAIJSetPreallocation() (issue 38,
   src/mat/baijcuda_k/baijksparse_prealloc.c), so the DMDA would take its scalar route: more work than the block route
   for the same pattern, and for one rank in 1-D a routine that writes Mat_SeqAIJ fields directly. DMDA's creation
   routine is wrapped here (as baijksparse_factor.c wraps BAIJ's factor): every DMDA's DMCreateMatrix() hides the AIJ
   preallocation of the baijksparse matrices made inside it, so the DMDA preallocates with block counts as before, and
   composes it on the result, for the program's own calls. Any other matrix type is untouched. */
#include <petsc/private/dmimpl.h>
#include <petscdmda.h>
#include <petscblockgpu/private/pbgimpl.h>

static PetscErrorCode (*DMCreate_DA_PETSc)(DM)                = NULL;
static PetscErrorCode (*DMCreateMatrix_DA_PETSc)(DM, Mat *) = NULL;

static PetscErrorCode DMCreateMatrix_DA_BAIJKSPARSE(DM da, Mat *J)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(DMCreateMatrix_DA_PETSc, PetscObjectComm((PetscObject)da), PETSC_ERR_PLIB, "DMDA's DMCreateMatrix() was not saved");
  PetscCall(MatBAIJKSPARSEHideAIJPreallocation_Private(PETSC_TRUE));
  ierr = (*DMCreateMatrix_DA_PETSc)(da, J);
  PetscCall(MatBAIJKSPARSEHideAIJPreallocation_Private(PETSC_FALSE));
  PetscCall(ierr);
  PetscCall(MatBAIJKSPARSEComposeAIJPreallocation_Private(*J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMCreate_DA_BAIJKSPARSE(DM da)
{
  PetscFunctionBegin;
  PetscCall((*DMCreate_DA_PETSc)(da));
  if (!DMCreateMatrix_DA_PETSc) DMCreateMatrix_DA_PETSc = da->ops->creatematrix;
  if (da->ops->creatematrix == DMCreateMatrix_DA_PETSc) da->ops->creatematrix = DMCreateMatrix_DA_BAIJKSPARSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Registers the wrapper under DMDA's name, in place of PETSc's DMCreate_DA (once) */
PetscErrorCode DMDABAIJKSPARSERegister_Private(void)
{
  PetscErrorCode (*create)(DM) = NULL;

  PetscFunctionBegin;
  PetscCall(DMInitializePackage());
  PetscCall(PetscFunctionListFind(DMList, DMDA, &create));
  if (!create || create == DMCreate_DA_BAIJKSPARSE) PetscFunctionReturn(PETSC_SUCCESS);
  DMCreate_DA_PETSc = create;
  PetscCall(DMRegister(DMDA, DMCreate_DA_BAIJKSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
