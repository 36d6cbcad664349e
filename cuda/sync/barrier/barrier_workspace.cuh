#pragma once
// Host owner of the device state of the grid barriers (counters, flags, tree routes, watchdog
// error record) for grids of up to max_blocks blocks. A .cuh because prepare() and check() take
// a cudaStream_t; include it from *_dispatch.cu files, never from plain C++.
//
//   swat::barrier::barrier_workspace ws(dev, max_blocks);     // once, on device dev
//   auto h = ws.prepare(sync_mode::flag, blocks, stream);      // per launch: async reset
//   swat::cuda::launch_cooperative(dev, kernel<sync_mode::flag>, blocks, threads, smem, stream, h, …);
//   ws.check(stream);                                          // sync + throw barrier_timeout

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "cuda/sync/barrier/barrier_handle.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/device_context.hpp"

namespace swat::barrier {

//! A grid barrier's watchdog fired (or the grid did not match its handle); the message names
//! the mode, the grid size, the block that gave up and the barrier number.
class barrier_timeout : public cuda_error {
 public:
  barrier_timeout(const std::string& what, sync_mode mode, int n_blocks, barrier_error error)
      : cuda_error(what), mode_(mode), n_blocks_(n_blocks), error_(error) {}
  //! Mode of the failed launch.
  sync_mode mode() const { return mode_; }
  //! Blocks of the failed launch.
  int n_blocks() const { return n_blocks_; }
  //! The raw record (code, block, epoch, site).
  const barrier_error& record() const { return error_; }

 private:
  sync_mode mode_;
  int n_blocks_;
  barrier_error error_;
};

//! Default watchdog: a spin that lasts longer than this is an error (seconds).
inline constexpr double default_watchdog_s = 10.0;

//! Device counters and flags for grid barriers of up to max_blocks blocks (see file comment).
//! Not thread-safe; one launch at a time per workspace (prepare resets the state).
class barrier_workspace {
 public:
  //! Allocates the state on dev (current for the calling thread) for grids of 1..max_blocks
  //! blocks; watchdog_s > 0 seconds of dev's SM clock.
  barrier_workspace(const cuda::device_context& dev, int max_blocks, double watchdog_s = default_watchdog_s);
  ~barrier_workspace() = default;
  barrier_workspace(const barrier_workspace&) = delete;
  barrier_workspace& operator=(const barrier_workspace&) = delete;
  barrier_workspace(barrier_workspace&& other) noexcept = default;
  barrier_workspace& operator=(barrier_workspace&& other) noexcept = default;

  //! Largest grid this workspace serves (blocks).
  int max_blocks() const { return max_blocks_; }
  //! Watchdog limit of the next prepare() (seconds, > 0; 0 disables it, tests only).
  void set_watchdog_seconds(double seconds);
  //! Current watchdog limit (seconds).
  double watchdog_seconds() const { return watchdog_s_; }
  //! Stripe count override for the stripe mode (1..32; 0 = stripe_count(N)). Benchmarks only.
  void set_stripe_override(int stripes);

  //! Resets all counters, flags and the error record on stream (asynchronous), uploads the tree
  //! routes when mode needs them, and returns the handle for one launch of n_blocks blocks.
  //! Throws usage_error when n_blocks is outside 1..max_blocks.
  barrier_handle prepare(sync_mode mode, int n_blocks, cudaStream_t stream = nullptr);
  //! Asynchronously clears the counters, flags and error record (prepare() does this too).
  void reset(cudaStream_t stream = nullptr);
  //! Synchronises stream, reads the error record and throws barrier_timeout naming the mode and
  //! grid of the last prepare() when a watchdog fired. Returns normally otherwise.
  void check(cudaStream_t stream = nullptr) const;
  //! The recorded error after synchronising stream (code error_none when fine).
  barrier_error last_error(cudaStream_t stream = nullptr) const;

 private:
  //! The counters, flags and routes (one allocation).
  unsigned char* base() const { return memory_.as<unsigned char>(); }
  int max_blocks_ = 0;
  double watchdog_s_ = default_watchdog_s;
  int stripe_override_ = 0;
  int tree_lines_ = 0;
  cuda::device_buffer memory_;
  std::vector<tree_path> h_paths_;
  int paths_levels_ = 0;
  int paths_blocks_ = 0;
  sync_mode last_mode_ = sync_mode::none;
  int last_blocks_ = 0;
  long long clock_khz_ = 0;
};

}  // namespace swat::barrier
