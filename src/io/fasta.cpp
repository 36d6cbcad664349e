#include "io/fasta.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
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
  if (c > 0x20 && c < 0x7F) return std::string{'\'', static_cast<char>(c), '\''};
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
  return buf;
}

// Encodes raw residues into ranks; names the first invalid one (1-based position).
std::vector<std::uint8_t> encode(const std::string& raw, alphabet_kind kind, bool detected,
                                 const std::string& path, std::size_t record, std::string_view name) {
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
    // Appended piecewise (operator+ chains trip a GCC 12 -Wrestrict false positive).
    std::string what("invalid residue ");
    what.append(show_residue(static_cast<unsigned char>(raw[i]))).append(" for ").append(to_string(kind));
    if (detected) what += " (alphabet detected automatically)";
    throw input_error(path, what, detail::record_label(record, name), i + 1);
  }
  return ranks;
}

//! Byte counts of residue letters.
using residue_counts = std::array<std::uint64_t, 256>;

void count_residues(std::string_view s, residue_counts& counts) {
  for (const char c : s) ++counts[static_cast<unsigned char>(c)];
}

//! The auto-detection rule (see detect_alphabet) on byte counts.
alphabet_kind alphabet_from_counts(const residue_counts& counts) {
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

//! Bytes of text per parsing thread, at least.
constexpr std::size_t chunk_min_bytes = std::size_t(4) << 20;

//! Record indices cutting records [0, count) into chunks of about equal bytes (first = 0,
//! last = count); one chunk per core for large texts, one for small ones.
std::vector<std::size_t> chunk_records(const std::vector<detail::scanned_record>& records, std::size_t count,
                                       std::size_t begin, std::size_t end) {
  const std::size_t bytes = end - begin;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t chunks = std::clamp<std::size_t>(bytes / chunk_min_bytes, 1, cores);
  std::vector<std::size_t> cuts = {0};
  for (std::size_t k = 1; k < chunks; ++k) {
    const std::size_t target = begin + bytes / chunks * k;
    const auto it = std::lower_bound(records.begin(), records.begin() + std::ptrdiff_t(count), target,
                                     [](const detail::scanned_record& r, std::size_t t) { return r.header_offset < t; });
    const std::size_t r = std::size_t(it - records.begin());
    if (r > cuts.back() && r < count) cuts.push_back(r);
  }
  cuts.push_back(count);
  return cuts;
}

//! Runs fn(c) for c in [0, chunks) on up to `chunks` threads (the caller's among them); if the
//! system refuses a thread, the chunks left run on the threads that did start.
void run_chunks(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t c; (c = next.fetch_add(1)) < chunks;) {
      try {
        fn(c);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < chunks; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
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
  residue_counts counts{};
  for (const std::string_view s : sequences) count_residues(s, counts);
  return alphabet_from_counts(counts);
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

  // Chunks of whole records are parsed (SeqAn3), checked and encoded in parallel (a large
  // database is tens of MB); the first problem in file order is reported, after the warnings
  // of the records before it.
  const std::size_t end =
      parsed_count < scanned.size() ? scanned[parsed_count].header_offset : file.text.size();
  const auto offset = [&](std::size_t r) { return r < parsed_count ? scanned[r].header_offset : end; };
  std::vector<std::size_t> cuts = chunk_records(scanned, parsed_count, scan.first_header, end);
  const std::size_t chunks = cuts.size() - 1;
  std::vector<std::vector<detail::raw_record>> parts(chunks + 1);
  std::vector<residue_counts> counts(chunks);
  const bool detected = request == alphabet_request::auto_detect;
  run_chunks(chunks, [&](std::size_t c) {
    parts[c] = detail::parse_fasta_text(file.text.substr(offset(cuts[c]), offset(cuts[c + 1]) - offset(cuts[c])), path);
    // The scan and SeqAn3 must agree record for record; anything else is a bug here.
    if (parts[c].size() != cuts[c + 1] - cuts[c])
      throw std::logic_error(path + ": FASTA scan and SeqAn3 disagree on the records of a chunk");
    for (std::size_t k = 0; k < parts[c].size(); ++k) {
      if (parts[c][k].residues.size() != scanned[cuts[c] + k].residues)
        throw std::logic_error(path + ": FASTA scan and SeqAn3 disagree on the length of " +
                               detail::record_label(cuts[c] + k, {}));
      if (detected) count_residues(parts[c][k].residues, counts[c]);
    }
  });
  file.text = std::string();
  for (std::string& h : headers) parts[chunks].push_back({std::move(h), {}});  // trailing empty records
  cuts.push_back(scanned.size());

  alphabet_kind kind =
      request == alphabet_request::protein ? alphabet_kind::protein : alphabet_kind::dna;
  if (detected) {
    residue_counts total{};
    for (const auto& c : counts)
      for (std::size_t b = 0; b < total.size(); ++b) total[b] += c[b];
    kind = alphabet_from_counts(total);
  }

  struct chunk_result {
    std::vector<sequence_record> records;
    std::vector<std::size_t> empty;           //!< records without residues (skipped)
    std::size_t failed_at = SIZE_MAX;         //!< first bad record
    std::exception_ptr failure;
  };
  std::vector<chunk_result> done(chunks + 1);
  run_chunks(chunks + 1, [&](std::size_t c) {
    chunk_result& out = done[c];
    out.records.reserve(parts[c].size());
    for (std::size_t k = 0; k < parts[c].size(); ++k) {
      const std::size_t r = cuts[c] + k;
      detail::raw_record& rec = parts[c][k];
      try {
        const detail::header_parts hp = detail::split_header(rec.header);
        if (hp.name.empty()) throw input_error(path, "header has no name", detail::record_label(r, hp.name));
        if (rec.residues.empty()) {
          out.empty.push_back(r);
          continue;
        }
        out.records.push_back({std::string(hp.name), std::string(hp.description),
                               encode(rec.residues, kind, detected, path, r, hp.name)});
        rec = detail::raw_record{};  // freed here, in parallel
      } catch (...) {
        out.failure = std::current_exception();
        out.failed_at = r;
        return;
      }
    }
  });

  sequence_set set;
  set.file = path;
  set.alphabet = kind;
  std::size_t total_records = 0;
  for (const chunk_result& c : done) total_records += c.records.size();
  set.records.reserve(total_records);
  for (std::size_t c = 0; c <= chunks; ++c) {
    for (std::size_t r : done[c].empty) {
      if (r > done[c].failed_at) break;
      if (warn) {
        const detail::header_parts hp = detail::split_header(parts[c][r - cuts[c]].header);
        std::string line(path);
        line.append(":").append(detail::record_label(r, hp.name)).append(": record has no residues, skipped");
        warn(line);
      }
    }
    if (done[c].failure) std::rethrow_exception(done[c].failure);
    for (sequence_record& rec : done[c].records) set.records.push_back(std::move(rec));
  }
  return set;
}

}  // namespace swat::io
