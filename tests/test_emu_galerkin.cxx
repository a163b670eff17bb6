static const char help[] = "Runs the kernels of the blocked sparse products (src/mat/baijcuda_k/cuda/baijksparse_galerkin_kernels.cuh) in the\n"
                           "host warp emulator (tests/emu/cuda_emu.h), without a GPU, against host references on random block matrices (empty\n"
                           "block rows, a long block row, rectangular blocks):\n"
                           "- an AIJ prolongator in blocks: the keys of its entries, its block pattern, its values and back (CSR <-> BSR);\n"
                           "- the patterns of A B and P^T Q: the kernels' block-pair keys, sorted and made unique on the host (cub's part on\n"
                           "  the GPU), then the pattern kernel, against the structural product;\n"
                           "- their values (a warp a block row; atomics for P^T Q) against dense products, the outputs poisoned with NaN\n"
                           "  then zeroed as the launchers do;\n"
                           "- the MPI products' two kernels: an operator's two parts side by side (ghost columns below and above the own\n"
                           "  ones, no off-diagonal part) and the fixed-order block gather (one source a block, several, from the local\n"
                           "  and the received arrays), outputs poisoned with NaN.\n"
                           "Block sizes rbs x cbs 1x1 .. 6x6, several thread blocks (grid-stride loops). Options: -seed <n>. Prints one line\n"
                           "per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include "../src/mat/baijcuda_k/cuda/baijksparse_galerkin_kernels.cuh"
#include <petscsys.h>
#include <algorithm>
#include <set>
#include <vector>

using namespace pbg::baijk;

static int nfail = 0;

/* A block CSR of mb x nb blocks of rbs x cbs (column-major), sorted columns: empty rows (r % 5 == 4), a long row (r == 1:
   every column), else 1..3 blocks; random values */
struct Blocks {
  int                 rbs, cbs, mb, nb;
  std::vector<int>    rowptr, colidx;
  std::vector<double> val;
};

static Blocks RandomBlocks(int rbs, int cbs, int mb, int nb)
{
  Blocks b{rbs, cbs, mb, nb, {0}, {}, {}};

  for (int r = 0; r < mb; r++) {
    std::set<int> cols;

    if (r % 5 != 4 && nb > 0) {
      if (r == 1)
        for (int c = 0; c < nb; c++) cols.insert(c);
      else
        for (int t = 0; t < 1 + RandInt(3); t++) cols.insert(RandInt(nb));
    }
    for (int c : cols) b.colidx.push_back(c);
    b.rowptr.push_back((int)b.colidx.size());
  }
  b.val.resize(b.colidx.size() * rbs * cbs);
  for (double &v : b.val) v = Uniform();
  return b;
}

/* The dense (mb rbs) x (nb cbs) array of a block CSR, row-major */
static std::vector<double> Dense(const Blocks &b)
{
  std::vector<double> d((size_t)b.mb * b.rbs * b.nb * b.cbs, 0.0);
  const size_t        ld = (size_t)b.nb * b.cbs;

  for (int r = 0; r < b.mb; r++)
    for (int e = b.rowptr[r]; e < b.rowptr[r + 1]; e++)
      for (int i = 0; i < b.rbs; i++)
        for (int j = 0; j < b.cbs; j++) d[(size_t)(r * b.rbs + i) * ld + (size_t)b.colidx[e] * b.cbs + j] = b.val[(size_t)e * b.rbs * b.cbs + i + (size_t)j * b.rbs];
  return d;
}

/* The pattern of sorted keys made unique (cub's sort and unique on the GPU), by the pattern kernel */
static void PatternOfKeys(std::vector<Key> keys, int mb, int nb, std::vector<int> &rowptr, std::vector<int> &colidx, long &err)
{
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const long long nz = (long long)keys.size();

  rowptr.assign(mb + 1, -1);
  colidx.assign(std::max<long long>(nz, 1), -1);
  err += EmuLaunch(2, 64, [&] { PatternOfKeysKernel(mb, nz, (Key)std::max(nb, 1), keys.data(), rowptr.data(), colidx.data()); });
  colidx.resize(nz);
}

