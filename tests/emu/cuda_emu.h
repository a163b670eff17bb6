/* A host emulator for the warp-level CUDA kernels of petscblockgpu, so that CI (machines without a GPU) runs their
   logic on every commit: same IEEE double arithmetic (fma included), same lane exchanges, same shared-memory use.

   Every thread of a thread block is a std::thread; the thread blocks of a launch run one after the other. The warp
   intrinsics (__shfl*_sync, __reduce_max_sync, __ballot_sync, __any_sync, __syncwarp) meet at a per-warp
   rendezvous of the warp's live lanes, __syncthreads at a per-block one. A warp intrinsic reached while lanes of
   the warp have already left the kernel is undefined behaviour in CUDA: the emulator counts it as an error.
   It checks logic and lane protocol, not timing, coalescing or the memory model. */
#pragma once
#define PBG_CUDA_EMULATOR 1 /* kernel headers leave out their launchers (<<< >>>) and CUDA includes */
#include <math.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <condition_variable>
#include <functional>
#include <source_location>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__        static /* one copy for the thread block running (they run one after the other) */
#define PBG_EXTERN_SHARED extern /* `extern double smem[]`: the array below (or one the test defines in the kernels' namespace) */

struct EmuDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local EmuDim3 threadIdx, blockIdx;
inline EmuDim3              blockDim, gridDim;
double                      smem[1 << 16]; /* `extern __shared__ double smem[]` of the running thread block */

/* A rendezvous of a changing number of live threads: wait() returns when every live thread has arrived */
class EmuRendezvous {
public:
  void reset(int n)
  {
    live    = n;
    arrived = 0;
  }
  void wait()
  {
    std::unique_lock<std::mutex> l(m);
    const unsigned long          g = gen;
    if (++arrived == live) release();
    else cv.wait(l, [&] { return gen != g; });
  }
  void leave() /* the calling thread will not arrive again */
  {
    std::unique_lock<std::mutex> l(m);
    live--;
    if (live > 0 && arrived == live) release();
  }
  int lives()
  {
    std::unique_lock<std::mutex> l(m);
    return live;
  }

private:
  void release()
  {
    arrived = 0;
    gen++;
    cv.notify_all();
  }
  std::mutex              m;
  std::condition_variable cv;
  int                     live = 0, arrived = 0;
  unsigned long           gen = 0;
};

struct EmuWarp {
  EmuRendezvous rv;
  uint64_t      slot[32];
  unsigned      site[32]; /* the source line of the intrinsic each lane is at: all must agree (converged warp) */
};

struct EmuState {
  std::vector<EmuWarp> warps;
  EmuRendezvous        block;
  std::mutex           atomics;
  long                 errors = 0;
};
inline EmuState emu;

inline int EmuLane()
{
  return (int)(threadIdx.x % 32);
}
inline EmuWarp &EmuMyWarp()
{
  return emu.warps[threadIdx.x / 32];
}

/* Every live lane deposits a 64-bit word; read(slots) runs after all have; no lane deposits again before all read */
template <class R, class F>
inline R EmuExchange(unsigned mask, uint64_t mine, F read, const std::source_location &at)
{
  EmuWarp &w        = EmuMyWarp();
  bool     bad      = mask == 0xffffffffu && w.rv.lives() < 32;
  w.slot[EmuLane()] = mine;
  w.site[EmuLane()] = at.line();
  w.rv.wait();
  for (int l = 0; l < 32; l++)
    if ((mask >> l & 1u) && w.site[l] != at.line()) bad = true; /* lanes of the mask at another intrinsic */
  R r = read(w.slot);
  w.rv.wait();
  if (bad) {
    std::lock_guard<std::mutex> g(emu.atomics);
    emu.errors++;
  }
  return r;
}

