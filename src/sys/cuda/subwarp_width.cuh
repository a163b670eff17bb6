/* Host side of the sub-warp launches (the batched inversion, invert_batched.cuh; PCVBJACOBI's vbjacobi_cuda.cu and
   vbjacobi_blocks.cu): the one place that maps a run-time power-of-two lane count (1..32) to the template instance of a
   kernel. */
#pragma once
#include <petscsys.h>
#include <type_traits>

namespace pbg::gj
{
/* The sub-warp width of blocks of at most maxk rows: the next power of two, 1..32 */
constexpr int SubwarpWidth(PetscInt maxk)
{
  return maxk <= 1 ? 1 : maxk <= 2 ? 2 : maxk <= 4 ? 4 : maxk <= 8 ? 8 : maxk <= 16 ? 16 : 32;
}

/* Calls f(std::integral_constant<int, P>) for the run-time width P: 1, 2, 4, 8, 16, else 32 */
template <class F>
static PetscErrorCode ForSubwarpWidth(int P, F f)
{
  PetscFunctionBegin;
  switch (P) {
  case 1:
    PetscCall(f(std::integral_constant<int, 1>()));
    break;
  case 2:
    PetscCall(f(std::integral_constant<int, 2>()));
    break;
  case 4:
    PetscCall(f(std::integral_constant<int, 4>()));
    break;
  case 8:
    PetscCall(f(std::integral_constant<int, 8>()));
    break;
  case 16:
    PetscCall(f(std::integral_constant<int, 16>()));
    break;
  default:
    PetscCall(f(std::integral_constant<int, 32>()));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace pbg::gj
