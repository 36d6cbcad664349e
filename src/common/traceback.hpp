#pragma once
// Traceback codes and tie rules shared by the reference and every engine.
//
// Recurrences (Gotoh 1982; a gap of length k costs o + k·e), query q (rows i = 1..m),
// target t (columns j = 1..n):
//   E(i,j) = max(H(i,j-1) - o - e, E(i,j-1) - e)          gap in query  (consumes t_j, 'D')
//   F(i,j) = max(H(i-1,j) - o - e, F(i-1,j) - e)          gap in target (consumes q_i, 'I')
//   H(i,j) = max(0, H(i-1,j-1) + s(q_i, t_j), E(i,j), F(i,j))
//   H(i,0) = H(0,j) = 0,  E(i,0) = F(0,j) = -infinity.
//
// Tie rules (identical in every engine so outputs compare byte for byte):
//   best cell: the highest H; among equal scores the smallest target end j, then the smallest
//              query end i.
//   H source:  0 when H = 0 (the alignment starts after this cell); otherwise diagonal before
//              E (gap in query) before F (gap in target).
//   E and F:   opening (from H) before extending on equal values.
//
// Cell code, 4 bits: bits 0-1 H source (code_zero/diag/e/f), bit 2 E opened here, bit 3 F
// opened here.

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "common/alignment.hpp"

namespace swat {

inline constexpr std::uint8_t code_zero = 0;    //!< H = 0: stop
inline constexpr std::uint8_t code_diag = 1;    //!< H from H(i-1,j-1) + s
inline constexpr std::uint8_t code_e = 2;       //!< H from E(i,j): gap in query
inline constexpr std::uint8_t code_f = 3;       //!< H from F(i,j): gap in target
inline constexpr std::uint8_t code_h_mask = 3;  //!< bits of the H source
inline constexpr std::uint8_t code_e_open = 4;  //!< E(i,j) = H(i,j-1) - o - e
inline constexpr std::uint8_t code_f_open = 8;  //!< F(i,j) = H(i-1,j) - o - e

//! The best cell of a fill: score and 1-based DP indices (i = query end, j = target end).
//! score 0 means no alignment (i = j = 0).
struct best_cell {
  std::int32_t score = 0;
  std::int64_t query_end = 0;
  std::int64_t target_end = 0;
  bool operator==(const best_cell&) const = default;
};

//! True when a cell (score, i, j) beats best under the tie rule above (host and device).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline bool cell_beats(std::int32_t score, std::int64_t i, std::int64_t j, std::int32_t best_score,
                       std::int64_t best_i, std::int64_t best_j) {
  if (score != best_score) return score > best_score;
  if (j != best_j) return j < best_j;
  return i < best_i;
}

//! Code of one cell from its values: h and e at (i,j), diag = H(i-1,j-1) + s (H = F otherwise),
//! e_open = H(i,j-1) - o - e, e_ext = E(i,j-1) - e, and likewise for f.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline std::uint8_t make_code(std::int32_t h, std::int32_t diag, std::int32_t e, std::int32_t e_open, std::int32_t e_ext, std::int32_t f_open,
                              std::int32_t f_ext) {
  std::uint8_t code = h == 0 ? code_zero : h == diag ? code_diag : h == e ? code_e : code_f;
  if (e_open >= e_ext) code |= code_e_open;
  if (f_open >= f_ext) code |= code_f_open;
  return code;
}

//! Walks the codes back from the best cell and returns the alignment (CPU traceback).
//! code_at(i, j) returns the 4-bit code of DP cell (i, j), 1 ≤ i ≤ m, 1 ≤ j ≤ n.
template <typename CodeAt>
alignment walk_traceback(const best_cell& best, CodeAt&& code_at) {
  alignment aln;
  aln.score = best.score;
  aln.query_end = best.query_end;
  aln.target_end = best.target_end;
  if (best.score <= 0) {
    aln.query_end = aln.target_end = 0;
    return aln;
  }
  std::int64_t i = best.query_end;
  std::int64_t j = best.target_end;
  enum class state { h, e, f } st = state::h;
  std::vector<cigar_op> rev;
  while (i > 0 && j > 0) {
    const std::uint8_t code = code_at(i, j);
    if (st == state::h) {
      const std::uint8_t src = code & code_h_mask;
      if (src == code_zero) break;
      if (src == code_diag) {
        push_op(rev, 'M');
        --i;
        --j;
      } else {
        st = src == code_e ? state::e : state::f;
      }
    } else if (st == state::e) {
      push_op(rev, 'D');
      if (code & code_e_open) st = state::h;
      --j;
    } else {
      push_op(rev, 'I');
      if (code & code_f_open) st = state::h;
      --i;
    }
  }
  if (st != state::h) throw std::logic_error("traceback left the matrix inside a gap");
  aln.query_begin = i;
  aln.target_begin = j;
  aln.ops.assign(rev.rbegin(), rev.rend());
  return aln;
}

}  // namespace swat
