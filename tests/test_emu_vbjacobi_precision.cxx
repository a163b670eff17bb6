static const char help[] = "Runs the reduced- and adaptive-precision storage of the PCVBJACOBI kernels (src/pc/vbjacobi/cuda/vbjacobi_kernels.cuh)\n"
                           "in the host warp emulator (tests/emu/cuda_emu.h), on every commit and without a GPU:\n"
                           "  the FP64 -> binary16 conversion of vbjacobiprec.h (what the host path stores, and what the emulated kernels\n"
                           "    use in place of __double2half) bit for bit against the compiler's _Float16 (round to nearest even, directly\n"
                           "    from FP64): random values over half's whole range, exact ties in the normal and subnormal ranges, the overflow\n"
                           "    edge, zeros, Inf, NaN; and binary16 -> FP64 on all 65536 bit patterns;\n"
                           "  the setup (InvertKernel with the PC's policies: cached and shared extraction, P = 1..32, the thread-per-block path included) storing single, half\n"
                           "    and adaptive: blocks Q diag(s) Q^T of 2-norm condition 1.5, 2e4 and 1e10, scaled by 10^(-6..6), and singular\n"
                           "    ones under the identity policy. The kernel's own FP64 inverses (the same launch storing double) stored by the\n"
                           "    host rule (vbjacobiprec.h: condition estimate summed in the same order, type, scale, rounding) must give the\n"
                           "    same bits, types and scales; adaptive must keep every 1e10 block in double and put the others where the rule\n"
                           "    puts them;\n"
                           "  ApplyKernel, plain and transposed, for every storage (compact single and half) and random scales, block sizes\n"
                           "    1..P mixed in a warp: against the host product of the decoded entries; adaptive (random types) through the\n"
                           "    device's grouping: KeyCountKernel + KeyPermKernel by type, RepackGroupedKernel, ApplyGroupedKernel.\n"
                           "Options: -seed <n>. Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include "../src/pc/vbjacobi/cuda/vbjacobi_kernels.cuh"

using namespace pbg::vbj; /* the PC's kernels, and through them pbg::gj (src/sys/cuda/gaussjordan.cuh) */

namespace pbg::gj
{
double smem[1 << 16]; /* the kernels' `extern __shared__ double smem[]`, declared inside this namespace */
}
#include <petscsys.h>
#include <algorithm>
#include <cfloat>
#include <vector>

static int nfail = 0;

static void Report(bool ok, const char *what)
{
  if (!ok) nfail++;
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

static uint16_t F16Bits(double d)
{
  const _Float16 h = (_Float16)d;
  uint16_t       b;
  memcpy(&b, &h, sizeof(b));
  return b;
}

static void ConversionCases()
{
  std::vector<double> v   = {0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99999, 65520.0, -65520.0, 65536.0, 1e300, ldexp(1.0, -24), ldexp(1.0, -25), ldexp(1.0, -25) * (1 + DBL_EPSILON), ldexp(1.0, -25) * (1 - DBL_EPSILON / 2), ldexp(1.5, -24), ldexp(1.0, -14), ldexp(1.0, -14) * (1 - DBL_EPSILON / 2), 4.9e-324, INFINITY, -INFINITY, NAN};
  long                bad = 0, n;
  char                what[200];

  for (int i = 0; i < 200000; i++) v.push_back(ldexp(Uniform(), RandInt(52) - 30)); /* |v| in [0, 2^22): subnormal, normal, overflow */
  for (int i = 0; i < 20000; i++) {                                                 /* exact ties between adjacent halfs */
    const int e = RandInt(30) - 24, m = 1024 + RandInt(1024);                       /* normal: m 2^(e-10) and its neighbour */
    v.push_back((Uniform() > 0 ? 1 : -1) * ldexp(2.0 * m + 1.0, e - 11));
    v.push_back(ldexp(2.0 * RandInt(1024) + 1.0, -25)); /* subnormal ties: odd multiples of 2^-25 */
  }
  for (double d : v) {
    const uint16_t a = PCVBJacobiDoubleToHalfBits(d), b = F16Bits(d);
    if (a != b && !(std::isnan(d) && (a & 0x7c00) == 0x7c00 && (a & 0x3ff) && (b & 0x7c00) == 0x7c00 && (b & 0x3ff))) {
      if (bad < 5) printf("     %.17g: %#06x, _Float16 %#06x\n", d, a, b);
      bad++;
    }
  }
  n = (long)v.size();
  snprintf(what, sizeof(what), "FP64 -> binary16 (vbjacobiprec.h) against _Float16 on %ld values (ties, subnormals, overflow edge): %ld differ", n, bad);
  Report(!bad, what);
  bad = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    _Float16       f;
    const uint16_t hb = (uint16_t)h;
    memcpy(&f, &hb, sizeof(f));
    const double a = PCVBJacobiHalfBitsToDouble(hb), b = (double)f;
    if (!(a == b && std::signbit(a) == std::signbit(b)) && !(std::isnan(a) && std::isnan(b))) bad++;
  }
  snprintf(what, sizeof(what), "binary16 -> FP64 on all 65536 bit patterns: %ld differ", bad);
  Report(!bad, what);
}

