/* Shared by the benchmarks of bench/: block patterns of PETSc's DMDA stencils and the CUDA-event timer. */
#pragma once

#include <petscdevice_cuda.h>
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

/* CUDA events on one stream */
struct Timer {
  cudaStream_t stream;
  cudaEvent_t  a, b;
};

template <class F>
static PetscErrorCode TimeMedian(Timer &T, int warmup, int runs, F f, double *us)
{
  std::vector<float> t;

  PetscFunctionBegin;
  for (int w = 0; w < warmup; w++) PetscCall(f());
  for (int r = 0; r < runs; r++) {
    float ms;
    PetscCallCUDA(cudaEventRecord(T.a, T.stream));
    PetscCall(f());
    PetscCallCUDA(cudaEventRecord(T.b, T.stream));
    PetscCallCUDA(cudaEventSynchronize(T.b));
    PetscCallCUDA(cudaEventElapsedTime(&ms, T.a, T.b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  *us = 1e3 * t[t.size() / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

