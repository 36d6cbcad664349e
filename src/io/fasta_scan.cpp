// The two passes of read_fasta (see fasta_scan.hpp): a structural scan that counts residues
// per record and an encoder that writes ranks, both as state machines over chunks of bytes.

#include "io/fasta_scan.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "common/alphabet.hpp"
#include "common/error.hpp"

namespace swat::io::detail {
namespace {

// Bit flags (an OR over a line says whether anything in it is not a residue).
enum byte_class : std::uint8_t { residue = 0, space = 1, newline = 2, bad = 4 };

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

//! Bytes of the file start kept for magic numbers and byte order marks.
constexpr std::size_t prefix_bytes = 8;
//! Bytes of the first non-blank line looked at for binary data.
constexpr std::size_t binary_probe_bytes = 4096;

std::uint8_t class_of(char c) { return byte_classes[static_cast<unsigned char>(c)]; }
bool is_blank_byte(char c) { return class_of(c) == space || class_of(c) == newline; }
bool is_control(unsigned char c) { return c < 0x20 || c == 0x7F; }

//! Whitespace that sequence lines may hold besides their line ends (SeqAn3's is_space).
constexpr std::string_view blank_bytes = " \t\v\f\r";

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", c);
  return buf;
}

std::string show_residue(unsigned char c) {
  if (c > 0x20 && c < 0x7F) return "'" + std::string(1, static_cast<char>(c)) + "'";
  return "byte " + hex_byte(c);
}

// What is wrong with a bad byte found in a sequence line.
std::string describe_bad_byte(unsigned char c, std::uint64_t line) {
  const std::string at = " (line " + std::to_string(line) + ")";
  if (c >= '0' && c <= '9') return "digit '" + std::string(1, char(c)) + "' in sequence" + at + ": not a residue";
  if (c == '>') return "'>' inside a sequence line" + at + ": a header must start its line";
  if (c == ';') return "';' in sequence" + at + ": FASTA comment lines are not supported";
  return "control byte " + hex_byte(c) + " in sequence" + at + ": binary data, not FASTA text";
}

// Names a compressed format other than gzip, or a text encoding FASTA cannot be, from the
// first bytes of the file; empty when there is nothing to say.
std::string describe_start(std::string_view start) {
  if (start.starts_with("BZh")) return "bzip2-compressed data (only plain and gzip FASTA are read)";
  if (start.starts_with(std::string_view("\xFD" "7zXZ\0", 6))) return "xz-compressed data (only plain and gzip FASTA are read)";
  if (start.starts_with("\x28\xB5\x2F\xFD")) return "zstd-compressed data (only plain and gzip FASTA are read)";
  if (start.starts_with("PK\x03\x04")) return "zip-compressed data (only plain and gzip FASTA are read)";
  if (start.starts_with("\xEF\xBB\xBF"))
    return "the file starts with a UTF-8 byte order mark (bytes EF BB BF); save it as plain text without it";
  if (start.starts_with("\xFF\xFE") || start.starts_with("\xFE\xFF"))
    return "UTF-16 text (byte order mark " + hex_byte(static_cast<unsigned char>(start[0])).substr(2) + " " +
           hex_byte(static_cast<unsigned char>(start[1])).substr(2) + "); FASTA must be ASCII text";
  return {};
}

}  // namespace

void fasta_scan::not_fasta(std::string_view rest) const {
  // Binary data: a control byte (other than tab and CR) early in the first non-blank line.
  for (std::size_t k = 0; k < rest.size() && k < binary_probe_bytes; ++k) {
    const auto b = static_cast<unsigned char>(rest[k]);
    if (b == '\n') break;
    if (is_control(b) && b != '\t' && b != '\r')
      throw input_error(path_, "not a FASTA file: binary data (byte " + hex_byte(b) + " on line " +
                                   std::to_string(line_) + ")");
  }
  std::string what = "not a FASTA file: the first non-blank line (line " + std::to_string(line_) +
                     ") does not start with '>'";
  if (!rest.empty() && rest[0] == '@') what += " (FASTQ is not supported)";
  throw input_error(path_, what);
}

