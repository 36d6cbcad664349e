#pragma once
// What every paper-engine kernel receives by value: the pair, the scores and the device buffers
// (diagonal-major rolling H/E/F for the diagonal kernels, tile borders for the tiled kernel).

#include <cstdint>

#include "common/traceback.hpp"

namespace swat::paper {

//! Value standing for −∞ in E and F (the reference's minus_infinity).
inline constexpr std::int32_t neg_inf = -(1 << 29);
//! Slots of the rolling diagonal buffers: diagonals d, d−1, d−2.
inline constexpr int rolling_slots = 3;
//! Words (int32) of one 128-byte line: the alignment unit of the coalesced layout.
inline constexpr int line_words = 32;

//! Entries of the substitution matrix (matrix_stride × matrix_stride ranks).
inline constexpr int matrix_entries = matrix_stride * matrix_stride;

//! Device view of one fill (plain pointers, passed by value).
struct sw_problem {
  const std::uint8_t* d_query = nullptr;   //!< m ranks (rows)
  const std::uint8_t* d_target = nullptr;  //!< n ranks (columns)
  std::int64_t m = 0;                      //!< query length (rows)
  std::int64_t n = 0;                      //!< target length (columns)
  const std::int32_t* d_matrix = nullptr;  //!< substitution scores, 32 × 32 (matrix_stride)
  std::int32_t gap_oe = 0;                 //!< open + extend: first gap residue (Gotoh 1982)
  std::int32_t gap_e = 0;                  //!< extend: every further gap residue
  std::uint8_t* d_codes = nullptr;         //!< packed 4-bit codes (code_layout.hpp)
  best_cell* d_result = nullptr;           //!< best cell of the fill
  best_cell* d_thread_best = nullptr;      //!< launch-based modes: running best per thread
  // Diagonal kernels.
  const std::int64_t* d_starts = nullptr;  //!< code start of each anti-diagonal (cells)
  std::int32_t* d_h = nullptr;             //!< rolling H: rolling_slots slots of slot_words
  std::int32_t* d_e = nullptr;             //!< rolling E
  std::int32_t* d_f = nullptr;             //!< rolling F
  std::int64_t slot_words = 0;             //!< int32 words per slot (multiple of line_words)
  // Tiled kernel.
  std::int32_t tile = 0;                   //!< tile edge (cells)
  std::int64_t tiles_m = 0;                //!< tile rows
  std::int64_t tiles_n = 0;                //!< tile columns
  std::int64_t chunk_cells = 0;            //!< code cells per tile chunk
  std::int32_t* d_row_h = nullptr;  //!< per tile column: corner + bottom row H (tile + 1 each)
  std::int32_t* d_row_f = nullptr;  //!< per tile column: bottom row F (tile + 1 each)
  std::int32_t* d_col_h = nullptr;  //!< per tile row: right column H (tile + 1 each, [0] unused)
  std::int32_t* d_col_e = nullptr;  //!< per tile row: right column E (tile + 1 each)
};

//! One cell of the Gotoh (1982) recurrences with the codes and tie rules of traceback.hpp.
struct cell_value {
  std::int32_t h, e, f;
  std::uint8_t code;
};

//! H, E, F and code of (i, j) from its left (i, j−1), up (i−1, j) and diagonal neighbours.
__device__ __forceinline__ cell_value gotoh_cell(std::int32_t left_h, std::int32_t left_e,
                                                 std::int32_t up_h, std::int32_t up_f,
                                                 std::int32_t diag_h, std::int32_t s,
                                                 std::int32_t gap_oe, std::int32_t gap_e) {
  const std::int32_t e_open = left_h - gap_oe, e_ext = left_e - gap_e;
  const std::int32_t f_open = up_h - gap_oe, f_ext = up_f - gap_e;
  const std::int32_t diag = diag_h + s;
  cell_value v;
  v.e = max(e_open, e_ext);
  v.f = max(f_open, f_ext);
  v.h = max(max(0, diag), max(v.e, v.f));
  v.code = make_code(v.h, diag, v.e, e_open, e_ext, f_open, f_ext);
  return v;
}

//! Keeps the better of best and (h, i, j) under cell_beats.
__device__ __forceinline__ void keep_best(best_cell& best, std::int32_t h, std::int64_t i,
                                          std::int64_t j) {
  if (cell_beats(h, i, j, best.score, best.query_end, best.target_end)) best = {h, i, j};
}

}  // namespace swat::paper
