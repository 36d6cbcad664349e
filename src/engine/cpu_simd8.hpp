#pragma once
// The unsigned 8-bit vector operations of the CPU engine's lane kernels (cpu_interseq.cpp,
// cpu_bands.cpp): 32 lanes in AVX2, 64 in AVX-512BW; and unsigned 16-bit ones for the bands
// (16 and 32 lanes, and twice as many in two vectors: ops_pair), and 32-bit ones for their
// stretches past 16 bits (four vectors). `elem` is the lane's type;
// make_table lays out the 32-entry table that lookup32(lo, hi, idx) reads (lo at table, hi one
// vector after it). Each struct is compiled for its target (GCC pragmas); a kernel template over
// them is instantiated inside a function that carries the same target and `flatten`, which
// inlines the template and these operations there. Only for x86-64 with GCC (SWAT_SIMD8); the
// caller checks the CPU at run time.

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
  //! Signed saturating forms (the offset lanes of cpu_interseq.cpp: a value v held as v − 128).
  static vec adds_signed(vec a, vec b) { return _mm256_adds_epi8(a, b); }
  static vec subs_signed(vec a, vec b) { return _mm256_subs_epi8(a, b); }
  static vec max_signed(vec a, vec b) { return _mm256_max_epi8(a, b); }
  static vec bit_xor(vec a, vec b) { return _mm256_xor_si256(a, b); }
  //! Lanes moved up by one (lane k takes lane k-1), first in lane 0.
  static vec shift_in(vec v, std::uint8_t first) {
    const vec low_up = _mm256_permute2x128_si256(v, v, 0x08);  // [0, low half of v]
    return _mm256_insert_epi8(_mm256_alignr_epi8(v, low_up, 15), char(first), 0);
  }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512bw")
//! What the AVX-512 lanes of every width share: loads, stores and masks.
template <class E>
struct avx512_lanes {
  using vec = __m512i;
  using elem = E;
  static vec load(const elem* p) { return _mm512_loadu_si512(p); }
  static void store(elem* p, vec v) { _mm512_storeu_si512(p, v); }
  static vec zero() { return _mm512_setzero_si512(); }
  static vec bit_and(vec a, vec b) { return _mm512_and_si512(a, b); }
};

