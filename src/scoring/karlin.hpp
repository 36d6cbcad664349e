#pragma once
// Karlin–Altschul statistics of local alignment scores under a scoring scheme: λ, K and the
// length-correction slope α and intercept β (Karlin & Altschul 1990; Altschul et al. 2001,
// "The estimation of statistical parameters for local alignment score distributions").
//
// Where they come from, in order:
//  1. NCBI BLAST's published tables, looked up by the matrix CONTENTS and the gap costs: a
//     protein scheme whose 20x20 standard amino-acid scores equal those of BLOSUM45/50/62/80/90
//     or PAM30/70/250 (whatever it is called, e.g. a --matrix-file copy) at a gap cost pair NCBI
//     tabulates; a DNA match/mismatch scheme (reward r, penalty p, reduced by their gcd as blastn
//     does) at a tabulated gap cost pair (karlin_tables.cpp).
//  2. Otherwise estimated for the scheme by simulation (karlin_estimate.cpp): the island method
//     of Olsen, Bundschuh & Hwa (1999) / Altschul et al. (2001) on random sequences drawn from
//     standard background frequencies, with a fixed seed (the same numbers every run).
//
// E-values follow BLAST: E = K·m'·n'·e^(−λS) with the effective lengths m' = m − ℓ and
// n' = N − D·ℓ, where ℓ is BLAST's length adjustment (BLAST_ComputeLengthAdjustment: the
// fixed point of ℓ = (α/λ)·ln(K·m'·n') + β, rounded down), m the query length, N the database
// residues and D the number of database sequences. E-values are computed in log space, so values
// far below the double range stay exact.

#include <cstdint>
#include <optional>
#include <string>

#include "common/scoring_scheme.hpp"

namespace swat::scoring {

//! Where a scheme's parameters come from.
enum class karlin_source { ncbi_table, estimated };

//! Karlin–Altschul parameters of a gapped scoring scheme.
struct karlin_params {
  double lambda = 0;   //!< λ, nats per raw score unit
  double k = 0;        //!< K, dimensionless
  double h = 0;        //!< relative entropy H, nats per aligned position (λ/α)
  double alpha = 0;    //!< α: mean alignment length per raw score unit (length correction)
  double beta = 0;     //!< β: intercept of the length correction, residues
  //! True where NCBI applies λ and K to even scores only: E-values of odd scores are those of
  //! the even score below (bit scores use the raw score, as BLAST prints them).
  bool even_scores_only = false;
  karlin_source source = karlin_source::ncbi_table;
  //! One line saying which table row, or how the parameters were estimated.
  std::string origin;
};

//! The published NCBI parameters of the scheme (see the file comment), else nullopt.
std::optional<karlin_params> published_karlin_params(const scoring_scheme& scheme);

//! Settings of the island-method estimate (defaults: 8 pairs of 2,000 x 2,000 residues).
struct karlin_estimate_options {
  int sequence_length = 2000;   //!< residues of each random sequence
  int pairs = 8;                //!< random sequence pairs aligned (in parallel threads)
  std::uint64_t seed = 14;      //!< random seed (fixed: every run gets the same numbers)
};

//! Parameters estimated for the scheme by the island method (see karlin_estimate.cpp).
//! Throws swat::usage_error when the scheme has no logarithmic regime (a non-negative expected
//! score per aligned pair, or gaps so cheap that random sequences score linearly in length):
//! E-values are undefined there.
karlin_params estimate_karlin_params(const scoring_scheme& scheme, const karlin_estimate_options& options = {});

//! Published parameters when NCBI has them, else the estimate.
karlin_params karlin_params_for(const scoring_scheme& scheme);

//! BLAST's length adjustment ℓ (residues) for a query of m residues against a database of n
//! residues in d sequences.
std::int64_t length_adjustment(const karlin_params& p, std::uint64_t m, std::uint64_t n, std::uint64_t d);

//! The search space m'·n' (residue pairs) after the length adjustment.
double effective_search_space(const karlin_params& p, std::uint64_t m, std::uint64_t n, std::uint64_t d);

//! Natural logarithm of the E-value of raw score s in a search space of m'·n' residue pairs.
double ln_evalue(const karlin_params& p, std::int64_t s, double search_space);

//! Bit score (λS − ln K) / ln 2 of raw score s (never rounded to even, as in BLAST).
double bit_score(const karlin_params& p, std::int64_t s);

//! The smallest raw score ≥ 1 whose E-value is ≤ max_evalue in the given search space.
std::int64_t min_score_for_evalue(const karlin_params& p, double max_evalue, double search_space);

//! One line for notices, SAM @CO and JSON: "lambda=0.267 K=0.041 H=0.14 alpha=1.9 beta=-30
//! (NCBI BLAST table: BLOSUM62, gap 11/1)".
std::string describe(const karlin_params& p);

}  // namespace swat::scoring
