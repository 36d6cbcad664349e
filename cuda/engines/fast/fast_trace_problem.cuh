#pragma once
// Device view of one traceback fill (crossing or codes mode): the fast fill's problem plus the
// top border's start cell, band size, checkpoint rows, end-cell capture and the code buffer.

#include <cstdint>

#include "cuda/engines/fast/fast_problem.cuh"
#include "cuda/engines/fast/fast_trace_types.hpp"

namespace swat::fast {

//! Everything a traceback fill reads and writes (passed by value to the kernel).
struct trace_problem {
  fast_problem base;             //!< sequences, table, H/F border rows, flags, bests, watchdog
  std::uint32_t* ph[2];          //!< crossing pointers of H on the border rows (n entries each)
  std::uint32_t* pf[2];          //!< crossing pointers of F on the border rows
  std::int32_t start_col;        //!< top border: column (1-based) holding start_h/start_f, 0 none
  std::int32_t start_h;          //!< H(0, start_col); every other H(0, j) = 0
  std::int32_t start_f;          //!< F(0, start_col); every other F(0, j) = −inf
  const special_cell* d_top;     //!< non-null: H(0, j), F(0, j) = d_top[j − 1] (start_col unused)
  std::int32_t band_strips;      //!< strips per band (crossing mode)
  checkpoint_entry* d_ck;        //!< (bands − 1) × n: row b·K of band b's top, b = 1 …; one
                                 //!< more (the last row) when the fill hands it to a band below
  std::int32_t end_col;          //!< capture the pointers of (m, end_col); 0 = none
  std::uint32_t* d_end;          //!< [0] pointer of H, [1] of F at the end cell
  std::uint32_t* d_codes;        //!< codes mode: strips × (n + 31) × 32 words, 8 nibbles each
  unsigned long long* d_progress;  //!< strip columns done, shown to the host (mapped host memory), may be null
  unsigned long long* d_progress_count;  //!< the same count in device memory (device-scope adds)
};

}  // namespace swat::fast