void fasta_scan::feed(std::string_view bytes) {
  if (prefix_.size() < prefix_bytes) prefix_.append(bytes.substr(0, prefix_bytes - prefix_.size()));
  const std::uint64_t chunk_start = bytes_;
  bytes_ += bytes.size();
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  while (i < n) {
    switch (state_) {
      case state::blank_prefix: {
        for (; i < n && is_blank_byte(bytes[i]); ++i)
          if (bytes[i] == '\n') ++line_;
        if (i == n) break;
        if (bytes[i] != '>') {
          // The start of the file decides between "compressed/encoded" and "not FASTA text".
          if (chunk_start + i < prefix_bytes && !describe_start(prefix_).empty())
            throw input_error(path_, "not a FASTA file: " + describe_start(prefix_));
          not_fasta(bytes.substr(i));
        }
        records_.push_back({});
        state_ = state::header;
        ++i;
        break;
      }
      case state::header: {
        const void* nl = std::memchr(bytes.data() + i, '\n', n - i);
        const std::size_t end = nl ? std::size_t(static_cast<const char*>(nl) - bytes.data()) : n;
        records_.back().header.append(bytes.substr(i, end - i));
        i = end;
        if (nl) {
          end_header();
          ++line_;
          ++i;
          state_ = state::line_start;
        }
        break;
      }
      case state::line_start:
        if (bytes[i] == '>') {
          records_.push_back({});
          state_ = state::header;
          ++i;
        } else {
          state_ = state::sequence;
        }
        break;
      case state::sequence: {
        // Up to the next '>' (the next header when it starts a line) in one sweep: every byte
        // goes into the histograms, which also give the region's whitespace and line ends; a
        // region with a bad byte (or a '>' inside a line) is walked again byte by byte and throws
        // at its first bad byte, with the exact line and residue position.
        scanned_record& record = records_.back();
        const char* region = bytes.data() + i;
        const void* gt = std::memchr(region, '>', n - i);
        const std::size_t len = gt ? std::size_t(static_cast<const char*>(gt) - region) : n - i;
        const std::uint64_t blanks_before = count_of(blank_bytes), newlines_before = count_of("\n");
        const std::uint8_t flags = count_region(region, len);
        if ((flags & bad) != 0 || (gt != nullptr && (len == 0 || region[len - 1] != '\n')))
          throw_first_bad(record, {region, gt ? len + 1 : len});
        const std::uint64_t newlines = count_of("\n") - newlines_before;
        record.residues += len - newlines - (count_of(blank_bytes) - blanks_before);
        if (record.residues > max_residues_)
          throw input_error(path_,
                            "sequence longer than " + std::to_string(max_residues_) +
                                " residues, the most one record may hold (split it into pieces)",
                            record_label(records_.size() - 1, split_header(record.header).name), max_residues_ + 1);
        line_ += newlines;
        i += len;
        state_ = region[len - 1] == '\n' ? state::line_start : state::sequence;
        break;
      }
    }
  }
}

std::uint64_t fasta_scan::count_of(std::string_view chars) const {
  std::uint64_t sum = 0;
  for (const char c : chars)
    for (const auto& h : counts4_) sum += h[static_cast<unsigned char>(c)];
  return sum;
}

void fasta_scan::throw_first_bad(const scanned_record& record, std::string_view region) {
  std::uint64_t count = record.residues;
  for (const char ch : region) {
    const auto c = static_cast<unsigned char>(ch);
    const std::uint8_t cls = byte_classes[c];
    if (cls == residue) {
      ++count;
    } else if (cls == newline) {
      ++line_;
    } else if (cls == bad) {
      throw input_error(path_, describe_bad_byte(c, line_),
                        record_label(records_.size() - 1, split_header(record.header).name), count + 1);
    }
  }
  throw std::logic_error("fasta_scan: a flagged region without a bad byte");
}

