#pragma once
// Thin persistent kernel of the fast engine: each warp takes strips w, w + W, w + 2W, … (W warps
// in the grid) in order, so strip s − 1 is always running or done when strip s waits on it; the
// grid is co-resident (launch_cooperative), hence the ready flags cannot deadlock.

#include "cuda/engines/fast/fast_tile.cuh"
#include "cuda/engines/fast/fast_tile16.cuh"

namespace swat::fast {

//! Shared memory of one block (bytes): a profile of profile_rows(ranks) × 32 lanes per warp and
//! row half.
template <typename policy_t>
constexpr std::size_t profile_smem_bytes(int ranks) {
  return std::size_t(policy_t::warps_per_block) * std::size_t(policy_t::halves) *
         std::size_t(policy_t::profile_rows(ranks)) * 32 *
         sizeof(profile_entry<policy_t::profile_words>);
}

template <typename policy_t>
__global__ void __launch_bounds__(policy_t::block_threads, policy_t::min_blocks_per_sm) fast_fill_kernel(fast_problem pb) {
  extern __shared__ std::uint8_t smem_raw[];
  auto* prof = reinterpret_cast<profile_entry<policy_t::profile_words>*>(smem_raw) +
               std::size_t(threadIdx.x / 32) * std::size_t(policy_t::halves) * std::size_t(policy_t::profile_rows(pb.ranks)) * 32;
  const int warps = int(gridDim.x) * policy_t::warps_per_block;
  const int warp = int(blockIdx.x) * policy_t::warps_per_block + int(threadIdx.x / 32);
  const int last = pb.strip_last > 0 ? pb.strip_last : pb.strips;  // 0: the whole fill
  for (int s = pb.strip_first + warp; s < last; s += warps) {
    if (__any_sync(0xffffffffu, *static_cast<volatile std::int32_t*>(pb.d_error) != 0)) break;
    if constexpr (policy_t::packed16) {
      flag_sync sync;
      fill_strip16<policy_t>(pb, s, prof, sync);
    } else {
      fill_strip<policy_t>(pb, s, prof);
    }
  }
  poison_next_band(pb, warp, warps, last);
}

//! Several pairs in one launch (fast_batch, packed 16-bit only): each warp takes the batch's next
//! strip by ticket when it is done with one (Chen et al.'s persistent kernel with an atomic queue
//! head). Strip s − 1 of a pair is on level s − 1, an earlier ticket, taken by a warp that is
//! running or done with it (the grid is co-resident), so the wait on it cannot deadlock.
template <typename policy_t>
__global__ void __launch_bounds__(policy_t::block_threads, policy_t::min_blocks_per_sm)
    fast_fill_batch_kernel(fast_batch batch) {
  static_assert(policy_t::packed16, "the batch kernel runs the packed 16-bit fill");
  extern __shared__ std::uint8_t smem_raw[];
  auto* prof = reinterpret_cast<profile_entry<policy_t::profile_words>*>(smem_raw) +
               std::size_t(threadIdx.x / 32) * std::size_t(policy_t::halves) * std::size_t(policy_t::profile_rows(batch.ranks)) * 32;
  constexpr unsigned full = 0xffffffffu;
  int s = 0;  // the level of strip g: a warp's tickets only grow, so s only moves on
  for (;;) {
    int g = 0;
    if ((threadIdx.x & 31) == 0) g = atomicAdd(batch.d_next, 1);
    g = __shfl_sync(full, g, 0);
    if (g >= batch.strips) break;
    if (__any_sync(full, *static_cast<volatile std::int32_t*>(batch.d_error) != 0)) break;
    while (batch.level_first[s + 1] <= g) ++s;
    flag_sync sync;
    fill_strip16<policy_t>(batch.problems[g - batch.level_first[s]], s, prof, sync);
  }
}

}  // namespace swat::fast
