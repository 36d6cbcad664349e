#pragma once
// Provenance of benchmark results: every CSV written by `swat-gpu bench …` starts with '#'
// lines naming the benchmark, the command, the git commit, the device and the date.

#include <ostream>
#include <string>
#include <string_view>

namespace swat::cuda {

//! Current UTC time in ISO 8601, e.g. "2026-11-22T13:45:00Z".
std::string utc_now();

//! Writes "# <title>", "# command: …", "# git_commit: …" ("unknown" when empty), "# device: <name>
//! (<SMs> SMs)" of the current device and "# date: …", one line each.
void write_csv_provenance(std::ostream& csv, std::string_view title, std::string_view command,
                          std::string_view git_commit);

}  // namespace swat::cuda
