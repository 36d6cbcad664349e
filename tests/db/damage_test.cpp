// Damaged prepared databases (db/reader.hpp): every truncation, every flipped byte, a newer
// format version, volumes of another database, and fuzzed headers and bodies whose checksums were
// recomputed (so that only the reader's structural checks stand between them and a search). Each
// must end in swat::input_error (exit 2 on the command line) or, where the damage left a valid
// database, a well-formed set; never a crash (the ASan build runs these) or a silent change.

#include <gtest/gtest.h>

#include <random>

#include "common/error.hpp"
#include "db_test_util.hpp"
#include "support/run_process.hpp"

using namespace swat;
using swat::test::database_bytes;
using swat::test::make_bytes;
using swat::test::random_records;
using swat::test::read_bytes;
using swat::test::reseal;
using swat::test::same_records;
using swat::test::well_formed;

namespace {

//! The message of the reader's input_error, or "" when it read the database.
std::string error_of(const database_bytes& b, sequence_set* out = nullptr) {
  try {
    sequence_set set = read_bytes(b);
    if (out) *out = std::move(set);
    return "";
  } catch (const input_error& e) {
    return e.what();
  }
}

const sequence_set small = random_records(alphabet_kind::protein, 12, 40, 5);

}  // namespace

TEST(damaged_database, every_truncation_is_an_error_that_says_so) {
  const database_bytes good = make_bytes(small, 600);
  ASSERT_GE(good.volumes.size(), 2u);
  for (std::size_t len = 0; len < good.index.size(); ++len) {
    database_bytes b = good;
    b.index.resize(len);
    const std::string e = error_of(b);
    ASSERT_FALSE(e.empty()) << "index cut at " << len;
    if (len >= db::header_bytes) {
      EXPECT_NE(e.find("truncated"), std::string::npos) << e;
    }
  }
  for (std::size_t k = 0; k < good.volumes.size(); ++k)
    for (std::size_t len = 0; len < good.volumes[k].size(); ++len) {
      database_bytes b = good;
      b.volumes[k].resize(len);
      const std::string e = error_of(b);
      ASSERT_FALSE(e.empty()) << "volume " << k << " cut at " << len;
      if (len >= db::header_bytes) {
        EXPECT_NE(e.find("truncated"), std::string::npos) << e;
      }
    }
  database_bytes longer = good;
  longer.volumes[0] += '\0';
  EXPECT_NE(error_of(longer).find("after the end"), std::string::npos);
}

TEST(damaged_database, every_flipped_byte_is_an_error) {
  const database_bytes good = make_bytes(small, 600);
  for (std::size_t i = 0; i < good.index.size(); ++i) {
    database_bytes b = good;
    b.index[i] = char(b.index[i] ^ 0x5a);
    ASSERT_FALSE(error_of(b).empty()) << "index byte " << i;
  }
  for (std::size_t k = 0; k < good.volumes.size(); ++k)
    for (std::size_t i = 0; i < good.volumes[k].size(); ++i) {
      database_bytes b = good;
      b.volumes[k][i] = char(b.volumes[k][i] ^ 0x01);
      const std::string e = error_of(b);
      ASSERT_FALSE(e.empty()) << "volume " << k << " byte " << i;
      if (i >= db::header_bytes) {
        EXPECT_NE(e.find("corrupted"), std::string::npos) << e;
      }
    }
}

TEST(damaged_database, a_newer_format_version_is_named) {
  database_bytes b = make_bytes(small, 1 << 20);
  b.index[8] = 2;  // version field: newer than this build's
  const std::string e = error_of(b);
  EXPECT_NE(e.find("format version 2 is newer than this swat-gpu reads (1)"), std::string::npos) << e;
  b = make_bytes(small, 1 << 20);
  b.volumes[0][8] = 9;
  EXPECT_NE(error_of(b).find("format version 9 is newer"), std::string::npos);
}

