#pragma once
// Internal to swat_io: the two passes of read_fasta over the decompressed bytes, fed chunk by
// chunk so that no file is ever held whole.
//
// Pass 1 (fasta_scan) checks the structure and learns each record's header and residue count
// and how often each byte occurs as a residue (for alphabet detection). It rejects: an empty
// file, a byte order mark, text whose first non-blank line does not start with '>', other
// compression formats, binary data, digits (SeqAn3 3.2 would drop them), a '>' or ';' inside a
// sequence line, control bytes in headers and CR-only line ends. Whitespace inside sequence
// lines (' ' \t \v \f \r) is skipped, as SeqAn3's FASTA reader does.
// Pass 2 (fasta_encoder) walks the same bytes again and writes each record's residue ranks into
// a vector of exactly the counted size, naming the first invalid residue.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace swat::io::detail {

//! What pass 1 learnt about one record.
struct scanned_record {
  std::string header;          //!< the header line without '>' and the line end
  std::uint64_t residues = 0;  //!< non-whitespace characters in its sequence lines
};

//! Pass 1: feed() the decompressed bytes in order, then finish().
class fasta_scan {
 public:
  //! Records of more than max_residues residues are refused as soon as the scan passes that
  //! many (before any of them is stored): INT32_MAX, the most one sequence may hold.
  explicit fasta_scan(std::string path, std::uint64_t max_residues = max_record_residues)
      : path_(std::move(path)), max_residues_(max_residues) {}
  static constexpr std::uint64_t max_record_residues = 2147483647;
  //! Scans the next bytes. Throws swat::input_error naming path, record and position.
  void feed(std::string_view bytes);
  //! Ends the input: throws for an empty or blank file; completes the last header.
  void finish();

  //! Every record in file order (after finish()).
  const std::vector<scanned_record>& records() const { return records_; }
  //! Moves the records out (after finish()).
  std::vector<scanned_record> take_records() { return std::move(records_); }
  //! Occurrences of each byte value among the residues of all records.
  const std::array<std::uint64_t, 256>& residue_counts() const { return counts_; }

 private:
  enum class state { blank_prefix, header, line_start, sequence };
  void end_header();
  [[noreturn]] void not_fasta(std::string_view rest_of_chunk) const;
  //! Adds the bytes of sequence lines to the histograms; returns the OR of their byte classes.
  std::uint8_t count_region(const char* bytes, std::size_t len);
  //! Occurrences of chars in the histograms so far.
  std::uint64_t count_of(std::string_view chars) const;
  //! Walks a region known to hold a bad byte (of record's sequence) and throws at the first.
  [[noreturn]] void throw_first_bad(const scanned_record& record, std::string_view region);

  std::string path_;
  std::uint64_t max_residues_;
  state state_ = state::blank_prefix;
  std::uint64_t line_ = 1;
  std::uint64_t bytes_ = 0;
  std::string prefix_;  //!< the first bytes of the file (magic numbers, byte order marks)
  std::vector<scanned_record> records_;
  std::array<std::array<std::uint64_t, 256>, 4> counts4_{};  //!< every sequence-line byte, four ways
  std::array<std::uint64_t, 256> counts_{};                  //!< residues only (after finish())
};

//! Memory for `bytes` encoded residues, zeroed: one allocation (a large one mapped), freed with
//! the last copy of the pointer.
std::shared_ptr<std::uint8_t[]> residue_arena(std::uint64_t bytes);

//! Total residues of records (pass 1's counts): the bytes the encoder writes.
std::uint64_t residues_of(const std::vector<scanned_record>& records);

//! Pass 2: feed() the same bytes again; each record's residues are encoded through table (256
//! entries, invalid_rank for bytes that are not residues of the alphabet) into `out`, record
//! after record, each taking the residues pass 1 counted (ranks(r) says where).
class fasta_encoder {
 public:
  //! alphabet_what names the alphabet in errors ("dna", "dna (alphabet detected
  //! automatically)"); records are pass 1's; on_record(r) runs when record r starts, in order;
  //! out holds residues_of(records) bytes.
  fasta_encoder(std::string path, const std::array<std::uint8_t, 256>& table, std::string alphabet_what,
                const std::vector<scanned_record>& records, std::function<void(std::size_t)> on_record,
                std::uint8_t* out);
  //! Encodes the next bytes. Throws swat::input_error naming the first invalid residue.
  void feed(std::string_view bytes);
  //! Ends the input: throws when the bytes were not those pass 1 saw (the file changed).
  void finish();
  //! Record r's ranks in out (complete once every byte was fed).
  std::span<std::uint8_t> ranks(std::size_t r) const {
    return {out_ + at_[r], std::size_t(records_[r].residues)};
  }

 private:
  void start_record();
  //! In ranks_of_bytes_: set for bytes that are not a residue of the alphabet (ranks are < 64),
  //! and with invalid_bit for those that are not whitespace or a line end either.
  static constexpr std::uint8_t skip_bit = 0x80, invalid_bit = 0x40;
  //! table's rank for residue bytes, skip_bit for whitespace and line ends, skip_bit |
  //! invalid_bit for every other byte.
  static std::array<std::uint8_t, 256> make_ranks(const std::array<std::uint8_t, 256>& table);

  std::string path_;
  const std::array<std::uint8_t, 256>& table_;
  std::string alphabet_;
  const std::vector<scanned_record>& records_;
  std::function<void(std::size_t)> on_record_;
  std::uint8_t* out_;
  std::vector<std::uint64_t> at_;  //!< record r's first residue in out_
  std::array<std::uint8_t, 256> ranks_of_bytes_;
  std::uint8_t* record_out_ = nullptr;  //!< the current record's residues
  std::uint64_t record_size_ = 0;       //!< … and how many pass 1 counted
  std::size_t current_ = 0;  //!< records started so far (current record = current_ - 1)
  bool in_header_ = false;
  bool at_line_start_ = true;
  std::uint64_t pos_ = 0;  //!< residues of the current record encoded so far
};

//! A header split into its first word and the rest, both trimmed.
struct header_parts {
  std::string_view name;         //!< first word
  std::string_view description;  //!< the rest, without surrounding whitespace
};

//! Splits a header line (without '>') at its first space or tab.
header_parts split_header(std::string_view header);

//! "record N (name)" for the record at 0-based index; the name is shortened when very long.
std::string record_label(std::size_t index, std::string_view name);

}  // namespace swat::io::detail