std::uint8_t fasta_scan::count_region(const char* line, std::size_t len) {
  // Four histograms so that runs of one letter do not wait on one counter.
  std::uint8_t flags = 0;
  std::size_t k = 0;
  for (; k + 4 <= len; k += 4) {
    const auto c0 = static_cast<unsigned char>(line[k]), c1 = static_cast<unsigned char>(line[k + 1]);
    const auto c2 = static_cast<unsigned char>(line[k + 2]), c3 = static_cast<unsigned char>(line[k + 3]);
    ++counts4_[0][c0];
    ++counts4_[1][c1];
    ++counts4_[2][c2];
    ++counts4_[3][c3];
    flags |= std::uint8_t(byte_classes[c0] | byte_classes[c1] | byte_classes[c2] | byte_classes[c3]);
  }
  for (; k < len; ++k) {
    const auto c = static_cast<unsigned char>(line[k]);
    ++counts4_[0][c];
    flags |= byte_classes[c];
  }
  return flags;
}

void fasta_scan::end_header() {
  std::string& header = records_.back().header;
  if (header.ends_with('\r')) header.pop_back();
  for (std::size_t k = 0; k < header.size(); ++k) {
    const auto c = static_cast<unsigned char>(header[k]);
    if (!is_control(c) || c == '\t') continue;
    const std::string where = " in header (line " + std::to_string(line_) + ", column " + std::to_string(k + 2) + ")";
    throw input_error(path_,
                      c == '\r' ? "carriage return without line feed" + where + ": CR-only line ends are not supported"
                                : "control byte " + hex_byte(c) + where + ": binary data, not FASTA text",
                      "record " + std::to_string(records_.size()));
  }
}

void fasta_scan::finish() {
  for (int c = 0; c < 256; ++c)
    counts_[c] = byte_classes[c] == residue ? counts4_[0][c] + counts4_[1][c] + counts4_[2][c] + counts4_[3][c] : 0;
  if (bytes_ == 0) throw input_error(path_, "file is empty");
  if (state_ == state::blank_prefix) throw input_error(path_, "file has only blank lines, no FASTA record");
  if (state_ == state::header) end_header();
  state_ = state::line_start;
}

std::shared_ptr<std::uint8_t[]> residue_arena(std::uint64_t bytes) {
  // Mapped, not allocated: the pages are zeroed by the threads that first write them (the pieces
  // of read_fasta_in_pieces). Huge pages (MADV_HUGEPAGE) made the Swiss-Prot ×500 read slower
  // (3.2-4.0 s against 2.3-2.7 s on the 2-core VM): the kernel compacts memory to find them.
  if (bytes >= (std::uint64_t(1) << 20)) {
    const std::size_t mapped = std::size_t(bytes);
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED)
      return std::shared_ptr<std::uint8_t[]>(static_cast<std::uint8_t*>(p),
                                             [mapped](std::uint8_t* q) { ::munmap(q, mapped); });
  }
  return std::shared_ptr<std::uint8_t[]>(new std::uint8_t[std::max<std::uint64_t>(bytes, 1)]());
}

std::uint64_t residues_of(const std::vector<scanned_record>& records) {
  std::uint64_t total = 0;
  for (const scanned_record& r : records) total += r.residues;
  return total;
}

fasta_encoder::fasta_encoder(std::string path, const std::array<std::uint8_t, 256>& table, std::string alphabet_what,
                             const std::vector<scanned_record>& records, std::function<void(std::size_t)> on_record,
                             std::uint8_t* out)
    : path_(std::move(path)), table_(table), alphabet_(std::move(alphabet_what)), records_(records),
      on_record_(std::move(on_record)), out_(out), at_(records.size()), ranks_of_bytes_(make_ranks(table)) {
  std::uint64_t at = 0;
  for (std::size_t r = 0; r < records.size(); ++r) {
    at_[r] = at;
    at += records[r].residues;
  }
}

