"""Issue 37: hostile arguments to every function of the petscblockgpu module. An object of the wrong PETSc class or
Python type raises TypeError naming the argument and the class expected (a Mat where a PC belongs was ignored); an
integer outside PetscInt raises OverflowError as petsc4py does (2**32 + 4 became 4); an unknown enum value ValueError;
nothing is changed by a rejected call; the values that worked before still do. Prints OK or FAILED lines; exits
non-zero on a failure."""
import inspect
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


def raises(what, exc, words, f, *args):
    """f(*args) raises exc, with every one of words in its message."""
    try:
        f(*args)
    except exc as e:
        check("%s raises %s: %s" % (what, exc.__name__, e), all(w in str(e) for w in words))
    except Exception as e:  # noqa: BLE001 (the wrong kind is a failure, not a crash of the test)
        check("%s raises %s, not %s: %s" % (what, exc.__name__, type(e).__name__, e), False)
    else:
        check("%s raises %s (nothing raised)" % (what, exc.__name__), False)


pbg.load()
imin, imax = int(np.iinfo(PETSc.IntType).min), int(np.iinfo(PETSc.IntType).max)
check("PETSc.IntType is %s (%d..%d)" % (np.dtype(PETSc.IntType), imin, imax), imax == 2**31 - 1)

A = PETSc.Mat().createAIJ([4, 4], nnz=1, comm=PETSc.COMM_SELF)
A.assemble()
ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
ksp.setType(pbg.KSPIDRS)
pc = ksp.getPC()
pc.setType(pbg.PCVBJACOBI)
vec = A.createVecRight()

# integers beyond PetscInt: OverflowError naming the argument and the value, and nothing set
pbg.PCVBJacobiSetMaxBlockSize(pc, 8)
for v in (2**32 + 4, imax + 1, imin - 1, np.int64(2**40 + 8), 2**100):
    raises("PCVBJacobiSetMaxBlockSize(pc, %d)" % v, OverflowError, ["'maxbs'", str(int(v))], pbg.PCVBJacobiSetMaxBlockSize, pc, v)
check("the rejected values left the max block size at 8", pbg.PCVBJacobiGetMaxBlockSize(pc) == 8)
pbg.KSPIDRSSetS(ksp, 2)
pbg.KSPIDRSSetSeed(ksp, 5)
raises("KSPIDRSSetS(ksp, 2**32 + 3)", OverflowError, ["'s'"], pbg.KSPIDRSSetS, ksp, 2**32 + 3)
raises("KSPIDRSSetSeed(ksp, 2**31)", OverflowError, ["'seed'"], pbg.KSPIDRSSetSeed, ksp, 2**31)
check("the rejected values left s = 2 and seed = 5", pbg.KSPIDRSGetS(ksp) == 2 and pbg.KSPIDRSGetSeed(ksp) == 5)
raises("MatBAIJKSPARSEGetTuningTable(2**32 + 90)", OverflowError, ["'arch'"], pbg.MatBAIJKSPARSEGetTuningTable, 2**32 + 90)
pbg.KSPIDRSSetSeed(ksp, imax)
got_max = pbg.KSPIDRSGetSeed(ksp)
pbg.KSPIDRSSetSeed(ksp, imin)
check("the ends of PetscInt pass: seed %d and %d" % (imax, imin), got_max == imax and pbg.KSPIDRSGetSeed(ksp) == imin)

# every function that takes an object, given a Mat, the other class, a Vec, None or an int: TypeError naming the
# argument, the class expected and the one given
value = {
    "PCVBJacobiSetMaxBlockSize": 4, "PCVBJacobiSetBlocking": "natural", "PCVBJacobiSetSingularPolicy": "identity",
    "PCVBJacobiSetPrecision": "single", "PCVBJacobiSetPrecisionTolerance": 0.5, "KSPIDRSSetS": 3,
    "KSPIDRSSetAngle": 0.5, "KSPIDRSSetSmoothing": True, "KSPIDRSSetReplacement": True, "KSPIDRSSetSeed": 9,
}
objfuncs = []  # (name, the class it takes, the rest of its arguments)
for name in pbg.__all__:
    cls = "PC" if name.startswith("PCVBJacobi") else "KSP" if name.startswith("KSPIDRS") else None
    if cls is not None and inspect.isfunction(getattr(pbg, name)):
        objfuncs.append((name, cls, (value[name],) if name in value else ()))
check("%d functions taking a PC or KSP to try" % len(objfuncs), len(objfuncs) == 23)
for name, cls, extra in objfuncs:
    other = (ksp, "PETSc.KSP") if cls == "PC" else (pc, "PETSc.PC")
    for bad, given in ((A, "PETSc.Mat"), other, (vec, "PETSc.Vec"), (None, "NoneType"), (0, "int")):
        raises("%s(%s)" % (name, given), TypeError, ["'%s'" % cls.lower(), "PETSc.%s" % cls, given], getattr(pbg, name), bad, *extra)
check("the rejected calls left the PC and KSP as they were: max block size 8, blocking auto, s 2",
      pbg.PCVBJacobiGetMaxBlockSize(pc) == 8 and pbg.PCVBJacobiGetBlocking(pc) == pbg.PCVBJacobiBlocking.AUTO and pbg.KSPIDRSGetS(ksp) == 2)

