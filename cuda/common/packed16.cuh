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
