#pragma once
// Device half of `bench fft` (fft_bench_run.cu): buffers, event timing, cuFFT. Plain C++.

#include <memory>
#include <string>

#include "cuda/studies/fft/fft.hpp"

namespace swat::fft::bench {

//! Input/output buffers of up to max_bytes each plus an fft_engine; times runs with events.
class bench_context {
 public:
  explicit bench_context(std::size_t max_bytes);
  ~bench_context();
  //! Fills the input with fresh random points for plan (fixed seed).
  void fill(const fft_plan& plan);
  //! Mean device time of one execute() over repeats runs after warmup runs (ms).
  double time_ours(const fft_plan& plan, const fft_options& options, int repeats, int warmup);
  //! Mean device time of cuFFT on the same sizes (ms; plan created outside the timing).
  double time_cufft(const fft_plan& plan, int repeats, int warmup);
  //! Co-resident cap of the persistent kernel (blocks).
  int max_blocks(const fft_plan& plan, sync_mode mode);
  //! Device name and SM count, e.g. "NVIDIA H100 80GB HBM3 (132 SMs)".
  static std::string device();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::fft::bench
