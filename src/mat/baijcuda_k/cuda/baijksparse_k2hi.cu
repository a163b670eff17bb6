/* K2 instances of MATSEQBAIJKSPARSE for bs 24..45 (bs 2..23 are in baijksparse_k2lo.cu); the kernel template is
   in baijksparse_kernels.cuh. */
#include <utility>
#include "baijksparse_kernels.cuh"

PetscErrorCode MatBAIJKSPARSEMultK2Hi_CUDA(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(pbg::baijk::K2DispatchImpl<MAT_BAIJKSPARSE_K2_LO_MAX_BS + 1>(std::make_integer_sequence<int, MAT_BAIJKSPARSE_K2_MAX_BS - MAT_BAIJKSPARSE_K2_LO_MAX_BS>{}, p, a, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
