// One timed run of the mean kernel under a sync mode, through the barrier layer's launch body
// (run_synchronised) and its one mode → template switch (with_sync_mode).

#include "bench/barrier/barrier_bench_dispatch.cuh"

#include <algorithm>

#include "bench/barrier/barrier_bench_kernel.cuh"
#include "bench/common/event_timer.cuh"
#include "cuda/common/launch.cuh"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/sync/barrier/with_sync_mode.cuh"

namespace swat::bench {

__global__ void mean_step_kernel(float* a, float* b, int r) { mean_round(a, b, r); }

namespace detail {

float time_mean_run(sync_mode mode, const bench_point& p) {
  if (!is_persistent(mode)) cuda::set_dynamic_smem(mean_step_kernel, p.smem_bytes);
  barrier::step_run run;
  run.mode = mode;
  run.steps = p.rounds;
  run.blocks = p.blocks;
  run.stream = p.stream;
  run.workspace = p.ws;
  const barrier::persistent_launcher persistent = [&p, mode](const barrier::barrier_handle& h) {
    barrier::with_sync_mode(mode, [&](auto m) {
      cuda::launch_cooperative(*p.dev, mean_persistent_kernel<decltype(m)::value>, dim3(p.blocks), dim3(p.threads),
                               p.smem_bytes, p.stream, h, p.d_a, p.d_b, p.rounds);
    });
  };
  const barrier::step_launcher step = [&p](cudaStream_t s, int r) {
    mean_step_kernel<<<p.blocks, p.threads, p.smem_bytes, s>>>(p.d_a, p.d_b, r);
    SWAT_CUDA_CHECK_LAUNCH();
  };
  // Events around the launches only: workspace reset and graph capture happen before start.
  event_pair events;
  barrier::run_synchronised(run, persistent, step,
                            {[&](cudaStream_t s) { events.start(s); }, [&](cudaStream_t s) { events.stop(s); }});
  return events.elapsed_ms();
}

int mean_kernel_max_blocks(const cuda::device_context& dev, int threads, std::size_t smem_bytes) {
  int cap = 1 << 30;
  barrier::for_each_persistent_mode([&](auto m) {
    cap = std::min(cap, cuda::max_coresident_blocks(dev, mean_persistent_kernel<decltype(m)::value>, threads, smem_bytes));
  });
  return cap;
}

}  // namespace detail
}  // namespace swat::bench
