static const char help[] = "Batched inversion of small dense blocks on the GPU: PetscBlockGPUInvertBatched (variable-size batched Gauss-Jordan,\n"
                           "Anzt et al., Parallel Computing 2018) against cuBLAS cublasDgetrfBatched + cublasDgetriBatched and\n"
                           "cublasDmatinvBatched, in one process, with a triad measured in the same run as the bandwidth ceiling.\n"
                           "  -sizes <1,...,32>  uniform batches: every block n x n, packed (default 1..32; ours is called with NULL sizes and\n"
                           "                     offsets, the uniform form of the call, as cuBLAS's takes one n; -uniform_call 0: with them)\n"
                           "  -mixed <2,4,8,16,32> mixed batches: sizes uniform in 1..m (cuBLAS inverts the blocks padded to m x m with the\n"
                           "                     identity; GF/s count the useful 2 k^3 flops of each block for every variant)\n"
                           "  -nblocks <500000>  blocks per batch (fewer when the three copies of the batch would exceed -max_gib)\n"
                           "  -max_gib <g>       device memory for the batches (default: 70% of the free memory)\n"
                           "  -runs <15>         timed runs per variant (median reported), after -warmup <3>\n"
                           "  -o <file>          CSV output (also printed at the end)\n"
                           "Each run starts from the same pristine batch (restored by an untimed device copy); the time is taken with CUDA\n"
                           "events on PETSc's stream around the call alone; every call is stream-ordered (mixed batches of maxk > 4 read their\n"
                           "class counts back: one synchronization inside ours).\n"
                           "Floor: the batch must be read and written once, 16 k^2 bytes per block, at the triad bandwidth of this run.\n";

#include <petscblockgpu.h>
#include <petscdevice_cuda.h>
#include <cublas_v2.h>
#include "bench_common.h"
#include <vector>
#include <string>
#include <random>
#include <algorithm>
#include <cstdio>
#include <cmath>

/* ------------------------------------------------------------------------------------------- device helpers */
__device__ static double HashUnit(unsigned long long x) /* in [-1, 1) */
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return 2.0 * (double)(x >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

/* Block b (k x k, column-major, at offsets[b] or b n^2): random entries, the diagonal made dominant (well
   conditioned, so that every variant succeeds; the pivot search runs all the same). A warp per block. */
__global__ static void FillKernel(PetscInt nb, int n, const PetscInt *sizes, const PetscInt64 *offsets, double *A, unsigned long long seed)
{
  const int     lane  = threadIdx.x % 32;
  const int64_t nwarp = (int64_t)gridDim.x * blockDim.x / 32;

  for (int64_t b = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; b < nb; b += nwarp) {
    const int     k   = sizes ? (int)sizes[b] : n;
    const int64_t off = offsets ? offsets[b] : b * n * n;

    for (int e = lane; e < k * k; e += 32) {
      double v = HashUnit(seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)(off + e));
      if (e % (k + 1) == 0) v += copysign((double)(k + 1), v);
      A[off + e] = v;
    }
  }
}

/* dst[b] (m x m) = diag(src block b (k x k), I): the padded copy that cuBLAS inverts for a mixed batch */
__global__ static void PadKernel(PetscInt nb, int m, const PetscInt *sizes, const PetscInt64 *offsets, const double *src, double *dst)
{
  const int     lane  = threadIdx.x % 32;
  const int64_t nwarp = (int64_t)gridDim.x * blockDim.x / 32;

  for (int64_t b = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; b < nb; b += nwarp) {
    const int k = (int)sizes[b];
    for (int e = lane; e < m * m; e += 32) {
      const int i = e % m, j = e / m;
      dst[b * m * m + e] = (i < k && j < k) ? src[offsets[b] + i + j * k] : (i == j ? 1.0 : 0.0);
    }
  }
}

__global__ static void PointersKernel(PetscInt nb, double *base, int64_t stride, double **ptrs)
{
  for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < nb; b += (int64_t)gridDim.x * blockDim.x) ptrs[b] = base + b * stride;
}

/* ------------------------------------------------------------------------------------------- timing */
static unsigned GridFor(int64_t threads)
{
  return (unsigned)std::min<int64_t>((threads + 255) / 256, 1 << 20);
}

