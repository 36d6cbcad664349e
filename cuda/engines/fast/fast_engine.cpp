// The fast engine: GPU fill with origins, CPU bounded-memory traceback of the rectangle.

#include "cuda/engines/fast/fast_engine.hpp"

#include <algorithm>

#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_trace.hpp"
#include "engine/cpu_engine.hpp"
#include "engine/cpu_traceback.hpp"

namespace swat::fast {

namespace {

class fast_engine final : public engine {
 public:
  fast_engine(const gpu_engine_options& o, fill_progress_fn progress)
      : options_(o),
        progress_fn_(std::move(progress)),
        budget_bytes_(o.cpu_memory_bytes ? std::size_t(o.cpu_memory_bytes) : cpu_engine::default_budget_bytes),
        fallback_(o.cpu_threads, budget_bytes_) {
    if (progress_fn_) progress_ = trace_progress{&call_progress, &progress_fn_};
  }

  std::string name() const override { return "gpu-fast"; }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
    if (!usable(scheme, query, target)) return fallback_.align(query, target, scheme);
    if (double(query.size()) * double(target.size()) >= gpu_trace_min_cells &&
        std::int64_t(target.size()) <= trace_max_columns)
      return gpu_trace(query, target, scheme);
    fill_options fo;
    fo.variant = fill_variant::origins32;
    const fill_result r = ctx_.fill(query, target, scheme, fo);
    if (r.best.score <= 0) return {};
    const std::int64_t qb = r.query_begin, tb = r.target_begin;
    alignment aln = cpu::trace_rectangle(
        query.subspan(std::size_t(qb), std::size_t(r.best.query_end - qb)),
        target.subspan(std::size_t(tb), std::size_t(r.best.target_end - tb)), scheme, r.best.score,
        budget_bytes_);
    aln.query_begin += qb;
    aln.query_end += qb;
    aln.target_begin += tb;
    aln.target_end += tb;
    return aln;
  }

  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
    if (!usable(scheme, query, target)) return fallback_.score_only(query, target, scheme);
    fill_options fo;
    fo.variant = std::min(query.size(), target.size()) >= score16_min_length ? fill_variant::score16
                                                                               : fill_variant::score32;
    return ctx_.fill(query, target, scheme, fo).best;
  }

 private:
  //! Pairs of at least this many cells trace on the GPU (fast_trace.hpp); smaller ones take the
  //! origins fill and the CPU's rectangle tracer.
  static void call_progress(void* user, double fraction, double elapsed) {
    (*static_cast<fill_progress_fn*>(user))(fraction, elapsed);
  }

  static constexpr double gpu_trace_min_cells = double(1 << 24);
  //! Score-only fills of pairs whose shorter sequence has at least this many residues take the
  //! packed 16-bit fill (rerun at 32 bits on overflow), shorter ones the 32-bit fill. H100
  //! (bench/results/fast_h100_v3.csv, fast_8461_30k_h100.csv): at 1.46 Mb score16 runs 2.2× faster;
  //! up to ~64k both are latency-bound within ±10 % on unrelated pairs, while on similar pairs
  //! score16 is up to 20 % slower (its best-cell bookkeeping runs on most steps) and pays ~10 ms
  //! to detect an overflow (a 30k pair scoring 58,190: 0.025 s against 0.015 s).
  static constexpr std::size_t score16_min_length = std::size_t(1) << 17;

  alignment gpu_trace(residue_span query, residue_span target, const scoring_scheme& scheme) {
    trace_options to;
    to.budget_bytes = std::int64_t(double(device_free_bytes()) * 0.9);
    if (options_.max_gpu_mem_bytes > 0)
      to.budget_bytes = std::min<std::int64_t>(to.budget_bytes, std::int64_t(options_.max_gpu_mem_bytes) - ctx_.held_bytes());
    auto backend = make_gpu_trace_backend(scheme, fill_options{}.watchdog_seconds, progress_);
    return trace_alignment(query, target, *backend, to, nullptr);
  }

  bool usable(const scoring_scheme& scheme, residue_span query, residue_span target) {
    const double bound = double(std::min(query.size(), target.size())) * double(std::max(scheme.max_score(), 1));
    if (scheme_fits(scheme) && bound <= double(1 << 30)) return true;
    if (options_.notice)
      options_.notice("gpu-fast: scores outside [-127, 127] or a score bound above 2^30; using the CPU engine");
    return false;
  }

  gpu_engine_options options_;
  fill_progress_fn progress_fn_;
  std::size_t budget_bytes_;
  cpu_engine fallback_;
  fill_context ctx_;
  trace_progress progress_;
};

}  // namespace

std::unique_ptr<swat::engine> make_fast_engine(const swat::gpu_engine_options& options) {
  return std::make_unique<fast_engine>(options, fill_progress_fn{});
}

std::unique_ptr<swat::engine> make_fast_engine(const swat::gpu_engine_options& options, fill_progress_fn progress) {
  return std::make_unique<fast_engine>(options, std::move(progress));
}

}  // namespace swat::fast
