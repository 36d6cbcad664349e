#include "io/fasta.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"
#include "io/fasta_scan.hpp"
#include "io/seqan3_fasta.hpp"
#include "io/text_file.hpp"

namespace swat::io {
namespace {

//! Minimum share of A/C/G/T/U/N (either case) among the residues of a DNA input, in percent.
constexpr std::uint64_t dna_core_percent = 90;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string show_residue(unsigned char c) {
  if (c > 0x20 && c < 0x7F) return "'" + std::string(1, static_cast<char>(c)) + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
  return buf;
}

// Encodes raw residues into ranks; names the first invalid one (1-based position).
std::vector<std::uint8_t> encode(const std::string& raw, alphabet_kind kind, bool detected,
                                 const std::string& path, const std::string& label) {
  const auto& table = kind == alphabet_kind::dna ? dna_rank_table() : protein_rank_table();
  std::vector<std::uint8_t> ranks(raw.size());
  std::uint8_t any_invalid = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const std::uint8_t rank = table[static_cast<unsigned char>(raw[i])];
    any_invalid |= static_cast<std::uint8_t>(rank == invalid_rank);
    ranks[i] = rank;
  }
  if (any_invalid) {
    std::size_t i = 0;
    while (ranks[i] != invalid_rank) ++i;
    std::string what = "invalid residue " + show_residue(static_cast<unsigned char>(raw[i])) +
                       " for " + std::string(to_string(kind));
    if (detected) what += " (alphabet detected automatically)";
    throw input_error(path, what, label, i + 1);
  }
  return ranks;
}

}  // namespace

alphabet_request parse_alphabet_request(std::string_view name) {
  const std::string key = lower(name);
  if (key == "auto") return alphabet_request::auto_detect;
  if (key == "dna") return alphabet_request::dna;
  if (key == "protein") return alphabet_request::protein;
  throw usage_error("unknown alphabet '" + std::string(name) + "' (expected auto, dna or protein)");
}

std::string_view to_string(alphabet_request request) {
  switch (request) {
    case alphabet_request::auto_detect:
      return "auto";
    case alphabet_request::dna:
      return "dna";
    case alphabet_request::protein:
      return "protein";
  }
  throw std::invalid_argument("unknown alphabet_request");
}

alphabet_kind detect_alphabet(std::span<const std::string_view> sequences) {
  std::array<std::uint64_t, 256> counts{};
  for (const std::string_view s : sequences)
    for (const char c : s) ++counts[static_cast<unsigned char>(c)];
  const auto& dna = dna_rank_table();
  std::uint64_t total = 0;
  std::uint64_t core = 0;
  for (int c = 0; c < 256; ++c) {
    if (counts[c] == 0) continue;
    if (dna[c] == invalid_rank) return alphabet_kind::protein;
    total += counts[c];
  }
  for (const char c : std::string_view("ACGTUNacgtun"))
    core += counts[static_cast<unsigned char>(c)];
  return core * 100 >= total * dna_core_percent ? alphabet_kind::dna : alphabet_kind::protein;
}

alphabet_kind detect_alphabet(std::string_view residues) {
  return detect_alphabet(std::span<const std::string_view>(&residues, 1));
}

sequence_set read_fasta(const std::string& path, alphabet_request request, const warning_fn& warn) {
  detail::text_file file = detail::read_text_file(path, detail::may_be_fasta);
  const detail::fasta_scan scan = detail::scan_fasta(file.text, path);
  const auto& scanned = scan.records;

  // Records without residues at the end are left out of SeqAn3's input (it throws on a header
  // at the very end of the text); every empty record is skipped below anyway.
  std::size_t parsed_count = scanned.size();
  while (parsed_count > 0 && scanned[parsed_count - 1].residues == 0) --parsed_count;
  if (parsed_count == 0)
    throw input_error(path, scanned.size() == 1 ? "the only record has no residues"
                                                : "none of the " + std::to_string(scanned.size()) +
                                                      " records has residues");
  std::vector<std::string> headers;  // of the trailing empty records, which SeqAn3 won't see
  for (std::size_t r = parsed_count; r < scanned.size(); ++r)
    headers.emplace_back(scanned[r].header);
  const std::size_t end =
      parsed_count < scanned.size() ? scanned[parsed_count].header_offset : file.text.size();
  file.text.resize(end);
  file.text.erase(0, scan.first_header);
  std::vector<detail::raw_record> raw = detail::parse_fasta_text(std::move(file.text), path);

  // The scan and SeqAn3 must agree record for record; anything else is a bug here.
  if (raw.size() != parsed_count)
    throw std::logic_error(path + ": FASTA scan found " + std::to_string(parsed_count) +
                           " records, SeqAn3 " + std::to_string(raw.size()));
  for (std::size_t r = 0; r < raw.size(); ++r)
    if (raw[r].residues.size() != scan.records[r].residues)
      throw std::logic_error(path + ": FASTA scan and SeqAn3 disagree on the length of " +
                             detail::record_label(r, {}));
  for (std::string& h : headers) raw.push_back({std::move(h), {}});

  alphabet_kind kind =
      request == alphabet_request::protein ? alphabet_kind::protein : alphabet_kind::dna;
  if (request == alphabet_request::auto_detect) {
    std::vector<std::string_view> views;
    views.reserve(raw.size());
    for (const auto& r : raw) views.emplace_back(r.residues);
    kind = detect_alphabet(views);
  }

  sequence_set set;
  set.file = path;
  set.alphabet = kind;
  set.records.reserve(raw.size());
  for (std::size_t r = 0; r < raw.size(); ++r) {
    const detail::header_parts parts = detail::split_header(raw[r].header);
    const std::string label = detail::record_label(r, parts.name);
    if (parts.name.empty()) throw input_error(path, "header has no name", label);
    if (raw[r].residues.empty()) {
      if (warn) warn(path + ":" + label + ": record has no residues, skipped");
      continue;
    }
    set.records.push_back(
        {std::string(parts.name), std::string(parts.description),
         encode(raw[r].residues, kind, request == alphabet_request::auto_detect, path, label)});
  }
  return set;
}

}  // namespace swat::io
