/*
  NAME
    bench_scaling - strong scaling of MatMult for baijksparse (and, for reference, aijcusparse) over MPI ranks,
    one GPU per rank

  SYNOPSIS
    mpiexec -n NP bench_scaling [-grid N] [-bs BS] [-mat_type TYPE] [-reps N] [-warmup N] [-check] [-parts] [-o CSV]

  DESCRIPTION
    Builds the same global matrix at every rank count: a 3-D DMDA of N^3 cells (default 64) with BS unknowns a cell
    (default 4) and the 27-point box stencil, every coupling a dense BS x BS block (dof couplings between all
    components, as in reacting-flow Jacobians): 27 N^3 BS^2 nonzeros, 113M at the defaults. Each rank takes its
    own GPU (PETSc's default: rank modulo the visible devices). Times MatMult on CUDA vectors: -warmup untimed,
    then -reps back to back between an MPI_Barrier and a device synchronisation on every rank (MPI_Wtime: the time
    of all ranks, which one rank's CUDA events cannot give); prints the mean
    time, GB/s (values, block indices, x once, y once) and GF/s, as text and as a CSV row (-o appends). The
    speedup against one rank is computed by whoever runs NP = 1, 2, 4 (bench/scripts/run_scaling.sh does, and
    bench/plots/plot_scaling.py plots it). -check compares y with MATMPIBAIJ on the host. -parts also times the product
    of each rank's diagonal part alone (MatGetDiagonalBlock(), its own vectors, every rank at once; the slowest rank),
    which is what the whole product would take with a free ghost exchange and off-diagonal part. Without a GPU the types take
    their host paths (a functional check only).
*/
static const char help[] = "Strong scaling of MatMult (baijksparse vs aijcusparse) over MPI ranks, one GPU each.\n"
                           "  -grid <n>       cells per direction of the 3-D DMDA (default 64)\n"
                           "  -bs <n>         unknowns per cell = block size (default 4)\n"
                           "  -mat_type <t>   baijksparse (default), aijcusparse, baij, aij\n"
                           "  -reps <n>       timed MatMults (default 50), -warmup <n> untimed ones first (default 5)\n"
                           "  -check          compare y with MATMPIBAIJ on the host\n"
                           "  -parts          also time the diagonal part's product alone (the slowest rank)\n"
                           "  -o <file>       append a CSV row; -label <name>: the configuration's name in it (default: the matrix type)\n";

#include <petscdmda.h>
#include <petscblockgpu.h>
#include <petscdevice_cuda.h>
#include "bench_util.h"

/* Deterministic pseudo-random value of entry (global row, global column), in [-1, 1), so every rank count builds
   the same matrix */
static PetscScalar Value(PetscInt64 r, PetscInt64 c)
{
  unsigned long long h = (unsigned long long)(r * 0x9E3779B97F4A7C15LL) ^ (unsigned long long)(c + 0x632BE59BD9B4E019LL + (r << 6) + (r >> 2));

  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  return (PetscScalar)((double)(h >> 11) / (double)(1ULL << 52) - 1.0);
}

