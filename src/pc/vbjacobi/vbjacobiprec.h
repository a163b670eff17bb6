/* Storage precision of the PCVBJACOBI inverses, shared by the host path (vbjacobi.c), the device kernels
   (cuda/vbjacobi_kernels.cuh) and the host warp emulator of the tests: plain C with no PETSc types, so that all three
   make the same choices and the host stores the same bits as the device.

   The inverse of a block is always computed in FP64; only what is stored changes: FP64, FP32 or IEEE binary16, with
   one power-of-two scale per block for the reduced types (sexp[b]: the block is stored as inv * 2^-sexp[b], its
   largest entry in [0.5, 1), and the apply multiplies its FP64 result by 2^sexp[b]). The scale is exact, so it changes
   no value, and a reduced type never overflows or loses a block to subnormals: an inverse with entries of 1e6 or
   1e-30 is stored in half as well as one with entries near 1 (|entry| > 65504 would overflow half, and below 6.1e-5 it
   loses bits).

   A scale does not help a block whose inverse spans many orders of magnitude: the rounding of each stored entry perturbs
   the inverse by u ||A^{-1}||, so the stored S has ||I - S A||_1 <~ u cond_1(A). Once u cond_1 nears 1, S can be singular
   (an inverse spanning more than 2^24 even loses entries to zero in half), and a left-preconditioned Krylov method then
   "converges" to a wrong answer. So a type is used for a block only where it holds the inverse: u cond_1 < 1/2
   (PBG_HOLD_LIMIT; half for cond_1 < 1024, single for cond_1 < 8.4e6). -pc_vbjacobi_precision half or single is the
   narrowest type a block is stored in; a block that type cannot hold takes the next wider one that can, as adaptive
   does. */
#pragma once
#include <stdint.h>
#include <string.h>
#include <math.h>

#if defined(__CUDACC__)
  #define PBG_PREC_HD __host__ __device__
#else
  #define PBG_PREC_HD
#endif

/* the storage of a block, the values of PCVBJacobiPrecision (petscblockgpu.h checks them with static asserts) */
#define PBG_STORE_DOUBLE   0
#define PBG_STORE_SINGLE   1
#define PBG_STORE_HALF     2
#define PBG_STORE_ADAPTIVE 3 /* a mode only: each block is then stored in one of the three above */

/* unit roundoffs (round to nearest): 2^-53, 2^-24, 2^-11, powers of two so that cond * u is exact */
#define PBG_UNIT_ROUNDOFF_DOUBLE 1.1102230246251565e-16
#define PBG_UNIT_ROUNDOFF_SINGLE 5.9604644775390625e-08
#define PBG_UNIT_ROUNDOFF_HALF   4.8828125e-04

/* A type holds the inverse of a block of condition estimate cond when u cond stays below this: ||I - S A||_1 < 1/2 for
   the stored inverse S, which is then nonsingular, and the preconditioned block within 1/2 of the identity */
#define PBG_HOLD_LIMIT 0.5

/* Bytes of one stored entry under a mode: the layout is compact (entry offset * this) for double, single and half;
   adaptive keeps the double layout, each block at the start of its FP64 slot in its own type (see vbjacobi_cuda.cu) */
static inline PBG_PREC_HD int PCVBJacobiSlotBytes(int mode)
{
  return mode == PBG_STORE_SINGLE ? 4 : mode == PBG_STORE_HALF ? 2 : 8;
}

/* Bytes of one entry stored in type t (DOUBLE, SINGLE or HALF) */
static inline PBG_PREC_HD int PCVBJacobiTypeBytes(int t)
{
  return t == PBG_STORE_SINGLE ? 4 : t == PBG_STORE_HALF ? 2 : 8;
}

/* The type of a block under mode, from its condition estimate cond = ||A||_1 ||A^{-1}||_1: the lowest precision, no lower
   than a fixed mode's own, whose unit roundoff times cond stays below tol (adaptive, Ginkgo's rule) and below
   PBG_HOLD_LIMIT (every mode), else double. So double and a well-conditioned block keep a fixed mode's type; a block
   whose inverse half (single) cannot hold goes wider. cond * u is exact (u is a power of two), so host and device agree
   whenever their estimates do; a NaN estimate keeps double. The estimates of host and device can differ in the last bits (summation order, FMA in the elimination):
   a block whose estimate lies within a few ulps of tol / u can be classified differently; the tests build blocks far
   from those thresholds, and the GPU tests count the blocks whose choice differs between the two. */
