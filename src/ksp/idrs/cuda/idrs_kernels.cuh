/* The fused vector kernels of KSPIDRS (launched by idrs_cuda.cu; run in the host warp emulator by tests/test_emu_idrs.cxx).
   A reduction finishes on the device: each block writes its partial sums, and the last block to end adds the partials of
   all blocks in block order (the same order on every run: deterministic) and writes the answers to host-mapped memory. */
#pragma once

/* The grid-stride loops unrolled: more loads in flight a thread (a reduction kernel runs 4 blocks of 256 threads an SM,
   so that its partials stay few). A thread still adds its elements in order: the sums are those of the plain loop. */
#if defined(__CUDA_ARCH__)
  #define PBG_IDRS_UNROLL _Pragma("unroll 4")
#else
  #define PBG_IDRS_UNROLL
#endif

namespace pbg::idrs
{
constexpr int ThreadsPerBlock = 256;
constexpr int WarpsPerBlock   = ThreadsPerBlock / 32;

struct CombineArgs {
  int                nin0, nin1;
  const PetscScalar *x0[KSPIDRS_FUSED_MAX_IN], *x1[KSPIDRS_FUSED_MAX_IN];
  PetscScalar        a0[KSPIDRS_FUSED_MAX_IN], a1[KSPIDRS_FUSED_MAX_IN];
  PetscScalar        b;
  PetscScalar       *out0, *out1;
};

struct DotsArgs {
  int                np;
  const PetscScalar *x[KSPIDRS_FUSED_MAX_DOTS], *y[KSPIDRS_FUSED_MAX_DOTS];
};

struct StepArgs {
  int                k, norm; /* norm 0 (KSP_NORM_NONE): no reduction of the squared norm */
  PetscScalar        alpha[KSPIDRS_FUSED_MAX_S], beta;
  const PetscScalar *G[KSPIDRS_FUSED_MAX_S], *U[KSPIDRS_FUSED_MAX_S], *Z[KSPIDRS_FUSED_MAX_S];
  PetscScalar       *gk, *uk, *zk, *r, *x, *rt;
};

struct OmegaArgs {
  int                norm; /* whether the kernel sums the squared norm */
  PetscScalar        omega;
  const PetscScalar *w, *t, *zt;
  PetscScalar       *x, *r, *rt;
};

/* Where a reduction leaves its answers: slot[p] of the host-mapped results for p < np */
struct ReduceTarget {
  double       *partials;
  unsigned int *done;
  double       *results;
  int           slot[KSPIDRS_FUSED_MAX_DOTS + 1];
};

/* Sums acc[0..np) over the grid: each block writes its partial sums, the last block to finish adds the partials of all
   blocks in block order (the same order on every run) and writes the totals to the results. NP bounds np at compile
   time so that acc stays in registers. */
template <int NP>
__device__ void GridReduce(const double (&acc)[NP], int np, const ReduceTarget &tg)
{
  __shared__ double warp_sums[WarpsPerBlock][NP];
  __shared__ bool   last;
  const int         lane = threadIdx.x % 32, warp = threadIdx.x / 32;

#pragma unroll
  for (int p = 0; p < NP; p++) {
    if (p < np) {
      double v = acc[p];
      for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
      if (lane == 0) warp_sums[warp][p] = v;
    }
  }
  __syncthreads();
  if ((int)threadIdx.x < np) {
    double v = 0.0;
    for (int w = 0; w < WarpsPerBlock; w++) v += warp_sums[w][threadIdx.x];
    tg.partials[(size_t)blockIdx.x * NP + threadIdx.x] = v;
  }
  __threadfence(); /* the partials are visible to the block that finishes last */
  __syncthreads();
  if (threadIdx.x == 0) last = (atomicAdd(tg.done, 1u) == gridDim.x - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();
  /* warp w reduces the partials of answers w, w + 8, ...; lanes stride over the blocks. The partials are read from L2
     (__ldcg: another block wrote them), four loads in flight a lane before the additions, which keep the order of one
     load at a time: a lane waited out each load's L2 latency in turn, once for every 32 blocks. */
  for (int p = warp; p < np; p += WarpsPerBlock) {
    const int nb = (int)gridDim.x;
    double    v  = 0.0;
    int       b  = lane;

    for (; b + 96 < nb; b += 128) {
      const double v0 = __ldcg(&tg.partials[(size_t)b * NP + p]), v1 = __ldcg(&tg.partials[(size_t)(b + 32) * NP + p]);
      const double v2 = __ldcg(&tg.partials[(size_t)(b + 64) * NP + p]), v3 = __ldcg(&tg.partials[(size_t)(b + 96) * NP + p]);

      v += v0;
      v += v1;
      v += v2;
      v += v3;
    }
    for (; b < nb; b += 32) v += __ldcg(&tg.partials[(size_t)b * NP + p]);
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) tg.results[tg.slot[p]] = v;
  }
  if (threadIdx.x == 0) *tg.done = 0; /* ready for the next reduction on the stream */
  __threadfence_system();
}

__global__ void CombineKernel(PetscInt n, CombineArgs a)
{
  PBG_IDRS_UNROLL
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar v = 0.0;
    for (int j = 0; j < a.nin0; j++) v += a.a0[j] * a.x0[j][i];
    if (a.out1) {
      PetscScalar u = a.b * v;
      for (int j = 0; j < a.nin1; j++) u += a.a1[j] * a.x1[j][i];
      a.out1[i] = u;
    }
    a.out0[i] = v;
  }
}

