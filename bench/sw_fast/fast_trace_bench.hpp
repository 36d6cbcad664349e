#pragma once
// `swat-gpu bench fast --trace` (fast_trace_bench.cpp): the fast engine's GPU traceback of two
// real pairs, timed stage by stage.

#include <string>

#include "cuda/common/device_context.hpp"

namespace swat::bench {

//! Runs the traceback benchmark on dev, prints a table and appends CSV rows to csv_path (none when
//! empty). command and commit are recorded in every row. Returns the exit code (0).
int fast_trace_bench(const cuda::device_context& dev, const std::string& command, int reps,
                     const std::string& csv_path, const std::string& commit);

}  // namespace swat::bench
