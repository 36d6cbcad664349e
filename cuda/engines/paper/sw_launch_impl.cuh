#pragma once
// Definition of run_fill<algo_t> (sw_launch.cuh); included only by sw_instantiate_*.cu.

#include <string>

#include "common/error.hpp"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"
#include "cuda/engines/paper/sw_kernel.cuh"
#include "cuda/engines/paper/sw_launch.cuh"

namespace swat::paper {

namespace detail {

template <typename algo_t, sync_mode M>
void run_persistent(const sw_problem& p, const launch_env& env) {
  const barrier::barrier_handle bh = env.barriers->prepare(M, env.blocks, env.stream);
  collective::collective_handle ch = env.collective;
  ch.n_blocks = env.blocks;
  SWAT_CUDA_CHECK(cudaEventRecord(env.start, env.stream));
  cuda::launch_cooperative(sw_persistent_kernel<algo_t, M>, dim3(env.blocks), dim3(env.threads),
                           env.smem_bytes, env.stream, p, bh, ch);
  SWAT_CUDA_CHECK(cudaEventRecord(env.stop, env.stream));
  env.barriers->check(env.stream);
}

template <typename algo_t>
void run_launched(const sw_problem& p, sync_mode mode, const launch_env& env) {
  const std::int64_t threads = std::int64_t(env.blocks) * env.threads;
  sw_init_best_kernel<<<static_cast<unsigned>((threads + 255) / 256), 256, 0, env.stream>>>(
      p.d_thread_best, threads);
  SWAT_CUDA_CHECK_LAUNCH();
  const std::int64_t steps = algo_t::steps(p);
  const barrier::step_launcher launch = [&](cudaStream_t stream, int s) {
    sw_step_kernel<algo_t><<<env.blocks, env.threads, env.smem_bytes, stream>>>(p, s);
    SWAT_CUDA_CHECK_LAUNCH();
  };
  if (mode == sync_mode::graph) {  // capture outside the timed region, then replay
    const barrier::step_graph graph(static_cast<int>(steps), launch);
    SWAT_CUDA_CHECK(cudaEventRecord(env.start, env.stream));
    graph.replay(env.stream);
  } else {
    SWAT_CUDA_CHECK(cudaEventRecord(env.start, env.stream));
    barrier::run_steps(mode, static_cast<int>(steps), env.stream, launch);
  }
  sw_reduce_best_kernel<<<1, 1024, 0, env.stream>>>(p.d_thread_best, threads, p.d_result);
  SWAT_CUDA_CHECK_LAUNCH();
  SWAT_CUDA_CHECK(cudaEventRecord(env.stop, env.stream));
  SWAT_CUDA_CHECK(cudaStreamSynchronize(env.stream));
}

}  // namespace detail

template <typename algo_t>
void run_fill(const sw_problem& p, sync_mode mode, const launch_env& env) {
  switch (mode) {
    case sync_mode::cpu:
    case sync_mode::cpu_explicit:
    case sync_mode::graph: return detail::run_launched<algo_t>(p, mode, env);
    case sync_mode::simple: return detail::run_persistent<algo_t, sync_mode::simple>(p, env);
    case sync_mode::tree: return detail::run_persistent<algo_t, sync_mode::tree>(p, env);
    case sync_mode::tree3: return detail::run_persistent<algo_t, sync_mode::tree3>(p, env);
    case sync_mode::lockfree: return detail::run_persistent<algo_t, sync_mode::lockfree>(p, env);
    case sync_mode::cg: return detail::run_persistent<algo_t, sync_mode::cg>(p, env);
    case sync_mode::flag: return detail::run_persistent<algo_t, sync_mode::flag>(p, env);
    case sync_mode::stripe: return detail::run_persistent<algo_t, sync_mode::stripe>(p, env);
    case sync_mode::lastin: return detail::run_persistent<algo_t, sync_mode::lastin>(p, env);
    case sync_mode::none: return detail::run_persistent<algo_t, sync_mode::none>(p, env);
    default:
      throw usage_error("sw: unsupported sync mode '" + std::string(to_string(mode)) + "'");
  }
}

template <typename algo_t>
int max_persistent_blocks(sync_mode mode, int threads, int smem_bytes) {
  (void)mode;  // the smallest cap of all instantiations, so that one grid size fits every mode
  const std::size_t smem = static_cast<std::size_t>(smem_bytes);
  using namespace cuda;
  const int caps[] = {
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::simple>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::tree>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::tree3>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::lockfree>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::cg>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::flag>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::stripe>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::lastin>, threads, smem),
      max_coresident_blocks(sw_persistent_kernel<algo_t, sync_mode::none>, threads, smem)};
  int cap = caps[0];
  for (int c : caps) cap = c < cap ? c : cap;
  return cap;
}

//! Explicit instantiation of the launch functions of one algorithm.
#define SWAT_SW_INSTANTIATE(algo_t)                                                     \
  template void run_fill<algo_t>(const sw_problem&, sync_mode, const launch_env&);      \
  template int max_persistent_blocks<algo_t>(sync_mode, int, int);

}  // namespace swat::paper
