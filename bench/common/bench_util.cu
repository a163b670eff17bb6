/* The benchmarks' shared helper (bench_util.h): compiled by nvcc for the triad kernel, C linkage for the C programs */
#include "bench_util.h"
#include <string.h>

__global__ static void TriadKernel(double *a, const double *b, const double *c, double s, size_t n)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a[i] = b[i] + s * c[i];
}

extern "C" double BenchMedian(PetscInt n, PetscReal *v)
{
  if (n < 1 || PetscSortReal(n, v)) return -1.0;
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

extern "C" PetscErrorCode BenchTimerCreate(PetscBool gpu, BenchTimer *T)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(T, sizeof(*T)));
  T->gpu = gpu;
  if (gpu) {
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    PetscCallCUDA(cudaEventCreate(&T->e0));
    PetscCallCUDA(cudaEventCreate(&T->e1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern "C" PetscErrorCode BenchTimerDestroy(BenchTimer *T)
{
  PetscFunctionBegin;
  if (T->gpu) {
    PetscCallCUDA(cudaEventDestroy(T->e0));
    PetscCallCUDA(cudaEventDestroy(T->e1));
  }
  T->gpu = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern "C" PetscErrorCode BenchTimerStart(BenchTimer *T)
{
  PetscFunctionBegin;
  PetscCall(PetscTime(&T->t0));
  if (T->gpu) {
    PetscCall(PetscGetCurrentCUDAStream(&T->stream)); /* the stream PETSc's operations run on now */
    PetscCallCUDA(cudaEventRecord(T->e0, T->stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern "C" PetscErrorCode BenchTimerStop(BenchTimer *T, double *sec, double *wall)
{
  PetscLogDouble t;

  PetscFunctionBegin;
  if (T->gpu) {
    float ms;

    PetscCallCUDA(cudaEventRecord(T->e1, T->stream));
    PetscCallCUDA(cudaEventSynchronize(T->e1));
    if (wall) PetscCallCUDA(cudaDeviceSynchronize()); /* the wall time includes work on other streams */
    PetscCall(PetscTime(&t));
    PetscCallCUDA(cudaEventElapsedTime(&ms, T->e0, T->e1));
    *sec = 1e-3 * ms;
  } else {
    PetscCall(PetscTime(&t));
    *sec = t - T->t0;
  }
  if (wall) *wall = t - T->t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern "C" PetscErrorCode MeasureTriad(PetscBool gpu, size_t n, PetscInt warmup, PetscInt runs, double *gbs)
{
  BenchTimer T;
  PetscReal *t;
  double    *a, *b, *c, sec;
  int        nblocks = 0;

  PetscFunctionBegin;
  PetscCheck(n > 0 && runs >= 1 && warmup >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MeasureTriad: need n > 0, runs >= 1, warmup >= 0");
  PetscCall(BenchTimerCreate(gpu, &T));
  PetscCall(PetscMalloc1(runs, &t));
  if (gpu) {
    int dev;

    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&nblocks, cudaDevAttrMultiProcessorCount, dev));
    nblocks *= 8; /* 8 blocks of 256 an SM: enough in flight to saturate the memory system */
    PetscCallCUDA(cudaMalloc((void **)&a, n * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&b, n * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&c, n * sizeof(double)));
    PetscCallCUDA(cudaMemset(b, 0, n * sizeof(double)));
    PetscCallCUDA(cudaMemset(c, 0, n * sizeof(double)));
  } else {
    PetscCall(PetscMalloc3(n, &a, n, &b, n, &c));
    for (size_t i = 0; i < n; i++) b[i] = c[i] = 0; /* touched before timing: first-touch page faults are not bandwidth */
  }
  for (PetscInt r = -warmup; r < runs; r++) {
    PetscCall(BenchTimerStart(&T));
    if (gpu) {
      TriadKernel<<<nblocks, 256, 0, T.stream>>>(a, b, c, 3.0, n);
      PetscCallCUDA(cudaGetLastError());
    } else {
      for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    }
    PetscCall(BenchTimerStop(&T, &sec, NULL));
    if (r >= 0) t[r] = sec;
  }
  *gbs = (double)BENCH_TRIAD_BYTES_PER_ENTRY * n / BenchMedian(runs, t) * 1e-9;
  if (gpu) {
    PetscCallCUDA(cudaFree(a));
    PetscCallCUDA(cudaFree(b));
    PetscCallCUDA(cudaFree(c));
  } else PetscCall(PetscFree3(a, b, c));
  PetscCall(PetscFree(t));
  PetscCall(BenchTimerDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern "C" PetscErrorCode BenchVecRates(VecType vtype, PetscInt64 n, PetscInt warmup, PetscInt runs, double *waxpy_gbs, double *pmult_gbs)
{
  Vec        x, y, w;
  PetscBool  gpu;
  BenchTimer T;
  PetscReal *t;
  double     sec;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(vtype, VECCUDA, &gpu));
  PetscCall(BenchTimerCreate(gpu, &T));
  PetscCall(VecCreate(PETSC_COMM_SELF, &x));
  PetscCall(VecSetSizes(x, (PetscInt)n, (PetscInt)n));
  PetscCall(VecSetType(x, vtype));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecSet(y, 2.0));
  PetscCall(VecSet(w, 0.0));
  PetscCall(PetscMalloc1(runs, &t));
  for (int op = 0; op < 2; op++) {
    for (PetscInt r = -warmup; r < runs; r++) {
      PetscCall(BenchTimerStart(&T));
      if (op == 0) PetscCall(VecWAXPY(w, 0.5, x, y));
      else PetscCall(VecPointwiseMult(w, x, y));
      PetscCall(BenchTimerStop(&T, &sec, NULL));
      if (r >= 0) t[r] = sec;
    }
    *(op == 0 ? waxpy_gbs : pmult_gbs) = (double)BENCH_TRIAD_BYTES_PER_ENTRY * (double)n / BenchMedian(runs, t) * 1e-9;
  }
  PetscCall(PetscFree(t));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscCall(BenchTimerDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern "C" PetscErrorCode BenchCSVOpen(const char *path, const char *header, PetscBool append, FILE **csv)
{
  PetscBool newfile = PETSC_TRUE;

  PetscFunctionBegin;
  if (append) {
    FILE *f = fopen(path, "r");

    if (f) {
      char   first[4096] = "", prog[256] = "", *base;
      size_t hl = strlen(header);

      newfile = (PetscBool)(!fgets(first, sizeof(first), f) || !first[0]);
      fclose(f);
      first[strcspn(first, "\r\n")] = 0;
      PetscCall(PetscGetProgramName(prog, sizeof(prog)));
      base = strrchr(prog, '/');
      /* rows of another column layout would be misread */
      PetscCheck(newfile || (hl < sizeof(first) && !strcmp(first, header)), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-append %s: its header is not this %s's (an older CSV, other columns): write a new file", path, base ? base + 1 : prog);
    }
  }
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, append ? "a" : "w", csv));
  if (newfile) PetscCall(PetscFPrintf(PETSC_COMM_SELF, *csv, "%s\n", header));
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern "C" PetscErrorCode BenchCSVClose(FILE **csv)
{
  PetscFunctionBegin;
  if (*csv) PetscCall(PetscFClose(PETSC_COMM_SELF, *csv));
  *csv = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BenchCheckCuda(cudaError_t err, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(err == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "%s: %s", what, cudaGetErrorString(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BenchSync(PetscBool gpu)
{
  PetscFunctionBegin;
  if (gpu) PetscCall(BenchCheckCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
