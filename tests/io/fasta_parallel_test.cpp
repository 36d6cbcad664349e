// read_fasta in pieces (io/fasta_parallel.hpp) against the sequential reader: on random valid
// files (wrapped lines, CRLF, blanks, whitespace, lower case, empty records, long headers,
// DNA and protein, auto-detection) the pieces give the same records and warnings for every
// piece count; on the same files with one error planted anywhere they either give up (and the
// sequential reader reports) or throw exactly the sequential reader's message, never a set.
// The cut points are record starts, and read_fasta itself takes the pieces for large files.

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "io/fasta.hpp"
#include "io/fasta_parallel.hpp"
#include "io_test_util.hpp"

namespace swat::io::test {
namespace {

//! A random FASTA text: `records` records (some empty), DNA or protein letters, lines of random
//! widths with CRLF, blank lines, stray spaces and tabs, and now and then a long header.
std::string random_fasta(std::mt19937& rng, int records, bool protein) {
  const std::string letters = protein ? "ACDEFGHIKLMNPQRSTVWYacdefXBZ" : "ACGTacgtNnRY";
  std::string text = rng() % 3 == 0 ? "\n \n" : "";
  for (int r = 0; r < records; ++r) {
    text += ">r" + std::to_string(r);
    if (rng() % 4 == 0) text += " desc " + std::string(rng() % 200, 'x');
    text += rng() % 5 == 0 ? "\r\n" : "\n";
    const std::size_t len = rng() % 9 == 0 ? 0 : rng() % 3000;
    const std::size_t width = 1 + rng() % 120;
    for (std::size_t i = 0; i < len; ++i) {
      text += letters[rng() % letters.size()];
      if ((i + 1) % width == 0) text += rng() % 7 == 0 ? "\r\n" : "\n";
      if (rng() % 500 == 0) text += rng() % 2 ? " " : "\t";
    }
    text += "\n";
    if (rng() % 10 == 0) text += "\n";
  }
  return text;
}

struct outcome {
  std::optional<sequence_set> set;  //!< nullopt: threw (message) or gave up (pieces only)
  std::string message;
  std::vector<std::string> warnings;
};

outcome sequential(const std::string& path, alphabet_request request) {
  outcome o;
  try {
    o.set = read_fasta(path, request, [&](const std::string& w) { o.warnings.push_back(w); });
  } catch (const input_error& e) {
    o.message = e.what();
  }
  return o;
}

outcome in_pieces(const std::string& path, std::uint64_t bytes, int pieces, alphabet_request request) {
  outcome o;
  try {
    o.set = detail::read_fasta_in_pieces(path, bytes, pieces, request, [&](const std::string& w) { o.warnings.push_back(w); });
    if (!o.set) o.message = "(gave up)";
  } catch (const input_error& e) {
    o.message = e.what();
  }
  return o;
}

void expect_same_set(const sequence_set& a, const sequence_set& b, const std::string& what) {
  EXPECT_EQ(a.file, b.file) << what;
  EXPECT_EQ(a.alphabet, b.alphabet) << what;
  ASSERT_EQ(a.records.size(), b.records.size()) << what;
  for (std::size_t r = 0; r < a.records.size(); ++r) {
    EXPECT_EQ(a.records[r].name, b.records[r].name) << what << " record " << r;
    EXPECT_EQ(a.records[r].description, b.records[r].description) << what << " record " << r;
    EXPECT_EQ(a.records[r].residues, b.records[r].residues) << what << " record " << r;
  }
}

TEST(fasta_pieces, valid_files_give_the_sequential_records_for_every_piece_count) {
  temp_dir dir;
  std::mt19937 rng(2026);
  int compared = 0;
  for (int file = 0; file < 24; ++file) {
    const bool protein = file % 2 == 1;
    const std::string text = random_fasta(rng, 5 + int(rng() % 60), protein);
    const std::string path = write_plain(dir.file("f" + std::to_string(file) + ".fa"), text);
    for (const alphabet_request request : {alphabet_request::auto_detect, protein ? alphabet_request::protein : alphabet_request::dna}) {
      const outcome want = sequential(path, request);
      ASSERT_TRUE(want.set.has_value()) << want.message;
      for (int pieces = 2; pieces <= 9; ++pieces) {
        const outcome got = in_pieces(path, text.size(), pieces, request);
        const std::string what = "file " + std::to_string(file) + ", " + std::to_string(pieces) + " pieces";
        ASSERT_TRUE(got.set.has_value()) << what << ": " << got.message;
        expect_same_set(*got.set, *want.set, what);
        EXPECT_EQ(got.warnings, want.warnings) << what;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 24 * 2 * 8);
}

TEST(fasta_pieces, both_readers_put_every_record_end_to_end_in_one_arena_of_the_set) {
  // The database engine uploads targets that lie end to end as one run (db_upload.cuh); the
  // records are writable views of the set's arena (a DNA query is complemented in place).
  temp_dir dir;
  std::mt19937 rng(7);
  const std::string text = random_fasta(rng, 40, false);
  const std::string path = write_plain(dir.file("f.fa"), text);
  for (const bool pieces : {false, true}) {
    outcome got = pieces ? in_pieces(path, text.size(), 4, alphabet_request::dna) : sequential(path, alphabet_request::dna);
    ASSERT_TRUE(got.set.has_value()) << got.message;
    sequence_set& set = *got.set;
    ASSERT_GE(set.records.size(), 2u);
    EXPECT_EQ(set.backing.size(), 1u) << pieces;
    for (std::size_t r = 0; r < set.records.size(); ++r) {
      ASSERT_TRUE(set.records[r].residues.is_view()) << r;
      if (r > 0)
        EXPECT_EQ(set.records[r - 1].residues.data() + set.records[r - 1].residues.size(), set.records[r].residues.data())
            << "record " << r << (pieces ? " (pieces)" : "");
    }
    const sequence_record copy = set.records[1];
    EXPECT_FALSE(copy.residues.is_view());  // a copy may outlive the set
    const std::uint8_t first = set.records[1].residues[0];
    set.records[1].residues.writable_data()[0] = std::uint8_t(3 - first % 4);
    EXPECT_TRUE(set.records[1].residues.is_view()) << "written in place";
    EXPECT_EQ(set.records[1].residues[0], std::uint8_t(3 - first % 4));
    EXPECT_EQ(copy.residues[0], first);
  }
}

TEST(fasta_pieces, names_checked_on_several_threads_warn_and_fail_in_the_sequential_order) {
  // Enough records for the names to be checked and the records built on several threads: the
  // empty records' warnings in file order, up to the first header without a name, which is the
  // error; without it, the sequential reader's set.
  temp_dir dir;
  std::string good, bad;
  for (int i = 0; i < 20000; ++i) {
    const std::string record = i % 997 == 5 ? ">e" + std::to_string(i) + "\n"
                                            : ">r" + std::to_string(i) + " d" + std::to_string(i % 7) + "\nACGTNACGT\n";
    good += record;
    bad += i == 17000 ? ">   \nACGT\n" : i == 19000 ? ">\nAC\n" : record;
  }
  for (const std::string* text : {&good, &bad}) {
    const std::string path = write_plain(dir.file(text == &good ? "good.fa" : "bad.fa"), *text);
    const outcome want = sequential(path, alphabet_request::dna);
    for (const unsigned threads : {1u, 2u, 4u}) {
      outcome got;
      try {
        got.set = detail::read_fasta_in_pieces(path, text->size(), 3, alphabet_request::dna,
                                               [&](const std::string& w) { got.warnings.push_back(w); }, threads);
      } catch (const input_error& e) {
        got.message = e.what();
      }
      const std::string what = std::string(text == &good ? "good" : "bad") + ", " + std::to_string(threads) + " threads";
      EXPECT_EQ(got.warnings, want.warnings) << what;
      EXPECT_EQ(got.message, want.message) << what;
      ASSERT_EQ(got.set.has_value(), want.set.has_value()) << what;
      if (want.set) expect_same_set(*got.set, *want.set, what);
    }
    if (text == &bad) {
      EXPECT_FALSE(want.set.has_value());
      EXPECT_NE(want.message.find("header has no name"), std::string::npos) << want.message;
      EXPECT_EQ(want.warnings.size(), 18u);  // empty records 5, 1002, … before record 17000
    }
  }
}

TEST(fasta_pieces, cut_points_are_record_starts) {
  temp_dir dir;
  std::mt19937 rng(7);
  const std::string text = random_fasta(rng, 80, false);
  const std::string path = write_plain(dir.file("cuts.fa"), text);
  for (int pieces = 2; pieces <= 16; ++pieces) {
    const detail::piece_reader reader(path, text.size(), pieces);
    const auto& s = reader.starts();
    ASSERT_GE(s.size(), 2u);
    EXPECT_EQ(s.front(), 0u);
    EXPECT_EQ(s.back(), text.size());
    EXPECT_GE(reader.pieces(), 2) << pieces;  // 80 records: a record start near every guess
    EXPECT_LE(reader.pieces(), pieces);
    for (std::size_t k = 1; k + 1 < s.size(); ++k) {
      EXPECT_LT(s[k - 1], s[k]);
      EXPECT_EQ(text[s[k]], '>');
      EXPECT_EQ(text[s[k] - 1], '\n');
    }
  }
  // One record: nothing divides the file.
  const std::string one = ">only\n" + std::string(100000, 'A') + "\n";
  const std::string p1 = write_plain(dir.file("one.fa"), one);
  EXPECT_EQ(detail::piece_reader(p1, one.size(), 4).pieces(), 1);
  EXPECT_FALSE(detail::read_fasta_in_pieces(p1, one.size(), 4, alphabet_request::dna, {}).has_value());
}

TEST(fasta_pieces, planted_errors_never_give_a_set_and_messages_match) {
  temp_dir dir;
  std::mt19937 rng(99);
  // What can go wrong in a FASTA file, planted at a random byte of a valid one.
  const std::vector<std::string> faults = {"7", ">", ";", std::string(1, '\x01'), "J", "\r", "\n>\n", "\n> x\n",
                                           "\n>\nACGT\n", "\xEF\xBB\xBF", "*", "\n\n>dup\n"};
  int gave_up = 0, threw = 0, accepted = 0;
  for (int k = 0; k < 400; ++k) {
    std::string text = random_fasta(rng, 8 + int(rng() % 30), false);
    const std::string& fault = faults[std::size_t(k) % faults.size()];
    text.insert(rng() % (text.size() + 1), fault);
    const std::string path = write_plain(dir.file("bad" + std::to_string(k) + ".fa"), text);
    const alphabet_request request = k % 3 == 0 ? alphabet_request::auto_detect : alphabet_request::dna;
    const outcome want = sequential(path, request);
    const outcome got = in_pieces(path, text.size(), 2 + k % 6, request);
    const std::string what = "case " + std::to_string(k) + " fault '" + fault + "'";
    if (want.set) {  // the planted bytes made another valid file: the pieces must agree
      ASSERT_TRUE(got.set.has_value()) << what << ": " << got.message;
      expect_same_set(*got.set, *want.set, what);
      EXPECT_EQ(got.warnings, want.warnings) << what;
      ++accepted;
      continue;
    }
    EXPECT_FALSE(got.set.has_value()) << what << ": the pieces accepted what the sequential reader refuses: "
                                      << want.message;
    if (got.message == "(gave up)") {
      ++gave_up;
    } else {
      EXPECT_EQ(got.message, want.message) << what;
      EXPECT_EQ(got.warnings, want.warnings) << what;
      ++threw;
    }
  }
  std::printf("planted errors: %d gave up, %d threw the same message, %d stayed valid\n", gave_up, threw, accepted);
  EXPECT_GT(gave_up, 100);
  EXPECT_GT(threw, 5);  // headers without a name are reported by the pieces themselves
}

TEST(fasta_pieces, read_fasta_takes_pieces_for_large_files) {
  temp_dir dir;
  std::mt19937 rng(5);
  std::string text;
  while (text.size() < detail::parallel_min_bytes + 4096) text += random_fasta(rng, 200, true);
  const std::string path = write_plain(dir.file("large.fa"), text);
  // The same text gzip-compressed is read sequentially (pieces need a plain file).
  const std::string gz = write_gz(dir.file("large.fa.gz"), text);
  EXPECT_EQ(detail::parallel_pieces(1000), 1);
  EXPECT_EQ(detail::parallel_pieces(64 << 20, 1), 1);  // --threads 1: one reader thread
  EXPECT_EQ(detail::parallel_pieces(64 << 20, 3), 3);
  EXPECT_EQ(detail::parallel_pieces(64 << 20, 100), detail::parallel_max_pieces);
  EXPECT_EQ(detail::parallel_pieces(detail::parallel_min_bytes - 1, 100), 1);
  EXPECT_EQ(detail::parallel_pieces(3 * detail::parallel_min_piece_bytes + detail::parallel_min_bytes, 100),
            int(detail::parallel_min_bytes / detail::parallel_min_piece_bytes) + 3);  // a piece holds at least the minimum
  const outcome a = sequential(path, alphabet_request::auto_detect);  // in pieces where the machine has threads
  outcome b = sequential(gz, alphabet_request::auto_detect);
  ASSERT_TRUE(a.set.has_value()) << a.message;
  ASSERT_TRUE(b.set.has_value()) << b.message;
  b.set->file = a.set->file;
  expect_same_set(*a.set, *b.set, std::to_string(detail::parallel_pieces(text.size())) + " pieces by default");
  ASSERT_EQ(a.warnings.size(), b.warnings.size());
  for (std::size_t w = 0; w < a.warnings.size(); ++w)
    EXPECT_EQ(a.warnings[w].substr(path.size()), b.warnings[w].substr(gz.size()));
  EXPECT_EQ(a.set->alphabet, alphabet_kind::protein);
}

}  // namespace
}  // namespace swat::io::test
