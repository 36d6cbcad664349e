#pragma once
// Test support for the prepared database: records of a seeded random database, the bytes of its
// volumes and index as makedb lays them out (in memory), and a reader of those bytes.

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/sequence.hpp"
#include "db/checksum.hpp"
#include "db/reader.hpp"
#include "db/writer.hpp"

namespace swat::test {

//! n records of seeded random lengths (1 … max_length) and ranks of the alphabet.
inline sequence_set random_records(alphabet_kind alphabet, std::size_t n, std::size_t max_length, unsigned seed) {
  std::mt19937 rng(seed);
  const int ranks = alphabet == alphabet_kind::dna ? dna_size : protein_size;
  sequence_set set;
  set.file = "random.fa";
  set.alphabet = alphabet;
  for (std::size_t i = 0; i < n; ++i) {
    sequence_record r;
    r.name = "seq" + std::to_string(i) + (i % 3 == 0 ? "|x" : "");
    r.description = i % 2 == 0 ? "" : "desc\tof " + std::to_string(i);
    r.residues.resize(1 + rng() % max_length);
    for (auto& c : r.residues.own()) c = std::uint8_t(rng() % ranks);
    set.records.push_back(std::move(r));
  }
  return set;
}

//! A database's files in memory.
struct database_bytes {
  std::string index;
  std::vector<std::string> volumes;
};

//! The files of set's database; volume k is named base.NNN.swdbv.
inline database_bytes make_bytes(const sequence_set& set, std::uint64_t max_volume_bytes, const std::string& base = "t") {
  database_bytes out;
  std::vector<db::volume_summary> summaries;
  const auto ranges = db::plan_volumes(set.records, max_volume_bytes);
  for (std::uint32_t k = 0; k < ranges.size(); ++k) {
    std::ostringstream s;
    summaries.push_back(db::write_volume(s, std::span(set.records).subspan(ranges[k].first, ranges[k].count),
                                         set.alphabet, k, ranges[k].first, db::volume_file_name(base, k)));
    out.volumes.push_back(s.str());
  }
  std::ostringstream s;
  db::write_index(s, db::totals_of(std::span<const db::volume_summary>(summaries), set.alphabet, max_volume_bytes), summaries);
  out.index = s.str();
  return out;
}

inline std::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

//! Reads the in-memory database back (throws what the reader throws).
inline sequence_set read_bytes(const database_bytes& b) {
  const db::database_index index = db::parse_index(bytes_of(b.index), "t.swdb");
  sequence_set set;
  set.alphabet = index.alphabet;
  std::uint64_t first = 0;
  for (std::uint32_t k = 0; k < index.volumes.size(); ++k) {
    if (k >= b.volumes.size()) throw std::runtime_error("missing volume");
    db::parse_volume(bytes_of(b.volumes[k]), "t.v" + std::to_string(k), index, k, first,
                     [&](std::string_view name, std::string_view description, residue_span residues) {
                       set.records.push_back({std::string(name), std::string(description),
                                              std::vector<std::uint8_t>(residues.begin(), residues.end())});
                     });
    first += index.volumes[k].sequences;
  }
  return set;
}

//! Recomputes the checksums of a volume's header and body, and the index's entry k and its own
//! (a damaged file that its checksums no longer reveal: only the reader's other checks remain).
inline void reseal(database_bytes& b, std::uint32_t k) {
  std::string& v = b.volumes[k];
  if (v.size() >= db::header_bytes) {
    db::volume_header h;
    std::memcpy(&h, v.data(), sizeof h);
    h.body_checksum = db::checksum_of(bytes_of(v).subspan(db::header_bytes));
    std::memcpy(v.data(), &h, sizeof h);
    h.header_checksum = db::checksum_of(bytes_of(v).first(db::header_checksum_bytes));
    std::memcpy(v.data(), &h, sizeof h);
    const std::size_t at = db::header_bytes + db::composition_ranks * 8 + std::size_t(k) * sizeof(db::volume_entry);
    if (b.index.size() >= at + sizeof(db::volume_entry)) {
      db::volume_entry e;
      std::memcpy(&e, b.index.data() + at, sizeof e);
      e.body_checksum = h.body_checksum;
      e.header_checksum = h.header_checksum;
      e.file_bytes = v.size();
      std::memcpy(b.index.data() + at, &e, sizeof e);
    }
  }
  if (b.index.size() >= db::header_bytes) {
    db::index_header h;
    std::memcpy(&h, b.index.data(), sizeof h);
    h.body_checksum = db::checksum_of(bytes_of(b.index).subspan(db::header_bytes));
    std::memcpy(b.index.data(), &h, sizeof h);
    h.header_checksum = db::checksum_of(bytes_of(b.index).first(db::header_checksum_bytes));
    std::memcpy(b.index.data(), &h, sizeof h);
  }
}

//! What every set the reader accepts holds, whatever its files: the index's count of records,
//! each with a name, residues within the alphabet and at most the longest.
inline bool well_formed(const sequence_set& set, const database_bytes& b) {
  const db::database_index index = db::parse_index(bytes_of(b.index), "t.swdb");
  if (set.records.size() != index.sequences) return false;
  const int ranks = set.alphabet == alphabet_kind::dna ? dna_size : protein_size;
  for (const sequence_record& r : set.records) {
    if (r.name.empty() || r.residues.empty() || r.residues.size() > index.longest) return false;
    for (const std::uint8_t c : r.residues)
      if (c >= ranks) return false;
    for (const char c : r.name)
      if (static_cast<unsigned char>(c) <= 0x20) return false;
  }
  return true;
}

inline bool same_records(const sequence_set& a, const sequence_set& b) {
  if (a.alphabet != b.alphabet || a.records.size() != b.records.size()) return false;
  for (std::size_t i = 0; i < a.records.size(); ++i)
    if (a.records[i].name != b.records[i].name || a.records[i].description != b.records[i].description ||
        a.records[i].residues != b.records[i].residues)
      return false;
  return true;
}

}  // namespace swat::test
