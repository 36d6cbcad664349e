// A build without MPI (SWAT_WITH_MPI=OFF; distributed.hpp): one rank runs the plain `align`;
// several would each run the whole search and write the same output, so they are refused.

#include <string>

#include "common/error.hpp"
#include "dist/distributed.hpp"

namespace swat::dist {

std::string mpi_version_line() { return "MPI: none (configured with SWAT_WITH_MPI=OFF)"; }

void run_align(const pipeline::align_options& options, std::ostream& stdout_stream, const notice_fn& notice) {
  if (const int ranks = launched_ranks(); ranks > 1)
    throw usage_error("started as " + std::to_string(ranks) +
                      " MPI ranks, but this swat-gpu was built without MPI (see --version): each rank would "
                      "run the whole search; build with libopenmpi-dev installed (SWAT_WITH_MPI=ON)");
  pipeline::run_align(options, stdout_stream, notice);
}

}  // namespace swat::dist
