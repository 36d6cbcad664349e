// parse_outfmt, outfmt_help and the Karlin–Altschul numbers.

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "output/karlin.hpp"
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

TEST(parse_outfmt, extra_columns_follow_the_standard_ones) {
  std::vector<std::string> expected = standard;
  expected.insert(expected.end(), {"score", "cigar"});
  EXPECT_EQ(parse_outfmt("blast6 score cigar").columns, expected);
  EXPECT_EQ(parse_outfmt("6 score,cigar").columns, expected);
  EXPECT_EQ(parse_outfmt("6\tSCORE  Cigar").columns, expected);
  const output_spec all = parse_outfmt("6 qlen slen nident gaps qseq sseq positive");
  ASSERT_EQ(all.columns.size(), 19u);
  EXPECT_EQ(all.columns.back(), "positive");
}

TEST(parse_outfmt, other_formats) {
  EXPECT_EQ(parse_outfmt("sam").fmt, format::sam);
  EXPECT_EQ(parse_outfmt("pair").fmt, format::pair);
  EXPECT_EQ(parse_outfmt("JSON").fmt, format::json);
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
  expect_usage_error("blast7", {"'blast7'", "blast6", "sam", "pair", "json"});
  expect_usage_error("", {"blast6", "sam"});
  expect_usage_error("blast6 score evalu", {"'evalu'", "qseqid", "cigar", "sseq"});
  expect_usage_error("sam cigar", {"'cigar'", "blast6"});
}

TEST(outfmt_help, mentions_every_format_and_column) {
  const std::string help = outfmt_help();
  for (const char* word : {"blast6", "sam", "pair", "json", "NA"}) EXPECT_NE(help.find(word), std::string::npos);
  for (const std::string& c : known_blast6_columns()) EXPECT_NE(help.find(c), std::string::npos) << c;
}

TEST(karlin, published_parameters_are_found) {
  scoring_scheme p = protein_scheme();
  auto params = find_karlin_params(p);
  ASSERT_TRUE(params);
  EXPECT_DOUBLE_EQ(params->lambda, 0.267);
  EXPECT_DOUBLE_EQ(params->k, 0.041);
  p.matrix_name = "blosum62";
  EXPECT_TRUE(find_karlin_params(p));
  p.gap_open = 10;
  EXPECT_FALSE(find_karlin_params(p));
  p.matrix_name = "PAM30";
  p.gap_open = 9;
  ASSERT_TRUE(find_karlin_params(p));
  EXPECT_DOUBLE_EQ(find_karlin_params(p)->lambda, 0.294);
  p.matrix_name = "MYMATRIX";
  EXPECT_FALSE(find_karlin_params(p));

  scoring_scheme d = dna_scheme();
  ASSERT_TRUE(find_karlin_params(d));
  EXPECT_DOUBLE_EQ(find_karlin_params(d)->lambda, 0.625);
  EXPECT_TRUE(find_karlin_params(d)->even_scores_only);
  d.gap_open = 4;
  EXPECT_FALSE(find_karlin_params(d));
  d = dna_scheme();
  d.matrix[0] = 1;  // A/A no longer +2
  EXPECT_FALSE(find_karlin_params(d));
}

TEST(karlin, blosum62_numbers_match_a_hand_calculation) {
  // By hand: lambda = 0.267, K = 0.041, S = 100, m = 200, N = 1e6.
  //   ln K = -3.194183; bits = (26.7 + 3.194183) / 0.693147 = 43.128
  //   e^-26.7 = 2.53711e-12; E = 0.041 * 200 * 1e6 * 2.53711e-12 = 2.0804e-5
  const karlin_params p{0.267, 0.041, false};
  EXPECT_NEAR(bit_score(p, 100), 43.128, 1e-3);
  EXPECT_NEAR(evalue(p, 100, 200, 1000000), 2.0804e-5, 1e-8);
  EXPECT_EQ(format_bit_score(bit_score(p, 100)), "43.1");
  EXPECT_EQ(format_evalue(evalue(p, 100, 200, 1000000)), "2.08e-05");
}

TEST(karlin, odd_scores_round_down_for_blastn_2_3) {
  const karlin_params p{0.625, 0.41, true};
  EXPECT_DOUBLE_EQ(bit_score(p, 11), bit_score(p, 10));
  EXPECT_DOUBLE_EQ(evalue(p, 11, 10, 26), evalue(p, 10, 10, 26));
  EXPECT_LT(evalue(p, 12, 10, 26), evalue(p, 11, 10, 26));
}

TEST(karlin, formatting_follows_blast) {
  EXPECT_EQ(format_evalue(1e-181), "0.0");
  EXPECT_EQ(format_evalue(0.0), "0.0");
  EXPECT_EQ(format_evalue(3.14159e-50), "3.14e-50");
  EXPECT_EQ(format_evalue(12.5), "1.25e+01");
  EXPECT_EQ(format_bit_score(43.14), "43.1");
  EXPECT_EQ(format_bit_score(99.9), "99.9");
  EXPECT_EQ(format_bit_score(185.4), "185");
  EXPECT_EQ(format_bit_score(1363.0), "1363");
  EXPECT_EQ(format_bit_score(123456.0), "1.235e+05");
}

}  // namespace
}  // namespace swat::output::test
