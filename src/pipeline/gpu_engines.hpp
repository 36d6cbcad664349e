#pragma once
// Where the GPU engines plug into the host pipeline.

#include <memory>
#include <string>

#include "engine/engine.hpp"

namespace swat::pipeline {

//! The default GPU engine, or nullptr with the reason in why (no CUDA in this build, no device,
//! no GPU engine yet).
std::unique_ptr<engine> make_gpu_engine(std::string& why);

//! Number of CUDA devices visible (0 in a CPU-only build or without a driver).
int cuda_device_count();

}  // namespace swat::pipeline
