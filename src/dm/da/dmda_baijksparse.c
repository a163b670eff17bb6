/* DMDA matrices of type baijksparse keep DMDA's BAIJ route.

   DMCreateMatrix() of a DMDA picks its preallocation routine by the functions the new matrix has, AIJ's first
   (src/dm/impls/da/fdda.c). baijksparse accepts MatSeqAIJSetPreallocation() / MatMPIAIJSetPreallocation() (issue 38,
   src/mat/baijcuda_k/baijksparse_prealloc.c), so the DMDA would take its scalar route: more work than the block route
   for the same pattern, and for one rank in 1-D a routine that writes Mat_SeqAIJ fields directly. DMDA's creation
   routine is wrapped here (as baijksparse_factor.c wraps BAIJ's factor): every DMDA's DMCreateMatrix() hides the AIJ
   preallocation of the baijksparse matrices made inside it, so the DMDA preallocates with block counts as before, and
   composes it on the result, for the program's own calls. A 1-D DMDA, which has no block route, gets its scalar
   route's matrix converted. Any other matrix type is untouched. The interpolation between two such DMDAs is built as
   aijcusparse where the device is usable, so that PCMG's transfers stay on the device. */
#include <petsc/private/dmimpl.h>
#include <petscdmda.h>
#include <petscblockgpu.h>
#include <petscblockgpu/private/pbgimpl.h>

static PetscErrorCode (*DMCreate_DA_PETSc)(DM)                                = NULL;
static PetscErrorCode (*DMCreateMatrix_DA_PETSc)(DM, Mat *)                   = NULL;
static PetscErrorCode (*DMCreateInterpolation_DA_PETSc)(DM, DM, Mat *, Vec *) = NULL;

/* DMDA's AIJ route builds the matrix (host AIJ, block size dof, the stencil's pattern), which is converted, and what
   DMDA set on it is set again on the result: the local-to-global map, the stencil, the DM, the pattern locked, the
   parallel viewer in natural ordering. Taken where it is the only route or the faster one:
   - a 1-D DMDA has no BAIJ route in PETSc ("Not implemented for 1 dimension");
   - one field on one rank: AIJ fills the stencil's pattern a sorted row at a time, BAIJ block by block (ksp ex45 at
     100^3 on the host: DMCreateMatrix faster through AIJ than through BAIJ), and the conversion of a block size 1
     matrix is a copy of its arrays (MatConvert_Any_BAIJKSPARSE()).
   (measured: doc/benchmarks.md, "Measurements behind design choices") */
