// read_fasta on well-formed inputs: clean and messy spellings of the same records must encode
// identically, plain or gzip.
#include <gtest/gtest.h>

#include <random>

#include "io/fasta.hpp"
#include "io_test_util.hpp"

namespace swat::io::test {
namespace {

constexpr std::string_view clean_dna =
    ">chr1 first test sequence\n"
    "ACGTACGTTTGACCANNACGTGGGCCCATATATCGCG\n"
    ">chr2\n"
    "GATTACAGATTACAGATTACA\n"
    ">chr3 third\tone\n"
    "CCCCCGGGGGAAAAATTTTTN\n";

// The same records: wrapped at 7 columns, CRLF, blank lines (also before the first header),
// lower case, blanks around header words, trailing spaces, no newline at the end.
constexpr std::string_view messy_dna =
    "\r\n\r\n"
    ">chr1   first test sequence  \r\n"
    "acgtacg\r\nTTTGACC\r\nannACGT\r\n\r\nGGGCCCA\r\ntatatcg\r\nCG   \r\n"
    "\r\n"
    "> chr2\r\n"
    "GATTACA\r\ngattaca\r\nGATTACA\r\n"
    "\n\n"
    ">chr3\tthird\tone\n"
    "ccccc\nGGGGG\naaaaa\nTTTTT\nn";

constexpr std::string_view clean_protein =
    ">sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens\n"
    "MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKL\n"
    ">stop_codons\n"
    "MKX*BZJUO*\n";

constexpr std::string_view messy_protein =
    "\n"
    ">sp|P69905|HBA_HUMAN\tHemoglobin subunit alpha OS=Homo sapiens \r\n"
    "mvlspadktn vkaawgkvga\r\nhageygaeal "
    "ermflsfptt\r\nktyfphfdlshgsaqvkghgkkvadaltnavahvddmpnal\r\n"
    "SALSDLHAHKL\r\n"
    "\r\n"
    ">stop_codons\r\n"
    "mkx*\r\nbzjuo*";

class fasta_read : public ::testing::Test {
 protected:
  temp_dir dir;
  sequence_set read(std::string_view name, std::string_view content,
                    alphabet_request request = alphabet_request::auto_detect) {
    return read_fasta(write_plain(dir.file(name), content), request, nullptr);
  }
};

TEST_F(fasta_read, clean_dna_records) {
  const sequence_set set = read("clean.fa", clean_dna);
  EXPECT_EQ(set.file, dir.file("clean.fa"));
  EXPECT_EQ(set.alphabet, alphabet_kind::dna);
  ASSERT_EQ(set.records.size(), 3u);
  EXPECT_EQ(set.records[0].name, "chr1");
  EXPECT_EQ(set.records[0].description, "first test sequence");
  EXPECT_EQ(set.records[1].name, "chr2");
  EXPECT_EQ(set.records[1].description, "");
  EXPECT_EQ(set.records[2].description, "third\tone");
  EXPECT_EQ(letters(set, 0), "ACGTACGTTTGACCANNACGTGGGCCCATATATCGCG");
  EXPECT_EQ(letters(set, 1), "GATTACAGATTACAGATTACA");
  const std::vector<std::uint8_t> gat = {2, 0, 3, 3, 0, 1, 0};
  EXPECT_TRUE(std::equal(gat.begin(), gat.end(), set.records[1].residues.begin()));
  EXPECT_EQ(set.records[2].residues.back(), dna_n_rank);
}

TEST_F(fasta_read, messy_dna_equals_clean) {
  expect_same_records(read("clean.fa", clean_dna), read("messy.fa", messy_dna));
}

TEST_F(fasta_read, messy_protein_equals_clean) {
  const sequence_set clean = read("clean.faa", clean_protein);
  EXPECT_EQ(clean.alphabet, alphabet_kind::protein);
  EXPECT_EQ(clean.records[0].name, "sp|P69905|HBA_HUMAN");
  EXPECT_EQ(clean.records[0].description, "Hemoglobin subunit alpha OS=Homo sapiens");
  EXPECT_EQ(letters(clean, 1), "MKX*BZJUO*");
  expect_same_records(clean, read("messy.faa", messy_protein));
}

TEST_F(fasta_read, gzip_equals_plain_whatever_the_name) {
  const sequence_set plain = read("clean.fa", clean_dna);
  expect_same_records(plain, read_fasta(write_gz(dir.file("a.fa.gz"), clean_dna), {}, nullptr));
  expect_same_records(plain, read_fasta(write_gz(dir.file("gz_named.fa"), messy_dna), {}, nullptr));
  expect_same_records(plain,
                      read_fasta(write_gz(dir.file("noext"), messy_dna, "wb9"), {}, nullptr));
  // A plain file called .gz is read as plain text.
  expect_same_records(plain, read("plain.fa.gz", messy_dna));
}

TEST_F(fasta_read, gzip_multi_member) {
  const std::string first = write_gz(dir.file("m1.gz"), ">a\nACGT\n");
  const std::string second = write_gz(dir.file("m2.gz"), ">b x\nGGCC\n");
  const std::string both = write_plain(dir.file("both.fa.gz"), slurp(first) + slurp(second));
  const sequence_set set = read_fasta(both, alphabet_request::dna, nullptr);
  ASSERT_EQ(set.records.size(), 2u);
  EXPECT_EQ(letters(set, 0), "ACGT");
  EXPECT_EQ(set.records[1].name, "b");
  EXPECT_EQ(letters(set, 1), "GGCC");
}

TEST_F(fasta_read, empty_records_are_skipped_with_a_warning) {
  const std::string path =
      write_plain(dir.file("gaps.fa"), ">e1 empty\n>a\nACGT\n>e2\n\n\n>b\nGG\n>e3 last\n");
  std::vector<std::string> warnings;
  const sequence_set set = read_collecting(path, warnings);
  ASSERT_EQ(set.records.size(), 2u);
  EXPECT_EQ(set.records[0].name, "a");
  EXPECT_EQ(set.records[1].name, "b");
  EXPECT_EQ(letters(set, 1), "GG");
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0], path + ":record 1 (e1): record has no residues, skipped");
  EXPECT_EQ(warnings[1], path + ":record 3 (e2): record has no residues, skipped");
  EXPECT_EQ(warnings[2], path + ":record 5 (e3): record has no residues, skipped");
}

