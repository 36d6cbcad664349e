// Host preparation of the database and the query profile for the scan (see db_pack.hpp).

#include "cuda/engines/dbsearch/db_pack.hpp"

#include <algorithm>
#include <numeric>
#include <system_error>
#include <thread>

namespace swat::dbsearch {

db_layout plan_database(std::span<const residue_span> targets, std::int32_t max_length,
                        std::size_t chunk_bytes, std::size_t guided_parts) {
  db_layout out;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const std::size_t len = targets[t].size();
    if (len == 0) continue;
    if (len > std::size_t(max_length)) {
      out.skipped.push_back(t);
      continue;
    }
    out.order.push_back(std::uint32_t(t));
    out.residues += len;
  }
  // Longest first, ties in input order: a counting sort by length (1.59 M targets: a few ms
  // where the comparison sort took a tenth of a second), a stable sort for very long targets
  // or few targets much longer than their number (a count per length would be the larger part).
  std::size_t longest = 0;
  for (const std::uint32_t t : out.order) longest = std::max(longest, targets[t].size());
  if (longest <= (std::size_t(1) << 22) && longest <= 4 * out.order.size() + 4096) {
    std::vector<std::size_t> start(longest + 2, 0);  // start[longest - len]: targets longer than len
    for (const std::uint32_t t : out.order) ++start[longest - targets[t].size() + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    std::vector<std::uint32_t> sorted(out.order.size());
    for (const std::uint32_t t : out.order) sorted[start[longest - targets[t].size()]++] = t;
    out.order = std::move(sorted);
  } else {
    std::stable_sort(out.order.begin(), out.order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return targets[a].size() > targets[b].size();
    });
  }

  const std::size_t pairs = (out.order.size() + 1) / 2;
  out.tasks.reserve(pairs);
  // Guided: the bytes not yet in a chunk decide each chunk's cap.
  std::size_t left = 0;
  if (guided_parts > 0)
    for (std::size_t p = 0; p < pairs; ++p) left += pair_bytes(targets[out.order[2 * p]].size());
  const std::size_t floor = guided_parts > 0 ? std::max<std::size_t>(left / (8 * guided_parts), 1) : 0;
  const auto cap_now = [&] {
    return guided_parts > 0 ? std::min(chunk_bytes, std::max(floor, left / guided_parts)) : chunk_bytes;
  };
  std::size_t cap = cap_now();
  db_chunk chunk;
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::size_t a = out.order[2 * p];
    const std::size_t len_a = targets[a].size();
    const std::size_t len_b = 2 * p + 1 < out.order.size() ? targets[out.order[2 * p + 1]].size() : 0;
    if (chunk.tasks > 0 && chunk.bytes + pair_bytes(len_a) > cap) {
      out.chunks.push_back(chunk);
      left -= guided_parts > 0 ? chunk.bytes : 0;
      cap = cap_now();
      chunk = db_chunk{};
    }
    if (chunk.tasks == 0) {
      chunk.first_task = p;
      chunk.first_column = out.total_columns;
    }
    out.tasks.push_back(pair_task{std::uint32_t(chunk.columns), std::int32_t(len_a), std::int32_t(len_b), 0});
    chunk.tasks += 1;
    chunk.columns += len_a;
    chunk.bytes += pair_bytes(len_a);
    chunk.longest = std::max(chunk.longest, std::int32_t(len_a));
    out.total_columns += len_a;
  }
  if (chunk.tasks > 0) out.chunks.push_back(chunk);
  return out;
}

namespace {

//! Writes pair p's columns (rank A | rank B << 8, pad_rank for B past its end) at out.
void pack_pair(const db_layout& layout, std::span<const residue_span> targets, std::uint8_t pad_rank, std::size_t p,
               std::uint16_t* out) {
  const residue_span a = targets[layout.order[2 * p]];
  const residue_span b = 2 * p + 1 < layout.order.size() ? targets[layout.order[2 * p + 1]] : residue_span{};
  const std::size_t shared = b.size();
  for (std::size_t c = 0; c < shared; ++c) out[c] = std::uint16_t(a[c] | (std::uint16_t(b[c]) << 8));
  const std::uint16_t pad_b = std::uint16_t(std::uint16_t(pad_rank) << 8);
  for (std::size_t c = shared; c < a.size(); ++c) out[c] = std::uint16_t(a[c] | pad_b);
}

}  // namespace

void pack_pairs(const db_layout& layout, std::span<const residue_span> targets, std::uint8_t pad_rank,
                std::size_t first_pair, std::size_t last_pair, std::uint16_t* out) {
  if (first_pair >= last_pair) return;
  const std::uint32_t base = layout.tasks[first_pair].offset;
  for (std::size_t p = first_pair; p < last_pair; ++p)
    pack_pair(layout, targets, pad_rank, p, out + (layout.tasks[p].offset - base));
}

void pack_columns(const db_layout& layout, std::span<const residue_span> targets, std::uint8_t pad_rank,
                  std::uint16_t* columns) {
  // Pairs in slices of about equal columns, one thread each (tens of MB for a large database).
  std::vector<std::size_t> pair_chunk(layout.tasks.size());
  for (std::size_t c = 0; c < layout.chunks.size(); ++c)
    std::fill_n(pair_chunk.begin() + std::ptrdiff_t(layout.chunks[c].first_task), layout.chunks[c].tasks, c);
  auto pack = [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p)
      pack_pair(layout, targets, pad_rank, p, columns + layout.chunks[pair_chunk[p]].first_column + layout.tasks[p].offset);
  };
  const std::size_t pairs = layout.tasks.size();
  const std::size_t workers = std::clamp<std::size_t>(layout.total_columns >> 20, 1, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(pack, pairs * w / workers, pairs * (w + 1) / workers);
    } catch (...) {  // the system refused a thread (or memory for one): this one packs the slice
      pack(pairs * w / workers, pairs * (w + 1) / workers);
    }
  }
  pack(0, pairs / workers);
  for (std::thread& t : pool) t.join();
}

void build_profile(residue_span query, const std::int32_t* matrix, int matrix_stride, int ranks,
                   int strip_rows, std::int8_t* profile) {
  const std::int64_t m = std::int64_t(query.size());
  const std::int64_t strips = strips_of(m, strip_rows);
  const int rows = ranks + 1;
  for (std::int64_t s = 0; s < strips; ++s) {
    for (int a = 0; a < rows; ++a) {
      std::int8_t* out = profile + (s * rows + a) * strip_rows;
      for (int r = 0; r < strip_rows; ++r) {
        const std::int64_t i = s * strip_rows + r;
        out[r] = (a < ranks && i < m) ? std::int8_t(matrix[query[std::size_t(i)] * matrix_stride + a]) : std::int8_t(-1);
      }
    }
  }
}

}  // namespace swat::dbsearch
