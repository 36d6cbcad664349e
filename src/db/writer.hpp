#pragma once
// Writing the prepared database (format.hpp) for `swat-gpu makedb`: volumes cut from the
// records in database order and the index that lists them. The caller owns the files (written
// atomically by the pipeline); these functions only lay the bytes out.

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "common/sequence.hpp"
#include "db/format.hpp"

namespace swat::db {

//! Default bound of a volume's bytes (makedb --volume-size): a search holds one volume mapped
//! beside the records it copied out.
inline constexpr std::uint64_t default_volume_bytes = std::uint64_t(256) << 20;

//! Consecutive records of one volume.
struct volume_range {
  std::size_t first = 0;  //!< first record
  std::size_t count = 0;  //!< records
};

//! Cuts records (database order) into volumes of at most max_volume_bytes of file each; a
//! record that alone exceeds it gets a volume of its own. No records: no volume.
std::vector<volume_range> plan_volumes(std::span<const sequence_record> records, std::uint64_t max_volume_bytes);

//! What the index lists of a written volume.
struct volume_summary {
  volume_entry entry{};                                 //!< counts, size, checksums and the file name
  std::uint64_t composition[composition_ranks] = {};    //!< its residues per rank
  std::uint64_t longest = 0;                            //!< its longest record
};

//! Writes volume number `volume` holding records (the database's records first_sequence …) to
//! out. Throws usage_error for a record that the format cannot hold (an empty one, a longer one
//! than max_sequence_residues, a rank of 32 or more).
volume_summary write_volume(std::ostream& out, std::span<const sequence_record> records, alphabet_kind alphabet,
                            std::uint32_t volume, std::uint64_t first_sequence, const std::string& file_name);

//! The index's contents besides its volumes.
struct index_totals {
  alphabet_kind alphabet = alphabet_kind::dna;
  std::uint64_t sequences = 0;
  std::uint64_t residues = 0;
  std::uint64_t longest = 0;
  std::uint64_t max_volume_bytes = default_volume_bytes;
  std::uint64_t composition[composition_ranks] = {};  //!< residues per rank
};

//! Totals and composition of records.
index_totals totals_of(std::span<const sequence_record> records, alphabet_kind alphabet,
                       std::uint64_t max_volume_bytes);
//! The same totals from the summaries of the written volumes.
index_totals totals_of(std::span<const volume_summary> volumes, alphabet_kind alphabet,
                       std::uint64_t max_volume_bytes);

//! Writes the index of the volumes to out.
void write_index(std::ostream& out, const index_totals& totals, std::span<const volume_summary> volumes);

//! File name of volume k of a database whose index is named base + index_suffix: base.NNN.swdbv.
std::string volume_file_name(const std::string& base, std::uint32_t k);

}  // namespace swat::db
