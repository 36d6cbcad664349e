// `swat-gpu --version`: the version, the engines this build has (from the registry) and MPI.

#include <algorithm>
#include <string>

#include "cli/commands.hpp"
#include "dist/distributed.hpp"
#include "engine/registry.hpp"

namespace swat::cli {

std::string version_text(const engine_registry& engines) {
  std::string text = "swat-gpu " SWAT_VERSION_STRING "\nengines built (--kernel NAME; cpu: --device cpu):\n";
  for (const engine_entry& e : engines.entries()) {
    std::string line = "  " + e.name;
    for (const std::string& alias : e.aliases) line += " (" + alias + ")";
    line.resize(std::max<std::size_t>(line.size() + 2, 24), ' ');
    text += line + e.summary + "\n";
  }
  if (!engines.has_gpu_runtime()) text += "GPU engines: none (configured with SWAT_WITH_CUDA=OFF)\n";
  text += dist::mpi_version_line() + "\n";
  return text;
}

}  // namespace swat::cli
