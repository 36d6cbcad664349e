#include "pipeline/gpu_engines.hpp"

#include "common/error.hpp"
#include "engine/gpu_selection.hpp"

#if SWAT_WITH_CUDA
#include <cuda_runtime_api.h>

#if SWAT_HAVE_SW
#include "cuda/sw/gpu_engine.hpp"
#endif
#if SWAT_HAVE_DBSEARCH
#include "cuda/engines/dbsearch/db_engine.hpp"
#endif
#if SWAT_HAVE_SW_FAST
#include "cuda/sw_fast/fast_engine.hpp"
#include "cuda/sw_fast/fast_progress.hpp"
#endif
#endif

namespace swat::pipeline {

#if SWAT_WITH_CUDA
namespace {

//! A GPU engine bound to one device: every call first makes that device current in the calling
//! thread (the pipeline calls engines from several threads; CUDA's current device is per thread).
class device_bound_engine final : public engine {
 public:
  device_bound_engine(std::unique_ptr<engine> inner, int device, std::string devices)
      : inner_(std::move(inner)), device_(device), devices_(std::move(devices)) {}
  std::string name() const override { return inner_->name(); }
  alignment align(residue_span q, residue_span t, const scoring_scheme& s) override {
    bind();
    return inner_->align(q, t, s);
  }
  best_cell score_only(residue_span q, residue_span t, const scoring_scheme& s) override {
    bind();
    return inner_->score_only(q, t, s);
  }
  void score_many(std::span<const pair_job> jobs, const scoring_scheme& s, std::span<best_cell> out,
                  const progress_fn& p) override {
    bind();
    inner_->score_many(jobs, s, out, p);
  }
  void align_many(std::span<const pair_job> jobs, const scoring_scheme& s, std::span<alignment> out,
                  const progress_fn& p) override {
    bind();
    inner_->align_many(jobs, s, out, p);
  }
  void search(std::span<const residue_span> qs, std::span<const residue_span> ts, const scoring_scheme& s,
              std::span<best_cell> out, const progress_fn& p) override {
    bind();
    inner_->search(qs, ts, s, out, p);
  }
  bool scans_first() const override { return inner_->scans_first(); }
  std::vector<std::pair<std::string, double>> stage_seconds() const override {
    auto stages = inner_->stage_seconds();
    stages.insert(stages.begin(), {"gpus " + devices_, 0.0});
    return stages;
  }

 private:
  void bind() const {
    if (cudaSetDevice(device_) != cudaSuccess) throw runtime_failure("cannot use GPU " + std::to_string(device_));
  }
  std::unique_ptr<engine> inner_;
  int device_;
  std::string devices_;
};

}  // namespace
#endif

int cuda_device_count() {
#if SWAT_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

std::unique_ptr<engine> make_gpu_engine(const gpu_engine_options& options, std::string& why) {
#if SWAT_WITH_CUDA
  const int visible = cuda_device_count();
  if (visible == 0) {
    why = "no CUDA device found";
    return nullptr;
  }
  const std::vector<int> devices = resolve_gpu_selection(parse_gpu_selection(options.gpus), visible);
  if (cudaSetDevice(devices.front()) != cudaSuccess) throw runtime_failure("cannot use GPU " + std::to_string(devices.front()));
  auto bound = [&](std::unique_ptr<engine> e) -> std::unique_ptr<engine> {
    return std::make_unique<device_bound_engine>(std::move(e), devices.front(), device_list_text(devices));
  };
#if SWAT_HAVE_SW_FAST
  // The register-tiled engine is the default (--kernel auto); the paper engines are opt-in, and
  // naming a --sync mode without a kernel picks the paper engines, which use it.
  if (options.kernel == "fast" && options.sync != "auto")
    throw usage_error("--kernel fast synchronises strips with ready flags; --sync applies to "
                      "--kernel diagonal|coalesced|tiled");
  if (options.kernel == "fast")
    return bound(sw_fast::make_fast_engine(options, sw_fast::stderr_progress(options.quiet)));
  if (options.kernel == "auto" && options.sync == "auto") {
    auto fast = sw_fast::make_fast_engine(options, sw_fast::stderr_progress(options.quiet));
#if SWAT_HAVE_DBSEARCH
    // Many targets: the database scan; single pairs and alignments: the fast engine.
    dbsearch::scan_options scan;
    scan.max_gpu_bytes = std::int64_t(options.max_gpu_mem_bytes);
    scan.devices = devices;
    return bound(dbsearch::make_db_engine(std::move(fast), scan, options.cpu_threads, std::size_t(options.cpu_memory_bytes)));
#else
    return bound(std::move(fast));
#endif
  }
#endif
#if SWAT_HAVE_SW
  return bound(sw::make_gpu_engine(options));
#else
  (void)options;
  why = "this build has no GPU alignment engine";
  return nullptr;
#endif
#else
  (void)options;
  why = "this build has no CUDA support (configured with SWAT_WITH_CUDA=OFF)";
  return nullptr;
#endif
}

}  // namespace swat::pipeline
