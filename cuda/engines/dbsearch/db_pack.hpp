#pragma once
// The database as the scan kernel reads it, prepared once per search on the host (plain C++):
// targets sorted by length (longest first, ties by input order), paired consecutively (the two
// targets of a pair differ little in length, so few columns are padding), every pair's columns
// stored as rank A | rank B << 8, and the pairs cut into chunks that fit the GPU budget.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/sequence.hpp"
#include "cuda/engines/dbsearch/db_problem.hpp"

namespace swat::dbsearch {

//! Consecutive pairs uploaded and scanned together.
struct db_chunk {
  std::size_t first_task = 0;        //!< first pair of the chunk
  std::size_t tasks = 0;             //!< pairs in the chunk
  std::size_t first_column = 0;      //!< first column of the chunk in packed_db::residues
  std::size_t columns = 0;           //!< columns of the chunk (sum of its pairs' columns)
  std::size_t bytes = 0;             //!< device bytes of the chunk (pair_bytes of its pairs)
  std::int32_t longest = 0;          //!< columns of its longest pair (border row length)
};

//! Layout of the packed database (sizes first, so that the columns can go to pinned memory).
struct db_layout {
  std::vector<std::uint32_t> order;   //!< scanned targets, longest first: pair p = order[2p], order[2p + 1]
  std::vector<pair_task> tasks;       //!< pairs; offsets are relative to their chunk's first column
  std::vector<db_chunk> chunks;       //!< pairs cut by the chunk budget
  std::vector<std::size_t> skipped;   //!< targets longer than the scan takes (left to the caller)
  std::size_t total_columns = 0;      //!< columns of every pair
  std::uint64_t residues = 0;         //!< residues of the scanned targets
};

//! Device bytes of one pair in a chunk: its columns, its task and its two results.
inline std::size_t pair_bytes(std::size_t columns) {
  return 2 * columns + sizeof(pair_task) + 2 * sizeof(result_cell);
}

//! Sorts and pairs the targets; targets of length 0 are left out (score 0), targets longer than
//! max_length go to `skipped`. A chunk holds pairs of at most chunk_bytes (pair_bytes) in all,
//! or one pair. With guided_parts > 0 (several GPUs take chunks from one queue), chunks shrink
//! as the queue drains: each takes at most 1/guided_parts of the bytes not yet in a chunk, and at
//! least 1/(8 · guided_parts) of all, so that the GPUs take large chunks first and end on small
//! ones, within a small chunk of each other (guided self-scheduling).
db_layout plan_database(std::span<const residue_span> targets, std::int32_t max_length,
                        std::size_t chunk_bytes, std::size_t guided_parts = 0);

//! Writes the columns of every pair into columns[0 … layout.total_columns): rank A | rank B << 8,
//! pad_rank for B past its end and for a missing B.
void pack_columns(const db_layout& layout, std::span<const residue_span> targets, std::uint8_t pad_rank,
                  std::uint16_t* columns);

//! Writes the columns of pairs [first_pair, last_pair) of one chunk to out, which stands for
//! the chunk's column layout.tasks[first_pair].offset (a slice of the chunk, as pack_columns
//! would write it).
void pack_pairs(const db_layout& layout, std::span<const residue_span> targets, std::uint8_t pad_rank,
                std::size_t first_pair, std::size_t last_pair, std::uint16_t* out);

//! Number of strips of a query of m rows at strip_rows rows per strip.
inline std::int64_t strips_of(std::int64_t m, std::int64_t strip_rows) { return (m + strip_rows - 1) / strip_rows; }

//! Builds the strip-major int8 query profile of scan_problem::d_profile: profile_rows =
//! ranks + 1 (the last is the pad rank), rows past m and the pad rank score −1.
//! score(a, b) is the substitution score of query rank a against target rank b.
void build_profile(residue_span query, const std::int32_t* matrix, int matrix_stride, int ranks,
                   int strip_rows, std::int8_t* profile);

}  // namespace swat::dbsearch
