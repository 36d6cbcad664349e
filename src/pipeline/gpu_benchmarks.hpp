#pragma once
// GPU benchmark entry points for `swat-gpu bench`; each throws usage_error when the build or
// the machine cannot run it.

#include <string>
#include <vector>

namespace swat::pipeline {

//! Runs `swat-gpu bench WHAT ARGS…` for a GPU benchmark (barrier, sw, fft, sort).
int run_gpu_benchmark(const std::string& what, const std::vector<std::string>& args);

}  // namespace swat::pipeline
