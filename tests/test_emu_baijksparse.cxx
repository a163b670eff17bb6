static const char help[] = "Runs the MATBAIJKSPARSE SpMV kernels (src/mat/baijcuda_k/cuda/baijksparse_kernels.cuh) in the host warp emulator\n"
                           "(tests/emu/cuda_emu.h) and checks y = A x and y = A x + z against the host BSR product, on random BSR matrices\n"
                           "with empty rows, rows of 1..6 blocks and a long row (40 blocks), without a GPU:\n"
                           "  scalar kernel (bs 1, 2..32 lanes a row), K1 (bs 2..5, sub-warps of 8..32 lanes, an element or a column per lane), K2 (bs 2..45, ept 1..4, 1..4 warps a block row, several block rows a\n"
                           "  thread block), K3 (bs 7..70, ept 1..2, 1..3 warps, 2-D grid).\n"
                           "Each kernel also on balanced rows (segments of long rows writing partial sums to work slots), and on compressed rows\n"
                           "(no work item for an empty row; y += A x in place, the empty rows keep y).\n"
                           "The transposed products: the atomic kernel (y += A^T x, bs 1 compiled and any bs, with 70% stored zeros, whose\n"
                           "products it skips: a column no nonzero reaches keeps y exactly) and the gather of the explicit transpose's values.\n"
                           "Options: -seed <n>. Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include "../src/mat/baijcuda_k/cuda/baijksparse_kernels.cuh"
#include <petscsys.h>
#include <algorithm>
#include <vector>

using namespace pbg::baijk;

namespace pbg
{
namespace baijk
{
double smem[1 << 16]; /* the kernels' `extern __shared__ Scalar smem[]`, declared inside this namespace */
}
} // namespace pbg

struct Bsr {
  int                 bs, mbs, nbs;
  std::vector<int>    rowptr, colidx;
  std::vector<double> val;
};

static Bsr RandomBsr(int bs, int mbs)
{
  Bsr A;
  A.bs = bs, A.mbs = mbs, A.nbs = mbs + 3;
  A.rowptr.push_back(0);
  for (int r = 0; r < mbs; r++) {
    const int        len = r == mbs / 2 ? 40 : (r % 7 == 2 ? 0 : 1 + RandInt(6));
    std::vector<int> c;
    while ((int)c.size() < std::min(len, A.nbs)) {
      const int j = RandInt(A.nbs);
      if (std::find(c.begin(), c.end(), j) == c.end()) c.push_back(j);
    }
    std::sort(c.begin(), c.end());
    for (int j : c) A.colidx.push_back(j);
    A.rowptr.push_back((int)A.colidx.size());
  }
  A.val.resize(A.colidx.size() * bs * bs);
  for (auto &v : A.val) v = Uniform();
  return A;
}

static int nfail = 0;

