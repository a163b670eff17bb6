static const char help[] = "Runs the value kernels of MatConvert() between aijcusparse and baijksparse (src/mat/baijcuda_k/cuda/baijksparse_convert_kernels.cuh)\n"
                           "in the host warp emulator (tests/emu/cuda_emu.h), without a GPU: CSR -> BSR (partly filled blocks, empty rows, a\n"
                           "long row; the BSR values poisoned with NaN and zeroed as the launcher does) and BSR -> CSR of every entry of every\n"
                           "block, against host references, for bs 1, 2, 3, 5, 8, 17, 32, with several thread blocks (grid-stride loops).\n"
                           "Options: -seed <n>. Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include "../src/mat/baijcuda_k/cuda/baijksparse_convert_kernels.cuh"
#include <petscsys.h>
#include <algorithm>
#include <set>
#include <vector>

using namespace pbg::baijk;

static int nfail = 0;

static void Case(int bs, int mbs, int nbs)
{
  const int                  m = mbs * bs, bs2 = bs * bs;
  std::vector<int>           ci(1, 0), cj, rowptr(1, 0), colidx;
  std::vector<double>        ca;
  std::vector<std::set<int>> blocks(mbs);

  /* the CSR: empty block rows (r % 4 == 3), a long block row (every block column), else 1..3 blocks, half their entries */
  std::vector<std::vector<int>> rowcols(m);
  for (int r = 0; r < mbs; r++) {
    if (r % 4 == 3) continue;
    if (r == 1)
      for (int c = 0; c < nbs; c++) blocks[r].insert(c);
    else
      for (int t = 0; t < 1 + RandInt(3); t++) blocks[r].insert(RandInt(nbs));
    for (int c : blocks[r]) {
      bool placed = false;
      for (int ii = 0; ii < bs; ii++)
        for (int jj = 0; jj < bs; jj++)
          if (RandInt(2) || (!placed && ii == bs - 1 && jj == bs - 1)) {
            rowcols[r * bs + ii].push_back(c * bs + jj);
            placed = true;
          }
    }
  }
  for (int i = 0; i < m; i++) {
    std::sort(rowcols[i].begin(), rowcols[i].end());
    for (int j : rowcols[i]) {
      cj.push_back(j);
      ca.push_back(Uniform());
    }
    ci.push_back((int)cj.size());
  }
  for (int r = 0; r < mbs; r++) {
    for (int c : blocks[r]) colidx.push_back(c);
    rowptr.push_back((int)colidx.size());
  }
  const int nzb = (int)colidx.size();

  /* CSR -> BSR against the host scatter */
  std::vector<double> val((size_t)nzb * bs2, 0.0), ref((size_t)nzb * bs2, 0.0); /* val: zeroed, as the launcher does */
  for (int i = 0; i < m; i++)
    for (int q = ci[i]; q < ci[i + 1]; q++) {
      const int r = i / bs, c = cj[q] / bs;
      const int pos                                               = (int)(std::find(colidx.begin() + rowptr[r], colidx.begin() + rowptr[r + 1], c) - colidx.begin());
      ref[(size_t)pos * bs2 + i % bs + (size_t)(cj[q] % bs) * bs] = ca[q];
    }
  const long long nnz = (long long)cj.size();
  long            err = EmuLaunch(3, 64, [&] { CSRToBSRKernel(bs, bs, m, nnz, ci.data(), cj.data(), ca.data(), rowptr.data(), colidx.data(), val.data()); });
  const bool      ok1 = err == 0 && val == ref;

  /* BSR -> CSR of every entry of every block, against the order of MatConvert_SeqBAIJ_SeqAIJ() */
  std::vector<double> a((size_t)nzb * bs2, NAN), aref;
  for (int r = 0; r < mbs; r++)
    for (int ii = 0; ii < bs; ii++)
      for (int t = rowptr[r]; t < rowptr[r + 1]; t++)
        for (int jj = 0; jj < bs; jj++) aref.push_back(ref[(size_t)t * bs2 + ii + (size_t)jj * bs]);
  err += EmuLaunch(2, 96, [&] { BSRToCSRKernel(bs, bs, mbs, (long long)nzb * bs2, rowptr.data(), ref.data(), a.data()); });
  const bool ok2 = err == 0 && a == aref;

  printf("bs %2d, %d x %d blocks, %d stored, %lld entries: CSR -> BSR %s, BSR -> CSR %s\n", bs, mbs, nbs, nzb, nnz, ok1 ? "ok" : "FAILED", ok2 ? "ok" : "FAILED");
  if (!ok1 || !ok2) nfail++;
}

int main(int argc, char **argv)
{
  PetscInt seed = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  EmuSeed(seed);
  const int cases[][3] = {{1, 13, 9}, {2, 9, 11}, {3, 8, 8}, {5, 7, 4}, {8, 6, 7}, {17, 4, 3}, {32, 3, 4}};
  for (auto &c : cases) Case(c[0], c[1], c[2]);
  printf(nfail ? "%d FAILED\n" : "OK\n", nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
