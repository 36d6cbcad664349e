#pragma once
// Karlin–Altschul statistics of gapped local alignment scores (Karlin & Altschul 1990;
// Altschul et al. 2001 for the gapped λ and K estimates NCBI BLAST tabulates).

#include <cstdint>
#include <optional>
#include <string>

#include "common/scoring_scheme.hpp"

namespace swat::output {

//! Published gapped parameters of one scoring scheme.
struct karlin_params {
  double lambda;  //!< λ, per raw score unit
  double k;       //!< K, dimensionless
  //! True where NCBI applies λ and K only to even scores (odd scores are rounded down).
  bool even_scores_only = false;
};

//! λ and K for the scheme when NCBI BLAST publishes them (see karlin.cpp for the table and its
//! source), else nullopt. Protein: matched by matrix_name (case-insensitive) and the gap costs;
//! DNA: matched by the matrix contents (match/mismatch) and the gap costs.
std::optional<karlin_params> find_karlin_params(const scoring_scheme& scheme);

//! Bit score (λS − ln K) / ln 2 of raw score s (bits).
double bit_score(const karlin_params& p, std::int64_t s);

//! E-value K·m·N·e^(−λS) for query length m and database size n (residues). No edge-effect
//! (effective length) correction, so values are somewhat smaller than BLAST's.
double evalue(const karlin_params& p, std::int64_t s, std::uint64_t m, std::uint64_t n);

//! E-value text in the style of BLAST tabular output: "0.0" below 1e-180, else "%.2e".
std::string format_evalue(double e);

//! Bit score text in the style of BLAST: one decimal up to 99.9, a whole number above, and
//! "%.3e" above 99999 (BLAST's CAlignFormatUtil::GetScoreString thresholds).
std::string format_bit_score(double bits);

}  // namespace swat::output
