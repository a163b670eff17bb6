/* The device part of MATSOLVERPBGDENSE (host logic in ../pbgdense.c): the dense copy of a BSR matrix, its inverse by
   cuSOLVER, and the products by cuBLAS, all on PETSc's current stream. */
#include <petscdevice_cuda.h>
#include "../pbgdense.h"

struct _n_PBGDenseWork {
  PetscInt     n;
  int         *ipiv, *info, lwork;
  PetscScalar *buf, *lwork_buf;
};

namespace pbg
{
namespace dense
{
/* One thread an entry of a stored block: the block row by binary search in rowptr */
static __global__ void DenseFromBSRKernel(int bs, int mbs, long long nentries, const int *rowptr, const int *colidx, const PetscScalar *val, long long n, PetscScalar *a)
{
  const int bs2 = bs * bs;

  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < nentries; t += (long long)gridDim.x * blockDim.x) {
    const int blk = (int)(t / bs2), e = (int)(t % bs2), i = e % bs, j = e / bs; /* column-major within the block */
    int       lo = 0, hi = mbs - 1;

    while (lo < hi) { /* the last block row whose start is <= blk */
      const int mid = (lo + hi + 1) / 2;
      if (rowptr[mid] <= blk) lo = mid;
      else hi = mid - 1;
    }
    a[((long long)colidx[blk] * bs + j) * n + (long long)lo * bs + i] = val[t];
  }
}

/* The identity into a[n x n] (column-major) */
static __global__ void IdentityKernel(long long n, PetscScalar *a)
{
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n * n; t += (long long)gridDim.x * blockDim.x) a[t] = (t % n == t / n) ? 1.0 : 0.0;
}

} // namespace dense
} // namespace pbg

using namespace pbg::dense;

static unsigned GridFor(long long n, int threads)
{
  return (unsigned)PetscMax(1, PetscMin((n + threads - 1) / threads, (long long)65535 * 16));
}

PetscErrorCode PBGDenseFromBSR_CUDA(PetscInt bs, PetscInt mbs, PetscInt nz, const int *rowptr, const int *colidx, const PetscScalar *val, PetscScalar *a)
{
  cudaStream_t    stream;
  const long long n = (long long)bs * mbs, ne = (long long)nz * bs * bs;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemsetAsync(a, 0, (size_t)(n * n) * sizeof(PetscScalar), stream));
  if (ne > 0) {
    DenseFromBSRKernel<<<GridFor(ne, 256), 256, 0, stream>>>((int)bs, (int)mbs, ne, rowptr, colidx, val, n, a);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBGDenseCopy_CUDA(PetscInt n, const PetscScalar *src, PetscScalar *dst)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(dst, src, sizeof(PetscScalar) * n * n, cudaMemcpyDeviceToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBGDenseWorkDestroy_CUDA(PBGDenseWork *work)
{
  PetscFunctionBegin;
  if (*work) {
    PetscCallCUDA(cudaFree((*work)->ipiv));
    PetscCallCUDA(cudaFree((*work)->info));
    PetscCallCUDA(cudaFree((*work)->buf));
    PetscCallCUDA(cudaFree((*work)->lwork_buf));
    PetscCall(PetscFree(*work));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBGDenseInvert_CUDA(PetscInt n, PetscScalar *a, PBGDenseWork *work, PetscInt *zero_pivot_row)
{
  cusolverDnHandle_t h;
  cudaStream_t       stream;
  PBGDenseWork       w;
  int                info = 0, in = (int)n;

  PetscFunctionBegin;
  *zero_pivot_row = -1;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCUSOLVERDnGetHandle(&h));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUSOLVER(cusolverDnSetStream(h, stream));
  if (*work && (*work)->n < n) PetscCall(PBGDenseWorkDestroy_CUDA(work));
  if (!*work) { /* once a factor: the factorization of each new coarse operator reuses it */
    PetscCall(PetscNew(work));
    w    = *work;
    w->n = n;
    PetscCallCUDA(cudaMalloc((void **)&w->ipiv, sizeof(int) * n));
    PetscCallCUDA(cudaMalloc((void **)&w->info, sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&w->buf, sizeof(PetscScalar) * n * n));
    PetscCallCUSOLVER(cusolverDnDgetrf_bufferSize(h, in, in, a, in, &w->lwork));
    PetscCallCUDA(cudaMalloc((void **)&w->lwork_buf, sizeof(PetscScalar) * PetscMax(w->lwork, 1)));
  }
  w = *work;
  PetscCallCUSOLVER(cusolverDnDgetrf(h, in, in, a, in, w->lwork_buf, w->ipiv, w->info));
  PetscCallCUDA(cudaMemcpyAsync(&info, w->info, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* once a factorization: a zero pivot must be known before the inverse */
  PetscCheck(info >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusolverDnDgetrf: argument %d is wrong", -info);
  if (info > 0) {
    *zero_pivot_row = info - 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  IdentityKernel<<<GridFor((long long)n * n, 256), 256, 0, stream>>>(n, w->buf);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUSOLVER(cusolverDnDgetrs(h, CUBLAS_OP_N, in, in, a, in, w->ipiv, w->buf, in, w->info));
  PetscCallCUDA(cudaMemcpyAsync(a, w->buf, sizeof(PetscScalar) * n * n, cudaMemcpyDeviceToDevice, stream));
  PetscCall(PetscLogGpuFlops(2.0 * n * n * n / 3.0 + 2.0 * n * n * n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBGDenseApply_CUDA(PetscInt n, const PetscScalar *inv, PetscBool trans, PetscInt nrhs, const PetscScalar *x, PetscInt ldx, PetscScalar *y, PetscInt ldy)
{
  cublasHandle_t    h;
  cudaStream_t      stream;
  const PetscScalar one = 1.0, zero = 0.0;
  const int         in = (int)n;

  PetscFunctionBegin;
  if (!n || !nrhs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCUBLASGetHandle(&h));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUBLAS(cublasSetStream(h, stream));
  if (nrhs == 1) PetscCallCUBLAS(cublasDgemv(h, trans ? CUBLAS_OP_T : CUBLAS_OP_N, in, in, &one, inv, in, x, 1, &zero, y, 1));
  else PetscCallCUBLAS(cublasDgemm(h, trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, in, (int)nrhs, in, &one, inv, in, x, (int)ldx, &zero, y, (int)ldy));
  PetscCall(PetscLogGpuFlops(2.0 * n * n * nrhs));
  PetscFunctionReturn(PETSC_SUCCESS);
}
