#pragma once
// Memory-model primitives and the watchdog spin shared by every grid barrier (barrier.cuh).
// Orders follow DESIGN.md: device-scope release on arrive, acquire on wait, through
// ::cuda::atomic_ref (libcu++). Spins poll with device-scope acquire loads (as
// cooperative_groups does). Measured on the H100: polling with relaxed loads and one acquire
// fence at the end was slower (the fence is a full MEMBAR.GPU, and faster polling made the
// counter line busier for the atomics).

#include <cuda/atomic>

#include <cstdint>

#include "cuda/sync/barrier/barrier_handle.hpp"

namespace swat::barrier::detail {

using device_ref = ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>;

//! Relaxed device-scope load (a strong load that bypasses the non-coherent L1).
__device__ __forceinline__ std::uint32_t load_relaxed(std::uint32_t* p) {
  return device_ref(*p).load(::cuda::memory_order_relaxed);
}

//! Device-scope acquire load.
__device__ __forceinline__ std::uint32_t load_acquire(std::uint32_t* p) {
  return device_ref(*p).load(::cuda::memory_order_acquire);
}

//! Device-scope release store.
__device__ __forceinline__ void store_release(std::uint32_t* p, std::uint32_t v) {
  device_ref(*p).store(v, ::cuda::memory_order_release);
}

//! Device-scope release add whose result is unused (compiles to a RED).
__device__ __forceinline__ void add_release(std::uint32_t* p, std::uint32_t v) {
  device_ref(*p).fetch_add(v, ::cuda::memory_order_release);
}

//! Device-scope acquire-release add returning the old value.
__device__ __forceinline__ std::uint32_t add_acq_rel(std::uint32_t* p, std::uint32_t v) {
  return device_ref(*p).fetch_add(v, ::cuda::memory_order_acq_rel);
}

//! Device-scope acquire fence: later accesses see everything released before the values read.
__device__ __forceinline__ void fence_acquire() {
  ::cuda::atomic_thread_fence(::cuda::memory_order_acquire, ::cuda::thread_scope_device);
}

//! True once a rising 32-bit value v has reached goal (wrap-safe while |v - goal| < 2^31).
__device__ __forceinline__ bool reached(std::uint32_t v, std::uint32_t goal) {
  return static_cast<std::int32_t>(v - goal) >= 0;
}

//! Linear thread index inside the block.
__device__ __forceinline__ unsigned thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

//! Linear block index inside the grid.
__device__ __forceinline__ unsigned block_rank() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

//! Records the first error (code, block, epoch, site) and raises the sticky abort word so that
//! every other spinning block gives up too instead of hanging.
__device__ inline void record_error(const barrier_handle& h, std::uint32_t code,
                                    std::uint32_t epoch, std::uint32_t site) {
  device_ref first(h.d_error->code);
  std::uint32_t expected = error_none;
  if (first.compare_exchange_strong(expected, code, ::cuda::memory_order_relaxed)) {
    h.d_error->block = block_rank();
    h.d_error->epoch = epoch;
    h.d_error->site = site;
  }
  store_release(h.d_abort, 1u);
}

//! Polls every 32 iterations whether another block aborted or the clock64 budget is spent.
inline constexpr unsigned watchdog_period = 32;

//! Spins until done() is true (returns true) or until the watchdog fires / an abort is seen
//! (returns false). done() must poll with acquire loads (load_acquire).
template <typename done_t>
__device__ __forceinline__ bool spin_until(const barrier_handle& h, std::uint32_t epoch,
                                           std::uint32_t site, done_t done) {
  const long long start = clock64();
  for (unsigned it = 1;; ++it) {
    if (done()) return true;
    if (it % watchdog_period == 0) {
      if (load_relaxed(h.d_abort) != 0) return false;
      if (h.watchdog_cycles > 0 && clock64() - start > h.watchdog_cycles) {
        record_error(h, error_timeout, epoch, site);
        return false;
      }
    }
  }
}

//! Waits until *p reaches goal.
__device__ __forceinline__ bool wait_reached(const barrier_handle& h, std::uint32_t* p,
                                             std::uint32_t goal, std::uint32_t epoch,
                                             std::uint32_t site) {
  return spin_until(h, epoch, site, [=] { return reached(load_acquire(p), goal); });
}

}  // namespace swat::barrier::detail