/* A k x k block Q diag(s) Q^T (Q a Householder reflector) of 2-norm condition target (1 for k = 1), times scale */
static void CondBlock(int k, double target, double scale, double *a)
{
  std::vector<double> v(k), s(k);
  double              vv = 0.0;
  for (int i = 0; i < k; i++) {
    v[i] = Uniform() + 1.5;
    vv += v[i] * v[i];
    s[i] = k > 1 ? std::pow(target, -(double)i / (k - 1)) : 1.0;
  }
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) {
      double sum = 0.0;
      for (int l = 0; l < k; l++) sum += ((i == l) - 2.0 * v[i] * v[l] / vv) * s[l] * ((j == l) - 2.0 * v[j] * v[l] / vv);
      a[i + j * k] = scale * sum;
    }
}

static double Decode(const void *base, int t, int x, int e)
{
  if (t == PBG_STORE_SINGLE) return ldexp((double)((const float *)base)[e], x);
  if (t == PBG_STORE_HALF) return ldexp(PCVBJacobiHalfBitsToDouble(((const uint16_t *)base)[e]), x);
  return ((const double *)base)[e];
}

/* Setup of nb blocks of sizes 1..P (CSR, block diagonal, every 3rd block of condition 1e10, every 13th zero) storing
   `mode`, against the host rule applied to the same launch's FP64 inverses. layout: mode's own (a fixed mode's compact
   layout: the blocks it cannot hold are stored in it all the same and counted, for the setup's second pass) or
   PBG_STORE_ADAPTIVE (that second pass: each block in the type the rule picks, in FP64 slots) */
