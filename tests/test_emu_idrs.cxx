static const char help[] = "Runs the fused vector kernels of KSPIDRS (src/ksp/idrs/cuda/idrs_kernels.cuh) in the host warp emulator\n"
                           "(tests/emu/cuda_emu.h), without a GPU, against host references on random vectors: the linear combinations\n"
                           "(one and two outputs, an output that is also an input), the dot-product reductions (1..2 s + 3 products, each\n"
                           "register width), the step update (k = 0..s-1, with and without the Z recurrence) and the omega update (with and\n"
                           "without its norm),\n"
                           "for lengths 1..5000 with grid-stride loops over 1..5 thread blocks. Outputs and unused result slots are poisoned\n"
                           "with NaN first; the block counter of the reductions must be back at 0 after each (the next reduction reuses it).\n"
                           "Options: -seed <n>. Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include "emu/emu_random.h"
#include <../src/ksp/idrs/idrscuda.h>
#include "../src/ksp/idrs/cuda/idrs_kernels.cuh"
#include <petscsys.h>
#include <vector>

using namespace pbg::idrs;
typedef std::vector<double> V;

static int nfail = 0;

static V Random(int n)
{
  V v(n);
  for (auto &x : v) x = Uniform();
  return v;
}

/* relative to the size of the terms: the kernels sum in another order than the reference */
static bool Close(double a, double ref, double scale)
{
  return std::fabs(a - ref) <= 1e-13 * (scale + std::fabs(ref)) && !std::isnan(a);
}

static bool CloseV(const V &a, const V &ref, double scale)
{
  for (size_t i = 0; i < a.size(); i++)
    if (!Close(a[i], ref[i], scale)) return false;
  return true;
}

struct Reduction {
  std::vector<double> partials = std::vector<double>((size_t)8 * (KSPIDRS_FUSED_MAX_DOTS + 1), NAN);
  unsigned            done     = 0;
  double              results[KSPIDRS_NUM_SLOTS];
  ReduceTarget        tg;
  Reduction()
  {
    for (double &r : results) r = NAN;
    tg.partials = partials.data();
    tg.done     = &done;
    tg.results  = results;
    for (int p = 0; p <= KSPIDRS_FUSED_MAX_DOTS; p++) tg.slot[p] = p;
  }
};

static void Report(const char *what, int n, int grid, bool ok, long err)
{
  printf("%-44s n %5d, %d blocks: %s\n", what, n, grid, ok && !err ? "ok" : "FAILED");
  if (!ok || err) nfail++;
}

static void Combine(int n, int grid, int nin0, int nin1, bool alias)
{
  std::vector<V> x0(nin0), x1(nin1);
  CombineArgs    a = {};
  V              out0(n, NAN), out1, ref0(n), ref1(n);
  char           what[64];

  for (auto &v : x0) v = Random(n);
  for (auto &v : x1) v = Random(n);
  a.nin0 = nin0;
  a.nin1 = nin1;
  for (int j = 0; j < nin0; j++) {
    a.a0[j] = Uniform();
    a.x0[j] = x0[j].data();
  }
  for (int j = 0; j < nin1; j++) {
    a.a1[j] = Uniform();
    a.x1[j] = x1[j].data();
  }
  a.b = Uniform();
  for (int i = 0; i < n; i++) {
    double v = 0, u;
    for (int j = 0; j < nin0; j++) v += a.a0[j] * x0[j][i];
    ref0[i] = v;
    u       = a.b * v;
    for (int j = 0; j < nin1; j++) u += a.a1[j] * x1[j][i];
    ref1[i] = u;
  }
  a.out0 = out0.data();
  if (nin1 >= 0) {
    /* out1 is x1[0] when alias (U_k = omega v + c_k U_k + ...), else a poisoned vector */
    if (alias && nin1 > 0) a.out1 = x1[0].data();
    else {
      out1.assign(n, NAN);
      a.out1 = out1.data();
    }
  }
  long err = EmuLaunch(grid, 64, [&] { CombineKernel(n, a); });
  bool ok  = CloseV(out0, ref0, 10.0) && CloseV(alias && nin1 > 0 ? x1[0] : out1, ref1, 10.0);
  snprintf(what, sizeof(what), "combine %2d + %2d inputs%s", nin0, nin1, alias ? ", output aliases x1[0]" : "");
  Report(what, n, grid, ok, err);
}

