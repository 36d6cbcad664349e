#pragma once
// Benchmark of the fast engine (plain C++): score-only GCUPS of both fill variants on prefixes
// of the Spiroplasma kunkelii genome × its mutated copy (1k … 1.46 Mb), CSV with command,
// commit, device and date per row.

#include <string>
#include <vector>

namespace swat::fast {

//! Runs the benchmark; args as after `swat-gpu bench fast` (--help lists them). Returns the
//! process exit code.
int bench_main(const std::vector<std::string>& args);

}  // namespace swat::fast