template <int P, SourceKind SRC>
static void StoreCase(int mode, int layout, int nb)
{
  const double        tol = 0.1, targets[3] = {1.5, 2e4, 1e10};
  std::vector<int>    starts(1, 0), rowptr(1, 0), colidx;
  std::vector<double> values;
  for (int b = 0; b < nb; b++) starts.push_back(starts.back() + (b % 3 && P > 1 ? std::max(2, 1 + RandInt(P)) : 1 + RandInt(P)));
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) off[b + 1] = off[b] + (PetscInt64)(starts[b + 1] - starts[b]) * (starts[b + 1] - starts[b]);
  std::vector<std::vector<double>> blocks(nb);
  for (int b = 0; b < nb; b++) {
    const int k = starts[b + 1] - starts[b];
    blocks[b].assign(k * k, 0.0);
    if (b % 13 != 12) CondBlock(k, targets[b % 3], std::pow(10.0, RandInt(13) - 6), blocks[b].data());
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < k; j++) {
        colidx.push_back(starts[b] + j);
        values.push_back(blocks[b][i + j * k]);
      }
      rowptr.push_back((int)colidx.size());
    }
  }
  SparseRows                 M    = {starts[nb], 1, rowptr.data(), colidx.data(), values.data()};
  const unsigned             grid = (unsigned)((nb + InvertBlocksPerCta(P) - 1) / InvertBlocksPerCta(P));
  std::vector<double>        inv64(off[nb], NAN), stored(off[nb], NAN);
  std::vector<PetscInt>      info(nb, -99);
  std::vector<unsigned char> prec(nb, 99);
  std::vector<short>         sexp(nb, -999);
  SetupOutcome               o1 = {INT_MAX, 0, 0}, o2 = {INT_MAX, 0, 0};
  StoreSpec                  spec;
  spec.mode   = mode;
  spec.layout = layout;
  spec.tol    = tol;
  spec.prec   = layout == PBG_STORE_ADAPTIVE ? prec.data() : nullptr;
  spec.sexp   = sexp.data();
  spec.nwider = layout != PBG_STORE_ADAPTIVE ? &o2.nwider : nullptr;
  long errs   = EmuLaunch(grid, PBG_CTA, [&] { InvertKernel<P>(SparseSource<SRC>{M}, StoreSpec(), nb, P, nullptr, starts.data(), nullptr, off.data(), inv64.data(), 1, info.data(), &o1); });
  errs += EmuLaunch(grid, PBG_CTA, [&] { InvertKernel<P>(SparseSource<SRC>{M}, spec, nb, P, nullptr, starts.data(), nullptr, off.data(), stored.data(), 1, info.data(), &o2); });

  long nbits = 0, ntype = 0, nscale = 0, nrule = 0, nsing = 0, cnt[3] = {0, 0, 0}, nwider = 0;
  for (int b = 0; b < nb; b++) {
    const int     k        = starts[b + 1] - starts[b];
    const double *I        = &inv64[off[b]];
    const void   *base     = (const char *)stored.data() + (size_t)PCVBJacobiSlotBytes(layout) * off[b];
    const bool    singular = b % 13 == 12;
    double        anorm = 0.0, ainv = 0.0, maxabs = 0.0;
    for (int c = 0; c < k; c++) { /* the host rule: column sums in row order */
      double sa = 0.0, si = 0.0;
      for (int r = 0; r < k; r++) {
        sa += std::fabs(blocks[b][r + c * k]);
        si += std::fabs(I[r + c * k]);
        maxabs = std::max(maxabs, std::fabs(I[r + c * k]));
      }
      anorm = std::max(anorm, sa);
      ainv  = std::max(ainv, si);
    }
    if (singular) nsing++;
    const int rule  = singular ? PCVBJacobiChooseType(mode, tol, 1.0) : PCVBJacobiChooseType(mode, tol, anorm * ainv);
    const int t     = layout == PBG_STORE_ADAPTIVE ? rule : layout; /* a compact layout stores its own type */
    const int x     = PCVBJacobiScaleExponent(t, singular ? 1.0 : maxabs);
    const int got_t = layout == PBG_STORE_ADAPTIVE ? prec[b] : layout;
    if (rule != t) nwider++;
    if (got_t != t) ntype++;
    if (sexp[b] != x) nscale++;
    if (got_t <= 2) cnt[got_t]++;
    /* the rule on the built condition (the others far from the thresholds): 1e10 blocks in double everywhere (u cond
       >= 1/2 for single); 2e4 in single (half cannot hold them: 2e4 2^-11 >= 1/2; adaptive 0.1: single); 1.5 in half,
       and in single under the single floor */
    const int built = b % 3 == 2 ? PBG_STORE_DOUBLE : b % 3 == 1 || mode == PBG_STORE_SINGLE ? PBG_STORE_SINGLE : PBG_STORE_HALF;
    if (!singular && k > 1 && rule != built) nrule++;
    for (int e = 0; e < k * k; e++) {
      const double want = singular ? (e % (k + 1) == 0 ? 1.0 : 0.0) : I[e];
      const double v    = ldexp(want, -x);
      bool         same;
      if (t == PBG_STORE_SINGLE) {
        const float f = (float)v;
        same          = !memcmp(&f, (const float *)base + e, sizeof(f));
      } else if (t == PBG_STORE_HALF) same = PCVBJacobiDoubleToHalfBits(v) == ((const uint16_t *)base)[e];
      else same = !memcmp(&v, (const double *)base + e, sizeof(v));
      if (!same) nbits++;
    }
  }
  char what[360];
  snprintf(what, sizeof(what), "store %-8s %s %s P %2d, %3d blocks (%ld singular -> identity): double/single/half %ld/%ld/%ld; types %ld, scales %ld, entries %ld differ from the host rule; %ld against the built condition; wider %d (want %ld); protocol errors %ld",
           mode == PBG_STORE_SINGLE ? "single"
           : mode == PBG_STORE_HALF ? "half"
                                    : "adaptive",
           layout == PBG_STORE_ADAPTIVE ? "slots  " : "compact", SRC == SOURCE_CACHED ? "cached" : "shared", P, nb, nsing, cnt[0], cnt[1], cnt[2], ntype, nscale, nbits, nrule, o2.nwider, nwider, errs);
  Report(!errs && !ntype && !nscale && !nbits && !nrule && o2.nsingular == nsing && o2.first_bad == INT_MAX && o2.nwider == nwider, what);
}

