/*
  NAME
    demo - one implicit step of a K-species reaction-diffusion system, assembled as a block (BAIJ) matrix
           and solved with a PETSc KSP; the main demonstration of petscblockgpu

  SYNOPSIS
    demo [-nspecies K] [-dim 2|3] [-da_grid_x M -da_grid_y N [-da_grid_z P]] [-dt DT] [-diffusion D0]
         [-rate K0] [-bimolecular Q0] [-hotspot H] [-feed F] [-use_gpu <bool>] [-repeat N]
         [-check_converged] [-dm_mat_type TYPE] [-dm_vec_type TYPE] [KSP and PC options]

  DESCRIPTION
    K chemical species with concentrations c_s(x, t), s = 0..K-1, react and diffuse in the unit square
    (or cube) with zero-flux walls:

        dc_s/dt = div(D_s(T) grad c_s) + R_s(c, T(x)) + S_s(x)

    - Reactions: a dense network of first-order conversions s -> r for every pair r != s, with Arrhenius
      rates k_rs(x) = K0 a_rs exp(beta_rs (1 - T0/T(x))); forward conversions (r > s) are faster than
      backward ones, so the rate matrix is nonsymmetric. For K >= 3, bimolecular reactions
      c_s + c_{s+1} -> c_{s+2} (indices mod K) with rate Q0 exp(3 (1 - T0/T(x))) add nonlinear coupling.
    - Temperature: a fixed hot spot, T(x)/T0 = 1 + H exp(-|x - x_h|^2 / (2 0.15^2)), so the rates vary
      from cell to cell by an order of magnitude.
    - Diffusion: D_s(T) = D0 (T/T0)^1.75 / (1 + s): heavier species diffuse more slowly. Faces carry the
      harmonic mean of the two cells; cell-centred finite volumes, 5-point (7-point in 3-D) stencil.
    - Source: species 0 is fed near the corner x = (0.25, 0.25[, 0.25]) at rate F.

    One linearly implicit (backward Euler / Rosenbrock) step of length DT from a smooth state c^n gives

        (I/DT - L_D - J(c^n)) c^{n+1} = c^n/DT + R(c^n) - J(c^n) c^n + S

    where J is the K x K reaction Jacobian of each cell: dense, nonsymmetric and cell-varying. With the
    default parameters (DT = 1e-2, K0 = 1e4, D0 = 3e-2) DT times the total conversion rate of a cell is
    500 to 3500 (stiff chemistry, as in combustion), while DT D_s / h^2 is about 5 to 50 on the default
    grid: the K x K diagonal blocks carry most of the operator. Block Jacobi (-pc_type vbjacobi) inverts
    them exactly and leaves only the diffusive coupling; point Jacobi (-pc_type jacobi) does not and
    needs about four times as many iterations.

    The matrix comes from DMCreateMatrix() of a DMDA with K degrees of freedom per cell, whose matrix
    type defaults to baijksparse (petscblockgpu's GPU BAIJ; -dm_mat_type aij or baij override it), and
    is assembled with MatSetValuesBlockedStencil(). When a CUDA device is present (cudaGetDeviceCount()),
    the DMDA vectors are CUDA vectors (-dm_vec_type overrides; -use_gpu 0 keeps them on the host).

    The program prints the problem, the matrix type and block size, whether a GPU is used, the KSP and
    PC types, the iterations, the converged reason, the true relative residual ||b - A x|| / ||b||,
    and the setup (PCSetUp, KSPSetUp) and solve times.

  EXAMPLES
    demo -ksp_type idr -pc_type vbjacobi
    demo -ksp_type idr -pc_type jacobi
    mpiexec -n 2 demo -nspecies 6 -da_grid_x 256 -da_grid_y 256 -ksp_type gmres -pc_type vbjacobi
    demo -dim 3 -nspecies 3 -ksp_type bcgs -pc_type vbjacobi -dm_mat_type aij
*/
static char help[] = "One implicit step of a K-species reaction-diffusion system on a DMDA, assembled as a block\n"
                     "matrix with MatSetValuesBlockedStencil() and solved with KSP (see the comment at the top).\n"
                     "Options:\n"
                     "  -nspecies <K>        number of species = block size (1..32, default 4)\n"
                     "  -dim <2|3>           space dimension (default 2; grid 128x128, or 32x32x32 in 3-D)\n"
                     "  -da_grid_x/y/z <n>   cells per direction\n"
                     "  -dt <dt>             time step (default 1e-2)\n"
                     "  -diffusion <D0>      diffusion coefficient of species 0 (default 3e-2)\n"
                     "  -rate <K0>           scale of the first-order conversion rates (default 1e4)\n"
                     "  -bimolecular <Q0>    rate of c_s + c_{s+1} -> c_{s+2} (default 1e2; K >= 3 only)\n"
                     "  -hotspot <H>         relative temperature excess of the hot spot (default 0.5)\n"
                     "  -feed <F>            feed rate of species 0 (default 1e2)\n"
                     "  -use_gpu <bool>      CUDA vectors when a device is present (default true)\n"
                     "  -repeat <n>          solve n times, report the first and the best solve time (default 1)\n"
                     "  -check_converged     exit with an error when the KSP does not converge\n"
                     "  -dm_mat_type <type>  matrix type (default baijksparse)\n"
                     "  plus the usual KSP/PC options, e.g. -ksp_type idr -pc_type vbjacobi\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petscblockgpu.h>
