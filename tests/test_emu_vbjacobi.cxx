static const char help[] = "Runs the PCVBJACOBI device kernels (src/pc/vbjacobi/cuda/vbjacobi_kernels.cuh) in the host warp emulator\n"
                           "(tests/emu/cuda_emu.h) and checks them against host references, on every commit and without a GPU:\n"
                           "  SetupKernel, dense source: random blocks (pivots forced off the diagonal) of every size 1..P in\n"
                           "    sub-warps of P = 1..32 (uniform, mixed, smaller than P), zero columns (info = column + 1 exactly), NaN\n"
                           "    and Inf (info -1), sizes outside 0..kmax (info -2), the identity policy; failed blocks must stay\n"
                           "    untouched; inverses against Gauss-Jordan with partial pivoting in long double;\n"
                           "  SetupKernel, cached and shared extraction from CSR (bs 1) and BSR (bs 2, 3) rows with off-block\n"
                           "    entries and a long row: the inverse of the host-extracted block;\n"
                           "  ApplyKernel, plain and transposed: against the host block product.\n"
                           "Options: -seed <n>, -nblocks <n> (per case; default: two thread blocks and a partial one).\n"
                           "Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include "../src/pc/vbjacobi/cuda/vbjacobi_kernels.cuh"
#include <petscsys.h>
#include <algorithm>
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

static int    nfail = 0;
static double tol   = 1e-12;

static void Report(bool ok, const char *what)
{
  if (!ok) nfail++;
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

/* Kinds of dense test blocks */
enum { GOOD, ZEROCOL, NANENTRY, INFENTRY, BADSIZE };

/* SetupKernel<P, SOURCE_DENSE> on nb blocks; sizes from mode: 0 all P, 1 random 1..P, 2 all P/2+1 (fewer rows than
   lanes), 3 random with special blocks; identity: the singular policy */
template <int P>
static void DenseCase(int nb, int mode, int identity)
{
  std::vector<int>        sizes(nb), kind(nb, GOOD), zc(nb, -1);
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) {
    sizes[b] = mode == 0 ? P : mode == 2 ? P / 2 + 1 : 1 + RandInt(P);
    if (mode == 3) {
      const int r = RandInt(10);
      kind[b]     = r == 0 ? ZEROCOL : r == 1 ? NANENTRY : r == 2 ? INFENTRY : r == 3 ? BADSIZE : GOOD;
    }
    const int room = kind[b] == BADSIZE ? 1 : sizes[b] * sizes[b];
    off[b + 1]     = off[b] + room + RandInt(3); /* gaps between blocks must stay untouched */
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
  SetupOutcome          outcome = {INT_MAX, 0};
  SparseRows            none    = {0, 1, nullptr, nullptr, nullptr};
  const unsigned        grid    = (unsigned)((nb + PBG_CTA / P - 1) / (PBG_CTA / P));
  const long            errs    = EmuLaunch(grid, PBG_CTA, [&] { SetupKernel<P, SOURCE_DENSE>(none, nb, P, nullptr, sizes.data(), off.data(), x.data(), identity, info.data(), &outcome); });

  bool   ok = errs == 0;
  double worst = 0;
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
    if (want > 0 && identity) {
      nsing++;
      for (int e = 0; e < k * k; e++) ok = ok && x[off[b] + e] == ((e % (k + 1)) == 0 ? 1.0 : 0.0);
    } else if (want) {
      first_bad = std::min(first_bad, b);
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
           mode == 0 ? "all P" : mode == 2 ? "all P/2+1" : mode == 1 ? "1..P" : "1..P with zero columns, NaN, Inf, bad sizes", identity ? ", identity policy" : "", worst, outcome.first_bad == INT_MAX ? -1 : outcome.first_bad,
           first_bad == INT_MAX ? -1 : first_bad, outcome.nsingular, nsing, errs);
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
  nb = (int)starts.size() - 1;
  const Sparse            S = RandomSparse(bs, starts);
  std::vector<PetscInt64> off(nb + 1, 0);
  for (int b = 0; b < nb; b++) off[b + 1] = off[b] + (PetscInt64)(starts[b + 1] - starts[b]) * (starts[b + 1] - starts[b]);
  std::vector<double>   x(off[nb], NAN);
  std::vector<PetscInt> info(nb, -99);
  SetupOutcome          outcome = {INT_MAX, 0};
  SparseRows            M       = {S.n, bs, S.rowptr.data(), S.colidx.data(), S.values.data()};
  const unsigned        grid    = (unsigned)((nb + PBG_CTA / P - 1) / (PBG_CTA / P));
  const long            errs    = EmuLaunch(grid, PBG_CTA, [&] { SetupKernel<P, SRC>(M, nb, P, starts.data(), nullptr, off.data(), x.data(), 0, info.data(), &outcome); });
  bool                  ok      = errs == 0 && outcome.first_bad == INT_MAX;
  double                worst   = 0;
  char                  what[256];

  for (int b = 0; b < nb; b++) {
    const int           s = starts[b], k = starts[b + 1] - s;
    std::vector<double> blk(k * k), ref(k * k);
    for (int i = 0; i < k; i++)
      for (int j = 0; j < k; j++) blk[i + j * k] = Entry(S, s + i, s + j);
    ok = ok && info[b] == 0 && ReferenceInverse(k, blk.data(), ref.data());
    worst = std::max(worst, RelDiff(k * k, &x[off[b]], ref.data()));
  }
  ok = ok && worst <= tol;
  snprintf(what, sizeof(what), "%-8s P %2d, %3d blocks of 1..P rows from %s bs %d (%d rows, long row 0): max rel diff %.1e, protocol errors %ld", SRC == SOURCE_CACHED ? "cached" : "shared", P, nb, bs == 1 ? "CSR" : "BSR", bs, S.n, worst, errs);
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

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nblocks", &nb, NULL));
  EmuSeed(seed);
  AllCases<1>((int)nb);
  AllCases<2>((int)nb);
  AllCases<4>((int)nb);
  AllCases<8>((int)nb);
  AllCases<16>((int)nb);
  AllCases<32>((int)nb);
  if (!nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "OK\n"));
  PetscCheck(!nfail, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d emulated kernel case(s) failed", nfail);
  PetscCall(PetscFinalize());
  return 0;
}
