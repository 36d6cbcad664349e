#pragma once
// The fast GPU engine behind swat::engine (plain C++ header), registered as --kernel fast (the
// default of --kernel auto).
//
// score_only(): one fill of the whole matrix → best score and end cell: score16 (packed 16-bit,
//               32-bit rerun on overflow) when the shorter sequence has ≥ 2^17 residues, else score32.
// align(), pairs of ≥ 2^24 cells: GPU traceback in bounded memory (fast_trace.hpp), budget
//               0.9 × (free device memory + what its kept traceback buffers hold), capped by
//               max_gpu_mem_bytes; the traceback's buffers stay for the next pair of the same
//               scheme while they hold at most 256 MiB and fit that pair's budget.
// align(), smaller pairs: (1) one fill with forward origins (origins32) → best cell and exact begin;
//               (2) the rectangle [begin, end] alone is traced back with zero borders (same
//               path as the whole matrix: proof in engine/cpu_traceback.hpp) by the CPU's
//               bounded-memory tracer (codes when R·W ≤ budget, else checkpoint rows every K
//               rows: peak ≤ budget + 8(W+1)(⌈log2 R⌉+1) + 16(W+1) bytes for an R × W rectangle).
// Schemes whose scores do not fit the int8 profile, or whose best score could pass 2^30, are
// refused (unfit_reason): the fallback decorator (engine/fallback.hpp) gives them to the CPU.

#include <memory>

#include "engine/engine.hpp"
#include "engine/options.hpp"

namespace swat {
class engine_registry;
}

namespace swat::fast {

//! The fast engine ("gpu-fast") on device options.gpu_id; options.fill_progress (may be empty)
//! hears the fraction done of GPU traceback fills that run ≥ 2 s.
std::unique_ptr<swat::engine> make_fast_engine(const engine_options& options);

//! Registers --kernel fast, the highest rank of --kernel auto.
void register_engines(engine_registry& registry);

}  // namespace swat::fast
