"""A dof-4 block problem on a 2-D DMDA, assembled with setValuesBlockedStencil into a baijksparse matrix and solved
with vbjacobi + idrs, checked against aij + gmres (see common.py for --load).

    PYTHONPATH=python python examples/python/dmda_block.py [--load dll_append|options|late] [-n N] [-dof K]

The operator: per cell, a dense nonsymmetric K x K reaction block that varies from cell to cell, plus a 5-point
diffusion coupling of each component to the neighbours (the structure of examples/demo.c). Prints an OK or FAILED
line and exits non-zero on failure.
"""
import sys

from common import solve_checked, start

PETSc, pbg, mode = start()
opts = PETSc.Options()
n, dof = opts.getInt("n", 16), opts.getInt("dof", 4)

da = PETSc.DMDA().create(dim=2, dof=dof, sizes=(n, n), stencil_width=1, stencil_type=PETSc.DMDA.StencilType.STAR,
                         comm=PETSc.COMM_WORLD)
da.setMatType(pbg.MATBAIJKSPARSE)
A = da.createMat()
h2 = 1.0 / (n + 1) ** 2
nu = 0.05
(xs, xe), (ys, ye) = da.getRanges()
row, col = PETSc.Mat.Stencil(), PETSc.Mat.Stencil()
eye = [[1.0 if a == c else 0.0 for c in range(dof)] for a in range(dof)]
for j in range(ys, ye):
    for i in range(xs, xe):
        row.index = (i, j)
        # reaction block: strong diagonal, nonsymmetric couplings that depend on the cell
        w = 1.0 + 0.5 * ((i * 7 + j * 3) % 5)
        diag = [[(4 * nu / h2 + 10 * w if a == c else 0.0) + w * (1.0 + a) / (1.0 + 2 * c + abs(a - c)) for c in range(dof)]
                for a in range(dof)]
        col.index = (i, j)
        A.setValueBlockedStencil(row, col, diag)
        for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= i + di < n and 0 <= j + dj < n:
                col.index = (i + di, j + dj)
                A.setValueBlockedStencil(row, col, [[-nu / h2 * e for e in r] for r in eye])
A.assemble()

b = A.createVecRight()
b.setRandom()
ok = solve_checked(PETSc, pbg, A, b, "DMDA %dx%d dof %d (--load %s)" % (n, n, dof, mode))
A.destroy()
b.destroy()
da.destroy()
sys.exit(0 if ok else 1)