/* Runs launch() on y (poisoned) and compares with the host product (+ z when withz) */
static void Check(const Bsr &A, bool withz, const char *what, const std::function<long(MatBAIJKSPARSEMultArgs &)> &launch)
{
  const int           bs = A.bs, n = A.mbs * bs;
  std::vector<double> x(A.nbs * bs), y(n, NAN), z(n), ref(n, 0.0);
  for (auto &v : x) v = Uniform();
  for (auto &v : z) v = Uniform();
  for (int r = 0; r < A.mbs; r++)
    for (int k = A.rowptr[r]; k < A.rowptr[r + 1]; k++)
      for (int j = 0; j < bs; j++)
        for (int i = 0; i < bs; i++) ref[r * bs + i] += A.val[(size_t)k * bs * bs + j * bs + i] * x[A.colidx[k] * bs + j];
  if (withz)
    for (int i = 0; i < n; i++) ref[i] += z[i];
  MatBAIJKSPARSEMultArgs a    = {bs, A.mbs, A.mbs, A.rowptr.data(), A.colidx.data(), nullptr, nullptr, A.val.data(), x.data(), withz ? z.data() : nullptr, y.data(), nullptr};
  const long             errs = launch(a);
  double                 num = 0, den = 0;
  for (int i = 0; i < n; i++) {
    num += (y[i] - ref[i]) * (y[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  const double diff = std::sqrt(num / den);
  const bool   ok   = errs == 0 && diff <= 1e-14;
  if (!ok) nfail++;
  printf("%s %s%s: rel diff %.1e, protocol errors %ld\n", ok ? "ok  " : "FAIL", what, withz ? " (+ z)" : "", diff, errs);
}

/* Balanced rows: block rows longer than lambda blocks are cut into segments of at most lambda blocks, each a work
   item whose partial sums go to its own slot of work[]; the other rows write y. Checks y of the whole rows and every
   slot against the host's partial products. launch(a) runs the kernel on the work items of a.
   compressed: no work item for an empty block row, and y = A x + y in place (z is y, as the off-diagonal part of an MPI
   product has it): y starts as random z, the empty rows must keep it exactly, the others get their product added. */
static void CheckSegments(const Bsr &A, int lambda, bool compressed, const char *what, const std::function<long(MatBAIJKSPARSEMultArgs &)> &launch)
{
  const int           bs = A.bs, n = A.mbs * bs;
  std::vector<int>    segptr(1, 0), segrow, slotbeg, slotend;
  std::vector<double> x(A.nbs * bs), y(n, NAN), ref(n, 0.0), z0(n, 0.0);
  int                 nempty = 0;
  for (auto &v : x) v = Uniform();
  if (compressed)
    for (int i = 0; i < n; i++) y[i] = z0[i] = Uniform();
  for (int r = 0; r < A.mbs; r++) {
    const int beg = A.rowptr[r], end = A.rowptr[r + 1];
    if (compressed && beg == end) {
      nempty++;
      continue;
    }
    if (end - beg <= lambda) {
      segptr.push_back(end);
      segrow.push_back(r);
    } else
      for (int k = beg; k < end; k += lambda) {
        segptr.push_back(std::min(end, k + lambda));
        segrow.push_back(-(int)slotbeg.size() - 1);
        slotbeg.push_back(k);
        slotend.push_back(std::min(end, k + lambda));
      }
  }
  std::vector<double> work(std::max<size_t>(1, slotbeg.size()) * bs, NAN), wref(work.size(), 0.0);
  auto                product = [&](int beg, int end, double *out) {
    for (int k = beg; k < end; k++)
      for (int j = 0; j < bs; j++)
        for (int i = 0; i < bs; i++) out[i] += A.val[(size_t)k * bs * bs + j * bs + i] * x[A.colidx[k] * bs + j];
  };
  for (size_t w = 0; w < segrow.size(); w++)
    if (segrow[w] >= 0) product(segptr[w], segptr[w + 1], &ref[segrow[w] * bs]);
  for (size_t q = 0; q < slotbeg.size(); q++) product(slotbeg[q], slotend[q], &wref[q * bs]);
  MatBAIJKSPARSEMultArgs a    = {bs, A.mbs, (int)segrow.size(), A.rowptr.data(), A.colidx.data(), segptr.data(), segrow.data(), A.val.data(), x.data(), compressed ? y.data() : nullptr, y.data(), work.data()};
  const long             errs = launch(a);
  double                 num = 0, den = 0;
  bool                   kept = true; /* compressed: the empty rows hold z exactly */
  for (size_t w = 0; w < segrow.size(); w++)
    if (segrow[w] >= 0)
      for (int i = 0; i < bs; i++) {
        const size_t o = (size_t)segrow[w] * bs + i;
        const double d = y[o] - (ref[o] + z0[o]);
        num += d * d;
        den += ref[o] * ref[o];
      }
  for (int r = 0; compressed && r < A.mbs; r++)
    if (A.rowptr[r] == A.rowptr[r + 1])
      for (int i = 0; i < bs; i++) kept = kept && y[(size_t)r * bs + i] == z0[(size_t)r * bs + i];
  for (size_t e = 0; e < slotbeg.size() * bs; e++) {
    num += (work[e] - wref[e]) * (work[e] - wref[e]);
    den += wref[e] * wref[e];
  }
  const double diff = std::sqrt(num / den);
  const bool   ok   = errs == 0 && diff <= 1e-14 && kept && (compressed ? nempty > 0 : !slotbeg.empty());
  if (!ok) nfail++;
  if (compressed)
    printf("%s %s, compressed rows, y += A x in place (%d empty rows kept: %s; lambda %d: %d work items, %d slots): rel diff %.1e, protocol errors %ld\n", ok ? "ok  " : "FAIL", what, nempty, kept ? "yes" : "NO", lambda, (int)segrow.size(),
           (int)slotbeg.size(), diff, errs);
  else printf("%s %s, balanced rows (lambda %d: %d work items, %d slots): rel diff %.1e, protocol errors %ld\n", ok ? "ok  " : "FAIL", what, lambda, (int)segrow.size(), (int)slotbeg.size(), diff, errs);
}

template <int G>
static void ScalarCase(int mbs)
{
  const Bsr A = RandomBsr(1, mbs);
  char      what[128];
  snprintf(what, sizeof(what), "scalar  bs  1, %2d lanes a row, %d rows", G, mbs);
  Check(A, G == 8, what, [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)((a.nwork + 128 / G - 1) / (128 / G)), 128, [&] { ScalarKernel<G>(a); }); });
}

/* K1 with an element per lane, or with a column per lane (COLUMNS: ept = bs) */
template <int BS, int S, bool COLUMNS = false>
static void K1Case(int mbs, int warps)
{
  const Bsr A = RandomBsr(BS, mbs);
  char      what[128];
  snprintf(what, sizeof(what), "K1 %s bs %2d, %2d lanes a block row, %d warps a thread block, %d block rows", COLUMNS ? "cols" : "    ", BS, S, warps, mbs);
  Check(A, S == 16, what, [&](MatBAIJKSPARSEMultArgs &a) {
    const int perblock = warps * (32 / S);
    return EmuLaunch((unsigned)((a.nwork + perblock - 1) / perblock), 32 * warps, [&] {
      if constexpr (COLUMNS) K1ColumnKernel<BS, S>(a);
      else K1Kernel<BS, S>(a);
    });
  });
}

template <int BS, int EPT>
static void K2Case(int mbs, int warps)
{
  const Bsr A     = RandomBsr(BS, mbs);
  const int teams = warps >= 4 ? 1 : 4 / warps, ts = 32 * warps;
  char      what[128];
  snprintf(what, sizeof(what), "K2      bs %2d, ept %d, %d warp(s) a block row, %d block rows a thread block, %d block rows", BS, EPT, warps, teams, mbs);
  Check(A, warps == 2, what, [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)((a.nwork + teams - 1) / teams), ts * teams, [&] { K2Kernel<BS, EPT>(a, warps); }); });
}

