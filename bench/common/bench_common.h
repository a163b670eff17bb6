/* The C++ layer of the CUDA benchmarks (bench_bsrmv, bench_invert, tune_baijksparse) over bench_util.h: block patterns
   of PETSc's DMDA stencils, and the timer and median of bench_util.h with lambdas. The triad is bench_util.h's. */
#pragma once

#include "bench_util.h"
#include <petscdevice_cuda.h>
#include <petscmat.h>
#include <vector>
#include <string>
#include <algorithm>

typedef struct {
  std::string      name;
  int              mbs, nbs;
  std::vector<int> rowptr, colidx; /* block pattern */
} Pattern;

static void StencilPattern(int dim, bool box, int nx, Pattern &P)
{
  const int ny = nx, nz = dim == 3 ? nx : 1, n = nx * ny * nz;

  P.mbs = P.nbs = n;
  P.rowptr.assign(1, 0);
  P.colidx.clear();
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        for (int dk = (dim == 3 ? -1 : 0); dk <= (dim == 3 ? 1 : 0); dk++)
          for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
              const int nnzoff = (di != 0) + (dj != 0) + (dk != 0);
              if (!box && nnzoff > 1) continue;
              const int ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || ii >= nx || jj < 0 || jj >= ny || kk < 0 || kk >= nz) continue;
              P.colidx.push_back(ii + nx * (jj + ny * kk));
            }
        P.rowptr.push_back((int)P.colidx.size());
      }
}

/* A MATSEQBAIJ of block size bs from block CSR arrays, blocks column-major (PETSc 3.26's
   MatCreateSeqBAIJWithArrays() takes bs = 1 only, so the arrays are copied in) */
static PetscErrorCode MatCreateSeqBAIJFromCSR(PetscInt bs, PetscInt mbs, PetscInt nbs, const PetscInt *ia, const PetscInt *ja, const PetscScalar *va, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, mbs * bs, nbs * bs, mbs * bs, nbs * bs));
  PetscCall(MatSetType(*A, MATSEQBAIJ));
  PetscCall(MatSetOption(*A, MAT_ROW_ORIENTED, PETSC_FALSE));
  PetscCall(MatSeqBAIJSetPreallocationCSR(*A, bs, ia, ja, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CUDA-event timer of bench_util.h, on PETSc's current CUDA stream; prop: the current device (its name is printed) */
typedef BenchTimer Timer;

static PetscErrorCode TimerCreate(Timer &T, cudaDeviceProp *prop)
{
  int dev;

  PetscFunctionBegin;
  PetscCall(BenchTimerCreate(PETSC_TRUE, &T));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(prop, dev));
  PetscCall(PetscGetCurrentCUDAStream(&T.stream)); /* the stream the programs give cuBLAS/cuSPARSE and their kernels */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Median of runs calls of f (CUDA events on T.stream around f alone) after warmup calls; each call is preceded by
   reset(), untimed (in-place kernels get fresh inputs that way) */
template <class R, class F>
static PetscErrorCode TimeMedianWithReset(Timer &T, int warmup, int runs, R reset, F f, double *us)
{
  std::vector<PetscReal> t(runs);

  PetscFunctionBegin;
  for (int r = -warmup; r < runs; r++) {
    double sec;

    PetscCall(reset());
    PetscCall(BenchTimerStart(&T));
    PetscCall(f());
    PetscCall(BenchTimerStop(&T, &sec, NULL));
    if (r >= 0) t[r] = sec;
  }
  *us = 1e6 * BenchMedian(runs, t.data());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class F>
static PetscErrorCode TimeMedian(Timer &T, int warmup, int runs, F f, double *us)
{
  return TimeMedianWithReset(
    T, warmup, runs, []() { return PETSC_SUCCESS; }, f, us);
}