/* The adaptive apply as the device runs it: the blocks grouped by type by the counting sort (KeyCountKernel +
   KeyPermKernel on TypeKey, checked: every block once, the groups half, single, double in turn, ascending ids within a
   thread block's run), the group bounds and sums of k^2 (made on the host here, by a scan on the device), the stored
   bits moved from the FP64 slots into the grouped array (RepackGroupedKernel, into a buffer of NaN bits), then
   ApplyGroupedKernel, each thread block on blocks of one type. Returns the emulator's protocol errors (and counts a
   bad grouping as one). */
template <int P, bool TRANS>
static long GroupedApplyRun(int nb, const std::vector<int> &starts, const std::vector<PetscInt64> &off, const std::vector<double> &inv, const std::vector<unsigned char> &prec, const std::vector<short> &sexp, const std::vector<double> &xv, std::vector<double> &y)
{
  std::vector<int>        cnt(2 * NumTypeGroups, 0), order(nb, -1), seen(nb, 0);
  std::vector<PetscInt64> entry(nb + 1, 0);
  const unsigned          sgrid = (unsigned)((nb + PBG_CLASS_ITEMS * PBG_CTA - 1) / (PBG_CLASS_ITEMS * PBG_CTA));
  GroupedApply            g;
  size_t                  bytes = 0;
  long                    errs  = 0;

  errs += EmuLaunch(sgrid, PBG_CTA, [&] { KeyCountKernel(nb, TypeKey{prec.data()}, cnt.data()); });
  errs += EmuLaunch(sgrid, PBG_CTA, [&] { KeyPermKernel(nb, TypeKey{prec.data()}, cnt.data(), cnt.data() + NumTypeGroups, order.data()); });
  g.first[0] = 0;
  for (int t = 0; t < NumTypeGroups; t++) g.first[t + 1] = g.first[t] + cnt[t];
  for (int p = 0; p < nb; p++) {
    const int b = order[p], grp = p < g.first[1] ? 0 : p < g.first[2] ? 1 : 2;
    if (b < 0 || b >= nb || seen[b]++ || TypeGroup(prec[b]) != grp) return errs + 1;
    entry[p + 1] = entry[p] + (PetscInt64)(starts[b + 1] - starts[b]) * (starts[b + 1] - starts[b]);
  }
  g.cta[0] = 0;
  for (int t = 0; t < NumTypeGroups; t++) {
    const size_t tb = (size_t)GroupEntryBytes(t);
    g.entry0[t]     = entry[g.first[t]];
    g.base[t]       = (bytes + 15) / 16 * 16;
    bytes           = g.base[t] + tb * (size_t)(entry[g.first[t + 1]] - g.entry0[t]);
    g.cta[t + 1]    = g.cta[t] + (unsigned)((cnt[t] + PBG_CTA / P - 1) / (PBG_CTA / P));
  }
  std::vector<char> grouped(bytes + 16, (char)0xff); /* NaN in every type */
  g.order   = order.data();
  g.entry   = entry.data();
  g.grouped = grouped.data();
  errs += EmuLaunch((unsigned)((nb + PBG_CTA / 32 - 1) / (PBG_CTA / 32)), PBG_CTA, [&] { RepackGroupedKernel(g, starts.data(), off.data(), inv.data(), grouped.data()); });
  errs += EmuLaunch(g.cta[NumTypeGroups], PBG_CTA, [&] { ApplyGroupedKernel<P, TRANS>(g, starts.data(), xv.data(), y.data(), sexp.data()); });
  return errs;
}

/* ApplyKernel<P, TRANS, S> on random stored blocks (adaptive: a random type per block, so the sub-warps of a warp read
   different types), random scales in 2^(-30..30) */
