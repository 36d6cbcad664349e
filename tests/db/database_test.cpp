// The prepared database written and read back (db/writer.hpp, db/reader.hpp): every record the
// same in database order, for DNA and protein, in one volume or many; the volume bound; files on
// disk found by PREFIX or by the index's name.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "common/host_pages.hpp"
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

TEST(database, records_read_from_disk_view_the_mapped_volumes_that_the_set_keeps) {
  swat::test::temp_dir dir;
  const sequence_set set = random_records(alphabet_kind::protein, 300, 9000, 5);
  const auto bytes = make_bytes(set, std::uint64_t(1) << 20);
  ASSERT_GE(bytes.volumes.size(), 2u);
  for (std::size_t k = 0; k < bytes.volumes.size(); ++k)
    swat::test::write_file(dir / db::volume_file_name("t", std::uint32_t(k)), bytes.volumes[k]);
  swat::test::write_file(dir / "t.swdb", bytes.index);
  const std::string prefix = (dir / "t").string();
  sequence_set back = db::read_database(prefix + ".swdb", prefix);
  ASSERT_TRUE(same_records(set, back));
  EXPECT_EQ(back.backing.size(), bytes.volumes.size());
  for (const sequence_record& r : back.records) ASSERT_TRUE(r.residues.is_view()) << r.name;
  // Consecutive records of a volume are adjacent (the database engine uploads them as runs).
  EXPECT_EQ(back.records[0].residues.data() + back.records[0].residues.size(), back.records[1].residues.data());
  // Their pages may be dropped at any time: they read the file's bytes again.
  std::size_t dropped = 0;
  for (const sequence_record& r : back.records) dropped += host_pages::release(r.residues.data(), r.residues.size());
  EXPECT_GT(dropped, 0u);
  EXPECT_TRUE(same_records(set, back));
  // Memory that is not a registered mapping is never dropped, nor changed.
  const std::vector<std::uint8_t> heap(1 << 20, 3);
  EXPECT_EQ(host_pages::release(heap.data(), heap.size()), 0u);
  EXPECT_TRUE(std::all_of(heap.begin(), heap.end(), [](std::uint8_t c) { return c == 3; }));
  // A copy owns its residues (it may outlive the set); a move keeps the view; a write owns.
  sequence_record copy = back.records[5];
  EXPECT_FALSE(copy.residues.is_view());
  sequence_record moved = std::move(back.records[6]);
  EXPECT_TRUE(moved.residues.is_view());
  moved.residues.own()[0] = std::uint8_t((moved.residues[0] + 1) % 20);
  EXPECT_FALSE(moved.residues.is_view());
  EXPECT_EQ(back.records[7].residues, set.records[7].residues);  // the mapping is unchanged
  back = sequence_set{};  // the volumes are unmapped: the copy still reads its own bytes
  EXPECT_EQ(copy.residues, set.records[5].residues);
}

TEST(database, a_volume_that_shrinks_while_it_is_mapped_ends_the_process_with_one_line) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer keeps SIGBUS for itself";
#endif
  const std::string style = GTEST_FLAG_GET(death_test_style);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  struct restore_style {
    std::string was;
    ~restore_style() { GTEST_FLAG_SET(death_test_style, was); }
  } restore{style};
  swat::test::temp_dir dir;
  const sequence_set set = random_records(alphabet_kind::protein, 200, 9000, 11);
  const auto bytes = make_bytes(set, std::uint64_t(1) << 30);
  ASSERT_EQ(bytes.volumes.size(), 1u);
  const fs::path volume = dir / db::volume_file_name("t", 0);
  swat::test::write_file(volume, bytes.volumes[0]);
  swat::test::write_file(dir / "t.swdb", bytes.index);
  const std::string prefix = (dir / "t").string();
  EXPECT_EXIT(
      {
        host_pages::install_bus_error_handler(nullptr);
        const sequence_set back = db::read_database(prefix + ".swdb", prefix);
        // Truncated in place under the mapping (makedb never does this): the checked pages were
        // dropped, so reading them again faults past the file's end.
        fs::resize_file(volume, 4096);
        unsigned sum = 0;
        for (const sequence_record& r : back.records)
          for (const std::uint8_t c : r.residues) sum += c;
        std::exit(sum == 0 ? 3 : 0);
      },
      ::testing::ExitedWithCode(2), "volume shrank while it was searched");
}

