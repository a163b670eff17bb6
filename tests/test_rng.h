/* The random numbers of the test programs: xorshift64 on a state the caller keeps, so that every rank draws the same
   sequence for the same seed (test_random_diff.c, test_baijksparse_values.c) */
#pragma once
#include <petscsys.h>

static inline PetscInt64 NextRand(PetscInt64 *s)
{
  unsigned long long x = (unsigned long long)*s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = (PetscInt64)(x & 0x7fffffffffffffffULL);
  return *s;
}
static inline PetscInt RandInt(PetscInt64 *s, PetscInt n) /* in [0, n) */
{
  return (PetscInt)(NextRand(s) % (PetscInt64)n);
}
static inline PetscReal RandReal(PetscInt64 *s) /* in [-1, 1) */
{
  return (PetscReal)(NextRand(s) % 2000001) / 1000000.0 - 1.0;
}
