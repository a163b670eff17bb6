/* The random numbers of the emulator tests (xorshift64): the same sequence for a seed on every machine */
#pragma once
#include <cstdint>

inline uint64_t rng_state = 1;

inline void EmuSeed(long long seed)
{
  rng_state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
}

inline double Uniform() /* in [-1, 1) */
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / (double)(1ULL << 52) - 1.0;
}

inline int RandInt(int n) /* in [0, n) */
{
  return (int)((Uniform() + 1.0) * 0.5 * n) % n;
}