TEST(damaged_database, volumes_of_another_database_or_place_are_refused) {
  const database_bytes a = make_bytes(small, 600);
  const database_bytes other = make_bytes(random_records(alphabet_kind::protein, 12, 40, 6), 600);
  database_bytes b = a;
  b.volumes[1] = other.volumes[1];
  EXPECT_NE(error_of(b).find("does not belong"), std::string::npos);
  b = a;
  std::swap(b.volumes[0], b.volumes[1]);
  EXPECT_NE(error_of(b).find("does not belong"), std::string::npos);
  b = a;
  std::swap(b.index, b.volumes[0]);
  EXPECT_NE(error_of(b).find("is a volume"), std::string::npos);
  // Another alphabet's volume with the same counts and checksums in its index is still refused.
  database_bytes dna = make_bytes(random_records(alphabet_kind::dna, 12, 40, 5), 1 << 20);
  database_bytes prot = make_bytes(random_records(alphabet_kind::protein, 12, 40, 5), 1 << 20);
  prot.volumes[0] = dna.volumes[0];
  reseal(prot, 0);
  EXPECT_FALSE(error_of(prot).empty());
}

TEST(damaged_database, fuzzed_fields_with_recomputed_checksums_never_pass_unnoticed) {
  const database_bytes good = make_bytes(small, 600);
  std::mt19937_64 rng(42);
  int accepted = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    database_bytes b = good;
    const std::uint32_t k = std::uint32_t(rng() % b.volumes.size());
    std::string& file = rng() % 3 == 0 ? b.index : b.volumes[k];
    // A few words of the file (header fields, offsets, counts) set to small or extreme values.
    const int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = (rng() % (file.size() / 8)) * 8;
      std::uint64_t v;
      switch (rng() % 4) {
        case 0: v = rng() % 64; break;
        case 1: v = ~std::uint64_t(0) - rng() % 4; break;
        case 2: v = std::uint64_t(1) << (rng() % 64); break;
        default: v = rng(); break;
      }
      const std::size_t n = std::min<std::size_t>(8, file.size() - at);
      std::memcpy(file.data() + at, &v, n);
    }
    reseal(b, k);
    sequence_set set;
    const std::string e = error_of(b, &set);
    if (e.empty()) {
      ++accepted;
      ASSERT_TRUE(well_formed(set, b)) << "trial " << trial;
    }
  }
  RecordProperty("accepted", accepted);
}

namespace {

//! The message after "FILE: " (the in-memory and on-disk readers name files differently).
std::string reason(const std::string& message) {
  const std::size_t at = message.find(": ");
  return at == std::string::npos ? message : message.substr(at + 2);
}

//! read_database's result on b written as files in dir: "" and the set, or the error's reason.
std::string file_error(const database_bytes& b, const swat::test::temp_dir& dir, sequence_set* out, unsigned threads) {
  for (std::size_t k = 0; k < b.volumes.size(); ++k)
    swat::test::write_file(dir / db::volume_file_name("t", std::uint32_t(k)), b.volumes[k]);
  swat::test::write_file(dir / "t.swdb", b.index);
  try {
    *out = db::read_database((dir / "t.swdb").string(), "t", nullptr, threads);
    return "";
  } catch (const input_error& e) {
    return reason(e.what());
  }
}

}  // namespace

TEST(damaged_database, the_file_reader_on_threads_says_what_the_volume_parser_says) {
  swat::test::temp_dir dir;
  const database_bytes good = make_bytes(random_records(alphabet_kind::dna, 300, 30, 8), 1 << 20);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 160; ++trial) {
    database_bytes b = good;
    std::string& v = b.volumes[0];
    const std::size_t at = trial < 50 ? std::size_t(rng() % v.size()) : db::header_bytes + rng() % (v.size() - db::header_bytes);
    v[at] = char(v[at] ^ (1 + rng() % 255));
    if (trial >= 80) reseal(b, 0);  // past the checksums: the record checks, run by several threads
    sequence_set from_bytes, from_files;
    const std::string expected = reason(error_of(b, &from_bytes));
    for (const unsigned threads : {1u, 3u}) {
      ASSERT_EQ(file_error(b, dir, &from_files, threads), expected) << "trial " << trial << " threads " << threads;
      if (expected.empty()) {
        ASSERT_TRUE(same_records(from_bytes, from_files)) << "trial " << trial;
      }
    }
  }
}
