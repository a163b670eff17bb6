/* Launchers of MATSEQBAIJKSPARSE: the scalar, K1 and K3 kernels, the dispatch to the K2 instances, the reduction
   of balanced rows, the atomic transpose product and the values of the explicit transpose. The kernel templates are in baijksparse_kernels.cuh. */
#include <utility>
#include <cstdio>
#include "baijksparse_kernels.cuh"

using namespace pbg::baijk;

static inline size_t K3SharedBytes(int bs, int ept, int warps)
{
  return ((size_t)warps * 2 * bs + (size_t)warps * 32 * ept) * sizeof(Scalar);
}

#define PBG_K3_MAX_SHARED (48 * 1024)

PetscBool MatBAIJKSPARSEParamsValid(const MatBAIJKSPARSEParams *p, int bs, char *msg, size_t len)
{
  char buf[256] = "";

  switch (p->kernel) {
  case MAT_BAIJKSPARSE_KERNEL_SCALAR:
    if (bs != 1) snprintf(buf, sizeof(buf), "the scalar kernel needs bs 1, not %d", bs);
    else if (p->lanes != 2 && p->lanes != 4 && p->lanes != 8 && p->lanes != 16 && p->lanes != 32) snprintf(buf, sizeof(buf), "lanes %d is not 2, 4, 8, 16 or 32", p->lanes);
    else if (p->warps < 1 || p->warps > 32) snprintf(buf, sizeof(buf), "warps %d is not in 1..32", p->warps);
    break;
  case MAT_BAIJKSPARSE_KERNEL_K1:
    if (bs < 1 || bs > MAT_BAIJKSPARSE_K1_MAX_BS) snprintf(buf, sizeof(buf), "K1 serves bs 1..%d, not %d", MAT_BAIJKSPARSE_K1_MAX_BS, bs);
    else if (p->ept != 1 && p->ept != bs) snprintf(buf, sizeof(buf), "K1 takes ept 1 (an element per lane) or %d (a column per lane), not %d", bs, p->ept);
    else if (p->lanes != 8 && p->lanes != 16 && p->lanes != 32) snprintf(buf, sizeof(buf), "K1 takes 8, 16 or 32 lanes per block row, not %d", p->lanes);
    else if (p->lanes < MatBAIJKSPARSEK1LanesPerBlock(p, bs)) snprintf(buf, sizeof(buf), "K1 with bs %d needs at least %d lanes per block row, not %d", bs, bs * bs > 16 ? 32 : (bs * bs > 8 ? 16 : 8), p->lanes);
    else if (p->warps < 1 || p->warps > 32) snprintf(buf, sizeof(buf), "warps %d is not in 1..32", p->warps);
    break;
  case MAT_BAIJKSPARSE_KERNEL_K2: {
    const int maxept = bs >= 6 ? MAT_BAIJKSPARSE_MAX_EPT : 2;
    if (bs < 2 || bs > MAT_BAIJKSPARSE_K2_MAX_BS) snprintf(buf, sizeof(buf), "K2 serves bs 2..%d, not %d", MAT_BAIJKSPARSE_K2_MAX_BS, bs);
    else if (p->ept < 1 || p->ept > maxept) snprintf(buf, sizeof(buf), "K2 with bs %d takes ept 1..%d, not %d", bs, maxept, p->ept);
    else if (p->warps < 1 || 32 * p->warps < (bs + p->ept - 1) / p->ept) snprintf(buf, sizeof(buf), "K2 with bs %d, ept %d needs at least %d warp(s) per block row, not %d", bs, p->ept, ((bs + p->ept - 1) / p->ept + 31) / 32, p->warps);
    else if (p->teams < 1 || p->teams > MAT_BAIJKSPARSE_K2_MAX_TEAMS) snprintf(buf, sizeof(buf), "teams %d is not in 1..%d", p->teams, MAT_BAIJKSPARSE_K2_MAX_TEAMS);
    else if (32 * p->warps * p->teams > 512) snprintf(buf, sizeof(buf), "%d warps x %d teams exceed 512 threads", p->warps, p->teams);
  } break;
  case MAT_BAIJKSPARSE_KERNEL_K3:
    if (bs < 1) snprintf(buf, sizeof(buf), "bad bs %d", bs);
    else if (p->ept < 1 || p->ept > MAT_BAIJKSPARSE_MAX_EPT) snprintf(buf, sizeof(buf), "K3 takes ept 1..%d, not %d", MAT_BAIJKSPARSE_MAX_EPT, p->ept);
    else if (p->warps < 1 || p->warps > 16) snprintf(buf, sizeof(buf), "K3 takes 1..16 warps, not %d", p->warps);
    else if (K3SharedBytes(bs, p->ept, p->warps) > PBG_K3_MAX_SHARED) snprintf(buf, sizeof(buf), "K3 with bs %d, %d warps needs %zu bytes of shared memory (at most %d)", bs, p->warps, K3SharedBytes(bs, p->ept, p->warps), PBG_K3_MAX_SHARED);
    break;
  default:
    snprintf(buf, sizeof(buf), "not a device kernel");
  }
  if (msg && len) snprintf(msg, len, "%s", buf);
  return buf[0] ? PETSC_FALSE : PETSC_TRUE;
}