#include <cuda_runtime_api.h>

#define MAX_SPECIES 32

typedef struct {
  PetscInt  K, dim;
  PetscReal dt, D0, k0, q0, hot, feed;
  PetscReal a[MAX_SPECIES * MAX_SPECIES];    /* prefactor of the conversion s -> r, a[r*K+s] */
  PetscReal beta[MAX_SPECIES * MAX_SPECIES]; /* Arrhenius exponent of s -> r */
} AppCtx;

/* deterministic pseudo-random number in [0,1) from two integers */
static PetscReal Hash01(PetscInt r, PetscInt s)
{
  unsigned int h = 2166136261u;
  h              = (h ^ (unsigned int)(r + 1)) * 16777619u;
  h              = (h ^ (unsigned int)(s + 7)) * 16777619u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (PetscReal)(h & 0xffffff) / (PetscReal)0x1000000;
}

/* T/T0 at a point */
static PetscReal Temperature(const AppCtx *ctx, const PetscReal x[3])
{
  const PetscReal xh[3] = {0.6, 0.4, 0.5};
  PetscReal       r2    = 0;
  for (PetscInt d = 0; d < ctx->dim; d++) r2 += (x[d] - xh[d]) * (x[d] - xh[d]);
  return 1.0 + ctx->hot * PetscExpReal(-r2 / (2 * 0.15 * 0.15));
}

static PetscReal Diffusion(const AppCtx *ctx, PetscInt s, PetscReal theta)
{
  return ctx->D0 * PetscPowReal(theta, 1.75) / (1.0 + s);
}

/* the state c^n of the previous step: smooth and positive */
static void State(const AppCtx *ctx, const PetscReal x[3], PetscScalar c[])
{
  for (PetscInt s = 0; s < ctx->K; s++) {
    PetscReal v = PetscSinReal(PETSC_PI * (s + 1) * x[0]) * PetscCosReal(0.5 * PETSC_PI * (s + 1) * x[1]);
    if (ctx->dim == 3) v *= PetscCosReal(PETSC_PI * x[2]);
    c[s] = 1.0 + 0.5 * v;
  }
}

