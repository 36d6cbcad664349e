// fill_context: device buffers, problem set-up, the variant switch, best-cell reduction.

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
#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/sync/barrier/with_sync_mode.cuh"

namespace swat::fast {

int variant_strip_rows(fill_variant v) {
  switch (v) {
    case fill_variant::score32: return score_policy::strip_rows;
    case fill_variant::origins32: return origin_policy::strip_rows;
    case fill_variant::score16: return score16_policy::strip_rows;
    default: throw std::invalid_argument("sw_fast: unknown fill variant");
  }
}

int score16_last_row_lag() { return score16_policy::last_row_lag; }

bool scheme_fits(const scoring_scheme& scheme) {
  return scheme.max_score() <= 127 && scheme.min_score() >= -127 && scheme.gap_open >= 0 &&
         scheme.gap_extend >= 0 && scheme.gap_open + scheme.gap_extend > 0 &&
         scheme.gap_open + scheme.gap_extend < (1 << 20) && scheme.size() <= pad_rank;
}

bool scheme_fits16(const scoring_scheme& scheme) {
  return scheme_fits(scheme) && scheme.gap_open + scheme.gap_extend <= 8192;
}

bool scheme_relative16(const scoring_scheme& scheme) {
  return scheme_fits16(scheme) && rebase_levels_of(scheme.gap_open + scheme.gap_extend, scheme.max_score()).fits;
}

//! Launches the packed 16-bit fill with grid barrier `mode` (persistent modes only, not none)
//! through the barrier layer's launch body; returns the blocks.
int launch_fill_barrier16(const cuda::device_context& dev, sync_mode mode, const fast_problem& pb, int chunk,
                          int max_blocks, barrier::barrier_workspace& ws, cudaStream_t st) {
  using p = score16_policy;
  if (!is_persistent(mode) || mode == sync_mode::none)
    throw std::invalid_argument("sw_fast: the grid-barrier fill takes a persistent sync mode, not '" +
                                std::string(to_string(mode)) + "'");
  const int blocks = barrier::with_sync_mode(mode, [&](auto m) {
    constexpr sync_mode M = decltype(m)::value;
    if constexpr (M == sync_mode::none) return 0;
    else return fill_barrier_blocks<p, M>(dev, pb, max_blocks, ws.max_blocks());
  });
  barrier::step_run run;
  run.mode = mode;
  run.blocks = blocks;
  run.stream = st;
  run.workspace = &ws;
  run.check = false;  // checked after the fill's results are copied back
  const barrier::persistent_launcher launch = [&](const barrier::barrier_handle& h) {
    barrier::with_sync_mode(mode, [&](auto m) {
      constexpr sync_mode M = decltype(m)::value;
      if constexpr (M != sync_mode::none) launch_fill_barrier<p, M>(dev, pb, chunk, blocks, h, st);
    });
  };
  barrier::run_synchronised(run, launch, {});
  return blocks;
}

fill_sections add_fill_sections(cuda::buffer_layout& layout, std::int64_t m, std::int64_t n, fill_variant variant,
                                std::size_t table_bytes) {
  fill_sections f;
  f.m = m;
  f.n = n;
  f.variant = variant;
  const bool origins = variant == fill_variant::origins32;
  const bool packed16 = variant == fill_variant::score16;
  const int rows = variant_strip_rows(variant);
  f.strips = (m + rows - 1) / rows;
  f.padded = f.strips * rows;
  f.border_cell = origins ? 24 : packed16 ? 4 : 8;
  f.chunks = std::size_t((n + 31) / 32);
  f.query = layout.add(std::size_t(f.padded));
  f.target = layout.add(std::size_t(n));
  f.table = layout.add(table_bytes);
  f.ready = layout.add(std::size_t(f.strips) * 4);
  f.best = layout.add(std::size_t(f.strips) * sizeof(strip_best));
  // error word, a banded fill's beat count at +4, the 8-byte flag-wait counter at +8, the packed
  // fill's best score so far at +16
  f.error = layout.add(32);
  f.border = layout.add(2 * std::size_t(n) * f.border_cell);
  f.base = packed16 ? layout.add(2 * f.chunks * 4) : 0;  // relative16: chunk bases
  f.snapshot = packed16 ? layout.add(std::size_t(f.strips) * 256 * sizeof(uint4)) : 0;  // best cells' rows
  return f;
}

fast_problem stage_sections(const cuda::device_buffer& b, const fill_sections& f, residue_span query,
                            residue_span target, const scoring_scheme& scheme, const fill_options& options,
                            cudaStream_t st) {
  const std::int64_t m = f.m, n = f.n;
  const fill_variant variant = f.variant;
  const bool origins = variant == fill_variant::origins32;
  const bool packed16 = variant == fill_variant::score16;
  const int rows = variant_strip_rows(variant);
  const packed_scheme packed(scheme);

  // Pageable sources: each copy returns once its bytes are staged, so q may go out of scope.
  std::vector<std::uint8_t> q(static_cast<std::size_t>(f.padded), static_cast<std::uint8_t>(pad_rank));
  std::copy(query.begin(), query.end(), q.begin());
  SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(f.query), q.data(), q.size(), cudaMemcpyHostToDevice, st));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(f.target), target.data(), std::size_t(n), cudaMemcpyHostToDevice, st));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(f.table), packed.table.data(), packed.table.size(),
                                  cudaMemcpyHostToDevice, st));
  SWAT_CUDA_CHECK(cudaMemsetAsync(b.as<void>(f.ready), 0, f.border - f.ready, st));

  fast_problem pb{};
  pb.d_query = b.as<std::uint8_t>(f.query);
  pb.d_target = b.as<std::uint8_t>(f.target);
  pb.d_table = b.as<std::int8_t>(f.table);
  pb.m = std::int32_t(m);
  pb.n = std::int32_t(n);
  pb.strips = std::int32_t(f.strips);
  packed.apply(pb);
  for (int k = 0; k < 2; ++k) {
    const std::size_t row = f.border + std::size_t(k) * std::size_t(n) * f.border_cell;
    pb.border[k].h = b.as<std::int32_t>(row);
    pb.border[k].f = packed16 ? nullptr : b.as<std::int32_t>(row + 4 * std::size_t(n));
    pb.border[k].oh = origins ? b.as<std::uint64_t>(row + 8 * std::size_t(n)) : nullptr;
    pb.border[k].of = origins ? b.as<std::uint64_t>(row + 16 * std::size_t(n)) : nullptr;
    pb.border[k].base = packed16 ? b.as<std::int32_t>(f.base + std::size_t(k) * f.chunks * 4) : nullptr;
  }
  pb.d_ready = b.as<std::uint32_t>(f.ready);
  pb.d_best = b.as<strip_best>(f.best);
  pb.d_error = b.as<std::int32_t>(f.error);
  pb.d_wait_cycles = b.as<unsigned long long>(f.error + 8);
  pb.d_best_so_far = b.as<std::int32_t>(f.error + 16);
  pb.d_snapshot = packed16 ? b.as<uint4>(f.snapshot) : nullptr;
  pb.watchdog_cycles = static_cast<long long>(options.watchdog_seconds * watchdog_clock_hz);
  pb.score_limit = 32767 - std::max(scheme.max_score(), 0);
  if (options.score16_limit > 0) pb.score_limit = std::min(pb.score_limit, options.score16_limit);
  // Relative 16-bit scores (no overflow) where the scheme allows; a test's score16_limit asks for
  // the absolute fill and its overflow instead.
  pb.relative16 = packed16 && options.score16_limit == 0 && scheme_relative16(scheme);
  if (options.rows_first && origins) throw std::invalid_argument("sw_fast: the rows-first tie rule is the score variants'");
  pb.rows_first = options.rows_first ? 1 : 0;
  const rebase_levels levels = rebase_levels_of(scheme.gap_open + scheme.gap_extend, scheme.max_score());
  pb.rebase_low = levels.low;
  pb.rebase_mid = levels.mid;
  pb.rebase_high = levels.high;
  if ((variant == fill_variant::score32 || variant == fill_variant::score16) && options.special.rows) {
    const std::int64_t every = options.special.every_rows;
    if (every < rows || every % rows != 0 || !options.special.row_max)
      throw std::invalid_argument("sw_fast: special rows every " + std::to_string(every) + " rows (a multiple of " +
                                  std::to_string(rows) + " with a row_max array)");
    pb.d_special = options.special.rows;
    pb.special_strips = std::int32_t(every / rows);
    pb.d_special_max = options.special.row_max;
    const std::int64_t kept = (m - 1) / every;
    if (kept > 0) SWAT_CUDA_CHECK(cudaMemsetAsync(pb.d_special_max, 0, std::size_t(kept) * 4, st));
  }
  return pb;
}

