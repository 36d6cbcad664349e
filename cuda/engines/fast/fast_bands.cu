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
#include "cuda/engines/fast/fast_handover.cuh"
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

//! The streams of a fill: one per device (bands on one device run in launch order), or one per
//! band (band_layout::concurrent). Declared after every buffer the kernels touch, so that on an
//! exception the streams are drained before those buffers are freed.
struct band_streams {
  struct entry {
    int device;
    cudaStream_t stream;
  };
  std::map<int, entry> of;  //!< by key: the device, or the band
  cudaStream_t on(int key, int device) {
    auto it = of.find(key);
    if (it != of.end()) return it->second.stream;
    cuda::device_context(device).make_current();
    cudaStream_t st = nullptr;
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    of[key] = {device, st};
    return st;
  }
  void synchronize() {
    for (const auto& [key, e] : of) {
      SWAT_CUDA_CHECK(cudaSetDevice(e.device));
      SWAT_CUDA_CHECK(cudaStreamSynchronize(e.stream));
    }
  }
  ~band_streams() {
    for (const auto& [key, e] : of) {
      (void)cudaSetDevice(e.device);
      (void)cudaStreamSynchronize(e.stream);
      cudaStreamDestroy(e.stream);
    }
  }
};

fill_result run_bands(residue_span query, residue_span target, const scoring_scheme& scheme, fill_variant variant,
                      const fill_options& options, int bands, const band_layout& where) {
  const bool packed16 = variant == fill_variant::score16;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  const std::int64_t strips = (m + variant_strip_rows(variant) - 1) / variant_strip_rows(variant);
  if (bands == 0) {  // bands of at most one round each, as many on every device (fast_bands.hpp)
    const cuda::device_context first(where.devices.front());
    const int round = packed16 ? fill_round_warps<score16_policy>(first, scheme.size(), options.max_blocks)
                               : fill_round_warps<score_policy>(first, scheme.size(), options.max_blocks);
    const std::int64_t g = std::int64_t(where.devices.size()), rounds = (strips + round - 1) / round;
    bands = int((rounds + g - 1) / g * g);
  }
  const int g_count = int(std::min<std::int64_t>(bands, strips));
  const std::size_t border_cell = packed16 ? 4 : 8;

  // Everything the kernels touch is declared before the streams (destroyed after them).
  std::vector<band_buffers> band(static_cast<std::size_t>(g_count));
  std::vector<std::unique_ptr<host_handover>> staged;
  host_handover beat(64);  // fast_problem::band_beat, shared by every band
  band_streams streams;
  const auto key_of = [&](int g) { return where.concurrent ? g : band[std::size_t(g)].device; };

  // Special rows (fill_options::special) lie in the first device's memory: every band's strips
  // write theirs there (the others by peer access), band 0 zeroes the rows' maxima.
  const bool special = options.special.rows != nullptr;
  if (special && !bands_reach_first(where.devices))
    throw std::invalid_argument("sw_fast: special rows of a banded fill need peer access to the first GPU");
  for (int g = 0; g < g_count; ++g) {
    band_buffers& bb = band[std::size_t(g)];
    bb.device = where.devices[std::size_t(g) % where.devices.size()];
    cudaStream_t st = streams.on(key_of(g), bb.device);
    cuda::device_context(bb.device).make_current();
    fill_options own = options;
    if (g > 0) own.special = {};
    bb.pb = stage_fill(bb.memory, query, target, scheme, variant, own, st);
    if (special && g > 0) {
      bb.pb.d_special = band[0].pb.d_special;
      bb.pb.special_strips = band[0].pb.special_strips;
      bb.pb.d_special_max = band[0].pb.d_special_max;
    }
    bb.pb.strip_first = std::int32_t(strips * g / g_count);
    bb.pb.strip_last = std::int32_t(strips * (g + 1) / g_count);
    bb.pb.band_beat = g_count > 1 ? static_cast<std::uint32_t*>(beat.memory) : nullptr;
    bb.pb.band_index = g;
  }

  // Hand-over g → g + 1 of the border row of strip s = the last of band g: into the next
  // band's own row and flag (same device or peer access), else through mapped host memory.
  fill_result res;
  for (int g = 0; g + 1 < g_count; ++g) {
    fast_problem& pb = band[std::size_t(g)].pb;
    fast_problem& next = band[std::size_t(g) + 1].pb;
    const int s = pb.strip_last - 1;
    if (!where.through_host && enable_peer(band[std::size_t(g)].device, band[std::size_t(g) + 1].device)) {
      pb.band_out = next.border[s & 1];
      pb.band_ready = next.d_ready + s;
    } else {
      const std::size_t chunk_bases = packed16 ? std::size_t((n + 31) / 32) * 4 : 0;  // relative16
      auto h = std::make_unique<host_handover>(256 + std::size_t(n) * border_cell + chunk_bases);
      auto* base = static_cast<std::uint8_t*>(h->memory);
      pb.band_ready = reinterpret_cast<std::uint32_t*>(base);
      pb.band_out.h = reinterpret_cast<std::int32_t*>(base + 256);
      pb.band_out.f = packed16 ? nullptr : reinterpret_cast<std::int32_t*>(base + 256 + 4 * std::size_t(n));
      pb.band_out.base = packed16 ? reinterpret_cast<std::int32_t*>(base + 256 + std::size_t(n) * border_cell) : nullptr;
      staged.push_back(std::move(h));
      ++res.handovers_through_host;
    }
    next.band_in = pb.band_out;
    next.band_in_ready = pb.band_ready;
    res.handover_bytes += n * std::int64_t(border_cell);
  }
  // Every band's uploads and zeroed flags are done before any band starts: band g writes into
  // band g + 1's row and flag, which band g + 1's stream zeroes.
  streams.synchronize();

  res.strips = int(strips);
  res.ran = variant;
  std::vector<int> blocks(band.size(), 0);
  const auto t0 = std::chrono::steady_clock::now();
  for (const band_buffers& b : band) {
    cuda::device_context dev(b.device);
    cudaStream_t st = streams.on(key_of(int(&b - band.data())), b.device);
    int& launched = blocks[std::size_t(&b - band.data())];
    launched = packed16 ? launch_fill<score16_policy>(dev, b.pb, options.max_blocks, st)
                        : launch_fill<score_policy>(dev, b.pb, options.max_blocks, st);
    res.blocks += launched;
  }
  streams.synchronize();
  res.kernel_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t g = 0; g < band.size(); ++g) {  // each band's flag waits over its warps' time in the fill
    SWAT_CUDA_CHECK(cudaSetDevice(band[g].device));
    unsigned long long waited = 0;
    SWAT_CUDA_CHECK(cudaMemcpy(&waited, band[g].pb.d_wait_cycles, 8, cudaMemcpyDeviceToHost));
    const double warp_seconds = double(blocks[g]) * score_policy::warps_per_block * res.kernel_seconds;
    const double hz = double(cuda::device_context(band[g].device).clock_khz()) * 1e3;
    res.band_wait_shares.push_back(warp_seconds > 0 && hz > 0 ? double(waited) / hz / warp_seconds : 0);
  }
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
  const strip_best top = best_of_strips(bests, options.rows_first);
  res.best = {top.score, top.query_end, top.target_end};
  return res;
}

}  // namespace

bool bands_reach_first(const std::vector<int>& devices) {
  for (const int d : devices)
    if (!enable_peer(d, devices.front())) return false;
  return true;
}

fill_result fill_bands(residue_span query, residue_span target, const scoring_scheme& scheme,
                       const fill_options& options, int bands, const band_layout& layout) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if (m < 1 || n < 1 || m > (1ll << 31) - 1024 || n > (1ll << 31) - 1024)
    throw std::invalid_argument("sw_fast: sequence lengths must be in [1, 2^31 - 1024)");
  if (bands < 0) throw std::invalid_argument("sw_fast: a banded fill needs at least one band (0: one per round)");
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
