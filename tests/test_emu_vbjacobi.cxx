static const char help[] = "Runs the PCVBJACOBI device kernels (src/pc/vbjacobi/cuda/vbjacobi_kernels.cuh) and the batched Gauss-Jordan\n"
                           "inversion they share with PetscBlockGPUInvertBatched() (src/sys/cuda/gaussjordan.cuh) in the host warp emulator\n"
                           "(tests/emu/cuda_emu.h) and checks them against host references, on every commit and without a GPU:\n"
                           "  InvertKernel, dense source and FP64 store (PetscBlockGPUInvertBatched()'s): random blocks (pivots forced off the diagonal) of every size 1..P in\n"
                           "    sub-warps of P = 1..32 (uniform, mixed, smaller than P), zero columns (info = column + 1 exactly), NaN\n"
                           "    and Inf (info -1), sizes outside 0..kmax (info -2), the identity policy; failed blocks must stay\n"
                           "    untouched; inverses against Gauss-Jordan with partial pivoting in long double;\n"
                           "  InvertKernel with the PC's policies, cached and shared extraction from CSR (bs 1) and BSR (bs 2, 3) rows with off-block\n"
                           "    entries and a long row: the inverse of the host-extracted block;\n"
                           "  ApplyKernel, plain and transposed: against the host block product;\n"
                           "  the launches by width class (KeyCountKernel + KeyPermKernel by size, or a permutation made on the host, then\n"
                           "    InvertKernel per class, the thread-per-block path for sizes 1..2 included): mixed sizes in random order\n"
                           "    with zero, rank-one, tiny-pivot, tied, NaN, Inf, 1e+-250 and bad-size blocks, dense and sparse sources;\n"
                           "    info against the host path's algorithm (PCVBJacobiInvertBlock_Host) on every block.\n"
                           "Options: -seed <n>, -nblocks <n> (per case; default: two thread blocks and a partial one),\n"
                           "  -cases <all|class> (class: the width-class cases only).\n"
                           "Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include "../src/pc/vbjacobi/cuda/vbjacobi_kernels.cuh"

using namespace pbg::vbj; /* the PC's kernels, and through them pbg::gj (src/sys/cuda/gaussjordan.cuh) */

namespace pbg::gj
{
double smem[1 << 16]; /* InvertKernel's `extern __shared__ double smem[]`, declared inside this namespace */
}
#include <petscsys.h>
#include "../src/sys/gaussjordan_host.h"
#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

/* A k x k column-major block whose largest entries sit on a random permutation, so that implicit pivoting must
   leave the diagonal; well conditioned */
static void RandomBlock(int k, double *a)
{
  std::vector<int> perm(k);
  for (int i = 0; i < k; i++) perm[i] = i;
  for (int i = k - 1; i > 0; i--) std::swap(perm[i], perm[RandInt(i + 1)]);
  for (int e = 0; e < k * k; e++) a[e] = Uniform();
  for (int i = 0; i < k; i++) a[i + perm[i] * k] += (Uniform() > 0 ? 1 : -1) * (2.0 + k);
}

/* Inverse by Gauss-Jordan with partial pivoting in long double; false when singular */
static bool ReferenceInverse(int k, const double *a, double *x)
{
  std::vector<long double> m(2 * k * k);
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) {
      m[i * 2 * k + j]     = a[i + j * k];
      m[i * 2 * k + k + j] = i == j;
    }
  for (int c = 0; c < k; c++) {
    int p = c;
    for (int i = c + 1; i < k; i++)
      if (fabsl(m[i * 2 * k + c]) > fabsl(m[p * 2 * k + c])) p = i;
    if (m[p * 2 * k + c] == 0) return false;
    for (int j = 0; j < 2 * k; j++) std::swap(m[c * 2 * k + j], m[p * 2 * k + j]);
    const long double d = m[c * 2 * k + c];
    for (int j = 0; j < 2 * k; j++) m[c * 2 * k + j] /= d;
    for (int i = 0; i < k; i++)
      if (i != c) {
        const long double f = m[i * 2 * k + c];
        for (int j = 0; j < 2 * k; j++) m[i * 2 * k + j] -= f * m[c * 2 * k + j];
      }
  }
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) x[i + j * k] = (double)m[i * 2 * k + k + j];
  return true;
}

