// GPU stress of every sync mode with the phase-tagged checker (stress_kernels.cuh), and the
// weakened barriers that the same checker must catch.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"
#include "gpu_test_util.cuh"
#include "stress_kernels.cuh"

namespace swat::barrier::test {
namespace {

//! One phase per launch (cpu, cpu_explicit, graph): check the previous launch's phase, write
//! this one (other buffer).
__global__ void stress_step_kernel(stress_args a) {
  const int p = a.phase_offset;
  if (p > 0) check_phase(a, p - 1);
  random_delay(a, p);
  write_phase(a, p);
}

//! Device buffers of the checker for grids of up to max_words words per parity.
class stress_buffers {
 public:
  explicit stress_buffers(std::size_t max_words) {
    SWAT_CUDA_CHECK(cudaMalloc(&d_data, 2 * max_words * sizeof(std::uint32_t)));
    SWAT_CUDA_CHECK(cudaMalloc(&d_violations, sizeof(unsigned long long)));
    SWAT_CUDA_CHECK(cudaMalloc(&d_first, 4 * sizeof(std::uint32_t)));
    words = max_words;
  }
  ~stress_buffers() {
    (void)cudaFree(d_data);
    (void)cudaFree(d_violations);
    (void)cudaFree(d_first);
  }
  stress_args args(int phases, std::uint32_t seed, std::uint32_t max_delay) {
    SWAT_CUDA_CHECK(cudaMemset(d_data, 0, 2 * words * sizeof(std::uint32_t)));
    SWAT_CUDA_CHECK(cudaMemset(d_violations, 0, sizeof(unsigned long long)));
    SWAT_CUDA_CHECK(cudaMemset(d_first, 0xff, 4 * sizeof(std::uint32_t)));
    return stress_args{d_data, d_violations, d_first, phases, seed, max_delay, 0};
  }
  unsigned long long violations(std::uint32_t first[4]) const {
    unsigned long long v = 0;
    SWAT_CUDA_CHECK(cudaMemcpy(&v, d_violations, sizeof v, cudaMemcpyDeviceToHost));
    SWAT_CUDA_CHECK(cudaMemcpy(first, d_first, 4 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    return v;
  }
  std::uint32_t* d_data = nullptr;
  unsigned long long* d_violations = nullptr;
  std::uint32_t* d_first = nullptr;
  std::size_t words = 0;
};

constexpr std::uint32_t stress_delay_cycles = 2048;

//! Runs the persistent stress kernel of barrier_t; returns the violation count.
template <typename barrier_t>
unsigned long long run_persistent(sync_mode mode, int blocks, int threads, int phases,
                                  std::uint32_t max_delay, std::uint32_t seed) {
  barrier_workspace ws(::swat::test::test_device(), blocks);
  stress_buffers buf(static_cast<std::size_t>(blocks) * threads);
  const stress_args a = buf.args(phases, seed, max_delay);
  const barrier_handle h = ws.prepare(mode, blocks);
  cuda::launch_cooperative(::swat::test::test_device(), stress_kernel<barrier_t>, dim3(blocks), dim3(threads), 0, nullptr, h, a);
  ws.check();
  std::uint32_t first[4];
  const unsigned long long v = buf.violations(first);
  if (v != 0) {
    std::printf("    first violation: phase %u, block %u read block %u word %u\n", first[0],
                first[1], first[2], first[3]);
  }
  return v;
}

template <sync_mode M>
void stress_mode() {
  const int sms = ::swat::test::test_device().sm_count();
  const std::vector<int> thread_sizes = stress_thread_sizes();
  for (std::size_t ti = 0; ti < thread_sizes.size(); ++ti) {
    const int threads = thread_sizes[ti];
    const int cap = std::min(stress_block_cap(), cuda::max_coresident_blocks(::swat::test::test_device(),
                                                     stress_kernel<grid_barrier<M>>, threads, 0));
    for (int blocks : stress_grids_of(stress_grid_sizes(sms, cap), ti)) {
      const int phases = stress_phases_for(blocks, sms);
      const auto t0 = std::chrono::steady_clock::now();
      const unsigned long long v = run_persistent<grid_barrier<M>>(
          M, blocks, threads, phases, stress_delay_cycles, 1000u * blocks + threads);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("  %-8s threads %4d blocks %4d phases %7d: %llu violations (%.2f s)\n",
                  std::string(to_string(M)).c_str(), threads, blocks, phases, v, s);
      EXPECT_EQ(v, 0u) << to_string(M) << " " << blocks << "x" << threads;
    }
  }
}

TEST(GpuBarrierStress, Simple) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::simple>();
}
TEST(GpuBarrierStress, Tree) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::tree>();
}
TEST(GpuBarrierStress, Tree3) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::tree3>();
}
TEST(GpuBarrierStress, Lockfree) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::lockfree>();
}
TEST(GpuBarrierStress, Cg) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::cg>();
}
TEST(GpuBarrierStress, Flag) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::flag>();
}
TEST(GpuBarrierStress, Stripe) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::stripe>();
}
TEST(GpuBarrierStress, Lastin) {
  SWAT_REQUIRE_GPU();
  stress_mode<sync_mode::lastin>();
}