template <int P, bool TRANS, int S>
static void ApplyCase(int nb)
{
  std::vector<int> starts(1, 0);
  for (int b = 0; b < nb; b++) starts.push_back(starts.back() + 1 + RandInt(P));
  const int               n = starts.back();
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) off[b + 1] = off[b] + (PetscInt64)(starts[b + 1] - starts[b]) * (starts[b + 1] - starts[b]);
  std::vector<double>        inv(off[nb], NAN), xv(n), y(n, NAN);
  std::vector<long double>   ref(n, 0.0L);
  std::vector<unsigned char> prec(nb);
  std::vector<short>         sexp(nb, 0);
  double                     worst = 0.0;
  for (auto &v : xv) v = Uniform();
  for (int b = 0; b < nb; b++) {
    const int k = starts[b + 1] - starts[b], t = S == PBG_STORE_ADAPTIVE ? RandInt(3) : S;
    void     *base = (char *)inv.data() + (size_t)PCVBJacobiSlotBytes(S) * off[b];
    prec[b]        = (unsigned char)t;
    if (t != PBG_STORE_DOUBLE) sexp[b] = (short)(RandInt(61) - 30); /* (a double block is never scaled) */
    for (int e = 0; e < k * k; e++) {
      const double v = Uniform();
      if (t == PBG_STORE_SINGLE) ((float *)base)[e] = (float)v;
      else if (t == PBG_STORE_HALF) ((uint16_t *)base)[e] = PCVBJacobiDoubleToHalfBits(v);
      else ((double *)base)[e] = v;
    }
    for (int i = 0; i < k; i++)
      for (int j = 0; j < k; j++) ref[starts[b] + i] += (long double)Decode(base, t, sexp[b], TRANS ? j + i * k : i + j * k) * xv[starts[b] + j];
  }
  const unsigned grid = (unsigned)((nb + PBG_CTA / P - 1) / (PBG_CTA / P));
  long           errs = 0;
  if constexpr (S != PBG_STORE_ADAPTIVE) errs = EmuLaunch(grid, PBG_CTA, [&] { ApplyKernel<P, TRANS, S>(nb, starts.data(), off.data(), inv.data(), xv.data(), y.data(), sexp.data()); });
  else errs = GroupedApplyRun<P, TRANS>(nb, starts, off, inv, prec, sexp, xv, y);
  for (int b = 0; b < nb; b++) {
    const int   k = starts[b + 1] - starts[b];
    long double m = 0.0L;
    for (int i = 0; i < k; i++) m = std::max(m, fabsl(ref[starts[b] + i]));
    for (int i = 0; i < k; i++) worst = std::max(worst, (double)(fabsl(y[starts[b] + i] - ref[starts[b] + i]) / (m > 0 ? m : 1.0L)));
  }
  char what[200];
  snprintf(what, sizeof(what), "apply%s %-8s P %2d, %3d blocks: max rel diff %.1e, protocol errors %ld", TRANS ? "^T" : "  ",
           S == PBG_STORE_DOUBLE   ? "double"
           : S == PBG_STORE_SINGLE ? "single"
           : S == PBG_STORE_HALF   ? "half"
                                   : "adaptive",
           P, nb, worst, errs);
  Report(!errs && worst <= 1e-13, what);
}

template <int P>
static void AllCases()
{
  const int nb = 2 * (PBG_CTA / P) + 1 + RandInt(PBG_CTA / P);
  for (int mode : {PBG_STORE_SINGLE, PBG_STORE_HALF, PBG_STORE_ADAPTIVE}) {
    for (int layout : {mode, (int)PBG_STORE_ADAPTIVE}) { /* a fixed mode: its compact first pass, then the second pass */
      if (mode == PBG_STORE_ADAPTIVE && layout != mode) continue;
      StoreCase<P, SOURCE_CACHED>(mode, layout, nb);
      if (P > 2) StoreCase<P, SOURCE_SHARED>(mode, layout, nb);
    }
  }
  ApplyCase<P, false, PBG_STORE_SINGLE>(nb);
  ApplyCase<P, true, PBG_STORE_SINGLE>(nb);
  ApplyCase<P, false, PBG_STORE_HALF>(nb);
  ApplyCase<P, true, PBG_STORE_HALF>(nb);
  ApplyCase<P, false, PBG_STORE_ADAPTIVE>(nb);
  ApplyCase<P, true, PBG_STORE_ADAPTIVE>(nb);
}

int main(int argc, char **argv)
{
  PetscInt seed = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  EmuSeed(seed);
  ConversionCases();
  AllCases<1>();
  AllCases<2>();
  AllCases<4>();
  AllCases<8>();
  AllCases<16>();
  AllCases<32>();
  if (!nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "OK\n"));
  PetscCheck(!nfail, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d emulated kernel case(s) failed", nfail);
  PetscCall(PetscFinalize());
  return 0;
}