/* ------------------------------------------------------------------------------------------- one batch */
struct Result {
  std::string batch;
  int         n; /* block size (uniform) or the largest size m (mixed) */
  PetscInt    nb;
  double      flops, bytes; /* useful flops (2 k^3) and the floor's bytes (16 k^2), summed over the blocks */
  double      us_ours, us_getrf_getri, us_matinv;
  double      maxdiff; /* max over the sampled blocks of max|ours - cuBLAS| / max|cuBLAS| */
  int         nbad;    /* blocks with info != 0 in any variant */
};

struct Work {
  double     *P, *W, *C;    /* pristine batch, work copy (inverted in place by ours, LU'd by getrf), cuBLAS output */
  double    **pW, **pC;     /* pointer arrays for cuBLAS */
  int        *piv, *cinfo;  /* cuBLAS pivots and info */
  PetscInt   *sizes, *info; /* ours */
  PetscInt64 *offsets;
};

static PetscBool uniform_call = PETSC_TRUE; /* -uniform_call: uniform batches called without sizes and offsets */

/* sizes[b] in 1..m (uniform: all m); ours works on the packed batch, cuBLAS on the batch padded to m x m */
static PetscErrorCode RunBatch(Timer &T, cublasHandle_t cb, Work &Wk, const char *name, int m, bool mixed, PetscInt nb, int warmup, int runs, unsigned long long seed, Result &R)
{
  std::vector<PetscInt>   sizes(nb);
  std::vector<PetscInt64> offsets(nb + 1);
  std::mt19937_64         rng(seed);
  const int64_t           nsample = std::min<int64_t>(nb, 4096);
  std::vector<double>     ours, theirs;
  std::vector<int>        hinfo;
  std::vector<PetscInt>   hinfo_ours;

  PetscFunctionBegin;
  R.batch = name;
  R.n     = m;
  R.nb    = nb;
  R.flops = R.bytes = 0;
  R.nbad            = 0;
  offsets[0]        = 0;
  for (PetscInt b = 0; b < nb; b++) {
    sizes[b]       = mixed ? (PetscInt)(1 + rng() % m) : m;
    offsets[b + 1] = offsets[b] + (PetscInt64)sizes[b] * sizes[b];
    R.flops += 2.0 * sizes[b] * sizes[b] * sizes[b];
    R.bytes += 16.0 * sizes[b] * sizes[b];
  }
  PetscCallCUDA(cudaMemcpyAsync(Wk.sizes, sizes.data(), sizeof(PetscInt) * nb, cudaMemcpyHostToDevice, T.stream));
  PetscCallCUDA(cudaMemcpyAsync(Wk.offsets, offsets.data(), sizeof(PetscInt64) * nb, cudaMemcpyHostToDevice, T.stream));
  FillKernel<<<GridFor(32 * nb), 256, 0, T.stream>>>(nb, m, Wk.sizes, Wk.offsets, Wk.P, seed);
  PetscCallCUDA(cudaGetLastError());

  /* ours, in place on W, restored from P before each run */
  {
    const size_t len = sizeof(double) * offsets[nb];

    PetscCall(TimeMedianWithReset(
      T, warmup, runs,
      [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PetscCallCUDA(cudaMemcpyAsync(Wk.W, Wk.P, len, cudaMemcpyDeviceToDevice, T.stream));
        PetscFunctionReturn(PETSC_SUCCESS);
      },
      [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        /* a uniform batch is the packed layout: the call without sizes and offsets, as cuBLAS's takes one n */
        const bool listed = mixed || !uniform_call;
        PetscCall(PetscBlockGPUInvertBatched(nb, m, listed ? Wk.sizes : NULL, listed ? Wk.offsets : NULL, Wk.W, Wk.info));
        PetscFunctionReturn(PETSC_SUCCESS);
      },
      &R.us_ours));
    ours.resize(offsets[nsample]);
    hinfo_ours.resize(nb);
    PetscCallCUDA(cudaMemcpyAsync(ours.data(), Wk.W, sizeof(double) * offsets[nsample], cudaMemcpyDeviceToHost, T.stream));
    PetscCallCUDA(cudaMemcpyAsync(hinfo_ours.data(), Wk.info, sizeof(PetscInt) * nb, cudaMemcpyDeviceToHost, T.stream));
    PetscCallCUDA(cudaStreamSynchronize(T.stream));
    for (PetscInt b = 0; b < nb; b++) R.nbad += hinfo_ours[b] != 0;
  }

  /* cuBLAS on the m x m batch: P itself (uniform), or P padded (mixed) */
  {
    const size_t padded = sizeof(double) * (size_t)nb * m * m;
    double      *src    = Wk.P;

    if (mixed) { /* pad the packed pristine batch into C, then make that the pristine copy (ours is done with P) */
      PadKernel<<<GridFor(32 * nb), 256, 0, T.stream>>>(nb, m, Wk.sizes, Wk.offsets, Wk.P, Wk.C);
      PetscCallCUDA(cudaGetLastError());
      PetscCallCUDA(cudaMemcpyAsync(Wk.P, Wk.C, padded, cudaMemcpyDeviceToDevice, T.stream));
    }
    PointersKernel<<<GridFor(nb), 256, 0, T.stream>>>(nb, Wk.W, (int64_t)m * m, Wk.pW);
    PetscCallCUDA(cudaGetLastError());
    PointersKernel<<<GridFor(nb), 256, 0, T.stream>>>(nb, Wk.C, (int64_t)m * m, Wk.pC);
    PetscCallCUDA(cudaGetLastError());
    /* getrf factors W in place: every timed cuBLAS run starts from a fresh copy of the padded blocks */
    const auto restore_W = [&]() -> PetscErrorCode {
      PetscFunctionBegin;
      PetscCallCUDA(cudaMemcpyAsync(Wk.W, src, padded, cudaMemcpyDeviceToDevice, T.stream));
      PetscFunctionReturn(PETSC_SUCCESS);
    };
    PetscCall(TimeMedianWithReset(
      T, warmup, runs, restore_W,
      [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PetscCallCUBLAS(cublasDgetrfBatched(cb, m, Wk.pW, m, Wk.piv, Wk.cinfo, (int)nb));
        PetscCallCUBLAS(cublasDgetriBatched(cb, m, (const double *const *)Wk.pW, m, Wk.piv, Wk.pC, m, Wk.cinfo, (int)nb));
        PetscFunctionReturn(PETSC_SUCCESS);
      },
      &R.us_getrf_getri));
    hinfo.resize(nb);
    PetscCallCUDA(cudaMemcpyAsync(hinfo.data(), Wk.cinfo, sizeof(int) * nb, cudaMemcpyDeviceToHost, T.stream));
    PetscCallCUDA(cudaStreamSynchronize(T.stream));
    for (PetscInt b = 0; b < nb; b++) R.nbad += hinfo[b] != 0;
    PetscCall(TimeMedianWithReset(
      T, warmup, runs, restore_W,
      [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PetscCallCUBLAS(cublasDmatinvBatched(cb, m, (const double *const *)Wk.pW, m, Wk.pC, m, Wk.cinfo, (int)nb));
        PetscFunctionReturn(PETSC_SUCCESS);
      },
      &R.us_matinv));
    theirs.resize((size_t)nsample * m * m);
    PetscCallCUDA(cudaMemcpyAsync(hinfo.data(), Wk.cinfo, sizeof(int) * nb, cudaMemcpyDeviceToHost, T.stream));
    PetscCallCUDA(cudaMemcpyAsync(theirs.data(), Wk.C, sizeof(double) * theirs.size(), cudaMemcpyDeviceToHost, T.stream));
    PetscCallCUDA(cudaStreamSynchronize(T.stream));
    for (PetscInt b = 0; b < nb; b++) R.nbad += hinfo[b] != 0;
  }

  /* ours against matinv on the first blocks */
  R.maxdiff = 0;
  for (int64_t b = 0; b < nsample; b++) {
    const int k    = (int)sizes[b];
    double    dmax = 0, ymax = 0;

    for (int j = 0; j < k; j++)
      for (int i = 0; i < k; i++) {
        const double x = ours[offsets[b] + i + j * k], y = theirs[(size_t)b * m * m + i + (size_t)j * m];
        dmax = std::max(dmax, std::fabs(x - y));
        ymax = std::max(ymax, std::fabs(y));
      }
    R.maxdiff = std::max(R.maxdiff, ymax > 0 ? dmax / ymax : dmax);
    if (std::isnan(dmax)) R.maxdiff = NAN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt            sizes[64], mixed[64], nsizes = 64, nmixed = 64, nb = 500000, runs = 15, warmup = 3;
  PetscReal           max_gib = 0;
  PetscBool           flg;
  char                out[PETSC_MAX_PATH_LEN] = "";
  Timer               T;
  cublasHandle_t      cb;
  cudaDeviceProp      prop;
  double              triad_GBs;
  Work                Wk;
  std::vector<Result> results;
  std::string         csv;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &flg));
  if (!flg)
    for (nsizes = 0; nsizes < 32; nsizes++) sizes[nsizes] = nsizes + 1;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-mixed", mixed, &nmixed, &flg));
  if (!flg) {
    const PetscInt d[] = {2, 4, 8, 16, 32};
    for (nmixed = 0; nmixed < 5; nmixed++) mixed[nmixed] = d[nmixed];
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nblocks", &nb, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-uniform_call", &uniform_call, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-runs", &runs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_gib", &max_gib, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), NULL));
  PetscCheck(nb >= 1 && runs >= 1 && warmup >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need -nblocks >= 1, -runs >= 1, -warmup >= 0");
  for (PetscInt i = 0; i < nsizes; i++) PetscCheck(sizes[i] >= 1 && sizes[i] <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sizes: %" PetscInt_FMT " outside 1..32", sizes[i]);
  for (PetscInt i = 0; i < nmixed; i++) PetscCheck(mixed[i] >= 1 && mixed[i] <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mixed: %" PetscInt_FMT " outside 1..32", mixed[i]);

  PetscCall(TimerCreate(T, &prop));
  PetscCallCUBLAS(cublasCreate(&cb));
  PetscCallCUBLAS(cublasSetStream(cb, T.stream));

  PetscCall(MeasureTriad(PETSC_TRUE, (size_t)1 << 27, (int)warmup, (int)runs, &triad_GBs)); /* 3 x 1 GiB */

  /* one allocation for the largest batch: three copies of nb blocks of m x m, m the largest size asked for */
  int    mmax = 1;
  size_t freeb, totalb;
  for (PetscInt i = 0; i < nsizes; i++) mmax = std::max(mmax, (int)sizes[i]);
  for (PetscInt i = 0; i < nmixed; i++) mmax = std::max(mmax, (int)mixed[i]);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  {
    const double budget   = max_gib > 0 ? max_gib * 1073741824.0 : 0.7 * (double)freeb;
    const double perblock = 3.0 * 8.0 * mmax * mmax + 2 * sizeof(double *) + 4.0 * mmax + 4 + 2 * sizeof(PetscInt) + sizeof(PetscInt64);
    PetscInt     fit      = (PetscInt)std::min<double>(budget / perblock, (double)PETSC_INT_MAX / 2);

    if (fit < nb) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "note: %" PetscInt_FMT " blocks of %d x %d do not fit in %.1f GiB (x3 copies): using %" PetscInt_FMT "\n", nb, mmax, mmax, budget / 1073741824.0, fit));
      nb = fit;
    }
    PetscCheck(nb >= 1, PETSC_COMM_SELF, PETSC_ERR_MEM, "Not enough device memory for one block");
  }
  const size_t cap = (size_t)nb * mmax * mmax;
  PetscCallCUDA(cudaMalloc((void **)&Wk.P, cap * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.W, cap * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.C, cap * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.pW, nb * sizeof(double *)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.pC, nb * sizeof(double *)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.piv, (size_t)nb * mmax * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.cinfo, nb * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.sizes, nb * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.info, nb * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&Wk.offsets, (nb + 1) * sizeof(PetscInt64)));

  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_invert: device %s (sm_%d%d, %d SMs, %.0f GiB), FP64, %" PetscInt_FMT " blocks per batch, median of %" PetscInt_FMT " runs after %" PetscInt_FMT " warm-up\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, nb, runs, warmup));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "triad (a = b + s c) measured in this run: %.0f GB/s; floor = 16 k^2 bytes per block at that bandwidth\n", triad_GBs));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "GF/s: 2 k^3 flops per block; speedup = cuBLAS time / our time; %%floor = floor time / our time\n\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-9s %3s %8s | %9s %8s %6s | %9s %8s %7s | %9s %8s %7s | %8s\n", "batch", "n", "blocks", "ours us", "GF/s", "%floor", "getrf+ri", "GF/s", "speedup", "matinv", "GF/s", "speedup", "maxdiff"));

  std::vector<std::pair<int, bool>> todo;
  for (PetscInt i = 0; i < nsizes; i++) todo.push_back({(int)sizes[i], false});
  for (PetscInt i = 0; i < nmixed; i++) todo.push_back({(int)mixed[i], true});
  for (auto &t : todo) {
    Result R;
    char   name[32];

    PetscCall(PetscSNPrintf(name, sizeof(name), t.second ? "mixed1-%d" : "uniform", t.first));
    PetscCall(RunBatch(T, cb, Wk, name, t.first, t.second, nb, (int)warmup, (int)runs, 1000 + t.first + (t.second ? 100 : 0), R));
    results.push_back(R);
    {
      const double floor_us = R.bytes / (triad_GBs * 1e3);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-9s %3d %8" PetscInt_FMT " | %9.1f %8.1f %5.1f%% | %9.1f %8.1f %7.2f | %9.1f %8.1f %7.2f | %8.1e%s\n", name, R.n, R.nb, R.us_ours, R.flops / R.us_ours * 1e-3, 100.0 * floor_us / R.us_ours, R.us_getrf_getri, R.flops / R.us_getrf_getri * 1e-3, R.us_getrf_getri / R.us_ours, R.us_matinv, R.flops / R.us_matinv * 1e-3, R.us_matinv / R.us_ours, R.maxdiff, R.nbad ? "  (some info != 0!)" : ""));
    }
  }

  { /* CSV, to -o and to stdout */
    char line[1024];

    csv = "device,batch,n,nblocks,us_ours,GFs_ours,GBs_ours,pct_floor,floor_us,us_getrf_getri,GFs_getrf_getri,speedup_vs_getrf_getri,us_matinv,GFs_matinv,speedup_vs_matinv,triad_GBs,max_rel_diff,failed_blocks\n";
    for (auto &R : results) {
      const double floor_us = R.bytes / (triad_GBs * 1e3);
      snprintf(line, sizeof(line), "%s,%s,%d,%lld,%.2f,%.1f,%.1f,%.1f,%.2f,%.2f,%.1f,%.3f,%.2f,%.1f,%.3f,%.0f,%.3g,%d\n", prop.name, R.batch.c_str(), R.n, (long long)R.nb, R.us_ours, R.flops / R.us_ours * 1e-3, R.bytes / R.us_ours * 1e-3, 100.0 * floor_us / R.us_ours, floor_us, R.us_getrf_getri, R.flops / R.us_getrf_getri * 1e-3, R.us_getrf_getri / R.us_ours, R.us_matinv, R.flops / R.us_matinv * 1e-3, R.us_matinv / R.us_ours, triad_GBs, R.maxdiff, R.nbad);
      csv += line;
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nCSV:\n%s", csv.c_str()));
    if (out[0]) {
      FILE *fp = fopen(out, "w");
      PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", out);
      fputs(csv.c_str(), fp);
      fclose(fp);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "wrote %s\n", out));
    }
  }

  PetscCallCUDA(cudaFree(Wk.P));
  PetscCallCUDA(cudaFree(Wk.W));
  PetscCallCUDA(cudaFree(Wk.C));
  PetscCallCUDA(cudaFree(Wk.pW));
  PetscCallCUDA(cudaFree(Wk.pC));
  PetscCallCUDA(cudaFree(Wk.piv));
  PetscCallCUDA(cudaFree(Wk.cinfo));
  PetscCallCUDA(cudaFree(Wk.sizes));
  PetscCallCUDA(cudaFree(Wk.info));
  PetscCallCUDA(cudaFree(Wk.offsets));
  PetscCallCUBLAS(cublasDestroy(cb));
  PetscCall(BenchTimerDestroy(&T));
  PetscCall(PetscFinalize());
  return 0;
}