fast_problem stage_fill(cuda::device_buffer& b, residue_span query, residue_span target, const scoring_scheme& scheme,
                        fill_variant variant, const fill_options& options, cudaStream_t st) {
  cuda::buffer_layout layout;
  const fill_sections f = add_fill_sections(layout, std::int64_t(query.size()), std::int64_t(target.size()), variant,
                                            packed_scheme(scheme).table.size());
  b.reserve(layout.bytes());
  return stage_sections(b, f, query, target, scheme, options, st);
}

strip_best best_of_strips(const std::vector<strip_best>& bests, bool rows_first) {
  strip_best top{0, 0, 0, 0, 0};
  for (const strip_best& sb : bests)
    if (sb.score > 0 &&
        cell_beats_as(rows_first, sb.score, sb.query_end, sb.target_end, top.score, top.query_end, top.target_end))
      top = sb;
  return top;
}

struct fill_context::impl {
  cuda::device_context dev;
  cuda::device_buffer buffer;
  std::unique_ptr<barrier::barrier_workspace> barriers;  // created by the first barrier fill
  barrier::barrier_workspace& workspace() {
    if (!barriers) barriers = std::make_unique<barrier::barrier_workspace>(dev, dev.sm_count() * 32);
    return *barriers;
  }
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  explicit impl(const cuda::device_context& device) : dev(device) {
    dev.make_current();
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SWAT_CUDA_CHECK(cudaEventCreate(&start));
    SWAT_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~impl() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  }
};

