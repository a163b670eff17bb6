static const char help[] = "Checks the host warp emulator itself (tests/emu/cuda_emu.h): small kernels that keep the lane protocol give\n"
                           "the right results and no protocol error (shuffles, ballots, __syncthreads with shared memory, atomics, grid_y,\n"
                           "lanes that leave after their last intrinsic or outside a partial mask), and kernels that break it are reported:\n"
                           "a full-mask __shfl_sync after lanes returned early, __syncwarp at different lines in a divergent branch,\n"
                           "__syncthreads at different lines, and a deadlock (lanes at __syncthreads while the rest of their warp waits at\n"
                           "__syncwarp) that must be reported instead of hanging, after which the emulator must still run kernels.\n"
                           "Prints one line per case and 'OK' when all pass.\n";

#include "emu/cuda_emu.h"
#include <petscsys.h>
#include <vector>

static int nfail = 0;

static void Report(const char *what, long errs, long expect, bool ok)
{
  const bool pass = ok && errs == expect;
  printf("%-64s protocol errors %4ld (expected %4ld): %s\n", what, errs, expect, pass ? "ok" : "FAILED");
  if (!pass) nfail++;
}

/* good: a warp sum by __shfl_down_sync, the warp sums through shared memory and __syncthreads, a ballot, atomics */
static void Good(unsigned grid, unsigned block, unsigned grid_y)
{
  const unsigned        nb = grid * grid_y, n = nb * block;
  std::vector<double>   x(n), sum(nb, -1);
  std::vector<unsigned> ballots(nb * block / 32);
  unsigned              count = 0;
  for (unsigned i = 0; i < n; i++) x[i] = 0.5 * i + 1;
  const long errs = EmuLaunch(
    grid, block,
    [&] {
      __shared__ double part[32];
      const unsigned    b = blockIdx.y * gridDim.x + blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
      double            v = x[b * blockDim.x + threadIdx.x];
      for (int d = 16; d; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
      const unsigned bal = __ballot_sync(0xffffffffu, lane % 3 == 0);
      if (lane == 0) {
        part[warp]                          = v;
        ballots[b * blockDim.x / 32 + warp] = bal;
      }
      atomicAdd(&count, 1u);
      __syncthreads();
      if (threadIdx.x) return; /* leaves after the last intrinsic: fine */
      double s = 0;
      for (unsigned w = 0; w < blockDim.x / 32; w++) s += part[w];
      sum[b] = s;
    },
    grid_y);
  bool ok = count == n;
  for (unsigned b = 0; b < nb; b++) {
    double s = 0;
    for (unsigned t = 0; t < block; t++) s += x[b * block + t];
    ok = ok && s == sum[b];
  }
  for (unsigned w = 0; w < nb * block / 32; w++) ok = ok && ballots[w] == 0x49249249u;
  char what[96];
  snprintf(what, sizeof(what), "good: sums, ballots, atomics, %u x %u blocks of %u", grid, grid_y, block);
  Report(what, errs, 0, ok);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  Good(3, 64, 1);
  Good(2, 128, 3);

  { /* lanes 16..31 leave, lanes 0..15 exchange within their own mask: fine */
    std::vector<int> out(64, -1);
    const long       errs = EmuLaunch(1, 64, [&] {
      const int lane = threadIdx.x % 32;
      if (lane >= 16) return;
      out[threadIdx.x] = __shfl_sync(0x0000ffffu, (int)threadIdx.x, 15 - lane);
    });
    bool             ok   = true;
    for (int t = 0; t < 64; t++) ok = ok && out[t] == (t % 32 < 16 ? (t & ~31) + 15 - t % 32 : -1);
    Report("good: partial-mask __shfl_sync after the other lanes left", errs, 0, ok);
  }
  { /* lanes 16..31 leave before a full-mask __shfl_sync: an error for each of the 16 lanes left, in each warp */
    const long errs = EmuLaunch(2, 64, [&] {
      if (threadIdx.x % 32 >= 16) return;
      (void)__shfl_sync(0xffffffffu, 1.0, 0);
    });
    Report("bad: full-mask __shfl_sync after lanes returned early", errs, 2 * 2 * 16, true);
  }
  { /* the same with a lane that leaves last: the release comes from its leaving */
    const long errs = EmuLaunch(1, 32, [&] {
      if (threadIdx.x == 31) return;
      (void)__reduce_max_sync(0xffffffffu, (unsigned)threadIdx.x);
    });
    Report("bad: full-mask __reduce_max_sync, lane 31 returned", errs, 31, true);
  }
  { /* __syncwarp in both branches of a divergent if: lanes of the mask at different lines */
    const long errs = EmuLaunch(1, 64, [&] {
      if (threadIdx.x % 2) __syncwarp();
      else __syncwarp();
    });
    Report("bad: __syncwarp at different lines (divergent branches)", errs, 64, true);
  }
  { /* __syncthreads at different lines */
    const long errs = EmuLaunch(1, 64, [&] {
      if (threadIdx.x < 32) __syncthreads();
      else __syncthreads();
    });
    Report("bad: __syncthreads at different lines", errs, 64, true);
  }
  { /* deadlock: lane 0 of each warp waits at __syncthreads, the other lanes at __syncwarp for lane 0; reported
       (each waiting thread counted) instead of hanging */
    const long errs = EmuLaunch(2, 64, [&] {
      if (threadIdx.x % 32 == 0) __syncthreads();
      else __syncwarp();
    });
    Report("bad: deadlock, __syncthreads by lane 0 while its warp waits", errs, 2 * 64, true);
  }
  Good(4, 96, 2); /* the emulator still runs kernels after a deadlock */
  printf(nfail ? "%d FAILED\n" : "OK\n", nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