static inline PBG_PREC_HD int PCVBJacobiChooseType(int mode, double tol, double cond)
{
  const double limit = mode == PBG_STORE_ADAPTIVE ? (tol < PBG_HOLD_LIMIT ? tol : PBG_HOLD_LIMIT) : PBG_HOLD_LIMIT;

  if (mode == PBG_STORE_DOUBLE) return PBG_STORE_DOUBLE;
  if ((mode == PBG_STORE_HALF || mode == PBG_STORE_ADAPTIVE) && cond * PBG_UNIT_ROUNDOFF_HALF < limit) return PBG_STORE_HALF;
  if (cond * PBG_UNIT_ROUNDOFF_SINGLE < limit) return PBG_STORE_SINGLE;
  return PBG_STORE_DOUBLE;
}

/* Whether a layout can take a block of type t: the ADAPTIVE layout (FP64 slots, a type per block) takes any, a compact
   one (a fixed mode's: DOUBLE, SINGLE or HALF) only its own type. A fixed reduced mode whose rule picks a wider type for
   some block is set up again in the ADAPTIVE layout (host: vbjacobi.c; device: the kernels' StoredType()). */
static inline PBG_PREC_HD int PCVBJacobiLayoutTakes(int layout, int t)
{
  return layout == PBG_STORE_ADAPTIVE || t == layout;
}

/* The power-of-two scale exponent of a block stored in type t whose largest |entry| is maxabs: frexp's, so that the
   scaled largest entry is in [0.5, 1); 0 for double (not scaled) and for a zero or non-finite maxabs */
static inline PBG_PREC_HD int PCVBJacobiScaleExponent(int t, double maxabs)
{
  int e = 0;

  if (t == PBG_STORE_DOUBLE || !(maxabs > 0.0) || !(maxabs <= 1.79769313486231570815e+308)) return 0;
  (void)frexp(maxabs, &e);
  return e;
}

/* IEEE binary16 bits of d, rounded to nearest even directly from FP64 (not through FP32, which would round twice):
   what __double2half() (cvt.rn.f16.f64) gives on the device. Overflow gives Inf, NaN a quiet NaN. */
static inline uint16_t PCVBJacobiDoubleToHalfBits(double d)
{
  uint64_t u, a, m, rem, halfway, q;
  uint16_t sign;
  int      e, shift;

  memcpy(&u, &d, sizeof(u));
  sign = (uint16_t)((u >> 48) & 0x8000u);
  a    = u & 0x7fffffffffffffffull;
  if (a >= 0x7ff0000000000000ull) return (uint16_t)(sign | 0x7c00u | (a > 0x7ff0000000000000ull ? 0x200u : 0u));
  e = (int)(a >> 52);
  if (e == 0) return sign;                     /* FP64 subnormal: far below half's smallest subnormal 2^-24 */
  m = (a & 0xfffffffffffffull) | (1ull << 52); /* d = m 2^(e - 1075) */
  if (e - 1023 + 15 >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e - 1023 + 15 >= 1) { /* normal range of half: keep 11 significant bits; a carry moves into the exponent (to Inf at the top) */
    q       = (uint64_t)(e - 1023 + 15) << 10 | ((m >> 42) & 0x3ffu);
    rem     = m & ((1ull << 42) - 1);
    halfway = 1ull << 41;
  } else { /* subnormal range: multiples of 2^-24, the count is m 2^(e - 1075 + 24) */
    shift = 1051 - e;
    if (shift >= 64) return sign;
    q       = m >> shift;
    rem     = m & ((1ull << shift) - 1);
    halfway = 1ull << (shift - 1);
  }
  if (rem > halfway || (rem == halfway && (q & 1u))) q++;
  return (uint16_t)(sign | q);
}

/* The FP64 value of IEEE binary16 bits h (exact): the fields moved into an FP64 bit pattern (the host apply decodes
   every entry with it, so no ldexp) */
static inline double PCVBJacobiHalfBitsToDouble(uint16_t h)
{
  const uint64_t sign = (uint64_t)(h & 0x8000u) << 48, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint64_t       u;
  double         d;

  if (e == 0) { /* zero or subnormal: m 2^-24, exact */
    d = (double)m * 5.9604644775390625e-08;
    return sign ? -d : d;
  }
  if (e == 31) u = sign | 0x7ff0000000000000ull | (m << 42); /* Inf, NaN (payload kept) */
  else u = sign | ((e - 15 + 1023) << 52) | (m << 42);
  memcpy(&d, &u, sizeof(d));
  return d;
}