fill_context::fill_context(const cuda::device_context& dev) : impl_(std::make_unique<impl>(dev)) {}
fill_context::~fill_context() = default;

std::int64_t fill_context::held_bytes() const { return std::int64_t(impl_->buffer.bytes()); }

void fill_context::release() {
  impl_->dev.make_current();
  SWAT_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  impl_->buffer.release();
}

fill_result fill_context::fill(residue_span query, residue_span target, const scoring_scheme& scheme,
                               const fill_options& options) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if (m < 1 || n < 1 || m > (1ll << 31) - 1024 || n > (1ll << 31) - 1024)
    throw std::invalid_argument("sw_fast: sequence lengths must be in [1, 2^31 - 1024)");
  if (!scheme_fits(scheme))
    throw std::invalid_argument("sw_fast: scores must lie in [-127, 127] (int8 profile)");
  if (!within_score_range(std::uint64_t(m), std::uint64_t(n), scheme))
    throw std::invalid_argument("sw_fast: the best score could exceed 2^30");
  impl_->dev.make_current();
  if (options.grid_barrier) {
    if (options.variant != fill_variant::score16)
      throw std::invalid_argument("sw_fast: only the score16 fill has a grid-barrier variant");
    if (!is_persistent(*options.grid_barrier) || *options.grid_barrier == sync_mode::none)
      throw std::invalid_argument("sw_fast: the grid-barrier fill takes a persistent sync mode");
    if (options.barrier_columns < 0 || options.barrier_columns % 32 != 0 || options.barrier_columns > (1 << 16))
      throw std::invalid_argument("sw_fast: barrier_columns must be a multiple of 32 in [32, 65536]");
  }
  if (options.variant != fill_variant::score16) return run_once(query, target, scheme, options.variant, options);
  if (!scheme_fits16(scheme)) return run_once(query, target, scheme, fill_variant::score32, options);
  fill_result first = run_once(query, target, scheme, fill_variant::score16, options);
  if (!first.overflowed) return first;
  fill_result second = run_once(query, target, scheme, fill_variant::score32, options);
  second.overflowed = true;
  second.overflow_seconds = first.kernel_seconds;
  second.kernel_seconds += first.kernel_seconds;
  return second;
}

int fill_context::batch_round_warps(const scoring_scheme& scheme) const {
  return fill_round_warps<score16_policy>(impl_->dev, packed_scheme(scheme).ranks, 0);
}

std::int64_t batch_pair_bytes(std::int64_t rows, std::int64_t columns) {
  cuda::buffer_layout layout;
  add_fill_sections(layout, rows, columns, fill_variant::score16, std::size_t(fast_table_stride) * fast_table_stride);
  return std::int64_t(layout.bytes() + sizeof(fast_problem) + 4);
}

