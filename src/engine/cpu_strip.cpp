// Row fill of the traceback, 8 rows at a time: lane k of an AVX2 vector computes row r0 + k,
// skewed by k columns (anti-diagonal within the strip), so the lanes are independent chains and
// every dependency is a one-lane shift: H(i-1,j) and F(i-1,j) come from lane k-1 one step
// earlier, H(i-1,j-1) two steps earlier, H(i,j-1) and E(i,j-1) from the lane itself.
// Values and codes are those of fill_row (Gotoh 1982, make_code of common/traceback.hpp).

#include <vector>

#include "engine/cpu_kernels.hpp"

#include "engine/cpu_avx2.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define SWAT_STRIP 1
#endif

namespace swat::cpu {

#if SWAT_STRIP
namespace {

using avx2::shift_in;
using avx2::vec;

//! Rows q[0..8) on top of h/f (row above, columns 0..w), in place; codes of row k at
//! codes + k·stride when codes != nullptr (skew: scratch of 8·(w + 8) bytes; scores: 8·(w + 8)
//! entries for avx2::skewed_scores).
SWAT_AVX2 void fill_strip8(const std::uint8_t* q, const std::uint8_t* target, std::int64_t w,
                           const scoring_scheme& scheme, std::int32_t* h, std::int32_t* f, std::uint8_t* codes,
                           std::int64_t stride, std::uint8_t* skew, std::int32_t* scores) {
  avx2::skewed_scores(q, target, w, scheme, scores);
  const std::int32_t open = scheme.gap_open + scheme.gap_extend, ext = scheme.gap_extend;
  const vec v_open = _mm256_set1_epi32(open), v_ext = _mm256_set1_epi32(ext);
  const vec zero = _mm256_setzero_si256(), neg = _mm256_set1_epi32(minus_infinity);
  const vec lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  vec hc = zero, ec = neg, fc = neg;
  vec up_prev = _mm256_set1_epi32(h[0]);  // lane 0: H(r0, 0); other lanes: warm-up zeros
  up_prev = _mm256_blend_epi32(zero, up_prev, 1);
  for (std::int64_t t = 1; t <= w + 7; ++t) {
    const bool in = t <= w;
    const vec up = shift_in(hc, in ? h[t] : 0);
    const vec fup = shift_in(fc, in ? f[t] : minus_infinity);
    const vec sc = _mm256_loadu_si256(reinterpret_cast<const vec*>(scores + 8 * t));
    const vec e_open = _mm256_sub_epi32(hc, v_open), e_ext = _mm256_sub_epi32(ec, v_ext);
    const vec f_open = _mm256_sub_epi32(up, v_open), f_ext = _mm256_sub_epi32(fup, v_ext);
    const vec e = _mm256_max_epi32(e_open, e_ext), fv = _mm256_max_epi32(f_open, f_ext);
    const vec d = _mm256_add_epi32(up_prev, sc);
    vec hv = _mm256_max_epi32(_mm256_max_epi32(d, e), _mm256_max_epi32(fv, zero));
    // Lanes outside 1 ≤ j ≤ w hold the column-0 border: H = 0, E = -inf.
    const vec j = _mm256_sub_epi32(_mm256_set1_epi32(std::int32_t(t)), lane);
    const vec active = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(1), j),
                                           _mm256_cmpgt_epi32(_mm256_set1_epi32(std::int32_t(w + 1)), j));
    hv = _mm256_and_si256(hv, active);
    ec = _mm256_blendv_epi8(neg, e, active);
    if (codes) avx2::store_codes(hv, d, e, e_open, e_ext, f_open, f_ext, skew + t * 8);
    if (t > 7) {
      h[t - 7] = _mm256_extract_epi32(hv, 7);
      f[t - 7] = _mm256_extract_epi32(fv, 7);
    }
    hc = hv;
    fc = fv;
    up_prev = up;
  }
  h[0] = 0;
  if (codes) avx2::unskew_codes(skew, w, codes, stride);
}

}  // namespace

void fill_rows(const std::uint8_t* q, std::int64_t rows, const std::uint8_t* target, std::int64_t w,
               const scoring_scheme& scheme, std::int32_t* h, std::int32_t* f, std::uint8_t* codes,
               std::int64_t stride) {
  std::int64_t r = 0;
  if (striped_available() && w > 0 && rows >= 8) {
    thread_local std::vector<std::uint8_t> skew;
    thread_local std::vector<std::int32_t> scores;
    if (codes) skew.resize(std::size_t(8 * (w + 9)));
    scores.resize(std::size_t(8 * (w + 8)));
    for (; r + 8 <= rows; r += 8)
      fill_strip8(q + r, target, w, scheme, h, f, codes ? codes + r * stride : nullptr, stride, skew.data(),
                  scores.data());
  }
  for (; r < rows; ++r) fill_row(q[r], target, w, scheme, h, f, codes ? codes + r * stride : nullptr);
}

#else

void fill_rows(const std::uint8_t* q, std::int64_t rows, const std::uint8_t* target, std::int64_t w,
               const scoring_scheme& scheme, std::int32_t* h, std::int32_t* f, std::uint8_t* codes,
               std::int64_t stride) {
  for (std::int64_t r = 0; r < rows; ++r)
    fill_row(q[r], target, w, scheme, h, f, codes ? codes + r * stride : nullptr);
}

#endif

}  // namespace swat::cpu