static void CombineOne(int n, int grid, int nin0)
{
  std::vector<V> x0(nin0);
  CombineArgs    a = {};
  V              ref0(n);

  for (auto &v : x0) v = Random(n);
  a.nin0 = nin0;
  for (int j = 0; j < nin0; j++) {
    a.a0[j] = Uniform();
    a.x0[j] = x0[j].data();
  }
  for (int i = 0; i < n; i++) {
    double v = 0;
    for (int j = 0; j < nin0; j++) v += a.a0[j] * x0[j][i];
    ref0[i] = v;
  }
  a.out0   = x0[nin0 - 1].data(); /* out = sum a_j x_j with out = the last input (U_k = omega t + U c) */
  long err = EmuLaunch(grid, 64, [&] { CombineKernel(n, a); });
  char what[64];
  snprintf(what, sizeof(what), "combine %2d inputs, output aliases the last", nin0);
  Report(what, n, grid, CloseV(x0[nin0 - 1], ref0, 10.0), err);
}

template <int NP>
static void Dots(int n, int grid, int np, bool shared_y)
{
  std::vector<V> x(np), y(np);
  DotsArgs       a = {};
  Reduction      red;
  bool           ok = true;

  for (int p = 0; p < np; p++) {
    x[p]   = Random(n);
    y[p]   = shared_y && p ? y[0] : Random(n);
    a.x[p] = x[p].data();
    a.y[p] = y[p].data();
  }
  a.np     = np;
  long err = EmuLaunch(grid, ThreadsPerBlock, [&] { DotsKernel<NP>(n, a, red.tg); });
  for (int p = 0; p < np; p++) {
    double ref = 0, scale = 0;
    for (int i = 0; i < n; i++) {
      ref += x[p][i] * y[p][i];
      scale += std::fabs(x[p][i] * y[p][i]);
    }
    ok = ok && Close(red.results[p], ref, scale);
  }
  for (int p = np; p < KSPIDRS_NUM_SLOTS; p++) ok = ok && std::isnan(red.results[p]); /* untouched */
  ok = ok && red.done == 0;
  char what[64];
  snprintf(what, sizeof(what), "dots %2d products (width %2d)%s", np, NP, shared_y ? ", one y" : "");
  Report(what, n, grid, ok, err);
}

static void StepUpdate(int n, int grid, int k, bool wtrue, bool norm = true) /* norm false: KSP_NORM_NONE, no reduction */
{
  std::vector<V> G(k + 1), U(k + 1), Z(k + 1);
  V              r = Random(n), x = Random(n), rt = Random(n);
  StepArgs       a = {};
  Reduction      red;

  for (int j = 0; j <= k; j++) {
    G[j] = Random(n);
    U[j] = Random(n);
    Z[j] = Random(n);
  }
  a.k    = k;
  a.norm = norm;
  a.beta = Uniform();
  for (int j = 0; j < k; j++) {
    a.alpha[j] = Uniform();
    a.G[j]     = G[j].data();
    a.U[j]     = U[j].data();
    a.Z[j]     = wtrue ? Z[j].data() : nullptr;
  }
  /* references */
  V      gk = G[k], uk = U[k], zk = Z[k], rr = r, xr = x, rtr = rt;
  double nrm = 0, scale = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < k; j++) {
      gk[i] += a.alpha[j] * G[j][i];
      uk[i] += a.alpha[j] * U[j][i];
      zk[i] += a.alpha[j] * Z[j][i];
    }
    rr[i] -= a.beta * gk[i];
    xr[i] += a.beta * uk[i];
    rtr[i] -= a.beta * zk[i];
    const double t = wtrue ? rtr[i] : rr[i];
    nrm += t * t;
    scale += t * t;
  }
  a.gk           = G[k].data();
  a.uk           = U[k].data();
  a.zk           = wtrue ? Z[k].data() : nullptr;
  a.r            = r.data();
  a.x            = x.data();
  a.rt           = wtrue ? rt.data() : nullptr;
  V          rt0 = rt;
  Reduction *pr  = &red;
  pr->tg.slot[0] = KSPIDRS_SLOT_NORM;
  long err       = EmuLaunch(grid, ThreadsPerBlock, [&] { StepUpdateKernel(n, a, pr->tg); });
  bool ok        = CloseV(G[k], gk, 10) && CloseV(U[k], uk, 10) && CloseV(r, rr, 10) && CloseV(x, xr, 10) && (wtrue ? CloseV(Z[k], zk, 10) && CloseV(rt, rtr, 10) : rt == rt0);
  ok             = ok && (norm ? Close(red.results[KSPIDRS_SLOT_NORM], nrm, scale) : std::isnan(red.results[KSPIDRS_SLOT_NORM])) && red.done == 0;
  for (int p = 0; p < KSPIDRS_SLOT_NORM; p++) ok = ok && std::isnan(red.results[p]);
  char what[64];
  snprintf(what, sizeof(what), "step update k = %2d%s%s", k, wtrue ? ", with Z and rt" : "", norm ? "" : ", no norm");
  Report(what, n, grid, ok, err);
}