template <int EPT>
static void K3Case(int bs, int mbs, int warps)
{
  const Bsr A = RandomBsr(bs, mbs);
  char      what[128];
  snprintf(what, sizeof(what), "K3      bs %2d, ept %d, %d warp(s), %d block rows", bs, EPT, warps, mbs);
  Check(A, warps == 3, what, [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)a.nwork, 32 * warps, [&] { K3Kernel<EPT>(a); }, (unsigned)((bs + 32 * EPT - 1) / (32 * EPT))); });
}

/* y += A^T x by the atomic kernel (BS 1: bs 1 compiled; 0: any bs) on A with 70% of its entries stored as zeros, and
   only zeros in its last block column: y starts as random z; against the host's z + A^T x, and exactly z in every
   column that no nonzero entry reaches (the last block column's at least, -0.0 in z: a zero product added would make
   it +0.0, so the skip shows) */
template <int BS>
static void AtomicTransposeCase(int bs, int mbs)
{
  Bsr A = RandomBsr(bs, mbs);
  for (auto &v : A.val)
    if (Uniform() < 0.4) v = 0;                /* Uniform() is in (-1, 1): 70% of the entries */
  for (size_t k = 0; k < A.colidx.size(); k++) /* the last block column: stored zeros only, never reached */
    if (A.colidx[k] == A.nbs - 1) std::fill(A.val.begin() + k * bs * bs, A.val.begin() + (k + 1) * bs * bs, 0.0);
  const int           m = A.mbs * bs, n = A.nbs * bs;
  std::vector<double> x(m), y(n), z(n), ref(n);
  std::vector<bool>   reached(n, false);
  for (auto &v : x) v = Uniform();
  for (auto &v : z) v = Uniform();
  for (int j = 0; j < bs; j++) z[(A.nbs - 1) * bs + j] = -0.0; /* -0.0 + 0.0 is +0.0: a zero product added shows */
  ref = y = z;
  for (int r = 0; r < A.mbs; r++)
    for (int k = A.rowptr[r]; k < A.rowptr[r + 1]; k++)
      for (int j = 0; j < bs; j++)
        for (int i = 0; i < bs; i++) {
          const double a = A.val[(size_t)k * bs * bs + j * bs + i];
          ref[A.colidx[k] * bs + j] += a * x[r * bs + i];
          if (a != 0) reached[A.colidx[k] * bs + j] = true;
        }
  const long errs = EmuLaunch((unsigned)((A.mbs + 3) / 4), 128, [&] { MultTransposeAtomicKernel<BS>(bs, A.mbs, A.rowptr.data(), A.colidx.data(), A.val.data(), x.data(), y.data()); });
  double     num = 0, den = 0;
  int        untouched = 0, kept = 0;
  for (int i = 0; i < n; i++) {
    num += (y[i] - ref[i]) * (y[i] - ref[i]);
    den += ref[i] * ref[i];
    if (!reached[i]) {
      untouched++;
      kept += y[i] == z[i] && std::signbit(y[i]) == std::signbit(z[i]);
    }
  }
  const double diff = std::sqrt(num / den);
  const bool   ok   = errs == 0 && diff <= 1e-14 && untouched > 0 && kept == untouched;
  if (!ok) nfail++;
  printf("%s atomic A^T x, bs %2d%s: rel diff %.1e, %d of %d unreached entries of y kept exactly, protocol errors %ld\n", ok ? "ok  " : "FAIL", bs, BS ? " (compiled)" : "", diff, kept, untouched, errs);
}

