#pragma once
// Device half of `bench sort` (sort_bench_run.cu): buffers, event timing, CUB. Plain C++.

#include <memory>
#include <string>

#include "cuda/studies/sort/sort.hpp"

namespace swat::sort::bench {

//! Key (and value) buffers of up to max_n items plus a sorter; times runs with events.
class bench_context {
 public:
  explicit bench_context(std::size_t max_n);
  ~bench_context();
  //! Mean device time of one sort of n random u32 keys (pairs: + u32 values) (ms).
  double time_ours(std::size_t n, bool pairs, const sort_options& options, int repeats, int warmup);
  //! Mean device time of CUB DeviceRadixSort (SortKeys / SortPairs) on the same n (ms).
  double time_cub(std::size_t n, bool pairs, int repeats, int warmup);
  //! Co-resident cap of the persistent kernel (blocks).
  int max_blocks(std::size_t n, bool pairs, sync_mode mode);
  //! Device name and SM count.
  static std::string device();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::sort::bench
