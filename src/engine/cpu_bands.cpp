// One long pair in 8-bit lanes, a band of query rows per lane (cpu_bands.hpp).

#include "engine/cpu_bands.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/cpu_simd8.hpp"

namespace swat::cpu {

namespace {

//! Scratch (elements of `bytes` bytes): H and E per band row (2 · rows · lanes), the query
//! ranks × target ranks of each band row (rows · lanes), the score table (2 · lanes), two
//! lane-mask ramps (4 · lanes); then the lanes whose band row i is inside the query (rows bytes).
struct band_layout {
  std::int64_t rows = 0;  //!< rows per lane
  std::size_t he = 0, query = 0, table = 0, ramps = 0, inside = 0, total = 0;  //!< byte offsets
  band_layout(std::int64_t m, int lanes, std::size_t bytes) {
    const std::size_t w = std::size_t(lanes) * bytes;
    rows = (m + lanes - 1) / lanes;
    query = he + 2 * std::size_t(rows) * w;
    table = query + std::size_t(rows) * w;
    ramps = table + 2 * w;
    inside = ramps + 4 * w;
    total = inside + std::size_t(rows);
  }
};

}  // namespace

bool bands_fit(const interseq_scheme& s, std::int64_t m, std::int64_t n, int lanes) {
  return s.fits && lanes > 0 && n > 0 && s.query_ranks * s.target_ranks <= 32 && m >= min_band_rows * lanes;
}

std::size_t bands_bytes(std::int64_t m, int lanes) {
  return std::max(band_layout(m, lanes, 1).total, band_layout(m, lanes / 2, 2).total) + 64;
}

#if SWAT_SIMD8
namespace {

//! The pass of cpu_bands.hpp in the lanes of ops (8 or 16 bits): oe, ext the gap costs and
//! limit the exactness bound of that width.
template <class ops>
bool bands_kernel(const std::uint8_t* q, std::int64_t m, const std::uint8_t* t, std::int64_t n,
                  const interseq_scheme& s, std::uint64_t oe, std::uint64_t ext, std::uint64_t limit,
                  std::uint8_t* base, const band_layout& at, best_cell& out, std::int64_t& first_saturated) {
  using vec = typename ops::vec;
  using elem = typename ops::elem;
  constexpr int w = ops::lanes;
  constexpr elem ones = elem(~elem(0));
  const std::int64_t rows = at.rows;
  elem* he = reinterpret_cast<elem*>(base + at.he);
  elem* qx = reinterpret_cast<elem*>(base + at.query);
  elem* table = reinterpret_cast<elem*>(base + at.table);
  elem* ramps = reinterpret_cast<elem*>(base + at.ramps);
  std::uint8_t* inside = base + at.inside;
  const int tr = s.target_ranks;
  // Row i of lane l is query row l · rows + i; its entry is that residue's rank × tr (rows past
  // the query: 0; they are left out of the best, and only lanes below feed on them, all past
  // the query too). inside[i]: lanes whose row i is in the query (the first ones).
  for (std::int64_t i = 0; i < rows; ++i) {
    inside[i] = std::uint8_t(std::min<std::int64_t>(w, (m - i + rows - 1) / rows));
    for (int l = 0; l < w; ++l) {
      const std::int64_t r = std::int64_t(l) * rows + i;
      qx[std::size_t(i) * w + std::size_t(l)] = r < m ? elem(q[r] * tr) : 0;
    }
  }
  // The 32-entry table (query rank · tr + target rank).
  std::uint8_t entries[32];
  for (int k = 0; k < 32; ++k) {
    const int a = k / tr, b = k % tr;
    entries[k] = a < s.query_ranks ? s.biased[std::size_t(a * matrix_stride + b)] : 0;
  }
  ops::make_table(entries, table);
  // ramps[0, w) = ones, [w, 3w) = 0, [3w, 4w) = ones: a load at w − k gives the lanes below k;
  // at 3w − k the lanes from k on.
  for (int x = 0; x < 4 * w; ++x) ramps[x] = (x < w || x >= 3 * w) ? ones : 0;
  for (std::int64_t x = 0; x < 2 * rows * w; ++x) he[x] = 0;
  const vec lo = ops::load(table), hi = ops::load(table + w);
  const vec bias = ops::set1(s.bias), open_extend = ops::set1(elem(oe)), extend = ops::set1(elem(ext));
  const vec below_limit = ops::set1(elem(limit - 1));
  vec residues = ops::zero(), top_h = ops::zero(), top_f = ops::zero(), best = ops::zero();
  vec bottom_h = ops::zero(), bottom_f = ops::zero();
  alignas(64) elem col_max[w], best_score[w];
  std::int64_t best_row[w], best_col[w];
  for (int l = 0; l < w; ++l) best_row[l] = best_col[l] = 0;
  for (std::int64_t step = 0; step < n + w - 1; ++step) {
    residues = ops::shift_in(residues, step < n ? t[step] : 0);
    const vec diag_top = top_h;  // H(lane's first row − 1, its column − 1)
    top_h = ops::shift_in(bottom_h, 0);
    top_f = ops::shift_in(bottom_f, 0);
    // Lanes that reached their first column: l ≤ step; lanes not past the last: l > step − n.
    const vec started = ops::load(ramps + w - std::min<std::int64_t>(step + 1, w));
    const std::int64_t ended = std::max<std::int64_t>(step - n + 1, 0);
    const vec live = ops::bit_and(started, ops::load(ramps + 3 * w - std::min<std::int64_t>(ended, w)));
    vec d = diag_top;
    vec f = top_f;  // F of the band's first row (the lane above ended on it)
    vec top = ops::zero();
    const bool filling = step < w - 1;
    for (std::int64_t i = 0; i < rows; ++i) {
      elem* cell = he + 2 * i * w;
      const vec h_left = ops::load(cell), e = ops::load(cell + w);
      const vec p = ops::lookup32(lo, hi, ops::add(ops::load(qx + i * w), residues));
      vec h = ops::max(ops::max(ops::subs(ops::adds(d, p), bias), e), f);
      if (filling) h = ops::bit_and(h, started);  // column 0 of lanes not yet started
      top = ops::max(top, inside[i] == w ? h : ops::bit_and(h, ops::load(ramps + w - inside[i])));
      ops::store(cell, h);
      const vec h_open = ops::subs(h, open_extend);
      ops::store(cell + w, ops::max(ops::subs(e, extend), h_open));
      f = ops::max(ops::subs(f, extend), h_open);
      d = h_left;
    }
    bottom_h = ops::load(he + 2 * (rows - 1) * w);
    bottom_f = f;
    top = ops::bit_and(top, live);
    if (const std::uint64_t better = ops::gt(top, best)) {
      best = ops::max(best, top);
      if (ops::gt(best, below_limit)) {  // saturated: the rest of the pass is of no use
        // Before this step lane l had reached column step − 1 − l (0-based): every cell of the
        // columns up to step − w was below the limit, in every lane.
        first_saturated = std::max<std::int64_t>(0, step - w + 1);
        return false;
      }
      ops::store(col_max, top);
      for (std::uint64_t lanes = better; lanes != 0; lanes &= lanes - 1) {
        const int l = __builtin_ctzll(lanes);
        std::int64_t i = 0;
        while (he[std::size_t(2 * i) * w + std::size_t(l)] != col_max[l]) ++i;
        best_row[l] = std::int64_t(l) * rows + i + 1;
        best_col[l] = step - l + 1;
      }
    }
  }
  ops::store(best_score, best);
  best_cell merged{};
  for (int l = 0; l < w; ++l) {
    if (best_score[l] >= limit) return false;
    if (best_score[l] > 0 && cell_beats(best_score[l], best_row[l], best_col[l], merged.score, merged.query_end,
                                        merged.target_end))
      merged = {best_score[l], best_row[l], best_col[l]};
  }
  out = merged;
  return true;
}

#define SWAT_BANDS_KERNEL(name, target_isa, ops_type)                                                             \
  __attribute__((target(target_isa), flatten)) bool name(                                                           \
      const std::uint8_t* q, std::int64_t m, const std::uint8_t* t, std::int64_t n, const interseq_scheme& s,       \
      std::uint64_t oe, std::uint64_t ext, std::uint64_t limit, std::uint8_t* base, const band_layout& at,          \
      best_cell& out, std::int64_t& first_saturated) {                                                              \
    return bands_kernel<ops_type>(q, m, t, n, s, oe, ext, limit, base, at, out, first_saturated);                  \
  }
SWAT_BANDS_KERNEL(bands8_avx2, "avx2", simd8::avx2_ops)
SWAT_BANDS_KERNEL(bands8_avx512, "avx512bw", simd8::avx512_ops)
SWAT_BANDS_KERNEL(bands16_avx2, "avx2", simd8::avx2_ops16)
SWAT_BANDS_KERNEL(bands16_avx512, "avx512bw", simd8::avx512_ops16)
#undef SWAT_BANDS_KERNEL

}  // namespace

bool score_bands(residue_span query, residue_span target, const interseq_scheme& s, int lanes, int bits,
                 interseq_scratch& scratch, best_cell& out, std::int64_t* first_saturated) {
  std::int64_t saturated = -1;
  if (first_saturated) *first_saturated = -1;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if ((lanes != 32 && lanes != 64) || lanes > interseq_lanes() || (bits != 8 && bits != 16) || !bands_fit(s, m, n, lanes))
    throw std::invalid_argument("score_bands: unsupported lanes, width, scheme or pair");
  const int lane_count = bits == 8 ? lanes : lanes / 2;
  const band_layout at(m, lane_count, std::size_t(bits / 8));
  if (scratch.bytes.size() < at.total + 64) scratch.bytes.resize(at.total + 64);
  std::uint8_t* base = scratch.bytes.data();
  base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
  const std::uint8_t *q = query.data(), *t = target.data();
  const bool exact =
      bits == 8 ? (lanes == 64 ? bands8_avx512(q, m, t, n, s, s.open_extend, s.extend, s.limit, base, at, out, saturated)
                               : bands8_avx2(q, m, t, n, s, s.open_extend, s.extend, s.limit, base, at, out, saturated))
                : (lanes == 64 ? bands16_avx512(q, m, t, n, s, s.wide_open_extend, s.wide_extend, s.wide_limit, base, at,
                                                out, saturated)
                               : bands16_avx2(q, m, t, n, s, s.wide_open_extend, s.wide_extend, s.wide_limit, base, at,
                                              out, saturated));
  if (!exact && first_saturated) *first_saturated = saturated;
  return exact;
}

#else

bool score_bands(residue_span, residue_span, const interseq_scheme&, int, int, interseq_scratch&, best_cell&,
                 std::int64_t*) {
  throw std::invalid_argument("score_bands: no vector lanes on this CPU");
}

#endif

}  // namespace swat::cpu
