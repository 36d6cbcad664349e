#pragma once
// Host-side helpers shared by the fill (fast_dispatch.cu) and the traceback
// (fast_trace_dispatch.cu): the one packing of the scoring scheme for the kernels and the
// constants both need. Device memory: cuda::device_buffer and cuda::buffer_layout.

#include <cstdint>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "cuda/engines/fast/fast_problem.cuh"

namespace swat::fast {

//! Query rank of the padding rows of a last strip (scores −1 against every target rank).
inline constexpr int pad_rank = fast_table_stride - 1;
//! Clock assumed when a watchdog limit in seconds becomes clock64 cycles (Hz).
inline constexpr double watchdog_clock_hz = 2.0e9;

//! The scoring scheme as the fast kernels read it, packed once per scheme: the int8 table
//! [a * 32 + b] (ranks past the scheme's alphabet, the padding rank among them, score −1) and
//! the gap costs of the recurrences (o + e for a gap's first residue, e for each further one).
struct packed_scheme {
  std::vector<std::int8_t> table;  //!< fast_table_stride² entries, uploaded to fast_problem::d_table
  std::int32_t ranks = 0;          //!< target ranks in use (profile rows)
  std::int32_t gap_open_extend = 0;  //!< o + e
  std::int32_t gap_extend = 0;       //!< e

  //! Packs s (its scores must fit int8: scheme_fits of fast_fill.hpp).
  explicit packed_scheme(const scoring_scheme& s)
      : table(fast_table_stride * fast_table_stride, std::int8_t(-1)),
        ranks(s.size()),
        gap_open_extend(s.gap_open + s.gap_extend),
        gap_extend(s.gap_extend) {
    for (int a = 0; a < s.size(); ++a)
      for (int c = 0; c < s.size(); ++c)
        table[std::size_t(a * fast_table_stride + c)] = std::int8_t(s.score(std::uint8_t(a), std::uint8_t(c)));
  }

  //! Sets pb's ranks and gap costs (d_table points at the uploaded table).
  void apply(fast_problem& pb) const {
    pb.ranks = ranks;
    pb.gap_open_extend = gap_open_extend;
    pb.gap_extend = gap_extend;
  }
};

}  // namespace swat::fast