/* reaction rates R(c) and Jacobian J[r*K+s] = dR_r/dc_s in one cell; sumk = sum of the first-order rates */
static void Reaction(const AppCtx *ctx, PetscReal theta, const PetscScalar c[], PetscScalar R[], PetscScalar J[], PetscReal *sumk)
{
  const PetscInt K   = ctx->K;
  PetscReal      tot = 0;

  for (PetscInt i = 0; i < K * K; i++) J[i] = 0;
  for (PetscInt r = 0; r < K; r++) R[r] = 0;
  /* first-order conversions s -> r: gain of r, loss of s */
  for (PetscInt s = 0; s < K; s++) {
    for (PetscInt r = 0; r < K; r++) {
      PetscReal k;
      if (r == s) continue;
      k = ctx->k0 * ctx->a[r * K + s] * PetscExpReal(ctx->beta[r * K + s] * (1.0 - 1.0 / theta));
      tot += k;
      J[r * K + s] += k;
      J[s * K + s] -= k;
      R[r] += k * c[s];
      R[s] -= k * c[s];
    }
  }
  /* bimolecular c_s + c_{s+1} -> c_{s+2} */
  if (K >= 3) {
    PetscReal q = ctx->q0 * PetscExpReal(3.0 * (1.0 - 1.0 / theta));
    for (PetscInt s = 0; s < K; s++) {
      PetscInt    s1 = (s + 1) % K, s2 = (s + 2) % K;
      PetscScalar w = q * c[s] * c[s1];
      R[s] -= w;
      R[s1] -= w;
      R[s2] += w;
      J[s * K + s] -= q * c[s1];
      J[s * K + s1] -= q * c[s];
      J[s1 * K + s] -= q * c[s1];
      J[s1 * K + s1] -= q * c[s];
      J[s2 * K + s] += q * c[s1];
      J[s2 * K + s1] += q * c[s];
    }
  }
  *sumk = tot;
}

static PetscErrorCode Assemble(DM da, const AppCtx *ctx, Mat A, Vec b, PetscReal *kmin, PetscReal *kmax)
{
  const PetscInt K = ctx->K;
  PetscInt       M, N, P, xs, ys, zs, xm, ym, zm, dim = ctx->dim;
  PetscReal      h[3], lkmin = PETSC_MAX_REAL, lkmax = 0;
  PetscScalar   *barr, *v, c0[MAX_SPECIES], R[MAX_SPECIES], J[MAX_SPECIES * MAX_SPECIES];
  MatStencil     row, col[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (dim == 2) P = 1;
  h[0] = 1.0 / M;
  h[1] = 1.0 / N;
  h[2] = 1.0 / P;
  PetscCall(PetscMalloc1(K * 7 * K, &v));
  PetscCall(VecGetArrayWrite(b, &barr));
  for (PetscInt k = zs; k < zs + zm; k++) {
    for (PetscInt j = ys; j < ys + ym; j++) {
      for (PetscInt i = xs; i < xs + xm; i++) {
        const PetscInt idx[3] = {i, j, k}, n[3] = {M, N, P};
        PetscReal      x[3]  = {(i + 0.5) * h[0], (j + 0.5) * h[1], (k + 0.5) * h[2]};
        PetscReal      theta = Temperature(ctx, x), sumk, Dc[MAX_SPECIES], diag[MAX_SPECIES];
        PetscInt       ncol  = 1, nc;
        PetscScalar   *bc    = barr + ((((k - zs) * ym + (j - ys)) * xm + (i - xs)) * K);

        if (dim == 2) x[2] = 0.5;
        State(ctx, x, c0);
        Reaction(ctx, theta, c0, R, J, &sumk);
        lkmin = PetscMin(lkmin, sumk);
        lkmax = PetscMax(lkmax, sumk);
        for (PetscInt s = 0; s < K; s++) {
          Dc[s]   = Diffusion(ctx, s, theta);
          diag[s] = 1.0 / ctx->dt;
        }
        row.i  = i;
        row.j  = j;
        row.k  = k;
        row.c  = 0;
        col[0] = row;
        /* neighbours: zero-flux walls, so faces on the boundary carry no flux */
        for (PetscInt d = 0; d < dim; d++) {
          for (PetscInt side = -1; side <= 1; side += 2) {
            PetscInt  nb[3] = {idx[0], idx[1], idx[2]};
            PetscReal xn[3] = {x[0], x[1], x[2]}, thn;
            nb[d] += side;
            if (nb[d] < 0 || nb[d] >= n[d]) continue;
            xn[d] += side * h[d];
            thn         = Temperature(ctx, xn);
            col[ncol].i = nb[0];
            col[ncol].j = nb[1];
            col[ncol].k = nb[2];
            col[ncol].c = 0;
            for (PetscInt r = 0; r < K; r++) {
              PetscReal Dn = Diffusion(ctx, r, thn), Df = 2 * Dc[r] * Dn / (Dc[r] + Dn), w = Df / (h[d] * h[d]);
              diag[r] += w;
              for (PetscInt s = 0; s < K; s++) v[r * 7 * K + ncol * K + s] = (r == s) ? -w : 0.0;
            }
            ncol++;
          }
        }
        /* diagonal block: I/dt + diffusion - J */
        for (PetscInt r = 0; r < K; r++)
          for (PetscInt s = 0; s < K; s++) v[r * 7 * K + s] = (r == s ? diag[r] : 0.0) - J[r * K + s];
        /* compact the rows from stride 7K to stride ncol*K, as MatSetValuesBlockedStencil expects */
        nc = ncol * K;
        for (PetscInt r = 1; r < K; r++)
          for (PetscInt q = 0; q < nc; q++) v[r * nc + q] = v[r * 7 * K + q];
        PetscCall(MatSetValuesBlockedStencil(A, 1, &row, ncol, col, v, INSERT_VALUES));
        /* right-hand side: c^n/dt + R(c^n) - J c^n + S */
        {
          const PetscReal xf[3] = {0.25, 0.25, 0.25};
          PetscReal       r2    = 0;
          for (PetscInt d = 0; d < dim; d++) r2 += (x[d] - xf[d]) * (x[d] - xf[d]);
          for (PetscInt r = 0; r < K; r++) {
            PetscScalar Jc = 0;
            for (PetscInt s = 0; s < K; s++) Jc += J[r * K + s] * c0[s];
            bc[r] = c0[r] / ctx->dt + R[r] - Jc;
          }
          bc[0] += ctx->feed * PetscExpReal(-r2 / (2 * 0.05 * 0.05));
        }
      }
    }
  }
  PetscCall(VecRestoreArrayWrite(b, &barr));
  PetscCall(PetscFree(v));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCallMPI(MPIU_Allreduce(&lkmin, kmin, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)da)));
  PetscCallMPI(MPIU_Allreduce(&lkmax, kmax, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)da)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* number of usable CUDA devices on every rank (0 when there is no driver or no device) */
