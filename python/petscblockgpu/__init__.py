"""petscblockgpu for petsc4py.

    import petscblockgpu as pbg
    lib = pbg.load()                                  # after (or instead of) `from petsc4py import PETSc`
    A.setType(pbg.MATBAIJKSPARSE); pc.setType(pbg.PCVBJACOBI); ksp.setType(pbg.KSPIDRS)
    pbg.PCVBJacobiSetMaxBlockSize(pc, 8)
    starts = pbg.PCVBJacobiGetBlocks(pc)              # numpy array, nblocks + 1 local row offsets

load() opens libpetscblockgpu.so (PETSCBLOCKGPU_LIBRARY, else lib/ of the build tree or of the install prefix that
holds this module), checks that it was built against the PETSc that petsc4py runs (same version, same libpetsc), and
registers the types (PetscBlockGPUInitializePackage(); harmless when -dll_append already did). The other functions
call the C functions of the same name (see their manual pages) through ctypes, taking petsc4py objects. See
doc/python.md.
"""
import ctypes
import enum
import os

import numpy as np

__all__ = [
    "PCVBJACOBI", "MATBAIJKSPARSE", "MATSEQBAIJKSPARSE", "MATMPIBAIJKSPARSE", "KSPIDRS",
    "PCVBJacobiBlocking", "PCVBJacobiSingularPolicy", "PCVBJacobiPrecision",
    "library_path", "load", "build_info",
    "PCVBJacobiSetMaxBlockSize", "PCVBJacobiGetMaxBlockSize", "PCVBJacobiSetBlocking", "PCVBJacobiGetBlocking",
    "PCVBJacobiSetSingularPolicy", "PCVBJacobiGetSingularPolicy", "PCVBJacobiSetPrecision", "PCVBJacobiGetPrecision",
    "PCVBJacobiSetPrecisionTolerance", "PCVBJacobiGetPrecisionTolerance", "PCVBJacobiGetBlocks",
    "PCVBJacobiGetInverses", "PCVBJacobiGetBlockPrecisions", "MatBAIJKSPARSEGetTuningTable",
    "KSPIDRSSetS", "KSPIDRSGetS", "KSPIDRSSetAngle", "KSPIDRSGetAngle", "KSPIDRSSetSmoothing", "KSPIDRSGetSmoothing",
    "KSPIDRSSetReplacement", "KSPIDRSGetReplacement", "KSPIDRSSetSeed", "KSPIDRSGetSeed",
]

# Type names (include/petscblockgpu.h)
PCVBJACOBI = "vbjacobi"
MATBAIJKSPARSE = "baijksparse"
MATSEQBAIJKSPARSE = "seqbaijksparse"
MATMPIBAIJKSPARSE = "mpibaijksparse"
KSPIDRS = "idrs"


class PCVBJacobiBlocking(enum.IntEnum):
    AUTO = 0
    SUPERVARIABLE = 1
    MATRIX = 2
    VARIABLE = 3
    NATURAL = 4


class PCVBJacobiSingularPolicy(enum.IntEnum):
    ERROR = 0
    IDENTITY = 1


class PCVBJacobiPrecision(enum.IntEnum):
    DOUBLE = 0
    SINGLE = 1
    HALF = 2
    ADAPTIVE = 3


_lib = None
_here = os.path.dirname(os.path.abspath(__file__))


def library_path():
    """The libpetscblockgpu.so that load() opens: $PETSCBLOCKGPU_LIBRARY, else lib/ of the build tree
    (python/petscblockgpu/../../lib) or of the install prefix (share/petscblockgpu/python/petscblockgpu/../../../../lib)."""
    env = os.environ.get("PETSCBLOCKGPU_LIBRARY")
    if env:
        return env
    for up in (2, 4):
        path = os.path.normpath(os.path.join(_here, *[".."] * up, "lib", "libpetscblockgpu.so"))
        if os.path.exists(path):
            return path
    raise FileNotFoundError("libpetscblockgpu.so not found beside the petscblockgpu module (%s); set PETSCBLOCKGPU_LIBRARY" % _here)


def _mapped_libpetsc():
    """The libpetsc files mapped into this process (Linux)."""
    found = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)  # address perms offset dev inode [path]
            path = fields[5].strip() if len(fields) == 6 else ""
            if os.path.basename(path).startswith("libpetsc.so"):
                found.add(os.path.realpath(path))
    return found


