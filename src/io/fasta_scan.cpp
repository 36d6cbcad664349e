#include "io/fasta_scan.hpp"

#include <array>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"

namespace swat::io::detail {
namespace {

enum byte_class : std::uint8_t { residue, space, newline, bad };

// SeqAn3's is_space set (' ' \t \n \v \f \r) is whitespace; digits, '>' and ';' (which SeqAn3
// would drop or treat as a header), other control bytes and DEL are bad in a sequence line.
constexpr std::array<std::uint8_t, 256> make_byte_classes() {
  std::array<std::uint8_t, 256> classes{};
  for (int c = 0; c < 0x20; ++c) classes[c] = bad;
  classes[0x7F] = bad;
  for (int c = '0'; c <= '9'; ++c) classes[c] = bad;
  classes['>'] = bad;
  classes[';'] = bad;
  for (unsigned char c : {' ', '\t', '\v', '\f', '\r'}) classes[c] = space;
  classes['\n'] = newline;
  return classes;
}
constexpr std::array<std::uint8_t, 256> byte_classes = make_byte_classes();

bool is_blank_byte(char c) {
  return byte_classes[static_cast<unsigned char>(c)] >= space &&
         byte_classes[static_cast<unsigned char>(c)] <= newline;
}
bool is_control(unsigned char c) { return c < 0x20 || c == 0x7F; }

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", c);
  return buf;
}

// What is wrong with a bad byte found in a sequence line.
std::string describe_bad_byte(unsigned char c, std::uint64_t line) {
  const std::string at = " (line " + std::to_string(line) + ")";
  if (c >= '0' && c <= '9')
    return "digit '" + std::string(1, char(c)) + "' in sequence" + at + ": not a residue";
  if (c == '>') return "'>' inside a sequence line" + at + ": a header must start its line";
  if (c == ';') return "';' in sequence" + at + ": FASTA comment lines are not supported";
  return "control byte " + hex_byte(c) + " in sequence" + at + ": binary data, not FASTA text";
}

// Names a compressed format other than gzip from its magic bytes, or returns nothing.
std::string_view other_compression(std::string_view text) {
  if (text.starts_with("BZh")) return "bzip2";
  if (text.starts_with(std::string_view("\xFD"
                                        "7zXZ\0",
                                        6)))
    return "xz";
  if (text.starts_with("\x28\xB5\x2F\xFD")) return "zstd";
  if (text.starts_with("PK\x03\x04")) return "zip";
  return {};
}

[[noreturn]] void throw_not_fasta(std::string_view text, std::size_t first, std::uint64_t line,
                                  const std::string& path) {
  const auto c = static_cast<unsigned char>(text[first]);
  if (const auto format = other_compression(text); !format.empty())
    throw input_error(path, "not a FASTA file: " + std::string(format) +
                                "-compressed data (only plain and gzip FASTA are read)");
  // Binary data: a control byte (other than tab and CR) early in the first non-blank line.
  constexpr std::size_t binary_probe_bytes = 4096;
  for (std::size_t k = first; k < text.size() && k < first + binary_probe_bytes; ++k) {
    const auto b = static_cast<unsigned char>(text[k]);
    if (b == '\n') break;
    if (is_control(b) && b != '\t' && b != '\r')
      throw input_error(path, "not a FASTA file: binary data (byte " + hex_byte(b) + " on line " +
                                  std::to_string(line) + ")");
  }
  std::string what = "not a FASTA file: the first non-blank line (line " + std::to_string(line) +
                     ") does not start with '>'";
  if (c == '@') what += " (FASTQ is not supported)";
  throw input_error(path, what);
}

}  // namespace

bool may_be_fasta(std::string_view chunk) {
  for (const char c : chunk)
    if (!is_blank_byte(c)) return c == '>';
  return true;
}

fasta_scan scan_fasta(std::string_view text, const std::string& path) {
  const std::size_t n = text.size();
  std::uint64_t line = 1;
  std::size_t i = 0;
  for (; i < n && is_blank_byte(text[i]); ++i)
    if (text[i] == '\n') ++line;
  if (n == 0) throw input_error(path, "file is empty");
  if (i == n) throw input_error(path, "file has only blank lines, no FASTA record");
  if (text[i] != '>') throw_not_fasta(text, i, line, path);

  fasta_scan scan;
  scan.first_header = i;
  while (i < n) {
    if (text[i] == '>') {
      const char* eol = static_cast<const char*>(std::memchr(text.data() + i, '\n', n - i));
      const std::size_t end = eol ? static_cast<std::size_t>(eol - text.data()) : n;
      std::string_view header = text.substr(i + 1, end - i - 1);
      if (header.ends_with('\r')) header.remove_suffix(1);
      const std::size_t index = scan.records.size();
      for (std::size_t k = 0; k < header.size(); ++k) {
        const auto c = static_cast<unsigned char>(header[k]);
        if (!is_control(c) || c == '\t') continue;
        const std::string where =
            " in header (line " + std::to_string(line) + ", column " + std::to_string(k + 2) + ")";
        throw input_error(
            path,
            c == '\r' ? "carriage return without line feed" + where +
                            ": CR-only line ends are not supported"
                      : "control byte " + hex_byte(c) + where + ": binary data, not FASTA text",
            "record " + std::to_string(index + 1));
      }
      scan.records.push_back({i, header, 0});
      i = end + 1;
      ++line;
      continue;
    }
    scanned_record& record = scan.records.back();
    std::uint64_t count = record.residues;
    for (; i < n; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      const std::uint8_t cls = byte_classes[c];
      if (cls == residue) {
        ++count;
      } else if (cls == newline) {
        break;
      } else if (cls == bad) {
        throw input_error(path, describe_bad_byte(c, line),
                          record_label(scan.records.size() - 1, split_header(record.header).name),
                          count + 1);
      }
    }
    record.residues = count;
    ++i;
    ++line;
  }
  return scan;
}

header_parts split_header(std::string_view header) {
  constexpr std::string_view blanks = " \t\r\n\v\f";
  const auto first = header.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  header.remove_prefix(first);
  header.remove_suffix(header.size() - 1 - header.find_last_not_of(blanks));
  const auto gap = header.find_first_of(" \t");
  if (gap == std::string_view::npos) return {header, {}};
  std::string_view rest = header.substr(gap);
  rest.remove_prefix(rest.find_first_not_of(blanks));
  return {header.substr(0, gap), rest};
}

std::string record_label(std::size_t index, std::string_view name) {
  constexpr std::size_t max_name_chars = 60;
  std::string label = "record " + std::to_string(index + 1);
  if (name.empty()) return label;
  if (name.size() > max_name_chars)
    return label + " (" + std::string(name.substr(0, max_name_chars)) + "...)";
  return label + " (" + std::string(name) + ")";
}

}  // namespace swat::io::detail
