#pragma once
// Thin kernels of the paper engines: an algo_t (diagonal_algo<layout> or tiled_algo) does one
// grid step; these run the steps either inside one persistent kernel with a grid barrier of
// mode M between steps, or one launch per step (launch-based modes), and find the best cell.

#include <cstdint>
#include <type_traits>

#include "cuda/sync/barrier/barrier.cuh"
#include "cuda/sync/collective/grid_collective.cuh"
#include "cuda/engines/paper/diagonal_tile.cuh"
#include "cuda/engines/paper/tiled_tile.cuh"

namespace swat::paper {

//! Builds algo_t: the substitution matrix is staged in static shared memory (4 KB, read with
//! data-dependent indices, so shared rather than constant memory), and the tiled engine also
//! gets the block's dynamic shared memory for its tile.
template <typename algo_t>
__device__ __forceinline__ algo_t make_algo(const sw_problem& p) {
  extern __shared__ std::int32_t sw_smem[];
  __shared__ std::int32_t sw_matrix[matrix_entries];
  for (int k = threadIdx.x; k < matrix_entries; k += blockDim.x) sw_matrix[k] = p.d_matrix[k];
  __syncthreads();
  if constexpr (std::is_same_v<algo_t, tiled_algo>) {
    return algo_t(p, sw_matrix, sw_smem);
  } else {
    return algo_t(p, sw_matrix);
  }
}

//! Persistent fill: every step, then one grid barrier; the best cell by the grid argmax.
template <typename algo_t, sync_mode M>
__global__ void __launch_bounds__(algo_t::block_threads)
    sw_persistent_kernel(sw_problem p, barrier::barrier_handle bh, collective::collective_handle ch) {
  const algo_t algo = make_algo<algo_t>(p);
  barrier::grid_barrier<M> bar(bh);
  best_cell best = collective::no_cell();
  const std::int64_t steps = algo_t::steps(p);
  for (std::int64_t s = 0; s < steps && !bar.failed(); ++s) {
    algo.step(s, best);
    bar.arrive_and_wait();
  }
  collective::grid_collective<M> coll(bar, ch);
  const best_cell total = coll.argmax(best);
  if (blockIdx.x == 0 && threadIdx.x == 0) *p.d_result = total;
}

//! One step of a launch-based fill; the running best per thread lives in d_thread_best.
template <typename algo_t>
__global__ void __launch_bounds__(algo_t::block_threads) sw_step_kernel(sw_problem p, std::int64_t s) {
  const algo_t algo = make_algo<algo_t>(p);
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  best_cell best = p.d_thread_best[t];
  const std::int32_t before = best.score;
  const std::int64_t before_i = best.query_end, before_j = best.target_end;
  algo.step(s, best);
  if (best.score != before || best.query_end != before_i || best.target_end != before_j)
    p.d_thread_best[t] = best;
}

//! Sets threads running bests to "no cell".
__global__ void sw_init_best_kernel(best_cell* d_best, std::int64_t threads);

//! One block reduces the threads running bests into *d_result (cell_beats).
__global__ void sw_reduce_best_kernel(const best_cell* d_best, std::int64_t threads,
                                      best_cell* d_result);

}  // namespace swat::paper
