#pragma once
// The bitonic sort kernel: steps first..first+count-1 of the schedule, one grid barrier of mode
// M between steps (persistent), or one step per launch with M = none (launch modes).

#include "cuda/sync/barrier/barrier.cuh"
#include "cuda/studies/sort/sort_tile.cuh"

namespace swat::sort::detail {

template <typename word_t>
struct sort_traits;
template <>
struct sort_traits<std::uint32_t> {
  static constexpr sort_policy policy = u32_policy;
};
template <>
struct sort_traits<std::uint64_t> {
  static constexpr sort_policy policy = u64_policy;
};

//! Steps [first, first + count) of the schedule of args; grid barrier of mode M between them.
template <sync_mode M, typename word_t>
__global__ void __launch_bounds__(sort_traits<word_t>::policy.block_threads, sort_traits<word_t>::policy.min_blocks_per_sm)
    sort_kernel(barrier::barrier_handle h, sort_args<word_t> args, int first, int count) {
  constexpr int threads = sort_traits<word_t>::policy.block_threads;
  extern __shared__ __align__(16) unsigned char sort_smem[];
  auto* sm = reinterpret_cast<word_t*>(sort_smem);
  barrier::grid_barrier<M> bar(h);
  const long long tiles = 1LL << (args.p_log - tile_log(args.p_log, args.t_log));
  for (int s = first; s < first + count; ++s) {
    if (s > first) {
      bar.arrive_and_wait();
      if (bar.failed()) return;
    }
    const sort_step st = step_at(s, args.p_log, args.t_log);
    if (st.kind == step_global) {
      global_step<threads>(args, st);
    } else {
      for (long long t = blockIdx.x; t < tiles; t += gridDim.x)
        tile_step<threads>(args, st, t, s == 0, s == args.steps - 1, sm);
    }
  }
}

}  // namespace swat::sort::detail