/* The structural block pattern of the product of the dense arrays (m x k blocks of rbs x kbs times k x n blocks) */
static void DensePattern(const std::vector<std::set<int>> &rows, std::vector<int> &rowptr, std::vector<int> &colidx)
{
  rowptr.assign(1, 0);
  colidx.clear();
  for (auto &s : rows) {
    for (int c : s) colidx.push_back(c);
    rowptr.push_back((int)colidx.size());
  }
}

static double MaxRelDiff(const std::vector<double> &x, const std::vector<double> &ref)
{
  double d = 0, r = 0;

  for (size_t i = 0; i < ref.size(); i++) {
    if (std::isnan(x[i])) return INFINITY;
    d = std::max(d, std::fabs(x[i] - ref[i]));
    r = std::max(r, std::fabs(ref[i]));
  }
  return r > 0 ? d / r : d;
}

/* The values of a block CSR (pattern rowptr, colidx) read from a dense row-major array */
static std::vector<double> BlocksOfDense(const std::vector<double> &d, int rbs, int cbs, int nb, const std::vector<int> &rowptr, const std::vector<int> &colidx)
{
  std::vector<double> v(colidx.size() * rbs * cbs);
  const size_t        ld = (size_t)nb * cbs;

  for (size_t r = 0; r + 1 < rowptr.size(); r++)
    for (int e = rowptr[r]; e < rowptr[r + 1]; e++)
      for (int i = 0; i < rbs; i++)
        for (int j = 0; j < cbs; j++) v[(size_t)e * rbs * cbs + i + (size_t)j * rbs] = d[(r * rbs + i) * ld + (size_t)colidx[e] * cbs + j];
  return v;
}

/* C = A B: pattern and values */
static void ProductCase(int rbs, int kbs, int cbs, int mb, int kb, int nb)
{
  Blocks           a = RandomBlocks(rbs, kbs, mb, kb), b = RandomBlocks(kbs, cbs, kb, nb);
  long             err = 0;
  const int        nza = (int)a.colidx.size();
  std::vector<I64> counts(nza + 1, -1), offsets(nza + 1, 0);

  err += EmuLaunch(2, 32, [&] { ProductCountsKernel(nza, a.colidx.data(), b.rowptr.data(), counts.data()); });
  for (int e = 0; e < nza; e++) offsets[e + 1] = offsets[e] + counts[e];
  std::vector<Key> keys(std::max<I64>(offsets[nza], 1), ~(Key)0);
  err += EmuLaunch(3, 64, [&] { ProductKeysKernel(mb, nza, a.rowptr.data(), a.colidx.data(), b.rowptr.data(), b.colidx.data(), (Key)std::max(nb, 1), offsets.data(), keys.data()); });
  keys.resize(offsets[nza]);
  std::vector<int> rowptr, colidx, rref, cref;
  PatternOfKeys(keys, mb, nb, rowptr, colidx, err);

  std::vector<std::set<int>> rows(mb);
  for (int r = 0; r < mb; r++)
    for (int e = a.rowptr[r]; e < a.rowptr[r + 1]; e++)
      for (int f = b.rowptr[a.colidx[e]]; f < b.rowptr[a.colidx[e] + 1]; f++) rows[r].insert(b.colidx[f]);
  DensePattern(rows, rref, cref);
  const bool okp = rowptr == rref && colidx == cref;

  /* values: poisoned, zeroed as the launcher does, then the kernel; against the dense product */
  std::vector<double> c(colidx.size() * rbs * cbs, NAN), da = Dense(a), db = Dense(b), dc((size_t)mb * rbs * nb * cbs, 0.0);
  std::fill(c.begin(), c.end(), 0.0);
  err += EmuLaunch(2, 64, [&] { BlockProductKernel(mb, rbs, kbs, cbs, a.rowptr.data(), a.colidx.data(), a.val.data(), b.rowptr.data(), b.colidx.data(), b.val.data(), rowptr.data(), colidx.data(), c.data()); });
  for (int i = 0; i < mb * rbs; i++)
    for (int k = 0; k < kb * kbs; k++) {
      const double x = da[(size_t)i * kb * kbs + k];
      if (x != 0)
        for (int j = 0; j < nb * cbs; j++) dc[(size_t)i * nb * cbs + j] += x * db[(size_t)k * nb * cbs + j];
    }
  const double dv  = okp ? MaxRelDiff(c, BlocksOfDense(dc, rbs, cbs, nb, rowptr, colidx)) : INFINITY;
  const bool   okv = err == 0 && dv <= 1e-13;

  printf("A B, blocks %dx%d times %dx%d, %d x %d x %d blocks: pattern %s (%zu blocks), values %s (rel diff %.1e)\n", rbs, kbs, kbs, cbs, mb, kb, nb, okp ? "ok" : "FAILED", colidx.size(), okv ? "ok" : "FAILED", dv);
  if (!okp || !okv) nfail++;
}

