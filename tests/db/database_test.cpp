// The prepared database written and read back (db/writer.hpp, db/reader.hpp): every record the
// same in database order, for DNA and protein, in one volume or many; the volume bound; files on
// disk found by PREFIX or by the index's name.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "db_test_util.hpp"
#include "support/run_process.hpp"

namespace fs = std::filesystem;
using namespace swat;
using swat::test::make_bytes;
using swat::test::random_records;
using swat::test::read_bytes;
using swat::test::same_records;

TEST(database, records_come_back_in_database_order_in_one_volume_or_many) {
  for (const alphabet_kind a : {alphabet_kind::dna, alphabet_kind::protein}) {
    const sequence_set set = random_records(a, 200, 300, 7);
    for (const std::uint64_t bound : {std::uint64_t(1) << 30, std::uint64_t(4096), std::uint64_t(1)}) {
      const auto bytes = make_bytes(set, bound);
      const sequence_set back = read_bytes(bytes);
      EXPECT_TRUE(same_records(set, back)) << int(a) << " " << bound;
      for (const std::string& v : bytes.volumes) {
        if (bound > 1) {
          EXPECT_LE(v.size(), bound);
        }
      }
      if (bound == 1) {
        EXPECT_EQ(bytes.volumes.size(), set.records.size());  // one record each
      } else if (bound == 4096) {
        EXPECT_GT(bytes.volumes.size(), 5u);
      }
    }
  }
}

TEST(database, the_index_holds_the_totals_and_composition) {
  const sequence_set set = random_records(alphabet_kind::protein, 50, 100, 3);
  const auto bytes = make_bytes(set, 4096);
  const db::database_index index = db::parse_index(swat::test::bytes_of(bytes.index), "t.swdb");
  std::uint64_t residues = 0, longest = 0;
  std::array<std::uint64_t, db::composition_ranks> counts{};
  for (const auto& r : set.records) {
    residues += r.residues.size();
    longest = std::max<std::uint64_t>(longest, r.residues.size());
    for (auto c : r.residues) ++counts[c];
  }
  EXPECT_EQ(index.alphabet, alphabet_kind::protein);
  EXPECT_EQ(index.sequences, 50u);
  EXPECT_EQ(index.residues, residues);
  EXPECT_EQ(index.longest, longest);
  EXPECT_EQ(index.composition, counts);
  EXPECT_EQ(index.version, db::format_version);
  EXPECT_EQ(index.tool_version, SWAT_VERSION_STRING);
  EXPECT_EQ(index.volumes.size(), bytes.volumes.size());
}

TEST(database, files_on_disk_are_found_by_prefix_or_index_and_mapped) {
  swat::test::temp_dir dir;
  const sequence_set set = random_records(alphabet_kind::dna, 40, 500, 9);
  const auto bytes = make_bytes(set, 4096);
  for (std::size_t k = 0; k < bytes.volumes.size(); ++k)
    swat::test::write_file(dir / db::volume_file_name("t", std::uint32_t(k)), bytes.volumes[k]);
  swat::test::write_file(dir / "t.swdb", bytes.index);
  const std::string prefix = (dir / "t").string(), index = prefix + ".swdb";
  EXPECT_EQ(db::prepared_index_path(prefix), index);
  EXPECT_EQ(db::prepared_index_path(index), index);
  EXPECT_EQ(db::prepared_index_path((dir / "missing").string()), std::nullopt);
  EXPECT_EQ(db::prepared_index_path("-"), std::nullopt);
  swat::test::write_file(dir / "x.fa", ">a\nACGT\n");
  EXPECT_EQ(db::prepared_index_path((dir / "x.fa").string()), std::nullopt);
  EXPECT_THROW(db::prepared_index_path((dir / db::volume_file_name("t", 0)).string()), input_error);
  db::read_report report;
  const sequence_set back = db::read_database(index, prefix, &report);
  EXPECT_TRUE(same_records(set, back));
  EXPECT_EQ(back.file, prefix);
  std::uint64_t bytes_total = 0;
  for (const auto& v : bytes.volumes) bytes_total += v.size();
  EXPECT_EQ(report.mapped_bytes, bytes_total);
  // A FIFO in a volume's place is refused, not waited on.
  fs::remove(dir / db::volume_file_name("t", 1));
  ASSERT_EQ(::mkfifo((dir / db::volume_file_name("t", 1)).c_str(), 0600), 0);
  EXPECT_THROW(db::read_database(index, prefix), input_error);
  // A missing volume names itself.
  fs::remove(dir / db::volume_file_name("t", 1));
  try {
    db::read_database(index, prefix);
    FAIL() << "a missing volume was read";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(db::volume_file_name("t", 1)), std::string::npos) << e.what();
  }
}

TEST(database, the_writer_refuses_what_the_format_cannot_hold) {
  sequence_set set = random_records(alphabet_kind::dna, 3, 10, 1);
  std::ostringstream out;
  set.records[1].residues.clear();
  EXPECT_THROW(db::write_volume(out, set.records, set.alphabet, 0, 0, "v"), usage_error);
  set = random_records(alphabet_kind::dna, 3, 10, 1);
  set.records[2].residues[0] = 7;  // not a DNA rank
  EXPECT_THROW(db::write_volume(out, set.records, set.alphabet, 0, 0, "v"), usage_error);
  set = random_records(alphabet_kind::dna, 3, 10, 1);
  EXPECT_THROW(db::write_volume(out, set.records, set.alphabet, 0, 0, std::string(200, 'n')), usage_error);
}
