#pragma once
// AVX2 pieces shared by the CPU engine's 8-row kernels (cpu_strip.cpp, cpu_block.cpp): lane k
// of a vector holds row r0 + k, skewed by k columns, so every dependency is a one-lane shift.
// Only for translation units compiled for x86-64 with GCC or Clang; every function carries the
// avx2 target attribute and runs only where striped_available() said yes.

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <cstdint>

#include "common/scoring_scheme.hpp"
#include "common/traceback.hpp"

#define SWAT_AVX2 __attribute__((target("avx2")))

namespace swat::cpu::avx2 {

using vec = __m256i;

//! v moved up one lane (lane k takes lane k-1), with first in lane 0.
SWAT_AVX2 inline vec shift_in(vec v, std::int32_t first) {
  const vec p = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6));
  return _mm256_blend_epi32(p, _mm256_set1_epi32(first), 1);
}

//! The substitution scores of an 8-row strip in its skewed order: for step s = 1 … w + 7, lane k
//! at scores[8s + k] scores q[k] against t[s - 1 - k] where 1 ≤ s - k ≤ w, else against rank 0
//! (a lane outside the strip's columns, whose cell is not kept). scores: 8 · (w + 8) entries.
//! One aligned load a step instead of a gather of eight matrix entries (a gather took ~30 cycles
//! on the GPU machine's Xeon, where the traceback fill ran at 0.4 GCUPS a thread).
inline void skewed_scores(const std::uint8_t* q, const std::uint8_t* t, std::int64_t w, const scoring_scheme& scheme,
                          std::int32_t* scores) {
  for (int k = 0; k < 8; ++k) {
    const std::int32_t* row = scheme.matrix.data() + std::size_t(q[k]) * matrix_stride;
    std::int32_t* out = scores + k;
    for (std::int64_t s = 1; s <= k; ++s) out[8 * s] = row[0];
    for (std::int64_t j = 0; j < w; ++j) out[8 * (j + 1 + k)] = row[t[j]];
    for (std::int64_t s = w + 1 + k; s <= w + 7; ++s) out[8 * s] = row[0];
  }
}

//! make_code (common/traceback.hpp) of eight cells, one per lane, packed into the low byte of
//! each lane and stored as 8 bytes at out (lane k at out[k]).
SWAT_AVX2 inline void store_codes(vec h, vec diag, vec e, vec e_open, vec e_ext, vec f_open, vec f_ext,
                                  std::uint8_t* out) {
  vec c = _mm256_blendv_epi8(_mm256_set1_epi32(code_f), _mm256_set1_epi32(code_e), _mm256_cmpeq_epi32(h, e));
  c = _mm256_blendv_epi8(c, _mm256_set1_epi32(code_diag), _mm256_cmpeq_epi32(h, diag));
  c = _mm256_andnot_si256(_mm256_cmpeq_epi32(h, _mm256_setzero_si256()), c);
  c = _mm256_or_si256(c, _mm256_andnot_si256(_mm256_cmpgt_epi32(e_ext, e_open), _mm256_set1_epi32(code_e_open)));
  c = _mm256_or_si256(c, _mm256_andnot_si256(_mm256_cmpgt_epi32(f_ext, f_open), _mm256_set1_epi32(code_f_open)));
  const vec bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                     0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const vec packed = _mm256_shuffle_epi8(c, bytes);
  const __m128i lo = _mm256_castsi256_si128(packed), hi = _mm256_extracti128_si256(packed, 1);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi32(lo, hi));
}

//! Rows of codes out of the skew buffer of a strip (step s, lane k at skew[8s + k]; lane k's
//! column 1 at step 1 + k): row k of width w at codes + k·stride.
inline void unskew_codes(const std::uint8_t* skew, std::int64_t w, std::uint8_t* codes, std::int64_t stride) {
  for (int k = 0; k < 8; ++k) {
    std::uint8_t* row = codes + k * stride;
    const std::uint8_t* src = skew + 8 * (1 + k) + k;
    for (std::int64_t j = 0; j < w; ++j) row[j] = src[j * 8];
  }
}

}  // namespace swat::cpu::avx2

#endif
