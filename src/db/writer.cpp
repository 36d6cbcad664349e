// Writing the prepared database (writer.hpp).

#include "db/writer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "db/checksum.hpp"

namespace swat::db {
namespace {

//! Where the sections of a volume of these records start.
struct volume_layout {
  std::uint64_t residues = 0, text = 0;
  std::uint64_t residue_index_at = header_bytes, residues_at = 0, text_index_at = 0, text_at = 0, file_bytes = 0;
};

volume_layout layout_of(std::span<const sequence_record> records) {
  volume_layout l;
  for (const sequence_record& r : records) {
    l.residues += r.residues.size();
    l.text += r.name.size() + r.description.size();
  }
  const std::uint64_t n = records.size();
  l.residues_at = align_section(l.residue_index_at + 8 * (n + 1));
  l.text_index_at = align_section(l.residues_at + l.residues);
  l.text_at = align_section(l.text_index_at + 8 * (2 * n + 1));
  l.file_bytes = l.text_at + l.text;
  return l;
}

//! Feeds the body of a volume (everything after the header) to sink(data, bytes) in order.
template <class sink_t>
void emit_body(std::span<const sequence_record> records, const volume_layout& l, sink_t&& sink) {
  static const unsigned char zeros[section_alignment] = {};
  std::uint64_t at = header_bytes;
  const auto pad_to = [&](std::uint64_t offset) {
    sink(zeros, std::size_t(offset - at));
    at = offset;
  };
  std::vector<std::uint64_t> offsets;
  offsets.reserve(4096);
  const auto flush_offsets = [&] {
    sink(offsets.data(), offsets.size() * 8);
    at += offsets.size() * 8;
    offsets.clear();
  };
  std::uint64_t o = 0;
  offsets.push_back(0);
  for (const sequence_record& r : records) {
    o += r.residues.size();
    offsets.push_back(o);
    if (offsets.size() == offsets.capacity()) flush_offsets();
  }
  flush_offsets();
  pad_to(l.residues_at);
  for (const sequence_record& r : records) sink(r.residues.data(), r.residues.size());
  at += l.residues;
  pad_to(l.text_index_at);
  o = 0;
  offsets.push_back(0);
  for (const sequence_record& r : records) {
    o += r.name.size();
    offsets.push_back(o);
    o += r.description.size();
    offsets.push_back(o);
    if (offsets.size() + 2 > offsets.capacity()) flush_offsets();
  }
  flush_offsets();
  pad_to(l.text_at);
  for (const sequence_record& r : records) {
    sink(r.name.data(), r.name.size());
    sink(r.description.data(), r.description.size());
  }
}

void set_version(char (&field)[16]) {
  std::memset(field, 0, sizeof field);
  const char* v = SWAT_VERSION_STRING;
  std::memcpy(field, v, std::min(std::strlen(v), sizeof field));
}

void write_bytes(std::ostream& out, const void* data, std::size_t bytes) {
  out.write(static_cast<const char*>(data), std::streamsize(bytes));
}

}  // namespace

std::vector<volume_range> plan_volumes(std::span<const sequence_record> records, std::uint64_t max_volume_bytes) {
  std::vector<volume_range> volumes;
  // A volume's bytes: its header, 24 bytes of offsets per record (+ 16), the residues and the
  // text, and up to three paddings of a section each.
  const std::uint64_t fixed = header_bytes + 16 + 3 * section_alignment;
  std::uint64_t bytes = fixed;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::uint64_t add = 24 + records[i].residues.size() + records[i].name.size() + records[i].description.size();
    if (volumes.empty() || (volumes.back().count > 0 && bytes + add > max_volume_bytes)) {
      volumes.push_back({i, 0});
      bytes = fixed;
    }
    ++volumes.back().count;
    bytes += add;
  }
  return volumes;
}

