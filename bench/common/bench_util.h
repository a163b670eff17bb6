/* The helper every benchmark of bench/drivers/ links (bench_util.cu, C linkage, so the C and the CUDA programs share
   it): THE triad (the reference bandwidth of every "fraction of the triad / of the floor" column), the CUDA-event timer,
   the median, PETSc's own vector rates, and the CSV file. */
#pragma once

#include <petscvec.h>
#include <petscdevice_cuda.h>
#include <stdio.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* The triad a = b + s c moves 24 bytes an entry: b and c read, a written (8-byte doubles). Every bandwidth fraction of
   bench/ divides by MeasureTriad()'s rate, which counts these bytes and no others. */
#define BENCH_TRIAD_BYTES_PER_ENTRY 24

/* THE triad: a = b + s c on n doubles, the median of runs timed calls after warmup untimed ones, in GB/s
   (BENCH_TRIAD_BYTES_PER_ENTRY * n bytes a call). gpu: raw cudaMalloc'ed arrays and one grid-stride kernel on PETSc's
   current CUDA stream, CUDA-event timed; otherwise the same loop on host arrays, PetscTime()-timed (host runs). */
PetscErrorCode MeasureTriad(PetscBool gpu, size_t n, PetscInt warmup, PetscInt runs, double *gbs);

/* PETSc's own VecWAXPY (w = a x + y) and VecPointwiseMult (w = x .* y) on vectors of type vtype and n entries, the median
   of runs after warmup, in GB/s. Both count BENCH_TRIAD_BYTES_PER_ENTRY bytes an entry (the bytes the operation must
   move), so they compare with the triad; PETSc's CUDA VecWAXPY is a copy + a cuBLAS axpy and really moves 40. Reported
   beside the triad only, never a denominator. */
PetscErrorCode BenchVecRates(VecType vtype, PetscInt64 n, PetscInt warmup, PetscInt runs, double *waxpy_gbs, double *pmult_gbs);

/* A PETSc error naming what failed when a CUDA runtime call did not succeed */
PetscErrorCode BenchCheckCuda(cudaError_t err, const char *what);
/* Waits for the whole device (gpu); nothing on the host */
PetscErrorCode BenchSync(PetscBool gpu);

/* CUDA events on PETSc's current CUDA stream (gpu), PetscTime() otherwise */
typedef struct {
  PetscBool      gpu;
  cudaStream_t   stream;
  cudaEvent_t    e0, e1;
  PetscLogDouble t0;
} BenchTimer;

PetscErrorCode BenchTimerCreate(PetscBool gpu, BenchTimer *T);
PetscErrorCode BenchTimerDestroy(BenchTimer *T);
PetscErrorCode BenchTimerStart(BenchTimer *T);
/* sec: between the events (host: the wall time); wall (may be NULL): PetscTime() after the whole device has finished */
PetscErrorCode BenchTimerStop(BenchTimer *T, double *sec, double *wall);

/* The median of v[0..n) (sorts v); the mean of the middle two for even n; -1 for n < 1 */
double BenchMedian(PetscInt n, PetscReal *v);

/* The CSV file: a new file with header as its first line, or (append) an existing one whose first line must be header
   (an error otherwise: a file of another layout is never mixed in) */
PetscErrorCode BenchCSVOpen(const char *path, const char *header, PetscBool append, FILE **csv);
PetscErrorCode BenchCSVClose(FILE **csv);

#if defined(__cplusplus)
}
#endif
