#pragma once
// Definition of run_fill<algo_t> (sw_launch.cuh); included only by sw_instantiate_*.cu.

#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"
#include "cuda/engines/paper/sw_kernel.cuh"
#include "cuda/engines/paper/sw_launch.cuh"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/sync/barrier/with_sync_mode.cuh"

namespace swat::paper {

template <typename algo_t>
void run_fill(const sw_problem& p, sync_mode mode, const launch_env& env) {
  const bool persistent_mode = is_persistent(mode);
  const std::int64_t threads = std::int64_t(env.blocks) * env.threads;
  if (!persistent_mode) {  // launch-based: running bests per thread, reduced after the last step
    sw_init_best_kernel<<<static_cast<unsigned>((threads + 255) / 256), 256, 0, env.stream>>>(p.d_thread_best,
                                                                                             threads);
    SWAT_CUDA_CHECK_LAUNCH();
  }
  barrier::step_run run;
  run.mode = mode;
  run.steps = static_cast<int>(algo_t::steps(p));
  run.blocks = env.blocks;
  run.stream = env.stream;
  run.workspace = env.barriers;
  const barrier::persistent_launcher persistent = [&](const barrier::barrier_handle& bh) {
    collective::collective_handle ch = env.collective;
    ch.n_blocks = env.blocks;
    barrier::with_sync_mode(mode, [&](auto m) {
      cuda::launch_cooperative(*env.dev, sw_persistent_kernel<algo_t, decltype(m)::value>, dim3(env.blocks),
                               dim3(env.threads), env.smem_bytes, env.stream, p, bh, ch);
    });
  };
  const barrier::step_launcher step = [&](cudaStream_t stream, int s) {
    sw_step_kernel<algo_t><<<env.blocks, env.threads, env.smem_bytes, stream>>>(p, s);
    SWAT_CUDA_CHECK_LAUNCH();
  };
  const barrier::run_marks marks{
      [&](cudaStream_t stream) { SWAT_CUDA_CHECK(cudaEventRecord(env.start, stream)); },
      [&](cudaStream_t stream) {
        if (!persistent_mode) {
          sw_reduce_best_kernel<<<1, 1024, 0, stream>>>(p.d_thread_best, threads, p.d_result);
          SWAT_CUDA_CHECK_LAUNCH();
        }
        SWAT_CUDA_CHECK(cudaEventRecord(env.stop, stream));
      }};
  barrier::run_synchronised(run, persistent, step, marks);
  if (!persistent_mode) SWAT_CUDA_CHECK(cudaStreamSynchronize(env.stream));
}

template <typename algo_t>
int max_persistent_blocks(const cuda::device_context& dev, int threads, int smem_bytes) {
  const std::size_t smem = static_cast<std::size_t>(smem_bytes);
  int cap = 1 << 30;
  barrier::for_each_persistent_mode([&](auto m) {
    const int c = cuda::max_coresident_blocks(dev, sw_persistent_kernel<algo_t, decltype(m)::value>, threads, smem);
    cap = c < cap ? c : cap;
  });
  return cap;
}

//! Explicit instantiation of the launch functions of one algorithm.
#define SWAT_SW_INSTANTIATE(algo_t)                                                \
  template void run_fill<algo_t>(const sw_problem&, sync_mode, const launch_env&); \
  template int max_persistent_blocks<algo_t>(const cuda::device_context&, int, int);

}  // namespace swat::paper
