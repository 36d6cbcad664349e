#pragma once
// Reading a prepared database (format.hpp): the index, then each volume mapped (mmap), checked
// (sizes, layout, checksums, offsets, ranks, names) and handed over record by record. Anything
// that is not a complete, intact database of a version this build reads throws
// swat::input_error naming the file and what is wrong; nothing is trusted before it is checked.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/sequence.hpp"
#include "db/format.hpp"

namespace swat::db {

//! A prepared database's index, checked.
struct database_index {
  std::string path;                 //!< the index file
  std::string directory;            //!< where its volumes are: path's directory, or its target's when path is a symbolic link
  alphabet_kind alphabet = alphabet_kind::dna;
  std::uint32_t version = 0;        //!< format version it was written in
  std::string tool_version;         //!< swat-gpu version that wrote it
  std::uint64_t sequences = 0;
  std::uint64_t residues = 0;
  std::uint64_t longest = 0;
  std::uint64_t max_volume_bytes = 0;
  std::array<std::uint64_t, composition_ranks> composition{};  //!< residues per rank
  std::vector<volume_entry> volumes;
};

//! The index file of db when db names a prepared database: db itself when it is a file that
//! starts with index_magic; db + ".swdb" when db is not a file and that one exists. nullopt:
//! db is something else (a FASTA file, standard input, a missing path). Throws input_error when
//! db is a volume of a prepared database (its PREFIX is what names the database).
std::optional<std::string> prepared_index_path(const std::string& db);

//! Checks the bytes of an index file; name is the file as messages name it.
database_index parse_index(std::span<const unsigned char> bytes, const std::string& name);

//! Reads and checks the index file at path.
database_index read_index(const std::string& path);

//! Receives one record of a volume: its name, description and encoded residues (valid only
//! during the call).
using record_fn = std::function<void(std::string_view name, std::string_view description, residue_span residues)>;

//! Checks the bytes of volume k of index (name: the file as messages name it) and hands its
//! records to add in database order. first_sequence: the database index of its first record.
void parse_volume(std::span<const unsigned char> bytes, const std::string& name, const database_index& index,
                  std::uint32_t k, std::uint64_t first_sequence, const record_fn& add);

//! The path of volume k (index.directory + its name: beside the index file itself, also when
//! the index is reached through a symbolic link).
std::string volume_path(const database_index& index, std::uint32_t k);

//! What reading a whole database measured.
struct read_report {
  std::uint64_t mapped_bytes = 0;  //!< bytes of the volumes mapped
  double map_s = 0;                //!< opening and mapping the files
  double check_s = 0;              //!< checking the volumes, copying out the records' texts
};

//! Reads every record of the database whose index file is index_path into a sequence set
//! whose file is shown (the database as the user named it). Each volume is mapped, checked
//! (what parse_volume checks, with the same errors) and kept mapped in the set's backing: the
//! records' residues are views of it (their names and descriptions are copied), and the pages
//! the checks read are dropped from the process's memory once its volume is checked
//! (common/host_pages.hpp), so the host holds the records' texts and what is being read. Every volume is opened right after the index is
//! read (a makedb that replaces the database meanwhile removes the old volumes, whose open
//! descriptors and mappings still read them); a volume missing then means a replacement just
//! happened: the index is read again, once. threads: the volume's checksum and runs of its
//! records at once (0: the hardware's, at most 16).
sequence_set read_database(const std::string& index_path, const std::string& shown, read_report* report = nullptr,
                           unsigned threads = 0);

//! Tests only (unset otherwise): read_database calls after_index_read right after reading the
//! index, before opening the volumes, and after_volumes_opened once they are open, before
//! mapping the first: where a makedb replacing the database would disturb it.
namespace test_hooks {
inline std::function<void()> after_index_read, after_volumes_opened;
}  // namespace test_hooks

}  // namespace swat::db
