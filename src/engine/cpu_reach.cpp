// The reverse pass of one hit on the CPU, pruned to the cells a path into the best cell keeps
// positive (cpu_reach.hpp): a weak hit of a long query has a reach window of billions of cells
// and a box of a few hundred.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/cpu_reach.hpp"

namespace swat {

namespace {

constexpr std::int32_t dead = std::numeric_limits<std::int32_t>::min() / 2;  //!< pruned or unreachable

}  // namespace

std::optional<box_extent> pruned_reach(residue_span query_prefix, residue_span target_prefix, std::int32_t score,
                                       const scoring_scheme& scheme, std::uint64_t max_cells) {
  const std::int64_t m = std::int64_t(query_prefix.size()), n = std::int64_t(target_prefix.size());
  if (score <= 0 || m == 0 || n == 0) return std::nullopt;
  const std::int32_t open = scheme.gap_open + scheme.gap_extend, ext = scheme.gap_extend;
  // Reversed row i, column j: the best score of a path from the forward cell (m − i, n − j) into
  // the best cell (Gotoh 1982's recurrences on the reversed prefixes, anchored at their origin,
  // no zero floor). A value ≤ 0 is pruned (dead): a cell of an optimal path keeps S minus its
  // prefix's score, and that prefix scores less than S (cpu_reach.hpp). Row i holds columns
  // [lo, lo + size): H and F of the row above are read, E runs along the row.
  std::vector<std::int32_t> h_above{0}, f_above{dead}, h_row, f_row;
  std::int64_t lo_above = 0;
  box_extent box;
  std::uint64_t cells = 0;
  for (std::int64_t i = 1; i <= m; ++i) {
    const std::int64_t hi_above = lo_above + std::int64_t(h_above.size()) - 1;
    const std::int64_t lo = std::max<std::int64_t>(lo_above, 1);  // column 0 is dead past the origin
    const std::uint8_t a = query_prefix[std::size_t(m - i)];
    h_row.clear();
    f_row.clear();
    std::int32_t e = dead, h_left = dead;
    std::int64_t first_live = -1, last_live = -1;
    for (std::int64_t j = lo; j <= n; ++j) {
      const bool above = j <= hi_above, diagonal = j - 1 >= lo_above && j - 1 <= hi_above;
      if (!above && !diagonal && e == dead && h_left == dead) break;  // nothing reaches further right
      const std::int32_t hd = diagonal ? h_above[std::size_t(j - 1 - lo_above)] : dead;
      const std::int32_t diag =
          hd == dead ? dead : hd + scheme.score(a, target_prefix[std::size_t(n - j)]);
      std::int32_t f = dead;
      if (above) {
        const std::int32_t hu = h_above[std::size_t(j - lo_above)], fu = f_above[std::size_t(j - lo_above)];
        f = std::max(hu == dead ? dead : hu - open, fu == dead ? dead : fu - ext);
        if (f <= 0) f = dead;
      }
      e = std::max(h_left == dead ? dead : h_left - open, e == dead ? dead : e - ext);
      if (e <= 0) e = dead;
      std::int32_t h = std::max({diag, e, f});
      if (h <= 0) h = dead;
      if (h > score) return std::nullopt;  // not the best score of these prefixes: no box from here
      if (h == score) {
        box.rows = std::max(box.rows, i);
        box.columns = std::max(box.columns, j);
      }
      h_row.push_back(h);
      f_row.push_back(f);
      h_left = h;
      if (h != dead) {  // E and F > 0 make H > 0: H alone tells a live cell
        if (first_live < 0) first_live = j;
        last_live = j;
      }
      if (++cells > max_cells) return std::nullopt;
    }
    if (first_live < 0) break;  // every path into the best cell has fallen to 0 or below
    // The next row reads only the live columns.
    const std::size_t from = std::size_t(first_live - lo), count = std::size_t(last_live - first_live + 1);
    h_above.assign(h_row.begin() + std::ptrdiff_t(from), h_row.begin() + std::ptrdiff_t(from + count));
    f_above.assign(f_row.begin() + std::ptrdiff_t(from), f_row.begin() + std::ptrdiff_t(from + count));
    lo_above = first_live;
  }
  if (box.rows == 0) return std::nullopt;
  return box;
}

}  // namespace swat
