// GPU backend of the traceback (fast_trace.hpp): device buffers, launches of the crossing and
// codes fills (fast_trace_tile.cuh), progress polling, code and checkpoint read-back.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/launch.cuh"
#include "cuda/engines/fast/fast_bands.hpp"
#include "cuda/engines/fast/fast_dispatch.cuh"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_handover.cuh"
#include "cuda/engines/fast/fast_host_buffers.cuh"
#include "cuda/engines/fast/fast_trace.hpp"
#include "cuda/engines/fast/fast_trace_tile.cuh"

namespace swat::fast {

namespace {

constexpr double poll_seconds = 0.05;                //!< progress polling period (s)
constexpr double progress_after_seconds = 2.0;       //!< first progress call after (s)

template <bool codes_v>
int launch_trace(const cuda::device_context& dev, const trace_problem& tp, cudaStream_t stream) {
  const std::size_t smem = std::size_t(trace_policy::warps_per_block) * std::size_t(tp.base.ranks) * 32 *
                           sizeof(profile_entry<trace_policy::profile_words>);
  static_assert(std::size_t(trace_policy::warps_per_block) * fast_table_stride * 32 *
                        sizeof(profile_entry<trace_policy::profile_words>) <= 227 * 1024,
                "trace profile exceeds the shared memory of a Hopper SM");
  const int cap = cuda::max_coresident_blocks(dev, trace_fill_kernel<codes_v>, trace_policy::block_threads, smem);
  const int wanted = (tp.base.strips + trace_policy::warps_per_block - 1) / trace_policy::warps_per_block;
  const int blocks = std::max(1, std::min(cap, wanted));
  cuda::launch_cooperative(dev, trace_fill_kernel<codes_v>, dim3(unsigned(blocks)), dim3(trace_policy::block_threads),
                           smem, stream, tp);
  return blocks;
}

class gpu_trace_backend final : public trace_backend {
 public:
  gpu_trace_backend(const cuda::device_context& dev, const scoring_scheme& s, double watchdog,
                    trace_progress progress)
      : dev_(dev), scheme_(s), packed_(s), watchdog_(watchdog), progress_(progress) {
    if (!scheme_fits(s)) throw std::invalid_argument("sw_fast trace: scores must lie in [-127, 127]");
    dev_.make_current();
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaStream_t& bs : batch_streams_) SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&bs, cudaStreamNonBlocking));
    SWAT_CUDA_CHECK(cudaEventCreate(&launched_));
    // Waits on done_ sleep instead of spinning a core (the CPU engine may be aligning beside them:
    // db_engine's small boxes) and wake when the work ends.
    SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventBlockingSync));
    SWAT_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_progress_), sizeof(unsigned long long),
                                  cudaHostAllocMapped));
    SWAT_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_progress_), h_progress_, 0));
    sm_clock_hz_ = double(dev_.clock_khz()) * 1e3;
  }
  ~gpu_trace_backend() override {
    if (stream_) cudaStreamSynchronize(stream_);  // the copies still queued into pinned memory
    for (cudaStream_t bs : batch_streams_)
      if (bs) cudaStreamSynchronize(bs);
    slots_.clear();
    for (void* p : retired_pinned_) cudaFreeHost(p);
    if (h_errors_) cudaFreeHost(h_errors_);
    if (h_progress_) cudaFreeHost(h_progress_);
    if (done_) cudaEventDestroy(done_);
    if (launched_) cudaEventDestroy(launched_);
    for (cudaStream_t bs : batch_streams_)
      if (bs) cudaStreamDestroy(bs);
    if (stream_) cudaStreamDestroy(stream_);
  }

  crossing_result crossing_fill(const trace_sub& sub, std::int64_t band_rows, std::int64_t end_col) override {
    trace_problem tp = stage_crossing(sub, band_rows, end_col, false);
    const int blocks = launch_crossing(tp);
    return collect_crossing(tp, blocks);
  }

  //! The three steps of a crossing fill, for the banded backend: uploads and zeroed flags on
  //! this backend's stream (extra_ck: keep the last row as one more checkpoint row), ...
  trace_problem stage_crossing(const trace_sub& sub, std::int64_t band_rows, std::int64_t end_col, bool extra_ck) {
    dev_.make_current();
    trace_problem tp = setup(sub, band_rows, false, extra_ck);
    tp.end_col = std::int32_t(end_col);
    return tp;
  }
  //! ... the launch (returns the blocks) ...
  int launch_crossing(const trace_problem& tp) {
    dev_.make_current();
    *static_cast<volatile unsigned long long*>(h_progress_) = 0;
    SWAT_CUDA_CHECK(cudaEventRecord(launched_, stream_));
    const int blocks = launch_trace<false>(dev_, tp, stream_);
    SWAT_CUDA_CHECK(cudaEventRecord(done_, stream_));
    return blocks;
  }
  //! ... and the wait and read-back (best cell in the fill's own rows; throws on an error).
  crossing_result collect_crossing(const trace_problem& tp, int blocks) {
    dev_.make_current();
    const std::int64_t strips = tp.base.strips;
    wait_with_progress(strips, tp.base.n);
    float kernel_ms = 0;
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, launched_, done_));
    const double kernel_s = double(kernel_ms) / 1e3;
    std::vector<strip_best> bests(static_cast<std::size_t>(strips));
    std::uint32_t end[2] = {0, 0};
    std::int32_t error = 0;
    unsigned long long wait_cycles = 0;
    SWAT_CUDA_CHECK(cudaMemcpyAsync(&wait_cycles, tp.base.d_wait_cycles, 8, cudaMemcpyDeviceToHost, stream_));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(bests.data(), tp.base.d_best, bests.size() * sizeof(strip_best),
                                    cudaMemcpyDeviceToHost, stream_));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(end, tp.d_end, sizeof end, cudaMemcpyDeviceToHost, stream_));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(&error, tp.base.d_error, 4, cudaMemcpyDeviceToHost, stream_));
    SWAT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    check_error(error);
    crossing_result res;
    const strip_best top = best_of_strips(bests);
    res.best = {top.score, top.query_end, top.target_end};
    res.best_ptr = std::uint32_t(top.origin);
    res.end_ph = end[0];
    res.end_pf = end[1];
    if (sm_clock_hz_ > 0 && kernel_s > 0)
      res.flag_wait_share = double(wait_cycles) / sm_clock_hz_ / (double(blocks) * trace_policy::warps_per_block * kernel_s);
    ck_ = tp.d_ck;
    n_ = tp.base.n;
    return res;
  }
  //! Waits for this backend's stream (uploads, or a fill) without reading anything back.
  void synchronize() {
    dev_.make_current();
    SWAT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  int device_id() const { return dev_.id(); }

  checkpoint_entry checkpoint(std::int64_t b, std::int64_t c) override {
    dev_.make_current();
    checkpoint_entry e{};
    SWAT_CUDA_CHECK(cudaMemcpyAsync(&e, ck_ + std::size_t(b - 1) * std::size_t(n_) + std::size_t(c - 1), sizeof e,
                                    cudaMemcpyDeviceToHost, stream_));
    SWAT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return e;
  }

  void codes_fill(const trace_sub& sub) override {
    codes_fill_start(0, sub);
    codes_fill_wait(0);
  }

  std::uint8_t code_at(std::int64_t i, std::int64_t j) const override { return slot_code_at(0, i, j); }

  std::size_t codes_slots() const override { return max_codes_slots; }

  //! Slot 0's fill runs at once on the backend's stream. The other slots' fills are staged (their
  //! uploads queued on one of two batch streams) and go out together in one launch of the batch
  //! kernel at codes_fill_launch (several launches beyond trace_batch_max bands or the grid's
  //! cap), each slot's copy back queued behind it: one stream, so no fill waits behind another
  //! stream's work that the hardware queued on the same connection.
  void codes_fill_start(std::size_t k, const trace_sub& sub) override {
    if (k >= max_codes_slots) throw std::logic_error("sw_fast trace: codes slots");
    dev_.make_current();
    while (slots_.size() <= k) slots_.push_back(std::make_unique<codes_slot>());
    if (!h_errors_) SWAT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&h_errors_), max_codes_slots * sizeof(std::int32_t)));
    if (k == 0) {
      const trace_problem tp = prepare_slot(0, sub, stream_);
      codes_slot& sl = *slots_[0];
      SWAT_CUDA_CHECK(cudaEventRecord(sl.launched, stream_));
      launch_trace<true>(dev_, tp, stream_);
      SWAT_CUDA_CHECK(cudaEventRecord(sl.done, stream_));
      sl.times_kernel = sl.times_copies = true;
      queue_copies(0, tp, stream_);
      return;
    }
    if (staged_.empty()) batch_stream_ = batch_streams_[batches_++ % 2];
    // A slot staged twice before a launch keeps its last fill only.
    staged_.erase(std::remove_if(staged_.begin(), staged_.end(), [&](const auto& e) { return e.first == k; }),
                  staged_.end());
    staged_.push_back({k, prepare_slot(k, sub, batch_stream_)});
  }

  std::int64_t codes_slot_bytes(std::size_t k, std::int64_t fill_bytes) const override {
    const std::int64_t held = k < slots_.size() ? std::int64_t(slots_[k]->buffer.bytes()) : 0;
    return fill_bytes > held ? fill_bytes + fill_bytes / codes_slot_headroom : held;
  }

  void codes_slots_release() override {
    dev_.make_current();
    staged_.clear();
    sync_batches();
    for (std::size_t k = 1; k < slots_.size(); ++k) {
      slots_[k]->pending = false;
      slots_[k]->buffer.release();
    }
  }

  void codes_fill_launch() override {
    if (staged_.empty()) return;
    dev_.make_current();
    const cudaStream_t st = batch_stream_;
    const std::size_t smem = std::size_t(trace_policy::warps_per_block) * std::size_t(packed_.ranks) * 32 *
                             sizeof(profile_entry<trace_policy::profile_words>);
    const int cap = cuda::max_coresident_blocks(dev_, trace_codes_batch_kernel, trace_policy::block_threads, smem);
    int per_band = 1;
    for (const auto& [k, tp] : staged_)
      per_band = std::max(per_band, (tp.base.strips + trace_policy::warps_per_block - 1) / trace_policy::warps_per_block);
    per_band = std::max(1, std::min(per_band, cap));  // cap 0: launch_cooperative refuses the grid
    const std::size_t per_launch = std::min<std::size_t>(trace_batch_max, std::size_t(std::max(1, cap / per_band)));
    for (std::size_t first = 0; first < staged_.size(); first += per_launch) {
      const std::size_t count = std::min(per_launch, staged_.size() - first);
      trace_batch batch{};
      batch.count = int(count);
      batch.blocks_per_band = per_band;
      for (std::size_t b = 0; b < count; ++b) {
        batch.p[b] = staged_[first + b].second;
        codes_slot& sl = *slots_[staged_[first + b].first];
        SWAT_CUDA_CHECK(cudaEventRecord(sl.launched, st));
        sl.times_kernel = b == 0;  // a launch's time counted once
        sl.times_copies = false;
      }
      cuda::launch_cooperative(dev_, trace_codes_batch_kernel, dim3(unsigned(per_band * int(count))),
                               dim3(trace_policy::block_threads), smem, st, batch);
      for (std::size_t b = 0; b < count; ++b) SWAT_CUDA_CHECK(cudaEventRecord(slots_[staged_[first + b].first]->done, st));
    }
    for (const auto& [k, tp] : staged_) queue_copies(k, tp, st);
    // The copies, queued after the last launch, timed once: from its end to the last copy.
    slots_[staged_.back().first]->times_copies = true;
    staged_.clear();
  }

  const special_cell* slot_top_cells(std::size_t k) override {
    codes_slot& sl = *slots_.at(k);
    if (sl.top_count <= 0) return nullptr;
    dev_.make_current();
    SWAT_CUDA_CHECK(cudaEventSynchronize(sl.read));
    return sl.h_top;
  }

  void codes_fill_wait(std::size_t k) override {
    codes_slot& sl = *slots_.at(k);
    if (std::any_of(staged_.begin(), staged_.end(), [&](const auto& e) { return e.first == k; }))
      codes_fill_launch();  // staged, not yet sent out
    if (!sl.pending) return;
    dev_.make_current();
    SWAT_CUDA_CHECK(cudaEventSynchronize(sl.copied));
    sl.pending = false;
    check_error(h_errors_[k]);
    float ms = 0;
    if (sl.times_kernel) {
      SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, sl.launched, sl.done));
      codes_kernel_s_ += double(ms) / 1e3;
    }
    if (sl.times_copies) {
      SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, sl.done, sl.copied));
      codes_copy_s_ += double(ms) / 1e3;
    }
    if (k == 0) n_ = sl.n;
  }

  std::uint8_t slot_code_at(std::size_t slot, std::int64_t i, std::int64_t j) const override {
    codes_slot& sl = *slots_[slot];
    const std::int64_t w = i - 1, s = w / trace_strip_rows, lane = (w % trace_strip_rows) / 8, r = w % 8;
    const std::int64_t t = (j - 1) + lane;
    std::size_t at = (std::size_t(s) * std::size_t(sl.n + 31) + std::size_t(t)) * 32 + std::size_t(lane);
    if (sl.lined) {
      const std::int64_t from = sl.from[std::size_t(s)];
      if (t < from || t >= from + sl.width[std::size_t(s)])
        fetch_whole(sl);  // the walk left the copied line: every code of the fill, then as usual
      else
        at = std::size_t(sl.at[std::size_t(s)] + t - from) * 32 + std::size_t(lane);
    }
    const std::uint32_t word = sl.h_codes[at];
    return std::uint8_t((word >> (4 * r)) & 15u);
  }

  double codes_refetch_seconds() const override { return codes_refetch_s_; }

  double codes_kernel_seconds() const override { return codes_kernel_s_; }
  double codes_copy_seconds() const override { return codes_copy_s_; }

  std::int64_t held_bytes() const override {
    std::int64_t slots = 0;
    for (const auto& sl : slots_) slots += std::int64_t(sl->buffer.bytes());
    return std::int64_t(buffer_.bytes() + special_.bytes()) + slots + (fill_ ? fill_->held_bytes() : 0);
  }
  const scoring_scheme& scheme() const override { return scheme_; }

  best_cell special_fill(residue_span query, residue_span target, std::int64_t k, bool try16) override {
    dev_.make_current();
    kept_ = {};
    maxima_.clear();
    const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
    const std::int64_t kept = (m - 1) / k;
    special_kept_rows_ = kept;
    const std::size_t rows_bytes = std::size_t(kept) * std::size_t(n) * sizeof(special_cell);
    const std::size_t max_at = (rows_bytes + 255) / 256 * 256, bytes = max_at + std::size_t(kept) * 4;
    fill_options fo;
    // the packed fill's strips are 1024 rows: its special rows need K a multiple of that
    fo.variant = try16 && k % 1024 == 0 ? fill_variant::score16 : fill_variant::score32;
    fo.watchdog_seconds = watchdog_;
    sync_batches();  // fills given up may still read the old rows
    if (kept > 0) {
      if (special_.bytes() < bytes) special_.release();  // never the old rows and the new at once
      special_.reserve(bytes);
      fo.special.rows = special_.as<special_cell>(0);
      fo.special.row_max = special_.as<std::int32_t>(max_at);
      fo.special.every_rows = k;
    }
    // Every variant writes the rows (a 16-bit fill that overflowed is rerun at 32 bits, which
    // writes them again), exact whenever its result is; in bands over several GPUs, each band's
    // rows go straight into this device's memory.
    fill_result r;
    if (spread_.size() >= 2 && kept > 0) {
      band_layout layout;
      layout.devices = spread_;
      r = fill_bands(query, target, scheme_, fo, 0, layout);
      dev_.make_current();
    } else {
      if (!fill_) fill_ = std::make_unique<fill_context>(dev_);
      r = fill_->fill(query, target, scheme_, fo);
    }
    special_n_ = n;
    special_max_at_ = max_at;
    kept_.query.assign(query.begin(), query.end());
    kept_.target.assign(target.begin(), target.end());
    kept_.band_rows = k;
    kept_.best = r.best;
    kept_.fill_bands = int(r.band_wait_shares.size());
    return r.best;
  }

  void spread_special_fills(const std::vector<int>& devices) override {
    spread_.clear();
    if (devices.size() >= 2 && devices.front() == dev_.id() && bands_reach_first(devices)) spread_ = devices;
    dev_.make_current();
  }

  void special_cells(std::int64_t b, std::int64_t c0, std::int64_t count, special_cell* out) override {
    dev_.make_current();
    SWAT_CUDA_CHECK(cudaMemcpyAsync(out, special_row(b) + (c0 - 1), std::size_t(count) * sizeof(special_cell),
                                    cudaMemcpyDeviceToHost, stream_));
    SWAT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  //! Read back once for every kept row (a band walk asks for each).
  std::int32_t special_max(std::int64_t b) override {
    if (maxima_.empty() && special_kept_rows_ > 0) {
      dev_.make_current();
      maxima_.resize(std::size_t(special_kept_rows_));
      SWAT_CUDA_CHECK(cudaMemcpyAsync(maxima_.data(), special_.as<std::int32_t>(special_max_at_), maxima_.size() * 4,
                                      cudaMemcpyDeviceToHost, stream_));
      SWAT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    if (b < 0 || b >= std::int64_t(maxima_.size())) throw std::logic_error("sw_fast trace: no such special row");
    return maxima_[std::size_t(b)];
  }

  void drop_special() override {
    dev_.make_current();
    sync_batches();  // fills given up may still read the rows
    kept_ = {};
    maxima_.clear();
    special_kept_rows_ = 0;
    special_.release();
  }

 private:
  //! Kept special row b (special_n_ cells).
  special_cell* special_row(std::int64_t b) const {
    if (kept_.band_rows <= 0) throw std::logic_error("sw_fast trace: no special rows kept");
    return special_.as<special_cell>(0) + std::size_t(b) * std::size_t(special_n_);
  }

  void check_error(std::int32_t error) const {
    if (error != 0)
      throw cuda_error("sw_fast trace: a ready flag did not rise within " + std::to_string(watchdog_) + " s (watchdog)");
  }

  void wait_with_progress(std::int64_t strips, std::int64_t n) {
    if (!progress_.fn) {  // nothing to show: the event's own (blocking) wait ends with the fill
      SWAT_CUDA_CHECK(cudaEventSynchronize(done_));
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    unsigned long long shown = 0;
    for (double el = 0;;) {
      const cudaError_t q = cudaEventQuery(done_);
      if (q == cudaSuccess) break;
      if (q != cudaErrorNotReady) SWAT_CUDA_CHECK(q);
      // Naps of 1/20 of the time waited so far (0.1 ms to poll_seconds): a fill is seen done at
      // most ~5 % after it ended (doubling naps could nearly double a 10–100 ms fill's wait).
      std::this_thread::sleep_for(std::chrono::duration<double>(std::clamp(el / 20, 1e-4, poll_seconds)));
      el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (el >= progress_after_seconds) {
        // The largest total seen: two warps' stores of their totals may land out of order.
        const unsigned long long now = *static_cast<volatile unsigned long long*>(h_progress_);
        shown = std::max(shown, now);
        const unsigned long long done = shown;
        progress_.fn(progress_.user, double(done) / (double(strips) * double(n)), el);
      }
    }
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (el >= progress_after_seconds) progress_.fn(progress_.user, 1.0, el);
  }

  //! Lays out the buffer for one fill and uploads the sub-problem.
  trace_problem setup(const trace_sub& sub, std::int64_t band_rows, bool codes, bool extra_ck) {
    return setup(sub, band_rows, codes, extra_ck, buffer_, stream_);
  }
  //! The same in buffer buf, on stream st (a codes slot's).
  //! roomy: a buffer that must grow takes half as much again (codes_slot_headroom), so that the windows
  //! of the bands ahead, a little wider from batch to batch, do not free and allocate it each time
  //! (a cudaFree waits for the whole device).
  //! stage: pinned host bytes that take the uploads first (one copy that does not wait for the
  //! stream; codes_slot::stage), grown to stage_bytes as needed.
  trace_problem setup(const trace_sub& sub, std::int64_t band_rows, bool codes, bool extra_ck, cuda::device_buffer& buf,
                      cudaStream_t st, bool roomy = false, std::uint8_t** stage = nullptr, std::size_t* stage_bytes = nullptr) {
    const std::int64_t m = std::int64_t(sub.query.size()), n = std::int64_t(sub.target.size());
    if (m < 1 || n < 1 || n > trace_max_columns || m > (1ll << 31) - 1024)
      throw std::invalid_argument("sw_fast trace: sub-problem size out of range");
    const std::int64_t strips = (m + trace_strip_rows - 1) / trace_strip_rows;
    const std::int64_t padded = strips * trace_strip_rows;
    const std::int64_t bands = (m + band_rows - 1) / band_rows;
    const std::size_t un = std::size_t(n);
    cuda::buffer_layout layout;
    const std::size_t o_query = layout.add(std::size_t(padded));
    const std::size_t o_target = layout.add(un);
    const std::size_t o_table = layout.add(packed_.table.size());
    const std::size_t o_ready = layout.add(std::size_t(strips) * 4);
    const std::size_t o_best = layout.add(std::size_t(strips) * sizeof(strip_best));
    // error word; +4: a banded fill's beat count; +8: end pointers (2 × 4 B); +16: flag-wait
    // cycles; +24: progress count; +32: the flag of the row a band above hands over
    const std::size_t o_error = layout.add(48);
    // One border row, which every strip reads and writes in place: strip s reads a chunk of 32
    // columns before its last lane writes any of them, and strip s + 1 reads a column only after
    // strip s has written it (its ready flag), the order two alternating rows relied on too. (One
    // row of 16 B a column is what lets a megabase pair's traceback fit 64 MiB.)
    const std::size_t o_border = layout.add(un * (codes ? 8 : 16));
    const std::size_t o_extra = layout.add(codes ? std::size_t(strips) * (un + 31) * 128
                                                 : std::size_t(bands - 1 + (extra_ck ? 1 : 0)) * un * sizeof(checkpoint_entry));
    if (roomy && layout.bytes() > buf.bytes()) buf.reserve(layout.bytes() + layout.bytes() / codes_slot_headroom);
    else buf.reserve(layout.bytes());
    if (stage) {  // query, target and table laid out as on the device, one copy
      const std::size_t up = o_table + packed_.table.size();
      grow_pinned(*stage, *stage_bytes, up, std::size_t(64) << 10);
      std::uint8_t* h = *stage;
      std::fill(std::copy(sub.query.begin(), sub.query.end(), h + o_query), h + o_query + padded,
                static_cast<std::uint8_t>(pad_rank));
      std::copy(sub.target.begin(), sub.target.end(), h + o_target);
      std::copy(packed_.table.begin(), packed_.table.end(), h + o_table);
      SWAT_CUDA_CHECK(cudaMemcpyAsync(buf.as<void>(0), h, up, cudaMemcpyHostToDevice, st));
    } else {
      std::vector<std::uint8_t> q(static_cast<std::size_t>(padded), static_cast<std::uint8_t>(pad_rank));
      std::copy(sub.query.begin(), sub.query.end(), q.begin());
      SWAT_CUDA_CHECK(cudaMemcpyAsync(buf.as<void>(o_query), q.data(), q.size(), cudaMemcpyHostToDevice, st));
      SWAT_CUDA_CHECK(cudaMemcpyAsync(buf.as<void>(o_target), sub.target.data(), un, cudaMemcpyHostToDevice, st));
      SWAT_CUDA_CHECK(cudaMemcpyAsync(buf.as<void>(o_table), packed_.table.data(), packed_.table.size(),
                                      cudaMemcpyHostToDevice, st));
    }
    SWAT_CUDA_CHECK(cudaMemsetAsync(buf.as<void>(o_ready), 0, o_border - o_ready, st));
    trace_problem tp{};
    fast_problem& pb = tp.base;
    pb.d_query = buf.as<std::uint8_t>(o_query);
    pb.d_target = buf.as<std::uint8_t>(o_target);
    pb.d_table = buf.as<std::int8_t>(o_table);
    pb.m = std::int32_t(m);
    pb.n = std::int32_t(n);
    pb.strips = std::int32_t(strips);
    packed_.apply(pb);
    for (int k = 0; k < 2; ++k) {  // border[0] and border[1]: the same row
      const std::size_t row = o_border;
      pb.border[k].h = buf.as<std::int32_t>(row);
      pb.border[k].f = buf.as<std::int32_t>(row + 4 * un);
      pb.border[k].oh = nullptr;
      pb.border[k].of = nullptr;
      tp.ph[k] = codes ? nullptr : buf.as<std::uint32_t>(row + 8 * un);
      tp.pf[k] = codes ? nullptr : buf.as<std::uint32_t>(row + 12 * un);
    }
    pb.d_ready = buf.as<std::uint32_t>(o_ready);
    pb.d_best = buf.as<strip_best>(o_best);
    pb.d_error = buf.as<std::int32_t>(o_error);
    pb.d_wait_cycles = buf.as<unsigned long long>(o_error + 16);
    pb.watchdog_cycles = static_cast<long long>(watchdog_ * watchdog_clock_hz);
    tp.start_col = sub.start_col;
    tp.start_h = sub.start_h;
    tp.start_f = sub.start_f;
    tp.d_top = sub.top_row >= 0 ? special_row(sub.top_row) + sub.top_col : nullptr;
    tp.band_strips = std::int32_t(band_rows / trace_strip_rows);
    tp.d_ck = codes ? nullptr : buf.as<checkpoint_entry>(o_extra);
    tp.end_col = 0;
    tp.d_end = buf.as<std::uint32_t>(o_error + 8);
    tp.d_codes = codes ? buf.as<std::uint32_t>(o_extra) : nullptr;
    tp.d_progress = codes ? nullptr : d_progress_;
    tp.d_progress_count = buf.as<unsigned long long>(o_error + 24);
    return tp;
  }

  cuda::device_context dev_;
  scoring_scheme scheme_;
  packed_scheme packed_;
  double watchdog_;
  double sm_clock_hz_ = 0;  // nominal SM clock (clock64 cycles per second)
  trace_progress progress_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t launched_ = nullptr;  // recorded before a crossing fill's kernel
  cudaEvent_t done_ = nullptr;      // after it (waited on or polled, and timed against launched_)
  unsigned long long* h_progress_ = nullptr;
  unsigned long long* d_progress_ = nullptr;
  //! Codes slots: slot 0 and a ring of 16 for the bands a walk over special rows fills ahead (two
  //! batches of trace_options::bands_at_once ≤ 8).
  static constexpr std::size_t max_codes_slots = 17;
  std::vector<std::pair<std::size_t, trace_problem>> staged_;  //!< slots staged for the next launch
  mutable std::vector<void*> retired_pinned_;                   //!< outgrown pinned buffers (grow_pinned)
  cudaStream_t batch_streams_[2] = {nullptr, nullptr};          //!< the batches' streams, in turn
  cudaStream_t batch_stream_ = nullptr;                         //!< the staged batch's
  std::size_t batches_ = 0;                                      //!< batches so far
  //! What one codes fill needs of its own (slot 0 uses the backend's buffer; the backend's streams
  //! run the fills).
  struct codes_slot {
    cuda::device_buffer buffer;
    cudaEvent_t launched = nullptr, done = nullptr, copied = nullptr;
    std::uint32_t* h_codes = nullptr;  //!< pinned copy of the codes
    std::size_t h_bytes = 0;
    bool pending = false;  //!< a fill started and not waited for
    bool times_kernel = false;  //!< its wait adds the launch's kernel time (one slot a launch)
    bool times_copies = false;  //!< its wait adds the copies' time (the last slot of a batch)
    std::uint8_t* stage = nullptr;  //!< pinned uploads of a fill (setup), slots 1 …
    std::size_t stage_bytes = 0;
    special_cell* h_top = nullptr;  //!< pinned cells of the special row read before the fill
    std::size_t h_top_bytes = 0;
    std::int64_t top_count = 0;     //!< cells read for the last fill (0: none)
    cudaEvent_t read = nullptr;     //!< recorded after that read
    std::int64_t n = 0;  //!< columns of the fill
    //! The codes copied back: every strip's whole (lined false), or of strip s only the words of
    //! skewed columns [from[s], from[s] + width[s]), at word at[s] · 32 of h_codes (copy_window).
    bool lined = false;
    std::vector<std::int64_t> from, width, at;
    std::int64_t step = -1;  //!< lined with windows of one width step words apart (one 2D copy), else −1
    std::int64_t strips = 0;
    //! The fill's codes on the device, read again by fetch_whole: valid until the slot's next
    //! fill (slot 0's buffer is also the crossing fills', which the tracer runs only after it
    //! has walked slot 0's band).
    const std::uint32_t* d_codes = nullptr;
    cudaStream_t copy_stream = nullptr;
    codes_slot() {
      SWAT_CUDA_CHECK(cudaEventCreate(&launched));
      SWAT_CUDA_CHECK(cudaEventCreate(&done));
      // The wait sleeps instead of spinning a core (the CPU engine may be aligning beside it).
      SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventBlockingSync));  // timed: --timing's band copies
      SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&read, cudaEventDisableTiming));
    }
    codes_slot(const codes_slot&) = delete;
    codes_slot& operator=(const codes_slot&) = delete;
    ~codes_slot() {
      if (h_codes) cudaFreeHost(h_codes);
      if (stage) cudaFreeHost(stage);
      if (h_top) cudaFreeHost(h_top);
      if (read) cudaEventDestroy(read);
      if (copied) cudaEventDestroy(copied);
      if (done) cudaEventDestroy(done);
      if (launched) cudaEventDestroy(launched);
    }
  };
  //! Waits for the batch streams (their fills read the special rows and write the slots).
  void sync_batches() {
    for (cudaStream_t bs : batch_streams_)
      if (bs) SWAT_CUDA_CHECK(cudaStreamSynchronize(bs));
  }

  //! Slot k's fill up to its launch on stream st: the special row's cells it was asked to read
  //! first, its uploads (from the slot's pinned stage, slots 1 …), the copy-back plan.
  trace_problem prepare_slot(std::size_t k, const trace_sub& sub, cudaStream_t st) {
    codes_slot& sl = *slots_[k];
    // A fill given up unread may still run: its pinned buffers are written again only after it.
    if (sl.pending) SWAT_CUDA_CHECK(cudaEventSynchronize(sl.copied));
    sl.pending = false;
    // The special row's cells first, so that they come back before the fill ends.
    sl.top_count = sub.top_row >= 0 ? sub.top_read_count : 0;
    if (sl.top_count > 0) {
      if (sub.top_read_c0 < 1 || sub.top_read_c0 + sl.top_count - 1 > special_n_)
        throw std::logic_error("sw_fast trace: special row read out of range");
      grow_pinned(sl.h_top, sl.h_top_bytes, std::size_t(sl.top_count) * sizeof(special_cell), std::size_t(64) << 10);
      SWAT_CUDA_CHECK(cudaMemcpyAsync(sl.h_top, special_row(sub.top_row) + (sub.top_read_c0 - 1),
                                      std::size_t(sl.top_count) * sizeof(special_cell), cudaMemcpyDeviceToHost, st));
      SWAT_CUDA_CHECK(cudaEventRecord(sl.read, st));
    }
    const trace_problem tp = setup(sub, trace_strip_rows, true, false, k == 0 ? buffer_ : sl.buffer, st, k > 0,
                                   k > 0 ? &sl.stage : nullptr, &sl.stage_bytes);
    sl.n = tp.base.n;
    sl.strips = tp.base.strips;
    sl.d_codes = tp.d_codes;
    sl.copy_stream = st;
    copy_window(sl, sub);
    const std::size_t words = std::size_t(tp.base.strips) * std::size_t(tp.base.n + 31) * 32;
    // The pinned copy holds what comes back now (the line's words, or all); fetch_whole grows it.
    grow_pinned(sl.h_codes, sl.h_bytes, sl.lined ? std::size_t(sl.at.back() + sl.width.back()) * 128 : words * 4);
    return tp;
  }

  //! Slot k's copy back (and error word) queued on st behind its fill; the slot is then pending.
  void queue_copies(std::size_t k, const trace_problem& tp, cudaStream_t st) {
    codes_slot& sl = *slots_[k];
    const std::size_t words = std::size_t(tp.base.strips) * std::size_t(tp.base.n + 31) * 32;
    if (!sl.lined) {
      SWAT_CUDA_CHECK(cudaMemcpyAsync(sl.h_codes, tp.d_codes, words * 4, cudaMemcpyDeviceToHost, st));
    } else if (sl.step >= 0) {  // every strip's window as wide, a fixed step apart: one copy
      const std::size_t width = std::size_t(sl.width[0]) * 128;
      SWAT_CUDA_CHECK(cudaMemcpy2DAsync(sl.h_codes, width, tp.d_codes + sl.from[0] * 32,
                                        std::size_t(sl.n + 31 + sl.step) * 128, width, std::size_t(sl.strips),
                                        cudaMemcpyDeviceToHost, st));
    } else {  // one copy a strip
      for (std::int64_t q = 0; q < sl.strips; ++q)
        SWAT_CUDA_CHECK(cudaMemcpyAsync(sl.h_codes + sl.at[std::size_t(q)] * 32,
                                        tp.d_codes + (q * (sl.n + 31) + sl.from[std::size_t(q)]) * 32,
                                        std::size_t(sl.width[std::size_t(q)]) * 128, cudaMemcpyDeviceToHost, st));
    }
    SWAT_CUDA_CHECK(cudaMemcpyAsync(h_errors_ + k, tp.base.d_error, 4, cudaMemcpyDeviceToHost, st));
    SWAT_CUDA_CHECK(cudaEventRecord(sl.copied, st));
    sl.pending = true;
  }

  //! The part of slot sl's codes that is copied back for sub: with a path guess (trace_sub), of
  //! each strip the skewed columns (a lane's word of column j is at j − 1 + lane) along the line
  //! through the guessed end with the guessed slope, the margin on either side; else, or where
  //! those hold half the codes or more, every code (lined false). The strips' windows are made one
  //! width, a whole step of words apart, where that stays inside every strip (one 2D copy; the
  //! step's rounding widens them by a few words), else each strip has its own (one copy a strip).
  static void copy_window(codes_slot& sl, const trace_sub& sub) {
    sl.lined = false;
    sl.step = -1;
    if (sub.path_end_col <= 0 || sl.strips < 1) return;
    const std::int64_t rows = std::int64_t(sub.query.size()), words_per_strip = sl.n + 31;
    sl.from.assign(std::size_t(sl.strips), 0);
    sl.width.assign(std::size_t(sl.strips), 0);
    sl.at.assign(std::size_t(sl.strips), 0);
    const std::int64_t step = std::max<std::int64_t>(0, std::llround(sub.path_slope * double(trace_strip_rows)));
    std::int64_t kept = 0, from0 = words_per_strip, to0 = 0;
    for (std::int64_t q = 0; q < sl.strips; ++q) {
      // The line's columns on the strip's first and last rows (1-based rows of the fill).
      const std::int64_t r0 = q * trace_strip_rows + 1, r1 = std::min(rows, (q + 1) * trace_strip_rows);
      const double c0 = double(sub.path_end_col) - sub.path_slope * double(rows - r0);
      const double c1 = double(sub.path_end_col) - sub.path_slope * double(rows - r1);
      const std::int64_t lo =
          std::clamp<std::int64_t>(std::int64_t(std::floor(c0)) - sub.path_margin - 1, 0, words_per_strip);
      const std::int64_t hi =
          std::clamp<std::int64_t>(std::int64_t(std::ceil(c1)) + sub.path_margin + 32, lo, words_per_strip);
      sl.from[std::size_t(q)] = lo;
      sl.width[std::size_t(q)] = hi - lo;
      sl.at[std::size_t(q)] = kept;
      kept += hi - lo;
      from0 = std::min(from0, lo - q * step);
      to0 = std::max(to0, hi - q * step);
    }
    const std::int64_t width = to0 - from0;
    constexpr std::int64_t max_pitch_words = (std::int64_t(1) << 31) / 128;  // cudaMemcpy2D's pitch < 2 GiB
    if (from0 >= 0 && width > 0 && from0 + (sl.strips - 1) * step + width <= words_per_strip &&
        words_per_strip + step < max_pitch_words &&
        2 * width * sl.strips < sl.strips * words_per_strip) {
      for (std::int64_t q = 0; q < sl.strips; ++q) {
        sl.from[std::size_t(q)] = from0 + q * step;
        sl.width[std::size_t(q)] = width;
        sl.at[std::size_t(q)] = q * width;
      }
      sl.step = step;
      sl.lined = true;
      return;
    }
    sl.lined = 2 * kept < sl.strips * words_per_strip;
  }

  //! A slot's pinned buffer p (of have bytes) made to hold bytes: half as much again when it grows
  //! (the windows ahead widen with their distance), at least min_bytes. The old one is kept until
  //! the backend goes (a copy may still be queued into it, and a cudaFreeHost would wait for the
  //! whole device).
  template <typename T>
  void grow_pinned(T*& p, std::size_t& have, std::size_t bytes, std::size_t min_bytes = 0) const {
    if (bytes <= have) return;
    if (p) retired_pinned_.push_back(p);
    p = nullptr;
    have = 0;
    const std::size_t roomy = std::max(bytes + bytes / 2, min_bytes);
    SWAT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p), roomy));
    have = roomy;
  }

  //! Every code of slot sl's fill, copied back now (a walk left its copied line).
  void fetch_whole(codes_slot& sl) const {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t words = std::size_t(sl.strips) * std::size_t(sl.n + 31) * 32;
    dev_.make_current();
    grow_pinned(sl.h_codes, sl.h_bytes, words * 4);
    SWAT_CUDA_CHECK(cudaMemcpyAsync(sl.h_codes, sl.d_codes, words * 4, cudaMemcpyDeviceToHost, sl.copy_stream));
    SWAT_CUDA_CHECK(cudaStreamSynchronize(sl.copy_stream));
    sl.lined = false;
    codes_refetch_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  cuda::device_buffer buffer_;
  std::vector<std::unique_ptr<codes_slot>> slots_;
  std::int32_t* h_errors_ = nullptr;  //!< pinned error words of the codes slots
  checkpoint_entry* ck_ = nullptr;
  std::int64_t n_ = 0;
  std::unique_ptr<fill_context> fill_;  //!< the special fill's own buffers
  cuda::device_buffer special_;         //!< kept special rows, then their maxima at special_max_at_
  std::int64_t special_n_ = 0;
  std::size_t special_max_at_ = 0;
  std::int64_t special_kept_rows_ = 0;  //!< rows kept by the last special fill
  std::vector<int> spread_;             //!< devices of the special fills' bands (empty: this one alone)
  std::vector<std::int32_t> maxima_;    //!< their largest H, once read back
  double codes_kernel_s_ = 0;           //!< GPU time of the codes fills so far
  double codes_copy_s_ = 0;             //!< GPU time of their copies back (queued behind each fill)
  mutable double codes_refetch_s_ = 0;  //!< whole fills' codes copied back after their line missed
};