//! 64 unsigned 8-bit lanes in AVX-512BW.
struct avx512_ops : avx512_lanes<std::uint8_t> {
  static constexpr int lanes = 64;
  //! The two 16-entry halves, each repeated in all four 128-bit parts.
  static void make_table(const std::uint8_t* entries, elem* table) {
    for (int x = 0; x < 2 * lanes; ++x) table[x] = entries[(x / lanes) * 16 + x % 16];
  }
  static vec set1(std::uint8_t x) { return _mm512_set1_epi8(char(x)); }
  static vec adds(vec a, vec b) { return _mm512_adds_epu8(a, b); }
  static vec subs(vec a, vec b) { return _mm512_subs_epu8(a, b); }
  static vec max(vec a, vec b) { return _mm512_max_epu8(a, b); }
  static std::uint64_t eq(vec a, vec b) { return _mm512_cmpeq_epi8_mask(a, b); }
  static std::uint64_t gt(vec a, vec b) { return _mm512_cmpgt_epu8_mask(a, b); }
  static vec lookup32(vec lo, vec hi, vec idx) {
    return _mm512_mask_blend_epi8(_mm512_test_epi8_mask(idx, _mm512_set1_epi8(16)), _mm512_shuffle_epi8(lo, idx),
                                  _mm512_shuffle_epi8(hi, idx));
  }
  static vec lookup16(vec lo, vec idx) { return _mm512_shuffle_epi8(lo, idx); }
  static vec add(vec a, vec b) { return _mm512_add_epi8(a, b); }
  static vec adds_signed(vec a, vec b) { return _mm512_adds_epi8(a, b); }
  static vec subs_signed(vec a, vec b) { return _mm512_subs_epi8(a, b); }
  static vec max_signed(vec a, vec b) { return _mm512_max_epi8(a, b); }
  static vec bit_xor(vec a, vec b) { return _mm512_xor_si512(a, b); }
  static vec shift_in(vec v, std::uint8_t first) {
    const vec up = _mm512_maskz_shuffle_i64x2(0xFC, v, v, _MM_SHUFFLE(2, 1, 0, 0));  // [0, v0, v1, v2] in 128-bit parts
    return _mm512_mask_set1_epi8(_mm512_alignr_epi8(v, up, 15), 1, char(first));
  }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512bw,avx512vbmi")
//! 64 unsigned 8-bit lanes in AVX-512BW whose table lookups are one byte permute (AVX512_VBMI:
//! vpermb) instead of two shuffles and a blend.
struct avx512vbmi_ops : avx512_ops {
  //! All 32 entries in one vector (lo); the rest 0.
  static void make_table(const std::uint8_t* entries, elem* table) {
    for (int x = 0; x < 2 * lanes; ++x) table[x] = x < 32 ? entries[x] : 0;
  }
  static vec lookup32(vec lo, vec, vec idx) { return _mm512_maskz_permutexvar_epi8(~std::uint64_t(0), idx, lo); }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2")
//! What the AVX2 lanes wider than 8 bits share: loads, stores, masks, and byte tables as for 8
//! bits (entries ≤ 255), read by the low byte of each lane's index.
template <class E>
struct avx2_wide {
  using vec = __m256i;
  using elem = E;
  static void make_table(const std::uint8_t* entries, elem* table) {
    auto* bytes = reinterpret_cast<std::uint8_t*>(table);
    for (int x = 0; x < 64; ++x) bytes[x] = entries[(x / 32) * 16 + x % 16];
  }
  static vec load(const elem* p) { return _mm256_loadu_si256(reinterpret_cast<const vec*>(p)); }
  static void store(elem* p, vec v) { _mm256_storeu_si256(reinterpret_cast<vec*>(p), v); }
  static vec zero() { return _mm256_setzero_si256(); }
  static vec bit_and(vec a, vec b) { return _mm256_and_si256(a, b); }
};

//! 16 unsigned 16-bit lanes in AVX2.
struct avx2_ops16 : avx2_wide<std::uint16_t> {
  static constexpr int lanes = 16;
  static vec set1(elem x) { return _mm256_set1_epi16(std::int16_t(x)); }
  static vec adds(vec a, vec b) { return _mm256_adds_epu16(a, b); }
  static vec subs(vec a, vec b) { return _mm256_subs_epu16(a, b); }
  static vec max(vec a, vec b) { return _mm256_max_epu16(a, b); }
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
  //! hi's lanes moved up by one, lo's last lane first (the upper half of a two-vector shift_in).
  static vec shift_across(vec lo, vec hi) { return _mm256_alignr_epi8(hi, _mm256_permute2x128_si256(lo, hi, 0x21), 14); }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512bw")
//! 32 unsigned 16-bit lanes in AVX-512BW.
struct avx512_ops16 : avx512_lanes<std::uint16_t> {
  static constexpr int lanes = 32;
  //! All 32 entries in one vector (lo); hi unused.
  static void make_table(const std::uint8_t* entries, elem* table) {
    for (int x = 0; x < 2 * lanes; ++x) table[x] = x < 32 ? entries[x] : 0;
  }
  static vec set1(elem x) { return _mm512_set1_epi16(std::int16_t(x)); }
  static vec adds(vec a, vec b) { return _mm512_adds_epu16(a, b); }
  static vec subs(vec a, vec b) { return _mm512_subs_epu16(a, b); }
  static vec max(vec a, vec b) { return _mm512_max_epu16(a, b); }
  static vec add(vec a, vec b) { return _mm512_add_epi16(a, b); }
  static std::uint64_t eq(vec a, vec b) { return _mm512_cmpeq_epu16_mask(a, b); }
  static std::uint64_t gt(vec a, vec b) { return _mm512_cmpgt_epu16_mask(a, b); }
  static vec lookup32(vec lo, vec, vec idx) { return _mm512_permutexvar_epi16(idx, lo); }
  static vec shift_in(vec v, elem first) {
    const vec up = _mm512_maskz_shuffle_i64x2(0xFC, v, v, _MM_SHUFFLE(2, 1, 0, 0));
    return _mm512_mask_set1_epi16(_mm512_alignr_epi8(v, up, 14), 1, std::int16_t(first));
  }
  static vec shift_across(vec lo, vec hi) {
    const vec from = _mm512_set_epi16(62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
                                      41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31);  // lo[31], hi[0..30]
    return _mm512_permutex2var_epi16(lo, from, hi);
  }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2")
//! 8 32-bit lanes in AVX2, for the bands' stretches past 16 bits: the same operations on values
//! that never reach 2^31 (cpu_bands.hpp bounds the rows), so adds is a plain add and subs a
//! subtraction floored at 0.
struct avx2_ops32 : avx2_wide<std::uint32_t> {
  static constexpr int lanes = 8;
  static vec set1(elem x) { return _mm256_set1_epi32(std::int32_t(x)); }
  static vec adds(vec a, vec b) { return _mm256_add_epi32(a, b); }
  static vec subs(vec a, vec b) { return _mm256_max_epi32(_mm256_sub_epi32(a, b), _mm256_setzero_si256()); }
  static vec max(vec a, vec b) { return _mm256_max_epi32(a, b); }
  static vec add(vec a, vec b) { return _mm256_add_epi32(a, b); }
  static std::uint64_t gt(vec a, vec b) {
    return std::uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b))));
  }
  //! table[idx] per lane: the low byte indexes the byte tables, the others (0x80) read 0.
  static vec lookup32(vec lo, vec hi, vec idx) {
    const vec i = _mm256_or_si256(idx, _mm256_set1_epi32(std::int32_t(0x80808000u)));
    return _mm256_blendv_epi8(_mm256_shuffle_epi8(lo, i), _mm256_shuffle_epi8(hi, i), _mm256_slli_epi32(idx, 3));
  }
  static vec rotate_up(vec v) { return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6)); }
  static vec shift_in(vec v, elem first) { return _mm256_blend_epi32(rotate_up(v), set1(first), 1); }
  static vec shift_across(vec lo, vec hi) { return _mm256_blend_epi32(rotate_up(hi), rotate_up(lo), 1); }
};
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512bw")
//! 16 32-bit lanes in AVX-512 (as avx2_ops32).
struct avx512_ops32 : avx512_lanes<std::uint32_t> {
  static constexpr int lanes = 16;
  //! The 32 entries in two vectors (lo, hi), read by a two-vector permute.
  static void make_table(const std::uint8_t* entries, elem* table) {
    for (int x = 0; x < 2 * lanes; ++x) table[x] = entries[x];
  }
  static vec set1(elem x) { return _mm512_set1_epi32(std::int32_t(x)); }
  static vec adds(vec a, vec b) { return _mm512_add_epi32(a, b); }
  static vec subs(vec a, vec b) { return _mm512_maskz_max_epi32(0xFFFF, _mm512_sub_epi32(a, b), _mm512_setzero_si512()); }
  static vec max(vec a, vec b) { return _mm512_maskz_max_epi32(0xFFFF, a, b); }
  static vec add(vec a, vec b) { return _mm512_add_epi32(a, b); }
  static std::uint64_t gt(vec a, vec b) { return _mm512_cmpgt_epi32_mask(a, b); }
  static vec lookup32(vec lo, vec hi, vec idx) { return _mm512_permutex2var_epi32(lo, idx, hi); }
  static vec shift_in(vec v, elem first) { return _mm512_maskz_alignr_epi32(0xFFFF, v, set1(first), 15); }
  static vec shift_across(vec lo, vec hi) { return _mm512_maskz_alignr_epi32(0xFFFF, hi, lo, 15); }
};
#pragma GCC pop_options