static void OmegaUpdate(int n, int grid, bool wtrue, bool w_is_r = false, bool norm = true)
{
  V         w = Random(n), t = Random(n), zt = Random(n), x = Random(n), r = Random(n), rt = Random(n);
  OmegaArgs a = {};
  Reduction red;

  a.norm  = norm ? 1 : 0;
  a.omega = Uniform();
  if (w_is_r) w = r; /* left preconditioning: x += omega r, with the r before the update */
  V xr = x, rr = r, rtr = rt, rt0 = rt;
  for (int i = 0; i < n; i++) {
    xr[i] += a.omega * w[i];
    rr[i] -= a.omega * t[i];
    rtr[i] -= a.omega * zt[i];
  }
  double nrm = 0;
  for (int i = 0; i < n; i++) {
    const double q = wtrue ? rtr[i] : rr[i];
    nrm += q * q;
  }
  a.w            = w_is_r ? r.data() : w.data();
  a.t            = t.data();
  a.zt           = wtrue ? zt.data() : nullptr;
  a.x            = x.data();
  a.r            = r.data();
  a.rt           = wtrue ? rt.data() : nullptr;
  red.tg.slot[0] = KSPIDRS_SLOT_NORM;
  long err       = EmuLaunch(grid, ThreadsPerBlock, [&] { OmegaUpdateKernel(n, a, red.tg); });
  bool ok        = CloseV(x, xr, 10) && CloseV(r, rr, 10) && (wtrue ? CloseV(rt, rtr, 10) : rt == rt0);
  ok             = ok && (norm ? Close(red.results[KSPIDRS_SLOT_NORM], nrm, nrm) : std::isnan(red.results[KSPIDRS_SLOT_NORM])) && red.done == 0;
  for (int p = 0; p < KSPIDRS_SLOT_NORM; p++) ok = ok && std::isnan(red.results[p]);
  char what[64];
  snprintf(what, sizeof(what), "omega update%s%s%s", wtrue ? ", with rt" : "", w_is_r ? ", w = r" : "", norm ? "" : ", no norm");
  Report(what, n, grid, ok, err);
}

int main(int argc, char **argv)
{
  PetscInt seed = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  EmuSeed(seed);
  Combine(1, 1, 1, 0, false);
  Combine(1000, 3, 5, 4, true);
  Combine(1000, 2, 1 + 4, 4, false);
  Combine(777, 5, KSPIDRS_FUSED_MAX_IN, KSPIDRS_FUSED_MAX_IN, true);
  CombineOne(300, 2, 1);
  CombineOne(2049, 4, 5);
  Dots<4>(1, 1, 1, false);
  Dots<4>(5000, 3, 4, true);
  Dots<4>(999, 5, 3, false);
  Dots<8>(3000, 4, 7, true);
  Dots<16>(1800, 3, 11, true); /* the omega step's reduction at s = 4: 3 + 2 s products */
  Dots<16>(64, 2, 16, false);
  Dots<KSPIDRS_FUSED_MAX_DOTS>(2500, 2, KSPIDRS_FUSED_MAX_DOTS, true);
  Dots<KSPIDRS_FUSED_MAX_DOTS>(37, 1, 9, false);
  for (int k = 0; k < 4; k++) StepUpdate(1500, 3, k, k % 2 == 1);
  StepUpdate(700, 2, KSPIDRS_FUSED_MAX_S - 1, true);
  StepUpdate(33, 1, 2, false);
  StepUpdate(1500, 3, 2, false, false); /* issue 26: KSP_NORM_NONE, the update without its reduction */
  StepUpdate(700, 2, 3, true, false);
  OmegaUpdate(2000, 3, false);
  OmegaUpdate(1000, 2, true);
  OmegaUpdate(1500, 3, true, true);
  OmegaUpdate(900, 2, false, true);
  OmegaUpdate(3000, 4, true, false, false); /* KSP_NORM_NONE: the update without its reduction */
  OmegaUpdate(5, 1, false);
  OmegaUpdate(1, 1, false, true, false);
  printf(nfail ? "%d FAILED\n" : "OK\n", nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