template <class T>
inline uint64_t EmuBits(T v)
{
  uint64_t u = 0;
  static_assert(sizeof(T) <= 8, "64-bit payloads at most");
  std::memcpy(&u, &v, sizeof(T));
  return u;
}
template <class T>
inline T EmuFromBits(uint64_t u)
{
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

template <class T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32, const std::source_location at = std::source_location::current())
{
  const int lane = EmuLane(), from = (lane & ~(width - 1)) + (src & (width - 1));
  return EmuExchange<T>(
    mask, EmuBits(v), [&](const uint64_t *s) { return EmuFromBits<T>(s[from]); }, at);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32, const std::source_location at = std::source_location::current())
{
  const int lane = EmuLane(), seg = lane & ~(width - 1), from = (lane - seg) + (int)d < width ? lane + (int)d : lane;
  return EmuExchange<T>(
    mask, EmuBits(v), [&](const uint64_t *s) { return EmuFromBits<T>(s[from]); }, at);
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32, const std::source_location at = std::source_location::current())
{
  const int lane = EmuLane(), x = lane ^ m, from = (x & ~(width - 1)) == (lane & ~(width - 1)) ? x : lane;
  return EmuExchange<T>(
    mask, EmuBits(v), [&](const uint64_t *s) { return EmuFromBits<T>(s[from]); }, at);
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v, const std::source_location at = std::source_location::current())
{
  return EmuExchange<unsigned>(
    mask, v,
    [&](const uint64_t *s) {
      unsigned r = 0;
      for (int l = 0; l < 32; l++)
        if (mask >> l & 1u) r = r > (unsigned)s[l] ? r : (unsigned)s[l];
      return r;
    },
    at);
}
inline int __reduce_max_sync(unsigned mask, int v, const std::source_location at = std::source_location::current())
{
  return EmuExchange<int>(
    mask, (uint64_t)(uint32_t)v,
    [&](const uint64_t *s) {
      int r = INT32_MIN;
      for (int l = 0; l < 32; l++)
        if (mask >> l & 1u) r = r > (int)(uint32_t)s[l] ? r : (int)(uint32_t)s[l];
      return r;
    },
    at);
}
inline unsigned __ballot_sync(unsigned mask, int pred, const std::source_location at = std::source_location::current())
{
  return EmuExchange<unsigned>(
    mask, pred ? 1u : 0u,
    [&](const uint64_t *s) {
      unsigned r = 0;
      for (int l = 0; l < 32; l++)
        if ((mask >> l & 1u) && s[l]) r |= 1u << l;
      return r;
    },
    at);
}
inline unsigned __match_any_sync(unsigned mask, int v, const std::source_location at = std::source_location::current())
{
  const int lane = EmuLane();
  return EmuExchange<unsigned>(
    mask, (uint64_t)(uint32_t)v,
    [&](const uint64_t *s) {
      unsigned r = 0;
      for (int l = 0; l < 32; l++)
        if ((mask >> l & 1u) && s[l] == s[lane]) r |= 1u << l;
      return r;
    },
    at);
}
inline int __any_sync(unsigned mask, int pred, const std::source_location at = std::source_location::current())
{
  return __ballot_sync(mask, pred, at) != 0;
}
inline void __syncwarp(unsigned mask = 0xffffffffu, const std::source_location at = std::source_location::current())
{
  (void)EmuExchange<int>(
    mask, 0, [](const uint64_t *) { return 0; }, at);
}
inline void __syncthreads()
{
  emu.block.wait();
}

inline int __ffs(unsigned x)
{
  return __builtin_ffs((int)x);
}
inline int __popc(unsigned x)
{
  return __builtin_popcount(x);
}
inline int __double2hiint(double d)
{
  return (int)(uint32_t)(EmuBits(d) >> 32);
}
inline int __double2loint(double d)
{
  return (int)(uint32_t)EmuBits(d);
}
inline double __hiloint2double(int hi, int lo)
{
  return EmuFromBits<double>(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo);
}
template <class T>
inline T __ldg(const T *p)
{
  return *p;
}
template <class T>
inline T __ldcs(const T *p)
{
  return *p;
}
inline int atomicAdd(int *p, int v)
{
  std::lock_guard<std::mutex> g(emu.atomics);
  const int                   o = *p;
  *p += v;
  return o;
}
inline unsigned atomicAdd(unsigned *p, unsigned v)
{
  std::lock_guard<std::mutex> g(emu.atomics);
  const unsigned              o = *p;
  *p += v;
  return o;
}
/* the thread blocks run one after the other: every write is visible to the next one */
inline void __threadfence() { }
inline void __threadfence_system() { }
inline int  atomicMin(int *p, int v)
{
  std::lock_guard<std::mutex> g(emu.atomics);
  const int                   o = *p;
  if (v < o) *p = v;
  return o;
}

/* Runs kernel() as a launch of grid x grid_y thread blocks of block threads (1-D blocks, a multiple of 32), one thread
   block after the other.
   Returns the number of protocol errors (warp intrinsics with lanes that had left). */
inline long EmuLaunch(unsigned grid, unsigned block, const std::function<void()> &kernel, unsigned grid_y = 1)
{
  std::vector<std::thread> threads;
  EmuRendezvous            next; /* the thread blocks are run one after the other */

  emu.errors = 0;
  emu.warps  = std::vector<EmuWarp>(block / 32);
  gridDim.x  = grid;
  gridDim.y  = grid_y;
  blockDim.x = block;
  next.reset((int)block);
  for (unsigned t = 0; t < block; t++)
    threads.emplace_back([&, t] {
      threadIdx.x = t;
      for (unsigned b = 0; b < grid * grid_y; b++) {
        if (t == 0) {
          for (auto &w : emu.warps) w.rv.reset(32);
          emu.block.reset((int)block);
        }
        next.wait(); /* the rendezvous are reset before anyone uses them */
        blockIdx.x = b % grid;
        blockIdx.y = b / grid;
        kernel();
        EmuMyWarp().rv.leave();
        emu.block.leave();
        next.wait(); /* everyone is done with this thread block (and its smem) */
      }
    });
  for (auto &th : threads) th.join();
  return emu.errors;
}
