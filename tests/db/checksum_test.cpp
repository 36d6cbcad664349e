// checksum64 (db/checksum.hpp): pieces give the digest of the whole, every byte and the length
// count, and fixed values keep the format's checksums from changing unnoticed.

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "db/checksum.hpp"

using swat::db::checksum64;
using swat::db::checksum_of;

namespace {

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

}  // namespace

TEST(checksum64, pieces_of_any_size_give_the_digest_of_the_whole) {
  const auto data = random_bytes(1000, 1);
  for (std::size_t len : {0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 100, 1000}) {
    const std::uint64_t whole = checksum_of({data.data(), len});
    std::mt19937 rng{unsigned(len)};
    for (int trial = 0; trial < 20; ++trial) {
      checksum64 c;
      std::size_t at = 0;
      while (at < len) {
        const std::size_t piece = std::min<std::size_t>(len - at, rng() % 40);
        c.update(data.data() + at, piece);
        at += piece;
      }
      EXPECT_EQ(c.digest(), whole) << len;
    }
  }
}

TEST(checksum64, every_bit_flip_and_every_length_changes_it) {
  auto data = random_bytes(200, 2);
  const std::uint64_t base = checksum_of(data);
  std::set<std::uint64_t> seen{base};
  for (std::size_t i = 0; i < data.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      data[i] ^= static_cast<unsigned char>(1 << bit);
      EXPECT_TRUE(seen.insert(checksum_of(data)).second) << i << ":" << bit;
      data[i] ^= static_cast<unsigned char>(1 << bit);
    }
  // Zeros of every length (a truncated or zero-padded file) all differ.
  const std::vector<unsigned char> zeros(300, 0);
  for (std::size_t len = 0; len <= zeros.size(); ++len)
    EXPECT_TRUE(seen.insert(checksum_of({zeros.data(), len})).second) << len;
}

TEST(checksum64, fixed_values_of_the_format) {
  // Written databases depend on these values (docs/database-format.md): a change is a new format
  // version.
  const unsigned char abc[] = {'a', 'b', 'c'};
  std::vector<unsigned char> counting(100);
  for (std::size_t i = 0; i < counting.size(); ++i) counting[i] = static_cast<unsigned char>(i);
  EXPECT_EQ(checksum_of({}), 0xa15c7262f675cc70ull);
  EXPECT_EQ(checksum_of(abc), 0x48774b4b9dd534aaull);
  EXPECT_EQ(checksum_of(counting), 0xd89e8edeb734872dull);
}
