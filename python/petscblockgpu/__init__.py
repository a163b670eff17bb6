"""petscblockgpu for petsc4py.

    import petscblockgpu as pbg
    lib = pbg.load()                                  # after (or instead of) `from petsc4py import PETSc`
    A.setType(pbg.MATBAIJKSPARSE); pc.setType(pbg.PCVBJACOBI); ksp.setType(pbg.KSPIDRS)
    pbg.PCVBJacobiSetMaxBlockSize(pc, 8)
    starts = pbg.PCVBJacobiGetBlocks(pc)              # numpy array, nblocks + 1 local row offsets

load() opens libpetscblockgpu.so (PETSCBLOCKGPU_LIBRARY, else lib/ of the build tree or of the install prefix that
holds this module), checks that it was built against the PETSc that petsc4py runs (same version, same libpetsc), and
registers the types (PetscBlockGPUInitializePackage(); harmless when -dll_append already did). The other functions
call the C functions of the same name (see their manual pages) through ctypes, taking petsc4py objects. Their
arguments are checked as petsc4py checks its own: an object of another class or a value of another type raises
TypeError (naming the argument), an integer outside PetscInt OverflowError, an unknown enum value ValueError. See
doc/python.md.
"""
import ctypes
import enum
import operator
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
    if path is not None:
        try:
            path = os.fspath(path)
        except TypeError:
            raise TypeError("load(): argument 'path' must be a str or os.PathLike, not %s" % _typename(path)) from None
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
_INT_BITS = 8 * ctypes.sizeof(_Int)  # PetscInt: load() checks that PETSc's is 32-bit
_INT_MIN, _INT_MAX = -(1 << (_INT_BITS - 1)), (1 << (_INT_BITS - 1)) - 1


# The arguments a caller gives are checked and converted here, in one place, before ctypes sees them: ctypes wraps
# integers silently (2**32 + 4 -> 4), and C cannot tell a Mat from a PC (optimized PETSc checks no headers), so a
# wrong object would be ignored or dereferenced. Errors as petsc4py raises them: TypeError, OverflowError, ValueError.
def _typename(value):
    t = type(value)
    return "PETSc." + t.__name__ if t.__module__ == "petsc4py.PETSc" else t.__name__


def _obj(cls):
    """A petsc4py object of class PETSc.<cls>, passed as its handle."""
    def conv(where, value):
        from petsc4py import PETSc
        if not isinstance(value, getattr(PETSc, cls)):
            raise TypeError("%s must be a PETSc.%s, not %s" % (where, cls, _typename(value)))
        if not value.handle:  # destroyed or never created: C would dereference NULL
            raise ValueError("%s is an empty PETSc.%s (destroyed or never created)" % (where, cls))
        return value.handle
    return conv, _H


def _int_conv(where, value):
    try:
        v = operator.index(value)  # as petsc4py: integers (also numpy's and bools), no floats or strings
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (where, _typename(value))) from None
    if not _INT_MIN <= v <= _INT_MAX:
        raise OverflowError("%s = %d does not fit in PetscInt (%d-bit: %d..%d)" % (where, v, _INT_BITS, _INT_MIN, _INT_MAX))
    return v


def _real_conv(where, value):
    if isinstance(value, (str, bytes)) or not (hasattr(type(value), "__float__") or hasattr(type(value), "__index__")):
        raise TypeError("%s must be a real number, not %s" % (where, _typename(value)))
    return float(value)


