#pragma once
// The prepared database of `swat-gpu makedb` (docs/database-format.md): one index file
// PREFIX.swdb and volumes PREFIX.NNN.swdbv, little-endian, laid out so that a search maps the
// volumes instead of parsing them. Every file starts with a 128-byte header (magic, format
// version, alphabet, counts, the tool version, a checksum of the header and one of the body).
//
// Volume body: residue offsets (u64, sequences + 1, relative to the residues), the encoded
// residues (ranks of common/alphabet.hpp, database order), text offsets (u64, 2 · sequences + 1:
// name i is text[o[2i], o[2i+1]), its description text[o[2i+1], o[2i+2])) and the text. Each
// section starts at a multiple of section_alignment.
// Index body: the residue composition (u64 per rank, composition_ranks of them), then one
// volume_entry per volume.

#include <bit>
#include <cstdint>
#include <string_view>

namespace swat::db {

static_assert(std::endian::native == std::endian::little, "the prepared database is written little-endian");

//! The format version this build writes and the newest it reads.
inline constexpr std::uint32_t format_version = 1;
//! Bytes of every file's header.
inline constexpr std::uint32_t header_bytes = 128;
//! Bytes the header checksum covers (everything before it).
inline constexpr std::uint32_t header_checksum_bytes = 120;
//! Sections of a volume start at multiples of this many bytes.
inline constexpr std::uint64_t section_alignment = 64;
//! Entries of the residue composition in the index (counts per rank; ranks < 32).
inline constexpr std::uint32_t composition_ranks = 32;
//! Longest volume file name an index entry holds (NUL-padded).
inline constexpr std::size_t volume_name_bytes = 88;
//! Longest sequence a database holds (what the FASTA reader accepts).
inline constexpr std::uint64_t max_sequence_residues = 2147483647;

//! First 8 bytes of the index file and of a volume.
inline constexpr std::string_view index_magic{"SWATDBI\x01", 8};
inline constexpr std::string_view volume_magic{"SWATDBV\x01", 8};
//! File name of the index: PREFIX + index_suffix; volume k: PREFIX + ".NNN" + volume_suffix.
inline constexpr std::string_view index_suffix = ".swdb";
inline constexpr std::string_view volume_suffix = ".swdbv";

//! Header of a volume (on disk as is, 128 bytes).
struct volume_header {
  char magic[8];                 //!< volume_magic
  std::uint32_t version;         //!< format_version of the writer
  std::uint32_t header_size;     //!< header_bytes
  std::uint8_t alphabet;         //!< 0 DNA, 1 protein (alphabet_kind)
  std::uint8_t reserved0[3];     //!< zero
  std::uint32_t volume;          //!< 0-based volume number
  std::uint64_t sequences;       //!< sequences of this volume
  std::uint64_t residues;        //!< residues of this volume
  std::uint64_t first_sequence;  //!< database index of its first sequence
  std::uint64_t residue_index_at;  //!< file offset of the residue offsets (u64 × sequences + 1)
  std::uint64_t residues_at;       //!< file offset of the residues
  std::uint64_t text_index_at;     //!< file offset of the text offsets (u64 × 2 · sequences + 1)
  std::uint64_t text_at;           //!< file offset of the names and descriptions
  std::uint64_t file_bytes;        //!< size of the whole file
  std::uint64_t body_checksum;     //!< checksum64 of bytes [header_bytes, file_bytes)
  char tool_version[16];           //!< swat-gpu version that wrote it, NUL-padded
  std::uint64_t reserved1;         //!< zero
  std::uint64_t header_checksum;   //!< checksum64 of bytes [0, header_checksum_bytes)
};
static_assert(sizeof(volume_header) == header_bytes);

//! Header of the index file (on disk as is, 128 bytes).
struct index_header {
  char magic[8];                  //!< index_magic
  std::uint32_t version;          //!< format_version of the writer
  std::uint32_t header_size;      //!< header_bytes
  std::uint8_t alphabet;          //!< 0 DNA, 1 protein
  std::uint8_t reserved0[3];      //!< zero
  std::uint32_t volumes;          //!< number of volumes
  std::uint64_t sequences;        //!< sequences of the database (E-values' database size)
  std::uint64_t residues;         //!< residues of the database (E-values' database length)
  std::uint64_t longest;          //!< residues of its longest sequence
  std::uint64_t file_bytes;       //!< size of the index file
  std::uint64_t body_checksum;    //!< checksum64 of bytes [header_bytes, file_bytes)
  char tool_version[16];          //!< swat-gpu version that wrote it, NUL-padded
  std::uint64_t max_volume_bytes; //!< the volume bound it was made with
  std::uint8_t reserved1[32];     //!< zero
  std::uint64_t header_checksum;  //!< checksum64 of bytes [0, header_checksum_bytes)
};
static_assert(sizeof(index_header) == header_bytes);

//! One volume as the index lists it (128 bytes); the counts and checksums must match the
//! volume's own header.
struct volume_entry {
  std::uint64_t sequences;         //!< sequences of the volume
  std::uint64_t residues;          //!< residues of the volume
  std::uint64_t file_bytes;        //!< size of the volume file
  std::uint64_t body_checksum;     //!< the volume header's body_checksum
  std::uint64_t header_checksum;   //!< the volume header's header_checksum
  char name[volume_name_bytes];    //!< file name, in the index's directory, NUL-padded
};
static_assert(sizeof(volume_entry) == 128);

//! Rounds a file offset up to section_alignment.
inline constexpr std::uint64_t align_section(std::uint64_t offset) {
  return (offset + section_alignment - 1) / section_alignment * section_alignment;
}

}  // namespace swat::db