volume_summary write_volume(std::ostream& out, std::span<const sequence_record> records, alphabet_kind alphabet,
                            std::uint32_t volume, std::uint64_t first_sequence, const std::string& file_name) {
  const std::uint8_t ranks = alphabet == alphabet_kind::dna ? dna_size : protein_size;
  volume_summary s;
  // Four sets of counters: consecutive residues of one rank do not wait on each other.
  std::uint64_t counts[4][256] = {};
  for (std::size_t i = 0; i < records.size(); ++i) {
    const sequence_record& r = records[i];
    const auto which = [&] { return "record " + std::to_string(first_sequence + i + 1) + " (" + r.name + ")"; };
    if (r.residues.empty()) throw usage_error("makedb: " + which() + " has no residues");
    if (r.residues.size() > max_sequence_residues) throw usage_error("makedb: " + which() + " is too long");
    const std::uint8_t* p = r.residues.data();
    const std::size_t n = r.residues.size();
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4) {
      ++counts[0][p[j]];
      ++counts[1][p[j + 1]];
      ++counts[2][p[j + 2]];
      ++counts[3][p[j + 3]];
    }
    for (; j < n; ++j) ++counts[0][p[j]];
    s.longest = std::max<std::uint64_t>(s.longest, n);
  }
  for (int c = 0; c < 256; ++c) {
    const std::uint64_t total = counts[0][c] + counts[1][c] + counts[2][c] + counts[3][c];
    if (total != 0 && c >= ranks) {
      for (std::size_t i = 0; i < records.size(); ++i)
        if (std::find(records[i].residues.begin(), records[i].residues.end(), std::uint8_t(c)) != records[i].residues.end())
          throw usage_error("makedb: record " + std::to_string(first_sequence + i + 1) + " (" + records[i].name +
                            ") holds a rank outside the alphabet");
    }
    if (c < int(composition_ranks)) s.composition[c] = total;
  }
  if (file_name.size() >= volume_name_bytes)
    throw usage_error("makedb: the volume name " + file_name + " is longer than " +
                      std::to_string(volume_name_bytes - 1) + " bytes; choose a shorter PREFIX");
  const volume_layout l = layout_of(records);
  checksum64 body;
  emit_body(records, l, [&](const void* data, std::size_t bytes) { body.update(data, bytes); });

  volume_header h{};
  std::memcpy(h.magic, volume_magic.data(), sizeof h.magic);
  h.version = format_version;
  h.header_size = header_bytes;
  h.alphabet = std::uint8_t(alphabet);
  h.volume = volume;
  h.sequences = records.size();
  h.residues = l.residues;
  h.first_sequence = first_sequence;
  h.residue_index_at = l.residue_index_at;
  h.residues_at = l.residues_at;
  h.text_index_at = l.text_index_at;
  h.text_at = l.text_at;
  h.file_bytes = l.file_bytes;
  h.body_checksum = body.digest();
  set_version(h.tool_version);
  h.header_checksum = checksum_of({reinterpret_cast<const unsigned char*>(&h), header_checksum_bytes});
  write_bytes(out, &h, sizeof h);
  emit_body(records, l, [&](const void* data, std::size_t bytes) { write_bytes(out, data, bytes); });

  s.entry.sequences = h.sequences;
  s.entry.residues = h.residues;
  s.entry.file_bytes = h.file_bytes;
  s.entry.body_checksum = h.body_checksum;
  s.entry.header_checksum = h.header_checksum;
  std::memcpy(s.entry.name, file_name.data(), file_name.size());
  return s;
}

index_totals totals_of(std::span<const sequence_record> records, alphabet_kind alphabet,
                       std::uint64_t max_volume_bytes) {
  index_totals t;
  t.alphabet = alphabet;
  t.sequences = records.size();
  t.max_volume_bytes = max_volume_bytes;
  for (const sequence_record& r : records) {
    t.residues += r.residues.size();
    t.longest = std::max<std::uint64_t>(t.longest, r.residues.size());
    for (const std::uint8_t rank : r.residues) ++t.composition[rank & (composition_ranks - 1)];
  }
  return t;
}

index_totals totals_of(std::span<const volume_summary> volumes, alphabet_kind alphabet,
                       std::uint64_t max_volume_bytes) {
  index_totals t;
  t.alphabet = alphabet;
  t.max_volume_bytes = max_volume_bytes;
  for (const volume_summary& v : volumes) {
    t.sequences += v.entry.sequences;
    t.residues += v.entry.residues;
    t.longest = std::max(t.longest, v.longest);
    for (std::uint32_t r = 0; r < composition_ranks; ++r) t.composition[r] += v.composition[r];
  }
  return t;
}

void write_index(std::ostream& out, const index_totals& totals, std::span<const volume_summary> volumes) {
  checksum64 body;
  body.update(totals.composition, sizeof totals.composition);
  for (const volume_summary& v : volumes) body.update(&v.entry, sizeof v.entry);
  index_header h{};
  std::memcpy(h.magic, index_magic.data(), sizeof h.magic);
  h.version = format_version;
  h.header_size = header_bytes;
  h.alphabet = std::uint8_t(totals.alphabet);
  h.volumes = std::uint32_t(volumes.size());
  h.sequences = totals.sequences;
  h.residues = totals.residues;
  h.longest = totals.longest;
  h.file_bytes = header_bytes + sizeof totals.composition + volumes.size() * sizeof(volume_entry);
  h.body_checksum = body.digest();
  set_version(h.tool_version);
  h.max_volume_bytes = totals.max_volume_bytes;
  h.header_checksum = checksum_of({reinterpret_cast<const unsigned char*>(&h), header_checksum_bytes});
  write_bytes(out, &h, sizeof h);
  write_bytes(out, totals.composition, sizeof totals.composition);
  for (const volume_summary& v : volumes) write_bytes(out, &v.entry, sizeof v.entry);
}

std::string volume_file_name(const std::string& base, std::uint32_t k) {
  char number[16];
  std::snprintf(number, sizeof number, ".%03u", k);
  return base + number + std::string(volume_suffix);
}

}  // namespace swat::db
