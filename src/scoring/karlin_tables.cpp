// NCBI BLAST's published gapped Karlin–Altschul parameters, looked up by matrix contents.
//
// Source: ncbi-cxx-toolkit-public, src/algo/blast/core/blast_stat.c (arrays blosum45_values …
// pam250_values for proteins; blastn_values_<reward>_<penalty> for DNA), which cite Altschul,
// Bundschuh, Olsen & Hwa 2001. Columns: gap open, gap extend, λ, K, H, α, β. The ungapped
// (INT2_MAX) rows and blastn's greedy (0, 0) rows do not apply to affine gaps and are left out.
// NCBI's gap convention equals swat-gpu's: a gap of k residues costs open + k·extend.
//
// DNA follows Blast_KarlinBlkNuclGappedCalc: reward and penalty are divided by their gcd g
// before the lookup, the tabulated gap costs are multiplied by g and λ and α divided by g; the
// 2/-7, 2/-5, 2/-3 and 3/-4 tables apply to even scores only (odd scores round down).

#include <array>
#include <numeric>
#include <span>
#include <string>
#include <string_view>

#include "scoring/karlin.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

struct table_row {
  int open, extend;
  double lambda, k, h, alpha, beta;
};

// clang-format off
constexpr table_row blosum45[] = {
    {13, 3, 0.207, 0.049, 0.14, 1.5, -22}, {12, 3, 0.199, 0.039, 0.11, 1.8, -34},
    {11, 3, 0.190, 0.031, 0.095, 2.0, -38}, {10, 3, 0.179, 0.023, 0.075, 2.4, -51},
    {16, 2, 0.210, 0.051, 0.14, 1.5, -24}, {15, 2, 0.203, 0.041, 0.12, 1.7, -31},
    {14, 2, 0.195, 0.032, 0.10, 1.9, -36}, {13, 2, 0.185, 0.024, 0.084, 2.2, -45},
    {12, 2, 0.171, 0.016, 0.061, 2.8, -65}, {19, 1, 0.205, 0.040, 0.11, 1.9, -43},
    {18, 1, 0.198, 0.032, 0.10, 2.0, -43}, {17, 1, 0.189, 0.024, 0.079, 2.4, -57},
    {16, 1, 0.176, 0.016, 0.063, 2.8, -67}};
constexpr table_row blosum50[] = {
    {13, 3, 0.212, 0.063, 0.19, 1.1, -16}, {12, 3, 0.206, 0.055, 0.17, 1.2, -18},
    {11, 3, 0.197, 0.042, 0.14, 1.4, -25}, {10, 3, 0.186, 0.031, 0.11, 1.7, -34},
    {9, 3, 0.172, 0.022, 0.082, 2.1, -48}, {16, 2, 0.215, 0.066, 0.20, 1.05, -15},
    {15, 2, 0.210, 0.058, 0.17, 1.2, -20}, {14, 2, 0.202, 0.045, 0.14, 1.4, -27},
    {13, 2, 0.193, 0.035, 0.12, 1.6, -32}, {12, 2, 0.181, 0.025, 0.095, 1.9, -41},
    {19, 1, 0.212, 0.057, 0.18, 1.2, -21}, {18, 1, 0.207, 0.050, 0.15, 1.4, -28},
    {17, 1, 0.198, 0.037, 0.12, 1.6, -33}, {16, 1, 0.186, 0.025, 0.10, 1.9, -42},
    {15, 1, 0.171, 0.015, 0.063, 2.7, -76}};
constexpr table_row blosum62[] = {
    {11, 2, 0.297, 0.082, 0.27, 1.1, -10}, {10, 2, 0.291, 0.075, 0.23, 1.3, -15},
    {9, 2, 0.279, 0.058, 0.19, 1.5, -19}, {8, 2, 0.264, 0.045, 0.15, 1.8, -26},
    {7, 2, 0.239, 0.027, 0.10, 2.5, -46}, {6, 2, 0.201, 0.012, 0.061, 3.3, -58},
    {13, 1, 0.292, 0.071, 0.23, 1.2, -11}, {12, 1, 0.283, 0.059, 0.19, 1.5, -19},
    {11, 1, 0.267, 0.041, 0.14, 1.9, -30}, {10, 1, 0.243, 0.024, 0.10, 2.5, -44},
    {9, 1, 0.206, 0.010, 0.052, 4.0, -87}};
