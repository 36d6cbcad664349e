// FASTA input: read_fasta's two passes (structure and counts, then encoding into one arena of
// exactly the counted size, every record's residues end to end), alphabet requests and the
// auto-detection rule.

#include "io/fasta.hpp"

#include <algorithm>
#include <atomic>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"
#include "common/parallel.hpp"
#include "io/fasta_parallel.hpp"
#include "io/fasta_scan.hpp"
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

//! Decompressed bytes read and scanned at a time (smaller for small plain files).
constexpr std::size_t chunk_bytes = std::size_t(1) << 20;
constexpr std::size_t min_chunk_bytes = std::size_t(1) << 16;

//! Reads until out is full or the file ends (the first chunk is then whole for the scan's
//! checks of the file start); returns the bytes read.
std::size_t read_full(detail::input_file& in, std::vector<char>& out) {
  std::size_t have = 0;
  while (have < out.size()) {
    const std::size_t got = in.read(out.data() + have, out.size() - have);
    if (got == 0) break;
    have += got;
  }
  return have;
}

alphabet_kind detect_from_counts(const std::array<std::uint64_t, 256>& counts) {
  const auto& dna = dna_rank_table();
  std::uint64_t total = 0;
  std::uint64_t core = 0;
  for (int c = 0; c < 256; ++c) {
    if (counts[c] == 0) continue;
    if (dna[c] == invalid_rank) return alphabet_kind::protein;
    total += counts[c];
  }
  for (const char c : std::string_view("ACGTUNacgtun")) core += counts[static_cast<unsigned char>(c)];
  return core * 100 >= total * dna_core_percent ? alphabet_kind::dna : alphabet_kind::protein;
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
  return detect_from_counts(counts);
}

alphabet_kind detect_alphabet(std::string_view residues) {
  return detect_alphabet(std::span<const std::string_view>(&residues, 1));
}

namespace {

//! After pass 1: throws when no record holds residues; the alphabet to encode into.
alphabet_kind alphabet_after_scan(const std::string& path, const std::vector<detail::scanned_record>& records,
                                  const std::array<std::uint64_t, 256>& counts, alphabet_request request) {
  std::size_t with_residues = 0;
  for (const auto& r : records) with_residues += r.residues > 0;
  if (with_residues == 0)
    throw input_error(path, records.size() == 1 ? "the only record has no residues"
                                                : "none of the " + std::to_string(records.size()) +
                                                      " records has residues");
  if (request == alphabet_request::auto_detect) return detect_from_counts(counts);
  return request == alphabet_request::protein ? alphabet_kind::protein : alphabet_kind::dna;
}

//! How errors name the alphabet: "dna", "protein (alphabet detected automatically)".
std::string alphabet_what(alphabet_kind kind, alphabet_request request) {
  std::string what = std::string(to_string(kind));
  if (request == alphabet_request::auto_detect) what += " (alphabet detected automatically)";
  return what;
}

const std::array<std::uint8_t, 256>& table_of(alphabet_kind kind) {
  return kind == alphabet_kind::dna ? dna_rank_table() : protein_rank_table();
}

//! What pass 2 checks when record r starts: its header has a name; an empty record is skipped
//! with a warning.
void check_record(const std::string& path, const std::vector<detail::scanned_record>& records, std::size_t r,
                  const warning_fn& warn) {
  const detail::header_parts parts = detail::split_header(records[r].header);
  if (parts.name.empty()) throw input_error(path, "header has no name", detail::record_label(r, parts.name));
  if (records[r].residues == 0 && warn)
    warn(path + ":" + detail::record_label(r, parts.name) + ": record has no residues, skipped");
}

//! The records with residues, in file order, on up to `threads` threads (0: every core);
//! take(r) gives record r's ranks (a view of arena).
template <typename Take>
sequence_set make_set(const std::string& path, alphabet_kind kind, const std::vector<detail::scanned_record>& records,
                      std::shared_ptr<std::uint8_t[]> arena, Take&& take, unsigned threads) {
  sequence_set set;
  set.file = path;
  set.alphabet = kind;
  set.backing.push_back(std::move(arena));
  std::vector<std::size_t> slot(records.size());  // record r's place in the set (records with residues)
  std::size_t kept = 0;
  for (std::size_t r = 0; r < records.size(); ++r) {
    slot[r] = kept;
    kept += records[r].residues > 0;
  }
  set.records.resize(kept);
  parallel_for(records.size(), threads, 4096, [&](std::size_t r) {
    if (records[r].residues == 0) return;
    const detail::header_parts parts = detail::split_header(records[r].header);
    sequence_record& out = set.records[slot[r]];
    out.name.assign(parts.name);
    out.description.assign(parts.description);
    out.residues = take(r);
  });
  return set;
}

}  // namespace

