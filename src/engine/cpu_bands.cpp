// One long pair in 8-bit lanes, a band of query rows per lane, 16- and 32-bit stretches where
// the scores pass 8 and 16 bits (cpu_bands.hpp).

#include "engine/cpu_bands.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "engine/cpu_simd8.hpp"

namespace swat::cpu {

namespace {

//! Scratch, 64-byte aligned regions, for `lanes` lanes of `rows` rows each: per width (8, 16 and
//! 32 bits) H and E per band row (2 · rows · lanes elements), the four carried vectors (the
//! residues in the lanes, H of the row above a band one column back, H and F of each band's last
//! row), the query ranks × target ranks of each band row, the score table (2 · lanes) and two
//! lane-mask ramps (4 · lanes); the 8- and 16-bit checkpoints (H, E and the carried vectors);
//! then the lanes whose band row i is inside the query (rows bytes).
struct band_layout {
  std::int64_t rows = 0;  //!< rows per lane
  struct width {
    std::size_t he = 0, regs = 0, query = 0, table = 0, ramps = 0, saved_he = 0, saved_regs = 0;
  } w8, w16, w32;
  std::size_t inside = 0, total = 0;  //!< byte offsets
  band_layout(std::int64_t m, int lanes) {
    rows = (m + lanes - 1) / lanes;
    const std::size_t w = std::size_t(lanes), r = std::size_t(rows);
    std::size_t at = 0;
    const auto region = [&](std::size_t bytes) {
      const std::size_t from = at;
      at += (bytes + 63) / 64 * 64;
      return from;
    };
    for (const std::size_t bytes : {std::size_t(1), std::size_t(2), std::size_t(4)}) {
      width& x = bytes == 1 ? w8 : bytes == 2 ? w16 : w32;
      x.he = region(2 * r * w * bytes);
      x.regs = region(4 * w * bytes);
      x.query = region(r * w * bytes);
      x.table = region(2 * w * bytes);
      x.ramps = region(4 * w * bytes);
      if (bytes < 4) {
        x.saved_he = region(2 * r * w * bytes);
        x.saved_regs = region(4 * w * bytes);
      }
    }
    inside = region(r);
    total = at;
  }
};

}  // namespace

bool bands_fit(const interseq_scheme& s, std::int64_t m, std::int64_t n, int lanes) {
  return s.fits && lanes > 0 && n > 0 && s.query_ranks * s.target_ranks <= 32 && m >= min_band_rows * lanes &&
         m <= bands_max_rows;
}

std::size_t bands_bytes(std::int64_t m, int lanes) { return band_layout(m, lanes).total + 64; }

#if SWAT_SIMD8
namespace {

//! The pair and the geometry both widths share.
struct band_pair {
  const std::uint8_t* t;
  std::int64_t m, n, rows;
  const std::uint8_t* inside;  //!< lanes whose band row i is in the query (the first ones)
};

//! One width's buffers, gap costs and limit (elements of that width); its checkpoint (8 and 16
//! bits): the state at the start of a step, saved every few steps, from which a pass that
//! saturates goes on wider.
template <class elem>
struct band_width {
  elem* he;             //!< H and E of band row i at 2 · i · lanes and (2 · i + 1) · lanes
  elem* regs;           //!< residues, top H, bottom H, bottom F (lanes each)
  elem* query;          //!< query rank × target ranks of band row i at i · lanes
  elem* table;          //!< the score table (2 · lanes)
  elem* ramps;          //!< 4 · lanes: ones, zeros, zeros, ones
  std::uint64_t bias, open_extend, extend, limit;
  elem* saved_he;       //!< the checkpoint (null: none)
  elem* saved_regs;
  std::int64_t saved_step = 0;
};

//! Each lane's best so far (any width): the first column of a strict improvement, its first
//! row there.
struct lane_bests {
  std::int32_t score[64];
  std::int64_t row[64], col[64];
};

enum class band_stop { done, saturated, paused };

//! The steps of the pass (lane l at target column step − l) from `step` on, in the lanes of ops
//! (8, 16 or 32 bits, ops::lanes of them), until the last lane is past the last column (done), a
//! lane's best reaches the width's limit (saturated: `step` is that step, the state is of no
//! use) or `step` reaches pause_at (paused: the state is in x.he and x.regs). A lane's best
//! below its bests' score is not recorded again (the threshold of each lane is its best, capped
//! below the limit: a lane whose best came from wider lanes saturates when it passes the limit
//! again). Where the width has a checkpoint, the state at the start of the first step and of
//! every `every` steps from there is copied there.
template <class ops>
band_stop band_steps(const band_pair& p, band_width<typename ops::elem>& x, lane_bests& bests, std::int64_t& step,
                     std::int64_t pause_at, std::int64_t every) {
  using vec = typename ops::vec;
  using elem = typename ops::elem;
  constexpr int w = ops::lanes;
  const std::int64_t rows = p.rows, n = p.n;
  elem* he = x.he;
  const elem* qx = x.query;
  const elem* ramps = x.ramps;
  const std::uint8_t* inside = p.inside;
  const vec lo = ops::load(x.table), hi = ops::load(x.table + w);
  const vec open_extend = ops::set1(elem(x.open_extend)), extend = ops::set1(elem(x.extend));
  const vec below_limit = ops::set1(elem(x.limit - 1)), bias = ops::set1(elem(x.bias));
  alignas(64) elem col_max[w];
  for (int l = 0; l < w; ++l) col_max[l] = elem(std::min<std::int64_t>(bests.score[l], std::int64_t(x.limit) - 1));
  vec best = ops::load(col_max);
  vec residues = ops::load(x.regs), top_h = ops::load(x.regs + w), bottom_h = ops::load(x.regs + 2 * w),
      bottom_f = ops::load(x.regs + 3 * w);
  const auto store_regs = [&](elem* to) {
    ops::store(to, residues);
    ops::store(to + w, top_h);
    ops::store(to + 2 * w, bottom_h);
    ops::store(to + 3 * w, bottom_f);
  };
  std::int64_t next_save = x.saved_he ? step : -1;
  for (; step < n + w - 1; ++step) {
    if (step == pause_at) {
      store_regs(x.regs);
      return band_stop::paused;
    }
    if (step == next_save) {
      store_regs(x.saved_regs);
      std::memcpy(x.saved_he, he, std::size_t(2 * rows * w) * sizeof(elem));
      x.saved_step = step;
      next_save = step + every;
    }
    residues = ops::shift_in(residues, step < n ? p.t[step] : 0);
    const vec diag_top = top_h;  // H(lane's first row − 1, its column − 1)
    top_h = ops::shift_in(bottom_h, 0);
    const vec top_f = ops::shift_in(bottom_f, 0);
    // Lanes that reached their first column: l ≤ step; lanes not past the last: l > step − n.
    const vec started = ops::load(ramps + w - std::min<std::int64_t>(step + 1, w));
    const std::int64_t ended = std::max<std::int64_t>(step - n + 1, 0);
    const vec live = ops::bit_and(started, ops::load(ramps + 3 * w - std::min<std::int64_t>(ended, w)));
    vec d = diag_top;
    vec f = top_f;  // F of the band's first row (the lane above ended on it)
    vec top = ops::zero();
    // The rows of this step; `filling`: lanes that have not started hold column 0 (zeros).
    const auto band_rows = [&](auto filling) {
      for (std::int64_t i = 0; i < rows; ++i) {
        elem* cell = he + 2 * i * w;
        const vec h_left = ops::load(cell), e = ops::load(cell + w);
        const vec s = ops::lookup32(lo, hi, ops::add(ops::load(qx + i * w), residues));
        vec h = ops::max(ops::max(ops::subs(ops::adds(d, s), bias), e), f);
        if constexpr (decltype(filling)::value) h = ops::bit_and(h, started);
        top = ops::max(top, inside[i] == w ? h : ops::bit_and(h, ops::load(ramps + w - inside[i])));
        ops::store(cell, h);
        const vec h_open = ops::subs(h, open_extend);
        ops::store(cell + w, ops::max(ops::subs(e, extend), h_open));
        f = ops::max(ops::subs(f, extend), h_open);
        d = h_left;
      }
    };
    if (step < w - 1)
      band_rows(std::true_type{});
    else
      band_rows(std::false_type{});
    bottom_h = ops::load(he + 2 * (rows - 1) * w);
    bottom_f = f;
    top = ops::bit_and(top, live);
    if (const std::uint64_t better = ops::gt(top, best)) {
      best = ops::max(best, top);
      if (ops::gt(best, below_limit)) return band_stop::saturated;
      ops::store(col_max, top);
      for (std::uint64_t lanes = better; lanes != 0; lanes &= lanes - 1) {
        const int l = __builtin_ctzll(lanes);
        std::int64_t i = 0;
        while (he[std::size_t(2 * i) * w + std::size_t(l)] != col_max[l]) ++i;
        bests.score[l] = col_max[l];
        bests.row[l] = std::int64_t(l) * rows + i + 1;
        bests.col[l] = step - l + 1;
      }
    }
  }
  return band_stop::done;
}

//! The state of one step narrowed to a width of half the bits, when every value is either below
//! the narrower limit or of a cell no path through which can beat the best so far: its value v
//! plus the most the rows below can add ((m − row) × the best substitution score; gaps add
//! nothing) is below it. Those cells take 0: a lower bound of their value, as every value the
//! lanes hold is (the pass holds the DP's values, or lower ones where paths went through such
//! cells), and a path that beats the best does not go through them, so the best and its cell are
//! the same. Rows past the query take 0 too (only lanes past the query read them). False
//! (nothing to use) when a value of a cell that may still lead past the best is at or over the
//! narrower limit.
template <class wide_elem, class narrow_elem>
bool narrow(const band_pair& p, int w, const band_width<wide_elem>& from, const band_width<narrow_elem>& to,
            std::int32_t best, std::int32_t best_substitution) {
  const std::int64_t m = p.m, rows = p.rows, limit = std::int64_t(to.limit);
  const std::int64_t gain = std::max<std::int32_t>(best_substitution, 0);
  // v at DP row `row` (1-based) into *out; false when it must stay and does not fit.
  const auto one = [&](std::int64_t v, std::int64_t row, narrow_elem* out) {
    if (v < limit) {
      *out = narrow_elem(v);
      return true;
    }
    *out = 0;
    return row > m || v + (m - row) * gain < best;
  };
  for (std::int64_t i = 0; i < rows; ++i)
    for (int l = 0; l < w; ++l) {
      const std::int64_t row = std::int64_t(l) * rows + i + 1;
      const std::size_t h = std::size_t(2 * i * w + l), e = h + std::size_t(w);
      if (!one(from.he[h], row, to.he + h) || !one(from.he[e], row, to.he + e)) return false;
    }
  for (int l = 0; l < w; ++l) {
    to.regs[l] = narrow_elem(from.regs[l]);  // residues
    // H above lane l's band (one column back), then H and F of its last row.
    if (!one(from.regs[w + l], std::int64_t(l) * rows, to.regs + w + l) ||
        !one(from.regs[2 * w + l], std::int64_t(l + 1) * rows, to.regs + 2 * w + l) ||
        !one(from.regs[3 * w + l], std::int64_t(l + 1) * rows, to.regs + 3 * w + l))
      return false;
  }
  return true;
}

//! A checkpoint of `from` as the state of the width with twice the bits (the same values).
template <class narrow_elem, class wide_elem>
void widen(const band_pair& p, int w, const band_width<narrow_elem>& from, const band_width<wide_elem>& to) {
  const std::size_t he_count = std::size_t(2 * p.rows * w);
  for (std::size_t k = 0; k < he_count; ++k) to.he[k] = from.saved_he[k];
  for (int k = 0; k < 4 * w; ++k) to.regs[k] = from.saved_regs[k];
}

//! The pass of cpu_bands.hpp in 8-bit lanes (ops8) with 16- and 32-bit stretches (ops16, ops32,
//! as many lanes). A step that saturates its width sends the pass back to that width's last
//! checkpoint (at most `every` steps before), widened; every `every` steps from there (the first
//! past the saturated step) a wider state is narrowed back when it can be (narrow). The 32-bit
//! lanes do not saturate (bands_max_rows).
template <class ops8, class ops16, class ops32>
best_cell bands_pass(const band_pair& p, band_width<std::uint8_t>& x8, band_width<std::uint16_t>& x16,
                     band_width<std::uint32_t>& x32, std::int64_t every, std::int32_t best_substitution,
                     bands_stats& stats) {
  constexpr int w = ops8::lanes;
  static_assert(ops16::lanes == w && ops32::lanes == w);
  lane_bests bests;
  for (int l = 0; l < w; ++l) bests.score[l] = 0, bests.row[l] = bests.col[l] = 0;
  std::fill(x8.he, x8.he + std::size_t(2 * p.rows * w), std::uint8_t(0));
  std::fill(x8.regs, x8.regs + 4 * w, std::uint8_t(0));
  const auto best_so_far = [&] {
    std::int32_t best = 0;
    for (int l = 0; l < w; ++l) best = std::max(best, bests.score[l]);
    return best;
  };
  std::int64_t step = 0;
  int bits = 8;
  for (;;) {
    const std::int64_t from = step;
    if (bits == 8) {
      const band_stop stop = band_steps<ops8>(p, x8, bests, step, -1, every);
      stats.steps8 += step - from;
      if (stop == band_stop::done) break;
      widen(p, w, x8, x16);  // saturated at `step`
      step = x8.saved_step;
      bits = 16;
      ++stats.widened;
    } else if (bits == 16) {
      const band_stop stop = band_steps<ops16>(p, x16, bests, step, step + every, every);
      stats.steps16 += step - from;
      if (stop == band_stop::done) break;
      if (stop == band_stop::saturated) {
        widen(p, w, x16, x32);
        step = x16.saved_step;
        bits = 32;
        ++stats.widened;
      } else if (narrow(p, w, x16, x8, best_so_far(), best_substitution)) {
        bits = 8;
        ++stats.narrowed;
      }
    } else {
      const band_stop stop = band_steps<ops32>(p, x32, bests, step, step + every, every);
      stats.steps32 += step - from;
      if (stop == band_stop::done) break;
      if (stop == band_stop::saturated) throw std::logic_error("score_bands: 32-bit lanes saturated");
      if (narrow(p, w, x32, x16, best_so_far(), best_substitution)) {
        bits = 16;
        ++stats.narrowed;
      }
    }
  }
  best_cell merged{};
  for (int l = 0; l < w; ++l)
    if (bests.score[l] > 0 &&
        cell_beats(bests.score[l], bests.row[l], bests.col[l], merged.score, merged.query_end, merged.target_end))
      merged = {bests.score[l], bests.row[l], bests.col[l]};
  return merged;
}

#define SWAT_BANDS_PASS(name, target_isa, ops8, ops16, ops32)                                                     \
  __attribute__((target(target_isa), flatten)) best_cell name(                                                    \
      const band_pair& p, band_width<std::uint8_t>& x8, band_width<std::uint16_t>& x16,                           \
      band_width<std::uint32_t>& x32, std::int64_t every, std::int32_t best_substitution, bands_stats& stats) {   \
    return bands_pass<ops8, ops16, ops32>(p, x8, x16, x32, every, best_substitution, stats);                      \
  }
SWAT_BANDS_PASS(bands_avx2, "avx2", simd8::avx2_ops, simd8::avx2_ops16x2, simd8::avx2_ops32x4)
SWAT_BANDS_PASS(bands_avx512, "avx512bw", simd8::avx512_ops, simd8::avx512_ops16x2, simd8::avx512_ops32x4)
SWAT_BANDS_PASS(bands_avx512vbmi, "avx512bw,avx512vbmi", simd8::avx512vbmi_ops, simd8::avx512_ops16x2,
                simd8::avx512_ops32x4)
#undef SWAT_BANDS_PASS

//! One width's tables: the query ranks × target ranks of each band row (rows past the query: 0),
//! the 32-entry score table, the ramps.
template <class ops>
void lay_out(const std::uint8_t* q, std::int64_t m, std::int64_t rows, const interseq_scheme& s,
             const band_width<typename ops::elem>& x) {
  using elem = typename ops::elem;
  constexpr int w = ops::lanes;
  constexpr elem ones = elem(~elem(0));
  const int tr = s.target_ranks;
  elem* query = x.query;
  elem* ramps = x.ramps;
  for (std::int64_t i = 0; i < rows; ++i)
    for (int l = 0; l < w; ++l) {
      const std::int64_t r = std::int64_t(l) * rows + i;
      query[std::size_t(i) * w + std::size_t(l)] = r < m ? elem(q[r] * tr) : 0;
    }
  std::uint8_t entries[32];
  for (int k = 0; k < 32; ++k) {
    const int a = k / tr, b = k % tr;
    entries[k] = a < s.query_ranks ? s.biased[std::size_t(a * matrix_stride + b)] : 0;
  }
  ops::make_table(entries, x.table);
  // ramps[0, w) = ones, [w, 3w) = 0, [3w, 4w) = ones: a load at w − k gives the lanes below k;
  // at 3w − k the lanes from k on.
  for (int k = 0; k < 4 * w; ++k) ramps[k] = (k < w || k >= 3 * w) ? ones : 0;
}

}  // namespace

namespace {
std::atomic<bool> vbmi_allowed{true};
const bool cpu_has_vbmi = __builtin_cpu_supports("avx512vbmi");
}  // namespace

void set_bands_vbmi(bool allowed) { vbmi_allowed = allowed; }

best_cell score_bands(residue_span query, residue_span target, const interseq_scheme& s, int lanes,
                      interseq_scratch& scratch, std::int64_t check_steps, bands_stats* stats) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if ((lanes != 32 && lanes != 64) || lanes > interseq_lanes() || !bands_fit(s, m, n, lanes) || check_steps < 1)
    throw std::invalid_argument("score_bands: unsupported lanes, scheme or pair");
  check_steps = std::min(check_steps, n + lanes);  // a pass has n + lanes − 1 steps
  const band_layout at(m, lanes);
  if (scratch.bytes.size() < at.total + 64) scratch.bytes.resize(at.total + 64);
  std::uint8_t* base = scratch.bytes.data();
  base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
  const std::int64_t rows = at.rows;
  std::uint8_t* inside = base + at.inside;
  for (std::int64_t i = 0; i < rows; ++i) inside[i] = std::uint8_t(std::min<std::int64_t>(lanes, (m - i + rows - 1) / rows));
  const band_pair p{target.data(), m, n, rows, inside};
  const auto width = [&](const band_layout::width& x, auto zero, std::uint64_t open_extend, std::uint64_t extend,
                         std::uint64_t limit) {
    using elem = decltype(zero);
    const auto at_ = [&](std::size_t offset) { return reinterpret_cast<elem*>(base + offset); };
    return band_width<elem>{at_(x.he),    at_(x.regs), at_(x.query), at_(x.table),
                            at_(x.ramps), s.bias,      open_extend,  extend,
                            limit,        x.saved_he ? at_(x.saved_he) : nullptr,
                            x.saved_he ? at_(x.saved_regs) : nullptr};
  };
  band_width<std::uint8_t> x8 = width(at.w8, std::uint8_t(0), s.open_extend, s.extend, s.limit);
  band_width<std::uint16_t> x16 = width(at.w16, std::uint16_t(0), s.wide_open_extend, s.wide_extend, s.wide_limit);
  // 32 bits: bands_max_rows keeps every value below the limit.
  band_width<std::uint32_t> x32 = width(at.w32, std::uint32_t(0), s.full_open_extend, s.full_extend,
                                        std::uint64_t(1) << 31);
  const auto tables = [&](auto ops8, auto ops16, auto ops32) {
    lay_out<decltype(ops8)>(query.data(), m, rows, s, x8);
    lay_out<decltype(ops16)>(query.data(), m, rows, s, x16);
    lay_out<decltype(ops32)>(query.data(), m, rows, s, x32);
  };
  // AVX512_VBMI's byte permute looks the scores up in one instruction (the 8-bit steps' rows: 16
  // vector operations instead of 18).
  const bool vbmi = lanes == 64 && vbmi_allowed.load(std::memory_order_relaxed) && cpu_has_vbmi;
  if (vbmi)
    tables(simd8::avx512vbmi_ops{}, simd8::avx512_ops16x2{}, simd8::avx512_ops32x4{});
  else if (lanes == 64)
    tables(simd8::avx512_ops{}, simd8::avx512_ops16x2{}, simd8::avx512_ops32x4{});
  else
    tables(simd8::avx2_ops{}, simd8::avx2_ops16x2{}, simd8::avx2_ops32x4{});
  std::int32_t best_substitution = 0;
  for (int a = 0; a < s.query_ranks; ++a)
    for (int b = 0; b < s.target_ranks; ++b)
      best_substitution =
          std::max(best_substitution, std::int32_t(s.biased[std::size_t(a * matrix_stride + b)]) - std::int32_t(s.bias));
  bands_stats counted;
  const best_cell best = vbmi          ? bands_avx512vbmi(p, x8, x16, x32, check_steps, best_substitution, counted)
                         : lanes == 64 ? bands_avx512(p, x8, x16, x32, check_steps, best_substitution, counted)
                                       : bands_avx2(p, x8, x16, x32, check_steps, best_substitution, counted);
  if (stats) *stats = counted;
  return best;
}

#else

void set_bands_vbmi(bool) {}

best_cell score_bands(residue_span, residue_span, const interseq_scheme&, int, interseq_scratch&, std::int64_t,
                      bands_stats*) {
  throw std::invalid_argument("score_bands: no vector lanes on this CPU");
}

#endif

}  // namespace swat::cpu
