#pragma once
// checksum64: the checksum of the prepared database's files (db/format.hpp). Four independent
// 64-bit lanes, each taking every fourth little-endian 8-byte word with a multiply and a
// rotation, so that the loop runs at memory speed; the lanes, the tail bytes and the length are
// folded and mixed at the end. It detects corruption and truncation; it is no cryptographic hash.

#include <cstddef>
#include <cstdint>
#include <span>

namespace swat::db {

//! Incremental checksum64: update() with the bytes in order, then digest(). Feeding the same
//! bytes in any pieces gives the same digest.
class checksum64 {
 public:
  checksum64();
  //! Adds bytes.
  void update(const void* data, std::size_t bytes);
  //! The checksum of every byte added so far (the object may be updated further).
  std::uint64_t digest() const;

 private:
  void blocks(const unsigned char* data, std::size_t count);
  std::uint64_t lanes_[4];
  unsigned char pending_[32];
  std::size_t pending_bytes_ = 0;
  std::uint64_t total_bytes_ = 0;
};

//! checksum64 of one piece of memory.
std::uint64_t checksum_of(std::span<const unsigned char> bytes);

}  // namespace swat::db
