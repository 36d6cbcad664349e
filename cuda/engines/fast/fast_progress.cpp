// Progress line of the fast engine (fast_progress.hpp).

#include "cuda/engines/fast/fast_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace swat::fast {

std::string progress_line(double fraction, double elapsed_seconds) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  char buf[96];
  if (fraction > 0.01 && fraction < 1.0)
    std::snprintf(buf, sizeof buf, "gpu-fast: fill %3d%% (%.1f s, eta %.1f s)", int(std::floor(fraction * 100)),
                  elapsed_seconds, elapsed_seconds * (1.0 - fraction) / fraction);
  else
    std::snprintf(buf, sizeof buf, "gpu-fast: fill %3d%% (%.1f s)", int(std::floor(fraction * 100)), elapsed_seconds);
  return buf;
}

fill_progress_fn stderr_progress(bool quiet, std::FILE* stream, bool force) {
  if (quiet || !stream || (!force && !isatty(fileno(stream)))) return {};
  return [stream](double fraction, double elapsed) {
    const std::string line = progress_line(fraction, elapsed);
    std::fprintf(stream, "\r%s%s", line.c_str(), fraction >= 1.0 ? "\n" : "");
    std::fflush(stream);
  };
}

}  // namespace swat::fast
