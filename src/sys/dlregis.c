/* Registration of the petscblockgpu package: types, log events, dynamic-library entry point. */
#include <petscblockgpu/private/pbgimpl.h>

PetscLogEvent PBG_VBJacobiDetect, PBG_VBJacobiInvert, PBG_VBJacobiApply, PBG_VBJacobiRichardson, PBG_VBJacobiChebyshev;
PetscLogEvent PBG_BAIJKMult, PBG_BAIJKCopyToGPU, PBG_BAIJKCopyFromGPU, PBG_BAIJKValues;
PetscLogEvent PBG_BAIJKCOO;
PetscLogEvent PBG_BAIJKInvertDiag;
PetscLogEvent PBG_BAIJKConvert;
PetscLogEvent PBG_BAIJKConvertPattern;
PetscLogEvent PBG_BAIJKProductSymbolic, PBG_BAIJKProductNumeric;
PetscLogEvent PBG_BAIJKGhost;
PetscLogEvent PBG_BAIJKTranspose;
PetscLogEvent PBG_IDRSUpdate, PBG_IDRSReduce;

static PetscBool PetscBlockGPUPackageInitialized = PETSC_FALSE;

/*@C
  PetscBlockGPUFinalizePackage - Frees what `PetscBlockGPUInitializePackage()` set up; called from `PetscFinalize()`.

  Level: developer

.seealso: `PetscBlockGPUInitializePackage()`
@*/
PetscErrorCode PetscBlockGPUFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscBlockGPUPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscBlockGPUInitializePackage - Registers `PCVBJACOBI`, `MATBAIJKSPARSE` (with `MATSEQBAIJKSPARSE` and
  `MATMPIBAIJKSPARSE`) and the log events of petscblockgpu.

  Not Collective

  Level: beginner

  Notes:
  Applications that link libpetscblockgpu call this once after `PetscInitialize()`. Applications that load the
  library at run time with `-dll_append /path/to/libpetscblockgpu.so` need not: PETSc calls
  `PetscDLLibraryRegister_petscblockgpu()`, which calls this routine. Calling it more than once is harmless.

.seealso: `PCVBJACOBI`, `MATBAIJKSPARSE`, `PetscBlockGPUFinalizePackage()`
@*/
PetscErrorCode PetscBlockGPUInitializePackage(void)
{
  PetscBool help;

  PetscFunctionBegin;
  if (PetscBlockGPUPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscBlockGPUPackageInitialized = PETSC_TRUE;
  PetscCall(PCInitializePackage());
  PetscCall(MatInitializePackage());
  PetscCall(KSPInitializePackage());

  PetscCall(PCRegister(PCVBJACOBI, PCCreate_VBJacobi));
  PetscCall(KSPRegister(KSPIDRS, KSPCreate_IDRS)); /* "idrs": PETSc's "idr" stays */
  PetscCall(MatRegister(MATSEQBAIJKSPARSE, MatCreate_SeqBAIJKSPARSE));
  PetscCall(MatRegister(MATMPIBAIJKSPARSE, MatCreate_MPIBAIJKSPARSE));
  PetscCall(MatRegister(MATBAIJKSPARSE, MatCreate_BAIJKSPARSE));
  PetscCall(MatRegisterRootName(MATBAIJKSPARSE, MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE));
  PetscCall(MatBAIJKSPARSERegisterFactors_Private());
  PetscCall(MatPBGDenseRegister_Private());
  PetscCall(DMDABAIJKSPARSERegister_Private());
  PetscCall(KSPChebyshevFusedRegister_Private());

  PetscCall(PetscLogEventRegister("VBJacDetect", PC_CLASSID, &PBG_VBJacobiDetect));
  PetscCall(PetscLogEventRegister("VBJacInvert", PC_CLASSID, &PBG_VBJacobiInvert));
  PetscCall(PetscLogEventRegister("VBJacApply", PC_CLASSID, &PBG_VBJacobiApply));
  PetscCall(PetscLogEventRegister("VBJacRichardson", PC_CLASSID, &PBG_VBJacobiRichardson));
  PetscCall(PetscLogEventRegister("VBJacChebyshev", PC_CLASSID, &PBG_VBJacobiChebyshev));
  PetscCall(PetscLogEventRegister("BAIJKMult", MAT_CLASSID, &PBG_BAIJKMult));
  PetscCall(PetscLogEventRegister("BAIJKCopyToGPU", MAT_CLASSID, &PBG_BAIJKCopyToGPU));
  PetscCall(PetscLogEventRegister("BAIJKCopyFromGPU", MAT_CLASSID, &PBG_BAIJKCopyFromGPU));
  PetscCall(PetscLogEventRegister("BAIJKValues", MAT_CLASSID, &PBG_BAIJKValues));
  PetscCall(PetscLogEventRegister("BAIJKSetValCOO", MAT_CLASSID, &PBG_BAIJKCOO));
  PetscCall(PetscLogEventRegister("BAIJKInvBlkDiag", MAT_CLASSID, &PBG_BAIJKInvertDiag));
  PetscCall(PetscLogEventRegister("BAIJKConvert", MAT_CLASSID, &PBG_BAIJKConvert));
  PetscCall(PetscLogEventRegister("BAIJKConvPattern", MAT_CLASSID, &PBG_BAIJKConvertPattern));
  PetscCall(PetscLogEventRegister("BAIJKGhostExch", MAT_CLASSID, &PBG_BAIJKGhost));
  PetscCall(PetscLogEventRegister("BAIJKTranspose", MAT_CLASSID, &PBG_BAIJKTranspose));
  PetscCall(PetscLogEventRegister("BAIJKBlkProdSym", MAT_CLASSID, &PBG_BAIJKProductSymbolic));
  PetscCall(PetscLogEventRegister("BAIJKBlkProdNum", MAT_CLASSID, &PBG_BAIJKProductNumeric));
  PetscCall(PetscLogEventRegister("KSPIDRSUpdate", KSP_CLASSID, &PBG_IDRSUpdate));
  PetscCall(PetscLogEventRegister("KSPIDRSReduce", KSP_CLASSID, &PBG_IDRSReduce));

  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall((*PetscHelpPrintf)(PETSC_COMM_WORLD, "petscblockgpu %d.%d: registered -pc_type %s, -mat_type %s (%s, %s) and -ksp_type %s; see their -pc_vbjacobi_*, -mat_baijksparse_* and -ksp_idrs_* options\n", PETSCBLOCKGPU_VERSION_MAJOR, PETSCBLOCKGPU_VERSION_MINOR, PCVBJACOBI, MATBAIJKSPARSE, MATSEQBAIJKSPARSE, MATMPIBAIJKSPARSE, KSPIDRS));
  }
  PetscCall(PetscRegisterFinalize(PetscBlockGPUFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry point that PETSc's -dll_append / -dll_prepend calls; the name derives from libpetscblockgpu.so. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscblockgpu(void)
{
  PetscFunctionBegin;
  PetscCall(PetscBlockGPUInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
