/* Launchers of the value kernels of MatConvert() between MATSEQAIJCUSPARSE and MATSEQBAIJKSPARSE (kernels in
   baijksparse_convert_kernels.cuh, host logic in ../baijksparse_convert.c). */
#include "baijksparse_convert_kernels.cuh"

using namespace pbg::baijk;

static unsigned GridFor(long long n, int threads)
{
  return (unsigned)PetscMin((n + threads - 1) / threads, (long long)1 << 30); /* grid-stride beyond */
}

PetscErrorCode MatBAIJKSPARSEConvertCSRToBSR_CUDA(int bs, int m, PetscInt64 nnz, const int *ci, const int *cj, const PetscScalar *ca, int nzb, const int *rowptr, const int *colidx, PetscScalar *val, cudaStream_t stream)
{
  const int threads = 256;

  PetscFunctionBegin;
  if (nzb) PetscCallCUDA(cudaMemsetAsync(val, 0, (size_t)nzb * bs * bs * sizeof(PetscScalar), stream));
  if (nnz > 0) {
    CSRToBSRKernel<<<GridFor(nnz, threads), threads, 0, stream>>>(bs, bs, m, (long long)nnz, ci, cj, ca, rowptr, colidx, val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatBAIJKSPARSEConvertBSRToCSR_CUDA(int bs, int mbs, int nzb, const int *rowptr, const PetscScalar *val, PetscScalar *a, cudaStream_t stream)
{
  const int       threads = 256;
  const long long n       = (long long)nzb * bs * bs;

  PetscFunctionBegin;
  if (n > 0) {
    BSRToCSRKernel<<<GridFor(n, threads), threads, 0, stream>>>(bs, bs, mbs, n, rowptr, val, a);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