//! Crossing fills of a long pair cut into row bands over several GPUs (make_banded_trace_backend).
class banded_trace_backend final : public trace_backend {
 public:
  banded_trace_backend(const std::vector<int>& devices, const scoring_scheme& s, double watchdog,
                       trace_progress progress, bool through_host, bool spread_special)
      : through_host_(through_host), spread_special_(spread_special) {
    for (std::size_t d = 0; d < devices.size(); ++d)  // the first band's fill shows the progress
      parts_.push_back(std::make_unique<gpu_trace_backend>(cuda::device_context(devices[d]), s, watchdog,
                                                           d == 0 ? progress : trace_progress{}));
  }

  //! The root fill (at least G bands of K rows) in G device bands whose borders are checkpoint
  //! rows; anything smaller (the segments' splits) on the first device alone.
  crossing_result crossing_fill(const trace_sub& sub, std::int64_t band_rows, std::int64_t end_col) override {
    const std::int64_t m = std::int64_t(sub.query.size());
    const std::int64_t g_count = std::int64_t(parts_.size());
    rows_.clear();
    if (g_count < 2 || m < g_count * band_rows) return parts_[0]->crossing_fill(sub, band_rows, end_col);
    // Device band d: rows (rows_[d], rows_[d + 1]], each edge a multiple of K but the last.
    for (std::int64_t d = 0; d < g_count; ++d) rows_.push_back(m * d / g_count / band_rows * band_rows);
    rows_.push_back(m);
    band_rows_ = band_rows;
    std::vector<trace_problem> tp(parts_.size());
    // Kernels of the previous banded fill are done (collected), so its hand-over memory can go.
    staged_.clear();
    beat_ = std::make_unique<host_handover>(64);
    for (std::size_t d = 0; d < parts_.size(); ++d) {
      trace_sub part{sub.query.subspan(std::size_t(rows_[d]), std::size_t(rows_[d + 1] - rows_[d])), sub.target};
      if (d == 0) {
        part.start_col = sub.start_col;
        part.start_h = sub.start_h;
        part.start_f = sub.start_f;
        part.top_row = sub.top_row;
        part.top_col = sub.top_col;
      }
      const bool last = d + 1 == parts_.size();
      tp[d] = parts_[d]->stage_crossing(part, band_rows, last ? end_col : 0, !last);
      tp[d].base.band_beat = static_cast<std::uint32_t*>(beat_->memory);
      tp[d].base.band_index = int(d);
    }
    const std::size_t n = sub.target.size();
    for (std::size_t d = 0; d + 1 < parts_.size(); ++d) {
      fast_problem& up = tp[d].base;
      fast_problem& down = tp[d + 1].base;
      if (!through_host_ && enable_peer(parts_[d]->device_id(), parts_[d + 1]->device_id())) {
        // Into the next band's own border row 1 and a flag word after its error word (its
        // first strip, strip 0, reads row (0 + 1) & 1 = 1 in a whole fill too).
        up.band_out = down.border[1];
        up.band_ready = reinterpret_cast<std::uint32_t*>(down.d_error) + 8;  // o_error + 32
      } else {
        auto h = std::make_unique<host_handover>(256 + n * 8);
        auto* base = static_cast<std::uint8_t*>(h->memory);
        up.band_ready = reinterpret_cast<std::uint32_t*>(base);
        up.band_out.h = reinterpret_cast<std::int32_t*>(base + 256);
        up.band_out.f = reinterpret_cast<std::int32_t*>(base + 256 + 4 * n);
        staged_.push_back(std::move(h));
      }
      down.band_in = up.band_out;
      down.band_in_ready = up.band_ready;
    }
    for (auto& p : parts_) p->synchronize();  // every upload and zeroed flag before any band runs
    std::vector<int> blocks(parts_.size(), 0);
    std::size_t launched = 0;
    std::exception_ptr failed;
    try {
      for (; launched < parts_.size(); ++launched) {
        for (std::size_t e = 0; e < launched; ++e)  // bands on one device run one after the other
          if (parts_[e]->device_id() == parts_[launched]->device_id()) parts_[e]->synchronize();
        blocks[launched] = parts_[launched]->launch_crossing(tp[launched]);
      }
    } catch (...) {
      failed = std::current_exception();
    }
    std::vector<crossing_result> got(parts_.size());
    for (std::size_t d = 0; d < launched; ++d) {  // every band is waited for, errors or not
      try {
        got[d] = parts_[d]->collect_crossing(tp[d], blocks[d]);
      } catch (...) {
        if (!failed) failed = std::current_exception();
      }
    }
    if (failed) std::rethrow_exception(failed);
    crossing_result res;
    for (std::size_t d = 0; d < parts_.size(); ++d) {  // bands in row order: the tie rule of one fill
      best_cell b = got[d].best;
      if (b.score <= 0) continue;
      b.query_end += rows_[d];
      if (cell_beats(b.score, b.query_end, b.target_end, res.best.score, res.best.query_end, res.best.target_end)) {
        res.best = b;
        res.best_ptr = got[d].best_ptr;
      }
    }
    res.end_ph = got.back().end_ph;
    res.end_pf = got.back().end_pf;
    for (const crossing_result& r : got) res.flag_wait_share = std::max(res.flag_wait_share, r.flag_wait_share);
    return res;
  }