/* C = P^T Q (P and Q of the same block rows): pattern and values */
static void TransposeCase(int kbs, int pcbs, int qcbs, int mb, int np, int nq)
{
  Blocks           p = RandomBlocks(kbs, pcbs, mb, np), q = RandomBlocks(kbs, qcbs, mb, nq);
  long             err = 0;
  std::vector<I64> counts(mb + 1, -1), offsets(mb + 1, 0);

  err += EmuLaunch(2, 32, [&] { TransposeCountsKernel(mb, p.rowptr.data(), q.rowptr.data(), counts.data()); });
  for (int k = 0; k < mb; k++) offsets[k + 1] = offsets[k] + counts[k];
  std::vector<Key> keys(std::max<I64>(offsets[mb], 1), ~(Key)0);
  err += EmuLaunch(3, 64, [&] { TransposeKeysKernel(mb, p.rowptr.data(), p.colidx.data(), q.rowptr.data(), q.colidx.data(), (Key)std::max(nq, 1), offsets.data(), keys.data()); });
  keys.resize(offsets[mb]);
  std::vector<int> rowptr, colidx, rref, cref;
  PatternOfKeys(keys, np, nq, rowptr, colidx, err);

  std::vector<std::set<int>> rows(np);
  for (int k = 0; k < mb; k++)
    for (int f = p.rowptr[k]; f < p.rowptr[k + 1]; f++)
      for (int g = q.rowptr[k]; g < q.rowptr[k + 1]; g++) rows[p.colidx[f]].insert(q.colidx[g]);
  DensePattern(rows, rref, cref);
  const bool okp = rowptr == rref && colidx == cref;

  std::vector<double> c(colidx.size() * pcbs * qcbs, NAN), dp = Dense(p), dq = Dense(q), dc((size_t)np * pcbs * nq * qcbs, 0.0);
  std::fill(c.begin(), c.end(), 0.0);
  err += EmuLaunch(2, 64, [&] { BlockTransposeProductKernel(mb, kbs, pcbs, qcbs, p.rowptr.data(), p.colidx.data(), p.val.data(), q.rowptr.data(), q.colidx.data(), q.val.data(), rowptr.data(), colidx.data(), c.data()); });
  for (int k = 0; k < mb * kbs; k++)
    for (int i = 0; i < np * pcbs; i++) {
      const double x = dp[(size_t)k * np * pcbs + i];
      if (x != 0)
        for (int j = 0; j < nq * qcbs; j++) dc[(size_t)i * nq * qcbs + j] += x * dq[(size_t)k * nq * qcbs + j];
    }
  const double dv  = okp ? MaxRelDiff(c, BlocksOfDense(dc, pcbs, qcbs, nq, rowptr, colidx)) : INFINITY;
  const bool   okv = err == 0 && dv <= 1e-13;

  printf("P^T Q, blocks %dx%d and %dx%d, %d block rows, %d x %d result: pattern %s (%zu blocks), values %s (rel diff %.1e)\n", kbs, pcbs, kbs, qcbs, mb, np, nq, okp ? "ok" : "FAILED", colidx.size(), okv ? "ok" : "FAILED", dv);
  if (!okp || !okv) nfail++;
}

/* A CSR (every other entry of random blocks of rbs x cbs, a block's last entry always) in blocks: the keys of its entries,
   the pattern, the values (CSR -> BSR, zeros where a block lacks an entry) and back (BSR -> CSR of every entry of every
   block, rows sorted), as the AIJ prolongator takes them */
