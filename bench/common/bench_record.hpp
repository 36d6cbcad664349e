#pragma once
// Provenance and formatting of benchmark results: every CSV written by `swat-gpu bench …` names
// the benchmark, the command, the git commit, the device and the date (in '#' header lines or in
// columns of every row, as each benchmark's CSV has always done).

#include <ostream>
#include <string>
#include <string_view>

namespace swat::bench {

//! Current UTC time in ISO 8601, e.g. "2026-11-22T13:45:00Z".
std::string utc_now();

//! Writes "# <title>", "# command: …", "# git_commit: …" ("unknown" when empty), "# device: …"
//! and "# date: …", one line each.
void write_csv_provenance(std::ostream& csv, std::string_view title, std::string_view command,
                          std::string_view git_commit, std::string_view device);

//! The processor's model name and hardware thread count (Linux), e.g. "AMD EPYC … (2 threads)".
std::string cpu_model();

//! s as one CSV field in double quotes (inner quotes doubled).
std::string csv_quote(std::string_view s);

//! The first line a shell command prints, trimmed ("" when it fails or prints nothing).
std::string first_output_line(const std::string& shell_command);

//! The git commit of the source tree at source_dir (else of the current folder), "-dirty"
//! appended when tracked files differ from it; "unknown" outside git.
std::string git_commit(const std::string& source_dir);

//! The first GPU's name (nvidia-smi), else "cpu".
std::string gpu_name_or_cpu();

}  // namespace swat::bench
