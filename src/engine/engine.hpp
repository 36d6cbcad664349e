#pragma once
// The seam every alignment engine plugs into: the reference, the CPU engine and the GPU
// engines all align one pair under a scoring scheme and report the same alignment (tie rules in
// common/traceback.hpp). GPU engines fill on the device, copy back traceback codes (or
// checkpoints) and let walk_traceback() build the alignment on the CPU. Engines are built by
// name through the registry (registry.hpp); a GPU engine says which pairs it cannot take
// (unfit_reason) and the fallback decorator (fallback.hpp) sends those to the CPU engine.

#include <atomic>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/alignment.hpp"
#include "common/error.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"

namespace swat {

//! One pair to align: indices into the query and target sets plus their residues.
struct pair_job {
  std::size_t query_index = 0;
  std::size_t target_index = 0;
  residue_span query;
  residue_span target;
  //! When known (score > 0): the pair's best cell, e.g. from a database scan. Engines may use it
  //! to align faster; the result must be the same.
  best_cell known{};
};

//! Called with the number of DP cells finished since the last call (may come from any thread).
using progress_fn = std::function<void(std::uint64_t cells_done)>;

class engine {
 public:
  virtual ~engine() = default;
  //! Short name used in notices and benchmarks ("reference", "cpu", "gpu-fast", …).
  virtual std::string name() const = 0;
  //! What it runs on, for --timing, SAM @PG and JSON, e.g. "CPU (16 threads)" or
  //! "GPU 0: NVIDIA H100 80GB HBM3 (132 SMs)".
  virtual std::string device() const { return "CPU"; }
  //! Why this engine cannot take the pair (empty: it can), e.g. its traceback does not fit the
  //! GPU memory or the scores leave its integer range. with_cpu_fallback() asks before each pair.
  virtual std::string unfit_reason(residue_span /*query*/, residue_span /*target*/,
                                   const scoring_scheme& /*scheme*/) {
    return {};
  }
  //! Optimal local alignment of query against target, with full path.
  virtual alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) = 0;
  //! Best score and end cell only; engines override it when it is cheaper than align().
  virtual best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) {
    const alignment a = align(query, target, scheme);
    return {a.score, a.query_end, a.target_end};
  }
  //! Best cell of every job into results[k] (same size as jobs). The default runs them in
  //! order; engines that parallelise across pairs override it.
  virtual void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                          std::span<best_cell> results, const progress_fn& progress) {
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      results[k] = score_only(jobs[k].query, jobs[k].target, scheme);
      if (progress) progress(std::uint64_t(jobs[k].query.size()) * jobs[k].target.size());
    }
  }
  //! Database search: the best cell of every query against every target into
  //! results[q · targets.size() + t]. The default scores each query's targets with score_many;
  //! database engines prepare the targets once and scan them for every query.
  virtual void search(std::span<const residue_span> queries, std::span<const residue_span> targets,
                      const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) {
    std::vector<pair_job> jobs(targets.size());
    for (std::size_t q = 0; q < queries.size(); ++q) {
      for (std::size_t t = 0; t < targets.size(); ++t) jobs[t] = {q, t, queries[q], targets[t]};
      score_many(jobs, scheme, results.subspan(q * targets.size(), targets.size()), progress);
    }
  }
  //! True when search() costs much less than aligning every pair (a database engine): the
  //! pipeline then scans first and aligns only the reported hits even when every target is kept.
  virtual bool scans_first() const { return false; }
  //! For a single pair (query and target lengths): true when scanning it first (both strands)
  //! and aligning only its reported strand, in the prefixes that end at its best cell, costs
  //! less than aligning it whole. Default: scans_first().
  virtual bool scans_single_pair_first(std::int64_t /*query*/, std::int64_t /*target*/) const { return scans_first(); }
  //! True when score_many fills this pair together with others of its kind in one launch, faster
  //! than a scan of its windows when they are few (a gene against a genome: the fast engine's
  //! batches of tall, narrow pairs). Window decorators ask it before they cut a search that
  //! would leave a scan with few tasks. Default: false.
  virtual bool scores_tall_pairs_at_once(residue_span /*query*/, residue_span /*target*/,
                                         const scoring_scheme& /*scheme*/) const {
    return false;
  }
  //! The best cell of every job into results[k], for jobs that scores_tall_pairs_at_once accepts:
  //! filled together (a database engine hands them to its pair engine, not to its scan, which
  //! would take a long query whole). Default: score_many.
  virtual void score_tall_pairs(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                                std::span<best_cell> results, const progress_fn& progress) {
    score_many(jobs, scheme, results, progress);
  }
  //! The caller promises that these targets (their residues, at these addresses) stay as they
  //! are until the engine goes or pin_targets() is called again (a server's resident database):
  //! a database engine then keeps them prepared (packed, on the GPU) between searches of exactly
  //! these targets. The default ignores it.
  virtual void pin_targets(std::span<const residue_span> /*targets*/) {}
  //! Named stages of the last search (e.g. {"prepare", 0.05}) for --timing; empty by default.
  virtual std::vector<std::pair<std::string, double>> stage_seconds() const { return {}; }
  //! What the engine decided for its last search, one phrase each (e.g. "1 target of 1463926 in
  //! 34 windows of 65536, overlap 20001, for 300 queries"), for --timing's plan line.
  virtual std::vector<std::string> decisions() const { return {}; }
  //! Aligns every job into results[k] (same size as jobs). The default runs them in order;
  //! engines that parallelise across pairs override it.
  virtual void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                          std::span<alignment> results, const progress_fn& progress) {
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      results[k] = align(jobs[k].query, jobs[k].target, scheme);
      if (progress) progress(std::uint64_t(jobs[k].query.size()) * jobs[k].target.size());
    }
  }
  //! Several alignments per pair (--max-hsps): results[k] receives the alignments of jobs[k]
  //! under the Waterman–Eggert rule (no residue pair aligned twice; engine/cpu_hsps.hpp), best
  //! first, at most max_hsps (0: no limit), each scoring at least min_scores[k]. The CPU engine
  //! computes them; the GPU→CPU fallback hands them to it; other engines refuse.
  virtual void align_hsps_many(std::span<const pair_job> /*jobs*/, std::span<const std::int32_t> /*min_scores*/,
                               std::size_t /*max_hsps*/, const scoring_scheme& /*scheme*/,
                               std::span<std::vector<alignment>> /*results*/, const progress_fn& /*progress*/) {
    throw runtime_failure("the " + name() + " engine cannot report several alignments per pair (--max-hsps)");
  }
};

}  // namespace swat