  //! Checkpoint row b·K: kept by the device band that ends on or below it.
  checkpoint_entry checkpoint(std::int64_t b, std::int64_t c) override {
    if (rows_.empty()) return parts_[0]->checkpoint(b, c);
    const std::int64_t row = b * band_rows_;
    std::size_t d = 0;
    while (d + 1 < parts_.size() && row > rows_[d + 1]) ++d;
    return parts_[d]->checkpoint(b - rows_[d] / band_rows_, c);
  }

  void codes_fill(const trace_sub& sub) override { parts_[0]->codes_fill(sub); }
  std::uint8_t code_at(std::int64_t i, std::int64_t j) const override { return parts_[0]->code_at(i, j); }
  //! Special rows: kept on the first device (their fill in bands over every device, below).
  const scoring_scheme& scheme() const override { return parts_[0]->scheme(); }
  //! The special fill in row bands over every device, its rows kept on the first (one device
  //! where peer access is missing).
  best_cell special_fill(residue_span query, residue_span target, std::int64_t k, bool try16) override {
    std::vector<int> devices;
    for (const auto& p : parts_) devices.push_back(p->device_id());
    parts_[0]->spread_special_fills(through_host_ || !spread_special_ ? std::vector<int>{} : devices);
    const best_cell best = parts_[0]->special_fill(query, target, k, try16);
    kept_ = parts_[0]->special_kept();
    return best;
  }
  void special_cells(std::int64_t b, std::int64_t c0, std::int64_t count, special_cell* out) override {
    parts_[0]->special_cells(b, c0, count, out);
  }
  std::int32_t special_max(std::int64_t b) override { return parts_[0]->special_max(b); }
  void drop_special() override {
    parts_[0]->drop_special();
    kept_ = {};
  }
  std::int64_t held_bytes() const override {
    std::int64_t bytes = 0;
    for (const auto& p : parts_) bytes += p->held_bytes();
    return bytes;
  }

