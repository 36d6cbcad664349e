// DNA schemes and parameter validation (src/scoring/scoring.cpp).

#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

// Expects fn() to throw usage_error whose message contains needle.
template <typename Fn>
void expect_usage_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no usage_error; expected one mentioning '" << needle << "'";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "message must be one line";
  }
}

TEST(dna_scheme, default_values) {
  const scoring_scheme s = make_dna_scheme(2, -3, 5, 2);
  EXPECT_EQ(s.alphabet, alphabet_kind::dna);
  EXPECT_EQ(s.matrix_name, "match 2 mismatch -3");
  EXPECT_EQ(s.gap_open, 5);
  EXPECT_EQ(s.gap_extend, 2);
  for (std::uint8_t a = 0; a < 4; ++a)
    for (std::uint8_t b = 0; b < 4; ++b) EXPECT_EQ(s.score(a, b), a == b ? 2 : -3) << int(a) << "," << int(b);
  EXPECT_EQ(s.max_score(), 2);
  EXPECT_EQ(s.min_score(), -3);
}

TEST(dna_scheme, n_mismatches_everything_including_n) {
  const scoring_scheme s = make_dna_scheme(1, -4, 0, 2);
  for (std::uint8_t r = 0; r < dna_size; ++r) {
    EXPECT_EQ(s.score(dna_n_rank, r), -4);
    EXPECT_EQ(s.score(r, dna_n_rank), -4);
  }
  EXPECT_EQ(s.score(dna_n_rank, dna_n_rank), -4);
}

TEST(dna_scheme, zero_mismatch_and_zero_extend_are_allowed) {
  EXPECT_NO_THROW(make_dna_scheme(1, 0, 1, 0));
  EXPECT_NO_THROW(make_dna_scheme(1, -1, 0, 1));
  EXPECT_NO_THROW(make_dna_scheme(1'000'000, -1'000'000, 1'000'000, 1'000'000));
}

TEST(dna_scheme, symmetric) {
  const scoring_scheme s = make_dna_scheme(3, -2, 5, 2);
  for (std::uint8_t a = 0; a < dna_size; ++a)
    for (std::uint8_t b = 0; b < dna_size; ++b) EXPECT_EQ(s.score(a, b), s.score(b, a));
}

TEST(validation, match_must_be_positive) {
  expect_usage_error([] { make_dna_scheme(0, -3, 5, 2); }, "--match");
  expect_usage_error([] { make_dna_scheme(-1, -3, 5, 2); }, "--match");
}

TEST(validation, mismatch_must_not_be_positive) {
  expect_usage_error([] { make_dna_scheme(2, 1, 5, 2); }, "--mismatch");
}

TEST(validation, negative_gaps) {
  expect_usage_error([] { validate_gaps(-1, 2); }, "--gap-open");
  expect_usage_error([] { validate_gaps(5, -2); }, "--gap-extend");
  expect_usage_error([] { make_dna_scheme(2, -3, -5, 2); }, "--gap-open");
  expect_usage_error([] { make_protein_scheme("BLOSUM62", 11, -1); }, "--gap-extend");
}

TEST(validation, free_gap_is_rejected) {
  expect_usage_error([] { validate_gaps(0, 0); }, "--gap-open + --gap-extend must be > 0");
  EXPECT_NO_THROW(validate_gaps(0, 1));
  EXPECT_NO_THROW(validate_gaps(1, 0));
}

TEST(validation, absurd_values) {
  expect_usage_error([] { validate_gaps(1'000'001, 1); }, "--gap-open");
  expect_usage_error([] { validate_gaps(1, 2'000'000'000); }, "--gap-extend");
  expect_usage_error([] { validate_dna_scores(1'000'001, -1); }, "--match");
  expect_usage_error([] { validate_dna_scores(1, -1'000'001); }, "--mismatch");
  expect_usage_error([] { validate_dna_scores(1, -2'147'483'647 - 1); }, "--mismatch");
}

TEST(validation, message_names_the_value) {
  expect_usage_error([] { validate_dna_scores(2, 3); }, "got 3");
}

}  // namespace
}  // namespace swat::scoring
