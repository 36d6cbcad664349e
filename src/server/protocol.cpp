// Frames and fields of the serve protocol (protocol.hpp).

#include "server/protocol.hpp"

#include <limits>

namespace swat::server {
namespace {

void put_u16(std::string& out, std::uint16_t v) {
  out += char(v >> 8);
  out += char(v & 0xff);
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += char((v >> shift) & 0xff);
}

std::uint32_t get_u32(std::string_view bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | std::uint8_t(bytes[at + k]);
  return v;
}

//! Reads a u32 length then that many bytes at `at` (advanced); throws when bytes end first.
std::string_view take_sized(std::string_view bytes, std::size_t& at, const char* what) {
  if (bytes.size() - at < 4) throw protocol_error(std::string("truncated ") + what + " length");
  const std::uint32_t n = get_u32(bytes, at);
  at += 4;
  if (bytes.size() - at < n) throw protocol_error(std::string("truncated ") + what);
  const std::string_view v = bytes.substr(at, n);
  at += n;
  return v;
}

void put_sized(std::string& out, std::string_view v) {
  if (v.size() > std::numeric_limits<std::uint32_t>::max()) throw protocol_error("a field of more than 4 GiB");
  put_u32(out, std::uint32_t(v.size()));
  out.append(v);
}

}  // namespace

message& message::set(std::string key, std::string value) {
  fields.emplace_back(std::move(key), std::move(value));
  return *this;
}

const std::string* message::find(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

const std::string& message::get(std::string_view key) const {
  if (const std::string* v = find(key)) return *v;
  throw protocol_error("the message has no field '" + std::string(key) + "'");
}

std::string encode(const message& m) {
  std::string payload;
  for (const auto& [k, v] : m.fields) {
    if (k.size() > 255) throw protocol_error("a field name of more than 255 bytes");
    payload += char(k.size());
    payload += k;
    put_sized(payload, v);
  }
  if (payload.size() > std::numeric_limits<std::uint32_t>::max()) throw protocol_error("a message of more than 4 GiB");
  std::string frame(frame_magic);
  put_u16(frame, protocol_version);
  put_u16(frame, std::uint16_t(m.type));
  put_u32(frame, std::uint32_t(payload.size()));
  return frame + payload;
}

frame_header decode_header(std::string_view bytes) {
  if (bytes.size() < frame_header_bytes || bytes.substr(0, 4) != frame_magic)
    throw protocol_error("not a swat-gpu frame (it does not start with \"SWAT\")");
  frame_header h;
  h.version = std::uint16_t((std::uint8_t(bytes[4]) << 8) | std::uint8_t(bytes[5]));
  h.type = std::uint16_t((std::uint8_t(bytes[6]) << 8) | std::uint8_t(bytes[7]));
  h.length = get_u32(bytes, 8);
  return h;
}

message decode_payload(std::uint16_t type, std::string_view payload) {
  if (type < std::uint16_t(message_type::hello) || type > std::uint16_t(message_type::error))
    throw protocol_error("unknown message type " + std::to_string(type));
  message m;
  m.type = message_type(type);
  std::size_t at = 0;
  while (at < payload.size()) {
    const std::size_t key_size = std::uint8_t(payload[at++]);
    if (payload.size() - at < key_size) throw protocol_error("truncated field name");
    std::string key(payload.substr(at, key_size));
    at += key_size;
    const std::string_view value = take_sized(payload, at, "field");
    if (m.find(key)) throw protocol_error("the field '" + key + "' is given twice");
    m.set(std::move(key), std::string(value));
  }
  return m;
}

std::string encode_records(const std::vector<sequence_record>& records) {
  std::string out;
  put_u32(out, std::uint32_t(records.size()));
  for (const sequence_record& r : records) {
    put_sized(out, r.name);
    put_sized(out, r.description);
    put_sized(out, std::string_view(reinterpret_cast<const char*>(r.residues.data()), r.residues.size()));
  }
  return out;
}

std::vector<sequence_record> decode_records(std::string_view bytes, alphabet_kind alphabet) {
  std::size_t at = 0;
  if (bytes.size() < 4) throw protocol_error("truncated record count");
  const std::uint32_t count = get_u32(bytes, 0);
  at = 4;
  // Each record takes at least 12 bytes: a count beyond that is a lie, refused before reserving.
  if (count > (bytes.size() - at) / 12) throw protocol_error("more records announced than sent");
  const int ranks = alphabet == alphabet_kind::dna ? dna_size : protein_size;
  std::vector<sequence_record> records(count);
  for (std::uint32_t k = 0; k < count; ++k) {
    sequence_record& r = records[k];
    r.name = std::string(take_sized(bytes, at, "record name"));
    r.description = std::string(take_sized(bytes, at, "record description"));
    const std::string_view residues = take_sized(bytes, at, "record residues");
    if (r.name.empty()) throw protocol_error("record " + std::to_string(k + 1) + " has no name");
    r.residues.assign(residues.begin(), residues.end());
    for (const std::uint8_t rank : r.residues)
      if (rank >= ranks) throw protocol_error("record " + std::to_string(k + 1) + " holds a residue rank out of range");
  }
  if (at != bytes.size()) throw protocol_error("bytes after the last record");
  return records;
}

std::string join_words(std::span<const std::string> words) {
  std::string out;
  for (const std::string& w : words) {
    if (w.find('\0') != std::string::npos) throw protocol_error("a word holds a NUL byte");
    out += w;
    out += '\0';
  }
  return out;
}

std::vector<std::string> split_words(std::string_view value) {
  std::vector<std::string> words;
  if (!value.empty() && value.back() != '\0') throw protocol_error("a list of words does not end with NUL");
  for (std::size_t start = 0; start < value.size();) {
    const std::size_t end = value.find('\0', start);
    words.emplace_back(value.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

}  // namespace swat::server