std::vector<fill_result> fill_context::fill_batch(std::span<const batch_pair> pairs, const scoring_scheme& scheme,
                                                  const fill_options& options) {
  if (pairs.empty()) return {};
  if (!scheme_relative16(scheme))
    throw std::invalid_argument("sw_fast: a batch of fills takes a scheme of relative 16-bit scores (o + e + max s <= 26)");
  // The problems by strips, most first, and the strips level by level (fast_batch; it refuses a
  // batch of 2^31 strips or more).
  std::vector<std::int64_t> pair_strips;
  for (const batch_pair& p : pairs) {
    const std::int64_t m = std::int64_t(p.rows.size()), n = std::int64_t(p.columns.size());
    if (m < 1 || n < 1 || m > (1ll << 31) - 1024 || n > (1ll << 31) - 1024)
      throw std::invalid_argument("sw_fast: sequence lengths must be in [1, 2^31 - 1024)");
    if (!within_score_range(std::uint64_t(m), std::uint64_t(n), scheme))
      throw std::invalid_argument("sw_fast: the best score could exceed 2^30");
    pair_strips.push_back((m + score16_policy::strip_rows - 1) / score16_policy::strip_rows);
  }
  impl_->dev.make_current();
  cudaStream_t st = impl_->stream;
  const batch_order plan = plan_batch_order(pair_strips);
  const std::vector<std::size_t>& order = plan.order;  // order[k]: the pair of problem k
  const std::vector<std::int32_t>& level_first = plan.level_first;
  const std::int64_t levels = std::int64_t(level_first.size()) - 1;

  const std::size_t table_bytes = packed_scheme(scheme).table.size();
  cuda::buffer_layout layout;
  std::vector<fill_sections> sections;
  sections.reserve(pairs.size());
  for (std::size_t k : order)
    sections.push_back(add_fill_sections(layout, std::int64_t(pairs[k].rows.size()), std::int64_t(pairs[k].columns.size()),
                                         fill_variant::score16, table_bytes));
  const std::size_t off_problems = layout.add(pairs.size() * sizeof(fast_problem));
  const std::size_t off_levels = layout.add(std::size_t(levels + 1) * 4);
  const std::size_t off_next = layout.add(4);
  impl_->buffer.reserve(layout.bytes());
  const cuda::device_buffer& b = impl_->buffer;

  fill_options o = options;
  o.variant = fill_variant::score16;
  o.score16_limit = 0;
  o.special = {};
  std::vector<fast_problem> problems;
  problems.reserve(pairs.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const batch_pair& p = pairs[order[k]];
    o.rows_first = p.rows_first;
    fast_problem pb = stage_sections(b, sections[k], p.rows, p.columns, scheme, o, st);
    if (k > 0) {  // one error word and wait counter for the batch; a best so far of its own
      pb.d_error = problems.front().d_error;
      pb.d_wait_cycles = problems.front().d_wait_cycles;
    }
    problems.push_back(pb);
  }
  SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_problems), problems.data(), problems.size() * sizeof(fast_problem),
                                  cudaMemcpyHostToDevice, st));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_levels), level_first.data(), level_first.size() * 4,
                                  cudaMemcpyHostToDevice, st));
  fast_batch batch{};
  batch.problems = b.as<fast_problem>(off_problems);
  batch.level_first = b.as<std::int32_t>(off_levels);
  batch.pairs = std::int32_t(pairs.size());
  batch.levels = std::int32_t(levels);
  batch.strips = level_first.back();
  batch.ranks = problems.front().ranks;
  batch.d_error = problems.front().d_error;
  batch.d_next = b.as<std::int32_t>(off_next);
  SWAT_CUDA_CHECK(cudaMemsetAsync(batch.d_next, 0, 4, st));

  SWAT_CUDA_CHECK(cudaEventRecord(impl_->start, st));
  const int blocks = launch_fill_batch<score16_policy>(impl_->dev, batch, options.max_blocks, st);
  SWAT_CUDA_CHECK(cudaEventRecord(impl_->stop, st));
  std::vector<std::vector<strip_best>> bests(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    bests[k].resize(std::size_t(problems[k].strips));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(bests[k].data(), problems[k].d_best, bests[k].size() * sizeof(strip_best),
                                    cudaMemcpyDeviceToHost, st));
  }
  std::int32_t error = 0;
  unsigned long long wait_cycles = 0;
  SWAT_CUDA_CHECK(cudaMemcpyAsync(&error, batch.d_error, 4, cudaMemcpyDeviceToHost, st));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(&wait_cycles, problems.front().d_wait_cycles, 8, cudaMemcpyDeviceToHost, st));
  SWAT_CUDA_CHECK(cudaStreamSynchronize(st));
  if (error != 0)  // relative scores do not overflow: only the watchdog stops a batch
    throw cuda_error("sw_fast: a ready flag did not rise within " + std::to_string(options.watchdog_seconds) +
                     " s (watchdog)");
  float ms = 0;
  SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, impl_->start, impl_->stop));
  std::vector<fill_result> results(pairs.size());
  const double seconds = double(ms) / 1e3;
  const int khz = impl_->dev.clock_khz();
  const double warp_seconds = double(blocks) * score16_policy::warps_per_block * seconds;
  for (std::size_t k = 0; k < pairs.size(); ++k) {  // problem k is pair order[k]
    fill_result& r = results[order[k]];
    r.kernel_seconds = seconds;
    r.blocks = blocks;
    r.strips = problems[k].strips;
    r.ran = fill_variant::score16;
    if (khz > 0 && warp_seconds > 0) r.flag_wait_share = double(wait_cycles) / (double(khz) * 1e3) / warp_seconds;
    const strip_best top = best_of_strips(bests[k], pairs[order[k]].rows_first);
    r.best = {top.score, top.query_end, top.target_end};
  }
  return results;
}

