/* KSPIDRS on the device: the fused vector kernels (src/ksp/idrs/idrscuda.h).
   An IDR(s) step touches up to 3s + 6 vectors; PETSc's Vec operations take one launch per operation and one host
   synchronisation per reduction. Here each group of updates is one kernel over all its vectors, a reduction finishes on
   the device (the last block to end sums the per-block partials in a fixed order: deterministic) and writes its answer to
   host-mapped memory, so that the host only waits on the stream, once per group. Coefficients travel as kernel arguments:
   nothing is copied to the device per step. */
#include <../src/ksp/idrs/idrscuda.h>
#include <petscdevice_cuda.h>

#include "idrs_kernels.cuh"

using namespace pbg::idrs;

namespace
{
int Blocks(PetscInt n, int cap)
{
  PetscInt b = (n + ThreadsPerBlock - 1) / ThreadsPerBlock;

  return (int)PetscMax(1, PetscMin(b, (PetscInt)cap));
}

/* The marks recorded so far, all complete (the stream was waited for): each interval added to the phase that ends it;
   the last mark stays as the start of the next interval */
PetscErrorCode ProfileRead(KSPIDRSProfile *pr)
{
  PetscFunctionBegin;
  for (int i = 1; i < pr->nmarks; i++) {
    float ms;

    PetscCallCUDA(cudaEventElapsedTime(&ms, (cudaEvent_t)pr->events[i - 1], (cudaEvent_t)pr->events[i]));
    pr->ms[pr->phase[i]] += ms;
  }
  if (pr->nmarks > 1) {
    void *last = pr->events[pr->nmarks - 1];

    pr->events[pr->nmarks - 1] = pr->events[0];
    pr->events[0]              = last;
    pr->phase[0]               = -1;
    pr->nmarks                 = 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The marks read outside a step's wait (not counted as one): the stream waited for first */
PetscErrorCode ProfileWaitAndRead(KSPIDRSProfile *pr)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(ProfileRead(pr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

ReduceTarget Target(const KSPIDRSDevice *dev)
{
  ReduceTarget tg;

  tg.partials = dev->d_partials;
  tg.done     = dev->d_done;
  tg.results  = dev->results;
  for (int p = 0; p <= KSPIDRS_FUSED_MAX_DOTS; p++) tg.slot[p] = p;
  return tg;
}
} // namespace

PetscErrorCode KSPIDRSDeviceCreate_CUDA(KSPIDRSDevice **pdev)
{
  KSPIDRSDevice *dev;
  int            device, sms;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dev));
  PetscCallCUDA(cudaGetDevice(&device));
  PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  dev->max_blocks = 4 * sms;
  PetscCallCUDA(cudaHostAlloc((void **)&dev->results, KSPIDRS_NUM_SLOTS * sizeof(double), cudaHostAllocMapped));
  PetscCallCUDA(cudaMalloc((void **)&dev->d_partials, (size_t)dev->max_blocks * (KSPIDRS_FUSED_MAX_DOTS + 1) * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&dev->d_done, sizeof(unsigned int)));
  PetscCallCUDA(cudaMemset(dev->d_done, 0, sizeof(unsigned int)));
  for (int p = 0; p < KSPIDRS_NUM_SLOTS; p++) dev->results[p] = 0.0;
  *pdev = dev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSDeviceDestroy_CUDA(KSPIDRSDevice **pdev)
{
  KSPIDRSDevice *dev = *pdev;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaDeviceSynchronize()); /* no kernel of ours still writes the results */
  if (dev->profile) {
    for (int i = 0; i < KSPIDRS_PROFILE_MARKS; i++) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)dev->profile->events[i]));
    PetscCall(PetscFree(dev->profile));
  }
  PetscCallCUDA(cudaFreeHost(dev->results));
  PetscCallCUDA(cudaFree(dev->d_partials));
  PetscCallCUDA(cudaFree(dev->d_done));
  PetscCall(PetscFree(*pdev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSDeviceWait_CUDA(KSPIDRSDevice *dev)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  dev->waits++;
  if (dev->profile) PetscCall(ProfileRead(dev->profile));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSProfileBegin_CUDA(KSPIDRSDevice *dev)
{
  KSPIDRSProfile *pr = dev->profile;

  PetscFunctionBegin;
  if (!pr) {
    PetscCall(PetscNew(&dev->profile));
    pr = dev->profile;
    for (int i = 0; i < KSPIDRS_PROFILE_MARKS; i++) {
      cudaEvent_t ev;

      PetscCallCUDA(cudaEventCreate(&ev));
      pr->events[i] = (void *)ev;
    }
  }
  for (int p = 0; p < KSPIDRS_NUM_PHASES; p++) pr->ms[p] = 0.0;
  pr->wait_s = pr->allreduce_s = pr->after_s = pr->since = 0.0;
  pr->nmarks                                             = 0;
  PetscCall(KSPIDRSProfileMark_CUDA(dev, KSPIDRS_PHASE_IDLE));
  pr->phase[0] = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSProfileMark_CUDA(KSPIDRSDevice *dev, KSPIDRSPhase phase)
{
  KSPIDRSProfile *pr = dev->profile;
  cudaStream_t    stream;

  PetscFunctionBegin;
  if (pr->nmarks == KSPIDRS_PROFILE_MARKS) PetscCall(ProfileWaitAndRead(pr)); /* a long stretch without a wait (KSP_NORM_NONE) */
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaEventRecord((cudaEvent_t)pr->events[pr->nmarks], stream));
  pr->phase[pr->nmarks++] = (int)phase;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSProfileEnd_CUDA(KSPIDRSDevice *dev)
{
  PetscFunctionBegin;
  PetscCall(ProfileWaitAndRead(dev->profile));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSCombine_CUDA(KSPIDRSDevice *dev, PetscInt n, PetscInt nin0, const PetscScalar a0[], const PetscScalar *const x0[], PetscScalar *out0, PetscScalar b, PetscInt nin1, const PetscScalar a1[], const PetscScalar *const x1[], PetscScalar *out1)
{
  CombineArgs  a = {};
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(nin0 >= 1 && nin0 <= KSPIDRS_FUSED_MAX_IN && nin1 >= 0 && nin1 <= KSPIDRS_FUSED_MAX_IN, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: %" PetscInt_FMT " and %" PetscInt_FMT " inputs of a combination (1..%d)", nin0, nin1, KSPIDRS_FUSED_MAX_IN);
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  a.nin0 = (int)nin0;
  a.nin1 = out1 ? (int)nin1 : 0;
  for (int j = 0; j < a.nin0; j++) {
    a.a0[j] = a0[j];
    a.x0[j] = x0[j];
  }
  for (int j = 0; j < a.nin1; j++) {
    a.a1[j] = a1[j];
    a.x1[j] = x1[j];
  }
  a.b    = b;
  a.out0 = out0;
  a.out1 = out1;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  CombineKernel<<<Blocks(n, 4 * dev->max_blocks), ThreadsPerBlock, 0, stream>>>(n, a);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * (a.nin0 + a.nin1) * n));
  dev->bytes += 8.0 * n * (a.nin0 + a.nin1 + 1 + (out1 ? 1 : 0));
  dev->launches++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSDots_CUDA(KSPIDRSDevice *dev, PetscInt n, PetscInt np, const PetscScalar *const x[], const PetscScalar *const y[])
{
  DotsArgs     a  = {};
  ReduceTarget tg = Target(dev);
  cudaStream_t stream;
  int          nb = Blocks(n, dev->max_blocks);

  PetscFunctionBegin;
  PetscCheck(np >= 1 && np <= KSPIDRS_FUSED_MAX_DOTS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: %" PetscInt_FMT " dot products in one reduction (1..%d)", np, KSPIDRS_FUSED_MAX_DOTS);
  a.np = (int)np;
  for (int p = 0; p < a.np; p++) {
    a.x[p] = x[p];
    a.y[p] = y[p];
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (np <= 4) DotsKernel<4><<<nb, ThreadsPerBlock, 0, stream>>>(n, a, tg);
  else if (np <= 8) DotsKernel<8><<<nb, ThreadsPerBlock, 0, stream>>>(n, a, tg);
  else if (np <= 16) DotsKernel<16><<<nb, ThreadsPerBlock, 0, stream>>>(n, a, tg);
  else DotsKernel<KSPIDRS_FUSED_MAX_DOTS><<<nb, ThreadsPerBlock, 0, stream>>>(n, a, tg);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * np * n));
  /* distinct vectors read: the y of a group of products against P is one vector, counted once */
  {
    int distinct = 0;
    for (int p = 0; p < a.np; p++) {
      bool seen = false;
      for (int q = 0; q < p && !seen; q++) seen = (a.x[q] == a.x[p] || a.y[q] == a.x[p]);
      distinct += !seen;
      seen = (a.y[p] == a.x[p]);
      for (int q = 0; q < p && !seen; q++) seen = (a.x[q] == a.y[p] || a.y[q] == a.y[p]);
      distinct += !seen;
    }
    dev->bytes += 8.0 * n * distinct;
  }
  dev->launches++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSStepUpdate_CUDA(KSPIDRSDevice *dev, PetscInt n, PetscInt k, const PetscScalar alpha[], PetscScalar beta, const PetscScalar *const G[], const PetscScalar *const U[], const PetscScalar *const Z[], PetscScalar *gk, PetscScalar *uk, PetscScalar *zk, PetscScalar *r, PetscScalar *x, PetscScalar *rt, PetscBool norm)
{
  StepArgs     a  = {};
  ReduceTarget tg = Target(dev);
  cudaStream_t stream;
  int          nv = zk ? 3 : 2;

  PetscFunctionBegin;
  PetscCheck(k >= 0 && k < KSPIDRS_FUSED_MAX_S, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: step %" PetscInt_FMT " of a fused cycle (0..%d)", k, KSPIDRS_FUSED_MAX_S - 1);
  PetscCheck(!zk == !rt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: zk and rt come together");
  a.k    = (int)k;
  a.norm = norm ? 1 : 0;
  a.beta = beta;
  for (int j = 0; j < a.k; j++) {
    a.alpha[j] = alpha[j];
    a.G[j]     = G[j];
    a.U[j]     = U[j];
    a.Z[j]     = Z ? Z[j] : NULL;
  }
  a.gk       = gk;
  a.uk       = uk;
  a.zk       = zk;
  a.r        = r;
  a.x        = x;
  a.rt       = rt;
  tg.slot[0] = KSPIDRS_SLOT_NORM;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  StepUpdateKernel<<<Blocks(n, dev->max_blocks), ThreadsPerBlock, 0, stream>>>(n, a, tg);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((2.0 * k * nv + 2.0 * nv + 2.0) * n));
  /* read: the k earlier basis vectors of each kind and the new ones, r, x (and rt); written: the new ones when k > 0, r, x (and rt) */
  dev->bytes += 8.0 * n * (nv * (k + 1) + (k ? nv : 0) + 2.0 * (nv == 3 ? 3 : 2));
  dev->launches++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode KSPIDRSOmegaUpdate_CUDA(KSPIDRSDevice *dev, PetscInt n, PetscScalar omega, const PetscScalar *w, const PetscScalar *t, const PetscScalar *zt, PetscScalar *x, PetscScalar *r, PetscScalar *rt, PetscBool norm)
{
  OmegaArgs    a  = {};
  ReduceTarget tg = Target(dev);
  cudaStream_t stream;
  int          nb = Blocks(n, dev->max_blocks);

  PetscFunctionBegin;
  PetscCheck(!zt == !rt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPIDRS: zt and rt come together");
  a.norm     = norm ? 1 : 0;
  a.omega    = omega;
  a.w        = w;
  a.t        = t;
  a.zt       = zt;
  a.x        = x;
  a.r        = r;
  a.rt       = rt;
  tg.slot[0] = KSPIDRS_SLOT_NORM;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  OmegaUpdateKernel<<<nb, ThreadsPerBlock, 0, stream>>>(n, a, tg);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((4.0 + (rt ? 2.0 : 0.0) + (norm ? 2.0 : 0.0)) * n));
  dev->bytes += 8.0 * n * (4.0 + (rt ? 3.0 : 0.0) + 2.0);
  dev->launches++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