static PetscErrorCode Assemble(DM da, PetscInt bs, Mat A)
{
  PetscInt     xs, ys, zs, xm, ym, zm, M;
  PetscScalar *blk;
  MatStencil   row, col;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, NULL, &M, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(PetscMalloc1(bs * bs, &blk));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        const PetscInt64 gr = i + M * (j + M * (PetscInt64)k);

        row.i = i, row.j = j, row.k = k, row.c = 0;
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              const PetscInt ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= M || jj >= M || kk >= M) continue;
              const PetscInt64 gc = ii + M * (jj + M * (PetscInt64)kk);
              for (PetscInt a = 0; a < bs * bs; a++) blk[a] = Value(gr * bs + a / bs, gc * bs + a % bs) + ((gr == gc && a / bs == a % bs) ? 30.0 : 0.0);
              col.i = ii, col.j = jj, col.k = kk, col.c = 0;
              PetscCall(MatSetValuesBlockedStencil(A, 1, &row, 1, &col, blk, INSERT_VALUES));
            }
      }
  PetscCall(PetscFree(blk));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceSync(PetscBool gpu)
{
  PetscFunctionBegin;
  if (gpu) PetscCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Mean time of reps products y = A x on every rank, after warmup untimed ones: from a barrier to the device
   synchronisation and barrier after the last (so the slowest rank's time, also for products that are rank-local) */
static PetscErrorCode TimeMatMult(Mat A, Vec x, Vec y, PetscInt warmup, PetscInt reps, PetscBool gpu, double *t)
{
  double t0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < warmup; i++) PetscCall(MatMult(A, x, y));
  PetscCall(DeviceSync(gpu));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  for (PetscInt i = 0; i < reps; i++) PetscCall(MatMult(A, x, y));
  PetscCall(DeviceSync(gpu));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  *t = (MPI_Wtime() - t0) / reps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM          da;
  Mat         A, Ahost;
  Vec         x, y, yh;
  PetscInt    grid = 64, bs = 4, reps = 50, warmup = 5;
  PetscBool   check = PETSC_FALSE, parts = PETSC_FALSE, gpu, csvflg;
  char        type[64] = "baijksparse", label[96] = "", csvname[PETSC_MAX_PATH_LEN] = "", device[128] = "host (no GPU)";
  PetscMPIInt size, rank;
  MatInfo     info;
  double      t, bytes, flops;
  PetscInt64  nnz, brows;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_scaling options", "bench_scaling");
  PetscCall(PetscOptionsInt("-grid", "cells per direction", "bench_scaling", grid, &grid, NULL));
  PetscCall(PetscOptionsInt("-bs", "unknowns per cell", "bench_scaling", bs, &bs, NULL));
  PetscCall(PetscOptionsString("-mat_type", "matrix type", "bench_scaling", type, type, sizeof(type), NULL));
  PetscCall(PetscOptionsInt("-reps", "timed MatMults", "bench_scaling", reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed MatMults", "bench_scaling", warmup, &warmup, NULL));
  PetscCall(PetscOptionsBool("-check", "compare with MATMPIBAIJ on the host", "bench_scaling", check, &check, NULL));
  PetscCall(PetscOptionsBool("-parts", "also time the diagonal part's product alone", "bench_scaling", parts, &parts, NULL));
  PetscCall(PetscOptionsString("-o", "CSV file to append to", "bench_scaling", csvname, csvname, sizeof(csvname), &csvflg));
  PetscCall(PetscOptionsString("-label", "the configuration's name in the output (default: the matrix type)", "bench_scaling", label, label, sizeof(label), NULL));
  PetscOptionsEnd();
  if (!label[0]) PetscCall(PetscStrncpy(label, type, sizeof(label)));
  PetscCheck(grid >= 2 && bs >= 1 && reps >= 1 && warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "need -grid >= 2, -bs >= 1, -reps >= 1, -warmup >= 0");
  { /* every rank must see a device, else all take the host paths */
    int                   n = 0, g;
    struct cudaDeviceProp prop;

    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      n = 0;
      (void)cudaGetLastError(); /* clear the sticky "no driver" error */
    }
    g = n > 0;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &g, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    gpu = g ? PETSC_TRUE : PETSC_FALSE;
    if (gpu && cudaGetDeviceProperties(&prop, 0) == cudaSuccess) PetscCall(PetscSNPrintf(device, sizeof(device), "%s", prop.name));
  }

  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, grid, grid, grid, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, bs, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, type));
  if (gpu) PetscCall(DMSetVecType(da, VECCUDA));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, bs, A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  nnz   = (PetscInt64)info.nz_used;
  brows = (PetscInt64)grid * grid * grid;

  PetscCall(TimeMatMult(A, x, y, warmup, reps, gpu, &t));
  bytes = 8.0 * nnz + 4.0 * (nnz / (bs * bs)) + 4.0 * (brows + 1) + 16.0 * brows * bs; /* values, block indices, row pointers, x and y */
  flops = 2.0 * nnz;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_scaling: %s, %d rank(s), %s, grid %" PetscInt_FMT "^3, bs %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros (%.1f GB of values): MatMult %.1f us, %.1f GB/s, %.1f GF/s\n", label, size, device, grid, bs, nnz, 8e-9 * nnz, 1e6 * t, bytes / t / 1e9, flops / t / 1e9));
  if (csvflg && rank == 0) {
    FILE *f;

    /* rows of every rank count go to one file: appended under the same header */
    PetscCall(BenchCSVOpen(csvname, "device,mat_type,ranks,grid,bs,nnz,time_s,GBs,GFs", PETSC_TRUE, &f));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "\"%s\",%s,%d,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt64_FMT ",%.6e,%.1f,%.1f\n", device, label, size, grid, bs, nnz, t, bytes / t / 1e9, flops / t / 1e9));
    PetscCall(BenchCSVClose(&f));
  }
  if (parts && size > 1) { /* the diagonal part alone: the floor of the product if exchange and off-diagonal part were free */
    Mat    Ad;
    Vec    xd, yd;
    double td;

    PetscCall(MatGetDiagonalBlock(A, &Ad));
    PetscCall(MatCreateVecs(Ad, &xd, &yd));
    PetscCall(VecSetRandom(xd, NULL));
    PetscCall(TimeMatMult(Ad, xd, yd, warmup, reps, gpu, &td)); /* ends at the slowest rank */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_scaling: %s, %d rank(s): diagonal part alone %.1f us (slowest rank), the whole product %.1f us: %.1f us for the ghost exchange and the off-diagonal part not hidden\n", label, size, 1e6 * td, 1e6 * t, 1e6 * (t - td)));
    PetscCall(VecDestroy(&xd));
    PetscCall(VecDestroy(&yd));
  }
  if (check) { /* the same product by MATMPIBAIJ on the host */
    PetscReal err, ref;

    PetscCall(MatConvert(A, MATBAIJ, MAT_INITIAL_MATRIX, &Ahost));
    PetscCall(MatBindToCPU(Ahost, PETSC_TRUE));
    PetscCall(VecDuplicate(y, &yh));
    PetscCall(MatMult(Ahost, x, yh));
    PetscCall(VecNorm(yh, NORM_INFINITY, &ref));
    PetscCall(VecAXPY(yh, -1.0, y));
    PetscCall(VecNorm(yh, NORM_INFINITY, &err));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "check against MATMPIBAIJ on the host: max rel diff %.2e: %s\n", (double)(err / ref), err <= 1e-12 * ref ? "ok" : "FAILED"));
    PetscCheck(err <= 1e-12 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMult of %s differs from MATMPIBAIJ: %g relative", type, (double)(err / ref));
    PetscCall(VecDestroy(&yh));
    PetscCall(MatDestroy(&Ahost));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
