// Alphabet auto-detection and the --alphabet parser.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "io/fasta.hpp"
#include "io_test_util.hpp"

namespace swat::io::test {
namespace {

constexpr auto dna = alphabet_kind::dna;
constexpr auto protein = alphabet_kind::protein;

TEST(detect_alphabet, pure_nucleotides) {
  EXPECT_EQ(detect_alphabet("ACGTACGTTGCA"), dna);
  EXPECT_EQ(detect_alphabet("acgtacgttgca"), dna);
  EXPECT_EQ(detect_alphabet("AAAAAAAA"), dna);
}

TEST(detect_alphabet, n_counts_as_core) {
  EXPECT_EQ(detect_alphabet("NNNNNNNNNN"), dna);
  EXPECT_EQ(detect_alphabet("ACGTNNNNnnACGT"), dna);
}

TEST(detect_alphabet, u_counts_as_core) {
  EXPECT_EQ(detect_alphabet("ACGUACGUUU"), dna);
  EXPECT_EQ(detect_alphabet("acguu"), dna);
}

TEST(detect_alphabet, iupac_codes_up_to_ten_percent) {
  // 90% core, 10% other IUPAC codes: DNA (the bound is inclusive).
  EXPECT_EQ(detect_alphabet("ACGTACGTAR"), dna);
  EXPECT_EQ(detect_alphabet(std::string(90, 'A') + "RYKMSWBDHV"), dna);
  // 89 core + 11 IUPAC: protein.
  EXPECT_EQ(detect_alphabet(std::string(89, 'C') + "RYKMSWBDHVr"), protein);
  // Mostly IUPAC ambiguity codes reads as protein.
  EXPECT_EQ(detect_alphabet("ACGTRYKMSWBDHV"), protein);
}

TEST(detect_alphabet, any_non_iupac_letter_means_protein) {
  EXPECT_EQ(detect_alphabet("MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSF"), protein);
  EXPECT_EQ(detect_alphabet(std::string(999, 'A') + "E"), protein);
  EXPECT_EQ(detect_alphabet(std::string(999, 'A') + "X"), protein);
  EXPECT_EQ(detect_alphabet(std::string(999, 'A') + "*"), protein);
  EXPECT_EQ(detect_alphabet(std::string(999, 'A') + "-"), protein);
  // Letters that are IUPAC nucleotide codes but common in proteins decide by the 90% rule.
  EXPECT_EQ(detect_alphabet("MKVHWDSRYA"), protein);
}

TEST(detect_alphabet, all_sequences_together) {
  const std::vector<std::string_view> mixed = {"ACGTACGT", "ACGTACGE"};
  EXPECT_EQ(detect_alphabet(mixed), protein);
  // Per sequence 80% core, over both together 90%: the share is over all residues.
  const std::string a = "ACGTACGTRY";
  const std::string b = std::string(10, 'A');
  const std::vector<std::string_view> both = {a, b};
  EXPECT_EQ(detect_alphabet(both), dna);
  EXPECT_EQ(detect_alphabet(std::span<const std::string_view>()), dna);
}

TEST(detect_alphabet, rule_text_for_help) {
  EXPECT_FALSE(alphabet_auto_rule.empty());
  EXPECT_EQ(alphabet_auto_rule.find('\n'), std::string_view::npos);
  EXPECT_LE(alphabet_auto_rule.size(), 80u);
  EXPECT_NE(alphabet_auto_rule.find("90%"), std::string_view::npos);
}

TEST(detect_alphabet, read_fasta_auto_mode) {
  temp_dir dir;
  const auto detected = [&](std::string_view text) {
    return read_fasta(write_plain(dir.file("x.fa"), text), alphabet_request::auto_detect, nullptr)
        .alphabet;
  };
  EXPECT_EQ(detected(">a\nACGT\n>b\nGGCCNNAT\n"), dna);
  EXPECT_EQ(detected(">a\nACGU\n"), dna);
  EXPECT_EQ(detected(">a\nACGT\n>b\nMKVLE\n"), protein);
  EXPECT_EQ(detected(">a\nacgtacgtac\n>b\nacgtacgtac\n>c\nrykmacgtac\n"), protein);
  EXPECT_EQ(detected(">a\nacgtacgtac\n>b\nacgtacgtac\n>c\nrykacgtacg\n"), dna);
}

TEST(alphabet_request_parse, names) {
  EXPECT_EQ(parse_alphabet_request("auto"), alphabet_request::auto_detect);
  EXPECT_EQ(parse_alphabet_request("dna"), alphabet_request::dna);
  EXPECT_EQ(parse_alphabet_request("protein"), alphabet_request::protein);
  EXPECT_EQ(parse_alphabet_request("DNA"), alphabet_request::dna);
  EXPECT_EQ(parse_alphabet_request("Protein"), alphabet_request::protein);
  for (auto r : {alphabet_request::auto_detect, alphabet_request::dna, alphabet_request::protein})
    EXPECT_EQ(parse_alphabet_request(to_string(r)), r);
}

TEST(alphabet_request_parse, unknown_names_are_usage_errors) {
  for (std::string_view bad : {"", "rna", "aa", "dna ", "nucleotide"}) {
    try {
      parse_alphabet_request(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const usage_error& e) {
      EXPECT_EQ(std::string(e.what()),
                "unknown alphabet '" + std::string(bad) + "' (expected auto, dna or protein)");
    }
  }
}

}  // namespace
}  // namespace swat::io::test
