#pragma once
// Residue encodings shared by every engine (host and device code).
//
// DNA ranks:     A=0 C=1 G=2 T=3 N=4. U reads as T; every other IUPAC code (R Y K M S W B D H V N)
//                reads as N, which scores as a mismatch against everything, N included.
// Protein ranks: SeqAn3's aa27 order "ABCDEFGHIJKLMNOPQRSTUVWXYZ*" (A=0 … Z=25, '*'=26).
// Both are case-insensitive.

#include <array>
#include <cstdint>
#include <string_view>

namespace swat {

//! Which residue alphabet a sequence set and a scoring scheme use.
enum class alphabet_kind : std::uint8_t { dna, protein };

//! Number of ranks a substitution matrix row holds (stride of scoring_scheme::matrix).
inline constexpr int matrix_stride = 32;
//! Number of DNA ranks (A C G T N).
inline constexpr int dna_size = 5;
//! Rank of N in the DNA alphabet.
inline constexpr std::uint8_t dna_n_rank = 4;
//! Number of protein ranks (aa27).
inline constexpr int protein_size = 27;
//! Rank-to-letter tables.
inline constexpr std::string_view dna_letters = "ACGTN";
inline constexpr std::string_view protein_letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ*";

//! Marks a byte that is not a residue of the alphabet in the tables below.
inline constexpr std::uint8_t invalid_rank = 0xFF;

//! Byte → DNA rank (invalid_rank for bytes that are not IUPAC nucleotide codes).
const std::array<std::uint8_t, 256>& dna_rank_table();
//! Byte → protein rank (invalid_rank for bytes outside aa27, case-insensitive).
const std::array<std::uint8_t, 256>& protein_rank_table();

//! Letter of a rank (upper case).
inline char rank_to_char(alphabet_kind kind, std::uint8_t rank) {
  return kind == alphabet_kind::dna ? dna_letters[rank] : protein_letters[rank];
}

//! "dna" or "protein".
std::string_view to_string(alphabet_kind kind);

}  // namespace swat
