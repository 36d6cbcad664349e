// Scalar kernels of the CPU engine: the row-major score pass with origin propagation and the
// row fill used by the traceback. Recurrences: Gotoh 1982 (common/traceback.hpp).

#include <algorithm>
#include <vector>

#include "engine/cpu_kernels.hpp"

namespace swat::cpu {
namespace {

//! Origin cell packed as (i << 32) | j (DP indices, each < 2^32).
using packed_cell = std::uint64_t;
inline packed_cell pack(std::int64_t i, std::int64_t j) { return (packed_cell(i) << 32) | packed_cell(j); }

template <bool with_origins>
pass_result score_pass_rows(residue_span query, residue_span target, const scoring_scheme& scheme,
                            const progress_fn* progress) {
  const std::int64_t m = std::int64_t(query.size());
  const std::int64_t n = std::int64_t(target.size());
  const std::int32_t open = scheme.gap_open + scheme.gap_extend;
  const std::int32_t ext = scheme.gap_extend;
  std::vector<std::int32_t> h(std::size_t(n + 1), 0), f(std::size_t(n + 1), minus_infinity);
  std::vector<packed_cell> oh, of;
  if constexpr (with_origins) {
    oh.resize(std::size_t(n + 1));
    of.assign(std::size_t(n + 1), 0);
    for (std::int64_t j = 0; j <= n; ++j) oh[std::size_t(j)] = pack(0, j);
  }
  pass_result out;
  packed_cell best_origin = 0;
  std::uint64_t pending = 0;
  const std::uint8_t* t = target.data();
  for (std::int64_t i = 1; i <= m; ++i) {
    const std::int32_t* mrow = &scheme.matrix[std::size_t(query[std::size_t(i - 1)]) * matrix_stride];
    std::int32_t diag = 0, h_left = 0, e = minus_infinity;
    packed_cell o_diag = pack(i - 1, 0), o_left = pack(i, 0), o_e = 0, o = 0;
    std::int32_t row_max = 0;
    std::int64_t row_j = 0;
    packed_cell row_o = 0;
    for (std::int64_t j = 1; j <= n; ++j) {
      const std::int32_t up = h[std::size_t(j)];
      const std::int32_t e_open = h_left - open, e_ext = e - ext;
      const std::int32_t f_open = up - open, f_ext = f[std::size_t(j)] - ext;
      e = std::max(e_open, e_ext);
      const std::int32_t fv = std::max(f_open, f_ext);
      const std::int32_t d = diag + mrow[t[j - 1]];
      const std::int32_t hv = std::max(std::max(d, e), std::max(fv, 0));
      if constexpr (with_origins) {
        o_e = e_open >= e_ext ? o_left : o_e;
        const packed_cell o_f = f_open >= f_ext ? oh[std::size_t(j)] : of[std::size_t(j)];
        o = hv == d ? o_diag : hv == e ? o_e : o_f;
        o = hv == 0 ? pack(i, j) : o;
        o_diag = oh[std::size_t(j)];
        oh[std::size_t(j)] = o;
        of[std::size_t(j)] = o_f;
        o_left = o;
      }
      diag = up;
      h[std::size_t(j)] = hv;
      f[std::size_t(j)] = fv;
      h_left = hv;
      const bool gt = hv > row_max;  // first j of the row maximum
      row_max = gt ? hv : row_max;
      row_j = gt ? j : row_j;
      if constexpr (with_origins) row_o = gt ? o : row_o;
    }
    if (row_max > 0 && cell_beats(row_max, i, row_j, out.best.score, out.best.query_end, out.best.target_end)) {
      out.best = {row_max, i, row_j};
      best_origin = row_o;
    }
    pending += std::uint64_t(n);
    if (progress && *progress && pending >= progress_chunk_cells) {
      (*progress)(pending);
      pending = 0;
    }
  }
  if (progress && *progress && pending) (*progress)(pending);
  if constexpr (with_origins) {
    if (out.best.score > 0) {
      out.query_begin = std::int64_t(best_origin >> 32);
      out.target_begin = std::int64_t(best_origin & 0xffffffffu);
    }
  }
  return out;
}

}  // namespace

pass_result score_pass_scalar(residue_span query, residue_span target, const scoring_scheme& scheme,
                              bool with_origins, const progress_fn* progress) {
  return with_origins ? score_pass_rows<true>(query, target, scheme, progress)
                      : score_pass_rows<false>(query, target, scheme, progress);
}

void fill_row(std::uint8_t q_rank, const std::uint8_t* target, std::int64_t w,
              const scoring_scheme& scheme, std::int32_t* h, std::int32_t* f, std::uint8_t* codes) {
  const std::int32_t open = scheme.gap_open + scheme.gap_extend;
  const std::int32_t ext = scheme.gap_extend;
  const std::int32_t* mrow = &scheme.matrix[std::size_t(q_rank) * matrix_stride];
  std::int32_t diag = h[0], h_left = 0, e = minus_infinity;
  h[0] = 0;
  if (codes) {
    for (std::int64_t j = 1; j <= w; ++j) {
      const std::int32_t up = h[j];
      const std::int32_t e_open = h_left - open, e_ext = e - ext;
      const std::int32_t f_open = up - open, f_ext = f[j] - ext;
      e = std::max(e_open, e_ext);
      const std::int32_t fv = std::max(f_open, f_ext);
      const std::int32_t d = diag + mrow[target[j - 1]];
      const std::int32_t hv = std::max(std::max(d, e), std::max(fv, 0));
      // make_code() without branches: later assignments have priority (zero, diag, E, F).
      std::uint8_t c = hv == e ? code_e : code_f;
      c = hv == d ? code_diag : c;
      c = hv == 0 ? code_zero : c;
      codes[j - 1] = std::uint8_t(c | (e_open >= e_ext ? code_e_open : 0) | (f_open >= f_ext ? code_f_open : 0));
      diag = up;
      h[j] = hv;
      f[j] = fv;
      h_left = hv;
    }
  } else {
    for (std::int64_t j = 1; j <= w; ++j) {
      const std::int32_t up = h[j];
      e = std::max(h_left - open, e - ext);
      const std::int32_t fv = std::max(up - open, f[j] - ext);
      const std::int32_t d = diag + mrow[target[j - 1]];
      const std::int32_t hv = std::max(std::max(d, e), std::max(fv, 0));
      diag = up;
      h[j] = hv;
      f[j] = fv;
      h_left = hv;
    }
  }
}

}  // namespace swat::cpu