static void CSRCase(int rbs, int cbs, int mb, int nb)
{
  Blocks              b = RandomBlocks(rbs, cbs, mb, nb);
  const int           m = mb * rbs;
  std::vector<int>    ci(1, 0), cj;
  std::vector<double> ca, full(b.val.size(), 0.0);
  long                err = 0;

  for (int i = 0; i < m; i++) { /* row i: the entries of its block row's blocks, every other one kept */
    const int r = i / rbs;
    for (int e = b.rowptr[r]; e < b.rowptr[r + 1]; e++)
      for (int j = 0; j < cbs; j++) {
        const size_t at = (size_t)e * rbs * cbs + i % rbs + (size_t)j * rbs;
        if (RandInt(2) || (i % rbs == rbs - 1 && j == cbs - 1)) {
          cj.push_back(b.colidx[e] * cbs + j);
          ca.push_back(b.val[at]);
          full[at] = b.val[at];
        }
      }
    ci.push_back((int)cj.size());
  }
  const long long  nnz = (long long)cj.size();
  std::vector<Key> keys(std::max<long long>(nnz, 1), ~(Key)0);
  err += EmuLaunch(3, 64, [&] { CSRBlockKeysKernel(m, nnz, rbs, cbs, (Key)std::max(nb, 1), ci.data(), cj.data(), keys.data()); });
  keys.resize(nnz);
  std::vector<int> rowptr, colidx;
  PatternOfKeys(keys, mb, nb, rowptr, colidx, err);
  const bool          okp = rowptr == b.rowptr && colidx == b.colidx;
  std::vector<double> val(b.val.size(), NAN), back(b.val.size(), NAN), bref;
  std::fill(val.begin(), val.end(), 0.0); /* zeroed, as the launcher does */
  if (okp) err += EmuLaunch(2, 64, [&] { CSRToBSRKernel(rbs, cbs, m, nnz, ci.data(), cj.data(), ca.data(), rowptr.data(), colidx.data(), val.data()); });
  for (int r = 0; r < mb; r++)
    for (int i = 0; i < rbs; i++)
      for (int e = b.rowptr[r]; e < b.rowptr[r + 1]; e++)
        for (int j = 0; j < cbs; j++) bref.push_back(full[(size_t)e * rbs * cbs + i + (size_t)j * rbs]);
  if (okp) err += EmuLaunch(2, 96, [&] { BSRToCSRKernel(rbs, cbs, mb, (long long)val.size(), rowptr.data(), val.data(), back.data()); });
  const bool okv = err == 0 && okp && val == full && back == bref;

  printf("CSR in blocks of %dx%d, %d x %d blocks, %lld entries: pattern %s, values %s\n", rbs, cbs, mb, nb, nnz, okp ? "ok" : "FAILED", okv ? "ok" : "FAILED");
  if (!okp || !okv) nfail++;
}

/* An operator's diagonal part d (mb x nown) and off-diagonal part o (mb x nghost) side by side, ghosts below glo kept,
   the others after the own columns; without o too */
static void JoinCase(int bs, int mb, int nown, int nghost, int glo, bool with_o)
{
  Blocks              d = RandomBlocks(bs, bs, mb, nown), o = RandomBlocks(bs, bs, mb, nghost);
  const int           blk = bs * bs, nz = (int)d.colidx.size() + (with_o ? (int)o.colidx.size() : 0);
  std::vector<int>    rowptr(mb + 1, -1), colidx(std::max(nz, 1), -1), rref(1, 0), cref;
  std::vector<double> val((size_t)std::max(nz, 1) * blk, NAN), vref;
  long                err = 0;

  for (int r = 0; r < mb; r++) {
    for (int e = d.rowptr[r]; e < d.rowptr[r + 1]; e++) {
      cref.push_back(d.colidx[e] + glo);
      vref.insert(vref.end(), d.val.begin() + (size_t)e * blk, d.val.begin() + (size_t)(e + 1) * blk);
    }
    if (with_o)
      for (int e = o.rowptr[r]; e < o.rowptr[r + 1]; e++) {
        cref.push_back(o.colidx[e] < glo ? o.colidx[e] : o.colidx[e] + nown);
        vref.insert(vref.end(), o.val.begin() + (size_t)e * blk, o.val.begin() + (size_t)(e + 1) * blk);
      }
    rref.push_back((int)cref.size());
  }
  const int    *orow = with_o ? o.rowptr.data() : nullptr, *ocol = with_o ? o.colidx.data() : nullptr;
  const double *oval = with_o ? o.val.data() : nullptr;
  err += EmuLaunch(2, 32, [&] { JoinRowPtrKernel(mb, d.rowptr.data(), orow, rowptr.data()); });
  err += EmuLaunch(2, 64, [&] { JoinColumnsKernel(mb, blk, glo, nown, d.rowptr.data(), d.colidx.data(), d.val.data(), orow, ocol, oval, rowptr.data(), colidx.data(), val.data()); });
  colidx.resize(nz);
  val.resize((size_t)nz * blk);
  /* values only (the numeric phase): the columns left alone */
  std::vector<double> val2((size_t)std::max(nz, 1) * blk, NAN);
  err += EmuLaunch(3, 32, [&] { JoinColumnsKernel(mb, blk, glo, nown, d.rowptr.data(), d.colidx.data(), d.val.data(), orow, ocol, oval, rowptr.data(), nullptr, val2.data()); });
  val2.resize((size_t)nz * blk);
  const bool ok = err == 0 && rowptr == rref && colidx == cref && val == vref && val2 == vref;

  printf("parts side by side, bs %d, %d block rows, %d own and %d ghost columns (%d below)%s: %s\n", bs, mb, nown, with_o ? nghost : 0, with_o ? glo : 0, with_o ? "" : ", no off-diagonal part", ok ? "ok" : "FAILED");
  if (!ok) nfail++;
}

