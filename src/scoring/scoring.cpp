// Parameter validation and the DNA match/mismatch scheme.

#include "scoring/scoring.hpp"

#include <string>

#include "common/error.hpp"

namespace swat::scoring {
namespace {

void check_range(const char* what, int value, int low, int high, const char* rule) {
  if (value < low || value > high)
    throw usage_error(std::string(what) + " must be " + rule + " (got " + std::to_string(value) + ")");
}

}  // namespace

void validate_gaps(int gap_open, int gap_extend) {
  check_range("--gap-open", gap_open, 0, max_abs_score, "between 0 and 1000000");
  check_range("--gap-extend", gap_extend, 0, max_abs_score, "between 0 and 1000000");
  if (gap_open + gap_extend == 0)
    throw usage_error("--gap-open + --gap-extend must be > 0 (a gap of length k costs open + k*extend; "
                      "got 0 and 0)");
}

void validate_dna_scores(int match, int mismatch) {
  check_range("--match", match, 1, max_abs_score, "> 0 and at most 1000000");
  check_range("--mismatch", mismatch, -max_abs_score, 0, "<= 0 and at least -1000000");
}

scoring_scheme make_dna_scheme(int match, int mismatch, int gap_open, int gap_extend) {
  validate_dna_scores(match, mismatch);
  validate_gaps(gap_open, gap_extend);
  scoring_scheme scheme;
  scheme.alphabet = alphabet_kind::dna;
  for (int a = 0; a < dna_size; ++a)
    for (int b = 0; b < dna_size; ++b)
      scheme.matrix[a * matrix_stride + b] = (a == b && a != dna_n_rank) ? match : mismatch;
  scheme.gap_open = gap_open;
  scheme.gap_extend = gap_extend;
  scheme.matrix_name = "match " + std::to_string(match) + " mismatch " + std::to_string(mismatch);
  return scheme;
}

}  // namespace swat::scoring
