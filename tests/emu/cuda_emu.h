/* A host emulator for the warp-level CUDA kernels of petscblockgpu, so that CI (machines without a GPU) runs their
   logic on every commit: same IEEE double arithmetic (fma included), same lane exchanges, same shared-memory use.

   Execution model: the thread blocks of a launch run one after the other, all on the calling OS thread. Every CUDA
   thread of the running block is a fiber (its own stack, mmap'd with a guard page below it, reused across blocks and
   launches) and a deterministic cooperative scheduler runs them: a fiber runs until it reaches a rendezvous or leaves
   the kernel, then the next ready fiber runs (first-in first-out; at the start of a block, thread 0, 1, 2, ...).
   The warp intrinsics (__shfl*_sync, __reduce_max_sync, __ballot_sync, __match_any_sync, __any_sync, __syncwarp) meet
   at a per-warp rendezvous of the warp's live lanes, __syncthreads at a per-block one of the block's live threads; the
   arrival that completes a rendezvous makes its waiters ready again (in lane order) and carries on itself. threadIdx
   and blockIdx are plain globals that the scheduler sets before it switches to a fiber; atomics need no lock.
   Protocol errors, counted (one per lane involved) and returned by EmuLaunch:
   - a warp intrinsic whose mask names a lane that has already left the kernel (undefined behaviour in CUDA; e.g.
     lanes returned early before a full-mask __shfl_sync);
   - lanes of the mask at intrinsics of different source lines (the warp is not converged, e.g. __syncwarp in both
     branches of a divergent if); likewise threads of the block at __syncthreads of different lines;
   - a deadlock: no fiber can run while some still wait (e.g. __syncthreads reached by part of the block only, or
     lanes at __syncthreads while others of their warp wait at a warp intrinsic): reported on stderr, the waiting
     threads are abandoned and the launch goes on with the next thread block.
   It checks logic and lane protocol, not timing, coalescing or the memory model. On x86-64 the fibers switch with a
   few lines of assembly (callee-saved registers, MXCSR and the x87 control word); elsewhere, or with
   -DPBG_EMU_UCONTEXT, with ucontext's swapcontext. */
#pragma once
#define PBG_CUDA_EMULATOR 1 /* kernel headers leave out their launchers (<<< >>>) and CUDA includes */
#include <math.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <source_location>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(__x86_64__) && !defined(PBG_EMU_UCONTEXT)
  #define PBG_EMU_UCONTEXT 1
#endif
#if defined(PBG_EMU_UCONTEXT)
  #include <ucontext.h>
#endif
#if __has_include(<valgrind/valgrind.h>)
  #include <valgrind/valgrind.h> /* tells valgrind about the fiber stacks (the macros cost nothing outside valgrind) */
  #define PBG_EMU_STACK_REGISTER(lo, hi) VALGRIND_STACK_REGISTER(lo, hi)
#else
  #define PBG_EMU_STACK_REGISTER(lo, hi) 0
#endif
#ifndef PBG_EMU_STACK_BYTES
  #define PBG_EMU_STACK_BYTES (256 * 1024) /* per CUDA thread; pages are only committed when touched */
#endif

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
inline EmuDim3 threadIdx, blockIdx; /* of the running fiber: set by the scheduler on every switch */
inline EmuDim3 blockDim, gridDim;
double         smem[1 << 16]; /* `extern __shared__ double smem[]` of the running thread block */

#if !defined(PBG_EMU_UCONTEXT)
/* pbg_emu_swap(&save, to): pushes the callee-saved registers, MXCSR and the x87 control word, stores the stack pointer
   in save, and pops the same from the stack at to. .weak: the header may be in several translation units. */
__asm__(".text\n"
        ".weak pbg_emu_swap\n"
        ".type pbg_emu_swap,@function\n"
        "pbg_emu_swap:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size pbg_emu_swap, .-pbg_emu_swap\n");
extern "C" void pbg_emu_swap(void **save, void *to);
#endif

