#pragma once
// Device half of `swat-gpu bench fft` (fft_bench_run.cu): buffers, event timing, cuFFT. Plain C++.

#include <memory>
#include <string>

#include "cuda/common/device_context.hpp"
#include "cuda/studies/fft/fft.hpp"

namespace swat::bench {

//! Input/output buffers of up to max_bytes each plus an fft_engine; times runs with events.
class fft_runner {
 public:
  //! Buffers on dev (made current).
  fft_runner(const cuda::device_context& dev, std::size_t max_bytes);
  ~fft_runner();
  //! Fills the input with fresh random points for plan (fixed seed).
  void fill(const fft::fft_plan& plan);
  //! Mean device time of one execute() over repeats runs after warmup runs (ms).
  double time_ours(const fft::fft_plan& plan, const fft::fft_options& options, int repeats, int warmup);
  //! Mean device time of cuFFT on the same sizes (ms; plan created outside the timing).
  double time_cufft(const fft::fft_plan& plan, int repeats, int warmup);
  //! Co-resident cap of the persistent kernel (blocks).
  int max_blocks(const fft::fft_plan& plan, sync_mode mode);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::bench
