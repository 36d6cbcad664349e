// The paper engines behind swat::engine: memory plan (the fits-check), fill, CPU traceback, and
// their registration as --kernel diagonal|coalesced|tiled.

#include "cuda/engines/paper/paper_engine.hpp"

#include <cstdio>
#include <string>

#include "cuda/common/device_context.hpp"
#include "cuda/engines/paper/sw_fill.hpp"
#include "engine/registry.hpp"
#include "engine/sync_mode.hpp"

namespace swat::paper {

namespace {

//! --sync default: the persistent mode measured fastest for the coalesced engine on the H100
//! (bench/results/sw_h100.csv: simple 28.42 ms at 8,461, 103.7 ms at 30k; lastin within 1%).
constexpr sync_mode default_sync = sync_mode::simple;
//! GPU memory kept free for the runtime and other users when planning (bytes).
constexpr std::int64_t reserve_bytes = 256ll << 20;

std::string mib(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
  return buf;
}

class paper_engine final : public engine {
 public:
  paper_engine(kernel_kind kernel, const engine_options& o)
      : options_(o), kernel_(kernel), sync_(o.sync.value_or(default_sync)), ctx_(cuda::device_context(o.gpu_id)) {
    if (kernel_ == kernel_kind::tiled) (void)code_layout(kernel_, 1, 1, o.tile);  // validates --tile
  }

  std::string name() const override { return "gpu-" + std::string(to_string(kernel_)); }
  std::string device() const override {
    return "GPU " + std::to_string(ctx_.device().id()) + ": " + ctx_.device().describe();
  }

  //! Memory plan: empty when the fill fits on the GPU, else why not.
  std::string unfit_reason(residue_span query, residue_span target, const scoring_scheme&) override {
    if (query.empty() || target.empty()) return {};
    const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
    const fill_plan plan = plan_fill(kernel_, m, n, options_.tile);
    std::int64_t budget = ctx_.device().free_bytes() + ctx_.held_bytes() - reserve_bytes;
    std::string limit = "free GPU memory";
    if (options_.max_gpu_mem_bytes > 0 && std::int64_t(options_.max_gpu_mem_bytes) < budget) {
      budget = std::int64_t(options_.max_gpu_mem_bytes);
      limit = "--max-gpu-mem";
    }
    if (plan.total() <= budget) return {};
    return std::to_string(m) + " x " + std::to_string(n) + " needs " + mib(plan.code_bytes) +
           " of 4-bit traceback codes + " + mib(plan.buffer_bytes) + " of buffers, but " + limit + " allows " +
           mib(budget < 0 ? 0 : budget);
  }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
    return traceback(ctx_.fill(query, target, scheme, config(true)));
  }

  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
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

  engine_options options_;
  kernel_kind kernel_;
  sync_mode sync_;
  wavefront_fill ctx_;
};

engine_entry paper_entry(kernel_kind kernel, std::string summary, int auto_rank) {
  engine_entry e;
  e.name = std::string(to_string(kernel));
  if (kernel == kernel_kind::diagonal) e.aliases = {"simple"};
  e.target = engine_target::gpu;
  e.summary = std::move(summary);
  e.auto_rank = auto_rank;
  e.takes_sync = true;
  e.takes_tile = kernel == kernel_kind::tiled;
  if (kernel == kernel_kind::tiled)
    e.check = [](const engine_options& o) { (void)code_layout(kernel_kind::tiled, 1, 1, o.tile); };
  e.make = [kernel](const engine_options& o) { return make_paper_engine(kernel, o); };
  return e;
}

}  // namespace

std::unique_ptr<swat::engine> make_paper_engine(kernel_kind kernel, const engine_options& options) {
  return std::make_unique<paper_engine>(kernel, options);
}

void register_engines(engine_registry& registry) {
  registry.add(paper_entry(kernel_kind::diagonal,
                           "GPU, Xiao, Aji & Feng 2009: a thread per cell of the anti-diagonal (--sync MODE)", 0));
  registry.add(paper_entry(kernel_kind::coalesced,
                           "GPU, the same with every anti-diagonal aligned to 128 bytes (--sync MODE)", 2));
  registry.add(paper_entry(kernel_kind::tiled,
                           "GPU, a block per tile, a grid step per tile-diagonal (--sync MODE, --tile N)", 0));
}

}  // namespace swat::paper
