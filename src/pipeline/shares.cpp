// Shares of a search: the split, the hits' byte form and the merge (shares.hpp).

#include "pipeline/shares.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "common/error.hpp"

namespace swat::pipeline {

std::vector<target_share> split_targets(std::span<const std::uint64_t> target_lengths, std::size_t parts) {
  if (parts == 0) throw std::invalid_argument("split_targets: no parts");
  const std::size_t n = target_lengths.size();
  unsigned __int128 total = 0;
  for (const std::uint64_t length : target_lengths) total += length + share_target_cost_residues;
  // Target i goes to the share its cost's midpoint falls in: non-decreasing in i, so every share
  // is contiguous; a target longer than a share's part leaves the shares it covers empty.
  std::vector<target_share> shares(parts);
  unsigned __int128 before = 0;
  std::size_t at = 0;  // the share the next target may start
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned __int128 cost = target_lengths[i] + share_target_cost_residues;
    const std::size_t share = std::size_t(std::min<unsigned __int128>((2 * before + cost) * parts / (2 * total), parts - 1));
    for (; at < share; ++at) shares[at + 1].first = shares[at].last = i;
    shares[share].last = i + 1;
    before += cost;
  }
  for (; at + 1 < parts; ++at) shares[at + 1].first = shares[at + 1].last = shares[at].last;
  return shares;
}

namespace {

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(std::uint8_t(v) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));
}

//! Signed values (scores, coordinates) zig-zagged: small magnitudes stay short.
void put_signed(std::string& out, std::int64_t v) {
  put_varint(out, (std::uint64_t(v) << 1) ^ std::uint64_t(v >> 63));
}

//! Reads the byte form, each value checked against what encode_hits writes.
class hit_reader {
 public:
  explicit hit_reader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  std::uint64_t varint(const char* what) {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ == bytes_.size()) fail(std::string("cut inside ") + what);
      const std::uint8_t b = std::uint8_t(bytes_[at_++]);
      v |= std::uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    fail(std::string("an over-long ") + what);
  }
  std::int64_t signed_value(const char* what) {
    const std::uint64_t z = varint(what);
    return std::int64_t(z >> 1) ^ -std::int64_t(z & 1);
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw runtime_failure("a share's hits are malformed: " + why + " at byte " + std::to_string(at_) + " of " +
                          std::to_string(bytes_.size()));
  }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_hits(std::span<const output::hit> hits) {
  std::string out;
  put_varint(out, hits.size());
  for (const output::hit& h : hits) {
    put_varint(out, h.query_index);
    put_varint(out, h.target_index);
    put_varint(out, h.strand == output::dna_strand::minus ? 1 : 0);
    const alignment& a = h.aln;
    put_signed(out, a.score);
    put_signed(out, a.query_begin);
    put_signed(out, a.query_end);
    put_signed(out, a.target_begin);
    put_signed(out, a.target_end);
    put_varint(out, a.ops.size());
    for (const cigar_op& op : a.ops) {
      out.push_back(op.op);
      put_varint(out, op.length);
    }
  }
  return out;
}

std::vector<output::hit> decode_hits(std::string_view bytes) {
  hit_reader in(bytes);
  const std::uint64_t count = in.varint("the hit count");
  if (count > bytes.size()) in.fail("a hit count of " + std::to_string(count));  // each hit takes bytes
  std::vector<output::hit> hits(count);
  for (output::hit& h : hits) {
    h.query_index = in.varint("a query index");
    h.target_index = in.varint("a target index");
    const std::uint64_t strand = in.varint("a strand");
    if (strand > 1) in.fail("strand " + std::to_string(strand));
    h.strand = strand ? output::dna_strand::minus : output::dna_strand::plus;
    alignment& a = h.aln;
    const std::int64_t score = in.signed_value("a score");
    if (score < std::numeric_limits<std::int32_t>::min() || score > std::numeric_limits<std::int32_t>::max())
      in.fail("score " + std::to_string(score));
    a.score = std::int32_t(score);
    a.query_begin = in.signed_value("a coordinate");
    a.query_end = in.signed_value("a coordinate");
    a.target_begin = in.signed_value("a coordinate");
    a.target_end = in.signed_value("a coordinate");
    const std::uint64_t runs = in.varint("a CIGAR length");
    if (runs > bytes.size()) in.fail(std::to_string(runs) + " CIGAR runs");
    a.ops.resize(runs);
    for (cigar_op& op : a.ops) {
      op.op = char(in.varint("a CIGAR operation"));
      if (op.op != 'M' && op.op != 'I' && op.op != 'D') in.fail("CIGAR operation " + std::to_string(int(op.op)));
      const std::uint64_t length = in.varint("a CIGAR run");
      if (length > std::numeric_limits<std::uint32_t>::max()) in.fail("a CIGAR run of " + std::to_string(length));
      op.length = std::uint32_t(length);
    }
  }
  if (!in.done()) in.fail("bytes after the last hit");
  return hits;
}

std::vector<output::hit> merge_hits(std::vector<std::vector<output::hit>> shares, std::size_t queries,
                                    std::size_t max_hits) {
  // A target's alignments are consecutive in its share's hits: one group per (query, target).
  struct group {
    std::size_t target;
    std::int32_t best;
    std::vector<output::hit>* from;
    std::size_t begin, end;
  };
  std::vector<std::vector<group>> by_query(queries);
  for (std::vector<output::hit>& hits : shares)
    for (std::size_t i = 0; i < hits.size();) {
      const output::hit& h = hits[i];
      if (h.query_index >= queries) throw runtime_failure("a share's hits name query " + std::to_string(h.query_index));
      group g{h.target_index, h.aln.score, &hits, i, i};
      for (; g.end < hits.size() && hits[g.end].query_index == h.query_index && hits[g.end].target_index == h.target_index;
           ++g.end)
        g.best = std::max(g.best, hits[g.end].aln.score);
      by_query[h.query_index].push_back(g);
      i = g.end;
    }
  std::vector<output::hit> merged;
  for (std::vector<group>& groups : by_query) {
    // rank_targets' order: score descending, then database order (each target in one share).
    std::sort(groups.begin(), groups.end(), [](const group& a, const group& b) {
      return a.best != b.best ? a.best > b.best : a.target < b.target;
    });
    if (groups.size() > max_hits) groups.resize(max_hits);
    for (const group& g : groups)
      for (std::size_t i = g.begin; i < g.end; ++i) merged.push_back(std::move((*g.from)[i]));
  }
  return merged;
}

}  // namespace swat::pipeline
