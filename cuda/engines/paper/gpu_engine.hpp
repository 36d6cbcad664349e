#pragma once
// The paper engines behind swat::engine (plain C++): fill on the GPU, traceback on the CPU.

#include <memory>

#include "engine/engine.hpp"
#include "engine/gpu_options.hpp"

namespace swat::paper {

//! GPU engine for options.kernel (diagonal|coalesced|tiled|auto = coalesced) and options.sync
//! (a sync mode name or auto = the best persistent mode measured on the H100). Unknown names →
//! swat::usage_error listing the valid ones. Pairs whose traceback codes do not fit in free GPU
//! memory (or --max-gpu-mem) go to the bounded-memory CPU engine with a notice.
std::unique_ptr<swat::engine> make_gpu_engine(const swat::gpu_engine_options& options);

}  // namespace swat::paper
