#include "output/karlin.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace swat::output {
namespace {

//! One row of published gapped parameters for a protein matrix at given gap costs.
struct protein_row {
  std::string_view matrix;
  std::int32_t gap_open;
  std::int32_t gap_extend;
  double lambda;
  double k;
};

// Gapped λ and K of NCBI BLAST's precomputed tables, file
// ncbi-cxx-toolkit-public src/algo/blast/core/blast_stat.c (arrays blosum45_values,
// blosum50_values, blosum62_values, blosum80_values, blosum90_values, pam30_values,
// pam70_values, pam250_values). Each matrix appears at the gap costs NCBI uses by default,
// i.e. the row its *_prefs array marks BLAST_MATRIX_BEST (what
// BLAST_GetProteinGapExistenceExtendParams returns). NCBI's gap costs use the same convention as
// swat-gpu: a gap of k residues costs open + k·extend.
constexpr std::array<protein_row, 8> protein_rows{{
    {"BLOSUM45", 14, 2, 0.195, 0.032},
    {"BLOSUM50", 13, 2, 0.193, 0.035},
    {"BLOSUM62", 11, 1, 0.267, 0.041},
    {"BLOSUM80", 10, 1, 0.299, 0.071},
    {"BLOSUM90", 10, 1, 0.290, 0.075},
    {"PAM30", 9, 1, 0.294, 0.110},
    {"PAM70", 10, 1, 0.291, 0.091},
    {"PAM250", 14, 2, 0.182, 0.024},
}};

// blastn reward 2, penalty -3, gap 5/2 (the blastn task default): array blastn_values_2_3 of
// the same blast_stat.c, row {5, 2, 0.625, 0.41, ...}. NCBI notes these parameters apply to even
// scores only; odd scores are rounded down first.
constexpr double blastn_2_3_lambda = 0.625;
constexpr double blastn_2_3_k = 0.41;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

//! True when the DNA scheme is uniform match/mismatch over A C G T with N a mismatch.
bool is_dna_match_mismatch(const scoring_scheme& s, std::int32_t match, std::int32_t mismatch) {
  for (int a = 0; a < dna_size; ++a)
    for (int b = 0; b < dna_size; ++b) {
      const bool same = a == b && a != dna_n_rank;
      if (s.score(std::uint8_t(a), std::uint8_t(b)) != (same ? match : mismatch)) return false;
    }
  return true;
}

}  // namespace

std::optional<karlin_params> find_karlin_params(const scoring_scheme& scheme) {
  if (scheme.alphabet == alphabet_kind::protein) {
    for (const protein_row& r : protein_rows)
      if (iequals(scheme.matrix_name, r.matrix) && scheme.gap_open == r.gap_open &&
          scheme.gap_extend == r.gap_extend)
        return karlin_params{r.lambda, r.k, false};
    return std::nullopt;
  }
  if (scheme.gap_open == 5 && scheme.gap_extend == 2 && is_dna_match_mismatch(scheme, 2, -3))
    return karlin_params{blastn_2_3_lambda, blastn_2_3_k, true};
  return std::nullopt;
}

namespace {
std::int64_t effective_score(const karlin_params& p, std::int64_t s) {
  if (p.even_scores_only && s % 2 != 0) return s - 1;  // s > 0 here; rounds down to even
  return s;
}
}  // namespace

double bit_score(const karlin_params& p, std::int64_t s) {
  const double raw = double(effective_score(p, s));
  return (p.lambda * raw - std::log(p.k)) / std::log(2.0);
}

double evalue(const karlin_params& p, std::int64_t s, std::uint64_t m, std::uint64_t n) {
  const double raw = double(effective_score(p, s));
  return p.k * double(m) * double(n) * std::exp(-p.lambda * raw);
}

std::string format_evalue(double e) {
  if (e < 1.0e-180) return "0.0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2e", e);
  return buf;
}

std::string format_bit_score(double bits) {
  char buf[64];
  if (bits > 99999.0)
    std::snprintf(buf, sizeof buf, "%.3e", bits);
  else if (bits > 99.9)
    std::snprintf(buf, sizeof buf, "%.0f", bits);
  else
    std::snprintf(buf, sizeof buf, "%.1f", bits);
  return buf;
}

}  // namespace swat::output
