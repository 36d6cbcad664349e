// The shape planner's device choice (plan.hpp).

#include "engine/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace swat {

device_plan plan_device(const search_size& size, unsigned threads, const cost_model& model) {
  device_plan p;
  p.cpu_threads = std::max(threads, 1u);
  const double cells = size.cells();
  // A scan needs many pairs to fill the GPU (or long sides cut into windows); a few pairs of
  // similar, long sides go to the pair engine at its lower rate.
  const double pairs = double(std::max<std::uint64_t>(size.queries, 1)) * double(std::max<std::uint64_t>(size.targets, 1));
  const double rate = pairs >= 64 ? model.gpu_scan_cells_per_s : model.gpu_pair_cells_per_s;
  p.gpu_s = model.gpu_start_s + cells / rate;
  p.cpu_s = cells / (model.cpu_cells_per_s_per_thread * p.cpu_threads);
  p.use_cpu = p.cpu_s < p.gpu_s;
  // At the scan's rate whatever the pairs: the sizes known before the read have no record
  // counts, and a long pair's traceback gains nothing from a second GPU yet.
  p.one_gpu = !p.use_cpu && cells / model.gpu_scan_cells_per_s < model.multi_gpu_min_scan_s;
  return p;
}

std::string device_plan::describe() const {
  char buf[200];
  if (use_cpu)
    std::snprintf(buf, sizeof buf, "the CPU engine on %u threads (predicted %.3g s; GPU %.3g s)", cpu_threads, cpu_s,
                  gpu_s);
  else
    std::snprintf(buf, sizeof buf, "%s (predicted %.3g s; CPU engine on %u threads %.3g s)",
                  one_gpu ? "one GPU" : "the GPU", gpu_s, cpu_threads, cpu_s);
  return buf;
}

std::uint64_t estimated_residues(const std::string& path) {
  std::error_code ec;
  if (path.empty() || path == "-" || !std::filesystem::is_regular_file(path, ec)) return 0;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  return std::uint64_t(double(bytes) * (gz ? 4.0 : 1.0) * 0.98);
}

}  // namespace swat