static double RelDiff(int n, const double *x, const double *ref)
{
  double num = 0, den = 0;
  for (int e = 0; e < n; e++) {
    num += (x[e] - ref[e]) * (x[e] - ref[e]);
    den += ref[e] * ref[e];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/* RelDiff of x and ref scaled by max|ref| first: inverses of blocks of 1e-250 entries hold 1e250, whose squares
   overflow */
static double ScaledRelDiff(int n, const double *x, const double *ref)
{
  double              s = 0;
  std::vector<double> xs(n), rs(n);
  for (int e = 0; e < n; e++) s = std::max(s, std::fabs(ref[e]));
  if (!(s > 0) || !std::isfinite(s)) s = 1;
  for (int e = 0; e < n; e++) {
    xs[e] = x[e] / s;
    rs[e] = ref[e] / s;
  }
  return RelDiff(n, xs.data(), rs.data());
}

static int    nfail = 0;
static double tol   = 1e-12;

static void Report(bool ok, const char *what)
{
  if (!ok) nfail++;
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

/* Kinds of dense test blocks */
enum {
  GOOD,
  ZEROCOL,
  NANENTRY,
  INFENTRY,
  BADSIZE
};

/* InvertKernel<P> with DenseSource and DoubleStore (PetscBlockGPUInvertBatched()'s policies) on nb blocks; sizes from mode: 0 all P, 1 random 1..P, 2 all P/2+1 (fewer rows than
   lanes), 3 random with special blocks, 4 all P packed and passed as NULL sizes and NULL offsets (the uniform call of
   PetscBlockGPUInvertBatched()), 5 all P with gaps, NULL sizes; identity: the singular policy */
template <int P>
static void DenseCase(int nb, int mode, int identity)
{
  std::vector<int>        sizes(nb), kind(nb, GOOD), zc(nb, -1);
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) {
    sizes[b] = mode == 0 || mode >= 4 ? P : mode == 2 ? P / 2 + 1 : 1 + RandInt(P);
    if (mode == 3) {
      const int r = RandInt(10);
      kind[b]     = r == 0 ? ZEROCOL : r == 1 ? NANENTRY : r == 2 ? INFENTRY : r == 3 ? BADSIZE : GOOD;
    }
    const int room = kind[b] == BADSIZE ? 1 : sizes[b] * sizes[b];
    off[b + 1]     = off[b] + room + (mode == 4 ? 0 : RandInt(3)); /* gaps between blocks must stay untouched */
  }
  std::vector<double> a(off[nb] + 1), x;
  for (auto &v : a) v = -7.25; /* the gaps */
  for (int b = 0; b < nb; b++) {
    const int k = sizes[b];
    if (kind[b] == BADSIZE) {
      sizes[b] = RandInt(2) ? P + 1 + RandInt(4) : -1;
      continue;
    }
    RandomBlock(k, &a[off[b]]);
    if (kind[b] == ZEROCOL) {
      zc[b] = RandInt(k);
      for (int i = 0; i < k; i++) a[off[b] + i + zc[b] * k] = 0.0;
    }
    if (kind[b] == NANENTRY) a[off[b] + RandInt(k * k)] = NAN;
    if (kind[b] == INFENTRY) a[off[b] + RandInt(k * k)] = -INFINITY;
  }
  x = a;
  std::vector<PetscInt> info(nb, -99);
  Outcome               outcome = {INT_MAX, 0};
  const unsigned        grid    = (unsigned)((nb + InvertBlocksPerCta(P) - 1) / InvertBlocksPerCta(P));
  const long            errs = EmuLaunch(grid, PBG_CTA, [&] { InvertKernel<P>(DenseSource(), DoubleStore(), nb, P, nullptr, nullptr, mode >= 4 ? nullptr : sizes.data(), mode == 4 ? nullptr : off.data(), x.data(), identity, info.data(), &outcome); });

  bool   ok        = errs == 0;
  double worst     = 0;
  int    first_bad = INT_MAX, nsing = 0;
  char   what[256];
  for (int b = 0; b < nb; b++) {
    const int k    = sizes[b];
    int       want = 0;
    if (kind[b] == ZEROCOL) want = zc[b] + 1;
    if (kind[b] == NANENTRY || kind[b] == INFENTRY) want = -1;
    if (kind[b] == BADSIZE) want = -2;
    if (info[b] != want) {
      ok = false;
      printf("    block %d (k %d, kind %d): info %d, expected %d\n", b, k, kind[b], (int)info[b], want);
    }
    if ((want > 0 || want == InfoInverseNotFinite) && identity) { /* the policy's replacements */
      nsing++;
      for (int e = 0; e < k * k; e++) ok = ok && x[off[b] + e] == ((e % (k + 1)) == 0 ? 1.0 : 0.0);
    } else if (want) {
      first_bad      = std::min(first_bad, b);
      const int room = kind[b] == BADSIZE ? 1 : k * k;
      for (int e = 0; e < room; e++) ok = ok && (std::memcmp(&x[off[b] + e], &a[off[b] + e], sizeof(double)) == 0);
    } else {
      std::vector<double> ref(k * k);
      if (!ReferenceInverse(k, &a[off[b]], ref.data())) ok = false;
      worst = std::max(worst, RelDiff(k * k, &x[off[b]], ref.data()));
    }
    for (PetscInt64 e = off[b] + (kind[b] == BADSIZE ? 1 : k * k); e < off[b + 1]; e++) ok = ok && x[e] == -7.25;
  }
  ok = ok && worst <= tol && outcome.first_bad == first_bad && outcome.nsingular == nsing;
  snprintf(what, sizeof(what), "dense    P %2d, %3d blocks, sizes %s%s: max rel diff %.1e, first failure %d (expected %d), identity %d/%d, protocol errors %ld", P, nb,
           mode == 0   ? "all P"
           : mode == 2 ? "all P/2+1"
           : mode == 1 ? "1..P"
           : mode == 4 ? "all P, no sizes, no offsets"
           : mode == 5 ? "all P, no sizes"
                       : "1..P with zero columns, NaN, Inf, bad sizes",
           identity ? ", identity policy" : "", worst, outcome.first_bad == INT_MAX ? -1 : outcome.first_bad, first_bad == INT_MAX ? -1 : first_bad, outcome.nsingular, nsing, errs);
  Report(ok, what);
}

/* A sparse matrix (CSR when bs = 1, else BSR with column-major bs x bs blocks) of n scalar rows whose diagonal
   blocks [starts[b], starts[b+1]) are stored densely (random, pivots off the diagonal), with random entries
   outside the blocks; row 0 is long (every block column). */
struct Sparse {
  int                 n, bs;
  std::vector<int>    rowptr, colidx;
  std::vector<double> values;
};

static Sparse RandomSparse(int bs, const std::vector<int> &starts)
{
  const int                     n = starts.back(), m = n / bs, nb = (int)starts.size() - 1;
  std::vector<std::vector<int>> cols(m);
  Sparse                        S;
  S.n  = n;
  S.bs = bs;
  for (int b = 0; b < nb; b++) /* every block column meeting the diagonal block, in every block row it covers */
    for (int r = starts[b] / bs; r <= (starts[b + 1] - 1) / bs; r++)
      for (int c = starts[b] / bs; c <= (starts[b + 1] - 1) / bs; c++) cols[r].push_back(c);
  for (int r = 0; r < m; r++)
    for (int q = 0; q < 3; q++) cols[r].push_back(RandInt(m));
  for (int c = 0; c < m; c++) cols[0].push_back(c);
  S.rowptr.push_back(0);
  for (int r = 0; r < m; r++) {
    std::sort(cols[r].begin(), cols[r].end());
    cols[r].erase(std::unique(cols[r].begin(), cols[r].end()), cols[r].end());
    for (int c : cols[r]) S.colidx.push_back(c);
    S.rowptr.push_back((int)S.colidx.size());
  }
  S.values.resize(S.colidx.size() * bs * bs);
  for (auto &v : S.values) v = 0.3 * Uniform();
  for (int b = 0; b < nb; b++) { /* strong entries on a permutation inside each diagonal block */
    const int        s = starts[b], k = starts[b + 1] - s;
    std::vector<int> perm(k);
    for (int i = 0; i < k; i++) perm[i] = i;
    for (int i = k - 1; i > 0; i--) std::swap(perm[i], perm[RandInt(i + 1)]);
    for (int i = 0; i < k; i++) {
      const int r = s + i, c = s + perm[i], br = r / bs, bc = c / bs;
      for (int e = S.rowptr[br]; e < S.rowptr[br + 1]; e++)
        if (S.colidx[e] == bc) S.values[(size_t)e * bs * bs + (r % bs) + (c % bs) * bs] += (Uniform() > 0 ? 1 : -1) * (2.0 + k);
    }
  }
  return S;
}

static double Entry(const Sparse &S, int r, int c)
{
  const int br = r / S.bs, bc = c / S.bs;
  for (int e = S.rowptr[br]; e < S.rowptr[br + 1]; e++)
    if (S.colidx[e] == bc) return S.values[(size_t)e * S.bs * S.bs + (r % S.bs) + (c % S.bs) * S.bs];
  return 0.0;
}

template <int P, SourceKind SRC>
static void SparseCase(int nb, int bs)
{
  std::vector<int> starts(1, 0);
  for (int b = 0; b < nb; b++) starts.push_back(starts.back() + 1 + RandInt(P));
  while (starts.back() % bs) starts.push_back(starts.back() + 1 + RandInt(std::min(P, bs - starts.back() % bs))); /* whole block rows */
  nb                        = (int)starts.size() - 1;
  const Sparse            S = RandomSparse(bs, starts);
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) off[b + 1] = off[b] + (PetscInt64)(starts[b + 1] - starts[b]) * (starts[b + 1] - starts[b]);
  std::vector<double>   x(off[nb], NAN);
  std::vector<PetscInt> info(nb, -99);
  SetupOutcome          outcome = {INT_MAX, 0};
  SparseRows            M       = {S.n, bs, S.rowptr.data(), S.colidx.data(), S.values.data()};
  const unsigned        grid    = (unsigned)((nb + InvertBlocksPerCta(P) - 1) / InvertBlocksPerCta(P));
  const long            errs    = EmuLaunch(grid, PBG_CTA, [&] { InvertKernel<P>(SparseSource<SRC>{M}, StoreSpec(), nb, P, nullptr, starts.data(), nullptr, off.data(), x.data(), 0, info.data(), &outcome); });
  bool                  ok      = errs == 0 && outcome.first_bad == INT_MAX;
  double                worst   = 0;
  char                  what[256];

  for (int b = 0; b < nb; b++) {
    const int           s = starts[b], k = starts[b + 1] - s;
    std::vector<double> blk(k * k), ref(k * k);
    for (int i = 0; i < k; i++)
      for (int j = 0; j < k; j++) blk[i + j * k] = Entry(S, s + i, s + j);
    ok    = ok && info[b] == 0 && ReferenceInverse(k, blk.data(), ref.data());
    worst = std::max(worst, RelDiff(k * k, &x[off[b]], ref.data()));
  }
  ok = ok && worst <= tol;
  snprintf(what, sizeof(what), "%-8s P %2d, %3d blocks of 1..P rows from %s bs %d (%d rows, long row 0): max rel diff %.1e, protocol errors %ld", SRC == SOURCE_CACHED ? "cached" : "shared", P, nb, bs == 1 ? "CSR" : "BSR", bs, S.n, worst, errs);
  Report(ok, what);
}

/* ------------------------------------------------------------------------------------------- width classes */
/* The host path's algorithm (src/sys/gaussjordan_host.h, which PCVBJacobiInvertBlock_Host() calls): the reference for
   the info values and pivots. A (n x n, column-major) is replaced by its inverse when info = 0. */
static int HostInvert(int n, double *A)
{
  std::vector<PetscInt>    ipiv(n), used(n);
  std::vector<PetscReal>   tiny(n);
  std::vector<PetscScalar> buf((size_t)n * n);

  return (int)PetscBlockGPUInvertBlock_Host(n, A, ipiv.data(), used.data(), tiny.data(), buf.data());
}

/* Kinds of blocks of the class cases: GOOD random (pivots off the diagonal), ZEROBLK all zero (info 1), ZEROCOL a zero
   column, RANK1 rank one (a later pivot is rounding noise: tiny), TINYCOL a column 1e-20 times the rest (tiny first
   pivot when it is column 0), TIE |a00| = |a10| (the lower row pivots), NANENTRY, INFENTRY, HUGE / SMALL (entries
   scaled by 1e250 / 1e-250: the tiny rule is relative), OVERFLOW (entries scaled by 1e-310: pivots pass the relative
   rule, the inverse overflows: info InfoInverseNotFinite), BADSIZE (dense only: a size outside 0..kmax) */
enum {
  C_GOOD,
  C_ZEROBLK,
  C_ZEROCOL,
  C_RANK1,
  C_TINYCOL,
  C_TIE,
  C_NAN,
  C_INF,
  C_HUGE,
  C_SMALL,
  C_OVERFLOW,
  C_BADSIZE,
  C_NKINDS
};

static void SpecialBlock(int kind, int k, double *a)
{
  RandomBlock(k, a);
  switch (kind) {
  case C_ZEROBLK:
    for (int e = 0; e < k * k; e++) a[e] = 0.0;
    break;
  case C_ZEROCOL: {
    const int c = RandInt(k);
    for (int i = 0; i < k; i++) a[i + c * k] = 0.0;
  } break;
  case C_RANK1: {
    std::vector<double> u(k), v(k);
    for (auto &x : u) x = Uniform() + 0.5;
    for (auto &x : v) x = Uniform() - 0.25;
    for (int i = 0; i < k; i++)
      for (int j = 0; j < k; j++) a[i + j * k] = u[i] * v[j];
  } break;
  case C_TINYCOL: {
    const int c = RandInt(2) ? 0 : RandInt(k);
    for (int i = 0; i < k; i++) a[i + c * k] *= 1e-20;
  } break;
  case C_TIE:
    if (k > 1) a[1] = RandInt(2) ? a[0] : -a[0];
    break;
  case C_NAN:
    a[RandInt(k * k)] = NAN;
    break;
  case C_INF:
    a[RandInt(k * k)] = RandInt(2) ? INFINITY : -INFINITY;
    break;
  case C_HUGE:
  case C_SMALL:
  case C_OVERFLOW:
    for (int e = 0; e < k * k; e++) a[e] *= kind == C_HUGE ? 1e250 : kind == C_SMALL ? 1e-250 : 1e-310;
    break;
  }
}

/* The class launches of a batch, as LaunchInvertByClass() in src/sys/cuda/invert_batched.cuh makes them: classes 0 and 1
   together at P = 2 (1 when class 1 is empty), then each non-empty class c at P = 2^c, through perm (nullptr: one
   launch) */
template <int P, class Src, class Sto>
static long EmuSetup(const Src &src, const Sto &sto, int nwork, int kmax, const int *perm, const int *starts, const int *sizes, const PetscInt64 *off, double *x, int identity, PetscInt *info, Outcome *outcome)
{
  const unsigned grid = (unsigned)((nwork + InvertBlocksPerCta(P) - 1) / InvertBlocksPerCta(P));
  return nwork ? EmuLaunch(grid, PBG_CTA, [&] { InvertKernel<P>(src, sto, nwork, kmax, perm, starts, sizes, off, x, identity, info, outcome); }) : 0;
}

template <class Src, class Sto>
static long EmuSetupByClass(const int count[], const int *perm, const Src &src, const Sto &sto, int kmax, const int *starts, const int *sizes, const PetscInt64 *off, double *x, int identity, PetscInt *info, Outcome *outcome, std::string &launches)
{
  long errs  = 0;
  int  begin = count[0] + count[1];
  if (begin) {
    errs += count[1] ? EmuSetup<2>(src, sto, begin, kmax, perm, starts, sizes, off, x, identity, info, outcome) : EmuSetup<1>(src, sto, begin, kmax, perm, starts, sizes, off, x, identity, info, outcome);
    launches += count[1] ? "P<=2" : "P=1";
  }
  for (int c = 2; c < NumWidthClasses; c++) {
    if (!count[c]) continue;
    const int *pc = perm ? perm + begin : nullptr;
    switch (c) {
    case 2:
      errs += EmuSetup<4>(src, sto, count[c], kmax, pc, starts, sizes, off, x, identity, info, outcome);
      break;
    case 3:
      errs += EmuSetup<8>(src, sto, count[c], kmax, pc, starts, sizes, off, x, identity, info, outcome);
      break;
    case 4:
      errs += EmuSetup<16>(src, sto, count[c], kmax, pc, starts, sizes, off, x, identity, info, outcome);
      break;
    default:
      errs += EmuSetup<32>(src, sto, count[c], kmax, pc, starts, sizes, off, x, identity, info, outcome);
      break;
    }
    launches += (launches.empty() ? "P=" : ",") + std::to_string(1 << c);
    begin += count[c];
  }
  return errs;
}

/* perm of the blocks grouped by class: on the device (KeyCountKernel + KeyPermKernel by size in the emulator, checked: the
   counts equal the host's, every block once, sorted by size (so grouped by class), ascending runs of each size), or on
   the host, grouped by class and shuffled within each (the order within a class must not matter) */
static bool ClassPerm(bool device, int nb, int kmax, const int *starts, const int *sizes, int count[], std::vector<int> &perm, long &errs, int &nruns)
{
  std::vector<int> key(nb), kcount(NumSizeKeys, 0);
  bool             ok = true;
  for (int q = 0; q < NumWidthClasses; q++) count[q] = 0;
  for (int b = 0; b < nb; b++) {
    const int k = sizes ? sizes[b] : starts[b + 1] - starts[b];
    key[b]      = k < 0 || k > kmax ? 0 : k;
    kcount[key[b]]++;
    count[WidthClass(key[b])]++;
  }
  perm.assign(nb, -1);
  nruns = 0;
  if (device) {
    std::vector<int> dcount(NumSizeKeys, 0), cursor(NumSizeKeys, 0), seen(nb, 0);
    const unsigned   grid = (unsigned)((nb + PBG_CLASS_ITEMS * PBG_CTA - 1) / (PBG_CLASS_ITEMS * PBG_CTA));
    errs += EmuLaunch(grid, PBG_CTA, [&] { KeyCountKernel(nb, SizeKey{kmax, starts, sizes}, dcount.data()); });
    errs += EmuLaunch(grid, PBG_CTA, [&] { KeyPermKernel(nb, SizeKey{kmax, starts, sizes}, dcount.data(), cursor.data(), perm.data()); });
    for (int q = 0; q < NumSizeKeys; q++) ok = ok && dcount[q] == kcount[q] && cursor[q] == kcount[q];
    for (int at = 0; at < nb; at++) {
      const int b = perm[at];
      if (b < 0 || b >= nb || seen[b]++) {
        ok = false;
        continue;
      }
      if (at > 0 && perm[at - 1] >= 0 && perm[at - 1] < nb) {
        const int pb = perm[at - 1];
        if (key[pb] > key[b]) ok = false; /* sorted by size */
        if (key[pb] != key[b] || pb > b) nruns++;
      } else nruns++;
    }
  } else {
    std::vector<int> at(NumWidthClasses, 0);
    for (int q = 1; q < NumWidthClasses; q++) at[q] = at[q - 1] + count[q - 1];
    for (int b = 0; b < nb; b++) perm[at[WidthClass(key[b])]++] = b;
    for (int q = 0, begin = 0; q < NumWidthClasses; q++) {
      for (int e = count[q] - 1; e > 0; e--) std::swap(perm[begin + e], perm[begin + RandInt(e + 1)]);
      begin += count[q];
    }
  }
  return ok;
}

/* A batch of nb blocks of random sizes 1..kmax (kmax <= 2: the thread-per-block path alone) in random order, the
   special kinds among them, launched by class through a permutation made on the device (emulated) or on the host;
   the dense source (DenseSource, DoubleStore) inverts in place (bad sizes too), the sparse sources (SparseSource, StoreSpec) extract the blocks of a CSR/BSR matrix into an
   output poisoned with NaN. Every info must equal the host's, every inverse the host's to FP64 rounding, failed
   blocks must stay untouched (dense) and the gaps between blocks too; identity: the singular policy. */
template <class Src>
static void ClassCase(int nb, int kmax, int bs, bool device_perm, int identity)
{
  const bool              dense = std::is_same_v<Src, DenseSource>;
  std::vector<int>        sizes(nb), kind(nb, C_GOOD), starts(1, 0);
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) {
    sizes[b] = 1 + RandInt(kmax);
    if (RandInt(3) == 0) kind[b] = RandInt(dense ? C_NKINDS : C_BADSIZE);
  }
  if (!dense) { /* whole block rows: sizes as drawn, the last blocks padded so that bs divides the rows */
    for (int b = 0; b < nb; b++) starts.push_back(starts.back() + sizes[b]);
    while (starts.back() % bs) {
      const int k = 1 + RandInt(std::min(kmax, bs - starts.back() % bs));
      starts.push_back(starts.back() + k);
      sizes.push_back(k);
      kind.push_back(C_GOOD);
    }
    nb = (int)sizes.size();
    off.assign(nb + 1, 0);
  }
  for (int b = 0; b < nb; b++) off[b + 1] = off[b] + (kind[b] == C_BADSIZE ? 1 : sizes[b] * sizes[b]) + (dense ? RandInt(3) : 0);
  /* the blocks as given: dense in a (with gaps), or inside the sparse matrix S */
  std::vector<double> a(off[nb] + 1, -7.25), x;
  Sparse              S;
  if (dense) {
    for (int b = 0; b < nb; b++)
      if (kind[b] == C_BADSIZE) sizes[b] = RandInt(2) ? kmax + 1 + RandInt(4) : -1 - RandInt(3);
      else SpecialBlock(kind[b], sizes[b], &a[off[b]]);
    x = a;
  } else {
    S = RandomSparse(bs, starts);
    for (int b = 0; b < nb; b++) { /* the block's entries (all inside S's pattern) replaced by the special block */
      const int           s = starts[b], k = sizes[b];
      std::vector<double> blk(k * k);
      if (kind[b] == C_GOOD) continue;
      SpecialBlock(kind[b], k, blk.data());
      for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
          const int r = s + i, c = s + j, br = r / bs, bc = c / bs;
          for (int e = S.rowptr[br]; e < S.rowptr[br + 1]; e++)
            if (S.colidx[e] == bc) S.values[(size_t)e * bs * bs + (r % bs) + (c % bs) * bs] = blk[i + j * k];
        }
    }
    x.assign(off[nb] + 1, NAN); /* poisoned output */
  }
  int                   count[NumWidthClasses], nruns = 0;
  long                  errs = 0;
  std::vector<int>      perm;
  bool                  ok      = ClassPerm(device_perm, nb, kmax, dense ? nullptr : starts.data(), dense ? sizes.data() : nullptr, count, perm, errs, nruns);
  const int             nlaunch = (count[0] + count[1] > 0) + (count[2] > 0) + (count[3] > 0) + (count[4] > 0) + (count[5] > 0);
  std::vector<PetscInt> info(nb, -99);
  SetupOutcome          outcome = {INT_MAX, 0};
  std::string           launches;
  const auto            emu = [&](const auto &src, const auto &sto) {
    return EmuSetupByClass(count, nlaunch > 1 ? perm.data() : nullptr, src, sto, kmax, dense ? nullptr : starts.data(), dense ? sizes.data() : nullptr, off.data(), x.data(), identity, info.data(), &outcome, launches);
  };
  if constexpr (std::is_same_v<Src, DenseSource>) errs += emu(DenseSource(), DoubleStore());
  else errs += emu(Src{SparseRows{S.n, bs, S.rowptr.data(), S.colidx.data(), S.values.data()}}, StoreSpec());

  double worst     = 0;
  int    first_bad = INT_MAX, nsing = 0, nfailed = 0;
  char   what[320];
  for (int b = 0; b < nb; b++) {
    const int           k = sizes[b];
    int                 want;
    std::vector<double> ref;
    if (kind[b] == C_BADSIZE) want = -2;
    else {
      /* the shared extraction gives the sub-warp A^T (k > 2; the thread-per-block path reads A's rows itself): it
         inverts A^T, whose pivots, and info when singular, are the host's on A^T; its inverse is stored transposed */
      const bool trans = Src::transposed && k > 2;
      ref.resize(k * k);
      if (dense) std::copy(&a[off[b]], &a[off[b]] + k * k, ref.begin());
      else
        for (int i = 0; i < k; i++)
          for (int j = 0; j < k; j++) ref[trans ? j + i * k : i + j * k] = Entry(S, starts[b] + i, starts[b] + j);
      want = HostInvert(k, ref.data());
      if (trans)
        for (int i = 0; i < k; i++)
          for (int j = 0; j < i; j++) std::swap(ref[i + j * k], ref[j + i * k]);
    }
    if (info[b] != want) {
      ok = false;
      printf("    block %d (k %d, kind %d): info %d, host %d\n", b, k, kind[b], (int)info[b], want);
    }
    if (want) nfailed++;
    if ((want > 0 || want == InfoInverseNotFinite) && identity) { /* the policy's replacements */
      nsing++;
      for (int e = 0; e < k * k; e++) ok = ok && x[off[b] + e] == ((e % (k + 1)) == 0 ? 1.0 : 0.0);
    } else if (want) {
      first_bad = std::min(first_bad, b);
      if (dense)
        for (PetscInt64 e = off[b]; e < off[b] + (kind[b] == C_BADSIZE ? 1 : k * k); e++) ok = ok && std::memcmp(&x[e], &a[e], sizeof(double)) == 0;
    } else {
      const double d = ScaledRelDiff(k * k, &x[off[b]], ref.data());
      if (!(d <= tol)) printf("    block %d (k %d, kind %d): rel diff %.1e\n", b, k, kind[b], d);
      worst = std::max(worst, std::isnan(d) ? INFINITY : d);
    }
    if (dense)
      for (PetscInt64 e = off[b] + (kind[b] == C_BADSIZE ? 1 : k * k); e < off[b + 1]; e++) ok = ok && x[e] == -7.25;
  }
  ok = ok && errs == 0 && worst <= tol && outcome.first_bad == first_bad && outcome.nsingular == nsing;
  snprintf(what, sizeof(what), "class    %-6s%s %4d blocks of 1..%d in random order, %d failing, perm %s, launches %s%s: max rel diff %.1e, protocol errors %ld",
           dense              ? "dense"
           : !Src::transposed ? "cached"
                              : "shared",
           dense     ? "    "
           : bs == 1 ? " CSR"
                     : (" BSR" + std::to_string(bs)).c_str(),
           nb, kmax, nfailed,
           nlaunch == 1  ? "none (one launch)"
           : device_perm ? ("device, " + std::to_string(nruns) + " ascending runs").c_str()
                         : "host, shuffled",
           launches.c_str(), identity ? ", identity policy" : "", worst, errs);
  Report(ok, what);
}

