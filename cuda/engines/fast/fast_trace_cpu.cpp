// The scalar CPU model of the traceback's fills (make_cpu_trace_backend, fast_trace.hpp): the
// same pointers, checkpoints, codes and codes slots as the GPU backend, row by row, so that the
// walk's logic (bands ahead, splits, special rows) is tested where there is no GPU.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cuda/engines/fast/fast_trace.hpp"

namespace swat::fast {

namespace {

//! Scalar model of both fills (tests): row-major, same pointers, checkpoints and codes.
class cpu_trace_backend final : public trace_backend {
 public:
  explicit cpu_trace_backend(const scoring_scheme& s) : scheme_(s) {}

  crossing_result crossing_fill(const trace_sub& sub, std::int64_t k, std::int64_t end_col) override {
    crossing_result res;
    run(sub, k, end_col, &res, false);
    return res;
  }
  checkpoint_entry checkpoint(std::int64_t b, std::int64_t c) override {
    return ck_.at(std::size_t(b - 1) * std::size_t(n_) + std::size_t(c - 1));
  }
  void codes_fill(const trace_sub& sub) override { run(sub, 0, 0, nullptr, true); }
  std::uint8_t code_at(std::int64_t i, std::int64_t j) const override {
    return codes_.at(std::size_t(i - 1) * std::size_t(n_) + std::size_t(j - 1));
  }
  //! Five slots, as a GPU backend's several (the walk's ring of two batches of two bands ahead is
  //! tested on the CPU): a fill runs at once, slot 0's codes kept aside while another slot's runs.
  std::size_t codes_slots() const override { return 5; }
  void codes_fill_start(std::size_t slot, const trace_sub& sub) override {
    if (slot >= codes_slots()) throw std::logic_error("sw_fast trace: codes slots");
    if (slot == 0) return codes_fill(sub);
    // The slot's buffer as a GPU backend's would grow (the walk's budget counts it).
    if (held_.size() <= slot) held_.resize(slot + 1, 0);
    held_[slot] = codes_slot_bytes(slot, codes_fill_bytes(std::int64_t(sub.query.size()), std::int64_t(sub.target.size())));
    std::vector<std::uint8_t> keep = std::move(codes_);
    const std::int64_t keep_n = n_;
    run(sub, 0, 0, nullptr, true);
    if (more_.size() <= slot) more_.resize(slot + 1);
    more_[slot] = {std::move(codes_), n_};
    codes_ = std::move(keep);
    n_ = keep_n;
    if (more_top_.size() <= slot) more_top_.resize(slot + 1);
    more_top_[slot].clear();
    if (sub.top_row >= 0 && sub.top_read_count > 0)
      for (std::int64_t c = 0; c < sub.top_read_count; ++c)
        more_top_[slot].push_back(sp_.at(std::size_t(sub.top_row) * std::size_t(sp_n_) + std::size_t(sub.top_read_c0 - 1 + c)));
  }
  std::int64_t codes_slot_bytes(std::size_t slot, std::int64_t fill_bytes) const override {
    const std::int64_t held = slot < held_.size() ? held_[slot] : 0;
    return fill_bytes > held ? fill_bytes + fill_bytes / codes_slot_headroom : held;
  }
  void codes_slots_release() override { held_.assign(held_.size(), 0); }
  const special_cell* slot_top_cells(std::size_t slot) override {
    return slot < more_top_.size() && !more_top_[slot].empty() ? more_top_[slot].data() : nullptr;
  }
  std::uint8_t slot_code_at(std::size_t slot, std::int64_t i, std::int64_t j) const override {
    if (slot == 0) return code_at(i, j);
    const auto& [codes, n] = more_.at(slot);
    return codes.at(std::size_t(i - 1) * std::size_t(n) + std::size_t(j - 1));
  }
  std::int64_t held_bytes() const override { return 0; }
  const scoring_scheme& scheme() const override { return scheme_; }