def _bool_conv(where, value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    try:  # 0 and 1 as in C; a string would be true whatever it says
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s must be a bool, not %s" % (where, _typename(value))) from None
    if v not in (0, 1):
        raise ValueError("%s = %d is not a bool (0 or 1)" % (where, v))
    return bool(v)


def _enum(cls):
    """A member of the IntEnum cls, its name (any case) or its value."""
    def conv(where, value):
        names = ", ".join(m.name.lower() for m in cls)
        if isinstance(value, str):
            if value.upper() not in cls.__members__:
                raise ValueError("%s = %r is not a %s (%s)" % (where, value, cls.__name__, names))
            return int(cls[value.upper()])
        if isinstance(value, enum.Enum) and not isinstance(value, cls):
            raise TypeError("%s must be a %s, not %s" % (where, cls.__name__, type(value).__name__))
        try:
            v = operator.index(value)
        except TypeError:
            raise TypeError("%s must be a %s or its name, not %s" % (where, cls.__name__, _typename(value))) from None
        if v not in cls._value2member_map_:
            raise ValueError("%s = %d is not a %s (%s)" % (where, v, cls.__name__, names))
        return v
    return conv, _Enum


_PC, _KSP = _obj("PC"), _obj("KSP")
_IN_INT, _IN_REAL, _IN_BOOL = (_int_conv, _Int), (_real_conv, _Real), (_bool_conv, _Bool)

# The C functions: each argument either (name, (check and conversion, ctypes type)), given by the caller and named as in
# the manual page, or a bare ctypes type, made by this module (outputs, buffers)
_SIG = {
    "PCVBJacobiSetMaxBlockSize": [("pc", _PC), ("maxbs", _IN_INT)],
    "PCVBJacobiGetMaxBlockSize": [("pc", _PC), ctypes.POINTER(_Int)],
    "PCVBJacobiSetBlocking": [("pc", _PC), ("blocking", _enum(PCVBJacobiBlocking))],
    "PCVBJacobiGetBlocking": [("pc", _PC), ctypes.POINTER(_Enum)],
    "PCVBJacobiSetSingularPolicy": [("pc", _PC), ("policy", _enum(PCVBJacobiSingularPolicy))],
    "PCVBJacobiGetSingularPolicy": [("pc", _PC), ctypes.POINTER(_Enum)],
    "PCVBJacobiSetPrecision": [("pc", _PC), ("precision", _enum(PCVBJacobiPrecision))],
    "PCVBJacobiGetPrecision": [("pc", _PC), ctypes.POINTER(_Enum)],
    "PCVBJacobiSetPrecisionTolerance": [("pc", _PC), ("tol", _IN_REAL)],
    "PCVBJacobiGetPrecisionTolerance": [("pc", _PC), ctypes.POINTER(_Real)],
    "PCVBJacobiGetBlocks": [("pc", _PC), ctypes.POINTER(_Int), ctypes.POINTER(ctypes.POINTER(_Int))],
    "PCVBJacobiGetInverses": [("pc", _PC), ctypes.POINTER(ctypes.POINTER(_Real))],
    "PCVBJacobiGetBlockPrecisions": [("pc", _PC), ctypes.POINTER(_Int), ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte)), ctypes.POINTER(ctypes.c_int64)],
    "MatBAIJKSPARSEGetTuningTable": [("arch", _IN_INT), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Bool)],
    "KSPIDRSSetS": [("ksp", _KSP), ("s", _IN_INT)], "KSPIDRSGetS": [("ksp", _KSP), ctypes.POINTER(_Int)],
    "KSPIDRSSetAngle": [("ksp", _KSP), ("angle", _IN_REAL)], "KSPIDRSGetAngle": [("ksp", _KSP), ctypes.POINTER(_Real)],
    "KSPIDRSSetSmoothing": [("ksp", _KSP), ("flg", _IN_BOOL)], "KSPIDRSGetSmoothing": [("ksp", _KSP), ctypes.POINTER(_Bool)],
    "KSPIDRSSetReplacement": [("ksp", _KSP), ("flg", _IN_BOOL)], "KSPIDRSGetReplacement": [("ksp", _KSP), ctypes.POINTER(_Bool)],
    "KSPIDRSSetSeed": [("ksp", _KSP), ("seed", _IN_INT)], "KSPIDRSGetSeed": [("ksp", _KSP), ctypes.POINTER(_Int)],
}


def _setup(lib):
    """Argument types of the C functions (PetscInt 32-bit, PetscReal double; objects are pointers)."""
    for name, args in _SIG.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = [a[1][1] if isinstance(a, tuple) else a for a in args], ctypes.c_int


def _call(name, *args):
    """The C function name, each argument the caller gave checked and converted by its entry in _SIG."""
    lib = load()
    spec = _SIG[name]
    if len(args) != len(spec):
        raise TypeError("%s() takes %d arguments, %d given" % (name, len(spec), len(args)))
    conv = [a[1][0]("%s(): argument '%s'" % (name, a[0]), v) if isinstance(a, tuple) else v for a, v in zip(spec, args)]
    _check(getattr(lib, name)(*conv))


def _signature(name):
    return "%s(%s)" % (name, ", ".join(a[0] for a in _SIG[name] if isinstance(a, tuple)))


def _setter(name):
    def f(obj, value):
        _call(name, obj, value)
    f.__name__ = name
    f.__doc__ = "%s: the C function %s()" % (_signature(name), name)
    return f


