#pragma once
// Whole commands for `swat-gpu bench shapes`: one program started with posix_spawn (standard
// input from /dev/null or closed, standard output and error to files), timed from start to exit on the
// steady clock and stopped after a time limit; and the figures read back from what the tools
// print (swat-gpu's --timing line, CUDASW++4.0's "Total time").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace swat::bench::shapes {

//! A program and its environment.
struct command {
  std::vector<std::string> argv;  //!< argv[0]: the program (a path, or a name looked up in PATH)
  std::vector<std::string> env;   //!< "NAME=value" entries that replace or join the environment
  bool close_stdin = false;       //!< standard input closed, not /dev/null (parasail_aligner reads an open one)
};

//! How a command ended.
struct command_result {
  int exit_code = 0;       //!< exit status; 128 + N when killed by signal N
  bool timed_out = false;  //!< stopped (SIGKILL) at the time limit
  double seconds = 0;      //!< wall time from start to exit (steady clock), seconds
};

//! Runs cmd with standard output to stdout_path and standard error to stderr_path (the same path:
//! both into one file), waiting at most timeout_s seconds (0: no limit). Throws runtime_failure
//! when the program cannot be started.
command_result run_command(const command& cmd, const std::string& stdout_path, const std::string& stderr_path,
                           double timeout_s);

//! The whole text of a file ("" when it cannot be read).
std::string file_text(const std::string& path);

//! The last non-blank line of text ("" when none).
std::string last_line(const std::string& text);

//! The scan of a `swat-gpu align --timing` line in text: S of "…; scan S s, …" (the pipeline's
//! figure, after the engine's stages), seconds; nullopt without such a line or when S is 0 (a
//! single pair is aligned without a scan).
std::optional<double> swat_scan_seconds(const std::string& text);

//! S of CUDASW++4.0's "Total time: S s" (its scan, --verbose), seconds; nullopt when absent.
std::optional<double> cudasw4_scan_seconds(const std::string& text);

//! text split into words at blanks; single or double quotes group (--gpu-args "…"). Throws
//! usage_error naming option for an unbalanced quote.
std::vector<std::string> split_words(std::string_view option, const std::string& text);

//! cmd as one line for notices (words with blanks quoted).
std::string display(const command& cmd);

}  // namespace swat::bench::shapes
