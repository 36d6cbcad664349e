// NCBI BLAST's published gapped Karlin–Altschul parameters, looked up by matrix contents.
//
// Source: ncbi-cxx-toolkit-public, src/algo/blast/core/blast_stat.c (arrays blosum45_values …
// pam250_values for proteins; blastn_values_<reward>_<penalty> for DNA), which cite Altschul,
// Bundschuh, Olsen & Hwa 2001. Columns: gap open, gap extend, λ, K, H, α, β, and for proteins
// the Gumbel columns C, Alpha, Sigma of Spouge's finite-size correction (Park, Sheetlin &
// Spouge 2012), transcribed from the BLAST+ 2.16 source and checked against blastp 2.12's
// E-values. The ungapped (INT2_MAX) protein rows serve only the Gumbel parameters (a_un,
// Alpha_un); blastn's greedy (0, 0) rows do not apply to affine gaps and are left out.
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
  // Protein tables only: the Gumbel columns C, Alpha and Sigma of Spouge's correction.
  double c = 0, alpha_v = 0, sigma = 0;
};

// clang-format off
constexpr table_row blosum45_ungapped = {0, 0, 0.2291, 0.0924, 0.2514, 0.9113, -5.7, 0.641318, 9.611060, 9.611060};
constexpr table_row blosum45[] = {
    {13, 3, 0.207, 0.049, 0.14, 1.5, -22, 0.671128, 35.855900, 35.963900},
    {12, 3, 0.199, 0.039, 0.11, 1.8, -34, 0.691530, 45.693600, 45.851700},
    {11, 3, 0.190, 0.031, 0.095, 2.0, -38, 0.691181, 62.874100, 63.103700},
    {10, 3, 0.179, 0.023, 0.075, 2.4, -51, 0.710529, 88.286800, 88.639100},
    {16, 2, 0.210, 0.051, 0.14, 1.5, -24, 0.666680, 36.279800, 36.452400},
    {15, 2, 0.203, 0.041, 0.12, 1.7, -31, 0.673871, 44.825700, 45.060400},
    {14, 2, 0.195, 0.032, 0.10, 1.9, -36, 0.685753, 60.736200, 61.102300},
    {13, 2, 0.185, 0.024, 0.084, 2.2, -45, 0.698480, 85.148100, 85.689400},
    {12, 2, 0.171, 0.016, 0.061, 2.8, -65, 0.713429, 127.758000, 128.582000},
    {19, 1, 0.205, 0.040, 0.11, 1.9, -43, 0.672302, 53.071400, 53.828200},
    {18, 1, 0.198, 0.032, 0.10, 2.0, -43, 0.682580, 72.342400, 73.403900},
    {17, 1, 0.189, 0.024, 0.079, 2.4, -57, 0.695035, 103.055000, 104.721000},
    {16, 1, 0.176, 0.016, 0.063, 2.8, -67, 0.712966, 170.100000, 173.003000}};
constexpr table_row blosum50_ungapped = {0, 0, 0.2318, 0.112, 0.3362, 0.6895, -4.0, 0.609639, 5.388310, 5.388310};
constexpr table_row blosum50[] = {
    {13, 3, 0.212, 0.063, 0.19, 1.1, -16, 0.639287, 18.113800, 18.202800},
    {12, 3, 0.206, 0.055, 0.17, 1.2, -18, 0.644715, 22.654600, 22.777700},
    {11, 3, 0.197, 0.042, 0.14, 1.4, -25, 0.656327, 29.861100, 30.045700},
    {10, 3, 0.186, 0.031, 0.11, 1.7, -34, 0.671150, 42.393800, 42.674000},
    {9, 3, 0.172, 0.022, 0.082, 2.1, -48, 0.694326, 66.069600, 66.516400},
    {16, 2, 0.215, 0.066, 0.20, 1.05, -15, 0.633899, 17.951800, 18.092100},
    {15, 2, 0.210, 0.058, 0.17, 1.2, -20, 0.641985, 21.940100, 22.141800},
    {14, 2, 0.202, 0.045, 0.14, 1.4, -27, 0.650682, 28.681200, 28.961900},
    {13, 2, 0.193, 0.035, 0.12, 1.6, -32, 0.660984, 42.059500, 42.471600},
    {12, 2, 0.181, 0.025, 0.095, 1.9, -41, 0.678090, 63.747600, 64.397300},
    {19, 1, 0.212, 0.057, 0.18, 1.2, -21, 0.635714, 26.311200, 26.923300},
    {18, 1, 0.207, 0.050, 0.15, 1.4, -28, 0.643523, 34.903700, 35.734800},
    {17, 1, 0.198, 0.037, 0.12, 1.6, -33, 0.654504, 48.895800, 50.148600},
    {16, 1, 0.186, 0.025, 0.10, 1.9, -42, 0.667750, 76.469100, 78.443000},
    {15, 1, 0.171, 0.015, 0.063, 2.7, -76, 0.694575, 140.053000, 144.160000}};