constexpr table_row blosum80[] = {
    {25, 2, 0.342, 0.17, 0.66, 0.52, -1.6}, {13, 2, 0.336, 0.15, 0.57, 0.59, -3},
    {9, 2, 0.319, 0.11, 0.42, 0.76, -6}, {8, 2, 0.308, 0.090, 0.35, 0.89, -9},
    {7, 2, 0.293, 0.070, 0.27, 1.1, -14}, {6, 2, 0.268, 0.045, 0.19, 1.4, -19},
    {11, 1, 0.314, 0.095, 0.35, 0.90, -9}, {10, 1, 0.299, 0.071, 0.27, 1.1, -14},
    {9, 1, 0.279, 0.048, 0.20, 1.4, -19}};
constexpr table_row blosum90[] = {
    {9, 2, 0.310, 0.12, 0.46, 0.67, -6}, {8, 2, 0.300, 0.099, 0.39, 0.76, -7},
    {7, 2, 0.283, 0.072, 0.30, 0.93, -11}, {6, 2, 0.259, 0.048, 0.22, 1.2, -16},
    {11, 1, 0.302, 0.093, 0.39, 0.78, -8}, {10, 1, 0.290, 0.075, 0.28, 1.04, -15},
    {9, 1, 0.265, 0.044, 0.20, 1.3, -19}};
constexpr table_row pam30[] = {
    {7, 2, 0.305, 0.15, 0.87, 0.35, -3}, {6, 2, 0.287, 0.11, 0.68, 0.42, -4},
    {5, 2, 0.264, 0.079, 0.45, 0.59, -7}, {10, 1, 0.309, 0.15, 0.88, 0.35, -3},
    {9, 1, 0.294, 0.11, 0.61, 0.48, -6}, {8, 1, 0.270, 0.072, 0.40, 0.68, -10}};
constexpr table_row pam70[] = {
    {8, 2, 0.301, 0.12, 0.54, 0.56, -5}, {7, 2, 0.286, 0.093, 0.43, 0.67, -7},
    {6, 2, 0.264, 0.064, 0.29, 0.90, -12}, {11, 1, 0.305, 0.12, 0.52, 0.59, -6},
    {10, 1, 0.291, 0.091, 0.41, 0.71, -9}, {9, 1, 0.270, 0.060, 0.28, 0.97, -14}};
constexpr table_row pam250[] = {
    {15, 3, 0.205, 0.049, 0.13, 1.6, -23}, {14, 3, 0.200, 0.043, 0.12, 1.7, -26},
    {13, 3, 0.194, 0.036, 0.10, 1.9, -31}, {12, 3, 0.186, 0.029, 0.085, 2.2, -41},
    {11, 3, 0.174, 0.020, 0.070, 2.5, -48}, {17, 2, 0.204, 0.047, 0.12, 1.7, -28},
    {16, 2, 0.198, 0.038, 0.11, 1.8, -29}, {15, 2, 0.191, 0.031, 0.087, 2.2, -44},
    {14, 2, 0.182, 0.024, 0.073, 2.5, -53}, {13, 2, 0.171, 0.017, 0.059, 2.9, -64},
    {21, 1, 0.205, 0.045, 0.11, 1.8, -34}, {20, 1, 0.199, 0.037, 0.10, 1.9, -35},
    {19, 1, 0.192, 0.029, 0.083, 2.3, -52}, {18, 1, 0.183, 0.021, 0.070, 2.6, -60},
    {17, 1, 0.171, 0.014, 0.052, 3.3, -86}};

constexpr table_row blastn_1_5[] = {{3, 3, 1.39, 0.747, 1.38, 1.00, 0}};
constexpr table_row blastn_1_4[] = {
    {1, 2, 1.36, 0.67, 1.2, 1.1, 0}, {0, 2, 1.26, 0.43, 0.90, 1.4, -1},
    {2, 1, 1.35, 0.61, 1.1, 1.2, -1}, {1, 1, 1.22, 0.35, 0.72, 1.7, -3}};
