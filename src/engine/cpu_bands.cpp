// One long pair in 8-bit lanes, a band of query rows per lane, 16-bit stretches where the
// scores pass 8 bits (cpu_bands.hpp).

#include "engine/cpu_bands.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "engine/cpu_simd8.hpp"

namespace swat::cpu {

namespace {

//! Scratch, 64-byte aligned regions, for `lanes` lanes of `rows` rows each: per width (8 and 16
//! bits) H and E per band row (2 · rows · lanes elements), the four carried vectors (the
//! residues in the lanes, H of the row above a band one column back, H and F of each band's last
//! row), the query ranks × target ranks of each band row, the score table (2 · lanes) and two
//! lane-mask ramps (4 · lanes); the 8-bit checkpoint (H, E and the carried vectors); then the
//! lanes whose band row i is inside the query (rows bytes).
struct band_layout {
  std::int64_t rows = 0;  //!< rows per lane
  struct width {
    std::size_t he = 0, regs = 0, query = 0, table = 0, ramps = 0;
  } w8, w16;
  std::size_t saved_he = 0, saved_regs = 0, inside = 0, total = 0;  //!< byte offsets
  band_layout(std::int64_t m, int lanes) {
    rows = (m + lanes - 1) / lanes;
    const std::size_t w = std::size_t(lanes), r = std::size_t(rows);
    std::size_t at = 0;
    const auto region = [&](std::size_t bytes) {
      const std::size_t from = at;
      at += (bytes + 63) / 64 * 64;
      return from;
    };
    for (const std::size_t bytes : {std::size_t(1), std::size_t(2)}) {
      width& x = bytes == 1 ? w8 : w16;
      x.he = region(2 * r * w * bytes);
      x.regs = region(4 * w * bytes);
      x.query = region(r * w * bytes);
      x.table = region(2 * w * bytes);
      x.ramps = region(4 * w * bytes);
    }
    saved_he = region(2 * r * w);
    saved_regs = region(4 * w);
    inside = region(r);
    total = at;
  }
};

}  // namespace

bool bands_fit(const interseq_scheme& s, std::int64_t m, std::int64_t n, int lanes) {
  return s.fits && lanes > 0 && n > 0 && s.query_ranks * s.target_ranks <= 32 && m >= min_band_rows * lanes;
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

//! One width's buffers and gap costs (elements of that width).
template <class elem>
struct band_width {
  elem* he;             //!< H and E of band row i at 2 · i · lanes and (2 · i + 1) · lanes
  elem* regs;           //!< residues, top H, bottom H, bottom F (lanes each)
  const elem* query;    //!< query rank × target ranks of band row i at i · lanes
  const elem* table;    //!< the score table (2 · lanes)
  const elem* ramps;    //!< 4 · lanes: ones, zeros, zeros, ones
  std::uint64_t bias, open_extend, extend, limit;
};

//! Each lane's best so far (any width): the first column of a strict improvement, its first
//! row there.
struct lane_bests {
  std::int32_t score[64];
  std::int64_t row[64], col[64];
};

//! The 8-bit state at the start of a step, saved every few steps: a pass that saturates starts
//! again from there in 16 bits.
struct checkpoint {
  std::uint8_t* he;
  std::uint8_t* regs;
  std::int64_t step = 0;
  std::int64_t every = 0;
};

enum class band_stop { done, saturated, paused };

//! The steps of the pass (lane l at target column step − l) from `step` on, in the lanes of ops
//! (8 or 16 bits, ops::lanes of them), until the last lane is past the last column (done), a
//! lane's best reaches the width's limit (saturated: `step` is that step, the state is of no
//! use) or `step` reaches pause_at (paused: the state is in x.he and x.regs). A lane's best
//! below its bests' score is not recorded again (the threshold of each lane is its best, capped
//! below the limit: a lane whose best came from wider lanes saturates when it passes the limit
//! again). With `saved`, the state at the start of the first step and of every saved.every steps
//! from there is copied there.
template <class ops>
band_stop band_steps(const band_pair& p, const band_width<typename ops::elem>& x, lane_bests& bests,
                     std::int64_t& step, std::int64_t pause_at, checkpoint* saved) {
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
  std::int64_t next_save = saved ? step : -1;
  for (; step < n + w - 1; ++step) {
    if (step == pause_at) {
      store_regs(x.regs);
      return band_stop::paused;
    }
    if constexpr (sizeof(elem) == 1) {
      if (step == next_save) {
        store_regs(reinterpret_cast<elem*>(saved->regs));
        std::memcpy(saved->he, he, std::size_t(2 * rows * w));
        saved->step = step;
        next_save = step + saved->every;
      }
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

//! The 16-bit state of one step narrowed to 8 bits, when every value is either below the 8-bit
//! limit or of a cell no path through which can beat the best so far: its value v plus the most
//! the rows below can add ((m − row) × the best substitution score; gaps add nothing) is below
//! it. Those cells take 0: a lower bound of their value, as every value the lanes hold is (the
//! pass holds the DP's values, or lower ones where paths went through such cells), and a path
//! that beats the best does not go through them, so the best and its cell are the same. Rows past
//! the query take 0 too (only lanes past the query read them). False (nothing to use) when a
//! value of a cell that may still lead past the best is at or over the 8-bit limit.
bool narrow(const band_pair& p, int w, const band_width<std::uint16_t>& from, const band_width<std::uint8_t>& to,
            std::int32_t best, std::int32_t best_substitution) {
  const std::int64_t m = p.m, rows = p.rows, limit = std::int64_t(to.limit);
  const std::int64_t gain = std::max<std::int32_t>(best_substitution, 0);
  // v at DP row `row` (1-based) into *out; false when it must stay and does not fit.
  const auto one = [&](std::int64_t v, std::int64_t row, std::uint8_t* out) {
    if (v < limit) {
      *out = std::uint8_t(v);
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
    to.regs[l] = std::uint8_t(from.regs[l]);  // residues
    // H above lane l's band (one column back), then H and F of its last row.
    if (!one(from.regs[w + l], std::int64_t(l) * rows, to.regs + w + l) ||
        !one(from.regs[2 * w + l], std::int64_t(l + 1) * rows, to.regs + 2 * w + l) ||
        !one(from.regs[3 * w + l], std::int64_t(l + 1) * rows, to.regs + 3 * w + l))
      return false;
  }
  return true;
}

//! The pass of cpu_bands.hpp: in 8-bit lanes (ops8) with 16-bit stretches (ops16, as many
//! lanes) where `adaptive`, else in 16-bit lanes throughout. An 8-bit step that saturates sends
//! the pass back to the last checkpoint (at most `every` steps before), widened; every `every`
//! steps from there (the first past the saturated step) the 16-bit state is narrowed back when
//! it can be (narrow).
//! False when the 16-bit lanes saturate, with first_saturated the column (0-based) before which
//! every cell of the pass was below the 16-bit limit.
template <class ops8, class ops16>
bool bands_pass(const band_pair& p, const band_width<std::uint8_t>& x8, const band_width<std::uint16_t>& x16,
                checkpoint& saved, bool adaptive, std::int32_t best_substitution, best_cell& out,
                std::int64_t& first_saturated) {
  constexpr int w = ops8::lanes;
  static_assert(ops16::lanes == w);
  const std::size_t he_count = std::size_t(2 * p.rows * w);
  lane_bests bests;
  for (int l = 0; l < w; ++l) bests.score[l] = 0, bests.row[l] = bests.col[l] = 0;
  std::int64_t step = 0;
  bool wide = !adaptive;
  if (wide) {
    std::fill(x16.he, x16.he + he_count, std::uint16_t(0));
    std::fill(x16.regs, x16.regs + 4 * w, std::uint16_t(0));
  } else {
    std::fill(x8.he, x8.he + he_count, std::uint8_t(0));
    std::fill(x8.regs, x8.regs + 4 * w, std::uint8_t(0));
  }
  for (;;) {
    if (!wide) {
      if (band_steps<ops8>(p, x8, bests, step, -1, &saved) == band_stop::done) break;
      // Saturated at `step`: again from the checkpoint (at most `every` steps before), in 16 bits,
      // past the saturated step before the first narrowing.
      step = saved.step;
      for (std::size_t k = 0; k < he_count; ++k) x16.he[k] = saved.he[k];
      for (int k = 0; k < 4 * w; ++k) x16.regs[k] = saved.regs[k];
      wide = true;
    }
    const std::int64_t pause_at = adaptive ? step + saved.every : -1;
    const band_stop stop = band_steps<ops16>(p, x16, bests, step, pause_at, nullptr);
    if (stop == band_stop::done) break;
    if (stop == band_stop::saturated) {
      // Before this step lane l had reached column step − 1 − l (0-based): every cell of the
      // columns up to step − w was below the limit, in every lane.
      first_saturated = std::max<std::int64_t>(0, step - w + 1);
      return false;
    }
    std::int32_t best = 0;
    for (int l = 0; l < w; ++l) best = std::max(best, bests.score[l]);
    if (narrow(p, w, x16, x8, best, best_substitution)) wide = false;
  }
  best_cell merged{};
  for (int l = 0; l < w; ++l)
    if (bests.score[l] > 0 &&
        cell_beats(bests.score[l], bests.row[l], bests.col[l], merged.score, merged.query_end, merged.target_end))
      merged = {bests.score[l], bests.row[l], bests.col[l]};
  out = merged;
  return true;
}

#define SWAT_BANDS_PASS(name, target_isa, ops8, ops16)                                                             \
  __attribute__((target(target_isa), flatten)) bool name(                                                           \
      const band_pair& p, const band_width<std::uint8_t>& x8, const band_width<std::uint16_t>& x16,                 \
      checkpoint& saved, bool adaptive, std::int32_t best_substitution, best_cell& out,                             \
      std::int64_t& first_saturated) {                                                                               \
    return bands_pass<ops8, ops16>(p, x8, x16, saved, adaptive, best_substitution, out, first_saturated);           \
  }
SWAT_BANDS_PASS(bands_avx2, "avx2", simd8::avx2_ops, simd8::avx2_ops16x2)
SWAT_BANDS_PASS(bands_avx512, "avx512bw", simd8::avx512_ops, simd8::avx512_ops16x2)
SWAT_BANDS_PASS(bands_avx512vbmi, "avx512bw,avx512vbmi", simd8::avx512vbmi_ops, simd8::avx512_ops16x2)
#undef SWAT_BANDS_PASS

//! One width's tables: the query ranks × target ranks of each band row (rows past the query: 0),
//! the 32-entry score table, the ramps.
template <class ops>
void lay_out(const std::uint8_t* q, std::int64_t m, std::int64_t rows, const interseq_scheme& s,
             typename ops::elem* query, typename ops::elem* table, typename ops::elem* ramps) {
  using elem = typename ops::elem;
  constexpr int w = ops::lanes;
  constexpr elem ones = elem(~elem(0));
  const int tr = s.target_ranks;
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
  ops::make_table(entries, table);
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

bool score_bands(residue_span query, residue_span target, const interseq_scheme& s, int lanes, int bits,
                 interseq_scratch& scratch, best_cell& out, std::int64_t* first_saturated, std::int64_t check_steps) {
  if (first_saturated) *first_saturated = -1;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if ((lanes != 32 && lanes != 64) || lanes > interseq_lanes() || (bits != 8 && bits != 16) ||
      !bands_fit(s, m, n, lanes) || check_steps < 1)
    throw std::invalid_argument("score_bands: unsupported lanes, width, scheme or pair");
  const band_layout at(m, lanes);
  if (scratch.bytes.size() < at.total + 64) scratch.bytes.resize(at.total + 64);
  std::uint8_t* base = scratch.bytes.data();
  base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
  const std::int64_t rows = at.rows;
  std::uint8_t* inside = base + at.inside;
  for (std::int64_t i = 0; i < rows; ++i) inside[i] = std::uint8_t(std::min<std::int64_t>(lanes, (m - i + rows - 1) / rows));
  const band_pair p{target.data(), m, n, rows, inside};
  const auto as16 = [&](std::size_t offset) { return reinterpret_cast<std::uint16_t*>(base + offset); };
  const band_width<std::uint8_t> x8{base + at.w8.he, base + at.w8.regs, base + at.w8.query, base + at.w8.table,
                                    base + at.w8.ramps, s.bias, s.open_extend, s.extend, s.limit};
  const band_width<std::uint16_t> x16{as16(at.w16.he), as16(at.w16.regs), as16(at.w16.query), as16(at.w16.table),
                                      as16(at.w16.ramps), s.bias, s.wide_open_extend, s.wide_extend, s.wide_limit};
  // AVX512_VBMI's byte permute looks the scores up in one instruction (the 8-bit steps' rows: 16
  // vector operations instead of 18).
  const bool vbmi = vbmi_allowed.load(std::memory_order_relaxed) && cpu_has_vbmi;
  if (lanes == 64 && vbmi) {
    lay_out<simd8::avx512vbmi_ops>(query.data(), m, rows, s, base + at.w8.query, base + at.w8.table, base + at.w8.ramps);
    lay_out<simd8::avx512_ops16x2>(query.data(), m, rows, s, as16(at.w16.query), as16(at.w16.table), as16(at.w16.ramps));
  } else if (lanes == 64) {
    lay_out<simd8::avx512_ops>(query.data(), m, rows, s, base + at.w8.query, base + at.w8.table, base + at.w8.ramps);
    lay_out<simd8::avx512_ops16x2>(query.data(), m, rows, s, as16(at.w16.query), as16(at.w16.table), as16(at.w16.ramps));
  } else {
    lay_out<simd8::avx2_ops>(query.data(), m, rows, s, base + at.w8.query, base + at.w8.table, base + at.w8.ramps);
    lay_out<simd8::avx2_ops16x2>(query.data(), m, rows, s, as16(at.w16.query), as16(at.w16.table), as16(at.w16.ramps));
  }
  std::int32_t best_substitution = 0;
  for (int a = 0; a < s.query_ranks; ++a)
    for (int b = 0; b < s.target_ranks; ++b)
      best_substitution =
          std::max(best_substitution, std::int32_t(s.biased[std::size_t(a * matrix_stride + b)]) - std::int32_t(s.bias));
  checkpoint saved{base + at.saved_he, base + at.saved_regs, 0, check_steps};
  std::int64_t saturated = -1;
  const bool exact = lanes == 64 && vbmi ? bands_avx512vbmi(p, x8, x16, saved, bits == 8, best_substitution, out, saturated)
                     : lanes == 64     ? bands_avx512(p, x8, x16, saved, bits == 8, best_substitution, out, saturated)
                                       : bands_avx2(p, x8, x16, saved, bits == 8, best_substitution, out, saturated);
  if (!exact && first_saturated) *first_saturated = saturated;
  return exact;
}

#else

void set_bands_vbmi(bool) {}

bool score_bands(residue_span, residue_span, const interseq_scheme&, int, int, interseq_scratch&, best_cell&,
                 std::int64_t*, std::int64_t) {
  throw std::invalid_argument("score_bands: no vector lanes on this CPU");
}

#endif

}  // namespace swat::cpu
