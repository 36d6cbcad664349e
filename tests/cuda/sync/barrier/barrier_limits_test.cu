// Deadlock protection: a grid past the co-residency cap is refused, a block that never arrives
// trips the watchdog (typed error naming mode and grid) within the watchdog time.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"
#include "gpu_test_util.cuh"
#include "stress_kernels.cuh"

namespace swat::barrier::test {
namespace {

TEST(GpuBarrierLimits, RefusesGridThatCannotBeCoResident) {
  SWAT_REQUIRE_GPU();
  const int threads = 256;
  const int cap = cuda::max_coresident_blocks(::swat::test::test_device(), missing_block_kernel<sync_mode::simple>, threads, 0);
  ASSERT_GT(cap, 0);
  barrier_workspace ws(::swat::test::test_device(), cap + 1);
  const barrier_handle h = ws.prepare(sync_mode::simple, cap + 1);
  try {
    cuda::launch_cooperative(::swat::test::test_device(), missing_block_kernel<sync_mode::simple>, dim3(cap + 1), dim3(threads),
                             0, nullptr, h, 1, 0xffffffffu);
    FAIL() << "a grid of cap + 1 blocks was launched";
  } catch (const cuda_error& e) {
    const std::string what = e.what();
    std::printf("  refused as expected: %s\n", what.c_str());
    EXPECT_NE(what.find("cannot be co-resident"), std::string::npos);
    EXPECT_NE(what.find(std::to_string(cap + 1)), std::string::npos);
    EXPECT_NE(what.find(std::to_string(cap)), std::string::npos);
  }
  // Dynamic shared memory counts too: 200 KB per block leaves one block per SM.
  const int sms = ::swat::test::test_device().sm_count();
  EXPECT_THROW(cuda::launch_cooperative(::swat::test::test_device(), missing_block_kernel<sync_mode::simple>, dim3(sms + 1),
                                        dim3(threads), 200 * 1024, nullptr, h, 1, 0xffffffffu),
               cuda_error);
  // More than one block may have (1 MiB): no resident block, and the launch is refused.
  EXPECT_EQ(cuda::max_blocks_per_sm(missing_block_kernel<sync_mode::simple>, threads, std::size_t(1) << 20,
                                    ::swat::test::test_device().shared_per_block()),
            0);
  EXPECT_THROW(cuda::launch_cooperative(::swat::test::test_device(), missing_block_kernel<sync_mode::simple>, dim3(1),
                                        dim3(threads), std::size_t(1) << 20, nullptr, h, 1, 0xffffffffu),
               cuda_error);
  EXPECT_THROW(cuda::launch_cooperative(::swat::test::test_device(), missing_block_kernel<sync_mode::simple>, dim3(0),
                                        dim3(threads), 0, nullptr, h, 1, 0xffffffffu),
               cuda_error);
}

template <sync_mode M>
void expect_timeout(int blocks, unsigned missing) {
  constexpr double watchdog_s = 0.2;
  barrier_workspace ws(::swat::test::test_device(), blocks, watchdog_s);
  const barrier_handle h = ws.prepare(M, blocks);
  const auto t0 = std::chrono::steady_clock::now();
  cuda::launch_cooperative(::swat::test::test_device(), missing_block_kernel<M>, dim3(blocks), dim3(128), 0, nullptr, h, 1000,
                           missing);
  try {
    ws.check();
    FAIL() << to_string(M) << ": no timeout although block " << missing << " never arrived";
  } catch (const barrier_timeout& e) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("  %-8s %4d blocks, block %u missing: timeout after %.3f s: %s\n",
                std::string(to_string(M)).c_str(), blocks, missing, s, e.what());
    EXPECT_EQ(e.mode(), M);
    EXPECT_EQ(e.n_blocks(), blocks);
    EXPECT_EQ(e.record().code, error_timeout);
    EXPECT_NE(std::string(e.what()).find(std::string(to_string(M))), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(std::to_string(blocks) + " blocks"), std::string::npos);
    EXPECT_LT(s, 3 * watchdog_s + 0.5) << "watchdog far slower than its setting";
  }
  // The workspace is reusable after a timeout: a full grid passes.
  const barrier_handle h2 = ws.prepare(M, blocks);
  cuda::launch_cooperative(::swat::test::test_device(), missing_block_kernel<M>, dim3(blocks), dim3(128), 0, nullptr, h2, 100,
                           0xffffffffu);
  EXPECT_NO_THROW(ws.check());
}

TEST(GpuBarrierLimits, WatchdogFiresWhenABlockNeverArrives) {
  SWAT_REQUIRE_GPU();
  const int sms = ::swat::test::test_device().sm_count();
  for (int blocks : {2, sms}) {
    const unsigned last = static_cast<unsigned>(blocks - 1);
    expect_timeout<sync_mode::simple>(blocks, last);
    expect_timeout<sync_mode::tree>(blocks, last);
    expect_timeout<sync_mode::tree3>(blocks, last);
    expect_timeout<sync_mode::lockfree>(blocks, last);
    expect_timeout<sync_mode::lockfree>(blocks, 0);  // the master itself is missing
    expect_timeout<sync_mode::flag>(blocks, last);
    expect_timeout<sync_mode::stripe>(blocks, last);
    expect_timeout<sync_mode::lastin>(blocks, last);
  }
  // cg has no watchdog (grid.sync()); it is not run with a missing block.
}

TEST(GpuBarrierLimits, MismatchedGridIsReported) {
  SWAT_REQUIRE_GPU();
  barrier_workspace ws(::swat::test::test_device(), 64);
  const barrier_handle h = ws.prepare(sync_mode::flag, 8);
  cuda::launch_cooperative(::swat::test::test_device(), missing_block_kernel<sync_mode::flag>, dim3(16), dim3(64), 0, nullptr, h,
                           10, 0xffffffffu);
  EXPECT_THROW(ws.check(), barrier_timeout);
}

TEST(GpuBarrierLimits, RunStepsRejectsPersistentModes) {
  SWAT_REQUIRE_GPU();
  const step_launcher nothing = [](cudaStream_t, int) {};
  EXPECT_THROW(run_steps(sync_mode::flag, 1, nullptr, nothing), usage_error);
  EXPECT_NO_THROW(run_steps(sync_mode::graph, 0, nullptr, nothing));
}

}  // namespace
}  // namespace swat::barrier::test