constexpr table_row blastn_2_7[] = {
    {2, 4, 0.68, 0.67, 1.2, 0.55, 0}, {0, 4, 0.63, 0.43, 0.90, 0.7, -1},
    {4, 2, 0.675, 0.62, 1.1, 0.6, -1}, {2, 2, 0.61, 0.35, 0.72, 1.7, -3}};
constexpr table_row blastn_1_3[] = {
    {2, 2, 1.37, 0.70, 1.2, 1.1, 0}, {1, 2, 1.35, 0.64, 1.1, 1.2, -1},
    {0, 2, 1.25, 0.42, 0.83, 1.5, -2}, {2, 1, 1.34, 0.60, 1.1, 1.2, -1},
    {1, 1, 1.21, 0.34, 0.71, 1.7, -2}};
constexpr table_row blastn_2_5[] = {
    {2, 4, 0.67, 0.59, 1.1, 0.6, -1}, {0, 4, 0.62, 0.39, 0.78, 0.8, -2},
    {4, 2, 0.67, 0.61, 1.0, 0.65, -2}, {2, 2, 0.56, 0.32, 0.59, 0.95, -4}};
constexpr table_row blastn_1_2[] = {
    {2, 2, 1.33, 0.62, 1.1, 1.2, 0}, {1, 2, 1.30, 0.52, 0.93, 1.4, -2},
    {0, 2, 1.19, 0.34, 0.66, 1.8, -3}, {3, 1, 1.32, 0.57, 1.0, 1.3, -1},
    {2, 1, 1.29, 0.49, 0.92, 1.4, -1}, {1, 1, 1.14, 0.26, 0.52, 2.2, -5}};
constexpr table_row blastn_2_3[] = {
    {4, 4, 0.63, 0.42, 0.84, 0.75, -2}, {2, 4, 0.615, 0.37, 0.72, 0.85, -3},
    {0, 4, 0.55, 0.21, 0.46, 1.2, -5}, {3, 3, 0.615, 0.37, 0.68, 0.9, -3},
    {6, 2, 0.63, 0.42, 0.84, 0.75, -2}, {5, 2, 0.625, 0.41, 0.78, 0.8, -2},
    {4, 2, 0.61, 0.35, 0.68, 0.9, -3}, {2, 2, 0.515, 0.14, 0.33, 1.55, -9}};
constexpr table_row blastn_3_4[] = {
    {6, 3, 0.389, 0.25, 0.56, 0.7, -5}, {5, 3, 0.375, 0.21, 0.47, 0.8, -6},
    {4, 3, 0.351, 0.14, 0.35, 1.0, -9}, {6, 2, 0.362, 0.16, 0.45, 0.8, -4},
    {5, 2, 0.330, 0.092, 0.28, 1.2, -13}, {4, 2, 0.281, 0.046, 0.16, 1.8, -23}};
constexpr table_row blastn_4_5[] = {
    {6, 5, 0.28, 0.21, 0.47, 0.6, -7}, {5, 5, 0.27, 0.17, 0.39, 0.7, -9},
    {4, 5, 0.25, 0.10, 0.31, 0.8, -10}, {3, 5, 0.23, 0.065, 0.25, 0.9, -11}};
constexpr table_row blastn_1_1[] = {
    {3, 2, 1.09, 0.31, 0.55, 2.0, -2}, {2, 2, 1.07, 0.27, 0.49, 2.2, -3},
    {1, 2, 1.02, 0.21, 0.36, 2.8, -6}, {0, 2, 0.80, 0.064, 0.17, 4.8, -16},
    {4, 1, 1.08, 0.28, 0.54, 2.0, -2}, {3, 1, 1.06, 0.25, 0.46, 2.3, -4},
    {2, 1, 0.99, 0.17, 0.30, 3.3, -10}};
constexpr table_row blastn_3_2[] = {{5, 5, 0.208, 0.030, 0.072, 2.9, -47}};
constexpr table_row blastn_5_4[] = {{10, 6, 0.163, 0.068, 0.16, 1.0, -19}, {8, 6, 0.146, 0.039, 0.11, 1.3, -29}};
// clang-format on

