#pragma once
// Where the GPU engines plug into the host pipeline.

#include <memory>
#include <string>

#include "engine/engine.hpp"
#include "engine/gpu_options.hpp"

namespace swat::pipeline {

//! The GPU engine chosen by options, or nullptr with the reason in why (no CUDA in this build,
//! no device). Throws usage_error for unknown kernel or sync names.
std::unique_ptr<engine> make_gpu_engine(const gpu_engine_options& options, std::string& why);

//! Number of CUDA devices visible (0 in a CPU-only build or without a driver).
int cuda_device_count();

}  // namespace swat::pipeline
