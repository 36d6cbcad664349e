// Whether a launcher started this process as one of several ranks (distributed.hpp).

#include <cstdlib>
#include <string>

#include "dist/distributed.hpp"

namespace swat::dist {

int launched_ranks() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size || !*size) return 0;
  char* end = nullptr;
  const long n = std::strtol(size, &end, 10);
  return *end == '\0' && n > 0 && n < (1L << 30) ? int(n) : 0;
}

}  // namespace swat::dist
