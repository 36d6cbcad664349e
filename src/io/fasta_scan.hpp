#pragma once
// Internal to swat_io: a fast structural check of FASTA text before SeqAn3 parses it.
//
// SeqAn3 3.2's FASTA reader silently drops digits inside sequences, starts a new record at a
// '>' or ';' in the middle of a line, rejects blank lines before the first header and throws
// on a header at the very end of the file. This scan rejects or normalises those cases so that
// SeqAn3 only ever sees input on which it is exact, and it remembers each record's line and
// residue count so that errors can name the record and position.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace swat::io::detail {

//! What the scan learnt about one record.
struct scanned_record {
  std::size_t header_offset = 0;  //!< offset of the record's '>' in the text (bytes)
  std::string_view header;        //!< the header line without '>' and the line end
  std::uint64_t residues = 0;     //!< non-whitespace characters in its sequence lines
};

//! Result of scan_fasta.
struct fasta_scan {
  std::size_t first_header = 0;         //!< offset of the first '>' (bytes)
  std::vector<scanned_record> records;  //!< every record, in file order
};

//! True unless the first non-blank byte of chunk exists and is not '>' (then reading on is
//! pointless: the scan will reject the file).
bool may_be_fasta(std::string_view chunk);

//! Checks the structure of FASTA text and counts residues per record. Throws
//! swat::input_error naming path, record and position for an empty file, text whose first
//! non-blank line does not start with '>', binary data, digits, or a '>' or ';' inside a
//! sequence line. Residue letters themselves are checked later, per alphabet.
fasta_scan scan_fasta(std::string_view text, const std::string& path);

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
