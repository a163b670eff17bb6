/* Host side of the vbjacobi launches (vbjacobi_cuda.cu, vbjacobi_blocks.cu): the one place that maps a run-time
   power-of-two lane count (1..32) to the template instance of a kernel. */
#pragma once
#include <petscsys.h>
#include <type_traits>

namespace pbg::vbj
{

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
} // namespace pbg::vbj
