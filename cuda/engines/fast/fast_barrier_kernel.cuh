#pragma once
// The packed 16-bit fill with one grid barrier (any persistent mode of the barrier layer)
// between tile-diagonals instead of per-strip ready flags — the alternative the issue asks to
// measure against the flags (bench/results/fast_h100_v3.csv says which wins).
//
// Strips are taken in rounds of W (warps in the grid); in a round, warp w owns strip
// base + w and runs its step t at the loop index u = t + lag·w. Every C loop indices (a phase:
// a tile of the strip's rows × C columns per warp, the tiles of one phase forming a
// tile-diagonal) the whole grid passes one barrier. lag = C + L (L = policy_t::last_row_lag, a
// multiple of 32): the bottom row of a strip's packed halves is stored L steps after its top
// row reads the same column, and a strip's 32-column border chunk must be complete one phase
// before the next strip loads it (C, lag multiples of 32: the last chunk a phase loads ends
// before C·(p + 1) − lag·w):
//   columns written by strip s − 1 before phase p  <  C·p − lag·(w − 1) − L
//   columns read by strip s in phase p              <  C·(p + 1) − lag·w
// hence C ≤ lag − L. The barrier's release/acquire (barrier.cuh) makes the border stores of
// one phase visible to the loads of the next; no ready flag is touched.
//
// Cost against the flags: every strip starts lag instead of ~L steps after the one above it,
// every round ends with a drain, and all warps advance in lock step, one barrier per C columns.
// An overflow cannot stop a barrier fill early (warps that left would leave the others waiting
// at the next barrier): the fill runs to its end and the host reruns it at 32 bits.

#include <cstdint>

#include "cuda/sync/barrier/barrier.cuh"
#include "cuda/engines/fast/fast_kernel.cuh"

namespace swat::fast {

//! Synchronisation of fill_strip16 by a grid barrier every `chunk` loop indices (see above).
template <sync_mode M>
struct barrier_sync {
  static constexpr bool can_stop_early = false;
  barrier::grid_barrier<M>* bar;  //!< the kernel's barrier
  std::int32_t lag_offset;        //!< lag · w: loop index of this strip's step 0
  std::int32_t total;             //!< loop indices of the round (a multiple of chunk)
  std::int32_t chunk;             //!< loop indices between two barriers (C)

  __device__ std::int32_t offset() const { return lag_offset; }
  __device__ std::int32_t end(std::int32_t) const { return total; }
  __device__ bool wait(const fast_problem&, int, std::uint32_t) const { return true; }
  __device__ void finish(const fast_problem&) const {}
  __device__ void publish(const fast_problem&, int, std::uint32_t) const {}
  __device__ bool after_step(std::int32_t u) {
    if ((u + 1) % chunk != 0) return true;
    bar->arrive_and_wait();
    return !bar->failed();
  }
};

//! Persistent fill of policy_t (packed 16-bit) with grid barrier M every `chunk` columns.
template <typename policy_t, sync_mode M>
__global__ void __launch_bounds__(policy_t::block_threads, policy_t::min_blocks_per_sm)
    fast_fill_barrier_kernel(fast_problem pb, barrier::barrier_handle bh, std::int32_t chunk) {
  static_assert(policy_t::packed16, "the barrier variant drives the packed 16-bit fill");
  extern __shared__ std::uint8_t smem_raw[];
  auto* prof = reinterpret_cast<profile_entry<policy_t::profile_words>*>(smem_raw) +
               std::size_t(threadIdx.x / 32) * std::size_t(policy_t::halves) *
                   std::size_t(policy_t::profile_rows(pb.ranks)) * 32;
  barrier::grid_barrier<M> bar(bh);
  const int warps = int(gridDim.x) * policy_t::warps_per_block;
  const int w = int(threadIdx.x / 32) + int(blockIdx.x) * policy_t::warps_per_block;
  const std::int32_t lag = chunk + policy_t::last_row_lag;
  const std::int32_t steps = pb.n + policy_t::last_row_lag;
  for (int base = 0; base < pb.strips && !bar.failed(); base += warps) {
    const int active = min(warps, pb.strips - base);
    const std::int32_t span = steps + lag * (active - 1);
    const std::int32_t total = (span + chunk - 1) / chunk * chunk;
    // A warp without a strip this round runs the same loop with no step in range (offset = total),
    // so that every warp reaches the barrier through the same call site.
    barrier_sync<M> sync{&bar, base + w < pb.strips ? lag * w : total, total, chunk};
    fill_strip16<policy_t>(pb, base + w, prof, sync);
  }
}

}  // namespace swat::fast