  best_cell special_fill(residue_span query, residue_span target, std::int64_t k, bool /*try16*/) override {
    drop_special();
    const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
    const std::int32_t goe = scheme_.gap_open + scheme_.gap_extend, ge = scheme_.gap_extend;
    const std::int64_t kept = (m - 1) / k;
    sp_.assign(std::size_t(kept) * std::size_t(n), special_cell{});
    sp_max_.assign(std::size_t(kept), 0);
    sp_n_ = n;
    std::vector<std::int32_t> hr(std::size_t(n + 1), 0), fr(std::size_t(n + 1), trace_minus_infinity);
    best_cell best;
    for (std::int64_t i = 1; i <= m; ++i) {
      std::int32_t e = trace_minus_infinity, hleft = 0, diag = 0;
      for (std::int64_t j = 1; j <= n; ++j) {
        e = std::max(hleft - goe, e - ge);
        const std::int32_t f = std::max(hr[std::size_t(j)] - goe, fr[std::size_t(j)] - ge);
        const std::int32_t h =
            std::max({0, diag + scheme_.score(query[std::size_t(i - 1)], target[std::size_t(j - 1)]), e, f});
        if (h > 0 && cell_beats(h, i, j, best.score, best.query_end, best.target_end)) best = {h, i, j};
        diag = hr[std::size_t(j)];
        hr[std::size_t(j)] = h;
        fr[std::size_t(j)] = f;
        hleft = h;
      }
      if (i % k == 0 && i < m) {
        const std::size_t b = std::size_t(i / k - 1);
        for (std::int64_t j = 1; j <= n; ++j) {
          sp_[b * std::size_t(n) + std::size_t(j - 1)] = special_cell{hr[std::size_t(j)], fr[std::size_t(j)]};
          sp_max_[b] = std::max(sp_max_[b], hr[std::size_t(j)]);
        }
      }
    }
    kept_.query.assign(query.begin(), query.end());
    kept_.target.assign(target.begin(), target.end());
    kept_.band_rows = k;
    kept_.best = best;
    return best;
  }
  void special_cells(std::int64_t b, std::int64_t c0, std::int64_t count, special_cell* out) override {
    for (std::int64_t c = 0; c < count; ++c) out[c] = sp_.at(std::size_t(b) * std::size_t(sp_n_) + std::size_t(c0 - 1 + c));
  }
  std::int32_t special_max(std::int64_t b) override { return sp_max_.at(std::size_t(b)); }
  void drop_special() override {
    kept_ = {};
    sp_.clear();
    sp_max_.clear();
  }

