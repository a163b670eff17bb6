static const char help[] = "Runs the agglomeration kernels of PCVBJACOBI's supervariable blocking (src/pc/vbjacobi/cuda/vbjacobi_agglomerate.cuh)\n"
                           "in the host warp emulator (tests/emu/cuda_emu.h) and checks the merged blocks against a serial greedy merge,\n"
                           "on every commit and without a GPU: unit sizes all 1, all maxbs, random 1..maxbs, mostly small with a few\n"
                           "at the bound, one unit, and unit counts across thread-block edges; maxbs 2, 5, 12, 32. The pointer jumping runs\n"
                           "exactly the rounds the device path runs (AgglomerateRounds), so a bound too low shows as a missing block.\n"
                           "Options: -seed <n>. Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include "../src/pc/vbjacobi/cuda/vbjacobi_agglomerate.cuh"

using namespace pbg::vbj;
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

/* The merge as the host path writes it (PCVBJacobiAgglomerate_Host): a block grows while the next unit fits */
static std::vector<int> SerialMerge(const std::vector<int> &units, int maxbs)
{
  std::vector<int> starts;
  const int        U = (int)units.size() - 1;
  for (int u = 0; u < U;) {
    int v = u + 1;
    while (v < U && units[v + 1] - units[u] <= maxbs) v++;
    starts.push_back(units[u]);
    u = v;
  }
  starts.push_back(units[U]);
  return starts;
}

/* The device path: successors, the rounds of pointer jumping, then the marked units (poisoned work arrays) */
static std::vector<int> EmulatedMerge(const std::vector<int> &units, int maxbs, long &errors)
{
  const int        U = (int)units.size() - 1, n = units[U], cta = 32;
  const int        limit = U + 70 < n ? U + 70 : n; /* the device launches over n >= U threads; here fewer, some past U */
  const unsigned   grid  = (unsigned)((limit + 1 + cta - 1) / cta);
  std::vector<int> next(n + 1, -7), ja(n + 1, -7), jb(n + 1, -7), mark(n + 1, -7), nunits(1, U);
  AgglomerateWork  w;
  std::vector<int> starts;

  w.units      = units.data();
  w.nunits_ptr = nunits.data();
  w.next       = next.data();
  w.jump_a     = ja.data();
  w.jump_b     = jb.data();
  w.mark       = mark.data();
  errors += EmuLaunch(grid, cta, [&] { AgglomerateNextKernel(w, limit, maxbs); });
  int *jin = ja.data(), *jout = jb.data();
  for (int r = 0; r < AgglomerateRounds(n, maxbs); r++) {
    errors += EmuLaunch(grid, cta, [&] { AgglomerateJumpKernel(w, limit, jin, jout); });
    std::swap(jin, jout);
  }
  for (int u = 0; u < U; u++) {
    if (mark[u] != 0 && mark[u] != 1) errors++; /* every unit's mark must have been written */
    if (mark[u] == 1) {
      if (units[next[u]] - units[u] > maxbs) errors++; /* a merged block beyond the bound */
      if (!starts.empty() && starts.back() >= units[u]) errors++;
      starts.push_back(units[u]);
    }
  }
  starts.push_back(n);
  /* the blocks must tile the rows: each marked unit's block ends where the next marked one starts */
  for (int u = 0, b = 0; u < U; u++)
    if (mark[u] == 1 && units[next[u]] != starts[++b]) errors++;
  return starts;
}

int main(int argc, char **argv)
{
  long long seed   = 1;
  int       failed = 0, cases = 0;

  for (int i = 1; i < argc; i++) {
    if (std::string(argv[i]) == "-seed" && i + 1 < argc) seed = atoll(argv[++i]);
    else if (std::string(argv[i]) == "-help") {
      printf("%s", help);
      return 0;
    }
  }
  EmuSeed(seed);
  const char *kinds[] = {"all 1", "all maxbs", "random 1..maxbs", "small with some at the bound", "one unit"};
  for (int maxbs : {2, 5, 12, 32}) {
    for (int kind = 0; kind < 5; kind++) {
      for (int U : {1, 33, 300}) {
        std::vector<int> units(1, 0);
        if (kind == 4 && U != 1) continue;
        for (int u = 0; u < U; u++) {
          int k = 1;
          switch (kind) {
          case 1:
            k = maxbs;
            break;
          case 2:
            k = 1 + RandInt(maxbs);
            break;
          case 3:
            k = RandInt(8) == 0 ? maxbs : 1 + RandInt(3 < maxbs ? 3 : maxbs);
            break;
          case 4:
            k = 1 + RandInt(maxbs);
            break;
          }
          units.push_back(units.back() + k);
        }
        long             errors = 0;
        std::vector<int> want = SerialMerge(units, maxbs), got = EmulatedMerge(units, maxbs, errors);
        const bool       ok = errors == 0 && got == want;
        cases++;
        if (!ok) failed++;
        if (!ok || U == 300)
          printf("%s agglomeration maxbs %2d, %-28s %3d units, %5d rows: %zu blocks (mean %.2f rows)%s\n", ok ? "ok  " : "FAIL", maxbs, kinds[kind], U, units.back(), want.size() - 1, (double)units.back() / (double)(want.size() - 1), ok ? "" : " differs from the serial merge");
      }
    }
  }
  printf("%d agglomeration cases, %d failed\n", cases, failed);
  if (!failed) printf("OK\n");
  return failed ? 1 : 0;
}
