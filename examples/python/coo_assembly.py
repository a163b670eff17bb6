"""A block-sparse matrix assembled from Python with COO (setPreallocationCOO / setValuesCOO, repeated entries
summed) into baijksparse, compared with the same matrix assembled block by block (setValuesBlocked), then solved
with vbjacobi + idrs and checked against aij + gmres (see common.py for --load).

    PYTHONPATH=python python examples/python/coo_assembly.py [--load dll_append|options|late] [-mbs M] [-bs K]

Each rank gives the entries of its own block rows: a block tridiagonal pattern plus a long-range coupling
(block row r to r + mbs/3), every entry split in two halves given separately. Prints an OK or FAILED line.
"""
import sys

import numpy as np
from common import solve_checked, start

PETSc, pbg, mode = start()
opts = PETSc.Options()
mbs, bs = opts.getInt("mbs", 60), opts.getInt("bs", 3)
comm = PETSc.COMM_WORLD


def block(r, c):
    """The bs x bs block (r, c), row-major."""
    if r == c:
        return 8.0 * np.eye(bs) + np.fromfunction(lambda a, d: np.cos(r + 2 * a + 3 * d) / (1 + a + d), (bs, bs))
    return -np.fromfunction(lambda a, d: (1.0 + ((r + c + a * d) % 3)) / (2 + a + d), (bs, bs)) / 2


def columns(r):
    return sorted({c for c in (r - 1, r, r + 1, (r + mbs // 3) % mbs) if 0 <= c < mbs})


def create():
    M = PETSc.Mat().create(comm=comm)
    M.setSizes(((PETSc.DECIDE, mbs * bs), (PETSc.DECIDE, mbs * bs)), bsize=bs)
    M.setType(pbg.MATBAIJKSPARSE)
    return M


# blocked assembly (the reference)
B = create()
B.setPreallocationNNZ((4, 4))
rstart, rend = (x // bs for x in B.getOwnershipRange())
for r in range(rstart, rend):
    for c in columns(r):
        B.setValuesBlocked([r], [c], block(r, c))
B.assemble()

# COO assembly: point (scalar) entries in global indices, each given twice (halves), so they are summed
ci, cj, cv = [], [], []
for r in range(rstart, rend):
    for c in columns(r):
        v = block(r, c)
        for a in range(bs):
            for d in range(bs):
                for half in (0, 1):
                    ci.append(r * bs + a)
                    cj.append(c * bs + d)
                    cv.append(v[a, d] / 2)
A = create()
A.setPreallocationCOO(np.array(ci, dtype=PETSc.IntType), np.array(cj, dtype=PETSc.IntType))
A.setValuesCOO(np.array(cv, dtype=PETSc.ScalarType))
A.assemble()

D = A.copy()
D.axpy(-1.0, B)
diff = D.norm(PETSc.NormType.FROBENIUS) / B.norm(PETSc.NormType.FROBENIUS)
same = diff < 1e-14
PETSc.Sys.Print("%s: COO assembly equals the blocked assembly (relative difference %.1e)" % ("OK" if same else "FAILED", diff), comm=comm)

b = A.createVecRight()
b.setRandom()
ok = solve_checked(PETSc, pbg, A, b, "COO mbs %d bs %d (--load %s)" % (mbs, bs, mode)) and same
for o in (A, B, D, b):
    o.destroy()
sys.exit(0 if ok else 1)