//! Launch-based modes: one phase per launch; the check runs in the next launch.
TEST(GpuBarrierStress, LaunchModes) {
  SWAT_REQUIRE_GPU();
  const int sms = ::swat::test::test_device().sm_count();
  const int threads = 256;
  const int max_blocks =
      std::min(stress_block_cap(), cuda::max_coresident_blocks(::swat::test::test_device(), stress_step_kernel, threads, 0));
  // One launch per phase (a few µs each): 3·10^4 launches by default, 10^5 on long runs.
  const int phases = std::min(stress_phases(), stress_long() ? 100000 : 30000);
  for (sync_mode mode : {sync_mode::cpu, sync_mode::cpu_explicit, sync_mode::graph}) {
    for (int blocks : {2, sms, max_blocks}) {
      stress_buffers buf(static_cast<std::size_t>(blocks) * threads);
      const stress_args a = buf.args(phases, 7u * blocks, stress_delay_cycles);
      const step_launcher launch = [&](cudaStream_t s, int step) {
        stress_args args = a;
        args.phase_offset = step;
        stress_step_kernel<<<blocks, threads, 0, s>>>(args);
        SWAT_CUDA_CHECK_LAUNCH();
      };
      const auto t0 = std::chrono::steady_clock::now();
      int run = phases;
      if (mode == sync_mode::graph) {
        // 10^4 captured phases replayed until `phases` phases ran (tags repeat per replay).
        const int captured = std::min(phases, 10000);
        const step_graph graph(captured, launch);
        for (run = 0; run < phases; run += captured) graph.replay(nullptr);
      } else {
        run_steps(mode, phases, nullptr, launch);
      }
      SWAT_CUDA_CHECK(cudaDeviceSynchronize());
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::uint32_t first[4];
      const unsigned long long v = buf.violations(first);
      std::printf("  %-12s threads %4d blocks %4d phases %7d: %llu violations (%.2f s)\n",
                  std::string(to_string(mode)).c_str(), threads, blocks, run, v, s);
      EXPECT_EQ(v, 0u) << to_string(mode) << " " << blocks;
    }
  }
}

//! The checker must catch barriers that break the rules (else it proves nothing).
TEST(GpuBarrierStress, WeakenedVariantsAreCaught) {
  SWAT_REQUIRE_GPU();
  const int sms = ::swat::test::test_device().sm_count();
  const int phases = std::min(stress_phases(), 100000);
  unsigned long long caught_no_sync = 0;
  unsigned long long caught_relaxed = 0;
  for (int threads : {256, 1024}) {
    for (int blocks : {sms, 2 * sms}) {
      const int cap = cuda::max_coresident_blocks(::swat::test::test_device(), stress_kernel<relaxed_barrier>, threads, 0);
      if (blocks > std::min(cap, stress_block_cap())) continue;
      const unsigned long long a = run_persistent<no_entry_sync_barrier>(
          sync_mode::simple, blocks, threads, phases, 8192, 11u * blocks);
      const unsigned long long b = run_persistent<relaxed_barrier>(
          sync_mode::simple, blocks, threads, phases, 8192, 13u * blocks);
      std::printf(
          "  WEAKENED threads %4d blocks %4d phases %d: no __syncthreads before arrive "
          "-> %llu violations; relaxed arrive/poll, no fences -> %llu violations\n",
          threads, blocks, phases, a, b);
      caught_no_sync += a;
      caught_relaxed += b;
    }
  }
  std::printf("  WEAKENED total: no-syncthreads %llu, relaxed %llu (must not both be 0)\n",
              caught_no_sync, caught_relaxed);
  EXPECT_GT(caught_no_sync + caught_relaxed, 0u) << "the checker caught no weakened barrier";
}

}  // namespace
}  // namespace swat::barrier::test