constexpr table_row blosum62_ungapped = {0, 0, 0.3176, 0.134, 0.4012, 0.7916, -3.2, 0.623757, 4.964660, 4.964660};
constexpr table_row blosum62[] = {
    {11, 2, 0.297, 0.082, 0.27, 1.1, -10, 0.641766, 12.673800, 12.757600},
    {10, 2, 0.291, 0.075, 0.23, 1.3, -15, 0.649362, 16.474000, 16.602600},
    {9, 2, 0.279, 0.058, 0.19, 1.5, -19, 0.659245, 22.751900, 22.950000},
    {8, 2, 0.264, 0.045, 0.15, 1.8, -26, 0.672692, 35.483800, 35.821300},
    {7, 2, 0.239, 0.027, 0.10, 2.5, -46, 0.702056, 61.238300, 61.886000},
    {6, 2, 0.201, 0.012, 0.061, 3.3, -58, 0.740802, 140.417000, 141.882000},
    {13, 1, 0.292, 0.071, 0.23, 1.2, -11, 0.647715, 19.506300, 19.893100},
    {12, 1, 0.283, 0.059, 0.19, 1.5, -19, 0.656391, 27.856200, 28.469900},
    {11, 1, 0.267, 0.041, 0.14, 1.9, -30, 0.669720, 42.602800, 43.636200},
    {10, 1, 0.243, 0.024, 0.10, 2.5, -44, 0.693267, 83.178700, 85.065600},
    {9, 1, 0.206, 0.010, 0.052, 4.0, -87, 0.731887, 210.333000, 214.842000}};
constexpr table_row blosum80_ungapped = {0, 0, 0.3430, 0.177, 0.6568, 0.5222, -1.6, 0.564057, 1.918130, 1.918130};
constexpr table_row blosum80[] = {
    {25, 2, 0.342, 0.17, 0.66, 0.52, -1.6, 0.563956, 1.731000, 1.731300},
    {13, 2, 0.336, 0.15, 0.57, 0.59, -3, 0.570979, 2.673470, 2.692300},
    {9, 2, 0.319, 0.11, 0.42, 0.76, -6, 0.587837, 5.576090, 5.667860},
    {8, 2, 0.308, 0.090, 0.35, 0.89, -9, 0.597556, 7.536950, 7.686230},
    {7, 2, 0.293, 0.070, 0.27, 1.1, -14, 0.615254, 11.586600, 11.840400},
    {6, 2, 0.268, 0.045, 0.19, 1.4, -19, 0.644054, 19.958100, 20.441200},
    {11, 1, 0.314, 0.095, 0.35, 0.90, -9, 0.590702, 8.808610, 9.223320},
    {10, 1, 0.299, 0.071, 0.27, 1.1, -14, 0.609620, 13.833800, 14.533400},
    {9, 1, 0.279, 0.048, 0.20, 1.4, -19, 0.623800, 24.252000, 25.490400}};
