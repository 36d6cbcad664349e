#pragma once
// The commands a benchmark times from start to exit (bench serve, bench gpus): started with
// posix_spawn, standard input and output on /dev/null, standard error into a file.

#include <sys/types.h>

#include <string>
#include <vector>

namespace swat::bench {

//! Starts argv (argv[0] a path) with stdin and stdout on /dev/null and stderr to err_path
//! (created, mode 0600); its pid. Throws runtime_failure when it cannot start.
pid_t spawn_command(const std::vector<std::string>& argv, const std::string& err_path = "/dev/null");

//! Seconds from the start of argv to its exit (spawn_command); throws runtime_failure naming the
//! command and giving its standard error when it fails. `who` names the benchmark in the error.
double timed_command(const std::string& who, const std::vector<std::string>& argv, const std::string& err_path);

//! A file's whole text ("" when it cannot be read).
std::string file_text(const std::string& path);

}  // namespace swat::bench
