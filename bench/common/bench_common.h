/* Shared by the benchmarks of bench/: block patterns of PETSc's DMDA stencils and the CUDA-event timer. */
#pragma once

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

/* CUDA events on one stream */
struct Timer {
  cudaStream_t stream;
  cudaEvent_t  a, b;
};

/* Events on PETSc's current CUDA stream, and the properties of the current device (for the name in the output) */
static PetscErrorCode TimerCreate(Timer &T, cudaDeviceProp *prop)
{
  int dev;

  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(prop, dev));
  PetscCall(PetscGetCurrentCUDAStream(&T.stream));
  PetscCallCUDA(cudaEventCreate(&T.a));
  PetscCallCUDA(cudaEventCreate(&T.b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Median of runs calls of f (CUDA events on T.stream around f alone) after warmup calls; each call is preceded by
   reset(), untimed (in-place kernels get fresh inputs that way) */
template <class R, class F>
static PetscErrorCode TimeMedianWithReset(Timer &T, int warmup, int runs, R reset, F f, double *us)
{
  std::vector<float> t;

  PetscFunctionBegin;
  for (int w = 0; w < warmup; w++) {
    PetscCall(reset());
    PetscCall(f());
  }
  for (int r = 0; r < runs; r++) {
    float ms;
    PetscCall(reset());
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

template <class F>
static PetscErrorCode TimeMedian(Timer &T, int warmup, int runs, F f, double *us)
{
  return TimeMedianWithReset(T, warmup, runs, []() { return PETSC_SUCCESS; }, f, us);
}

__global__ static void TriadKernel(double *a, const double *b, const double *c, double s, size_t n)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a[i] = b[i] + s * c[i];
}

/* The reference bandwidth: a = b + s c on three vectors of n doubles, the median of runs (GB/s, 24 n bytes) */
static PetscErrorCode MeasureTriad(Timer &T, const cudaDeviceProp &prop, size_t n, int warmup, int runs, double *gbs)
{
  double *a, *b, *c, us;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)&a, n * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&b, n * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&c, n * sizeof(double)));
  PetscCallCUDA(cudaMemset(b, 0, n * sizeof(double)));
  PetscCallCUDA(cudaMemset(c, 0, n * sizeof(double)));
  PetscCall(TimeMedian(T, warmup, runs, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    TriadKernel<<<prop.multiProcessorCount * 8, 256, 0, T.stream>>>(a, b, c, 3.0, n);
    PetscCallCUDA(cudaGetLastError());
    PetscFunctionReturn(PETSC_SUCCESS); }, &us));
  *gbs = 3.0 * n * sizeof(double) / us * 1e-3;
  PetscCallCUDA(cudaFree(a));
  PetscCallCUDA(cudaFree(b));
  PetscCallCUDA(cudaFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
