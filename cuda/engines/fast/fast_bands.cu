// A fill cut into bands of strips, each band with its own buffers (see fast_bands.hpp).

#include "cuda/engines/fast/fast_bands.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
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
//! bests, its error word, two border rows.
struct band_buffers {
  int device = 0;
  cuda::device_buffer memory;
  fast_problem pb{};
};

//! Mapped, portable pinned host memory (a hand-over row and its flag between two GPUs without
//! peer access).
struct host_handover {
  void* memory = nullptr;
  host_handover(std::size_t bytes) {
    SWAT_CUDA_CHECK(cudaHostAlloc(&memory, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(memory, 0, bytes);
  }
  ~host_handover() {
    if (memory) cudaFreeHost(memory);
  }
  host_handover(const host_handover&) = delete;
  host_handover& operator=(const host_handover&) = delete;
};

//! A stream per device of the fill (band order is launch order on each).
struct device_streams {
  std::map<int, cudaStream_t> of;
  cudaStream_t on(int device) {
    auto it = of.find(device);
    if (it != of.end()) return it->second;
    cuda::device_context(device).make_current();
    cudaStream_t st = nullptr;
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    return of[device] = st;
  }
  void synchronize() {
    for (const auto& [device, st] : of) {
      SWAT_CUDA_CHECK(cudaSetDevice(device));
      SWAT_CUDA_CHECK(cudaStreamSynchronize(st));
    }
  }
  ~device_streams() {
    for (const auto& [device, st] : of) {
      (void)cudaSetDevice(device);
      (void)cudaStreamSynchronize(st);
      cudaStreamDestroy(st);
    }
  }
};

//! Lets `from` write to `to`'s memory; false when the pair has no peer access.
bool enable_peer(int from, int to) {
  if (from == to) return true;
  int can = 0;
  SWAT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can) return false;
  SWAT_CUDA_CHECK(cudaSetDevice(from));
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return true;
  }
  SWAT_CUDA_CHECK(e);
  return true;
}