struct protein_table {
  std::string_view matrix;
  std::span<const table_row> rows;
};
constexpr std::array<protein_table, 8> protein_tables{{
    {"BLOSUM45", blosum45}, {"BLOSUM50", blosum50}, {"BLOSUM62", blosum62}, {"BLOSUM80", blosum80},
    {"BLOSUM90", blosum90}, {"PAM30", pam30}, {"PAM70", pam70}, {"PAM250", pam250}}};

struct dna_table {
  int reward, penalty;  // penalty as a positive cost
  bool even_only;
  std::span<const table_row> rows;
};
constexpr std::array<dna_table, 12> dna_tables{{
    {1, 5, false, blastn_1_5}, {1, 4, false, blastn_1_4}, {2, 7, true, blastn_2_7},
    {1, 3, false, blastn_1_3}, {2, 5, true, blastn_2_5}, {1, 2, false, blastn_1_2},
    {2, 3, true, blastn_2_3}, {3, 4, true, blastn_3_4}, {4, 5, false, blastn_4_5},
    {1, 1, false, blastn_1_1}, {3, 2, false, blastn_3_2}, {5, 4, false, blastn_5_4}}};

//! The 20 standard amino acids; statistics depend on their scores only.
constexpr std::string_view standard_amino_acids = "ARNDCQEGHILKMFPSTWYV";

bool same_standard_scores(const scoring_scheme& a, const scoring_scheme& b) {
  const auto& rank = protein_rank_table();
  for (char x : standard_amino_acids)
    for (char y : standard_amino_acids) {
      const std::uint8_t i = rank[static_cast<unsigned char>(x)], j = rank[static_cast<unsigned char>(y)];
      if (a.score(i, j) != b.score(i, j)) return false;
    }
  return true;
}

karlin_params from_row(const table_row& r, double divisor, bool even_only, std::string origin) {
  karlin_params p;
  p.lambda = r.lambda / divisor;
  p.k = r.k;
  p.h = r.h;
  p.alpha = r.alpha / divisor;
  p.beta = r.beta;
  p.even_scores_only = even_only;
  p.source = karlin_source::ncbi_table;
  p.origin = std::move(origin);
  return p;
}

std::optional<karlin_params> published_protein(const scoring_scheme& scheme) {
  for (const protein_table& t : protein_tables) {
    const scoring_scheme reference = make_protein_scheme(t.matrix, scheme.gap_open, scheme.gap_extend);
    if (!same_standard_scores(scheme, reference)) continue;
    for (const table_row& r : t.rows)
      if (r.open == scheme.gap_open && r.extend == scheme.gap_extend)
        return from_row(r, 1.0, false,
                        "NCBI BLAST table: " + std::string(t.matrix) + ", gap " + std::to_string(r.open) + "/" +
                            std::to_string(r.extend));
    return std::nullopt;  // the matrix is known, these gap costs are not tabulated
  }
  return std::nullopt;
}

std::optional<karlin_params> published_dna(const scoring_scheme& scheme) {
  const int reward = scheme.score(0, 0), penalty = -scheme.score(0, 1);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (scheme.score(std::uint8_t(a), std::uint8_t(b)) != (a == b ? reward : -penalty)) return std::nullopt;
  if (reward <= 0 || penalty <= 0) return std::nullopt;
  const int g = std::gcd(reward, penalty);
  if (scheme.gap_open % g != 0 || scheme.gap_extend % g != 0) return std::nullopt;
  for (const dna_table& t : dna_tables) {
    if (t.reward != reward / g || t.penalty != penalty / g) continue;
    for (const table_row& r : t.rows)
      if (r.open * g == scheme.gap_open && r.extend * g == scheme.gap_extend)
        return from_row(r, double(g), t.even_only,
                        "NCBI BLAST table: blastn reward " + std::to_string(reward) + " penalty -" +
                            std::to_string(penalty) + ", gap " + std::to_string(scheme.gap_open) + "/" +
                            std::to_string(scheme.gap_extend));
  }
  return std::nullopt;
}

}  // namespace

std::optional<karlin_params> published_karlin_params(const scoring_scheme& scheme) {
  return scheme.alphabet == alphabet_kind::protein ? published_protein(scheme) : published_dna(scheme);
}

}  // namespace swat::scoring