template <int P, bool TRANS>
static void ApplyCase(int nb)
{
  std::vector<int> starts(1, 0);
  for (int b = 0; b < nb; b++) starts.push_back(starts.back() + (b % 7 == 3 ? P : 1 + RandInt(P)));
  const int               n = starts.back();
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) off[b + 1] = off[b] + (PetscInt64)(starts[b + 1] - starts[b]) * (starts[b + 1] - starts[b]);
  std::vector<double> D(off[nb]), xv(n), y(n, NAN), ref(n, 0.0);
  for (auto &v : D) v = Uniform();
  for (auto &v : xv) v = Uniform();
  for (int b = 0; b < nb; b++) {
    const int s = starts[b], k = starts[b + 1] - s;
    for (int i = 0; i < k; i++)
      for (int j = 0; j < k; j++) ref[s + i] += (TRANS ? D[off[b] + j + i * k] : D[off[b] + i + j * k]) * xv[s + j];
  }
  const unsigned grid = (unsigned)((nb + PBG_CTA / P - 1) / (PBG_CTA / P));
  const long     errs = EmuLaunch(grid, PBG_CTA, [&] { ApplyKernel<P, TRANS>(nb, starts.data(), off.data(), D.data(), xv.data(), y.data()); });
  const double   diff = RelDiff(n, y.data(), ref.data());
  char           what[256];

  snprintf(what, sizeof(what), "apply%s P %2d, %3d blocks of 1..P rows: rel diff %.1e, protocol errors %ld", TRANS ? "^T" : "  ", P, nb, diff, errs);
  Report(errs == 0 && diff <= tol, what);
}

