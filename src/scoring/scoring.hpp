#pragma once
// Scoring schemes of swat-gpu: DNA match/mismatch, the built-in NCBI substitution matrices
// (BLOSUM45/50/62/80/90, PAM30/70/250) and user matrix files in the NCBI/BLAST text format,
// with affine gaps: a gap of length k costs gap_open + k * gap_extend (BLAST/SeqAn3).
//
// Matrix files and letters. Rows and columns are indexed by protein ranks (SeqAn3's aa27 order,
// common/alphabet.hpp). An aa27 letter that a matrix does not list (J, O, U in older matrices;
// O and U in every NCBI matrix) scores like X: its row and column are copies of X's, and two such
// letters score X-X against each other. U (selenocysteine) and O (pyrrolysine) therefore follow
// the matrix where it lists them and X otherwise. A matrix that needs this fallback but has no X
// is an input error. Matrices must be symmetric (engines may swap query and target).
//
// Plain C++: no SeqAn3 types here.

#include <string>
#include <string_view>
#include <vector>

#include "common/scoring_scheme.hpp"

namespace swat::scoring {

//! Largest magnitude accepted for any score or penalty; keeps sums far from int32 overflow.
inline constexpr int max_abs_score = 1'000'000;

//! Throws swat::usage_error unless 0 ≤ gap_open, 0 ≤ gap_extend (both ≤ max_abs_score) and
//! gap_open + gap_extend > 0 (a one-residue gap must cost something). Penalties in score units.
void validate_gaps(int gap_open, int gap_extend);

//! Throws swat::usage_error unless 0 < match ≤ max_abs_score and -max_abs_score ≤ mismatch ≤ 0.
void validate_dna_scores(int match, int mismatch);

//! DNA scheme: A/C/G/T identical → match, any other pair → mismatch; N (rank 4) scores mismatch
//! against everything, N included. matrix_name is "match M mismatch X". Validates all four
//! values (swat::usage_error).
scoring_scheme make_dna_scheme(int match, int mismatch, int gap_open, int gap_extend);

//! Names of the built-in protein matrices, upper case: BLOSUM45 … PAM250.
const std::vector<std::string>& builtin_matrix_names();

//! Protein scheme from a built-in NCBI matrix; matrix_name is matched case-insensitively
//! (unknown name or bad gaps → swat::usage_error). The scheme's matrix_name is upper case.
scoring_scheme make_protein_scheme(std::string_view matrix_name, int gap_open, int gap_extend);

//! Protein scheme from NCBI/BLAST matrix text ('#' comments, a header row of letters, then one
//! row per letter starting with that letter). source names the text in errors, which are
//! swat::input_error(source, what, "line N"). matrix_name becomes name.
scoring_scheme parse_matrix_text(std::string_view text, const std::string& source,
                                 const std::string& name, int gap_open, int gap_extend);

//! Protein scheme from an NCBI/BLAST matrix file (see parse_matrix_text); matrix_name is the
//! file's base name. Unreadable file → swat::input_error(path, …); bad gaps → swat::usage_error.
scoring_scheme load_matrix_file(const std::string& path, int gap_open, int gap_extend);

}  // namespace swat::scoring
