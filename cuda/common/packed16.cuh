#pragma once
// Packed 16-bit lanes (int16x2 in one 32-bit register) for the score-only fills that keep two
// cells per register: byte pairs of an int8 profile, broadcast and unpacking.

#include <cstdint>

namespace swat::cuda {

//! int16x2 of the sign-extended bytes k of lo (bits 0–15) and hi (bits 16–31): one PRMT
//! (selector nibbles with bit 3 set replicate the selected byte's sign).
__device__ __forceinline__ std::uint32_t byte_pair(std::uint32_t lo, std::uint32_t hi, int k) {
  const unsigned sel = unsigned(k) | (unsigned(k | 8) << 4) | (unsigned(4 + k) << 8) |
                       (unsigned((4 + k) | 8) << 12);
  std::uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(lo), "r"(hi), "r"(sel));
  return d;
}

//! Two rows' int16x2 words from two targets' 16-bit scores, a = (a0, a1) and b = (b0, b1) (row 0
//! in bits 0–15): lo = (a0, b0), hi = (a1, b1). Five multiply-adds (IMAD, IMAD.HI) on the FMA
//! pipe instead of two byte permutes (PRMT) on the ALU pipe, which the score-only recurrences
//! keep busy with their add-max instructions (bench/results/db_scan_bound_h100.md). unit must
//! be 65536 and come from a kernel argument: a constant would let the compiler turn the
//! products into shifts on the ALU pipe. Exact in 32-bit modular arithmetic: a − a1·2^16 = a0,
//! b·2^16 = b0·2^16 (mod 2^32), and a1, b1 < 2^16 carry into nothing.
__device__ __forceinline__ void transpose16(std::uint32_t a, std::uint32_t b, std::uint32_t unit, std::uint32_t& lo,
                                            std::uint32_t& hi) {
  const std::uint32_t a1 = __umulhi(a, unit), b1 = __umulhi(b, unit);  // (a1, 0), (b1, 0)
  std::uint32_t a0, t;
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(a0) : "r"(a1), "r"(0u - unit), "r"(a));  // (a0, 0)
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(b), "r"(unit), "r"(a0));        // (a0, b0)
  lo = t;
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(hi) : "r"(b1), "r"(unit), "r"(a1));      // (a1, b1)
}

//! Both halves set to v.
__device__ __forceinline__ std::uint32_t splat16(std::int32_t v) { return (std::uint32_t(v) & 0xffffu) * 0x10001u; }

//! Both halves from two values (lo in bits 0–15).
__device__ __forceinline__ std::uint32_t pack16(std::int32_t lo, std::int32_t hi) {
  return (std::uint32_t(lo) & 0xffffu) | (std::uint32_t(hi) << 16);
}

//! The low half (bits 0–15), sign-extended.
__device__ __forceinline__ std::int32_t lo16(std::uint32_t x) { return std::int32_t(std::int16_t(x & 0xffffu)); }
//! The high half (bits 16–31), sign-extended.
__device__ __forceinline__ std::int32_t hi16(std::uint32_t x) { return std::int32_t(x) >> 16; }

}  // namespace swat::cuda
