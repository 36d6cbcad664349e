#pragma once
// Device half of `swat-gpu bench sort` (sort_bench_run.cu): buffers, event timing, CUB. Plain C++.

#include <memory>
#include <string>

#include "cuda/common/device_context.hpp"
#include "cuda/studies/sort/sort.hpp"

namespace swat::bench {

//! Key (and value) buffers of up to max_n items plus a sorter; times runs with events.
class sort_runner {
 public:
  //! Buffers on dev (made current).
  sort_runner(const cuda::device_context& dev, std::size_t max_n);
  ~sort_runner();
  //! Mean device time of one sort of n random u32 keys (pairs: + u32 values) (ms).
  double time_ours(std::size_t n, bool pairs, const sort::sort_options& options, int repeats, int warmup);
  //! Mean device time of CUB DeviceRadixSort (SortKeys / SortPairs) on the same n (ms).
  double time_cub(std::size_t n, bool pairs, int repeats, int warmup);
  //! Co-resident cap of the persistent kernel (blocks).
  int max_blocks(std::size_t n, bool pairs, sync_mode mode);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::bench
