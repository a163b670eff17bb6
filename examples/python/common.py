"""Shared by the Python examples: how petscblockgpu gets into petsc4py, and the checked solve.

--load MODE (default late) picks one of the three ways of doc/python.md:
  dll_append  petsc4py.init(sys.argv + ['-dll_append', lib]): PETSc loads the plugin at PetscInitialize()
  options     PETSC_OPTIONS holds -dll_append lib (set by the caller, as a Firedrake or FEniCSx job would)
  late        petsc4py starts first; petscblockgpu.load() registers the types afterwards
In the first two the types must be usable before petscblockgpu.load() is called (it is called after the solve, for
the getters), which the solve proves.
"""
import sys

MODES = ("dll_append", "options", "late")


def start():
    """Initialize petsc4py in the way --load asks; returns (PETSc, petscblockgpu module, mode)."""
    mode = "late"
    argv = list(sys.argv)
    if "--load" in argv:
        i = argv.index("--load")
        mode = argv[i + 1]
        del argv[i:i + 2]
    if mode not in MODES:
        sys.exit("--load takes one of %s" % ", ".join(MODES))
    import petsc4py
    import petscblockgpu as pbg

    if mode == "dll_append":
        petsc4py.init(argv + ["-dll_append", pbg.library_path()])
    else:
        petsc4py.init(argv)
    from petsc4py import PETSc

    if mode == "options" and not PETSc.Options().hasName("dll_append"):
        sys.exit("--load options: PETSC_OPTIONS has no -dll_append")
    if mode == "late":
        pbg.load()
    return PETSc, pbg, mode


def solve_checked(PETSc, pbg, A, b, name, rtol=1e-10, tol=1e-6):
    """Solves A x = b with baijksparse + vbjacobi + idrs and with a reference (A as aij, gmres + bjacobi/ilu to 1e-13),
    prints one OK or FAILED line, returns True on every rank when they agree within tol (relative, infinity norm) and
    the blocks of vbjacobi (read back with petscblockgpu.PCVBJacobiGetBlocks) cover the local rows."""
    comm = A.getComm()
    mtype = A.getType()
    ok = mtype in (pbg.MATSEQBAIJKSPARSE, pbg.MATMPIBAIJKSPARSE)
    x = A.createVecLeft()
    ksp = PETSc.KSP().create(comm)
    ksp.setOptionsPrefix("pbg_")
    ksp.setOperators(A)
    ksp.setType(pbg.KSPIDRS)
    ksp.getPC().setType(pbg.PCVBJACOBI)
    ksp.setTolerances(rtol=rtol, max_it=2000)
    ksp.setFromOptions()
    ksp.solve(b, x)
    its, reason = ksp.getIterationNumber(), ksp.getConvergedReason()
    ok = ok and reason > 0

    pbg.load()  # after the solve: the types came from -dll_append in the other modes
    pc = ksp.getPC()
    starts = pbg.PCVBJacobiGetBlocks(pc)
    sizes = set(int(s) for s in starts[1:] - starts[:-1])
    rows = A.getLocalSize()[0]
    ok = ok and starts[0] == 0 and starts[-1] == rows and max(sizes) <= pbg.PCVBJacobiGetMaxBlockSize(pc)

    Aref = A.convert("aij", out=PETSc.Mat())  # a new matrix: without out, petsc4py converts A in place
    xref = A.createVecLeft()
    ref = PETSc.KSP().create(comm)
    ref.setOptionsPrefix("ref_")
    ref.setOperators(Aref)
    ref.setType("gmres")
    ref.setGMRESRestart(200)
    ref.getPC().setType("bjacobi")
    ref.setTolerances(rtol=1e-13, atol=0, max_it=5000)
    ref.setFromOptions()
    ref.solve(b, xref)
    ok = ok and ref.getConvergedReason() > 0
    diff = (x - xref).norm(PETSc.NormType.INFINITY) / xref.norm(PETSc.NormType.INFINITY)
    ok = ok and diff < tol
    flag = PETSc.Vec().createMPI((1, PETSc.DECIDE), comm=comm)  # every rank's verdict: the minimum
    flag.set(1.0 if ok else 0.0)
    ok = flag.min()[1] == 1.0
    flag.destroy()
    PETSc.Sys.Print("%s: %s, %s (%s + %s + %s, %d MPI rank(s)): %d iterations (%s), blocks %s, relative difference from "
                    "aij + gmres %.2e (tolerance %.0e)"
                    % ("OK" if ok else "FAILED", name, mtype, pbg.MATBAIJKSPARSE, pbg.PCVBJACOBI, pbg.KSPIDRS,
                       comm.getSize(), its, reason, sorted(sizes), diff, tol), comm=comm)
    for o in (ksp, ref, Aref, x, xref):
        o.destroy()
    return ok