template <int NP>
__global__ void DotsKernel(PetscInt n, DotsArgs a, ReduceTarget tg)
{
  double acc[NP];

#pragma unroll
  for (int p = 0; p < NP; p++) acc[p] = 0.0;
  PBG_IDRS_UNROLL
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
#pragma unroll
    for (int p = 0; p < NP; p++)
      if (p < a.np) acc[p] += a.x[p][i] * a.y[p][i];
  }
  GridReduce<NP>(acc, a.np, tg);
}

__global__ void StepUpdateKernel(PetscInt n, StepArgs a, ReduceTarget tg)
{
  double acc[1] = {0.0};

  PBG_IDRS_UNROLL
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar g = a.gk[i], u = a.uk[i], r;

    for (int j = 0; j < a.k; j++) {
      g += a.alpha[j] * a.G[j][i];
      u += a.alpha[j] * a.U[j][i];
    }
    if (a.k) {
      a.gk[i] = g;
      a.uk[i] = u;
    }
    r      = a.r[i] - a.beta * g;
    a.r[i] = r;
    a.x[i] += a.beta * u;
    if (a.zk) {
      PetscScalar z = a.zk[i], rt;

      for (int j = 0; j < a.k; j++) z += a.alpha[j] * a.Z[j][i];
      if (a.k) a.zk[i] = z;
      rt      = a.rt[i] - a.beta * z;
      a.rt[i] = rt;
      acc[0] += rt * rt;
    } else acc[0] += r * r;
  }
  if (a.norm) GridReduce<1>(acc, 1, tg); /* the same for every thread of the grid: a kernel argument */
}

__global__ void OmegaUpdateKernel(PetscInt n, OmegaArgs a, ReduceTarget tg)
{
  double acc[1] = {0.0};

  PBG_IDRS_UNROLL
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    /* w is r itself with left preconditioning: read before r is written */
    PetscScalar w = a.w[i], r = a.r[i] - a.omega * a.t[i], nrm;

    a.x[i] += a.omega * w;
    a.r[i] = r;
    if (a.rt) {
      PetscScalar rt = a.rt[i] - a.omega * a.zt[i];

      a.rt[i] = rt;
      nrm     = rt;
    } else nrm = r;
    acc[0] += nrm * nrm;
  }
  if (a.norm) GridReduce<1>(acc, 1, tg); /* the same for every thread of the grid: a kernel argument */
}
} // namespace pbg::idrs
