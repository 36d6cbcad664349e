// Block fill of cpu_block.hpp: a scalar row kernel (with traceback codes, and for the rows a
// strip leaves over) and an AVX2 kernel for 8 rows at a time. In the AVX2 kernel lane k holds
// row i + k, skewed by k columns (an anti-diagonal of the strip, as in cpu_strip.cpp): H(i-1,j)
// and F(i-1,j) come from lane k-1 one step earlier, H(i-1,j-1) two steps earlier, H(i,j-1) and
// E(i,j-1) from the lane itself. Before its first column a lane holds the block's left border
// (H and E of column j0-1), so the lane below reads it as its diagonal. Each lane keeps its
// largest H and the first column where it occurs; the strip's best is then chosen by the tie
// rule (smallest column, then smallest row), exactly as a row-major sweep would.

#include "engine/cpu_block.hpp"

#include <algorithm>
#include <limits>

#include "engine/cpu_kernels.hpp"

#include "engine/cpu_avx2.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define SWAT_BLOCK_AVX2 1
#endif

namespace swat::cpu {
namespace {

thread_local std::uint64_t filled = 0;

constexpr std::int64_t no_column = std::numeric_limits<std::int64_t>::max();

//! The first forbidden cell at or after (i, j) in row-major order, or forbidden.end().
const forbidden_cell* first_from(forbidden_span forbidden, std::int64_t i, std::int64_t j) {
  return forbidden.data() + (std::lower_bound(forbidden.begin(), forbidden.end(), forbidden_cell{i, j}) - forbidden.begin());
}

//! Column of the forbidden cell at p in row i relative to j0 (0-based), or no_column.
std::int64_t relative_column(forbidden_span forbidden, const forbidden_cell* p, std::int64_t i, std::int64_t j0) {
  return p != forbidden.data() + forbidden.size() && p->first == i ? p->second - j0 : no_column;
}

void keep_best(best_cell& best, std::int32_t score, std::int64_t i, std::int64_t j) {
  if (score > 0 && cell_beats(score, i, j, best.score, best.query_end, best.target_end)) best = {score, i, j};
}

//! Rows r0..r1 of blk, one at a time (codes of row i at codes + (i - r0)·width when non-null).
//! left_h/left_e point at row r0's entries; corner = H(r0-1, j0-1).
template <bool with_codes>
void fill_rows_scalar(const block& blk, std::int64_t r0, std::int64_t r1, residue_span query, residue_span target,
                      const scoring_scheme& scheme, forbidden_span forbidden, std::int32_t* h,
                      std::int32_t* f, std::int32_t corner, const std::int32_t* left_h, const std::int32_t* left_e,
                      std::int32_t* right_h, std::int32_t* right_e, std::uint8_t* codes, best_cell& best) {
  const std::int32_t open = scheme.gap_open + scheme.gap_extend, ext = scheme.gap_extend;
  const std::int64_t w = blk.width();
  const std::uint8_t* t = target.data() + (blk.j0 - 1);
  for (std::int64_t i = r0; i <= r1; ++i) {
    const std::int64_t r = i - r0;
    const std::int32_t* srow = scheme.matrix.data() + std::size_t(query[std::size_t(i - 1)]) * matrix_stride;
    std::int32_t h_left = left_h ? left_h[r] : 0;
    std::int32_t e = left_e ? left_e[r] : minus_infinity;
    std::int32_t h_diag = r == 0 ? corner : left_h ? left_h[r - 1] : 0;
    const forbidden_cell* next = first_from(forbidden, i, blk.j0);
    std::int64_t next_k = relative_column(forbidden, next, i, blk.j0);
    std::uint8_t* crow = with_codes ? codes + r * w : nullptr;
    std::int32_t row_best = 0;
    std::int64_t row_best_k = 0;
    for (std::int64_t k = 0; k < w; ++k) {
      const std::int32_t up_h = h[k], up_f = f[k];
      const std::int32_t e_open = h_left - open, e_ext = e - ext;
      e = std::max(e_open, e_ext);
      const std::int32_t f_open = up_h - open, f_ext = up_f - ext;
      const std::int32_t fv = std::max(f_open, f_ext);
      std::int32_t diag = h_diag + srow[t[k]];
      if (k == next_k) {  // a pair an earlier alignment aligned: no diagonal step into it
        diag = minus_infinity;
        next_k = relative_column(forbidden, ++next, i, blk.j0);
      }
      const std::int32_t hv = std::max(std::max(diag, 0), std::max(e, fv));
      if constexpr (with_codes) crow[k] = make_code(hv, diag, e, e_open, e_ext, f_open, f_ext);
      h_diag = up_h;
      h[k] = hv;
      f[k] = fv;
      h_left = hv;
      if (hv > row_best) row_best = hv, row_best_k = k;  // first column of the row's maximum
    }
    keep_best(best, row_best, i, blk.j0 + row_best_k);
    if (right_h) {
      right_h[r] = h_left;
      right_e[r] = e;
    }
  }
}

#if SWAT_BLOCK_AVX2

using avx2::shift_in;
using avx2::vec;

//! Rows i..i+7 of blk (see the file comment); left_h/left_e point at row i's entries (or null),
//! right_h/right_e at row i's outputs (or null); corner = H(i-1, j0-1). With codes: the 4-bit
//! codes of row i + k at codes + k·width, through skew (8·(width + 8) bytes: step s, lane k at
//! skew[8s + k]). scores: 8·(width + 8) entries for avx2::skewed_scores.
template <bool with_codes>
SWAT_AVX2 void fill_strip8(const block& blk, std::int64_t i, residue_span query, residue_span target,
                           const scoring_scheme& scheme, forbidden_span forbidden, std::int32_t* h,
                           std::int32_t* f, std::int32_t corner, const std::int32_t* left_h,
                           const std::int32_t* left_e, std::int32_t* right_h, std::int32_t* right_e,
                           best_cell& best, std::uint8_t* codes, std::uint8_t* skew, std::int32_t* scores) {
  const std::int64_t w = blk.width();
  const std::uint8_t* t = target.data() + (blk.j0 - 1);
  const std::uint8_t* q = query.data() + (i - 1);
  avx2::skewed_scores(q, t, w, scheme, scores);
  const vec v_open = _mm256_set1_epi32(scheme.gap_open + scheme.gap_extend);
  const vec v_ext = _mm256_set1_epi32(scheme.gap_extend);
  const vec zero = _mm256_setzero_si256(), neg = _mm256_set1_epi32(minus_infinity);
  const vec lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const vec one = _mm256_set1_epi32(1), past = _mm256_set1_epi32(std::int32_t(w + 1));
  const vec border_h = left_h ? _mm256_loadu_si256(reinterpret_cast<const vec*>(left_h)) : zero;
  const vec border_e = left_e ? _mm256_loadu_si256(reinterpret_cast<const vec*>(left_e)) : neg;
  // Per lane: the next forbidden cell of its row, as a 1-based column of the block.
  constexpr std::int32_t none = std::numeric_limits<std::int32_t>::min();  // no lane's column
  const forbidden_cell* next[8];
  alignas(32) std::int32_t next_j[8];
  for (int k = 0; k < 8; ++k) {
    next[k] = first_from(forbidden, i + k, blk.j0);
    const std::int64_t c = relative_column(forbidden, next[k], i + k, blk.j0);
    next_j[k] = c < w ? std::int32_t(c + 1) : none;
  }
  vec forbid_at = _mm256_load_si256(reinterpret_cast<const vec*>(next_j));
  // No forbidden cell in these rows (every first alignment): the steps where every lane is
  // inside the block skip the forbidden test and the border blends.
  bool any_forbidden = false;
  for (int k = 0; k < 8; ++k) any_forbidden |= next_j[k] != none;
  vec hc = border_h, ec = border_e, fc = neg;
  vec up_prev = _mm256_blend_epi32(zero, _mm256_set1_epi32(corner), 1);
  vec lane_max = zero, lane_max_j = zero;
  alignas(32) std::int32_t out_h[8], out_e[8];
  for (std::int64_t s = 1; s <= w + 7; ++s) {
    const bool in = s <= w;
    const vec up = shift_in(hc, in ? h[s - 1] : 0);
    const vec fup = shift_in(fc, in ? f[s - 1] : minus_infinity);
    const vec sc = _mm256_loadu_si256(reinterpret_cast<const vec*>(scores + 8 * s));
    const vec e_open = _mm256_sub_epi32(hc, v_open), e_ext = _mm256_sub_epi32(ec, v_ext);
    const vec f_open = _mm256_sub_epi32(up, v_open), f_ext = _mm256_sub_epi32(fup, v_ext);
    const vec e = _mm256_max_epi32(e_open, e_ext);
    const vec fv = _mm256_max_epi32(f_open, f_ext);
    const vec j = _mm256_sub_epi32(_mm256_set1_epi32(std::int32_t(s)), lane);
    const bool inside = s >= 8 && s <= w && !any_forbidden;  // every lane at a column 1 … w
    vec d = _mm256_add_epi32(up_prev, sc);
    if (!inside) {
      const vec hit = _mm256_cmpeq_epi32(j, forbid_at);
      if (!_mm256_testz_si256(hit, hit)) {  // rare: take the diagonal out, move to the next one
        d = _mm256_blendv_epi8(d, neg, hit);
        const int bits = _mm256_movemask_ps(_mm256_castsi256_ps(hit));
        for (int k = 0; k < 8; ++k)
          if (bits >> k & 1) {
            const std::int64_t c = relative_column(forbidden, ++next[k], i + k, blk.j0);
            next_j[k] = c < w ? std::int32_t(c + 1) : none;
          }
        forbid_at = _mm256_load_si256(reinterpret_cast<const vec*>(next_j));
      }
    }
    vec hv = _mm256_max_epi32(_mm256_max_epi32(d, e), _mm256_max_epi32(fv, zero));
    if constexpr (with_codes) avx2::store_codes(hv, d, e, e_open, e_ext, f_open, f_ext, skew + s * 8);
    vec seen = hv;
    if (inside) {
      ec = e;
    } else {
      const vec before = _mm256_cmpgt_epi32(one, j);  // the lane has not reached column 1: border
      hv = _mm256_blendv_epi8(hv, border_h, before);
      ec = _mm256_blendv_epi8(e, border_e, before);
      const vec active = _mm256_andnot_si256(before, _mm256_cmpgt_epi32(past, j));
      seen = _mm256_and_si256(hv, active);
    }
    const vec higher = _mm256_cmpgt_epi32(seen, lane_max);
    lane_max = _mm256_blendv_epi8(lane_max, seen, higher);
    lane_max_j = _mm256_blendv_epi8(lane_max_j, j, higher);
    if (s > 7) {
      h[s - 8] = _mm256_extract_epi32(hv, 7);
      f[s - 8] = _mm256_extract_epi32(fv, 7);
    }
    if (right_h && s >= w) {  // lane s - w has just filled column j1
      _mm256_store_si256(reinterpret_cast<vec*>(out_h), hv);
      _mm256_store_si256(reinterpret_cast<vec*>(out_e), ec);
      right_h[s - w] = out_h[s - w];
      right_e[s - w] = out_e[s - w];
    }
    hc = hv;
    fc = fv;
    up_prev = up;
  }
  if constexpr (with_codes) avx2::unskew_codes(skew, w, codes, w);
  alignas(32) std::int32_t maxima[8], columns[8];
  _mm256_store_si256(reinterpret_cast<vec*>(maxima), lane_max);
  _mm256_store_si256(reinterpret_cast<vec*>(columns), lane_max_j);
  for (int k = 0; k < 8; ++k) keep_best(best, maxima[k], i + k, blk.j0 + columns[k] - 1);
}

#endif

}  // namespace

namespace {

//! b's column borders from row offset r of the block on (null stays null).
block_borders rows_from(const block_borders& b, std::int64_t r) {
  return {b.h, b.f, b.corner, b.left_h ? b.left_h + r : nullptr, b.left_e ? b.left_e + r : nullptr,
          b.right_h ? b.right_h + r : nullptr, b.right_e ? b.right_e + r : nullptr};
}

}  // namespace

best_cell fill_block(const block& blk, residue_span query, residue_span target, const scoring_scheme& scheme,
                     forbidden_span forbidden, const block_borders& b, std::uint8_t* codes) {
  best_cell best{};
  filled += std::uint64_t(blk.width()) * std::uint64_t(blk.height());
  const std::int64_t w = blk.width();
  std::int64_t i = blk.i0;
  std::int32_t corner = b.corner;
#if SWAT_BLOCK_AVX2
  if (striped_available()) {
    thread_local std::vector<std::uint8_t> skew;
    thread_local std::vector<std::int32_t> scores;
    if (codes) skew.resize(std::size_t(8 * (w + 9)));
    if (blk.i1 - i >= 7) scores.resize(std::size_t(8 * (w + 8)));
    for (; i + 7 <= blk.i1; i += 8) {
      const block_borders x = rows_from(b, i - blk.i0);
      if (codes)
        fill_strip8<true>(blk, i, query, target, scheme, forbidden, b.h, b.f, corner, x.left_h, x.left_e, x.right_h,
                          x.right_e, best, codes + (i - blk.i0) * w, skew.data(), scores.data());
      else
        fill_strip8<false>(blk, i, query, target, scheme, forbidden, b.h, b.f, corner, x.left_h, x.left_e,
                           x.right_h, x.right_e, best, nullptr, nullptr, scores.data());
      corner = b.left_h ? b.left_h[i - blk.i0 + 7] : 0;
    }
  }
#endif
  if (i <= blk.i1) {
    const block_borders x = rows_from(b, i - blk.i0);
    if (codes)
      fill_rows_scalar<true>(blk, i, blk.i1, query, target, scheme, forbidden, b.h, b.f, corner, x.left_h, x.left_e,
                             x.right_h, x.right_e, codes + (i - blk.i0) * w, best);
    else
      fill_rows_scalar<false>(blk, i, blk.i1, query, target, scheme, forbidden, b.h, b.f, corner, x.left_h,
                              x.left_e, x.right_h, x.right_e, nullptr, best);
  }
  return best;
}

std::uint64_t block_cells_filled() { return filled; }

}  // namespace swat::cpu
