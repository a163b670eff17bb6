/* K2 instances of MATSEQBAIJKSPARSE for bs 2..23 (bs 24..45 are in baijksparse_k2hi.cu, so that the two build
   in parallel); the kernel template is in baijksparse_kernels.cuh. */
#include <utility>
#include "baijksparse_kernels.cuh"

PetscErrorCode MatBAIJKSPARSEMultK2Lo_CUDA(const MatBAIJKSPARSEParams *p, const MatBAIJKSPARSEMultArgs *a, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(pbg::baijk::K2DispatchImpl<2>(std::make_integer_sequence<int, MAT_BAIJKSPARSE_K2_LO_MAX_BS - 1>{}, p, a, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