static PetscErrorCode CountDevices(MPI_Comm comm, PetscInt *ndev, char name[], size_t len)
{
  int         n = 0;
  cudaError_t err;
  PetscInt    mine;

  PetscFunctionBeginUser;
  err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    n = 0;
    (void)cudaGetLastError(); /* clear the sticky error state */
    PetscCall(PetscSNPrintf(name, len, "cudaGetDeviceCount: %s", cudaGetErrorString(err)));
  } else if (n == 0) {
    PetscCall(PetscSNPrintf(name, len, "no device"));
  } else {
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) PetscCall(PetscSNPrintf(name, len, "%s", prop.name));
    else PetscCall(PetscSNPrintf(name, len, "CUDA device"));
  }
  mine = n;
  PetscCallMPI(MPIU_Allreduce(&mine, ndev, 1, MPIU_INT, MPI_MIN, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Synchronize(PetscBool gpu)
{
  PetscFunctionBeginUser;
  if (gpu) {
    cudaError_t err = cudaDeviceSynchronize();
    PetscCheck(err == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "cudaDeviceSynchronize(): %s", cudaGetErrorString(err));
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx             ctx;
  DM                 da;
  Mat                A;
  Vec                b, x, r;
  KSP                ksp;
  PC                 pc;
  PetscInt           ndev, its, bs, Nglobal, M, N, P, repeat = 1;
  PetscMPIInt        size;
  PetscBool          use_gpu = PETSC_TRUE, gpu, check = PETSC_FALSE;
  char               devname[256], *cudavec;
  KSPType            ksptype;
  PCType             pctype;
  MatType            mattype;
  VecType            vectype;
  KSPConvergedReason reason;
  PetscReal          kmin, kmax, rnorm, bnorm, Dmin, Dmax;
  PetscLogDouble     t0, t_asm, t_pc, t_ksp, t_first = 0, t_best = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  ctx.K    = 4;
  ctx.dim  = 2;
  ctx.dt   = 1e-2;
  ctx.D0   = 3e-2;
  ctx.k0   = 1e4;
  ctx.q0   = 1e2;
  ctx.hot  = 0.5;
  ctx.feed = 1e2;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Reaction-diffusion demo of petscblockgpu", "demo");
  PetscCall(PetscOptionsInt("-nspecies", "number of species (block size)", "demo", ctx.K, &ctx.K, NULL));
  PetscCall(PetscOptionsInt("-dim", "space dimension (2 or 3)", "demo", ctx.dim, &ctx.dim, NULL));
  PetscCall(PetscOptionsReal("-dt", "time step", "demo", ctx.dt, &ctx.dt, NULL));
  PetscCall(PetscOptionsReal("-diffusion", "diffusion coefficient of species 0", "demo", ctx.D0, &ctx.D0, NULL));
  PetscCall(PetscOptionsReal("-rate", "scale of the first-order conversion rates", "demo", ctx.k0, &ctx.k0, NULL));
  PetscCall(PetscOptionsReal("-bimolecular", "rate of c_s + c_{s+1} -> c_{s+2}", "demo", ctx.q0, &ctx.q0, NULL));
  PetscCall(PetscOptionsReal("-hotspot", "relative temperature excess of the hot spot", "demo", ctx.hot, &ctx.hot, NULL));
  PetscCall(PetscOptionsReal("-feed", "feed rate of species 0", "demo", ctx.feed, &ctx.feed, NULL));
  PetscCall(PetscOptionsBool("-use_gpu", "CUDA vectors when a device is present", "demo", use_gpu, &use_gpu, NULL));
  PetscCall(PetscOptionsInt("-repeat", "number of solves (timing)", "demo", repeat, &repeat, NULL));
  PetscCall(PetscOptionsBool("-check_converged", "error exit when the KSP does not converge", "demo", check, &check, NULL));
  PetscOptionsEnd();
  PetscCheck(ctx.K >= 1 && ctx.K <= MAX_SPECIES, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nspecies %" PetscInt_FMT " must be in 1..%d", ctx.K, MAX_SPECIES);
  PetscCheck(ctx.dim == 2 || ctx.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim %" PetscInt_FMT " must be 2 or 3", ctx.dim);
  PetscCheck(ctx.dt > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dt must be positive");
  PetscCheck(repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeat must be >= 1");
  for (PetscInt r = 0; r < ctx.K; r++) {
    for (PetscInt s = 0; s < ctx.K; s++) {
      ctx.a[r * ctx.K + s]    = (0.1 + 0.9 * Hash01(r, s)) * (r > s ? 1.0 : 0.3);
      ctx.beta[r * ctx.K + s] = 2.0 + 6.0 * Hash01(s + 100, r + 31);
    }
  }

  /* device detection: every rank must agree */
  PetscCall(CountDevices(PETSC_COMM_WORLD, &ndev, devname, sizeof(devname)));
  gpu = (PetscBool)(use_gpu && ndev > 0);

  if (ctx.dim == 2) {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 128, 128, PETSC_DECIDE, PETSC_DECIDE, ctx.K, 1, NULL, NULL, &da));
  } else {
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 32, 32, 32, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, ctx.K, 1, NULL, NULL, NULL, &da));
  }
  PetscCall(DMSetMatType(da, MATBAIJKSPARSE)); /* before DMSetFromOptions(): -dm_mat_type overrides */
  if (gpu) PetscCall(DMSetVecType(da, VECCUDA));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));

  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(PetscObjectSetName((PetscObject)x, "concentration"));

  PetscCall(PetscTime(&t0));
  PetscCall(Assemble(da, &ctx, A, b, &kmin, &kmax));
  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t_asm));
  t_asm -= t0;

  Dmin = Diffusion(&ctx, ctx.K - 1, 1.0);
  Dmax = Diffusion(&ctx, 0, 1.0 + ctx.hot);
  PetscCall(MatGetSize(A, &Nglobal, NULL));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetType(A, &mattype));
  PetscCall(VecGetType(b, &vectype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petscblockgpu demo: %" PetscInt_FMT "-species reaction-diffusion, one backward-Euler step\n", ctx.K));
  if (ctx.dim == 2) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  grid                  %" PetscInt_FMT " x %" PetscInt_FMT " cells (2-D), %" PetscInt_FMT " unknowns, %d MPI rank%s\n", M, N, Nglobal, size, size > 1 ? "s" : ""));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  grid                  %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells (3-D), %" PetscInt_FMT " unknowns, %d MPI rank%s\n", M, N, P, Nglobal, size, size > 1 ? "s" : ""));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  time step             dt = %g\n", (double)ctx.dt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  diffusion             D_s = %g .. %g (species- and temperature-dependent)\n", (double)Dmin, (double)Dmax));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  reactions             dense nonsymmetric %" PetscInt_FMT "x%" PetscInt_FMT " Jacobian per cell; total conversion rate %.3g .. %.3g (dt*rate %.3g .. %.3g)\n", ctx.K, ctx.K, (double)kmin, (double)kmax,
                        (double)(ctx.dt * kmin), (double)(ctx.dt * kmax)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  matrix                %s, block size %" PetscInt_FMT ", assembled in %.4f s\n", mattype, bs, t_asm));
  PetscCall(PetscStrstr(vectype, "cuda", &cudavec));
  if (cudavec && ndev > 0) gpu = PETSC_TRUE; /* for the device synchronisation around the timings */
  if (cudavec) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GPU                   yes: %s (%" PetscInt_FMT " device%s), vectors %s\n", devname, ndev, ndev > 1 ? "s" : "", vectype));
  else if (ndev > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GPU                   no (%s present, but vectors %s on the host)\n", devname, vectype));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GPU                   no usable CUDA device (%s); vectors %s on the host\n", devname, vectype));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(PCGetType(pc, &pctype));

  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t0));
  PetscCall(PCSetUp(pc));
  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t_pc));
  t_pc -= t0;
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(Synchronize(gpu));
  PetscCall(PetscTime(&t_ksp));
  t_ksp -= t0;

  for (PetscInt n = 0; n < repeat; n++) {
    PetscLogDouble t1;
    PetscCall(VecSet(x, 0.0));
    PetscCall(Synchronize(gpu));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(Synchronize(gpu));
    PetscCall(PetscTime(&t1));
    t1 -= t0;
    if (n == 0) t_first = t_best = t1;
    else t_best = PetscMin(t_best, t1);
  }
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  KSP type              %s\n", ksptype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  PC type               %s\n", pctype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  iterations            %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  converged reason      %s\n", KSPConvergedReasons[reason]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  true residual         ||b-Ax||/||b|| = %.3e\n", (double)(bnorm > 0 ? rnorm / bnorm : rnorm)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  setup time            %.4f s (PCSetUp %.4f s, KSPSetUp %.4f s)\n", t_pc + t_ksp, t_pc, t_ksp));
  if (repeat > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solve time            %.4f s (best of %" PetscInt_FMT "; first %.4f s)\n", t_best, repeat, t_first));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solve time            %.4f s\n", t_first));
  {
    PetscReal mean[MAX_SPECIES];
    char      line[1024] = "";
    size_t    len        = 0;
    for (PetscInt s = 0; s < ctx.K; s++) {
      PetscScalar sum;
      PetscCall(VecStrideSum(x, s, &sum));
      mean[s] = PetscRealPart(sum) / (M * N * (ctx.dim == 3 ? P : 1));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %.4g", (double)mean[s]));
      PetscCall(PetscStrlen(line, &len));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  mean concentrations  %s\n", line));
  }
  PetscCheck(!check || reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "KSP did not converge: %s after %" PetscInt_FMT " iterations", KSPConvergedReasons[reason], its);

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
