// A fill cut into bands of strips, each band with its own buffers (see fast_bands.hpp).

#include "cuda/engines/fast/fast_bands.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/score_range.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/engines/fast/fast_dispatch.cuh"
#include "cuda/engines/fast/fast_host_buffers.cuh"
#include "cuda/engines/fast/fast_policy.cuh"

namespace swat::fast {

namespace {

//! The buffers of one band (as on its own GPU): query, target, table, per-strip flags and
//! bests, the error word (only the first band's is used), two border rows.
struct band_buffers {
  cuda::device_buffer memory;
  fast_problem pb{};
};

fill_result run_bands(const cuda::device_context& dev, residue_span query, residue_span target,
                      const scoring_scheme& scheme, fill_variant variant, const fill_options& options, int bands,
                      cudaStream_t st) {
  const bool packed16 = variant == fill_variant::score16;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  const int rows = packed16 ? score16_policy::strip_rows : score_policy::strip_rows;
  const std::int64_t strips = (m + rows - 1) / rows;
  const int g_count = int(std::min<std::int64_t>(bands, strips));
  const std::size_t border_cell = packed16 ? 4 : 8;
  const packed_scheme packed(scheme);
  std::vector<std::uint8_t> q(static_cast<std::size_t>(strips * rows), static_cast<std::uint8_t>(pad_rank));
  std::copy(query.begin(), query.end(), q.begin());

  std::vector<band_buffers> band(static_cast<std::size_t>(g_count));
  for (int g = 0; g < g_count; ++g) {
    cuda::buffer_layout layout;
    const std::size_t off_query = layout.add(q.size());
    const std::size_t off_target = layout.add(std::size_t(n));
    const std::size_t off_table = layout.add(packed.table.size());
    const std::size_t off_ready = layout.add(std::size_t(strips) * 4);
    const std::size_t off_best = layout.add(std::size_t(strips) * sizeof(strip_best));
    const std::size_t off_error = layout.add(16);
    const std::size_t off_border = layout.add(2 * std::size_t(n) * border_cell);
    cuda::device_buffer& b = band[std::size_t(g)].memory;
    b.reserve(layout.bytes());
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_query), q.data(), q.size(), cudaMemcpyHostToDevice, st));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_target), target.data(), std::size_t(n), cudaMemcpyHostToDevice, st));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_table), packed.table.data(), packed.table.size(),
                                    cudaMemcpyHostToDevice, st));
    SWAT_CUDA_CHECK(cudaMemsetAsync(b.as<void>(off_ready), 0, off_border - off_ready, st));
    fast_problem& pb = band[std::size_t(g)].pb;
    pb.d_query = b.as<std::uint8_t>(off_query);
    pb.d_target = b.as<std::uint8_t>(off_target);
    pb.d_table = b.as<std::int8_t>(off_table);
    pb.m = std::int32_t(m);
    pb.n = std::int32_t(n);
    pb.strips = std::int32_t(strips);
    packed.apply(pb);
    for (int k = 0; k < 2; ++k) {
      const std::size_t row = off_border + std::size_t(k) * std::size_t(n) * border_cell;
      pb.border[k].h = b.as<std::int32_t>(row);
      pb.border[k].f = packed16 ? nullptr : b.as<std::int32_t>(row + 4 * std::size_t(n));
    }
    pb.d_ready = b.as<std::uint32_t>(off_ready);
    pb.d_best = b.as<strip_best>(off_best);
    pb.d_error = band[0].pb.d_error ? band[0].pb.d_error : b.as<std::int32_t>(off_error);  // the first band's
    pb.d_wait_cycles = b.as<unsigned long long>(off_error + 8);
    pb.watchdog_cycles = static_cast<long long>(options.watchdog_seconds * watchdog_clock_hz);
    pb.score_limit = 32767 - std::max(scheme.max_score(), 0);
    if (options.score16_limit > 0) pb.score_limit = std::min(pb.score_limit, options.score16_limit);
    pb.strip_first = std::int32_t(strips * g / g_count);
    pb.strip_last = std::int32_t(strips * (g + 1) / g_count);
  }
  // Hand-over: band g's last strip writes the next band's border row of that strip and flag.
  for (int g = 0; g + 1 < g_count; ++g) {
    fast_problem& pb = band[std::size_t(g)].pb;
    const fast_problem& next = band[std::size_t(g) + 1].pb;
    const int s = pb.strip_last - 1;
    pb.band_out = next.border[s & 1];
    pb.band_ready = next.d_ready + s;
  }

  fill_result res;
  res.strips = int(strips);
  res.ran = variant;
  cudaEvent_t start = nullptr, stop = nullptr;
  SWAT_CUDA_CHECK(cudaEventCreate(&start));
  SWAT_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<strip_best> bests(static_cast<std::size_t>(strips));
  std::int32_t error = 0;
  try {
    SWAT_CUDA_CHECK(cudaEventRecord(start, st));
    for (const band_buffers& b : band)
      res.blocks += packed16 ? launch_fill<score16_policy>(dev, b.pb, options.max_blocks, st)
                             : launch_fill<score_policy>(dev, b.pb, options.max_blocks, st);
    SWAT_CUDA_CHECK(cudaEventRecord(stop, st));
    for (const band_buffers& b : band) {  // each band's bests of its own strips
      const std::size_t first = std::size_t(b.pb.strip_first), count = std::size_t(b.pb.strip_last) - first;
      SWAT_CUDA_CHECK(cudaMemcpyAsync(bests.data() + first, b.pb.d_best + first, count * sizeof(strip_best),
                                      cudaMemcpyDeviceToHost, st));
    }
    SWAT_CUDA_CHECK(cudaMemcpyAsync(&error, band[0].pb.d_error, 4, cudaMemcpyDeviceToHost, st));
    SWAT_CUDA_CHECK(cudaStreamSynchronize(st));
    float ms = 0;
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    res.kernel_seconds = double(ms) / 1e3;
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (error == fast_error_overflow && packed16) {
    res.overflowed = true;
    return res;
  }
  if (error != 0)
    throw cuda_error("sw_fast: a ready flag did not rise within " + std::to_string(options.watchdog_seconds) +
                     " s (watchdog, banded fill)");
  strip_best top{0, 0, 0, 0, 0};
  for (const strip_best& sb : bests)  // strip order, as one fill's
    if (sb.score > 0 && cell_beats(sb.score, sb.query_end, sb.target_end, top.score, top.query_end, top.target_end))
      top = sb;
  res.best = {top.score, top.query_end, top.target_end};
  return res;
}

}  // namespace

