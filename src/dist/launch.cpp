// One `align` as a rank of an MPI job (distributed.hpp), in every build: the launcher's size, the
// MPI runner's registration, and the dispatch. swat-gpu itself links no MPI library (it starts
// where none is installed, as on a bare GPU machine); under mpirun it hands itself to
// swat-gpu-mpi beside it, the same program with the runner registered (mpi_align.cpp), which
// the ranks run. A build without MPI has no swat-gpu-mpi and refuses several ranks.

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "common/error.hpp"
#include "dist/distributed.hpp"

namespace swat::dist {
namespace {

mpi_runner registered_runner = nullptr;
mpi_version_fn registered_version = nullptr;

//! swat-gpu-mpi beside this executable ("" where there is none).
std::string mpi_program() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path sibling = self.parent_path() / "swat-gpu-mpi";
  return ::access(sibling.c_str(), X_OK) == 0 ? sibling.string() : std::string();
}

//! This process's arguments as it was started (/proc/self/cmdline).
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = all.find('\0', at);
    args.push_back(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return args;
}

}  // namespace

int launched_ranks() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size || !*size) return 0;
  char* end = nullptr;
  const long n = std::strtol(size, &end, 10);
  return *end == '\0' && n > 0 && n < (1L << 30) ? int(n) : 0;
}

bool register_mpi_runner(mpi_runner run, mpi_version_fn version) {
  registered_runner = run;
  registered_version = version;
  return true;
}

std::string mpi_version_line() {
  if (registered_version) return registered_version();
#ifdef SWAT_MPI_LIBRARY
  if (!mpi_program().empty())
    return std::string("MPI: " SWAT_MPI_LIBRARY " (mpirun -np N swat-gpu align ...: one search over N ranks, run by "
                       "swat-gpu-mpi beside this binary)");
#endif
  return "MPI: none (configured with SWAT_WITH_MPI=OFF)";
}

void run_align(const pipeline::align_options& options, std::ostream& stdout_stream, const notice_fn& notice) {
  if (registered_runner) {
    registered_runner(options, stdout_stream, notice);
    return;
  }
  const std::string program = mpi_program();
  if (!program.empty()) {
    std::vector<std::string> args = own_arguments();
    if (args.empty()) throw runtime_failure("cannot read this process's arguments (/proc/self/cmdline)");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    throw runtime_failure("cannot start " + program + ": " + std::strerror(errno));
  }
  if (const int ranks = launched_ranks(); ranks > 1)
    throw usage_error("started as " + std::to_string(ranks) +
                      " MPI ranks, but this swat-gpu was built without MPI (see --version): each rank would "
                      "run the whole search; build with libopenmpi-dev installed (SWAT_WITH_MPI=ON)");
  pipeline::run_align(options, stdout_stream, notice);
}

}  // namespace swat::dist
