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
// E-values follow BLAST+ (blastp with -comp_based_stats 0, blastn):
//  - the classic formula E = K·m'·n'·e^(−λS) with the effective lengths m' = m − ℓ and
//    n' = N − D·ℓ, where ℓ is BLAST's length adjustment (BLAST_ComputeLengthAdjustment: the
//    fixed point of ℓ = (α/λ)·ln(K·m'·n') + β, rounded down), m the query length, N the database
//    residues and D the number of database sequences;
//  - for the built-in protein matrices at the gap costs BLAST+ tabulates, Spouge's finite-size
//    correction instead (Park, Sheetlin & Spouge 2012; BLAST_SpougeStoE in blast_stat.c), which
//    BLAST+ applies to every gapped protein search: E = K·A(S, m, n)·e^(−λS)·N/n for a target
//    of n residues, where A is the expected area of the alignment's rectangle (spouge.cpp).
// E-values are computed in log space, so values far below the double range stay exact.

#include <cstdint>
#include <optional>
#include <string>

#include "common/scoring_scheme.hpp"

namespace swat::scoring {

//! Where a scheme's parameters come from.
enum class karlin_source { ncbi_table, estimated };

//! The Gumbel parameters of Spouge's finite-size correction, as BLAST+ derives them from a row
//! of its gapped tables (Blast_GumbelBlkLoadFromTables): the mean length of an alignment of
//! score S along one sequence is a·S + b, its variance alpha·S + beta, the covariance of its
//! lengths along the two sequences sigma·S + tau (residues, residues², per raw score unit).
struct gumbel_params {
  double a = 0, b = 0;          //!< mean length: slope (residues per score unit), intercept (residues)
  double alpha = 0, beta = 0;   //!< variance of the length: slope, intercept (residues²)
  double sigma = 0, tau = 0;    //!< covariance of the two lengths: slope, intercept (residues²)
};

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
  //! Spouge's correction, set where BLAST+ applies it: a built-in protein matrix (by name and
  //! contents, not a --matrix-file copy) at gap costs its tables list.
  std::optional<gumbel_params> gumbel;
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

//! Natural logarithm of the E-value of raw score s by Spouge's correction (p.gumbel must be
//! set), as BLAST_SpougeStoE computes it: a query of m residues against a target of n residues
//! in a database of db_residues residues (lengths as they are, not adjusted). Where BLAST's
//! double underflows, the logarithm is still that of the true value (asymptotic normal tails).
double spouge_ln_evalue(const karlin_params& p, std::int64_t s, std::uint64_t m, std::uint64_t n,
                        std::uint64_t db_residues);

//! A raw score ≥ 1 below which no target of n_min…n_max residues has a Spouge E-value
//! ≤ max_evalue for a query of m residues (a floor, at most one or two units below the exact
//! smallest passing score of the most favourable length). p.gumbel must be set.
std::int64_t spouge_min_score_for_evalue(const karlin_params& p, double max_evalue, std::uint64_t m,
                                         std::uint64_t n_min, std::uint64_t n_max, std::uint64_t db_residues);

//! Bit score (λS − ln K) / ln 2 of raw score s (never rounded to even, as in BLAST).
double bit_score(const karlin_params& p, std::int64_t s);

//! The smallest raw score ≥ 1 whose E-value is ≤ max_evalue in the given search space.
std::int64_t min_score_for_evalue(const karlin_params& p, double max_evalue, double search_space);

//! One line for notices, SAM @CO and JSON: "lambda=0.267 K=0.041 H=0.14 alpha=1.9 beta=-30
//! (NCBI BLAST table: BLOSUM62, gap 11/1)".
std::string describe(const karlin_params& p);

}  // namespace swat::scoring