 private:
  std::vector<std::unique_ptr<gpu_trace_backend>> parts_;
  bool through_host_ = false;
  bool spread_special_ = true;  //!< the special fill in bands over every device
  std::vector<std::int64_t> rows_;  //!< device band edges of the last crossing fill (empty: one device)
  std::int64_t band_rows_ = 0;
  std::vector<std::unique_ptr<host_handover>> staged_;  //!< hand-over rows through host memory
  std::unique_ptr<host_handover> beat_;                 //!< fast_problem::band_beat
};

}  // namespace

std::unique_ptr<trace_backend> make_banded_trace_backend(const std::vector<int>& devices, const scoring_scheme& scheme,
                                                         double watchdog_seconds, trace_progress progress,
                                                         bool through_host, bool spread_special) {
  if (devices.empty()) throw std::invalid_argument("sw_fast trace: a banded traceback needs a device");
  return std::make_unique<banded_trace_backend>(devices, scheme, watchdog_seconds, progress, through_host,
                                                spread_special);
}

std::unique_ptr<trace_backend> make_gpu_trace_backend(const cuda::device_context& dev, const scoring_scheme& scheme,
                                                      double watchdog_seconds, trace_progress progress) {
  return std::make_unique<gpu_trace_backend>(dev, scheme, watchdog_seconds, progress);
}

}  // namespace swat::fast
