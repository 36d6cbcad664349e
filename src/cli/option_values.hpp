#pragma once
// Typed values of command-line options. Every option of `swat-gpu align` and of the benchmarks is
// declared as a string in cxxopts and converted here, once, so that a bad value is a usage_error
// that names its option ("--threads: 'lots' is not an integer"), and no layer below re-parses it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace swat::cli {

//! text as an integer in [min, max]; throws usage_error naming option otherwise.
long long integer_value(std::string_view option, const std::string& text, long long min, long long max);
//! text as a floating-point number in [min, max]; throws usage_error naming option otherwise.
double real_value(std::string_view option, const std::string& text, double min, double max);
//! A comma-separated list of integers in [min, max] (empty items skipped).
std::vector<long long> integer_list(std::string_view option, const std::string& text, long long min,
                                    long long max);
//! A comma-separated list of words (empty items skipped).
std::vector<std::string> word_list(const std::string& text);

//! args with every "-Xvalue" of a short option X in value_options (e.g. "ot": -o, -t) written as
//! "-X" "value", as getopt reads it, also after grouped flags ("-qoFILE"). cxxopts' own parser
//! (built without std::regex, CMakeLists.txt) reads an attached value of letters and digits
//! only ("-t4"), not a path ("-o/tmp/hits.tsv"). The word after a lone "-X" of value_options
//! is its value and is left as it is, and so is everything after "--".
std::vector<std::string> split_attached_values(const std::vector<std::string>& args, std::string_view value_options);
//! argv for cxxopts: program name then args (pointers into args, which must outlive the result).
std::vector<const char*> argv_of(const char* program, const std::vector<std::string>& args);
//! Throws usage_error for the first word cxxopts did not match ("unexpected argument '…'").
void reject_unmatched(const std::vector<std::string>& unmatched);
//! "PROGRAM ARG ARG…" for CSV provenance and SAM headers.
std::string command_line(std::string_view program, const std::vector<std::string>& args);

}  // namespace swat::cli