 private:
  void run(const trace_sub& sub, std::int64_t k, std::int64_t end_col, crossing_result* res, bool codes) {
    const std::int64_t m = std::int64_t(sub.query.size()), n = std::int64_t(sub.target.size());
    n_ = n;
    const std::int32_t goe = scheme_.gap_open + scheme_.gap_extend, ge = scheme_.gap_extend;
    std::vector<std::int32_t> hr(std::size_t(n + 1), 0), fr(std::size_t(n + 1), trace_minus_infinity);
    std::vector<std::uint32_t> ph(std::size_t(n + 1)), pf(std::size_t(n + 1));
    if (sub.top_row >= 0) {
      for (std::int64_t c = 1; c <= n; ++c) {
        const special_cell top = sp_.at(std::size_t(sub.top_row) * std::size_t(sp_n_) + std::size_t(sub.top_col + c - 1));
        hr[std::size_t(c)] = top.h;
        fr[std::size_t(c)] = top.f;
      }
    } else if (sub.start_col > 0) {
      hr[std::size_t(sub.start_col)] = sub.start_h, fr[std::size_t(sub.start_col)] = sub.start_f;
    }
    for (std::int64_t c = 0; c <= n; ++c) ph[std::size_t(c)] = std::uint32_t(c), pf[std::size_t(c)] = std::uint32_t(c) | ptr_state_f;
    ck_.clear();
    if (codes) codes_.assign(std::size_t(m) * std::size_t(n), 0);
    if (!codes) ck_.resize(std::size_t(std::max<std::int64_t>((m - 1) / k, 0)) * std::size_t(n));
    best_cell best;
    std::uint32_t best_ptr = 0;
    for (std::int64_t i = 1; i <= m; ++i) {
      std::int32_t e = trace_minus_infinity, hleft = 0, diag = hr[0];
      std::uint32_t pe = 0, phleft = ptr_stop, pdiag = ph[0];
      for (std::int64_t j = 1; j <= n; ++j) {
        const std::int32_t e_open = hleft - goe, e_ext = e - ge;
        pe = e_open >= e_ext ? phleft : pe;
        e = std::max(e_open, e_ext);
        const std::int32_t f_open = hr[std::size_t(j)] - goe, f_ext = fr[std::size_t(j)] - ge;
        const std::uint32_t pfn = f_open >= f_ext ? ph[std::size_t(j)] : pf[std::size_t(j)];
        const std::int32_t f = std::max(f_open, f_ext);
        const std::int32_t d = diag + scheme_.score(sub.query[std::size_t(i - 1)], sub.target[std::size_t(j - 1)]);
        const std::int32_t h = std::max({0, d, e, f});
        std::uint32_t p = h == d ? pdiag : h == e ? pe : pfn;
        if (h == 0) p = ptr_stop | std::uint32_t(j);
        if (codes) codes_[std::size_t(i - 1) * std::size_t(n) + std::size_t(j - 1)] = make_code(h, d, e, e_open, e_ext, f_open, f_ext);
        if (!codes && h > 0 && cell_beats(h, i, j, best.score, best.query_end, best.target_end))
          best = {h, i, j}, best_ptr = p;
        if (!codes && i == m && j == end_col) res->end_ph = p, res->end_pf = pfn;
        diag = hr[std::size_t(j)];
        pdiag = ph[std::size_t(j)];
        hr[std::size_t(j)] = h;
        fr[std::size_t(j)] = f;
        ph[std::size_t(j)] = p;
        pf[std::size_t(j)] = pfn;
        hleft = h;
        phleft = p;
      }
      ph[0] = ptr_stop;
      if (!codes && i % k == 0 && i < m) {
        for (std::int64_t j = 1; j <= n; ++j) {
          ck_[std::size_t(i / k - 1) * std::size_t(n) + std::size_t(j - 1)] =
              checkpoint_entry{hr[std::size_t(j)], fr[std::size_t(j)], ph[std::size_t(j)], pf[std::size_t(j)]};
        }
        for (std::int64_t c = 0; c <= n; ++c) ph[std::size_t(c)] = std::uint32_t(c), pf[std::size_t(c)] = std::uint32_t(c) | ptr_state_f;
      }
    }
    if (res) res->best = best, res->best_ptr = best_ptr;
  }

  scoring_scheme scheme_;
  std::int64_t n_ = 0;
  std::vector<checkpoint_entry> ck_;
  std::vector<std::uint8_t> codes_;
  std::vector<std::pair<std::vector<std::uint8_t>, std::int64_t>> more_;  //!< codes slots (codes, columns)
  std::vector<std::int64_t> held_;  //!< device bytes a GPU backend's slots would hold
  std::vector<std::vector<special_cell>> more_top_;  //!< their special row cells read (trace_sub::top_read_*)
  std::vector<special_cell> sp_;  //!< kept special rows, sp_n_ columns each
  std::vector<std::int32_t> sp_max_;
  std::int64_t sp_n_ = 0;
};

}  // namespace

std::unique_ptr<trace_backend> make_cpu_trace_backend(const scoring_scheme& scheme) {
  return std::make_unique<cpu_trace_backend>(scheme);
}

}  // namespace swat::fast