enum EmuFiberState : unsigned char {
  EMU_READY,
  EMU_WAIT_WARP,
  EMU_WAIT_BLOCK,
  EMU_DONE
};

struct EmuFiber {
  char         *stack = nullptr; /* lowest usable byte; the guard page lies below */
  unsigned      vgid  = 0;       /* valgrind's stack id */
  EmuFiberState state = EMU_DONE;
  unsigned      site  = 0; /* the source line of the __syncthreads it waits at */
#if defined(PBG_EMU_UCONTEXT)
  ucontext_t ctx;
#else
  void *sp    = nullptr;
#endif
};

struct EmuWarp {
  unsigned live, arrived; /* lanes that have not left the kernel; of those, lanes waiting at the rendezvous */
  unsigned exited;        /* mask of the lanes that have left the kernel */
  unsigned gen;           /* rendezvous completed so far: its parity picks the slot buffer */
  uint64_t slot[2][32];   /* double buffer: a lane reads gen's buffer after the release; nobody can deposit in it
                             again before every lane has passed the next rendezvous (and so has read) */
  unsigned site[32];      /* the source line of the intrinsic each waiting lane is at */
  unsigned mask[32];      /* and its mask */
};

struct EmuState {
  std::vector<EmuFiber>        fibers; /* the pool: grows to the largest block, stacks are kept */
  std::vector<EmuWarp>         warps;
  std::vector<unsigned>        ready; /* ring of fiber indices, one slot per thread of the block */
  unsigned                     head = 0, count = 0;
  unsigned                     current    = 0; /* the running fiber */
  unsigned                     block_live = 0, block_arrived = 0;
  const std::function<void()> *kernel   = nullptr;
  long                         errors   = 0;
  bool                         reported = false; /* a deadlock of this launch was printed */
#if defined(PBG_EMU_UCONTEXT)
  ucontext_t sched;
#else
  void *sched = nullptr;
#endif
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

inline void EmuMakeReady(unsigned t)
{
  emu.fibers[t].state                                    = EMU_READY;
  emu.ready[(emu.head + emu.count++) % emu.ready.size()] = t;
}

/* Back to the scheduler: the running fiber has blocked (or is done) */
inline void EmuYield()
{
  EmuFiber &f = emu.fibers[emu.current];
#if defined(PBG_EMU_UCONTEXT)
  swapcontext(&f.ctx, &emu.sched);
#else
  pbg_emu_swap(&f.sp, emu.sched);
#endif
}

/* Every lane of the warp with a bit in mask must be live and at the same source line as lane me */
inline bool EmuLaneBad(const EmuWarp &w, int me)
{
  const unsigned m = w.mask[me];
  if (m & w.exited) return true;
  for (int l = 0; l < 32; l++)
    if ((m >> l & 1u) && w.site[l] != w.site[me]) return true;
  return false;
}

/* All live lanes of warp w have arrived: count the protocol errors and make the waiters ready (the caller, if it is
   one of them, carries on) */
inline void EmuReleaseWarp(EmuWarp &w, unsigned first, int caller)
{
  for (int l = 0; l < 32; l++) {
    if (emu.fibers[first + l].state != EMU_WAIT_WARP) continue;
    if (EmuLaneBad(w, l)) emu.errors++;
    if (l == caller) emu.fibers[first + l].state = EMU_READY;
    else EmuMakeReady(first + l);
  }
  w.arrived = 0;
  w.gen++;
}

/* All live threads of the block have arrived at __syncthreads: an error for each if they are not all at the same line */
inline void EmuReleaseBlock(unsigned caller)
{
  bool     first = true, diverged = false;
  unsigned site = 0;
  for (unsigned t = 0; t < blockDim.x; t++) {
    if (emu.fibers[t].state != EMU_WAIT_BLOCK) continue;
    if (first) site = emu.fibers[t].site;
    else if (emu.fibers[t].site != site) diverged = true;
    first = false;
  }
  if (diverged) emu.errors += emu.block_arrived;
  for (unsigned t = 0; t < blockDim.x; t++) {
    if (emu.fibers[t].state != EMU_WAIT_BLOCK) continue;
    if (t == caller) emu.fibers[t].state = EMU_READY;
    else EmuMakeReady(t);
  }
  emu.block_arrived = 0;
}

/* Every live lane deposits a 64-bit word; read(slots) runs after all have */
template <class R, class F>
inline R EmuExchange(unsigned mask, uint64_t mine, F read, const std::source_location &at)
{
  EmuWarp       &w    = EmuMyWarp();
  const int      lane = EmuLane();
  const unsigned me = threadIdx.x, buf = w.gen & 1u;
  w.slot[buf][lane]    = mine;
  w.site[lane]         = at.line();
  w.mask[lane]         = mask;
  emu.fibers[me].state = EMU_WAIT_WARP;
  if (++w.arrived == w.live) EmuReleaseWarp(w, me - lane, lane);
  else EmuYield();
  return read(w.slot[buf]);
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
inline void __syncthreads(const std::source_location at = std::source_location::current())
{
  const unsigned me    = threadIdx.x;
  emu.fibers[me].state = EMU_WAIT_BLOCK;
  emu.fibers[me].site  = at.line();
  if (++emu.block_arrived == emu.block_live) EmuReleaseBlock(me);
  else EmuYield();
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
inline T __ldcg(const T *p)
{
  return *p;
}
template <class T>
inline T __ldcs(const T *p)
{
  return *p;
}
/* one OS thread runs every fiber and a fiber only yields at a rendezvous: an atomic is a plain read-modify-write */
inline int atomicAdd(int *p, int v)
{
  const int o = *p;
  *p += v;
  return o;
}
inline unsigned atomicAdd(unsigned *p, unsigned v)
{
  const unsigned o = *p;
  *p += v;
  return o;
}
inline double atomicAdd(double *p, double v)
{
  const double o = *p;
  *p += v;
  return o;
}
/* the thread blocks run one after the other: every write is visible to the next one */
inline void __threadfence() { }
inline void __threadfence_system() { }
inline int  atomicMin(int *p, int v)
{
  const int o = *p;
  if (v < o) *p = v;
  return o;
}

/* The running fiber leaves the kernel: its warp and its block no longer wait for it */
inline void EmuLeave()
{
  const unsigned me    = threadIdx.x;
  EmuWarp       &w     = EmuMyWarp();
  emu.fibers[me].state = EMU_DONE;
  w.exited |= 1u << EmuLane();
  w.live--;
  if (w.arrived > 0 && w.arrived == w.live) EmuReleaseWarp(w, me - EmuLane(), -1);
  emu.block_live--;
  if (emu.block_arrived > 0 && emu.block_arrived == emu.block_live) EmuReleaseBlock(blockDim.x);
}

#if defined(PBG_EMU_UCONTEXT)
inline void EmuFiberMain()
#else
[[noreturn]] inline void EmuFiberMain()
#endif
{
  (*emu.kernel)();
  EmuLeave();
  EmuYield(); /* never resumed: the fiber is set up afresh for the next thread block */
#if !defined(PBG_EMU_UCONTEXT)
  abort();
#endif
}

/* Sets fiber f up to start EmuFiberMain() when next switched to (its stack is allocated on first use) */
inline void EmuFiberStart(EmuFiber &f)
{
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (!f.stack) {
    char *p = (char *)mmap(nullptr, PBG_EMU_STACK_BYTES + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      fprintf(stderr, "cuda_emu: cannot map a fiber stack of %d bytes\n", PBG_EMU_STACK_BYTES);
      abort();
    }
    mprotect(p, page, PROT_NONE); /* the guard page: a stack overflow faults instead of corrupting memory */
    f.stack = p + page;
    f.vgid  = PBG_EMU_STACK_REGISTER(f.stack, f.stack + PBG_EMU_STACK_BYTES);
  }
#if defined(PBG_EMU_UCONTEXT)
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp   = f.stack;
  f.ctx.uc_stack.ss_size = PBG_EMU_STACK_BYTES;
  f.ctx.uc_link          = nullptr;
  makecontext(&f.ctx, (void (*)())EmuFiberMain, 0);
#else
  /* the frame pbg_emu_swap pops: MXCSR and x87 control word, r15 r14 r13 r12 rbx rbp, then `ret` to EmuFiberMain with
     the stack as after a call (rsp + 8 a multiple of 16) */
  uint64_t *top = (uint64_t *)(((uintptr_t)(f.stack + PBG_EMU_STACK_BYTES)) & ~(uintptr_t)15);
  *--top = 0; /* EmuFiberMain's return address: it never returns */
  *--top = (uint64_t)(uintptr_t)&EmuFiberMain;
  for (int r = 0; r < 6; r++) *--top = 0; /* callee-saved registers */
  uint32_t mxcsr;
  uint16_t fpucw;
  __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fpucw)); /* the fiber starts with the caller's */
  *--top = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
  f.sp = top;
#endif
  f.state = EMU_READY;
}

/* Runs kernel() as a launch of grid x grid_y thread blocks of block threads (1-D blocks, a multiple of 32), one thread
   block after the other.
   Returns the number of protocol errors (see the top of this file). */
inline long EmuLaunch(unsigned grid, unsigned block, const std::function<void()> &kernel, unsigned grid_y = 1)
{
  if (block == 0 || block % 32) {
    fprintf(stderr, "cuda_emu: block of %u threads, not a positive multiple of 32\n", block);
    abort();
  }
  if (emu.fibers.size() < block) emu.fibers.resize(block);
  emu.warps.resize(block / 32);
  emu.ready.assign(block, 0);
  emu.kernel   = &kernel;
  emu.errors   = 0;
  emu.reported = false;
  gridDim.x    = grid;
  gridDim.y    = grid_y;
  blockDim.x   = block;
  for (unsigned b = 0; b < grid * grid_y; b++) {
    blockIdx.x = b % grid;
    blockIdx.y = b / grid;
    for (auto &w : emu.warps) {
      w.live    = 32;
      w.arrived = 0;
      w.exited  = 0;
      w.gen     = 0;
    }
    emu.block_live    = block;
    emu.block_arrived = 0;
    emu.head = emu.count = 0;
    for (unsigned t = 0; t < block; t++) {
      EmuFiberStart(emu.fibers[t]);
      emu.ready[emu.count++] = t;
    }
    while (emu.count) {
      const unsigned t = emu.ready[emu.head];
      emu.head         = (emu.head + 1) % block;
      emu.count--;
      emu.current = threadIdx.x = t;
#if defined(PBG_EMU_UCONTEXT)
      swapcontext(&emu.sched, &emu.fibers[t].ctx);
#else
      pbg_emu_swap(&emu.sched, emu.fibers[t].sp);
#endif
    }
    if (emu.block_live) { /* nobody can run, some still wait: a deadlock */
      unsigned atwarp = 0, atblock = 0, line = 0;
      for (unsigned t = 0; t < block; t++) {
        if (emu.fibers[t].state == EMU_WAIT_WARP) {
          if (!atwarp++) line = emu.warps[t / 32].site[t % 32];
        } else if (emu.fibers[t].state == EMU_WAIT_BLOCK) atblock++;
      }
      if (!emu.reported) {
        fflush(stdout);
        fprintf(stderr, "cuda_emu: deadlock in thread block (%u, %u) of %u threads: %u wait at __syncthreads, %u at warp intrinsics (the first at line %u), %u have left\n", blockIdx.x, blockIdx.y, block, atblock, atwarp, line, block - emu.block_live);
      }
      emu.reported = true;
      emu.errors += emu.block_live;
    }
  }
  threadIdx.x = 0;
  return emu.errors;
}
