#pragma once
// One search spread over several processes (the MPI runner of src/dist; any front end that hands
// shares of a database to workers): the targets cut into contiguous shares of about equal work,
// the hits of a share in a compact byte form to send, and the merge of the shares' hits into
// exactly the hits of one search. Each share is searched by search_share (align_pipeline.hpp)
// with the whole search's statistics; the merge ranks per query as rank_targets does: by the
// best score, then by the target's order in the database, at most --max-hits targets.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "output/output.hpp"
#include "pipeline/align_pipeline.hpp"

namespace swat::pipeline {

//! Contiguous shares of the targets (their lengths in residues, in database order) for `parts`
//! workers, of about equal cells: every worker searches every query, so a share's work is its
//! residues × the queries' residues, plus a small cost per target (share_target_cost_residues).
//! Share k starts where the targets before it reach k/parts of the whole; a share may be empty
//! (more workers than targets). Throws std::invalid_argument for parts == 0.
std::vector<target_share> split_targets(std::span<const std::uint64_t> target_lengths, std::size_t parts);

//! The cost of a target beyond its residues in a share's balance (per query, in residues: the
//! per-pair work of the scan and its bookkeeping).
inline constexpr std::uint64_t share_target_cost_residues = 16;

//! The hits in a compact byte form (variable-length integers: query, target, strand, score,
//! coordinates, CIGAR runs), for a share's hits to reach the process that merges them.
std::string encode_hits(std::span<const output::hit> hits);

//! The hits of encode_hits; throws runtime_failure for bytes it did not write (cut or foreign),
//! naming what is wrong.
std::vector<output::hit> decode_hits(std::string_view bytes);

//! The hits of one search from the hits of its shares (search_share's, in any order of shares):
//! per query, in query order, the targets ranked by their best alignment's score, then by their
//! index in the database, at most max_hits of them, each with its alignments in the order its
//! share reported them. Shares are consumed.
std::vector<output::hit> merge_hits(std::vector<std::vector<output::hit>> shares, std::size_t queries,
                                    std::size_t max_hits);

}  // namespace swat::pipeline
