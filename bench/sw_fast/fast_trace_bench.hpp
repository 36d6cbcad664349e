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

//! `swat-gpu bench fast --long-pair`: the 1.46 Mb S. kunkelii pair (issue 26) — the score pass
//! (packed 16-bit, and the 32-bit fill for comparison), the score pass that keeps special rows,
//! the traceback from them (and the crossing-pointer root fill's, once), and the whole `swat-gpu
//! align … --strand plus` command; medians of reps. Rows `case,phase,seconds,gcups,commit,device,
//! date` to csv_path (written anew; standard output when empty).
int long_pair_bench(const cuda::device_context& dev, int reps, const std::string& csv_path, const std::string& commit);

}  // namespace swat::bench