/* The values of the explicit transpose: the host's counting sort gives the source block of each block of A^T, the
   kernel gathers them transposed (into poisoned tval); compared exactly with A's entries */
static void TransposeBlocksCase(int bs, int mbs)
{
  const Bsr        A  = RandomBsr(bs, mbs);
  const int        nz = (int)A.colidx.size(), bs2 = bs * bs;
  std::vector<int> tia(A.nbs + 1, 0), perm(nz), trow(nz);
  for (int q = 0; q < nz; q++) tia[A.colidx[q] + 1]++;
  for (int c = 0; c < A.nbs; c++) tia[c + 1] += tia[c];
  std::vector<int> next(tia.begin(), tia.end() - 1);
  for (int r = 0; r < A.mbs; r++)
    for (int q = A.rowptr[r]; q < A.rowptr[r + 1]; q++) {
      perm[next[A.colidx[q]]] = q;
      trow[next[A.colidx[q]]] = r;
      next[A.colidx[q]]++;
    }
  std::vector<double> tval((size_t)nz * bs2, NAN);
  const long long     n    = (long long)nz * bs2;
  const long          errs = EmuLaunch((unsigned)((n + 127) / 128), 128, [&] { TransposeBlocksKernel<0>(bs, n, perm.data(), A.val.data(), tval.data()); });
  int                 bad  = 0;
  for (int p = 0; p < nz; p++)
    for (int j = 0; j < bs; j++)
      for (int i = 0; i < bs; i++) bad += !(tval[(size_t)p * bs2 + j * bs + i] == A.val[(size_t)perm[p] * bs2 + i * bs + j]);
  const bool ok = errs == 0 && bad == 0;
  if (!ok) nfail++;
  printf("%s transpose gather, bs %2d: %d of %lld values wrong, protocol errors %ld\n", ok ? "ok  " : "FAIL", bs, bad, n, errs);
}