def load(path=None):
    """Load libpetscblockgpu into petsc4py's PETSc and register its types; returns the ctypes library.

    Raises RuntimeError when the library was built against another PETSc than the one petsc4py runs: the process can
    hold only one libpetsc of a soname, so the library would run on a PETSc it was not compiled for."""
    global _lib
    if _lib is not None:
        return _lib
    from petsc4py import PETSc  # initializes PETSc, with sys.argv, unless petsc4py.init() ran before

    path = path or library_path()
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    libdir, version, prefix = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
    _check(lib.PetscBlockGPUGetBuildInfo(ctypes.byref(libdir), ctypes.byref(version), ctypes.byref(prefix)))
    built = version.value.decode()
    running = "%d.%d.%d" % PETSc.Sys.getVersion()
    if built != running:
        raise RuntimeError("%s was built against PETSc %s, petsc4py runs PETSc %s: rebuild one of them (doc/python.md)" % (path, built, running))
    want = os.path.realpath(os.path.join(libdir.value.decode(), "")).rstrip("/")
    # a relocated tree (the offline bundle) carries the libpetsc it was built against beside the library
    beside = os.path.dirname(os.path.realpath(path))
    mapped = _mapped_libpetsc()
    if not mapped or any(os.path.dirname(m) not in (want, beside) for m in mapped):
        raise RuntimeError("%s was built against the libpetsc in %s, but this process runs %s: build petsc4py against that PETSc "
                           "(make petsc4py; doc/python.md)" % (path, want, ", ".join(sorted(mapped)) or "no libpetsc"))
    if np.dtype(PETSc.IntType).itemsize != 4 or np.dtype(PETSc.ScalarType) != np.float64:
        raise RuntimeError("petscblockgpu needs a PETSc with 32-bit PetscInt and real double scalars")
    _check(lib.PetscBlockGPUInitializePackage())
    _setup(lib)
    _lib = lib
    return lib


def build_info():
    """(PETSc library directory, PETSc version, install prefix) the library was built with (PetscBlockGPUGetBuildInfo())."""
    lib = load()
    out = [ctypes.c_char_p() for _ in range(3)]
    _check(lib.PetscBlockGPUGetBuildInfo(*[ctypes.byref(o) for o in out]))
    return tuple(o.value.decode() for o in out)


def _check(ierr):
    if ierr:
        from petsc4py import PETSc
        raise PETSc.Error(ierr)


_Int, _Real, _Bool, _Enum, _H = ctypes.c_int32, ctypes.c_double, ctypes.c_int, ctypes.c_int, ctypes.c_void_p


def _setup(lib):
    """Argument types of the C functions (PetscInt 32-bit, PetscReal double; objects are pointers)."""
    sig = {
        "PCVBJacobiSetMaxBlockSize": [_H, _Int], "PCVBJacobiGetMaxBlockSize": [_H, ctypes.POINTER(_Int)],
        "PCVBJacobiSetBlocking": [_H, _Enum], "PCVBJacobiGetBlocking": [_H, ctypes.POINTER(_Enum)],
        "PCVBJacobiSetSingularPolicy": [_H, _Enum], "PCVBJacobiGetSingularPolicy": [_H, ctypes.POINTER(_Enum)],
        "PCVBJacobiSetPrecision": [_H, _Enum], "PCVBJacobiGetPrecision": [_H, ctypes.POINTER(_Enum)],
        "PCVBJacobiSetPrecisionTolerance": [_H, _Real], "PCVBJacobiGetPrecisionTolerance": [_H, ctypes.POINTER(_Real)],
        "PCVBJacobiGetBlocks": [_H, ctypes.POINTER(_Int), ctypes.POINTER(ctypes.POINTER(_Int))],
        "PCVBJacobiGetInverses": [_H, ctypes.POINTER(ctypes.POINTER(_Real))],
        "PCVBJacobiGetBlockPrecisions": [_H, ctypes.POINTER(_Int), ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte)), ctypes.POINTER(ctypes.c_int64)],
        "MatBAIJKSPARSEGetTuningTable": [_Int, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Bool)],
        "KSPIDRSSetS": [_H, _Int], "KSPIDRSGetS": [_H, ctypes.POINTER(_Int)],
        "KSPIDRSSetAngle": [_H, _Real], "KSPIDRSGetAngle": [_H, ctypes.POINTER(_Real)],
        "KSPIDRSSetSmoothing": [_H, _Bool], "KSPIDRSGetSmoothing": [_H, ctypes.POINTER(_Bool)],
        "KSPIDRSSetReplacement": [_H, _Bool], "KSPIDRSGetReplacement": [_H, ctypes.POINTER(_Bool)],
        "KSPIDRSSetSeed": [_H, _Int], "KSPIDRSGetSeed": [_H, ctypes.POINTER(_Int)],
    }
    for name, args in sig.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, ctypes.c_int


def _setter(name, conv):
    def f(obj, value):
        _check(getattr(load(), name)(obj.handle, conv(value)))
    f.__name__ = name
    f.__doc__ = "%s(obj, value): the C function %s()" % (name, name)
    return f


def _getter(name, ctype, conv):
    def f(obj):
        out = ctype()
        _check(getattr(load(), name)(obj.handle, ctypes.byref(out)))
        return conv(out.value)
    f.__name__ = name
    f.__doc__ = "%s(obj): the C function %s()" % (name, name)
    return f


