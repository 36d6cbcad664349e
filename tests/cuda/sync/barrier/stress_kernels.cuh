#pragma once
// Phase-tagged checker for grid barriers, plus two deliberately weakened barriers that exist
// only in this test (the checker must catch them, or it proves nothing).
//
// Phase p: every thread of block b writes tag(p, b, t) into buffer p mod 2 (after a random
// per-warp delay), the block passes the barrier, then it reads one word of every other block
// from the same buffer and compares it with the tag that block must have written in phase p.
// A word left from phase p-2 (or an L1 line cached then) is a violation. One barrier per phase
// suffices: a block can be at most one phase ahead, and it writes the other buffer.

#include <cstdint>

#include "cuda/sync/barrier/barrier.cuh"

namespace swat::barrier::test {

//! Buffers and counters of one stress run.
struct stress_args {
  std::uint32_t* d_data = nullptr;             //!< 2 × blocks × threads words
  unsigned long long* d_violations = nullptr;  //!< number of wrong words seen
  std::uint32_t* d_first = nullptr;            //!< first violation: phase, reader, writer, word
  int phases = 0;                              //!< barriers per run
  std::uint32_t seed = 0;                      //!< delay pattern
  std::uint32_t max_delay_cycles = 0;          //!< longest random per-warp delay
  int phase_offset = 0;                        //!< launch-based modes: phase of this launch
};

//! Murmur3 finaliser: a bijection on 32-bit words.
__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

//! The word thread `word` of block `block` writes in phase `phase`.
__host__ __device__ inline std::uint32_t tag(int phase, std::uint32_t block, std::uint32_t word) {
  return mix(static_cast<std::uint32_t>(phase) * 0x9e3779b9u ^ mix(block * 4099u + word));
}

//! Random per-warp delay before the phase's writes (a quarter of the warps wait).
__device__ inline void random_delay(const stress_args& a, int phase) {
  if (a.max_delay_cycles == 0) return;
  const std::uint32_t r = mix(a.seed ^ mix(static_cast<std::uint32_t>(phase) * 0x27d4eb2du +
                                           blockIdx.x * 64u + threadIdx.x / 32u));
  if ((r & 3u) != 0) return;
  const long long wait = (r >> 8) % a.max_delay_cycles;
  const long long start = clock64();
  while (clock64() - start < wait) {
  }
}

__device__ inline void write_phase(const stress_args& a, int phase) {
  const unsigned n = gridDim.x;
  std::uint32_t* buf = a.d_data + static_cast<std::size_t>(phase & 1) * n * blockDim.x;
  buf[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] =
      tag(phase, blockIdx.x, threadIdx.x);
}

//! Checks one word of up to 1024 other blocks (all of them for grids ≤ 1025 blocks).
__device__ inline void check_phase(const stress_args& a, int phase) {
  const unsigned n = gridDim.x;
  const unsigned threads = blockDim.x;
  const std::uint32_t* buf = a.d_data + static_cast<std::size_t>(phase & 1) * n * threads;
  const unsigned others = n - 1 < 1024u ? n - 1 : 1024u;
  const unsigned start = blockIdx.x + 1 + (n > 1025 ? static_cast<unsigned>(phase) * 1024u : 0u);
  for (unsigned k = threadIdx.x; k < others; k += threads) {
    unsigned c = (start + k) % n;
    if (c == blockIdx.x) c = (c + 1) % n;
    const unsigned w = (static_cast<unsigned>(phase) + blockIdx.x + c) % threads;
    const std::uint32_t got = buf[static_cast<std::size_t>(c) * threads + w];
    if (got != tag(phase, c, w)) {
      if (atomicAdd(a.d_violations, 1ull) == 0) {
        a.d_first[0] = static_cast<std::uint32_t>(phase);
        a.d_first[1] = blockIdx.x;
        a.d_first[2] = c;
        a.d_first[3] = w;
      }
    }
  }
}

//! Persistent stress kernel for any barrier type constructible from a barrier_handle.
template <typename barrier_t>
__global__ void stress_kernel(barrier_handle h, stress_args a) {
  barrier_t bar(h);
  for (int p = 0; p < a.phases && !bar.failed(); ++p) {
    random_delay(a, p);
    write_phase(a, p);
    bar.arrive_and_wait();
    check_phase(a, p);
  }
}

//! Block that never arrives: it returns at once (watchdog test).
template <sync_mode M>
__global__ void missing_block_kernel(barrier_handle h, int phases, unsigned missing_block) {
  if (blockIdx.x == missing_block) return;
  grid_barrier<M> bar(h);
  for (int p = 0; p < phases && !bar.failed(); ++p) bar.arrive_and_wait();
}

//! WEAKENED (test only): Xiao–Feng simple barrier without the __syncthreads() before the
//! arrive: thread 0 may arrive while other warps of its block have not written yet.
class no_entry_sync_barrier {
 public:
  __device__ explicit no_entry_sync_barrier(const barrier_handle& h) : h_(h) {}
  __device__ bool failed() const { return false; }
  __device__ void arrive_and_wait() {
    const std::uint32_t epoch = ++epoch_;
    if (threadIdx.x == 0) {
      detail::add_release(h_.d_counter, 1u);
      detail::wait_reached(h_, h_.d_counter, epoch * h_.n_blocks, epoch, 1);
    }
    __syncthreads();
  }

 private:
  barrier_handle h_;
  std::uint32_t epoch_ = 0;
};

//! WEAKENED (test only): __syncthreads() kept, but a relaxed arrive and relaxed polls with no
//! acquire fence: neither the writers' data nor the readers' L1 is ordered by the barrier.
class relaxed_barrier {
 public:
  __device__ explicit relaxed_barrier(const barrier_handle& h) : h_(h) {}
  __device__ bool failed() const { return false; }
  __device__ void arrive_and_wait() {
    __syncthreads();
    const std::uint32_t epoch = ++epoch_;
    if (threadIdx.x == 0) {
      detail::device_ref(*h_.d_counter).fetch_add(1u, ::cuda::memory_order_relaxed);
      const long long start = clock64();
      while (!detail::reached(detail::load_relaxed(h_.d_counter), epoch * h_.n_blocks) &&
             clock64() - start < h_.watchdog_cycles) {
      }
    }
    __syncthreads();
  }

 private:
  barrier_handle h_;
  std::uint32_t epoch_ = 0;
};

}  // namespace swat::barrier::test
