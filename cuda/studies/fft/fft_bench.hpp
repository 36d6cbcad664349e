#pragma once
// `swat-gpu bench fft`: the bundled FFT per size x sync mode (total, compute = barrier removed,
// sync = the difference), its per-pass-launch twin (cpu), cuFFT in the same run, and the
// Xiao & Feng 2010 Figures 13-15 sweep over grid sizes. Plain C++ entry point.

#include <string>
#include <vector>

namespace swat::fft {

//! Parses args (without the program name; --help lists them), runs, prints a table, writes
//! CSV with --csv FILE. Returns 0; throws usage_error / swat::cuda_error.
int bench_main(const std::vector<std::string>& args);

}  // namespace swat::fft
