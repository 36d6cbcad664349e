#pragma once
// `swat-gpu bench sw`: matrix-filling time of the paper engines (Xiao, Aji & Feng 2009 Fig. 8
// and 10) per kernel × sync mode × block count × sequence length, GCUPS and the compute/sync
// split (compute = the same persistent kernel with the barrier removed, mode none).

#include <string>
#include <vector>

namespace swat::paper {

//! Parses args (the words after `bench sw`; --help lists them), runs, prints the table and
//! writes --csv FILE. Returns the exit code (0). Throws usage_error for bad options.
int bench_main(const std::vector<std::string>& args);

}  // namespace swat::paper
