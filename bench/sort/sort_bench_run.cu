// Device half of `swat-gpu bench sort`: buffers, CUDA-event timing, CUB radix sort (sort_bench_run.hpp).

#include <cub/device/device_radix_sort.cuh>

#include <random>
#include <string>
#include <vector>

#include "cuda/common/cuda_check.cuh"
#include "bench/common/event_timer.cuh"
#include "bench/sort/sort_bench_run.hpp"

namespace swat::bench {

using namespace sort;

namespace {

//! Mean ms per call of work over repeats calls after warmup calls (events around each call;
//! before(): untimed preparation, e.g. restoring the unsorted input).
template <typename before_t, typename work_t>
double timed_mean(int repeats, int warmup, before_t before, work_t work) {
  double total = 0;
  for (int i = 0; i < warmup + repeats; ++i) {
    before();
    const float ms = elapsed_ms(nullptr, work);
    if (i >= warmup) total += ms;
  }
  return total / repeats;
}

}  // namespace

struct sort_runner::impl {
  std::uint32_t* d_keys0 = nullptr;  // random input, never sorted
  std::uint32_t* d_vals0 = nullptr;
  std::uint32_t* d_keys = nullptr;   // working copy / CUB output
  std::uint32_t* d_vals = nullptr;
  void* d_temp = nullptr;
  std::size_t temp_bytes = 0;
  std::size_t max_n = 0;
  sorter s;
  explicit impl(const cuda::device_context& dev) : s(dev) {}
};

sort_runner::sort_runner(const cuda::device_context& dev, std::size_t max_n) : impl_(std::make_unique<impl>(dev)) {
  dev.make_current();
  impl_->max_n = max_n;
  for (auto** p : {&impl_->d_keys0, &impl_->d_vals0, &impl_->d_keys, &impl_->d_vals})
    SWAT_CUDA_CHECK(cudaMalloc(p, max_n * 4));
  std::mt19937 rng(42);
  std::vector<std::uint32_t> h(max_n);
  for (auto& v : h) v = rng();
  SWAT_CUDA_CHECK(cudaMemcpy(impl_->d_keys0, h.data(), max_n * 4, cudaMemcpyHostToDevice));
  for (auto& v : h) v = rng();
  SWAT_CUDA_CHECK(cudaMemcpy(impl_->d_vals0, h.data(), max_n * 4, cudaMemcpyHostToDevice));
}

sort_runner::~sort_runner() {
  for (void* p : {static_cast<void*>(impl_->d_keys0), static_cast<void*>(impl_->d_vals0),
                  static_cast<void*>(impl_->d_keys), static_cast<void*>(impl_->d_vals), impl_->d_temp})
    (void)cudaFree(p);
}

double sort_runner::time_ours(std::size_t n, bool pairs, const sort_options& options, int repeats, int warmup) {
  sort_options o = options;
  o.check = false;
  auto& m = *impl_;
  const double ms = timed_mean(
      repeats, warmup,
      [&] {
        SWAT_CUDA_CHECK(cudaMemcpy(m.d_keys, m.d_keys0, n * 4, cudaMemcpyDeviceToDevice));
        if (pairs) SWAT_CUDA_CHECK(cudaMemcpy(m.d_vals, m.d_vals0, n * 4, cudaMemcpyDeviceToDevice));
      },
      [&] {
        if (pairs) {
          m.s.sort_pairs(m.d_keys, m.d_vals, n, o);
        } else {
          m.s.sort_keys(m.d_keys, n, o);
        }
      });
  m.s.check();
  return ms;
}

double sort_runner::time_cub(std::size_t n, bool pairs, int repeats, int warmup) {
  auto& m = *impl_;
  std::size_t need = 0;
  const int items = static_cast<int>(n);
  if (pairs) {
    SWAT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, m.d_keys0, m.d_keys, m.d_vals0, m.d_vals, items));
  } else {
    SWAT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, need, m.d_keys0, m.d_keys, items));
  }
  if (need > m.temp_bytes) {
    if (m.d_temp) SWAT_CUDA_CHECK(cudaFree(m.d_temp));
    m.d_temp = nullptr;
    SWAT_CUDA_CHECK(cudaMalloc(&m.d_temp, need));
    m.temp_bytes = need;
  }
  return timed_mean(
      repeats, warmup, [] {},
      [&] {
        std::size_t bytes = m.temp_bytes;
        if (pairs) {
          SWAT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m.d_temp, bytes, m.d_keys0, m.d_keys, m.d_vals0, m.d_vals, items));
        } else {
          SWAT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(m.d_temp, bytes, m.d_keys0, m.d_keys, items));
        }
      });
}

int sort_runner::max_blocks(std::size_t n, bool pairs, sync_mode mode) {
  return impl_->s.max_blocks(make_sort_plan(n, pairs), mode);
}

}  // namespace swat::bench
