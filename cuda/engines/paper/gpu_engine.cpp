// GPU engine of the paper kernels: memory plan, fill, CPU traceback, CPU fallback.

#include "cuda/engines/paper/gpu_engine.hpp"

#include <cstdio>
#include <new>
#include <string>

#include "common/error.hpp"
#include "engine/sync_mode.hpp"
#include "cuda/engines/paper/sw_fill.hpp"
#include "engine/cpu_engine.hpp"

namespace swat::paper {

namespace {

//! sync "auto": the persistent mode measured fastest for the coalesced engine on the H100
//! (bench/results/sw_h100.csv: simple 28.42 ms at 8,461, 103.7 ms at 30k; lastin within 1%).
constexpr sync_mode auto_sync = sync_mode::simple;
//! GPU memory kept free for the runtime and other users when planning (bytes).
constexpr std::int64_t reserve_bytes = 256ll << 20;

std::string mib(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
  return buf;
}

class gpu_engine final : public engine {
 public:
  explicit gpu_engine(const gpu_engine_options& o)
      : options_(o),
        kernel_(parse_kernel_kind(o.kernel)),
        sync_(o.sync == "auto" ? auto_sync : parse_sync_mode(o.sync)),
        fallback_(o.cpu_threads, static_cast<std::size_t>(o.cpu_memory_bytes)) {
    if (kernel_ == kernel_kind::tiled) (void)code_layout(kernel_, 1, 1, o.tile);  // validates --tile
  }

  std::string name() const override { return "gpu-" + std::string(to_string(kernel_)); }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
    if (!fits(query, target)) return fallback_.align(query, target, scheme);
    try {
      return traceback(ctx_.fill(query, target, scheme, config(true)));
    } catch (const std::bad_alloc&) {
      notice("host memory for the traceback codes ran out");
      return fallback_.align(query, target, scheme);
    }
  }

  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
    if (!fits(query, target)) return fallback_.score_only(query, target, scheme);
    return ctx_.fill(query, target, scheme, config(false)).best;
  }

 private:
  fill_config config(bool copy) const {
    fill_config c;
    c.kernel = kernel_;
    c.sync = sync_;
    c.tile = options_.tile;
    c.copy_codes = copy;
    return c;
  }

  //! Memory plan: true when the fill fits on the GPU, else a notice and false.
  bool fits(residue_span query, residue_span target) {
    const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
    const fill_plan plan = plan_fill(kernel_, m, n, options_.tile);
    std::int64_t budget = free_device_bytes() + ctx_.held_bytes() - reserve_bytes;
    std::string limit = "free GPU memory";
    if (options_.max_gpu_mem_bytes > 0 && std::int64_t(options_.max_gpu_mem_bytes) < budget) {
      budget = std::int64_t(options_.max_gpu_mem_bytes);
      limit = "--max-gpu-mem";
    }
    if (plan.total() <= budget) return true;
    notice(std::to_string(m) + " x " + std::to_string(n) + " needs " + mib(plan.code_bytes) +
           " of 4-bit traceback codes + " + mib(plan.buffer_bytes) + " of buffers, but " + limit +
           " allows " + mib(budget < 0 ? 0 : budget) + "; aligning this pair with the CPU engine");
    return false;
  }

  void notice(const std::string& what) const {
    if (options_.notice) options_.notice(name() + ": " + what);
  }

  gpu_engine_options options_;
  kernel_kind kernel_;
  sync_mode sync_;
  cpu_engine fallback_;
  fill_context ctx_;
};

}  // namespace

std::unique_ptr<swat::engine> make_gpu_engine(const swat::gpu_engine_options& options) {
  if (options.kernel == "fast")
    throw usage_error("--kernel fast is not built yet (valid: " + kernel_kind_names() + ")");
  return std::make_unique<gpu_engine>(options);
}

}  // namespace swat::paper