//! Two vectors of `half` as one of twice its lanes: as many 16- or 32-bit lanes (pairs of
//! pairs) as the 8-bit vector has, so that the row bands keep their geometry when they widen
//! (cpu_bands.cpp). Lanes [0, half::lanes) are in a, the rest in b. Its members are inlined into
//! the kernel's target function (flatten), as the kernel templates are.
template <class half>
struct ops_pair {
  static constexpr int lanes = 2 * half::lanes;
  using elem = typename half::elem;
  struct vec {
    typename half::vec a, b;
  };
  //! half's table, each of its two vectors repeated: lo = [lo, lo] at table, hi = [hi, hi] after.
  static void make_table(const std::uint8_t* entries, elem* table) {
    constexpr int h = half::lanes;
    elem one[2 * h];
    half::make_table(entries, one);
    for (int x = 0; x < h; ++x) {
      table[x] = table[h + x] = one[x];
      table[2 * h + x] = table[3 * h + x] = one[h + x];
    }
  }
  static vec load(const elem* p) { return {half::load(p), half::load(p + half::lanes)}; }
  static void store(elem* p, vec v) {
    half::store(p, v.a);
    half::store(p + half::lanes, v.b);
  }
  static vec set1(elem x) { return {half::set1(x), half::set1(x)}; }
  static vec zero() { return {half::zero(), half::zero()}; }
  static vec adds(vec x, vec y) { return {half::adds(x.a, y.a), half::adds(x.b, y.b)}; }
  static vec subs(vec x, vec y) { return {half::subs(x.a, y.a), half::subs(x.b, y.b)}; }
  static vec max(vec x, vec y) { return {half::max(x.a, y.a), half::max(x.b, y.b)}; }
  static vec bit_and(vec x, vec y) { return {half::bit_and(x.a, y.a), half::bit_and(x.b, y.b)}; }
  static vec add(vec x, vec y) { return {half::add(x.a, y.a), half::add(x.b, y.b)}; }
  static std::uint64_t gt(vec x, vec y) { return half::gt(x.a, y.a) | half::gt(x.b, y.b) << half::lanes; }
  static vec lookup32(vec lo, vec hi, vec idx) {
    return {half::lookup32(lo.a, hi.a, idx.a), half::lookup32(lo.b, hi.b, idx.b)};
  }
  static vec shift_in(vec v, elem first) { return {half::shift_in(v.a, first), half::shift_across(v.a, v.b)}; }
  static vec shift_across(vec lo, vec hi) { return {half::shift_across(lo.b, hi.a), half::shift_across(hi.a, hi.b)}; }
};

using avx2_ops16x2 = ops_pair<avx2_ops16>;                //!< 32 16-bit lanes in AVX2
using avx512_ops16x2 = ops_pair<avx512_ops16>;            //!< 64 16-bit lanes in AVX-512BW
using avx2_ops32x4 = ops_pair<ops_pair<avx2_ops32>>;      //!< 32 32-bit lanes in AVX2
using avx512_ops32x4 = ops_pair<ops_pair<avx512_ops32>>;  //!< 64 32-bit lanes in AVX-512

}  // namespace swat::cpu::simd8

#endif