template <int P>
static void AllCases(int nb)
{
  const int nbP = nb > 0 ? nb : 2 * (PBG_CTA / P) + 1 + RandInt(PBG_CTA / P);
  DenseCase<P>(nbP, 0, 0);
  DenseCase<P>(nbP, 1, 0);
  if (P > 1) DenseCase<P>(nbP, 2, 0);
  DenseCase<P>(nbP, 3, 0);
  DenseCase<P>(nbP, 3, 1);
  DenseCase<P>(nbP, 4, 0);
  DenseCase<P>(nbP, 5, 0);
  for (int bs : {1, 2, 3}) {
    SparseCase<P, SOURCE_CACHED>(nbP, bs);
    SparseCase<P, SOURCE_SHARED>(nbP, bs);
  }
  ApplyCase<P, false>(nbP);
  ApplyCase<P, true>(nbP);
}

int main(int argc, char **argv)
{
  PetscInt seed = 1, nb = 0;
  char     cases[16] = "all";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nblocks", &nb, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-cases", cases, sizeof(cases), NULL));
  PetscCheck(!strcmp(cases, "all") || !strcmp(cases, "class"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-cases all or class, not %s", cases);
  EmuSeed(seed);
  if (!strcmp(cases, "all")) {
    AllCases<1>((int)nb);
    AllCases<2>((int)nb);
    AllCases<4>((int)nb);
    AllCases<8>((int)nb);
    AllCases<16>((int)nb);
    AllCases<32>((int)nb);
  }
  /* the launches by width class: the thread-per-block path alone (sizes 1, 1..2), then several classes; thousands of
     blocks where the emulation is cheap (several thread blocks of the permutation kernel), fewer at P = 16, 32 */
  {
    const auto n = [&](int d) { return nb > 0 ? (int)nb : d; };
    ClassCase<DenseSource>(n(3000), 1, 1, true, 0);
    ClassCase<DenseSource>(n(3000), 2, 1, true, 0);
    ClassCase<DenseSource>(n(600), 2, 1, false, 1);
    ClassCase<SparseSource<SOURCE_CACHED>>(n(600), 2, 1, true, 0);
    ClassCase<SparseSource<SOURCE_SHARED>>(n(600), 2, 2, false, 1);
    ClassCase<DenseSource>(n(2100), 5, 1, true, 0);
    ClassCase<DenseSource>(n(120), 16, 1, true, 0);
    ClassCase<DenseSource>(n(64), 32, 1, true, 0);
    ClassCase<DenseSource>(n(64), 32, 1, false, 1);
    ClassCase<SparseSource<SOURCE_CACHED>>(n(64), 32, 1, true, 0);
    ClassCase<SparseSource<SOURCE_SHARED>>(n(64), 32, 1, false, 0);
    ClassCase<SparseSource<SOURCE_CACHED>>(n(100), 16, 3, false, 1);
    ClassCase<SparseSource<SOURCE_SHARED>>(n(64), 32, 2, true, 1);
  }
  if (!nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "OK\n"));
  PetscCheck(!nfail, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d emulated kernel case(s) failed", nfail);
  PetscCall(PetscFinalize());
  return 0;
}