template <int G>
static PetscErrorCode ScalarLaunch(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  const int      perblock = 32 * p->warps / G;
  const unsigned grid     = (unsigned)((a->nwork + perblock - 1) / perblock);

  PetscFunctionBegin;
  ScalarKernel<G><<<grid, 32 * p->warps, 0, stream>>>(*a);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* K1 with S lanes per work item: an element per lane (ept 1), or a column per lane (ept bs) */
template <int BS, int S>
static PetscErrorCode K1LaunchS(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  const int      perblock = p->warps * (32 / S);
  const unsigned grid     = (unsigned)((a->nwork + perblock - 1) / perblock);

  PetscFunctionBegin;
  if constexpr (BS > 1) {
    if (p->ept == BS) K1ColumnKernel<BS, S><<<grid, 32 * p->warps, 0, stream>>>(*a);
  }
  if constexpr (BS * BS <= S) {
    if (p->ept == 1) K1Kernel<BS, S><<<grid, 32 * p->warps, 0, stream>>>(*a);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sub-warp sizes 8, 16, 32 (MatBAIJKSPARSEParamsValid() has checked that they hold a block, or its columns) */
template <int BS>
static PetscErrorCode K1Launch(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  PetscFunctionBegin;
  switch (p->lanes) {
  case 8:
    PetscCall(K1LaunchS<BS, 8>(p, a, stream));
    break;
  case 16:
    PetscCall(K1LaunchS<BS, 16>(p, a, stream));
    break;
  default:
    PetscCall(K1LaunchS<BS, 32>(p, a, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int EPT>
static PetscErrorCode K3Launch(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  const dim3 grid((unsigned)a->nwork, (unsigned)((a->bs + 32 * EPT - 1) / (32 * EPT)));

  PetscFunctionBegin;
  PetscCheck(grid.y <= 65535, PETSC_COMM_SELF, PETSC_ERR_SUP, "K3: block size %d too large", a->bs);
  K3Kernel<EPT><<<grid, 32 * p->warps, K3SharedBytes(a->bs, EPT, p->warps), stream>>>(*a);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEMult_CUDA(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  char msg[256];

  PetscFunctionBegin;
  PetscCheck(MatBAIJKSPARSEParamsValid(p, a->bs, msg, sizeof(msg)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Invalid baijksparse kernel parameters: %s", msg);
  if (a->nwork == 0) PetscFunctionReturn(PETSC_SUCCESS);
  switch (p->kernel) {
  case MAT_BAIJKSPARSE_KERNEL_SCALAR:
    switch (p->lanes) {
    case 2:
      PetscCall(ScalarLaunch<2>(p, a, stream));
      break;
    case 4:
      PetscCall(ScalarLaunch<4>(p, a, stream));
      break;
    case 8:
      PetscCall(ScalarLaunch<8>(p, a, stream));
      break;
    case 16:
      PetscCall(ScalarLaunch<16>(p, a, stream));
      break;
    default:
      PetscCall(ScalarLaunch<32>(p, a, stream));
      break;
    }
    break;
  case MAT_BAIJKSPARSE_KERNEL_K1:
    switch (a->bs) {
    case 1:
      PetscCall(K1Launch<1>(p, a, stream));
      break;
    case 2:
      PetscCall(K1Launch<2>(p, a, stream));
      break;
    case 3:
      PetscCall(K1Launch<3>(p, a, stream));
      break;
    case 4:
      PetscCall(K1Launch<4>(p, a, stream));
      break;
    default:
      PetscCall(K1Launch<5>(p, a, stream));
      break;
    }
    break;
  case MAT_BAIJKSPARSE_KERNEL_K2:
    if (a->bs <= MAT_BAIJKSPARSE_K2_LO_MAX_BS) PetscCall(MatBAIJKSPARSEMultK2Lo_CUDA(p, a, stream));
    else PetscCall(MatBAIJKSPARSEMultK2Hi_CUDA(p, a, stream));
    break;
  case MAT_BAIJKSPARSE_KERNEL_K3:
    switch (p->ept) {
    case 1:
      PetscCall(K3Launch<1>(p, a, stream));
      break;
    case 2:
      PetscCall(K3Launch<2>(p, a, stream));
      break;
    case 3:
      PetscCall(K3Launch<3>(p, a, stream));
      break;
    default:
      PetscCall(K3Launch<4>(p, a, stream));
      break;
    }
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Not a device kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace pbg
{
namespace baijk
{
/* One thread per (split row, component): y = sum of the row's partial results (+ z). Deterministic order. */
__global__ static void ReduceKernel(int bs, int nsplit, const int *__restrict__ splitrow, const int *__restrict__ splitslot, const Scalar *__restrict__ work, const Scalar *z, Scalar *y)
{
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

  if (tid < (size_t)nsplit * bs) {
    const int    t = (int)(tid / bs), i = (int)(tid % bs);
    const size_t o = (size_t)__ldg(splitrow + t) * bs + i;
    Scalar       s = 0;

    for (int q = __ldg(splitslot + t); q < __ldg(splitslot + t + 1); q++) s += work[(size_t)q * bs + i];
    y[o] = z ? s + z[o] : s;
  }
}
} // namespace baijk
} // namespace pbg

PetscErrorCode MatBAIJKSPARSEReduce_CUDA(int bs, int nsplit, const int *splitrow, const int *splitslot, const PetscScalar *work, const PetscScalar *z, PetscScalar *y, cudaStream_t stream)
{
  const size_t n = (size_t)nsplit * bs;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  ReduceKernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(bs, nsplit, splitrow, splitslot, work, z, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSETransposeBlocks_CUDA(int bs, int nz, const int *perm, const PetscScalar *val, PetscScalar *tval, cudaStream_t stream)
{
  const long long n = (long long)nz * bs * bs;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  TransposeBlocksKernel<0><<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(bs, n, perm, val, tval);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEMultTransposeAtomic_CUDA(int bs, int mbs, const int *rowptr, const int *colidx, const PetscScalar *val, const PetscScalar *x, PetscScalar *y, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!mbs) PetscFunctionReturn(PETSC_SUCCESS);
  if (bs == 1) MultTransposeAtomicKernel<1><<<(unsigned)((mbs + 7) / 8), 256, 0, stream>>>(bs, mbs, rowptr, colidx, val, x, y);
  else MultTransposeAtomicKernel<0><<<(unsigned)((mbs + 7) / 8), 256, 0, stream>>>(bs, mbs, rowptr, colidx, val, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
