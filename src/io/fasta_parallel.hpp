#pragma once
// Internal to swat_io: read_fasta's two passes run on pieces of a large plain file in parallel.
//
// The file is cut at record starts ('>' at the start of a line) into pieces of about equal
// size; each piece is scanned (pass 1) and then encoded (pass 2) by a thread of its own, which
// reads its byte range with pread in 1 MiB blocks (no file is held whole). The pieces' records
// and residue counts are joined in file order, so the result equals the sequential reader's.
// Errors would not: a piece does not know the file-wide numbers of its records and lines, so a
// piece that finds anything wrong makes a pass return false, and read_fasta then reads the file
// sequentially and reports exactly what it always reports.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "common/sequence.hpp"
#include "io/fasta.hpp"
#include "io/fasta_scan.hpp"

namespace swat::io::detail {

//! Plain files at least this large are read in pieces when several threads are available (a
//! 1.6 MB protein database on 16 threads: 5 ms instead of 10, of a 60 ms search).
inline constexpr std::uint64_t parallel_min_bytes = std::uint64_t(1) << 20;
//! Bytes per piece at least (fewer pieces for smaller files).
inline constexpr std::uint64_t parallel_min_piece_bytes = std::uint64_t(128) << 10;
//! Pieces at most.
inline constexpr int parallel_max_pieces = 16;

//! Pieces for a plain file of `bytes`: 1 (read it sequentially) below parallel_min_bytes or
//! with one thread, else up to parallel_max_pieces and max_threads (0: the hardware's threads).
int parallel_pieces(std::uint64_t bytes, unsigned max_threads = 0);

//! Both passes over a plain regular file in pieces.
class piece_reader {
 public:
  //! Cuts path (bytes long) into at most `pieces` pieces at record starts; pieces() may be
  //! fewer (1 when no record start divides the file).
  piece_reader(std::string path, std::uint64_t bytes, int pieces);
  int pieces() const { return static_cast<int>(starts_.size()) - 1; }

  //! Pass 1 on every piece at once; false when any piece found something wrong (or a thread
  //! or a read failed).
  bool scan();
  //! After scan(): every record in file order, and the residue byte counts of all pieces.
  const std::vector<scanned_record>& records() const { return records_; }
  const std::array<std::uint64_t, 256>& residue_counts() const { return counts_; }

  //! Pass 2 on every piece at once with fasta_encoder's table; false as for scan().
  bool encode(const std::array<std::uint8_t, 256>& table, const std::string& alphabet_what);
  //! After encode(): record r's ranks, a view of arena().
  residue_store take(std::size_t r);
  //! After encode(): the memory of every record's ranks, end to end.
  const std::shared_ptr<std::uint8_t[]>& arena() const { return arena_; }

  //! Byte offsets where the pieces start, and the file size at the end (for tests).
  const std::vector<std::uint64_t>& starts() const { return starts_; }

 private:
  std::string path_;
  std::vector<std::uint64_t> starts_;
  std::vector<std::vector<scanned_record>> piece_records_;
  std::vector<std::size_t> first_record_;  //!< index of each piece's first record in records_
  std::vector<scanned_record> records_;
  std::array<std::uint64_t, 256> counts_{};
  std::shared_ptr<std::uint8_t[]> arena_;
  std::vector<std::uint64_t> at_;  //!< record r's first residue in arena_
};

//! read_fasta on a plain regular file of `bytes` bytes in at most `pieces` pieces: the same set
//! and warnings as the sequential reader, or the same error; nullopt when it gives up (a piece
//! found something wrong, no record start divides the file, a thread could not start), after
//! which the sequential reader must run. threads: for the records' names (0: every core).
std::optional<sequence_set> read_fasta_in_pieces(const std::string& path, std::uint64_t bytes, int pieces,
                                                 alphabet_request request, const warning_fn& warn, unsigned threads = 0);

}  // namespace swat::io::detail
