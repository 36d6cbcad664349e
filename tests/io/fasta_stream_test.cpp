// read_fasta as a streaming reader: records across chunk boundaries, input that cannot be
// read twice (a FIFO), vectors of exactly the residue count, gzip followed by trailing garbage
// or zero padding, and byte order marks.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <random>
#include <string>
#include <thread>

#include "io/fasta.hpp"
#include "io_test_util.hpp"

namespace swat::io::test {
namespace {

class fasta_stream : public ::testing::Test {
 protected:
  temp_dir dir;
  std::string write(std::string_view name, std::string_view content) { return write_plain(dir.file(name), content); }
};

//! Records of random DNA with odd line lengths, CRLF, blanks: several MiB in all, so records,
//! headers and lines cross the 1 MiB chunks of the reader. residues: how many were written.
std::string big_fasta(unsigned seed, std::uint64_t& residues) {
  std::mt19937 rng(seed);
  std::string text = "\n\n";
  residues = 0;
  for (int r = 0; r < 40; ++r) {
    text += ">rec" + std::to_string(r) + " " + std::string(std::size_t(rng() % 3000), 'd') + "\r\n";
    const std::size_t len = r % 7 == 0 ? 1'000'000 + rng() % 1000 : rng() % 5000 + 1;
    for (std::size_t i = 0; i < len; ++i) {
      text += "ACGTacgtN"[rng() % 9];
      if (rng() % 61 == 0) text += rng() % 2 ? "\r\n" : " \t";
    }
    residues += len;
    text += "\n";
  }
  return text;
}

TEST_F(fasta_stream, chunk_boundaries_fifo_and_gzip_agree) {
  std::uint64_t written = 0;
  const std::string text = big_fasta(1, written);
  const std::string plain = write("big.fa", text);
  const sequence_set want = read_fasta(plain, alphabet_request::auto_detect, nullptr);
  ASSERT_EQ(want.records.size(), 40u);
  std::uint64_t residues = 0;
  for (const auto& r : want.records) {
    residues += r.residues.size();
    EXPECT_EQ(r.residues.capacity(), r.residues.size()) << r.name;  // allocated once, exactly
  }
  EXPECT_EQ(residues, written);
  expect_same_records(read_fasta(write_gz(dir.file("big.fa.gz"), text), alphabet_request::auto_detect, nullptr), want);

  // A FIFO cannot be read twice: the reader keeps its text for the second pass.
  for (const bool gz : {false, true}) {
    const std::string fifo = dir.file(gz ? "pipe.gz" : "pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string bytes = gz ? slurp(dir.file("big.fa.gz")) : text;
    std::thread writer([&] { write_plain(fifo, bytes); });
    const sequence_set got = read_fasta(fifo, alphabet_request::auto_detect, nullptr);
    writer.join();
    expect_same_records(got, want);
  }
}

TEST_F(fasta_stream, gzip_with_trailing_garbage_is_an_error) {
  const std::string gz = slurp(write_gz(dir.file("ok.fa.gz"), ">a\nACGTACGT\n"));
  const std::string path = write("tail.fa.gz", gz + "this is not gzip");
  EXPECT_EQ(input_error_of(path), path + ": trailing garbage after the gzip data (at compressed byte " +
                                      std::to_string(gz.size()) + "): the file is gzip followed by data that is not gzip");
  // A stray byte after a second member, too.
  const std::string two = write("two.fa.gz", gz + gz + "\x01");
  EXPECT_TRUE(contains(input_error_of(two), "trailing garbage"));
}

TEST_F(fasta_stream, gzip_zero_padding_and_members_are_fine) {
  const std::string gz = slurp(write_gz(dir.file("ok.fa.gz"), ">a\nACGTACGT\n"));
  const std::string padded = write("pad.fa.gz", gz + std::string(4096, '\0'));
  const sequence_set set = read_fasta(padded, alphabet_request::dna, nullptr);
  ASSERT_EQ(set.records.size(), 1u);
  EXPECT_EQ(letters(set, 0), "ACGTACGT");
  const std::string gz2 = slurp(write_gz(dir.file("b.fa.gz"), ">b\nTTTT\n"));
  const sequence_set both = read_fasta(write("ab.fa.gz", gz + gz2 + std::string(7, '\0')), alphabet_request::dna, nullptr);
  ASSERT_EQ(both.records.size(), 2u);
  EXPECT_EQ(letters(both, 1), "TTTT");
}

TEST_F(fasta_stream, byte_order_marks_get_their_own_message) {
  const std::string utf8 = write("bom.fa", "\xEF\xBB\xBF>a\nACGT\n");
  EXPECT_EQ(input_error_of(utf8), utf8 + ": not a FASTA file: the file starts with a UTF-8 byte order mark "
                                         "(bytes EF BB BF); save it as plain text without it");
  const std::string gz = write_gz(dir.file("bom.fa.gz"), "\xEF\xBB\xBF>a\nACGT\n");
  EXPECT_TRUE(contains(input_error_of(gz), "UTF-8 byte order mark"));
  const std::string le = write("le.fa", std::string("\xFF\xFE>\0a\0\n\0", 8));
  EXPECT_TRUE(contains(input_error_of(le), "UTF-16 text (byte order mark FF FE)"));
  const std::string be = write("be.fa", std::string("\xFE\xFF\0>\0a\0\n", 8));
  EXPECT_TRUE(contains(input_error_of(be), "UTF-16 text (byte order mark FE FF)"));
  // Not at the start: an ordinary invalid byte, named with its position.
  const std::string mid = write("mid.fa", ">a\nAC\xEF\xBB\xBFGT\n");
  EXPECT_EQ(input_error_of(mid, alphabet_request::dna), mid + ":record 1 (a):3: invalid residue byte 0xEF for dna");
}

TEST_F(fasta_stream, header_before_first_line_end_and_leading_blanks) {
  const sequence_set set = read_fasta(write("lead.fa", "  \n \t>x desc\nAC\n>y\nG"), alphabet_request::dna, nullptr);
  ASSERT_EQ(set.records.size(), 2u);
  EXPECT_EQ(set.records[0].name, "x");
  EXPECT_EQ(set.records[0].description, "desc");
  EXPECT_EQ(letters(set, 0), "AC");
  EXPECT_EQ(letters(set, 1), "G");
}

}  // namespace
}  // namespace swat::io::test
