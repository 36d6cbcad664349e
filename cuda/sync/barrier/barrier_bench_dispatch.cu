// Maps a runtime sync mode onto the mean-kernel instantiation (see barrier_bench_dispatch.cuh).

#include "cuda/sync/barrier/barrier_bench_dispatch.cuh"

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "cuda/sync/barrier/barrier_bench_kernel.cuh"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/common/launch.cuh"

namespace swat::barrier {

__global__ void mean_step_kernel(float* a, float* b, int r) { mean_round(a, b, r); }

namespace detail {
namespace {

//! Event pair around enqueued work; returns elapsed ms after synchronising.
template <typename work_t>
float timed(cudaStream_t stream, work_t work) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  SWAT_CUDA_CHECK(cudaEventCreate(&start));
  SWAT_CUDA_CHECK(cudaEventCreate(&stop));
  float ms = 0;
  try {
    SWAT_CUDA_CHECK(cudaEventRecord(start, stream));
    work();
    SWAT_CUDA_CHECK(cudaEventRecord(stop, stream));
    SWAT_CUDA_CHECK(cudaEventSynchronize(stop));
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  } catch (...) {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    throw;
  }
  SWAT_CUDA_CHECK(cudaEventDestroy(start));
  SWAT_CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

template <sync_mode M>
float time_persistent(const bench_point& p) {
  const barrier_handle h = p.ws->prepare(M, p.blocks, p.stream);
  const float ms = timed(p.stream, [&] {
    cuda::launch_cooperative(mean_persistent_kernel<M>, dim3(p.blocks), dim3(p.threads),
                             p.smem_bytes, p.stream, h, p.d_a, p.d_b, p.rounds);
  });
  p.ws->check(p.stream);
  return ms;
}

float time_steps(sync_mode mode, const bench_point& p) {
  cuda::set_dynamic_smem(mean_step_kernel, p.smem_bytes);
  const step_launcher launch = [&p](cudaStream_t s, int r) {
    mean_step_kernel<<<p.blocks, p.threads, p.smem_bytes, s>>>(p.d_a, p.d_b, r);
    SWAT_CUDA_CHECK_LAUNCH();
  };
  if (mode == sync_mode::graph) {
    const step_graph graph(p.rounds, launch);  // built outside the timed region
    return timed(p.stream, [&] { graph.replay(p.stream); });
  }
  return timed(p.stream, [&] { run_steps(mode, p.rounds, p.stream, launch); });
}

}  // namespace

float time_mean_run(sync_mode mode, const bench_point& p) {
  switch (mode) {
    case sync_mode::cpu:
    case sync_mode::cpu_explicit:
    case sync_mode::graph:
      return time_steps(mode, p);
    case sync_mode::simple:
      return time_persistent<sync_mode::simple>(p);
    case sync_mode::tree:
      return time_persistent<sync_mode::tree>(p);
    case sync_mode::tree3:
      return time_persistent<sync_mode::tree3>(p);
    case sync_mode::lockfree:
      return time_persistent<sync_mode::lockfree>(p);
    case sync_mode::cg:
      return time_persistent<sync_mode::cg>(p);
    case sync_mode::flag:
      return time_persistent<sync_mode::flag>(p);
    case sync_mode::stripe:
      return time_persistent<sync_mode::stripe>(p);
    case sync_mode::lastin:
      return time_persistent<sync_mode::lastin>(p);
    case sync_mode::none:
      return time_persistent<sync_mode::none>(p);
  }
  throw usage_error("bench barrier: unhandled sync mode " + std::to_string(static_cast<int>(mode)));
}

namespace {

//! Smallest co-resident grid over the mean-kernel instantiations of modes_v.
template <sync_mode... modes_v>
int min_coresident(int threads, std::size_t smem_bytes) {
  return std::min(
      {cuda::max_coresident_blocks(mean_persistent_kernel<modes_v>, threads, smem_bytes)...});
}

}  // namespace

int mean_kernel_max_blocks(int threads, std::size_t smem_bytes) {
  return min_coresident<sync_mode::none, sync_mode::simple, sync_mode::tree, sync_mode::tree3,
                        sync_mode::lockfree, sync_mode::cg, sync_mode::flag, sync_mode::stripe,
                        sync_mode::lastin>(threads, smem_bytes);
}

}  // namespace detail
}  // namespace swat::barrier
