// parse_outfmt, outfmt_help and the number formats.

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "output/output.hpp"
#include "fixtures.hpp"

namespace swat::output::test {
namespace {

const std::vector<std::string> standard{"qseqid", "sseqid", "pident", "length",
                                        "mismatch", "gapopen", "qstart", "qend",
                                        "sstart", "send", "evalue", "bitscore"};

TEST(parse_outfmt, blast6_defaults_to_the_12_standard_columns) {
  const output_spec spec = parse_outfmt("blast6");
  EXPECT_EQ(spec.fmt, format::blast6);
  EXPECT_EQ(spec.columns, standard);
  EXPECT_EQ(standard_blast6_columns(), standard);
  EXPECT_EQ(parse_outfmt("6").columns, standard);
  EXPECT_EQ(parse_outfmt("  BLAST6 ").fmt, format::blast6);
}

// BLAST semantics: "6 a b" prints exactly a and b; "std" is the standard 12; the older
// "blast6 a b" spelling keeps appending (it means "6 std a b").
TEST(parse_outfmt, named_columns_replace_the_standard_ones) {
  std::vector<std::string> expected = standard;
  expected.insert(expected.end(), {"score", "cigar"});
  EXPECT_EQ(parse_outfmt("blast6 score cigar").columns, expected);
  EXPECT_EQ(parse_outfmt("6 std score,cigar").columns, expected);
  EXPECT_EQ(parse_outfmt("6 score,cigar").columns, (std::vector<std::string>{"score", "cigar"}));
  EXPECT_EQ(parse_outfmt("6\tSCORE  Cigar").columns, (std::vector<std::string>{"score", "cigar"}));
  EXPECT_EQ(parse_outfmt("6 qseqid sseqid std").columns.size(), 14u);
  const output_spec all = parse_outfmt("6 qlen slen nident gaps qseq sseq positive sstrand qcovs qcovhsp ppos");
  ASSERT_EQ(all.columns.size(), 11u);
  EXPECT_EQ(all.columns.back(), "ppos");
  EXPECT_FALSE(all.comments);
}

TEST(parse_outfmt, seven_is_commented_tabular) {
  const output_spec seven = parse_outfmt("7");
  EXPECT_EQ(seven.fmt, format::blast6);
  EXPECT_TRUE(seven.comments);
  EXPECT_EQ(seven.columns, standard);
  EXPECT_EQ(parse_outfmt("7 qseqid sseqid evalue").columns, (std::vector<std::string>{"qseqid", "sseqid", "evalue"}));
}

TEST(parse_outfmt, other_formats) {
  EXPECT_EQ(parse_outfmt("sam").fmt, format::sam);
  EXPECT_EQ(parse_outfmt("pair").fmt, format::pair);
  EXPECT_EQ(parse_outfmt("JSON").fmt, format::json);
  EXPECT_EQ(parse_outfmt("bam").fmt, format::bam);
  EXPECT_TRUE(parse_outfmt("sam").columns.empty());
}

//! Runs parse_outfmt(text), expecting a usage_error whose message contains every needle.
void expect_usage_error(std::string_view text, std::vector<std::string> needles) {
  try {
    parse_outfmt(text);
    ADD_FAILURE() << "no error for '" << text << "'";
  } catch (const usage_error& e) {
    for (const std::string& n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what() << " lacks " << n;
  }
}

TEST(parse_outfmt, bad_input_names_the_problem_and_the_valid_choices) {
  expect_usage_error("blast7", {"'blast7'", "6 (BLAST tabular)", "7 (BLAST tabular with comment lines)", "blast6",
                                "sam", "bam", "pair", "json"});
  expect_usage_error("", {"6", "sam"});
  expect_usage_error("blast6 score evalu", {"'evalu'", "qseqid", "cigar", "sseq", "std"});
  expect_usage_error("6 qseqid sseqid frames", {"'frames'", "qcovs"});
  expect_usage_error("sam cigar", {"'cigar'", "6 and 7"});
}

TEST(outfmt_help, mentions_every_format_and_column) {
  const std::string help = outfmt_help();
  for (const char* word : {"6 [COLUMN", "7 [COLUMN", "blast6", "std", "sam", "bam", "pair", "json", "island"})
    EXPECT_NE(help.find(word), std::string::npos) << word;
  for (const std::string& c : known_blast6_columns()) EXPECT_NE(help.find(c), std::string::npos) << c;
}

// E-values print as BLAST+'s tabular output prints them (CBlastTabularInfo::SetScores): "0.0"
// below 1e-180, two decimals of the exponent form below 0.0009, then fixed point with three,
// two, one and no decimals (the strings blastp 2.12 prints for these values).
TEST(format_evalue, as_blast_tabular) {
  EXPECT_EQ(format_evalue(std::log(4.3968e-34)), "4.40e-34");
  EXPECT_EQ(format_evalue(std::log(7.45e-93)), "7.45e-93");
  EXPECT_EQ(format_evalue(std::log(1.49e-178)), "1.49e-178");
  EXPECT_EQ(format_evalue(std::log(1.01e-180)), "1.01e-180");
  EXPECT_EQ(format_evalue(std::log(0.99e-180)), "0.0");
  EXPECT_EQ(format_evalue(-400 * std::log(10.0)), "0.0");  // far below the double range
  EXPECT_EQ(format_evalue(-1e6), "0.0");
  EXPECT_EQ(format_evalue(std::log(8.99e-4)), "8.99e-04");
  EXPECT_EQ(format_evalue(std::log(9.2e-4)), "0.001");
  EXPECT_EQ(format_evalue(std::log(0.0123)), "0.012");
  EXPECT_EQ(format_evalue(std::log(0.2013)), "0.20");
  EXPECT_EQ(format_evalue(std::log(0.4)), "0.40");
  EXPECT_EQ(format_evalue(std::log(5.6)), "5.6");
  EXPECT_EQ(format_evalue(std::log(9.96)), "10.0");  // "%2.1f" below 10
  EXPECT_EQ(format_evalue(std::log(12.4)), "12");    // "%2.0f" from 10 up
  EXPECT_EQ(format_evalue(std::log(12.6)), "13");
  EXPECT_EQ(format_evalue(std::log(96173.4)), "96173");
  EXPECT_EQ(format_evalue(std::nan("")), "nan");
}

TEST(format_bit_score, follows_blast) {
  EXPECT_EQ(format_bit_score(43.14), "43.1");
  EXPECT_EQ(format_bit_score(99.9), "99.9");
  EXPECT_EQ(format_bit_score(99.95), " 99");  // above 99.9: "%3ld" of the integer part, as BLAST
  EXPECT_EQ(format_bit_score(185.4), "185");
  EXPECT_EQ(format_bit_score(2523.8), "2523");  // blastp prints 2523: the integer part
  EXPECT_EQ(format_bit_score(1363.0), "1363");
  EXPECT_EQ(format_bit_score(123456.0), "1.235e+05");
  EXPECT_EQ(format_bit_score(8.4), " 8.4");  // blastn prints " 8.4": "%4.1f"
  EXPECT_EQ(format_bit_score(std::nan("")), "nan");
}

}  // namespace
}  // namespace swat::output::test