/* dst block d = sum of the sources perm[jmap[d]..jmap[d+1]) (jmap NULL: perm[d]), below nloc from loc, else from rcv */
static void GatherCase(int blk, int ndst, int nloc, int nrcv, bool one)
{
  std::vector<double> loc((size_t)nloc * blk), rcv((size_t)std::max(nrcv, 1) * blk), dst((size_t)ndst * blk, NAN), ref((size_t)ndst * blk, 0.0);
  std::vector<int>    jmap(1, 0), perm;
  long                err = 0;

  for (double &v : loc) v = Uniform();
  for (double &v : rcv) v = Uniform();
  for (int d = 0; d < ndst; d++) {
    const int n = one ? 1 : RandInt(4); /* 0..3 sources: a block may have none (zero) */
    for (int t = 0; t < n; t++) {
      const int s = RandInt(nloc + nrcv);
      perm.push_back(s);
      for (int i = 0; i < blk; i++) ref[(size_t)d * blk + i] += s < nloc ? loc[(size_t)s * blk + i] : rcv[(size_t)(s - nloc) * blk + i];
    }
    jmap.push_back((int)perm.size());
  }
  err += EmuLaunch(3, 64, [&] { BlockGatherKernel((I64)ndst * blk, blk, one ? nullptr : jmap.data(), perm.data(), loc.data(), nloc, rcv.data(), dst.data()); });
  const bool ok = err == 0 && dst == ref; /* the same order of additions: bitwise */

  printf("block gather, %d values a block, %d blocks, %d local and %d received sources, %s: %s\n", blk, ndst, nloc, nrcv, one ? "one source each" : "0-3 sources each", ok ? "ok" : "FAILED");
  if (!ok) nfail++;
}

int main(int argc, char **argv)
{
  PetscInt seed = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  EmuSeed(seed);
  const int prod[][3] = {{1, 1, 1}, {1, 1, 3}, {2, 2, 3}, {3, 3, 6}, {5, 5, 2}, {6, 6, 6}, {4, 4, 4}};
  for (auto &s : prod) CSRCase(s[1], s[2], 13, 9);
  for (auto &s : prod) ProductCase(s[0], s[1], s[2], 17, 13, 9);
  for (auto &s : prod) TransposeCase(s[0], s[2], s[2], 19, 8, 11);
  TransposeCase(3, 6, 2, 12, 7, 5); /* P and Q of different column block sizes */
  for (int bs : {1, 3, 6}) {
    JoinCase(bs, 14, 9, 7, 3, true);
    JoinCase(bs, 14, 9, 7, 0, true);
    JoinCase(bs, 14, 9, 7, 7, true);
    JoinCase(bs, 14, 9, 0, 0, false);
  }
  for (int blk : {1, 9, 36}) {
    GatherCase(blk, 40, 30, 12, true);
    GatherCase(blk, 40, 30, 12, false);
    GatherCase(blk, 25, 20, 0, false);
  }
  printf(nfail ? "%d FAILED\n" : "OK\n", nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
