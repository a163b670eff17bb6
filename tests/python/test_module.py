"""The petscblockgpu Python module: load() into petsc4py, the type names, every setter/getter pair, the blocks and
inverses of vbjacobi as numpy arrays (checked against the matrix), the tuning table lookup of the build tree, the
build info. Prints OK or FAILED lines; exits non-zero on a failure."""
import os
import sys

import numpy as np
import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402

import petscblockgpu as pbg  # noqa: E402

failed = []


def check(what, cond):
    PETSc.Sys.Print("%s: %s" % ("OK" if cond else "FAILED", what))
    if not cond:
        failed.append(what)


pbg.load()
libdir, version, prefix = pbg.build_info()
# the PETSc of petsc4py's configuration, or, in a relocated tree (the offline bundle: the build machine's PETSC_DIR does
# not exist there), the libpetsc beside the library, which both were built against
petsc_lib = os.path.join(petsc4py.get_config()["PETSC_DIR"], "lib")
beside = os.path.dirname(os.path.realpath(pbg.library_path()))
same_dir = os.path.samefile(libdir, petsc_lib) if os.path.isdir(libdir) and os.path.isdir(petsc_lib) else \
    not os.path.isdir(libdir) and any(f.startswith("libpetsc.so") for f in os.listdir(beside))
check("build info: PETSc %s in %s matches petsc4py" % (version, libdir if os.path.isdir(libdir) else beside + " (relocated)"),
      version == "%d.%d.%d" % PETSc.Sys.getVersion() and same_dir)
check("load() twice returns the same library", pbg.load() is pbg.load())

# the table of the build tree: lib/../share/petscblockgpu, found with no variable that names it (the runner may set none)
root = os.path.dirname(os.path.dirname(os.path.realpath(pbg.library_path())))
path, tried = pbg.MatBAIJKSPARSEGetTuningTable(90)
check("tuning table for sm_90 in the build tree: %s" % path,
      path is not None and os.path.samefile(path, os.path.join(root, "share", "petscblockgpu", "baijksparse_tuning_sm90.txt")))
path, tried = pbg.MatBAIJKSPARSEGetTuningTable(12)
check("no tuning table for sm_12, searched %s" % tried, path is None and len(tried) >= 1 and all("sm12" in t for t in tried))

# a small BAIJ system with bs 3: vbjacobi's blocks and inverses
bs, mbs = 3, 8
A = PETSc.Mat().create(comm=PETSc.COMM_SELF)
A.setSizes((mbs * bs, mbs * bs), bsize=bs)
A.setType(pbg.MATBAIJKSPARSE)
A.setPreallocationNNZ(3)
rng = np.random.default_rng(7)
for r in range(mbs):
    A.setValuesBlocked([r], [r], 5 * np.eye(bs) + rng.random((bs, bs)))
    if r + 1 < mbs:
        A.setValuesBlocked([r], [r + 1], -np.eye(bs))
A.assemble()
check("matrix type %s" % A.getType(), A.getType() == pbg.MATSEQBAIJKSPARSE)

ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
ksp.setOperators(A)
ksp.setType(pbg.KSPIDRS)
pc = ksp.getPC()
pc.setType(pbg.PCVBJACOBI)
check("KSP and PC types", ksp.getType() == pbg.KSPIDRS and pc.getType() == pbg.PCVBJACOBI)

pairs = [
    (pbg.PCVBJacobiSetMaxBlockSize, pbg.PCVBJacobiGetMaxBlockSize, pc, 6),
    (pbg.PCVBJacobiSetSingularPolicy, pbg.PCVBJacobiGetSingularPolicy, pc, pbg.PCVBJacobiSingularPolicy.IDENTITY),
    (pbg.PCVBJacobiSetPrecision, pbg.PCVBJacobiGetPrecision, pc, pbg.PCVBJacobiPrecision.SINGLE),
    (pbg.PCVBJacobiSetPrecisionTolerance, pbg.PCVBJacobiGetPrecisionTolerance, pc, 0.25),
    (pbg.PCVBJacobiSetBlocking, pbg.PCVBJacobiGetBlocking, pc, pbg.PCVBJacobiBlocking.MATRIX),
    (pbg.KSPIDRSSetS, pbg.KSPIDRSGetS, ksp, 3),
    (pbg.KSPIDRSSetAngle, pbg.KSPIDRSGetAngle, ksp, 0.5),
    (pbg.KSPIDRSSetSmoothing, pbg.KSPIDRSGetSmoothing, ksp, True),
    (pbg.KSPIDRSSetReplacement, pbg.KSPIDRSGetReplacement, ksp, True),
    (pbg.KSPIDRSSetSeed, pbg.KSPIDRSGetSeed, ksp, 12345),
]
for setter, getter, obj, value in pairs:
    setter(obj, value)
    got = getter(obj)
    check("%s(%r) -> %s = %r" % (setter.__name__, value, getter.__name__, got), got == value)
pbg.PCVBJacobiSetPrecision(pc, "double")
check("enum by name: PCVBJacobiSetPrecision('double')", pbg.PCVBJacobiGetPrecision(pc) == pbg.PCVBJacobiPrecision.DOUBLE)
try:
    pbg.PCVBJacobiSetMaxBlockSize(pc, 1000)
    check("PCVBJacobiSetMaxBlockSize(1000) raises PETSc.Error", False)
except PETSc.Error:
    check("PCVBJacobiSetMaxBlockSize(1000) raises PETSc.Error", True)

b = A.createVecRight()
b.set(1.0)
x = b.duplicate()
ksp.setTolerances(rtol=1e-10)
ksp.solve(b, x)
check("idrs + vbjacobi converged (%d iterations)" % ksp.getIterationNumber(), ksp.getConvergedReason() > 0)
starts = pbg.PCVBJacobiGetBlocks(pc)
check("PCVBJacobiGetBlocks: %s" % starts.tolist(), isinstance(starts, np.ndarray) and starts.tolist() == list(range(0, mbs * bs + 1, bs)))
inv = pbg.PCVBJacobiGetInverses(pc)
dense = A.convert("dense", out=PETSc.Mat()).getDenseArray()
good = len(inv) == mbs and all(np.allclose(inv[k] @ dense[k * bs:(k + 1) * bs, k * bs:(k + 1) * bs], np.eye(bs)) for k in range(mbs))
check("PCVBJacobiGetInverses: %d blocks, each the inverse of its diagonal block" % len(inv), good)
counts, each, nbytes = pbg.PCVBJacobiGetBlockPrecisions(pc)
check("PCVBJacobiGetBlockPrecisions: counts %s, %d bytes" % (counts, nbytes), counts == (mbs, 0, 0) and len(each) == mbs and nbytes == mbs * bs * bs * 8)

for o in (ksp, A, b, x):
    o.destroy()
PETSc.Sys.Print("%s: petscblockgpu module, %d checks failed" % ("FAILED" if failed else "OK", len(failed)))
sys.exit(1 if failed else 0)
