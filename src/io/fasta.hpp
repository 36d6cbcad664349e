#pragma once
// FASTA input: plain or gzip-compressed files → validated, encoded sequence sets. The file is
// streamed twice (once to check and count, once to encode), so reading a file costs its encoded
// residues plus a 1 MiB buffer; only input that cannot be read twice (a pipe) is held whole.

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "common/alphabet.hpp"
#include "common/sequence.hpp"

namespace swat::io {

//! Which alphabet read_fasta encodes into: chosen by the user or detected from the residues.
enum class alphabet_request { auto_detect, dna, protein };

//! Parses "auto", "dna" or "protein" (case-insensitive); throws swat::usage_error otherwise.
alphabet_request parse_alphabet_request(std::string_view name);

//! "auto", "dna" or "protein".
std::string_view to_string(alphabet_request request);

//! Receives one non-fatal message, already prefixed with "<file>:<record>: ".
using warning_fn = std::function<void(const std::string&)>;

//! One-line description of the auto-detection rule (for --help); see detect_alphabet.
inline constexpr std::string_view alphabet_auto_rule =
    "auto: DNA if all residues are IUPAC nucleotides and >= 90% ACGTUN; else protein";

//! Auto-detection rule: DNA when every residue character of every sequence is an IUPAC
//! nucleotide code (A C G T U N R Y K M S W B D H V, any case) AND at least 90% of them are
//! A/C/G/T/U/N; otherwise protein. sequences hold raw residue letters (no whitespace).
//! No residues at all counts as DNA.
alphabet_kind detect_alphabet(std::span<const std::string_view> sequences);

//! detect_alphabet for a single sequence of raw residue letters.
alphabet_kind detect_alphabet(std::string_view residues);

//! Reads every record of a FASTA file, plain or gzip (detected by its magic bytes, whatever
//! the file is called): multi-record, wrapped lines, CRLF, blank lines and lower case are fine.
//! A byte order mark, gzip data followed by non-gzip bytes and truncated gzip are errors.
//! Record name = the header's first word, description = the rest (trimmed). Residues are
//! encoded with the ranks of common/alphabet.hpp in the requested (or detected) alphabet.
//! A record without residues is skipped with warn("<file>:record N (name): record has no
//! residues, skipped"); warn may be empty. Throws swat::input_error naming file[:record[:pos]]
//! (pos: 1-based residue) for anything that is not a valid FASTA file of that alphabet.
//! A plain file of 8 MiB or more is read in pieces on up to max_threads threads (0: the
//! hardware's; at most 8); the result and any error are the same as with one.
sequence_set read_fasta(const std::string& path, alphabet_request request, const warning_fn& warn,
                        unsigned max_threads = 0);

//! read_fasta of FASTA text held in memory (the Python package's sequences): the same checks,
//! alphabet rule, warnings and errors, with label in the place of the file name.
sequence_set read_fasta_text(const std::string& label, std::string_view text, alphabet_request request,
                             const warning_fn& warn);

}  // namespace swat::io
