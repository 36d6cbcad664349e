#pragma once
// `swat-gpu bench sort`: the bundled bitonic sort per size x sync mode (total, compute = barrier
// removed, sync = the difference), its per-step-launch twin (cpu), CUB DeviceRadixSort in the
// same run, and the Xiao & Feng 2010 Figures 13-15 sweep over grid sizes. Plain C++.

#include <string>
#include <vector>

namespace swat::sort {

//! Parses args (without the program name; --help lists them), runs, prints a table, writes
//! CSV with --csv FILE. Returns 0; throws usage_error / swat::cuda_error.
int bench_main(const std::vector<std::string>& args);

}  // namespace swat::sort