TEST(database, the_writer_refuses_what_the_format_cannot_hold) {
  sequence_set set = random_records(alphabet_kind::dna, 3, 10, 1);
  std::ostringstream out;
  set.records[1].residues.clear();
  EXPECT_THROW(db::write_volume(out, set.records, set.alphabet, 0, 0, "v"), usage_error);
  set = random_records(alphabet_kind::dna, 3, 10, 1);
  set.records[2].residues.own()[0] = 7;  // not a DNA rank
  EXPECT_THROW(db::write_volume(out, set.records, set.alphabet, 0, 0, "v"), usage_error);
  set = random_records(alphabet_kind::dna, 3, 10, 1);
  EXPECT_THROW(db::write_volume(out, set.records, set.alphabet, 0, 0, std::string(200, 'n')), usage_error);
}

namespace {

//! Writes the files of a database (volumes base.NNN.swdbv, index t.swdb) into dir.
void write_database(const fs::path& dir, const test::database_bytes& bytes, const std::string& base) {
  for (std::size_t k = 0; k < bytes.volumes.size(); ++k)
    swat::test::write_file(dir / db::volume_file_name(base, std::uint32_t(k)), bytes.volumes[k]);
  swat::test::write_file(dir / "t.swdb.new", bytes.index);
  fs::rename(dir / "t.swdb.new", dir / "t.swdb");  // as makedb: the index renamed into place
}

void remove_volumes(const fs::path& dir, const test::database_bytes& bytes, const std::string& base) {
  for (std::size_t k = 0; k < bytes.volumes.size(); ++k) fs::remove(dir / db::volume_file_name(base, std::uint32_t(k)));
}

struct hooks_reset {
  ~hooks_reset() {
    db::test_hooks::after_index_read = nullptr;
    db::test_hooks::after_volumes_opened = nullptr;
  }
};

}  // namespace

TEST(database, a_replacement_while_it_is_read_gives_the_old_database_or_the_new_whole) {
  swat::test::temp_dir dir;
  const hooks_reset reset;
  const sequence_set old_set = random_records(alphabet_kind::dna, 40, 500, 21);
  const sequence_set new_set = random_records(alphabet_kind::dna, 30, 400, 22);
  const auto old_bytes = make_bytes(old_set, 4096, "t.aaaaaa"), new_bytes = make_bytes(new_set, 4096, "t.bbbbbb");
  ASSERT_GT(old_bytes.volumes.size(), 2u);
  const std::string index = (dir / "t.swdb").string();
  // Replaced once the volumes are open (the search was under way): the old database, whole.
  write_database(dir.path(), old_bytes, "t.aaaaaa");
  db::test_hooks::after_volumes_opened = [&] {
    write_database(dir.path(), new_bytes, "t.bbbbbb");
    remove_volumes(dir.path(), old_bytes, "t.aaaaaa");
  };
  EXPECT_TRUE(same_records(old_set, db::read_database(index, "t")));
  db::test_hooks::after_volumes_opened = nullptr;
  // Replaced right after the index was read: its volumes are gone, so the new index is read.
  remove_volumes(dir.path(), new_bytes, "t.bbbbbb");
  write_database(dir.path(), old_bytes, "t.aaaaaa");
  db::test_hooks::after_index_read = [&] {
    write_database(dir.path(), new_bytes, "t.bbbbbb");
    remove_volumes(dir.path(), old_bytes, "t.aaaaaa");
  };
  EXPECT_TRUE(same_records(new_set, db::read_database(index, "t")));
  // A volume missing after the index was read again: an error that names it.
  db::test_hooks::after_index_read = [&] { fs::remove(dir / db::volume_file_name("t.bbbbbb", 1)); };
  try {
    db::read_database(index, "t");
    ADD_FAILURE() << "a missing volume was read";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(db::volume_file_name("t.bbbbbb", 1)), std::string::npos) << e.what();
  }
}

TEST(database, an_index_reached_through_a_symbolic_link_reads_the_volumes_beside_its_target) {
  swat::test::temp_dir dir;
  const sequence_set set = random_records(alphabet_kind::protein, 20, 300, 5);
  const auto bytes = make_bytes(set, 4096);
  fs::create_directory(dir / "A");
  fs::create_directory(dir / "B");
  for (std::size_t k = 0; k < bytes.volumes.size(); ++k)
    swat::test::write_file(dir / "A" / db::volume_file_name("t", std::uint32_t(k)), bytes.volumes[k]);
  swat::test::write_file(dir / "A/t.swdb", bytes.index);
  fs::create_symlink("../A/t.swdb", dir / "B/l.swdb");
  const std::string link = (dir / "B/l.swdb").string();
  EXPECT_EQ(db::prepared_index_path((dir / "B/l").string()), link);
  EXPECT_EQ(fs::path(db::volume_path(db::read_index(link), 0)), fs::canonical(dir / "A") / db::volume_file_name("t", 0));
  EXPECT_TRUE(same_records(set, db::read_database(link, "B/l")));
}
