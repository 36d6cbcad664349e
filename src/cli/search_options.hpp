#pragma once
// The options `swat-gpu align` and `swat-gpu serve` share (--alphabet, the scoring and the
// engine options): declared once on a cxxopts parser and read back into typed values
// (align_command.cpp). cxxopts stays in the .cpp files: its types are only named here.

#include <string>
#include <utility>
#include <vector>

#include "engine/registry.hpp"
#include "pipeline/align_pipeline.hpp"

namespace cxxopts {
class Options;
class ParseResult;
}  // namespace cxxopts

namespace swat::cli {

//! Adds --alphabet to group "Input", the "Scoring" and the "Engine" groups.
void add_search_options(cxxopts::Options& opts, const engine_registry& engines);
//! The scoring options given (unset: the alphabet's defaults).
pipeline::scoring_options scoring_of(const cxxopts::ParseResult& r);
//! The engine plan of --device, --kernel, --sync, --tile, --threads, --cpu-mem, --max-gpu-mem, --gpus.
engine_plan engine_of(const cxxopts::ParseResult& r, const engine_registry& engines);
//! The names (without dashes) of the options add_search_options declares.
const std::vector<std::string>& search_option_names();
//! The options of add_search_options that r holds, in the order given (name, value).
std::vector<std::pair<std::string, std::string>> given_search_options(const cxxopts::ParseResult& r);

}  // namespace swat::cli
