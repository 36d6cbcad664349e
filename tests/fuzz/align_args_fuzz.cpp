// libFuzzer: `swat-gpu align` argument parsing through its entry point (swat::cli::align_command),
// one argument per input line. It runs in a scratch directory holding small inputs (q.fa, d.fa,
// p.fa, m.mat); arguments with a '/' are skipped so nothing outside it is read or written.
// The errors main() turns into exit codes are expected; anything else is a finding.

#include <cxxopts.hpp>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "engine/registry.hpp"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // libFuzzer opens its corpus directories after this: make them absolute before the chdir.
  for (int k = 1; k < *argc; ++k)
    if ((*argv)[k][0] != '-') (*argv)[k] = ::strdup(std::filesystem::absolute((*argv)[k]).c_str());
  std::string dir = (std::filesystem::temp_directory_path() / "swat-fuzz-args-XXXXXX").string();
  if (!::mkdtemp(dir.data()) || ::chdir(dir.c_str()) != 0) std::abort();
  static const std::filesystem::path sandbox = dir;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(sandbox, ec);
  });
  std::ofstream("q.fa") << ">q query\nACGTACGTTTGACAGTAC\n";
  std::ofstream("d.fa") << ">d1\nTTACGTACGTTGACAGTA\n>d2\nGGGGCCCCAAAA\n";
  std::ofstream("p.fa") << ">p\nMKVLAAGIVWHEHE\n";
  std::ofstream("m.mat") << "   A  R  N\nA  4 -1 -2\nR -1  5  0\nN -2  0  6\n";
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();  // --help, hits
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t k = 0; k < size && args.size() <= 24; ++k) {
    const char c = char(data[k]);
    if (c == '/') return 0;
    if (c == '\n') args.emplace_back();
    else args.back() += c;
  }
  try {
    swat::cli::align_command(swat::built_engines(), args);
  } catch (const swat::usage_error&) {
  } catch (const swat::input_error&) {
  } catch (const swat::runtime_failure&) {
  } catch (const cxxopts::exceptions::exception&) {
  } catch (const std::bad_alloc&) {
  }
  return 0;
}