fill_result fill_context::run_once(residue_span query, residue_span target, const scoring_scheme& scheme,
                                   fill_variant variant, const fill_options& options) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  const bool origins = variant == fill_variant::origins32;
  const bool packed16 = variant == fill_variant::score16;
  const int rows = variant_strip_rows(variant);
  const std::int64_t strips = (m + rows - 1) / rows;

  if (packed16 && options.grid_barrier) {  // bound of the barrier fill's loop index: one round of every strip
    const std::int64_t lag = (options.barrier_columns > 0 ? options.barrier_columns : default_barrier_columns) +
                             score16_policy::last_row_lag;
    if (n + score16_policy::last_row_lag + lag * strips + lag >= (1ll << 31))
      throw std::invalid_argument("sw_fast: pair too long for the grid-barrier fill's 32-bit step counter");
  }

  fast_problem pb = stage_fill(impl_->buffer, query, target, scheme, variant, options, impl_->stream);
  cudaStream_t st = impl_->stream;

  fill_result res;
  res.strips = int(strips);
  res.ran = variant;
  SWAT_CUDA_CHECK(cudaEventRecord(impl_->start, st));
  switch (variant) {
    case fill_variant::score32: res.blocks = launch_fill<score_policy>(impl_->dev, pb, options.max_blocks, st); break;
    case fill_variant::origins32: res.blocks = launch_fill<origin_policy>(impl_->dev, pb, options.max_blocks, st); break;
    case fill_variant::score16:
      if (options.grid_barrier) {
        const int chunk = options.barrier_columns > 0 ? options.barrier_columns : default_barrier_columns;
        res.blocks = launch_fill_barrier16(impl_->dev, *options.grid_barrier, pb, chunk, options.max_blocks,
                                           impl_->workspace(), st);
      } else {
        res.blocks = launch_fill<score16_policy>(impl_->dev, pb, options.max_blocks, st);
      }
      break;
    default: throw std::invalid_argument("sw_fast: unknown fill variant");
  }
  SWAT_CUDA_CHECK(cudaEventRecord(impl_->stop, st));
  std::vector<strip_best> bests(static_cast<std::size_t>(strips));
  std::int32_t error = 0;
  unsigned long long wait_cycles = 0;
  SWAT_CUDA_CHECK(cudaMemcpyAsync(bests.data(), pb.d_best, bests.size() * sizeof(strip_best),
                                  cudaMemcpyDeviceToHost, st));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(&error, pb.d_error, 4, cudaMemcpyDeviceToHost, st));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(&wait_cycles, pb.d_wait_cycles, 8, cudaMemcpyDeviceToHost, st));
  SWAT_CUDA_CHECK(cudaStreamSynchronize(st));
  if (packed16 && options.grid_barrier) impl_->workspace().check(st);  // throws barrier_timeout
  float ms = 0;
  SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, impl_->start, impl_->stop));
  res.kernel_seconds = double(ms) / 1e3;
  {
    const int khz = impl_->dev.clock_khz();
    const double warp_seconds = double(res.blocks) * score_policy::warps_per_block * res.kernel_seconds;
    if (khz > 0 && warp_seconds > 0) res.flag_wait_share = double(wait_cycles) / (double(khz) * 1e3) / warp_seconds;
  }
  if (error == fast_error_overflow && packed16) {
    res.overflowed = true;
    return res;
  }
  if (error != 0)
    throw cuda_error("sw_fast: a ready flag did not rise within " +
                     std::to_string(options.watchdog_seconds) + " s (watchdog)");

  const strip_best top = best_of_strips(bests, options.rows_first);
  res.best = {top.score, top.query_end, top.target_end};
  if (origins && top.score > 0) {
    res.query_begin = std::int64_t(top.origin >> 32);
    res.target_begin = std::int64_t(top.origin & 0xffffffffu);
  }
  return res;
}

}  // namespace swat::fast
