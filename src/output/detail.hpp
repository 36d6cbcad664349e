#pragma once
// Internals shared by the writers of src/output (not part of the public API).

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "output/karlin.hpp"
#include "output/output.hpp"

namespace swat::output::detail {

//! An alignment laid out column by column: residues or '-' in each row, plus water's markup
//! ('|' identical, ':' different with positive score, '.' other pair, ' ' gap).
struct aligned_rows {
  std::string query;
  std::string target;
  std::string markup;
  std::int64_t positives = 0;  //!< aligned pairs with substitution score > 0
};

//! Lays out aln over its sequences; all three strings have alignment_stats::length characters.
aligned_rows layout(const alignment& aln, residue_span query, residue_span target,
                    const scoring_scheme& scheme);

//! The letters of a whole encoded sequence.
std::string letters(residue_span residues, alphabet_kind kind);

//! s with tabs, carriage returns and newlines replaced by spaces (for one-line header fields).
std::string one_line(std::string_view s);

//! s as a JSON string literal, quotes included (", \ and control characters escaped).
std::string json_quote(std::string_view s);

//! Everything one hit's formatting needs, resolved once.
struct hit_view {
  const sequence_record& query;
  const sequence_record& target;
  const alignment& aln;
  alignment_stats stats;
  std::optional<double> evalue;     //!< nullopt when the scheme has no published λ, K
  std::optional<double> bit_score;  //!< same
};

//! Resolves h against ctx (stats, E-value, bit score). Throws std::out_of_range on bad indices.
hit_view view_of(const run_context& ctx, const std::optional<karlin_params>& params, const hit& h);

void write_blast6(std::ostream& out, const output_spec& spec, const run_context& ctx,
                  std::span<const hit> hits);
void write_sam(std::ostream& out, const run_context& ctx, std::span<const hit> hits);
void write_pair(std::ostream& out, const run_context& ctx, std::span<const hit> hits);
void write_json(std::ostream& out, const run_context& ctx, std::span<const hit> hits);

}  // namespace swat::output::detail
