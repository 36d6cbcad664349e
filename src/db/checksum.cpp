// checksum64 (checksum.hpp).

#include "db/checksum.hpp"

#include <cstring>

namespace swat::db {
namespace {

// Odd 64-bit constants with well-mixed bits (the fractional parts of sqrt(2), sqrt(3), sqrt(5)).
constexpr std::uint64_t k1 = 0x6a09e667f3bcc909ull;
constexpr std::uint64_t k2 = 0xbb67ae8584caa73bull;
constexpr std::uint64_t k3 = 0x3c6ef372fe94f82bull;

constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t word(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);  // little-endian (format.hpp asserts the host is)
  return w;
}

inline std::uint64_t lane_step(std::uint64_t lane, std::uint64_t w) { return rotl(lane + w * k2, 29) * k1; }

//! Spreads every input bit over the whole word (xor-shift-multiply rounds).
inline std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 31;
  h *= k3 | 1;
  h ^= h >> 29;
  h *= k2;
  h ^= h >> 32;
  return h;
}

}  // namespace

checksum64::checksum64() : lanes_{k1, k2, k3, k1 ^ k2} {}

void checksum64::blocks(const unsigned char* data, std::size_t count) {
  std::uint64_t a = lanes_[0], b = lanes_[1], c = lanes_[2], d = lanes_[3];
  for (std::size_t i = 0; i < count; ++i, data += 32) {
    a = lane_step(a, word(data));
    b = lane_step(b, word(data + 8));
    c = lane_step(c, word(data + 16));
    d = lane_step(d, word(data + 24));
  }
  lanes_[0] = a, lanes_[1] = b, lanes_[2] = c, lanes_[3] = d;
}

void checksum64::update(const void* data, std::size_t bytes) {
  if (bytes == 0) return;  // data may be null
  const auto* p = static_cast<const unsigned char*>(data);
  total_bytes_ += bytes;
  if (pending_bytes_ > 0) {
    const std::size_t take = bytes < 32 - pending_bytes_ ? bytes : 32 - pending_bytes_;
    std::memcpy(pending_ + pending_bytes_, p, take);
    pending_bytes_ += take;
    p += take;
    bytes -= take;
    if (pending_bytes_ < 32) return;
    blocks(pending_, 1);
    pending_bytes_ = 0;
  }
  blocks(p, bytes / 32);
  p += bytes / 32 * 32;
  bytes %= 32;
  std::memcpy(pending_, p, bytes);
  pending_bytes_ = bytes;
}

std::uint64_t checksum64::digest() const {
  std::uint64_t h = rotl(lanes_[0], 1) ^ rotl(lanes_[1], 17) ^ rotl(lanes_[2], 31) ^ rotl(lanes_[3], 47);
  h = mix(h ^ total_bytes_ * k3);
  std::size_t at = 0;
  for (; at + 8 <= pending_bytes_; at += 8) h = mix(h ^ lane_step(k1, word(pending_ + at)));
  std::uint64_t tail = 0;
  for (std::size_t i = at; i < pending_bytes_; ++i) tail |= std::uint64_t(pending_[i]) << (8 * (i - at));
  if (at < pending_bytes_) h = mix(h ^ lane_step(k2, tail ^ (pending_bytes_ - at)));
  return mix(h);
}

std::uint64_t checksum_of(std::span<const unsigned char> bytes) {
  checksum64 c;
  c.update(bytes.data(), bytes.size());
  return c.digest();
}

}  // namespace swat::db
