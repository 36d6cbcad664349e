// The striped score pass of cpu_striped.cpp with 16 int16 lanes (twice the cells per
// instruction) for score-only passes whose query is one band (at most cache_band_rows rows).
// The recurrences, the single lazy-F correction sweep and the best-cell rule are those of the
// 32-bit kernel without origins (its file comment has the proofs). Arithmetic saturates: E and F
// stop at -32768 (-infinity), and H stays exact while every H of the matrix is below
// limit = 32767 - max score (then no diagonal sum can saturate). A column whose maximum reaches
// the limit ends the pass with false: the caller runs the 32-bit pass.

#include <algorithm>
#include <vector>

#include "engine/cpu_kernels.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SWAT_STRIPED16 1
#define SWAT_AVX2 __attribute__((target("avx2")))
#endif

namespace swat::cpu {

#if SWAT_STRIPED16
namespace {

constexpr int lanes = 16;
using vec = __m256i;

SWAT_AVX2 inline vec load(const std::int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const vec*>(p)); }
SWAT_AVX2 inline void store(std::int16_t* p, vec v) { _mm256_storeu_si256(reinterpret_cast<vec*>(p), v); }
SWAT_AVX2 inline vec pick(vec no, vec yes, vec mask) { return _mm256_blendv_epi8(no, yes, mask); }
//! Lanes moved up by one: result[0] = first, result[k] = v[k-1].
SWAT_AVX2 inline vec shift_in(vec v, std::int16_t first) {
  const vec low_up = _mm256_permute2x128_si256(v, v, 0x08);  // [0, low half of v]
  return _mm256_insert_epi16(_mm256_alignr_epi8(v, low_up, 14), first, 0);
}
SWAT_AVX2 inline std::int16_t hmax(vec v) {
  __m128i x = _mm_max_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  x = _mm_max_epi16(x, _mm_shuffle_epi32(x, 0x4E));
  x = _mm_max_epi16(x, _mm_shuffle_epi32(x, 0xB1));
  x = _mm_max_epi16(x, _mm_shufflelo_epi16(x, 0xB1));
  return std::int16_t(_mm_extract_epi16(x, 0));
}

//! The pass; false when a column reached the limit. Progress goes out as the columns are done
//! only when no score can reach the limit (min(m, n) · max score below it); otherwise once, at
//! the end, so that a pass given up is not counted twice.
SWAT_AVX2 bool striped16_kernel(residue_span query, residue_span target, const scoring_scheme& scheme, int ranks,
                                const progress_fn* progress_in, pass_result& out) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  const std::int64_t seg = (m + lanes - 1) / lanes, cells = seg * lanes, last = (seg - 1) * lanes;
  const std::int32_t open = scheme.gap_open + scheme.gap_extend, ext = scheme.gap_extend;
  const std::int16_t limit = std::int16_t(32767 - std::max(scheme.max_score(), 0));
  constexpr std::int16_t neg_inf = -32768;
  const bool safe = double(std::min(m, n)) * double(std::max(scheme.max_score(), 0)) < double(limit);
  const progress_fn* progress = safe ? progress_in : nullptr;
  // h, e, f, valid, then the profile rows, one block.
  std::vector<std::int16_t> block(std::size_t((4 + ranks) * cells));
  std::int16_t *H = block.data(), *E = H + cells, *F = E + cells, *valid = F + cells, *profile = valid + cells;
  std::fill_n(E, cells, std::int16_t(-open));  // E(i,1) = H(i,0) - o - e
  std::fill_n(F, cells, neg_inf);
  for (std::int64_t s = 0; s < seg; ++s)
    for (int k = 0; k < lanes; ++k) {
      const std::int64_t r = k * seg + s + 1, x = s * lanes + k;
      if (r > m) continue;
      valid[x] = -1;
      for (int b = 0; b < ranks; ++b)
        profile[b * cells + x] = std::int16_t(scheme.score(query[std::size_t(r - 1)], std::uint8_t(b)));
    }
  const vec v_open = _mm256_set1_epi16(std::int16_t(open)), v_ext = _mm256_set1_epi16(std::int16_t(ext));
  const vec zero = _mm256_setzero_si256(), neg = _mm256_set1_epi16(neg_inf), one = _mm256_set1_epi16(1);
  const std::int32_t seg_ext = std::int32_t(std::min<std::int64_t>(seg * ext, 65536));
  out = {};
  std::uint64_t pending = 0;
  for (std::int64_t j = 1; j <= n; ++j) {
    const std::int16_t* P = profile + std::size_t(target[std::size_t(j - 1)]) * std::size_t(cells);
    vec vmax = zero, vpos = zero, vs = zero;  // per lane: maximum and its first segment
    vec d = shift_in(load(H + last), 0);      // lane 0's diagonal: H(0, j-1) = 0
    vec f = neg;
    for (std::int64_t s = 0; s < seg; ++s) {
      const std::int64_t x = s * lanes;
      const vec h_old = load(H + x);
      const vec e = load(E + x);
      const vec h = _mm256_max_epi16(_mm256_max_epi16(_mm256_adds_epi16(d, load(P + x)), e), _mm256_max_epi16(f, zero));
      store(H + x, h);
      store(F + x, f);
      const vec hv = _mm256_and_si256(h, load(valid + x));
      vpos = pick(vpos, vs, _mm256_cmpgt_epi16(hv, vmax));
      vmax = _mm256_max_epi16(vmax, hv);
      vs = _mm256_add_epi16(vs, one);
      const vec h_open = _mm256_subs_epi16(h, v_open);
      store(E + x, _mm256_max_epi16(h_open, _mm256_subs_epi16(e, v_ext)));
      f = _mm256_max_epi16(h_open, _mm256_subs_epi16(f, v_ext));
      d = h_old;
    }
    // F entering each lane at segment 0: C(0) = F(1,j) = -o-e, C(k) = max(X(k-1), C(k-1) - seg·e).
    alignas(32) std::int16_t xv[lanes], cv[lanes];
    _mm256_store_si256(reinterpret_cast<vec*>(xv), f);
    cv[0] = std::int16_t(std::max(-open, std::int32_t(neg_inf)));
    for (int k = 1; k < lanes; ++k)
      cv[k] = std::int16_t(std::max({std::int32_t(xv[k - 1]), std::int32_t(cv[k - 1]) - seg_ext, std::int32_t(neg_inf)}));
    vec cand = _mm256_load_si256(reinterpret_cast<const vec*>(cv));
    for (std::int64_t s = 0; s < seg; ++s) {
      const std::int64_t x = s * lanes;
      vec fs = load(F + x);
      const vec upd = _mm256_cmpgt_epi16(cand, fs);
      if (!_mm256_movemask_epi8(upd)) break;
      fs = pick(fs, cand, upd);
      store(F + x, fs);
      vec h = load(H + x);
      const vec h_upd = _mm256_cmpgt_epi16(fs, h);
      h = pick(h, fs, h_upd);
      store(H + x, h);
      const vec hv = _mm256_and_si256(h, load(valid + x)), vs_here = _mm256_set1_epi16(std::int16_t(s));
      const vec earlier = _mm256_and_si256(_mm256_cmpeq_epi16(hv, vmax), _mm256_cmpgt_epi16(vpos, vs_here));
      vpos = pick(vpos, vs_here, _mm256_or_si256(_mm256_cmpgt_epi16(hv, vmax), earlier));
      vmax = _mm256_max_epi16(vmax, hv);
      const vec h_open = _mm256_subs_epi16(h, v_open);
      const vec en = load(E + x);
      store(E + x, pick(en, h_open, _mm256_andnot_si256(_mm256_cmpgt_epi16(en, h_open), h_upd)));
      cand = _mm256_subs_epi16(cand, v_ext);
    }
    const std::int16_t col_max = hmax(vmax);
    if (col_max >= limit) return false;  // a sum could have saturated: 32 bits
    if (col_max > out.best.score) {
      // Smallest row holding col_max: the lowest lane reaching it, at that lane's first segment.
      const int k = __builtin_ctz(unsigned(_mm256_movemask_epi8(_mm256_cmpeq_epi16(vmax, _mm256_set1_epi16(col_max))))) / 2;
      alignas(32) std::int16_t pos[lanes];
      _mm256_store_si256(reinterpret_cast<vec*>(pos), vpos);
      out.best = {col_max, k * seg + pos[k] + 1, j};
    }
    pending += std::uint64_t(m);
    if (progress && *progress && pending >= progress_chunk_cells) {
      (*progress)(pending);
      pending = 0;
    }
  }
  if (progress && *progress && pending) (*progress)(pending);
  if (!safe && progress_in && *progress_in) (*progress_in)(std::uint64_t(m) * std::uint64_t(n));
  return true;
}

}  // namespace

bool score_pass_striped16(residue_span query, residue_span target, const scoring_scheme& scheme,
                          const progress_fn* progress, pass_result& out) {
  const std::int64_t m = std::int64_t(query.size());
  if (!striped_available() || m == 0 || target.empty() || m > cache_band_rows) return false;
  const std::int32_t open = scheme.gap_open + scheme.gap_extend;
  if (open > 16384 || scheme.gap_extend > 16384 || scheme.max_score() > 16384 || scheme.min_score() < -16384)
    return false;
  int ranks = scheme.size();
  for (std::uint8_t r : target) ranks = std::max(ranks, int(r) + 1);
  return striped16_kernel(query, target, scheme, ranks, progress, out);
}

#else

bool score_pass_striped16(residue_span, residue_span, const scoring_scheme&, const progress_fn*, pass_result&) {
  return false;
}

#endif

}  // namespace swat::cpu
