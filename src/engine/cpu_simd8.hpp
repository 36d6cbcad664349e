#pragma once
// The unsigned 8-bit vector operations of the CPU engine's lane kernels (cpu_interseq.cpp,
// cpu_bands.cpp): 32 lanes in AVX2, 64 in AVX-512BW. Each struct is compiled for its target
// (GCC pragmas); a kernel template over them is instantiated inside a function that carries the
// same target and `flatten`, which inlines the template and these operations there. Only for
// x86-64 with GCC or Clang (SWAT_SIMD8); the caller checks the CPU at run time.

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <cstdint>

#define SWAT_SIMD8 1
// The kernel templates pass vectors between functions that all carry the same target.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace swat::cpu::simd8 {

#pragma GCC push_options
#pragma GCC target("avx2")
//! 32 unsigned 8-bit lanes in AVX2.
struct avx2_ops {
  static constexpr int lanes = 32;
  using vec = __m256i;
  static vec load(const std::uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const vec*>(p)); }
  static void store(std::uint8_t* p, vec v) { _mm256_storeu_si256(reinterpret_cast<vec*>(p), v); }
  static vec set1(std::uint8_t x) { return _mm256_set1_epi8(char(x)); }
  static vec zero() { return _mm256_setzero_si256(); }
  static vec adds(vec a, vec b) { return _mm256_adds_epu8(a, b); }
  static vec subs(vec a, vec b) { return _mm256_subs_epu8(a, b); }
  static vec max(vec a, vec b) { return _mm256_max_epu8(a, b); }
  static vec bit_and(vec a, vec b) { return _mm256_and_si256(a, b); }
  static std::uint64_t eq(vec a, vec b) { return std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b))); }
  //! Lanes where a > b (unsigned): max(a, b) differs from b.
  static std::uint64_t gt(vec a, vec b) { return ~eq(_mm256_max_epu8(a, b), b) & 0xffffffffull; }
  //! table[idx] per lane for idx < 32, the table given as its two 16-byte halves broadcast.
  static vec lookup32(vec lo, vec hi, vec idx) {
    return _mm256_blendv_epi8(_mm256_shuffle_epi8(lo, idx), _mm256_shuffle_epi8(hi, idx), _mm256_slli_epi16(idx, 3));
  }
  static vec lookup16(vec lo, vec idx) { return _mm256_shuffle_epi8(lo, idx); }
  static vec add(vec a, vec b) { return _mm256_add_epi8(a, b); }
  //! Lanes moved up by one (lane k takes lane k-1), first in lane 0.
  static vec shift_in(vec v, std::uint8_t first) {
    const vec low_up = _mm256_permute2x128_si256(v, v, 0x08);  // [0, low half of v]
    return _mm256_insert_epi8(_mm256_alignr_epi8(v, low_up, 15), char(first), 0);
  }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512bw")
//! 64 unsigned 8-bit lanes in AVX-512BW.
struct avx512_ops {
  static constexpr int lanes = 64;
  using vec = __m512i;
  static vec load(const std::uint8_t* p) { return _mm512_loadu_si512(p); }
  static void store(std::uint8_t* p, vec v) { _mm512_storeu_si512(p, v); }
  static vec set1(std::uint8_t x) { return _mm512_set1_epi8(char(x)); }
  static vec zero() { return _mm512_setzero_si512(); }
  static vec adds(vec a, vec b) { return _mm512_adds_epu8(a, b); }
  static vec subs(vec a, vec b) { return _mm512_subs_epu8(a, b); }
  static vec max(vec a, vec b) { return _mm512_max_epu8(a, b); }
  static vec bit_and(vec a, vec b) { return _mm512_and_si512(a, b); }
  static std::uint64_t eq(vec a, vec b) { return _mm512_cmpeq_epi8_mask(a, b); }
  static std::uint64_t gt(vec a, vec b) { return _mm512_cmpgt_epu8_mask(a, b); }
  static vec lookup32(vec lo, vec hi, vec idx) {
    return _mm512_mask_blend_epi8(_mm512_test_epi8_mask(idx, _mm512_set1_epi8(16)), _mm512_shuffle_epi8(lo, idx),
                                  _mm512_shuffle_epi8(hi, idx));
  }
  static vec lookup16(vec lo, vec idx) { return _mm512_shuffle_epi8(lo, idx); }
  static vec add(vec a, vec b) { return _mm512_add_epi8(a, b); }
  static vec shift_in(vec v, std::uint8_t first) {
    const vec up = _mm512_maskz_shuffle_i64x2(0xFC, v, v, _MM_SHUFFLE(2, 1, 0, 0));  // [0, v0, v1, v2] in 128-bit parts
    return _mm512_mask_set1_epi8(_mm512_alignr_epi8(v, up, 15), 1, char(first));
  }
};
#pragma GCC pop_options

}  // namespace swat::cpu::simd8

#endif