int main(int argc, char **argv)
{
  PetscInt seed = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  EmuSeed(seed);
  ScalarCase<2>(70);
  ScalarCase<8>(70);
  ScalarCase<32>(40);
  K1Case<2, 8>(50, 4);
  K1Case<2, 32>(50, 2);
  K1Case<3, 16>(50, 4);
  K1Case<4, 16>(40, 1);
  K1Case<5, 32>(40, 4);
  K1Case<2, 8, true>(50, 4);
  K1Case<3, 16, true>(50, 4);
  K1Case<3, 8, true>(50, 2);
  K1Case<4, 32, true>(40, 1);
  K1Case<5, 16, true>(40, 3);
  K2Case<2, 1>(30, 1);
  K2Case<3, 2>(30, 2);
  K2Case<6, 1>(30, 1);
  K2Case<7, 3>(30, 2);
  K2Case<8, 2>(30, 4);
  K2Case<13, 4>(20, 1);
  K2Case<13, 1>(20, 2);
  K2Case<24, 4>(12, 4);
  K2Case<33, 2>(10, 2);
  K2Case<45, 3>(8, 4);
  K3Case<1>(7, 12, 1);
  K3Case<1>(50, 8, 3);
  K3Case<2>(64, 6, 2);
  K3Case<2>(70, 5, 3);
  { /* balanced rows: every kernel on segments */
    const Bsr A1 = RandomBsr(1, 60), A3 = RandomBsr(3, 40), A9 = RandomBsr(9, 30), A50 = RandomBsr(50, 6);
    for (int c = 0; c < 3; c++) { /* balanced; compressed and balanced; compressed alone (lambda: no split) */
      const bool cmp = c > 0;
      const int  big = 1 << 30;
      CheckSegments(A1, c == 2 ? big : 4, cmp, "scalar  bs  1, 8 lanes", [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)((a.nwork + 15) / 16), 128, [&] { ScalarKernel<8>(a); }); });
      CheckSegments(A3, c == 2 ? big : 3, cmp, "K1      bs  3, 16 lanes", [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)((a.nwork + 7) / 8), 128, [&] { K1Kernel<3, 16>(a); }); });
      CheckSegments(A3, c == 2 ? big : 3, cmp, "K1 cols bs  3, 16 lanes", [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)((a.nwork + 7) / 8), 128, [&] { K1ColumnKernel<3, 16>(a); }); });
      CheckSegments(A9, c == 2 ? big : 5, cmp, "K2      bs  9, ept 2, 2 warps", [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)((a.nwork + 1) / 2), 128, [&] { K2Kernel<9, 2>(a, 2); }); });
      CheckSegments(A50, c == 2 ? big : 7, cmp, "K3      bs 50, ept 1, 2 warps", [&](MatBAIJKSPARSEMultArgs &a) { return EmuLaunch((unsigned)a.nwork, 64, [&] { K3Kernel<1>(a); }, 2); });
    }
  }
  AtomicTransposeCase<1>(1, 70);
  AtomicTransposeCase<0>(1, 70);
  AtomicTransposeCase<0>(3, 40);
  AtomicTransposeCase<0>(7, 20);
  AtomicTransposeCase<0>(40, 5);
  for (int bs : {1, 2, 5, 17}) TransposeBlocksCase(bs, 30);
  if (!nfail) PetscCall(PetscPrintf(PETSC_COMM_SELF, "OK\n"));
  PetscCheck(!nfail, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d emulated kernel case(s) failed", nfail);
  PetscCall(PetscFinalize());
  return 0;
}