def _enum(cls):
    return lambda v: int(cls[v.upper()] if isinstance(v, str) else cls(v))


PCVBJacobiSetMaxBlockSize = _setter("PCVBJacobiSetMaxBlockSize", int)
PCVBJacobiGetMaxBlockSize = _getter("PCVBJacobiGetMaxBlockSize", _Int, int)
PCVBJacobiSetBlocking = _setter("PCVBJacobiSetBlocking", _enum(PCVBJacobiBlocking))
PCVBJacobiGetBlocking = _getter("PCVBJacobiGetBlocking", _Enum, PCVBJacobiBlocking)
PCVBJacobiSetSingularPolicy = _setter("PCVBJacobiSetSingularPolicy", _enum(PCVBJacobiSingularPolicy))
PCVBJacobiGetSingularPolicy = _getter("PCVBJacobiGetSingularPolicy", _Enum, PCVBJacobiSingularPolicy)
PCVBJacobiSetPrecision = _setter("PCVBJacobiSetPrecision", _enum(PCVBJacobiPrecision))
PCVBJacobiGetPrecision = _getter("PCVBJacobiGetPrecision", _Enum, PCVBJacobiPrecision)
PCVBJacobiSetPrecisionTolerance = _setter("PCVBJacobiSetPrecisionTolerance", float)
PCVBJacobiGetPrecisionTolerance = _getter("PCVBJacobiGetPrecisionTolerance", _Real, float)
KSPIDRSSetS = _setter("KSPIDRSSetS", int)
KSPIDRSGetS = _getter("KSPIDRSGetS", _Int, int)
KSPIDRSSetAngle = _setter("KSPIDRSSetAngle", float)
KSPIDRSGetAngle = _getter("KSPIDRSGetAngle", _Real, float)
KSPIDRSSetSmoothing = _setter("KSPIDRSSetSmoothing", bool)
KSPIDRSGetSmoothing = _getter("KSPIDRSGetSmoothing", _Bool, bool)
KSPIDRSSetReplacement = _setter("KSPIDRSSetReplacement", bool)
KSPIDRSGetReplacement = _getter("KSPIDRSGetReplacement", _Bool, bool)
KSPIDRSSetSeed = _setter("KSPIDRSSetSeed", int)
KSPIDRSGetSeed = _getter("KSPIDRSGetSeed", _Int, int)


def PCVBJacobiGetBlocks(pc):
    """The local diagonal blocks of a set-up PCVBJACOBI: a numpy array of nblocks + 1 local row offsets (a copy)."""
    n, starts = _Int(), ctypes.POINTER(_Int)()
    _check(load().PCVBJacobiGetBlocks(pc.handle, ctypes.byref(n), ctypes.byref(starts)))
    return np.ctypeslib.as_array(starts, shape=(n.value + 1,)).astype(np.int32, copy=True)


def PCVBJacobiGetInverses(pc):
    """The inverses of the local diagonal blocks of a set-up PCVBJACOBI: a list of k x k numpy arrays (copies)."""
    starts = PCVBJacobiGetBlocks(pc)
    sizes = np.diff(starts)
    inv = ctypes.POINTER(_Real)()
    _check(load().PCVBJacobiGetInverses(pc.handle, ctypes.byref(inv)))
    flat = np.ctypeslib.as_array(inv, shape=(int(np.sum(sizes * sizes)),)) if len(sizes) else np.zeros(0)
    out, off = [], 0
    for k in sizes:
        out.append(flat[off:off + k * k].reshape((k, k), order="F").copy())
        off += k * k
    return out


def PCVBJacobiGetBlockPrecisions(pc):
    """(counts of the local blocks stored in double, single, half; numpy array of the precision of each block; bytes)."""
    counts, prec, nbytes = (_Int * 3)(), ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_int64()
    _check(load().PCVBJacobiGetBlockPrecisions(pc.handle, counts, ctypes.byref(prec), ctypes.byref(nbytes)))
    nblocks = sum(counts)
    each = np.ctypeslib.as_array(prec, shape=(nblocks,)).copy() if nblocks else np.zeros(0, dtype=np.uint8)
    return tuple(counts), each, nbytes.value


def MatBAIJKSPARSEGetTuningTable(arch=-1):
    """(path or None, files searched in vain) of the tuning table MATBAIJKSPARSE reads for GPU architecture arch
    (10 x major + minor, e.g. 90; -1 = PETSC_DECIDE: the current device)."""
    size = 8192
    path, tried, found = ctypes.create_string_buffer(size), ctypes.create_string_buffer(size), _Bool()
    _check(load().MatBAIJKSPARSEGetTuningTable(arch, size, path, tried, ctypes.byref(found)))
    t = tried.value.decode()
    return (path.value.decode() if found.value else None), (t.split(", ") if t else [])