constexpr table_row blosum90_ungapped = {0, 0, 0.3346, 0.190, 0.7547, 0.4434, -1.4, 0.544178, 1.377760, 1.377760};
constexpr table_row blosum90[] = {
    {9, 2, 0.310, 0.12, 0.46, 0.67, -6, 0.570267, 4.232290, 4.334170},
    {8, 2, 0.300, 0.099, 0.39, 0.76, -7, 0.581580, 5.797020, 5.961420},
    {7, 2, 0.283, 0.072, 0.30, 0.93, -11, 0.600024, 9.040880, 9.321600},
    {6, 2, 0.259, 0.048, 0.22, 1.2, -16, 0.629344, 16.024400, 16.531600},
    {11, 1, 0.302, 0.093, 0.39, 0.78, -8, 0.576919, 7.143250, 7.619190},
    {10, 1, 0.290, 0.075, 0.28, 1.04, -15, 0.591366, 11.483900, 12.269800},
    {9, 1, 0.265, 0.044, 0.20, 1.3, -19, 0.613013, 21.408300, 22.840900}};
constexpr table_row pam30_ungapped = {0, 0, 0.3400, 0.283, 1.754, 0.1938, -0.3, 0.436164, 0.161818, 0.161818};
constexpr table_row pam30[] = {
    {7, 2, 0.305, 0.15, 0.87, 0.35, -3, 0.479087, 1.014010, 1.162730},
    {6, 2, 0.287, 0.11, 0.68, 0.42, -4, 0.499980, 1.688060, 1.951430},
    {5, 2, 0.264, 0.079, 0.45, 0.59, -7, 0.533009, 3.377010, 3.871950},
    {10, 1, 0.309, 0.15, 0.88, 0.35, -3, 0.474741, 1.372050, 1.788770},
    {9, 1, 0.294, 0.11, 0.61, 0.48, -6, 0.492716, 2.463920, 3.186150},
    {8, 1, 0.270, 0.072, 0.40, 0.68, -10, 0.521286, 5.368130, 6.763480},
    {15, 3, 0.339, 0.28, 1.70, 0.20, -0.5, 0.437688, 0.157089, 0.155299},
    {14, 2, 0.337, 0.27, 1.62, 0.21, -0.8, 0.440010, 0.206970, 0.198524},
    {14, 1, 0.333, 0.27, 1.43, 0.23, -1.4, 0.444817, 0.436301, 0.361947},
    {13, 3, 0.338, 0.27, 1.69, 0.20, -0.5, 0.439086, 0.178973, 0.175436}};
constexpr table_row pam70_ungapped = {0, 0, 0.3345, 0.229, 1.029, 0.3250, -0.7, 0.511296, 0.633439, 0.633439};
constexpr table_row pam70[] = {
    {8, 2, 0.301, 0.12, 0.54, 0.56, -5, 0.549019, 2.881650, 3.025710},
    {7, 2, 0.286, 0.093, 0.43, 0.67, -7, 0.565659, 4.534540, 4.785780},
    {6, 2, 0.264, 0.064, 0.29, 0.90, -12, 0.596330, 7.942630, 8.402720},
    {11, 1, 0.305, 0.12, 0.52, 0.59, -6, 0.543514, 3.681400, 4.108020},
    {10, 1, 0.291, 0.091, 0.41, 0.71, -9, 0.560723, 6.002970, 6.716570},
    {9, 1, 0.270, 0.060, 0.28, 0.97, -14, 0.585186, 11.360800, 12.636700},
    {11, 2, 0.323, 0.186, 0.80, 1.32, -27, 0.524062, 1.321301, 1.281671},
    {12, 3, 0.330, 0.219, 0.93, 0.82, -16, 0.516845, 0.818768, 0.811240}};