void fasta_encoder::start_record() {
  if (current_ > 0 && pos_ != record_size_) throw input_error(path_, "the file changed while it was read");
  if (current_ == records_.size()) throw input_error(path_, "the file changed while it was read");
  const std::size_t r = current_++;
  on_record_(r);
  record_out_ = out_ + at_[r];
  record_size_ = records_[r].residues;
  pos_ = 0;
}

void fasta_encoder::feed(std::string_view bytes) {
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  while (i < n) {
    if (in_header_) {
      const void* nl = std::memchr(bytes.data() + i, '\n', n - i);
      if (!nl) return;
      i = std::size_t(static_cast<const char*>(nl) - bytes.data()) + 1;
      in_header_ = false;
      at_line_start_ = true;
      continue;
    }
    if (bytes[i] == '>' && (at_line_start_ || current_ == 0)) {
      start_record();
      in_header_ = true;
      ++i;
      continue;
    }
    at_line_start_ = false;
    if (current_ == 0) {  // blanks before the first header (pass 1 checked them)
      ++i;
      continue;
    }
    // Fast path: up to the next '>' in one sweep, each byte looked up once and stored where the
    // next residue goes (whitespace and line ends are overwritten by the residue after them).
    // An invalid letter, more residues than pass 1 counted or a '>' inside a line go to the
    // byte-by-byte walk below, which names the error.
    {
      const char* region = bytes.data() + i;
      const void* gt = std::memchr(region, '>', n - i);
      const std::size_t len = gt ? std::size_t(static_cast<const char*>(gt) - region) : n - i;
      if (len > 0 && (!gt || region[len - 1] == '\n')) {
        std::uint8_t* dst = record_out_;
        const std::size_t cap = std::size_t(record_size_);
        std::size_t pos = pos_;
        std::uint8_t seen = 0;
        for (std::size_t k = 0; k < len; ++k) {
          const std::uint8_t r = ranks_of_bytes_[static_cast<unsigned char>(region[k])];
          seen |= r;
          if (pos < cap) dst[pos] = r;
          pos += (r >> 7) ^ 1;
        }
        if ((seen & invalid_bit) == 0 && pos <= cap) {
          pos_ = pos;
          i += len;
          at_line_start_ = region[len - 1] == '\n';
          continue;
        }
      }
    }
    for (; i < n; ++i) {
      const auto c = static_cast<unsigned char>(bytes[i]);
      if (c == '\n') {
        at_line_start_ = true;
        ++i;
        break;
      }
      if (byte_classes[c] != residue) continue;
      const std::uint8_t rank = table_[c];
      if (rank == invalid_rank || pos_ >= record_size_) {
        const std::size_t r = current_ - 1;
        if (rank != invalid_rank) throw input_error(path_, "the file changed while it was read");
        throw input_error(path_, "invalid residue " + show_residue(c) + " for " + alphabet_,
                          record_label(r, split_header(records_[r].header).name), pos_ + 1);
      }
      record_out_[pos_++] = rank;
    }
  }
}

std::array<std::uint8_t, 256> fasta_encoder::make_ranks(const std::array<std::uint8_t, 256>& table) {
  std::array<std::uint8_t, 256> ranks{};
  for (int c = 0; c < 256; ++c) {
    if (byte_classes[c] == space || byte_classes[c] == newline)
      ranks[c] = skip_bit;
    else if (byte_classes[c] == residue && table[c] != invalid_rank && table[c] < invalid_bit)
      ranks[c] = table[c];
    else
      ranks[c] = skip_bit | invalid_bit;
  }
  return ranks;
}

void fasta_encoder::finish() {
  if (current_ != records_.size() || (current_ > 0 && pos_ != record_size_))
    throw input_error(path_, "the file changed while it was read");
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
  if (name.size() > max_name_chars) return label + " (" + std::string(name.substr(0, max_name_chars)) + "...)";
  return label + " (" + std::string(name) + ")";
}

}  // namespace swat::io::detail