def _getter(name, conv):
    def f(obj):
        out = _SIG[name][1]._type_()
        _call(name, obj, ctypes.byref(out))
        return conv(out.value)
    f.__name__ = name
    f.__doc__ = "%s: the C function %s()" % (_signature(name), name)
    return f


PCVBJacobiSetMaxBlockSize = _setter("PCVBJacobiSetMaxBlockSize")
PCVBJacobiGetMaxBlockSize = _getter("PCVBJacobiGetMaxBlockSize", int)
PCVBJacobiSetBlocking = _setter("PCVBJacobiSetBlocking")
PCVBJacobiGetBlocking = _getter("PCVBJacobiGetBlocking", PCVBJacobiBlocking)
PCVBJacobiSetSingularPolicy = _setter("PCVBJacobiSetSingularPolicy")
PCVBJacobiGetSingularPolicy = _getter("PCVBJacobiGetSingularPolicy", PCVBJacobiSingularPolicy)
PCVBJacobiSetPrecision = _setter("PCVBJacobiSetPrecision")
PCVBJacobiGetPrecision = _getter("PCVBJacobiGetPrecision", PCVBJacobiPrecision)
PCVBJacobiSetPrecisionTolerance = _setter("PCVBJacobiSetPrecisionTolerance")
PCVBJacobiGetPrecisionTolerance = _getter("PCVBJacobiGetPrecisionTolerance", float)
KSPIDRSSetS = _setter("KSPIDRSSetS")
KSPIDRSGetS = _getter("KSPIDRSGetS", int)
KSPIDRSSetAngle = _setter("KSPIDRSSetAngle")
KSPIDRSGetAngle = _getter("KSPIDRSGetAngle", float)
KSPIDRSSetSmoothing = _setter("KSPIDRSSetSmoothing")
KSPIDRSGetSmoothing = _getter("KSPIDRSGetSmoothing", bool)
KSPIDRSSetReplacement = _setter("KSPIDRSSetReplacement")
KSPIDRSGetReplacement = _getter("KSPIDRSGetReplacement", bool)
KSPIDRSSetSeed = _setter("KSPIDRSSetSeed")
KSPIDRSGetSeed = _getter("KSPIDRSGetSeed", int)


def PCVBJacobiGetBlocks(pc):
    """The local diagonal blocks of a set-up PCVBJACOBI: a numpy array of nblocks + 1 local row offsets (a copy)."""
    n, starts = _Int(), ctypes.POINTER(_Int)()
    _call("PCVBJacobiGetBlocks", pc, ctypes.byref(n), ctypes.byref(starts))
    return np.ctypeslib.as_array(starts, shape=(n.value + 1,)).astype(np.int32, copy=True)


def PCVBJacobiGetInverses(pc):
    """The inverses of the local diagonal blocks of a set-up PCVBJACOBI: a list of k x k numpy arrays (copies)."""
    inv = ctypes.POINTER(_Real)()
    _call("PCVBJacobiGetInverses", pc, ctypes.byref(inv))
    sizes = np.diff(PCVBJacobiGetBlocks(pc))
    flat = np.ctypeslib.as_array(inv, shape=(int(np.sum(sizes * sizes)),)) if len(sizes) else np.zeros(0)
    out, off = [], 0
    for k in sizes:
        out.append(flat[off:off + k * k].reshape((k, k), order="F").copy())
        off += k * k
    return out


def PCVBJacobiGetBlockPrecisions(pc):
    """(counts of the local blocks stored in double, single, half; numpy array of the precision of each block; bytes)."""
    counts, prec, nbytes = (_Int * 3)(), ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_int64()
    _call("PCVBJacobiGetBlockPrecisions", pc, counts, ctypes.byref(prec), ctypes.byref(nbytes))
    nblocks = sum(counts)
    each = np.ctypeslib.as_array(prec, shape=(nblocks,)).copy() if nblocks else np.zeros(0, dtype=np.uint8)
    return tuple(counts), each, nbytes.value


def MatBAIJKSPARSEGetTuningTable(arch=-1):
    """(path or None, files searched in vain) of the tuning table MATBAIJKSPARSE reads for GPU architecture arch
    (10 x major + minor, e.g. 90; -1 = PETSC_DECIDE: the current device)."""
    size = 8192
    path, tried, found = ctypes.create_string_buffer(size), ctypes.create_string_buffer(size), _Bool()
    _call("MatBAIJKSPARSEGetTuningTable", arch, size, path, tried, ctypes.byref(found))
    t = tried.value.decode()
    return (path.value.decode() if found.value else None), (t.split(", ") if t else [])