constexpr table_row pam250_ungapped = {0, 0, 0.2252, 0.0868, 0.2223, 0.98, -5.0, 0.660059, 11.754300, 11.754300};
constexpr table_row pam250[] = {
    {15, 3, 0.205, 0.049, 0.13, 1.6, -23, 0.687656, 34.578400, 34.928000},
    {14, 3, 0.200, 0.043, 0.12, 1.7, -26, 0.689768, 43.353000, 43.443800},
    {13, 3, 0.194, 0.036, 0.10, 1.9, -31, 0.697431, 50.948500, 51.081700},
    {12, 3, 0.186, 0.029, 0.085, 2.2, -41, 0.704565, 69.606500, 69.793600},
    {11, 3, 0.174, 0.020, 0.070, 2.5, -48, 0.722438, 98.653500, 98.927100},
    {17, 2, 0.204, 0.047, 0.12, 1.7, -28, 0.684799, 41.583800, 41.735800},
    {16, 2, 0.198, 0.038, 0.11, 1.8, -29, 0.691098, 51.635200, 51.843900},
    {15, 2, 0.191, 0.031, 0.087, 2.2, -44, 0.699051, 67.256700, 67.558500},
    {14, 2, 0.182, 0.024, 0.073, 2.5, -53, 0.714103, 96.315100, 96.756800},
    {13, 2, 0.171, 0.017, 0.059, 2.9, -64, 0.728738, 135.653000, 136.339000},
    {21, 1, 0.205, 0.045, 0.11, 1.8, -34, 0.683265, 48.728200, 49.218800},
    {20, 1, 0.199, 0.037, 0.10, 1.9, -35, 0.689380, 60.832000, 61.514100},
    {19, 1, 0.192, 0.029, 0.083, 2.3, -52, 0.696344, 84.019700, 84.985600},
    {18, 1, 0.183, 0.021, 0.070, 2.6, -60, 0.710525, 113.829000, 115.184000},
    {17, 1, 0.171, 0.014, 0.052, 3.3, -86, 0.727000, 175.071000, 177.196000}};

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
  const table_row& ungapped;  // BLAST's INT2_MAX row: a_un and Alpha_un of the Gumbel parameters
  std::span<const table_row> rows;
};
constexpr std::array<protein_table, 8> protein_tables{{{"BLOSUM45", blosum45_ungapped, blosum45},
                                                       {"BLOSUM50", blosum50_ungapped, blosum50},
                                                       {"BLOSUM62", blosum62_ungapped, blosum62},
                                                       {"BLOSUM80", blosum80_ungapped, blosum80},
                                                       {"BLOSUM90", blosum90_ungapped, blosum90},
                                                       {"PAM30", pam30_ungapped, pam30},
                                                       {"PAM70", pam70_ungapped, pam70},
                                                       {"PAM250", pam250_ungapped, pam250}}};

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

// As Blast_GumbelBlkLoadFromTables: with G = open + extend, b = 2G(a_un − a),
// beta = 2G(Alpha_un − Alpha), tau = 2G(Alpha_un − Sigma), where a is the row's α and the _un
// values are those of the matrix's ungapped row.
gumbel_params gumbel_of(const table_row& r, const table_row& ungapped) {
  const double g = double(r.open + r.extend);
  gumbel_params p;
  p.a = r.alpha;
  p.b = 2.0 * g * (ungapped.alpha - r.alpha);
  p.alpha = r.alpha_v;
  p.beta = 2.0 * g * (ungapped.alpha_v - r.alpha_v);
  p.sigma = r.sigma;
  p.tau = 2.0 * g * (ungapped.alpha_v - r.sigma);
  return p;
}

std::optional<karlin_params> published_protein(const scoring_scheme& scheme) {
  for (const protein_table& t : protein_tables) {
    const scoring_scheme reference = make_protein_scheme(t.matrix, scheme.gap_open, scheme.gap_extend);
    if (!same_standard_scores(scheme, reference)) continue;
    for (const table_row& r : t.rows)
      if (r.open == scheme.gap_open && r.extend == scheme.gap_extend) {
        // Spouge's correction for the built-in matrix itself (its name and every score), as
        // blastp -matrix NAME; a --matrix-file scheme keeps the classic formula.
        const bool builtin = scheme == reference;
        karlin_params p = from_row(r, 1.0, false,
                                   "NCBI BLAST table: " + std::string(t.matrix) + ", gap " + std::to_string(r.open) +
                                       "/" + std::to_string(r.extend) +
                                       (builtin ? ", Spouge's finite-size correction" : ""));
        if (builtin) p.gumbel = gumbel_of(r, t.ungapped);
        return p;
      }
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
