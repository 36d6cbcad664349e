#pragma once
// The unsigned 8-bit vector operations of the CPU engine's lane kernels (cpu_interseq.cpp,
// cpu_bands.cpp): 32 lanes in AVX2, 64 in AVX-512BW; and unsigned 16-bit ones for the bands
// (16 and 32 lanes). `elem` is the lane's type; make_table lays out the 32-entry table that
// lookup32(lo, hi, idx) reads (lo at table, hi one vector after it). Each struct is compiled for its target
// (GCC pragmas); a kernel template over them is instantiated inside a function that carries the
// same target and `flatten`, which inlines the template and these operations there. Only for
// x86-64 with GCC (SWAT_SIMD8); the caller checks the CPU at run time.

// Not with Clang: it ignores the target pragma, and its instantiations of the kernel templates
// (outside a function of that target) would need the vectors' ABI (the fuzz build of CI compiles
// with Clang; its engine falls back to the striped passes).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
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
  using elem = std::uint8_t;
  //! The two 16-entry halves, each repeated in both 128-bit parts.
  static void make_table(const std::uint8_t* entries, elem* table) {
    for (int x = 0; x < 2 * lanes; ++x) table[x] = entries[(x / lanes) * 16 + x % 16];
  }
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
  using elem = std::uint8_t;
  //! The two 16-entry halves, each repeated in all four 128-bit parts.
  static void make_table(const std::uint8_t* entries, elem* table) {
    for (int x = 0; x < 2 * lanes; ++x) table[x] = entries[(x / lanes) * 16 + x % 16];
  }
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

#pragma GCC push_options
#pragma GCC target("avx2")
//! 16 unsigned 16-bit lanes in AVX2.
struct avx2_ops16 {
  static constexpr int lanes = 16;
  using vec = __m256i;
  using elem = std::uint16_t;
  //! Byte tables as for 8 bits (entries ≤ 255), read by the low byte of each index.
  static void make_table(const std::uint8_t* entries, elem* table) {
    auto* bytes = reinterpret_cast<std::uint8_t*>(table);
    for (int x = 0; x < 64; ++x) bytes[x] = entries[(x / 32) * 16 + x % 16];
  }
  static vec load(const elem* p) { return _mm256_loadu_si256(reinterpret_cast<const vec*>(p)); }
  static void store(elem* p, vec v) { _mm256_storeu_si256(reinterpret_cast<vec*>(p), v); }
  static vec set1(elem x) { return _mm256_set1_epi16(std::int16_t(x)); }
  static vec zero() { return _mm256_setzero_si256(); }
  static vec adds(vec a, vec b) { return _mm256_adds_epu16(a, b); }
  static vec subs(vec a, vec b) { return _mm256_subs_epu16(a, b); }
  static vec max(vec a, vec b) { return _mm256_max_epu16(a, b); }
  static vec bit_and(vec a, vec b) { return _mm256_and_si256(a, b); }
  static vec add(vec a, vec b) { return _mm256_add_epi16(a, b); }
  //! One bit per lane from the byte mask of a 16-bit comparison.
  static std::uint64_t lanes_of(vec cmp) {
    const std::uint32_t bytes = std::uint32_t(_mm256_movemask_epi8(cmp));
    std::uint64_t bits = 0;
    for (int k = 0; k < lanes; ++k) bits |= std::uint64_t(bytes >> (2 * k) & 1) << k;
    return bits;
  }
  static std::uint64_t eq(vec a, vec b) { return lanes_of(_mm256_cmpeq_epi16(a, b)); }
  static std::uint64_t gt(vec a, vec b) { return ~eq(_mm256_max_epu16(a, b), b) & 0xffffull; }
  //! table[idx] per lane: the low byte indexes the byte tables, the high byte (0x80) reads 0.
  static vec lookup32(vec lo, vec hi, vec idx) {
    const vec i = _mm256_or_si256(idx, _mm256_set1_epi16(std::int16_t(0x8000)));
    return _mm256_blendv_epi8(_mm256_shuffle_epi8(lo, i), _mm256_shuffle_epi8(hi, i), _mm256_slli_epi16(idx, 3));
  }
  static vec shift_in(vec v, elem first) {
    const vec low_up = _mm256_permute2x128_si256(v, v, 0x08);
    return _mm256_insert_epi16(_mm256_alignr_epi8(v, low_up, 14), std::int16_t(first), 0);
  }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512bw")
//! 32 unsigned 16-bit lanes in AVX-512BW.
struct avx512_ops16 {
  static constexpr int lanes = 32;
  using vec = __m512i;
  using elem = std::uint16_t;
  //! All 32 entries in one vector (lo); hi unused.
  static void make_table(const std::uint8_t* entries, elem* table) {
    for (int x = 0; x < 2 * lanes; ++x) table[x] = x < 32 ? entries[x] : 0;
  }
  static vec load(const elem* p) { return _mm512_loadu_si512(p); }
  static void store(elem* p, vec v) { _mm512_storeu_si512(p, v); }
  static vec set1(elem x) { return _mm512_set1_epi16(std::int16_t(x)); }
  static vec zero() { return _mm512_setzero_si512(); }
  static vec adds(vec a, vec b) { return _mm512_adds_epu16(a, b); }
  static vec subs(vec a, vec b) { return _mm512_subs_epu16(a, b); }
  static vec max(vec a, vec b) { return _mm512_max_epu16(a, b); }
  static vec bit_and(vec a, vec b) { return _mm512_and_si512(a, b); }
  static vec add(vec a, vec b) { return _mm512_add_epi16(a, b); }
  static std::uint64_t eq(vec a, vec b) { return _mm512_cmpeq_epu16_mask(a, b); }
  static std::uint64_t gt(vec a, vec b) { return _mm512_cmpgt_epu16_mask(a, b); }
  static vec lookup32(vec lo, vec, vec idx) { return _mm512_permutexvar_epi16(idx, lo); }
  static vec shift_in(vec v, elem first) {
    const vec up = _mm512_maskz_shuffle_i64x2(0xFC, v, v, _MM_SHUFFLE(2, 1, 0, 0));
    return _mm512_mask_set1_epi16(_mm512_alignr_epi8(v, up, 14), 1, std::int16_t(first));
  }
};
#pragma GCC pop_options

}  // namespace swat::cpu::simd8

#endif
