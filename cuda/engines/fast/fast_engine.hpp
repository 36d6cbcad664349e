#pragma once
// The fast GPU engine behind swat::engine (plain C++ header).
//
// score_only(): one fill of the whole matrix → best score and end cell: score16 (packed 16-bit,
//               32-bit rerun on overflow) when the shorter sequence has ≥ 2^17 residues, else score32.
// align(), pairs of ≥ 2^24 cells: GPU traceback in bounded memory (fast_trace.hpp), budget
//               0.9 × free device memory, capped by max_gpu_mem_bytes.
// align(), smaller pairs: (1) one fill with forward origins (origins32) → best cell and exact begin;
//               (2) the rectangle [begin, end] alone is traced back with zero borders (same
//               path as the whole matrix: proof in engine/cpu_traceback.hpp) by the CPU's
//               bounded-memory tracer (codes when R·W ≤ budget, else checkpoint rows every K
//               rows: peak ≤ budget + 8(W+1)(⌈log2 R⌉+1) + 16(W+1) bytes for an R × W rectangle).
// Schemes whose scores do not fit the int8 profile go to the CPU engine with a notice.

#include <memory>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"
#include "engine/engine.hpp"
#include "cuda/engines/fast/fast_progress.hpp"
#include "engine/gpu_options.hpp"

namespace swat::fast {

//! The fast engine ("gpu-fast") for --kernel fast.
std::unique_ptr<swat::engine> make_fast_engine(const swat::gpu_engine_options& options);
//! The same with a progress hook for fills longer than ~2 s (fast_progress.hpp says how the CLI
//! connects stderr_progress and --quiet).
std::unique_ptr<swat::engine> make_fast_engine(const swat::gpu_engine_options& options, fill_progress_fn progress);

}  // namespace swat::fast
