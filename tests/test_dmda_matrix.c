static char help[] = "DMCreateMatrix() of a DMDA with -dm_mat_type baijksparse against the same DMDA's AIJ matrix: the type, the\n"
                     "pattern the DMDA preallocates, MatSetValuesStencil() into it, MatMult() (issue 38: a 1-D DMDA, which PETSc's\n"
                     "BAIJ route refuses, gets its AIJ route's matrix converted; 2-D and 3-D keep the block route).\n"
                     "  -dim <1>, -dof <2>, -m <17> (points a direction), -periodic, -stencil_width <1>, -mat_type <baijksparse>\n";

#include <petscdmda.h>
#include <petscblockgpu.h>

/* Every stencil coupling of every local point, values from the global indices (the same in both matrices) */
static PetscErrorCode Fill(DM da, PetscBool periodic, Mat J)
{
  PetscInt    dim, dof, s, xs, ys, zs, xm, ym, zm, M, N, P;
  PetscScalar v[64 * 64];
  MatStencil  row, cols[64];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, &s, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++)
        for (PetscInt c = 0; c < dof; c++) {
          PetscInt n = 0;

          row.i = i, row.j = j, row.k = k, row.c = c;
          for (PetscInt d = -s; d <= s; d++) { /* a star: along x, and along y and z where they exist */
            for (PetscInt a = 0; a < dim; a++) {
              PetscInt at = (a == 0 ? i : a == 1 ? j : k) + d, len = (a == 0 ? M : a == 1 ? N : P);

              if (d == 0 && a > 0) continue;
              if (!periodic && (at < 0 || at >= len)) continue; /* outside a non-periodic domain */
              for (PetscInt cc = 0; cc < dof; cc++) {
                cols[n].i = i + (a == 0 ? d : 0), cols[n].j = j + (a == 1 ? d : 0), cols[n].k = k + (a == 2 ? d : 0), cols[n].c = cc;
                v[n] = (d == 0 && cc == c) ? 4.0 * dim + 1.0 : -0.5 / (1.0 + PetscAbsInt(d) + 0.1 * cc + 0.01 * c);
                n++;
              }
            }
          }
          PetscCall(MatSetValuesStencil(J, 1, &row, n, cols, v, ADD_VALUES));
        }
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             da;
  Mat            J, R;
  Vec            x, y, yr;
  PetscInt       dim = 1, dof = 2, m = 17, s = 1;
  PetscBool      periodic  = PETSC_FALSE, flg;
  char           mtype[64] = MATBAIJKSPARSE;
  DMBoundaryType bt;
  PetscReal      err, nrm;
  MatType        got;
  PetscRandom    rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "DMDA matrix test", NULL);
  PetscCall(PetscOptionsInt("-dim", "DMDA dimension", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-dof", "fields a point", NULL, dof, &dof, NULL));
  PetscCall(PetscOptionsInt("-m", "points a direction", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-stencil_width", "stencil width", NULL, s, &s, NULL));
  PetscCall(PetscOptionsBool("-periodic", "periodic boundaries", NULL, periodic, &periodic, NULL));
  PetscCall(PetscOptionsString("-mat_type", "the DM's matrix type under test", NULL, mtype, mtype, sizeof(mtype), NULL));
  PetscOptionsEnd();
  bt = periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE;
  if (dim == 1) PetscCall(DMDACreate1d(PETSC_COMM_WORLD, bt, m, dof, s, NULL, &da));
  else if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bt, bt, DMDA_STENCIL_STAR, m, m, PETSC_DECIDE, PETSC_DECIDE, dof, s, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bt, bt, bt, DMDA_STENCIL_STAR, m, m, m, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, s, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));

  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &R));
  PetscCall(DMSetMatType(da, mtype));
  PetscCall(DMCreateMatrix(da, &J));
  PetscCall(MatGetType(J, &got));
  PetscCall(PetscStrendswith(got, mtype, &flg));
  PetscCheck(flg, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DMCreateMatrix() gave %s, not %s", got, mtype);
  PetscCall(Fill(da, periodic, R));
  PetscCall(Fill(da, periodic, J)); /* the pattern is locked (MAT_NEW_NONZERO_LOCATION_ERR): an entry outside it fails */

  PetscCall(MatCreateVecs(R, &x, &yr));
  PetscCall(MatCreateVecs(J, NULL, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(R, x, yr));
  {
    Vec xj;

    PetscCall(MatCreateVecs(J, &xj, NULL));
    PetscCall(VecCopy(x, xj));
    PetscCall(MatMult(J, xj, y));
    PetscCall(VecDestroy(&xj));
  }
  {
    Vec yh;

    PetscCall(VecDuplicate(yr, &yh));
    PetscCall(VecCopy(y, yh));
    PetscCall(VecAXPY(yh, -1.0, yr));
    PetscCall(VecNorm(yh, NORM_INFINITY, &err));
    PetscCall(VecNorm(yr, NORM_INFINITY, &nrm));
    PetscCall(VecDestroy(&yh));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dmda %" PetscInt_FMT "-D dof %" PetscInt_FMT "%s: %s, max |J x - R x| / max |R x| = %g %s\n", dim, dof, periodic ? " periodic" : "", got, (double)(err / nrm), err <= 1e-13 * nrm ? "ok" : "FAILED"));
  PetscCheck(err <= 1e-13 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the products differ");
  PetscCall(MatViewFromOptions(J, NULL, "-view_J"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&R));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
