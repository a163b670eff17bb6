/* What petscblockgpu was built against and where it is installed. `make install` compiles this file again with
   -DPBG_INSTALL_PREFIX='"$(PREFIX)"' into the installed copy of the library; the build tree's library has no prefix. */
#include <petscblockgpu/private/pbgimpl.h>

#if !defined(PBG_INSTALL_PREFIX)
  #define PBG_INSTALL_PREFIX ""
#endif
#define PBG_STR_(x) #x
#define PBG_STR(x)  PBG_STR_(x)

const char PetscBlockGPUInstallPrefix[] = PBG_INSTALL_PREFIX;

/*@C
  PetscBlockGPUGetBuildInfo - The PETSc that petscblockgpu was compiled against, and its install prefix

  Not Collective

  Output Parameters:
+ petsclibdir  - `PETSC_LIB_DIR` of that PETSc (the directory of its libpetsc), or `NULL`
. petscversion - its version, "major.minor.subminor", or `NULL`
- prefix       - the `PREFIX` of `make install` for an installed library, "" in the build tree, or `NULL`

  Level: intermediate

  Note:
  A process must use that very libpetsc: a library loaded into a process that already holds another libpetsc of the
  same soname (a petsc4py built against another PETSc, say) binds to that one. The Python module `petscblockgpu`
  compares these with the PETSc of petsc4py.

.seealso: `PetscBlockGPUInitializePackage()`, `MatBAIJKSPARSEGetTuningTable()`
@*/
PetscErrorCode PetscBlockGPUGetBuildInfo(const char **petsclibdir, const char **petscversion, const char **prefix)
{
  PetscFunctionBegin;
  if (petsclibdir) *petsclibdir = PETSC_LIB_DIR;
  if (petscversion) *petscversion = PBG_STR(PETSC_VERSION_MAJOR) "." PBG_STR(PETSC_VERSION_MINOR) "." PBG_STR(PETSC_VERSION_SUBMINOR);
  if (prefix) *prefix = PetscBlockGPUInstallPrefix;
  PetscFunctionReturn(PETSC_SUCCESS);
}