static PetscErrorCode DMCreateMatrix_DA_ThroughAIJ(DM da, Mat *J)
{
  char                   mattype[256];
  Mat                    A;
  PetscErrorCode         ierr;
  ISLocalToGlobalMapping ltog;
  PetscInt               starts[3], dims[3], dof, dim;
  PetscErrorCodeFn      *view = NULL, *load = NULL;
  PetscMPIInt            size;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(mattype, da->mattype, sizeof(mattype)));
  PetscCall(DMSetMatType(da, MATAIJ));
  ierr = (*DMCreateMatrix_DA_PETSc)(da, &A);
  PetscCall(DMSetMatType(da, mattype));
  PetscCall(ierr);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)da), &size));
  if (size > 1) {
    PetscCall(MatGetOperation(A, MATOP_VIEW, &view));
    PetscCall(MatGetOperation(A, MATOP_LOAD, &load));
  }
  PetscCall(MatConvert(A, mattype, MAT_INITIAL_MATRIX, J));
  PetscCall(MatDestroy(&A));
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(MatSetLocalToGlobalMapping(*J, ltog, ltog));
  PetscCall(DMDAGetGhostCorners(da, &starts[0], &starts[1], &starts[2], &dims[0], &dims[1], &dims[2]));
  PetscCall(DMDAGetDof(da, &dof));
  PetscCall(DMGetDimension(da, &dim));
  PetscCall(MatSetStencil(*J, dim, dims, starts, dof));
  PetscCall(MatSetDM(*J, da));
  if (!da->prealloc_only) PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  if (view) PetscCall(MatSetOperation(*J, MATOP_VIEW, view));
  if (load) PetscCall(MatSetOperation(*J, MATOP_LOAD, load));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMCreateMatrix_DA_BAIJKSPARSE(DM da, Mat *J)
{
  PetscErrorCode ierr;
  PetscInt       dim, dof;
  PetscBool      ours;
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCheck(DMCreateMatrix_DA_PETSc, PetscObjectComm((PetscObject)da), PETSC_ERR_PLIB, "DMDA's DMCreateMatrix() was not saved");
  PetscCall(DMGetDimension(da, &dim));
  PetscCall(DMDAGetDof(da, &dof));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)da), &size));
  PetscCall(PetscStrendswith(da->mattype, MATBAIJKSPARSE, &ours));
  if (ours && (dim == 1 || (dof == 1 && size == 1))) {
    PetscCall(DMCreateMatrix_DA_ThroughAIJ(da, J));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatBAIJKSPARSEHideAIJPreallocation_Private(PETSC_TRUE));
  ierr = (*DMCreateMatrix_DA_PETSc)(da, J);
  PetscCall(MatBAIJKSPARSEHideAIJPreallocation_Private(PETSC_FALSE));
  PetscCall(ierr);
  PetscCall(MatBAIJKSPARSEComposeAIJPreallocation_Private(*J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The interpolation of a DMDA whose matrix type is ours (issue 40). PETSc's DMDA keeps the DM's matrix type for its
   interpolation only when the name begins with "aij" (ConvertToAIJ() in dainterp.c); any other type gets a host AIJ
   (in a MAIJ for several fields), and then every MatInterpolate() and MatRestrict() of PCMG copies the vectors
   between host and device. With a usable device the interpolation is built as aijcusparse instead, exactly as for
   -dm_mat_type aijcusparse (the MAIJ converted to it): the transfers run on the device. Without one, PETSc's host
   AIJ as before. */
static PetscErrorCode DMCreateInterpolation_DA_BAIJKSPARSE(DM dac, DM daf, Mat *A, Vec *scale)
{
  char           mattype[256];
  PetscBool      ours, dev;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(DMCreateInterpolation_DA_PETSc, PetscObjectComm((PetscObject)dac), PETSC_ERR_PLIB, "DMDA's DMCreateInterpolation() was not saved");
  PetscCall(PetscStrendswith(dac->mattype, MATBAIJKSPARSE, &ours));
  PetscCall(PetscBlockGPUDeviceAvailable(&dev));
  if (!ours || !dev) {
    PetscCall((*DMCreateInterpolation_DA_PETSc)(dac, daf, A, scale));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrncpy(mattype, dac->mattype, sizeof(mattype)));
  PetscCall(DMSetMatType(dac, MATAIJCUSPARSE));
  ierr = (*DMCreateInterpolation_DA_PETSc)(dac, daf, A, scale);
  PetscCall(DMSetMatType(dac, mattype));
  PetscCall(ierr);
  PetscCall(PetscInfo(dac, "interpolation of a DMDA with matrix type %s: %s\n", mattype, ((PetscObject)*A)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMCreate_DA_BAIJKSPARSE(DM da)
{
  PetscFunctionBegin;
  PetscCall((*DMCreate_DA_PETSc)(da));
  if (!DMCreateMatrix_DA_PETSc) DMCreateMatrix_DA_PETSc = da->ops->creatematrix;
  if (da->ops->creatematrix == DMCreateMatrix_DA_PETSc) da->ops->creatematrix = DMCreateMatrix_DA_BAIJKSPARSE;
  if (!DMCreateInterpolation_DA_PETSc) DMCreateInterpolation_DA_PETSc = da->ops->createinterpolation;
  if (da->ops->createinterpolation == DMCreateInterpolation_DA_PETSc) da->ops->createinterpolation = DMCreateInterpolation_DA_BAIJKSPARSE;
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