fill_result fill_bands(const cuda::device_context& dev, residue_span query, residue_span target,
                       const scoring_scheme& scheme, const fill_options& options, int bands) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if (m < 1 || n < 1 || m > (1ll << 31) - 1024 || n > (1ll << 31) - 1024)
    throw std::invalid_argument("sw_fast: sequence lengths must be in [1, 2^31 - 1024)");
  if (bands < 1) throw std::invalid_argument("sw_fast: a banded fill needs at least one band");
  if (!scheme_fits(scheme)) throw std::invalid_argument("sw_fast: scores must lie in [-127, 127] (int8 profile)");
  if (!within_score_range(std::uint64_t(m), std::uint64_t(n), scheme))
    throw std::invalid_argument("sw_fast: the best score could exceed 2^30");
  if (options.grid_barrier || options.variant == fill_variant::origins32)
    throw std::invalid_argument("sw_fast: banded fills run the score32 and score16 variants with ready flags");
  dev.make_current();
  cudaStream_t st = nullptr;
  SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  struct stream_guard {
    cudaStream_t s;
    ~stream_guard() { cudaStreamDestroy(s); }
  } guard{st};
  if (options.variant == fill_variant::score16 && scheme_fits16(scheme)) {
    fill_result first = run_bands(dev, query, target, scheme, fill_variant::score16, options, bands, st);
    if (!first.overflowed) return first;
    fill_result second = run_bands(dev, query, target, scheme, fill_variant::score32, options, bands, st);
    second.overflowed = true;
    second.overflow_seconds = first.kernel_seconds;
    second.kernel_seconds += first.kernel_seconds;
    return second;
  }
  return run_bands(dev, query, target, scheme, fill_variant::score32, options, bands, st);
}

}  // namespace swat::fast