# values of the wrong type or outside an enum
bad_values = [
    ("PCVBJacobiSetMaxBlockSize", 8.0, TypeError, ["'maxbs'", "integer", "float"]),
    ("PCVBJacobiSetMaxBlockSize", "8", TypeError, ["'maxbs'", "integer", "str"]),
    ("PCVBJacobiSetMaxBlockSize", None, TypeError, ["'maxbs'", "NoneType"]),
    ("PCVBJacobiSetMaxBlockSize", A, TypeError, ["'maxbs'", "PETSc.Mat"]),
    ("KSPIDRSSetSeed", 1.5, TypeError, ["'seed'", "integer"]),
    ("PCVBJacobiSetPrecisionTolerance", "0.1", TypeError, ["'tol'", "real", "str"]),
    ("PCVBJacobiSetPrecisionTolerance", None, TypeError, ["'tol'", "real"]),
    ("KSPIDRSSetAngle", 1j, TypeError, ["'angle'", "complex"]),
    ("KSPIDRSSetSmoothing", "false", TypeError, ["'flg'", "bool", "str"]),
    ("KSPIDRSSetReplacement", 2, ValueError, ["'flg'", "0 or 1"]),
    ("PCVBJacobiSetBlocking", "nonsense", ValueError, ["'blocking'", "nonsense", "supervariable"]),
    ("PCVBJacobiSetBlocking", 99, ValueError, ["'blocking'", "99", "PCVBJacobiBlocking"]),
    ("PCVBJacobiSetBlocking", 2**32 + 1, ValueError, ["'blocking'"]),
    ("PCVBJacobiSetBlocking", pbg.PCVBJacobiPrecision.SINGLE, TypeError, ["'blocking'", "PCVBJacobiBlocking", "PCVBJacobiPrecision"]),
    ("PCVBJacobiSetPrecision", 1.0, TypeError, ["'precision'", "PCVBJacobiPrecision", "float"]),
    ("PCVBJacobiSetSingularPolicy", -1, ValueError, ["'policy'", "error, identity"]),
]
for name, v, exc, words in bad_values:
    target = ksp if name.startswith("KSP") else pc
    raises("%s(%s, %r)" % (name, type(target).__name__, v), exc, words, getattr(pbg, name), target, v)
raises("MatBAIJKSPARSEGetTuningTable('90')", TypeError, ["'arch'", "integer", "str"], pbg.MatBAIJKSPARSEGetTuningTable, "90")
raises("MatBAIJKSPARSEGetTuningTable(pc)", TypeError, ["'arch'", "PETSc.PC"], pbg.MatBAIJKSPARSEGetTuningTable, pc)
raises("load(42)", TypeError, ["'path'", "int"], pbg.load, 42)
raises("KSPIDRSSetS(ksp) without a value", TypeError, [], pbg.KSPIDRSSetS, ksp)
check("the rejected values left max block size 8, blocking auto, policy error, precision double",
      pbg.PCVBJacobiGetMaxBlockSize(pc) == 8 and pbg.PCVBJacobiGetBlocking(pc) == pbg.PCVBJacobiBlocking.AUTO
      and pbg.PCVBJacobiGetSingularPolicy(pc) == pbg.PCVBJacobiSingularPolicy.ERROR
      and pbg.PCVBJacobiGetPrecision(pc) == pbg.PCVBJacobiPrecision.DOUBLE)

# what worked before still works: numpy scalars, ints for reals, enums by member, value and name (any case)
accepted = [
    ("PCVBJacobiSetMaxBlockSize", np.int32(5), 5), ("PCVBJacobiSetMaxBlockSize", np.uint8(6), 6),
    ("PCVBJacobiSetPrecisionTolerance", np.float32(0.25), 0.25), ("PCVBJacobiSetPrecisionTolerance", 1, 1.0),
    ("KSPIDRSSetAngle", np.float64(0.5), 0.5), ("KSPIDRSSetSmoothing", np.bool_(True), True),
    ("KSPIDRSSetSmoothing", 0, False), ("KSPIDRSSetReplacement", 1, True), ("KSPIDRSSetSeed", np.int64(-7), -7),
    ("PCVBJacobiSetBlocking", "Natural", pbg.PCVBJacobiBlocking.NATURAL), ("PCVBJacobiSetBlocking", 2, pbg.PCVBJacobiBlocking.MATRIX),
    ("PCVBJacobiSetPrecision", pbg.PCVBJacobiPrecision.HALF, pbg.PCVBJacobiPrecision.HALF),
    ("PCVBJacobiSetSingularPolicy", np.int16(1), pbg.PCVBJacobiSingularPolicy.IDENTITY),
]
for name, v, want in accepted:
    target = ksp if name.startswith("KSP") else pc
    getattr(pbg, name)(target, v)
    got = getattr(pbg, name.replace("Set", "Get", 1))(target)
    check("%s(%s %r) -> %r" % (name, type(v).__name__, v, got), got == want and type(got) is type(want))
path, tried = pbg.MatBAIJKSPARSEGetTuningTable(np.int32(90))
check("MatBAIJKSPARSEGetTuningTable(np.int32(90)) finds %s" % path, path is not None and path.endswith("baijksparse_tuning_sm90.txt"))
check("load(library_path()) after load() returns the library", pbg.load(pbg.library_path()) is pbg.load())

# last, as the module before issue 37 passed their NULL handles to C, which crashed: an empty object of the right class
for name, cls, extra in objfuncs:
    raises("%s(empty PETSc.%s)" % (name, cls), ValueError, ["'%s'" % cls.lower(), "empty"], getattr(pbg, name), getattr(PETSc, cls)(), *extra)

for o in (ksp, A, vec):
    o.destroy()
PETSc.Sys.Print("%s: petscblockgpu bad input, %d checks failed" % ("FAILED" if failed else "OK", len(failed)))
sys.exit(1 if failed else 0)