fill_result run_bands(residue_span query, residue_span target, const scoring_scheme& scheme, fill_variant variant,
                      const fill_options& options, int bands, const band_layout& where) {
  const bool packed16 = variant == fill_variant::score16;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  const int rows = packed16 ? score16_policy::strip_rows : score_policy::strip_rows;
  const std::int64_t strips = (m + rows - 1) / rows;
  const int g_count = int(std::min<std::int64_t>(bands, strips));
  const std::size_t border_cell = packed16 ? 4 : 8;
  const packed_scheme packed(scheme);
  std::vector<std::uint8_t> q(static_cast<std::size_t>(strips * rows), static_cast<std::uint8_t>(pad_rank));
  std::copy(query.begin(), query.end(), q.begin());
  device_streams streams;

  std::vector<band_buffers> band(static_cast<std::size_t>(g_count));
  for (int g = 0; g < g_count; ++g) {
    band_buffers& bb = band[std::size_t(g)];
    bb.device = where.devices[std::size_t(g) % where.devices.size()];
    cudaStream_t st = streams.on(bb.device);
    cuda::device_context(bb.device).make_current();
    cuda::buffer_layout layout;
    const std::size_t off_query = layout.add(q.size());
    const std::size_t off_target = layout.add(std::size_t(n));
    const std::size_t off_table = layout.add(packed.table.size());
    const std::size_t off_ready = layout.add(std::size_t(strips) * 4);
    const std::size_t off_best = layout.add(std::size_t(strips) * sizeof(strip_best));
    const std::size_t off_error = layout.add(16);
    const std::size_t off_border = layout.add(2 * std::size_t(n) * border_cell);
    cuda::device_buffer& b = bb.memory;
    b.reserve(layout.bytes());
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_query), q.data(), q.size(), cudaMemcpyHostToDevice, st));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_target), target.data(), std::size_t(n), cudaMemcpyHostToDevice, st));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(off_table), packed.table.data(), packed.table.size(),
                                    cudaMemcpyHostToDevice, st));
    SWAT_CUDA_CHECK(cudaMemsetAsync(b.as<void>(off_ready), 0, off_border - off_ready, st));
    fast_problem& pb = bb.pb;
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
    pb.d_error = b.as<std::int32_t>(off_error);
    pb.d_wait_cycles = b.as<unsigned long long>(off_error + 8);
    pb.watchdog_cycles = static_cast<long long>(options.watchdog_seconds * watchdog_clock_hz);
    pb.score_limit = 32767 - std::max(scheme.max_score(), 0);
    if (options.score16_limit > 0) pb.score_limit = std::min(pb.score_limit, options.score16_limit);
    pb.strip_first = std::int32_t(strips * g / g_count);
    pb.strip_last = std::int32_t(strips * (g + 1) / g_count);
  }

  // Hand-over g → g + 1 of the border row of strip s = the last of band g: into the next
  // band's own row and flag (same device or peer access), else through mapped host memory.
  fill_result res;
  std::vector<std::unique_ptr<host_handover>> staged;
  for (int g = 0; g + 1 < g_count; ++g) {
    fast_problem& pb = band[std::size_t(g)].pb;
    fast_problem& next = band[std::size_t(g) + 1].pb;
    const int s = pb.strip_last - 1;
    if (!where.through_host && enable_peer(band[std::size_t(g)].device, band[std::size_t(g) + 1].device)) {
      pb.band_out = next.border[s & 1];
      pb.band_ready = next.d_ready + s;
    } else {
      auto h = std::make_unique<host_handover>(256 + std::size_t(n) * border_cell);
      auto* base = static_cast<std::uint8_t*>(h->memory);
      pb.band_ready = reinterpret_cast<std::uint32_t*>(base);
      pb.band_out.h = reinterpret_cast<std::int32_t*>(base + 256);
      pb.band_out.f = packed16 ? nullptr : reinterpret_cast<std::int32_t*>(base + 256 + 4 * std::size_t(n));
      staged.push_back(std::move(h));
      ++res.handovers_through_host;
    }
    next.band_in = pb.band_out;
    next.band_in_ready = pb.band_ready;
    res.handover_bytes += n * std::int64_t(border_cell);
  }

  res.strips = int(strips);
  res.ran = variant;
  const auto t0 = std::chrono::steady_clock::now();
  for (const band_buffers& b : band) {
    cuda::device_context dev(b.device);
    cudaStream_t st = streams.on(b.device);
    res.blocks += packed16 ? launch_fill<score16_policy>(dev, b.pb, options.max_blocks, st)
                           : launch_fill<score_policy>(dev, b.pb, options.max_blocks, st);
  }
  streams.synchronize();
  res.kernel_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<strip_best> bests(static_cast<std::size_t>(strips));
  std::int32_t error = 0;
  for (const band_buffers& b : band) {  // each band's bests of its own strips; the first error in band order
    SWAT_CUDA_CHECK(cudaSetDevice(b.device));
    const std::size_t first = std::size_t(b.pb.strip_first), count = std::size_t(b.pb.strip_last) - first;
    SWAT_CUDA_CHECK(cudaMemcpy(bests.data() + first, b.pb.d_best + first, count * sizeof(strip_best),
                               cudaMemcpyDeviceToHost));
    std::int32_t e = 0;
    SWAT_CUDA_CHECK(cudaMemcpy(&e, b.pb.d_error, 4, cudaMemcpyDeviceToHost));
    if (error == 0) error = e;
  }
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

fill_result fill_bands(residue_span query, residue_span target, const scoring_scheme& scheme,
                       const fill_options& options, int bands, const band_layout& layout) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if (m < 1 || n < 1 || m > (1ll << 31) - 1024 || n > (1ll << 31) - 1024)
    throw std::invalid_argument("sw_fast: sequence lengths must be in [1, 2^31 - 1024)");
  if (bands < 1) throw std::invalid_argument("sw_fast: a banded fill needs at least one band");
  if (layout.devices.empty()) throw std::invalid_argument("sw_fast: a banded fill needs a device");
  if (!scheme_fits(scheme)) throw std::invalid_argument("sw_fast: scores must lie in [-127, 127] (int8 profile)");
  if (!within_score_range(std::uint64_t(m), std::uint64_t(n), scheme))
    throw std::invalid_argument("sw_fast: the best score could exceed 2^30");
  if (options.grid_barrier || options.variant == fill_variant::origins32)
    throw std::invalid_argument("sw_fast: banded fills run the score32 and score16 variants with ready flags");
  if (options.variant == fill_variant::score16 && scheme_fits16(scheme)) {
    fill_result first = run_bands(query, target, scheme, fill_variant::score16, options, bands, layout);
    if (!first.overflowed) return first;
    fill_result second = run_bands(query, target, scheme, fill_variant::score32, options, bands, layout);
    second.overflowed = true;
    second.overflow_seconds = first.kernel_seconds;
    second.kernel_seconds += first.kernel_seconds;
    return second;
  }
  return run_bands(query, target, scheme, fill_variant::score32, options, bands, layout);
}

}  // namespace swat::fast
