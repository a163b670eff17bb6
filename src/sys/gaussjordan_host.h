/* The host twin of the batched Gauss-Jordan elimination with implicit pivoting of src/sys/cuda/gaussjordan.cuh (pbg::gj):
   one n x n column-major block inverted in place by the same algorithm, the same pivots and the same failure rule, so
   that a host setup and a device one store the same inverses and report the same info. Header-only, on PETSc's scalars
   (C and C++): PCVBJACOBI's host path (vbjacobi.c) and the emulator test of the device kernels
   (tests/test_emu_vbjacobi.cxx, its reference) include it. */
#pragma once

#include <petscsys.h>
#include <petscblockgpu.h> /* PC_VBJACOBI_INFO_INVERSE_NOT_FINITE, the info code of an overflowing inverse */

/* Gauss-Jordan elimination with implicit pivoting (Anzt, Dongarra, Flegar, Quintana-Orti 2018, Fig. 2): the pivot row
   of column k is the row, among those not yet used, with the largest entry in column k; rows are never swapped.
   Afterwards the storage S holds the inverse up to a permutation, inv(A)[k][ipiv[j]] = S[ipiv[k]][j], undone at the
   end through buf. A pivot is taken as zero below n eps times the largest entry of its own row (rounding alone makes
   the pivots of a singular block that small; relative to the row, so that merged blocks of very different scale do not
   fail each other). Work: ipiv[n], used[n], tiny[n], buf[n n].
   Returns the info: 0; k + 1 when the pivot of column k is zero or tiny; -1 when the block holds NaN or Inf;
   PC_VBJACOBI_INFO_INVERSE_NOT_FINITE when the block is finite but its inverse is not (it overflows). A is the inverse
   only for info 0. */
static inline PetscInt PetscBlockGPUInvertBlock_Host(PetscInt n, PetscScalar *A, PetscInt *ipiv, PetscInt *used, PetscReal *tiny, PetscScalar *buf)
{
  for (PetscInt i = 0; i < n; i++) tiny[i] = 0.0;
  for (PetscInt i = 0; i < n * n; i++) {
    if (PetscIsInfOrNanScalar(A[i])) return -1;
    tiny[i % n] = PetscMax(tiny[i % n], PetscAbsScalar(A[i]));
  }
  for (PetscInt i = 0; i < n; i++) tiny[i] *= (PetscReal)n * PETSC_MACHINE_EPSILON;
  for (PetscInt i = 0; i < n; i++) used[i] = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscInt    p    = -1;
    PetscReal   best = -1.0;
    PetscScalar d;

    for (PetscInt i = 0; i < n; i++) {
      if (!used[i] && PetscAbsScalar(A[i + k * n]) > best) {
        best = PetscAbsScalar(A[i + k * n]);
        p    = i;
      }
    }
    if (!(p >= 0 && best > tiny[p])) return k + 1;
    used[p] = 1;
    ipiv[k] = p;
    d       = 1.0 / A[p + k * n];
    for (PetscInt j = 0; j < n; j++) A[p + j * n] *= d;
    A[p + k * n] = d;
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar f;

      if (i == p) continue;
      f = A[i + k * n];
      for (PetscInt j = 0; j < n; j++) A[i + j * n] -= f * A[p + j * n];
      A[i + k * n] = -f * d;
    }
  }
  for (PetscInt k = 0; k < n; k++) /* undo the implicit pivoting */
    for (PetscInt j = 0; j < n; j++) buf[k + ipiv[j] * n] = A[ipiv[k] + j * n];
  for (PetscInt i = 0; i < n * n; i++) A[i] = buf[i];
  /* a finite block can still have an inverse that overflows (entries of 1e-310: pivots above the relative threshold,
     reciprocals Inf); it must not pass as a preconditioner */
  for (PetscInt i = 0; i < n * n; i++)
    if (PetscIsInfOrNanScalar(A[i])) return PC_VBJACOBI_INFO_INVERSE_NOT_FINITE;
  return 0;
}