TEST_F(fasta_read, empty_last_record_without_newline) {
  for (std::string_view tail : {">z", ">z\n", ">z\r\n", ">z desc \n\n  \n"}) {
    const std::string path = write_plain(dir.file("tail.fa"), std::string(">a\nAC\n") += tail);
    std::vector<std::string> warnings;
    const sequence_set set = read_collecting(path, warnings);
    ASSERT_EQ(set.records.size(), 1u) << tail;
    EXPECT_EQ(letters(set, 0), "AC");
    ASSERT_EQ(warnings.size(), 1u) << tail;
    EXPECT_EQ(warnings[0], path + ":record 2 (z): record has no residues, skipped");
  }
}

TEST_F(fasta_read, empty_warning_fn_is_allowed) {
  EXPECT_EQ(read("e.fa", ">a\n>b\nAC\n").records.size(), 1u);
}

TEST_F(fasta_read, dna_letters) {
  // U reads as T, every IUPAC code other than ACGTU as N, both cases.
  const sequence_set set =
      read("iupac.fa", ">r\nACGTUacgtuNnRYKMSWBDHVrykmswbdhv\n", alphabet_request::dna);
  const std::string expected = "ACGTTACGTTNN" + std::string(20, 'N');
  EXPECT_EQ(letters(set, 0), expected);
}

TEST_F(fasta_read, rna_reads_as_dna) {
  const sequence_set set = read("rna.fa", ">r\nACGUACGUUUAGC\n");
  EXPECT_EQ(set.alphabet, alphabet_kind::dna);
  EXPECT_EQ(letters(set, 0), "ACGTACGTTTAGC");
}

TEST_F(fasta_read, requested_alphabet_wins) {
  const sequence_set as_protein = read("p.fa", ">r\nACGTN\n", alphabet_request::protein);
  EXPECT_EQ(as_protein.alphabet, alphabet_kind::protein);
  EXPECT_EQ(letters(as_protein, 0), "ACGTN");
  EXPECT_EQ(as_protein.records[0].residues[3], 19);  // T in aa27
  const sequence_set as_dna = read("d.fa", ">r\nACGTRYKM\n", alphabet_request::dna);
  EXPECT_EQ(as_dna.alphabet, alphabet_kind::dna);
  EXPECT_EQ(letters(as_dna, 0), "ACGTNNNN");
}

TEST_F(fasta_read, header_forms) {
  const sequence_set set = read("h.fa",
                                ">only_name\nAC\n>  spaced   out  words  \nAC\n>tab\tdesc  x\nAC\n"
                                ">utf8 caf\xC3\xA9 \xE2\x80\x94 ok\nAC\n");
  ASSERT_EQ(set.records.size(), 4u);
  EXPECT_EQ(set.records[0].name, "only_name");
  EXPECT_EQ(set.records[0].description, "");
  EXPECT_EQ(set.records[1].name, "spaced");
  EXPECT_EQ(set.records[1].description, "out  words");
  EXPECT_EQ(set.records[2].name, "tab");
  EXPECT_EQ(set.records[2].description, "desc  x");
  EXPECT_EQ(set.records[3].description, "caf\xC3\xA9 \xE2\x80\x94 ok");
}

TEST_F(fasta_read, whitespace_inside_sequence_lines) {
  const sequence_set set = read("ws.fa", ">a\nAC GT\tAC\vGT\fAC\r\n  GT  \n");
  EXPECT_EQ(letters(set, 0), "ACGTACGTACGT");
}

TEST_F(fasta_read, long_line_and_many_records) {
  std::mt19937 rng(7);
  std::string long_seq(200'000, 'A');
  for (char& c : long_seq) c = "ACGT"[rng() % 4];
  std::string text = ">long\n" + long_seq + "\n";
  for (int r = 0; r < 10'000; ++r)
    text += ">r" + std::to_string(r) + "\n" + long_seq.substr(r, 50) + "\n";
  const sequence_set set = read_fasta(write_gz(dir.file("big.fa.gz"), text), {}, nullptr);
  ASSERT_EQ(set.records.size(), 10'001u);
  EXPECT_EQ(letters(set, 0), long_seq);
  EXPECT_EQ(set.records[10'000].name, "r9999");
  EXPECT_EQ(letters(set, 10'000), long_seq.substr(9'999, 50));
}

}  // namespace
}  // namespace swat::io::test