namespace detail {

std::optional<sequence_set> read_fasta_in_pieces(const std::string& path, std::uint64_t bytes, int pieces,
                                                 alphabet_request request, const warning_fn& warn, unsigned threads) {
  piece_reader reader(path, bytes, pieces);
  if (reader.pieces() < 2 || !reader.scan()) return std::nullopt;
  // Pass 1 found nothing wrong in any piece, so its records are the sequential reader's: the
  // checks that follow throw what it would throw.
  const auto& records = reader.records();
  const alphabet_kind kind = alphabet_after_scan(path, records, reader.residue_counts(), request);
  if (!reader.encode(table_of(kind), alphabet_what(kind, request))) return std::nullopt;
  // No residue is invalid: the names and empty records are the first things to report, in the
  // sequential reader's order: the empty records' warnings up to the first record without a
  // name, which throws (the names looked for on every thread).
  std::atomic<std::size_t> first_unnamed{records.size()};
  parallel_for(records.size(), threads, 4096, [&](std::size_t r) {
    if (!detail::split_header(records[r].header).name.empty()) return;
    for (std::size_t seen = first_unnamed.load(); r < seen && !first_unnamed.compare_exchange_weak(seen, r);) {
    }
  });
  for (std::size_t r = 0; r < records.size(); ++r)
    if (r == first_unnamed.load() || records[r].residues == 0) check_record(path, records, r, warn);
  return make_set(path, kind, records, reader.arena(), [&](std::size_t r) { return reader.take(r); }, threads);
}

}  // namespace detail

sequence_set read_fasta(const std::string& path, alphabet_request request, const warning_fn& warn,
                        unsigned max_threads) {
  detail::input_file in(path);
  // A large plain file: both passes on pieces of it in parallel (the sequential passes below
  // run when that gives up, and report what is wrong).
  if (path != "-" && !in.compressed() && in.rewindable()) {  // pieces open the path by name
    if (const int pieces = detail::parallel_pieces(in.size_hint(), max_threads); pieces > 1)
      if (auto set = detail::read_fasta_in_pieces(path, in.size_hint(), pieces, request, warn, max_threads)) return std::move(*set);
  }
  // Pass 1: structure, residue counts, alphabet. A file that cannot be read twice (a pipe) is
  // kept in memory for pass 2; a regular file is read again.
  const std::uint64_t hint = in.compressed() || in.size_hint() == 0 ? chunk_bytes : in.size_hint() + 1;
  std::vector<char> chunk(std::size_t(std::clamp<std::uint64_t>(hint, min_chunk_bytes, chunk_bytes)));
  std::string kept;
  detail::fasta_scan scan(path);
  while (const std::size_t n = read_full(in, chunk)) {
    if (!in.rewindable()) kept.append(chunk.data(), n);
    scan.feed({chunk.data(), n});
  }
  scan.finish();
  const auto& records = scan.records();
  const alphabet_kind kind = alphabet_after_scan(path, records, scan.residue_counts(), request);

  // Pass 2: names checked, empty records skipped, residues encoded, all in file order.
  auto arena = detail::residue_arena(detail::residues_of(records));
  detail::fasta_encoder encoder(path, table_of(kind), alphabet_what(kind, request), records,
                                [&](std::size_t r) { check_record(path, records, r, warn); }, arena.get());
  if (in.rewindable()) {
    in.rewind();
    while (const std::size_t n = read_full(in, chunk)) encoder.feed({chunk.data(), n});
  } else {
    encoder.feed(kept);
    std::string().swap(kept);
  }
  encoder.finish();
  return make_set(path, kind, records, std::move(arena),
                  [&](std::size_t r) { return residue_store::writable_view_of(encoder.ranks(r)); }, max_threads);
}

sequence_set read_fasta_text(const std::string& label, std::string_view text, alphabet_request request,
                             const warning_fn& warn) {
  // The two passes of read_fasta over bytes already in memory.
  detail::fasta_scan scan(label);
  scan.feed(text);
  scan.finish();
  const auto& records = scan.records();
  const alphabet_kind kind = alphabet_after_scan(label, records, scan.residue_counts(), request);
  auto arena = detail::residue_arena(detail::residues_of(records));
  detail::fasta_encoder encoder(label, table_of(kind), alphabet_what(kind, request), records,
                                [&](std::size_t r) { check_record(label, records, r, warn); }, arena.get());
  encoder.feed(text);
  encoder.finish();
  return make_set(label, kind, records, std::move(arena),
                  [&](std::size_t r) { return residue_store::writable_view_of(encoder.ranks(r)); }, 0);
}

}  // namespace swat::io
