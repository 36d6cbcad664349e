// `swat-gpu align` (align_pipeline.hpp): read → plan → engine → output. The engine comes from
// the registry through the plan the CLI resolved (engine/registry.hpp); the pipeline never
// names an engine.

#include "pipeline/align_pipeline.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/error.hpp"
#include "common/parallel.hpp"
#include "common/score_range.hpp"
#include "engine/gpu_selection.hpp"
#include "engine/plan.hpp"
#include "output/atomic_file.hpp"
#include "pipeline/database.hpp"
#include "pipeline/progress.hpp"
#include "scoring/karlin.hpp"
#include "scoring/scoring.hpp"

namespace swat::pipeline {

strand_choice parse_strand_choice(std::string_view text) {
  if (text == "both") return strand_choice::both;
  if (text == "plus") return strand_choice::plus;
  if (text == "minus") return strand_choice::minus;
  throw usage_error("unknown --strand '" + std::string(text) + "' (valid: both, plus, minus)");
}

scoring_scheme build_scheme(alphabet_kind alphabet, const scoring_options& o) {
  if (alphabet == alphabet_kind::dna) {
    if (!o.matrix.empty() || !o.matrix_file.empty())
      throw usage_error("--matrix/--matrix-file are for protein; DNA uses --match/--mismatch "
                        "(force protein scoring with --alphabet protein)");
    return scoring::make_dna_scheme(o.match.value_or(2), o.mismatch.value_or(-3),
                                    o.gap_open.value_or(5), o.gap_extend.value_or(2));
  }
  if (o.match || o.mismatch)
    throw usage_error("--match/--mismatch are for DNA; protein uses --matrix or --matrix-file");
  const int open = o.gap_open.value_or(11);
  const int extend = o.gap_extend.value_or(1);
  if (!o.matrix_file.empty()) {
    if (!o.matrix.empty()) throw usage_error("give either --matrix or --matrix-file, not both");
    scoring::validate_gaps(open, extend);
    return scoring::load_matrix_file(o.matrix_file, open, extend);
  }
  return scoring::make_protein_scheme(o.matrix.empty() ? "BLOSUM62" : o.matrix, open, extend);
}

std::unique_ptr<engine> make_engine(const align_options& options, const notice_fn& notice) {
  return build_engine(options.engine, [&notice](const std::string& line) { notice("notice: " + line); });
}

std::vector<std::size_t> rank_targets(std::span<const best_cell> cells, const report_rule& rule, std::size_t q,
                                      std::size_t max_hits) {
  // Candidates by the query's floor, best first (ties: the earlier target); the target-dependent
  // test (an E-value each) only until max_hits have passed: the same targets as testing every
  // one, then ranking. Only the head of the order is sorted, and grown while the test rejects
  // (a database of millions of targets has about as many candidates: sorting them all took
  // 0.3 s for 7 queries against Swiss-Prot ×500).
  std::vector<std::size_t> order;
  const std::int32_t lower = std::max(rule.lower[q], 1);
  for (std::size_t t = 0; t < cells.size(); ++t)
    if (cells[t].score >= lower) order.push_back(t);
  const auto before = [&](std::size_t a, std::size_t b) {
    return cells[a].score != cells[b].score ? cells[a].score > cells[b].score : a < b;
  };
  std::vector<std::size_t> kept;
  std::size_t sorted = 0, tested = 0;
  while (kept.size() < max_hits && tested < order.size()) {
    const std::size_t want = std::min(order.size(), std::max<std::size_t>({sorted * 2, max_hits, 16}));
    std::partial_sort(order.begin() + std::ptrdiff_t(sorted), order.begin() + std::ptrdiff_t(want), order.end(), before);
    sorted = want;
    for (; tested < sorted && kept.size() < max_hits; ++tested)
      if (!rule.passes || rule.passes(q, order[tested], cells[order[tested]].score)) kept.push_back(order[tested]);
  }
  return kept;
}

namespace {

//! Both strands are scanned in one search when the queries hold at most this many residues (the
//! reverse complements are copies; a longer query set is complemented in place, one pass each).
constexpr std::uint64_t strands_together_max_residues = std::uint64_t(1) << 28;
//! … and the search has at most this many query × target pairs (the best cells of both strands
//! are held at once).
constexpr std::size_t strands_together_max_pairs = std::size_t(1) << 28;

}  // namespace

std::pair<sequence_set, sequence_set> read_inputs(const align_options& options, const notice_fn& notice,
                                                  database_read& how) {
  const io::warning_fn warn = [&](const std::string& w) { notice("warning: " + w); };
  // --threads bounds the reader's threads too.
  const unsigned threads = options.engine.options.cpu_threads;
  sequence_set queries = io::read_fasta(options.query_path, options.alphabet, warn, threads);
  sequence_set targets;
  if (same_fasta_file(options.query_path, options.db_path)) {  // one file against itself: read once
    how = {};
    targets = queries;
    targets.file = options.db_path;
  } else {
    targets = read_database(options.db_path, options.alphabet, warn, threads, &how);
  }
  check_alphabets(options.query_path, queries, targets, how.prepared);
  return {std::move(queries), std::move(targets)};
}

namespace {

//! Reverse-complements every query in place (encoded DNA: A=0 C=1 G=2 T=3, N and the rest
//! stay N); it is its own inverse. In place, so that a long query costs no second copy.
void complement_queries(sequence_set& queries) {
  const auto complement = dna_complement;
  for (sequence_record& r : queries.records) {  // one pass from both ends (a 1 Gb query: ~0.5 s)
    std::uint8_t* front = r.residues.writable_data();
    std::uint8_t* back = front + r.residues.size();
    for (; back - front > 1; ++front) {
      --back;
      const std::uint8_t f = complement(*front);
      *front = complement(*back);
      *back = f;
    }
    if (front < back) *front = complement(*front);
  }
}

// Several alignments per pair (--max-hsps ≠ 1). Each target of keep[q] (every target when
// nothing was scanned) is searched on every strand whose scanned best cell reaches the query's
// threshold (every strand when nothing was scanned) by the engine's align_hsps_many; a target's
// alignments of both strands are merged best first (plus first on equal scores) and cut to
// --max-hsps; targets rank by their best alignment. A scanned best cell must be the first
// alignment's end.
std::vector<output::hit> hsps_of(engine& eng, const scoring_scheme& scheme, const align_options& options,
                                 const sequence_set& queries, std::span<const sequence_record> targets,
                                 const report_rule& rule, bool scanned,
                                 const std::vector<std::vector<best_cell>>& cells,
                                 const std::vector<std::vector<std::size_t>>& keep, const std::vector<bool>& minus_of,
                                 const std::function<void(bool)>& use_strand, const progress_fn& report) {
  const std::size_t nq = queries.records.size(), nt = targets.size(), strands = minus_of.size();
  std::vector<std::vector<std::size_t>> chosen(nq);  // targets searched per query
  for (std::size_t q = 0; q < nq; ++q) {
    if (scanned) {
      chosen[q] = keep[q];
    } else {
      chosen[q].resize(nt);
      std::iota(chosen[q].begin(), chosen[q].end(), std::size_t(0));
    }
  }
  // found[q][j · strands + k]: the alignments of chosen[q][j] on strand k.
  std::vector<std::vector<std::vector<alignment>>> found(nq);
  for (std::size_t q = 0; q < nq; ++q) found[q].resize(chosen[q].size() * strands);
  for (std::size_t k = 0; k < strands; ++k) {
    use_strand(minus_of[k]);
    std::vector<pair_job> jobs;
    std::vector<std::int32_t> thresholds;
    std::vector<std::pair<std::size_t, std::size_t>> at;
    for (std::size_t q = 0; q < nq; ++q)
      for (std::size_t j = 0; j < chosen[q].size(); ++j) {
        const std::size_t t = chosen[q][j];
        best_cell known{};
        if (scanned) {
          known = cells[k][q * nt + t];
          if (!rule.reports(q, t, known.score)) continue;
        }
        jobs.push_back({q, t, queries.records[q].residues, targets[t].residues, known});
        thresholds.push_back(rule.floor(q, t));
        at.emplace_back(q, j * strands + k);
      }
    std::vector<std::vector<alignment>> out(jobs.size());
    if (!jobs.empty())
      eng.align_hsps_many(jobs, thresholds, options.max_hsps, scheme, out, scanned ? progress_fn{} : report);
    for (std::size_t b = 0; b < out.size(); ++b) {
      const best_cell& c = jobs[b].known;
      if (scanned && (out[b].empty() || out[b][0].score != c.score || out[b][0].query_end != c.query_end ||
                      out[b][0].target_end != c.target_end))
        throw runtime_failure("internal error: " + eng.name() + " engine scanned a best score of " +
                              std::to_string(c.score) + " but its alignments differ for " +
                              queries.records[jobs[b].query_index].name + " vs " +
                              targets[jobs[b].target_index].name);
      found[at[b].first][at[b].second] = std::move(out[b]);
    }
  }

  std::vector<output::hit> hits;
  for (std::size_t q = 0; q < nq; ++q) {
    // Per target: its alignments of every strand, best first (stable: plus before minus).
    std::vector<std::vector<std::pair<alignment*, std::size_t>>> merged(chosen[q].size());
    std::vector<best_cell> best(nt);
    for (std::size_t j = 0; j < chosen[q].size(); ++j) {
      auto& list = merged[j];
      for (std::size_t k = 0; k < strands; ++k)
        for (alignment& a : found[q][j * strands + k]) list.emplace_back(&a, k);
      std::stable_sort(list.begin(), list.end(),
                       [](const auto& x, const auto& y) { return x.first->score > y.first->score; });
      if (options.max_hsps != 0 && list.size() > options.max_hsps) list.resize(options.max_hsps);
      if (!list.empty()) best[chosen[q][j]] = {list[0].first->score, list[0].first->query_end, list[0].first->target_end};
    }
    std::vector<std::size_t> slot(nt, SIZE_MAX);
    for (std::size_t j = 0; j < chosen[q].size(); ++j) slot[chosen[q][j]] = j;
    const std::vector<std::size_t> order = scanned ? chosen[q] : rank_targets(best, rule, q, options.max_hits);
    for (std::size_t t : order)
      for (auto& [a, k] : merged[slot[t]])
        hits.push_back({q, t, std::move(*a), minus_of[k] ? output::dna_strand::minus : output::dna_strand::plus});
  }
  return hits;
}

//! n zero best cells for a scan to write. A large block's pages are first touched by several
//! threads (bytes of the vector's allocated storage, best_cell being trivially copyable; resize
//! then writes the same zeros without a page fault): on the GPU machine one thread's page faults
//! took 0.19 s for the 144 MB of 400 × 30,000 cells, before the scan could start.
std::vector<best_cell> zero_cells(std::size_t n, unsigned threads) {
  static_assert(std::is_trivially_copyable_v<best_cell>);
  std::vector<best_cell> v;
  v.reserve(n);
  const std::size_t bytes = n * sizeof(best_cell);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts = std::min<std::size_t>({threads, 8, bytes >> 24});  // 16 MB a thread at least
  if (parts > 1) {
    auto* base = reinterpret_cast<unsigned char*>(v.data());
    parallel_for(parts, unsigned(parts), 1, [base, bytes, parts](std::size_t k) {
      const std::size_t from = bytes * k / parts, to = bytes * (k + 1) / parts;
      std::memset(base + from, 0, to - from);
    });
  }
  v.resize(n);
  return v;
}

// Best hits of every query, in query order. DNA queries are searched on the strands asked for:
// the reverse complement of the query against the database as it is (a minus-strand hit is an
// alignment of the reverse-complemented query), and a target's hit is its better strand (plus
// on equal scores). The queries are complemented in place for the minus strand's phases and
// restored before returning. With more targets than --max-hits (or an engine that scans first)
// every query × target is scored first (both strands in one search where the queries are small
// enough to copy: strands_together_max_residues) and only the reported hits are aligned; a single pair is
// aligned directly. Alignments of all queries go to the engine
// in one batch per strand. settle(cells) gives the rule of which hits are reported (--min-score
// and --evalue) once the scan's best cells (per strand; none without a scan) are known: the
// search's statistics may be fitted to them. targets is the whole database or a share of it
// (shares.hpp); whole_targets, the database's count, decides whether a single pair is aligned
// without a scan, the same way in every share.
using settle_fn = std::function<report_rule(std::span<const std::vector<best_cell>> cells)>;
std::vector<output::hit> search_all(engine& eng, const scoring_scheme& scheme, const align_options& options,
                                    sequence_set& queries, std::span<const sequence_record> targets,
                                    std::size_t whole_targets, const settle_fn& settle, progress_line& progress,
                                    const progress_fn& on_cells, search_times& times) {
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  const std::size_t nq = queries.records.size(), nt = targets.size();
  const progress_fn report = [&](std::uint64_t cells) {
    progress.add(cells);
    if (on_cells) on_cells(cells);
  };
  std::vector<bool> minus_of;  // strand k: minus or plus, plus first
  if (options.strand != strand_choice::minus) minus_of.push_back(false);
  if (options.strand != strand_choice::plus) minus_of.push_back(true);
  const std::size_t strands = minus_of.size();
  // A single pair is aligned without a scan where its alignment costs about one scan (the engine
  // says: scans_single_pair_first). Otherwise every pair is scored first (both strands) and only
  // the reported ones are aligned, on their better strand, in the prefixes that end at their best
  // cells (or, for --max-hsps, searched on the strands whose best cell reaches the threshold):
  // cheaper than aligning every matrix whole.
  const bool all_kept = nt <= options.max_hits && nq * whole_targets == 1 && nt == 1 &&
                        !eng.scans_single_pair_first(std::int64_t(queries.records[0].residues.size()),
                                                     std::int64_t(targets[0].residues.size()));
  bool complemented = false;
  const auto use_strand = [&](bool minus) {
    if (minus != complemented) {
      complement_queries(queries);
      complemented = minus;
    }
  };
  struct restore_plus {  // the queries leave as they came, also on an exception
    const std::function<void()> fn;
    ~restore_plus() { fn(); }
  } restore{[&] { use_strand(false); }};
  std::vector<residue_span> ts;
  ts.reserve(targets.size());
  for (const auto& r : targets) ts.push_back(r.residues);

  std::vector<std::vector<best_cell>> cells(strands);  // per strand, q · nt + t
  std::vector<std::vector<std::size_t>> keep(nq);         // targets per query, in report order
  std::vector<std::vector<std::size_t>> keep_strand(nq);  // and the strand of each
  // Both strands searched together: the reverse complements of the queries, also for the
  // alignments (one batch for both strands).
  std::vector<std::vector<std::uint8_t>> reversed;
  if (!all_kept) {
    const auto t0 = clock::now();
    times.stages.emplace_back("set up", std::chrono::duration<double>(t0 - times.began).count());
    std::uint64_t query_residues = 0;
    for (const auto& r : queries.records) query_residues += r.residues.size();
    if (strands == 2 && query_residues <= strands_together_max_residues && nq * nt <= strands_together_max_pairs) {
      // Both strands in one search: the reverse complements are more queries of the same scan
      // (one launch, one pass over the database), at the cost of a copy of the queries.
      reversed.reserve(nq);
      for (const auto& r : queries.records) reversed.push_back(reverse_complement(r.residues));
      std::vector<residue_span> qs;
      for (const auto& r : queries.records) qs.push_back(r.residues);
      for (const auto& r : reversed) qs.push_back(r);
      std::vector<best_cell> both = zero_cells(2 * nq * nt, options.engine.options.cpu_threads);
      if (nt > 0) eng.search(qs, ts, scheme, both, report);  // a share may have no targets
      // The minus half copied out, the plus half kept in place (strand 0 is plus).
      cells[1].assign(both.begin() + std::ptrdiff_t(nq * nt), both.end());
      both.resize(nq * nt);
      cells[0] = std::move(both);
    } else {
      for (std::size_t k = 0; k < strands; ++k) {
        use_strand(minus_of[k]);
        std::vector<residue_span> qs;
        for (const auto& r : queries.records) qs.push_back(r.residues);
        cells[k] = zero_cells(nq * nt, options.engine.options.cpu_threads);
        if (nt > 0) eng.search(qs, ts, scheme, cells[k], report);
      }
    }
    times.scan_s = since(t0);
  }
  auto step = clock::now();
  const report_rule rule = settle(all_kept ? std::span<const std::vector<best_cell>>() : cells);
  times.stages.emplace_back("report rule", std::max(0.0, since(step) - times.fit_s));  // E-values' fit apart
  step = clock::now();
  if (!all_kept) {
    // Queries on every core: a query's ranking reads its whole row of best cells (400 queries
    // against 30,000 targets: 144 MB, 0.05 s on one thread).
    parallel_for(nq, options.engine.options.cpu_threads, std::max<std::size_t>(1, (std::size_t(1) << 16) / std::max<std::size_t>(nt, 1)),
                 [&](std::size_t q) {
      if (strands == 1) {  // no copy: the scan's row of the query
        keep[q] = rank_targets(std::span(cells[0]).subspan(q * nt, nt), rule, q, options.max_hits);
        keep_strand[q].assign(keep[q].size(), 0);
        return;
      }
      std::vector<best_cell> merged(nt);
      std::vector<std::size_t> strand_of(nt, 0);
      for (std::size_t t = 0; t < nt; ++t) {
        for (std::size_t k = 1; k < strands; ++k)
          if (cells[k][q * nt + t].score > cells[strand_of[t]][q * nt + t].score) strand_of[t] = k;
        merged[t] = cells[strand_of[t]][q * nt + t];
      }
      keep[q] = rank_targets(merged, rule, q, options.max_hits);
      for (std::size_t t : keep[q]) keep_strand[q].push_back(strand_of[t]);
    });
  } else if (options.max_hsps == 1) {
    for (std::size_t q = 0; q < nq; ++q)
      for (std::size_t t = 0; t < nt; ++t)
        for (std::size_t k = 0; k < strands; ++k) {
          keep[q].push_back(t);
          keep_strand[q].push_back(k);
        }
  }

  if (options.max_hsps != 1) {
    times.stages.emplace_back("hits ranked", since(step));
    return hsps_of(eng, scheme, options, queries, targets, rule, !all_kept, cells, keep, minus_of, use_strand, report);
  }

  // A scanned hit is aligned in the prefixes that end at its best cell: the DP values there are
  // those of the whole matrix and no cell before the end cell (in the tie order: column, then
  // row) reaches its score, so the alignment is the same, at a fraction of the cells.
  times.stages.emplace_back("hits ranked", since(step));
  step = clock::now();
  std::vector<std::size_t> first(nq + 1, 0);  // alns[first[q] + j] is keep[q][j]'s
  for (std::size_t q = 0; q < nq; ++q) first[q + 1] = first[q] + keep[q].size();
  std::vector<alignment> alns(first[nq]);
  // The strand the queries are on first, and no strand without hits: each switch is a pass
  // over every query. With the reverse complements at hand (both strands searched together),
  // the hits of both strands are one batch: one reverse pass, the boxes of both strands at once.
  std::vector<std::vector<std::size_t>> strand_batches;
  if (!reversed.empty()) {
    strand_batches.push_back({});
    for (std::size_t k = 0; k < strands; ++k) strand_batches.back().push_back(k);
  } else {
    for (std::size_t k = 0; k < strands; ++k)
      if (minus_of[k] == complemented) strand_batches.insert(strand_batches.begin(), {k});
      else strand_batches.push_back({k});
  }
  const auto query_on = [&](std::size_t q, std::size_t k) -> residue_span {
    if (!reversed.empty() && minus_of[k]) return reversed[q];
    return queries.records[q].residues;
  };
  for (const std::vector<std::size_t>& batch : strand_batches) {
    const auto in_batch = [&batch](std::size_t k) { return std::find(batch.begin(), batch.end(), k) != batch.end(); };
    const bool any = std::any_of(keep_strand.begin(), keep_strand.end(), [&](const std::vector<std::size_t>& ks) {
      return std::any_of(ks.begin(), ks.end(), in_batch);
    });
    if (!any) continue;
    if (reversed.empty()) use_strand(minus_of[batch.front()]);
    std::vector<pair_job> jobs;
    std::vector<std::size_t> at;
    for (std::size_t q = 0; q < nq; ++q)
      for (std::size_t j = 0; j < keep[q].size(); ++j) {
        const std::size_t k = keep_strand[q][j];
        if (!in_batch(k)) continue;
        const std::size_t t = keep[q][j];
        residue_span qs = query_on(q, k), tspan = targets[t].residues;
        best_cell known{};
        if (!all_kept) {
          known = cells[k][q * nt + t];
          qs = qs.first(std::size_t(known.query_end));
          tspan = tspan.first(std::size_t(known.target_end));
        }
        jobs.push_back({q, t, qs, tspan, known});
        at.push_back(first[q] + j);
      }
    std::vector<alignment> out(jobs.size());
    eng.align_many(jobs, scheme, out, all_kept ? report : progress_fn{});
    for (std::size_t b = 0; b < out.size(); ++b) alns[at[b]] = std::move(out[b]);
  }
  times.stages.emplace_back("hits aligned", since(step));
  step = clock::now();

  std::vector<output::hit> hits;
  // The reported alignment of each kept target (its better strand): one array for every query,
  // whose kept entries are reset after it (an array per query cost 0.6 MB each for 30,000 targets).
  std::vector<std::size_t> chosen(nt, SIZE_MAX);
  std::vector<best_cell> traced(all_kept ? nt : 0);
  for (std::size_t q = 0; q < nq; ++q) {
    if (all_kept) std::fill(traced.begin(), traced.end(), best_cell{});
    for (std::size_t j = 0; j < keep[q].size(); ++j) {
      const std::size_t t = keep[q][j], k = keep_strand[q][j], a_at = first[q] + j;
      const alignment& a = alns[a_at];
      if (!all_kept) {
        const best_cell& scanned = cells[k][q * nt + t];
        if (a.score != scanned.score || a.query_end != scanned.query_end || a.target_end != scanned.target_end)
          throw runtime_failure("internal error: " + eng.name() + " engine gave score " +
                                std::to_string(scanned.score) + " then an alignment of " + std::to_string(a.score) +
                                " for " + queries.records[q].name + " vs " + targets[t].name);
      }
      if (chosen[t] == SIZE_MAX || a.score > alns[chosen[t]].score) {  // plus first on equal scores
        chosen[t] = a_at;
        if (all_kept) traced[t] = {a.score, a.query_end, a.target_end};
      }
    }
    // With every target traced, ranking happens after the alignments are known.
    const std::vector<std::size_t> order = all_kept ? rank_targets(traced, rule, q, options.max_hits) : keep[q];
    for (std::size_t t : order) {
      const std::size_t a_at = chosen[t];
      const std::size_t k = keep_strand[q][a_at - first[q]];
      hits.push_back({q, t, std::move(alns[a_at]), minus_of[k] ? output::dna_strand::minus : output::dna_strand::plus});
    }
    for (std::size_t t : keep[q]) chosen[t] = SIZE_MAX;
  }
  times.stages.emplace_back("hits collected", since(step));
  times.collected = clock::now();
  return hits;
}

//! " (prepared database: V volumes, N MiB mapped in X s, checked in Y s)" for a
//! prepared database, else nothing.
std::string read_detail(const database_read& how) {
  if (!how.prepared) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf, " (prepared database: %u volume%s, %.0f MiB mapped in %.3f s, checked in %.3f s)",
                how.volumes, how.volumes == 1 ? "" : "s", double(how.report.mapped_bytes) / (1 << 20), how.report.map_s,
                how.report.check_s);
  return buf;
}

//! The most resident memory this process has held (bytes).
std::uint64_t peak_host_bytes() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux: KiB
}

// Every engine scores in int32: refuse inputs whose best possible score could overflow it.
void check_score_range(const sequence_set& queries, const sequence_set& targets, const scoring_scheme& scheme) {
  std::uint64_t longest_query = 0, longest_target = 0;
  for (const auto& q : queries.records) longest_query = std::max<std::uint64_t>(longest_query, q.residues.size());
  for (const auto& t : targets.records) longest_target = std::max<std::uint64_t>(longest_target, t.residues.size());
  if (!within_score_range(longest_query, longest_target, scheme))
    throw usage_error("scores could reach " + std::to_string(best_score_bound(longest_query, longest_target, scheme)) +
                      ", beyond the 32-bit range the engines use; lower the match/matrix scores");
}

}  // namespace

checked_search check_search(const align_options& options, const sequence_set& queries, const sequence_set& targets,
                            const scoring_scheme& scheme) {
  check_score_range(queries, targets, scheme);
  checked_search checked{options, {}};
  if (queries.alphabet == alphabet_kind::protein) {
    if (options.strand_option)
      throw usage_error("--strand applies to DNA; protein sequences have one strand");
    checked.searching.strand = strand_choice::plus;
  } else {
    checked.searching.strand = options.strand_option.value_or(strand_choice::both);
  }
  output::check_inputs(options.outfmt, queries, targets);
  // The statistics' method: NCBI's table for the scheme, else an estimate (while the engine
  // starts), else fitted to the scan, else none.
  checked.plan = plan_statistics(options.stats, scheme, targets.records.size());
  return checked;
}

search_result search_share(engine& eng, const scoring_scheme& scheme, const checked_search& checked,
                           sequence_set& queries, const sequence_set& targets, target_share share,
                           const gather_scores_fn& gather, bool show_progress, std::atomic<progress_line*>* fill_line,
                           const progress_fn& on_cells) {
  using clock = std::chrono::steady_clock;
  const align_options& options = checked.searching;
  const std::size_t nq = queries.records.size(), nt = targets.records.size();
  if (share.first > share.last || share.last > nt) throw std::logic_error("search_share: a share outside the database");
  const std::span<const sequence_record> mine = std::span(targets.records).subspan(share.first, share.size());
  const bool whole = share.size() == nt;
  search_result result;
  search_times& times = result.times;
  times.began = clock::now();
  for (const auto& t : mine) times.db_residues += t.residues.size();
  for (const auto& q : queries.records) times.total_cells += std::uint64_t(q.residues.size()) * times.db_residues;
  if (options.strand == strand_choice::both) times.total_cells *= 2;

  const database_size database = size_of_database(targets, options.db_residues, options.db_sequences);
  std::optional<scoring::search_statistics>& stats = result.statistics;  // settled after the scan
  const settle_fn settle = [&](std::span<const std::vector<best_cell>> cells) {
    const auto t0 = clock::now();
    if (checked.plan.method != scoring::evalue_method::empirical || (whole && !gather)) {
      stats.emplace(settle_statistics(checked.plan, queries, targets, cells, options.engine.options.cpu_threads));
    } else {
      // Empirical fits need every target's score: this share's best (the better strand) go to the
      // others, and the whole database's come back (every share gathers, a whole one too).
      if (!gather) throw std::logic_error("search_share: empirical statistics of a share need its scores gathered");
      const std::size_t ns = share.size();
      std::vector<std::int32_t> best(nq * ns, 0);
      for (const std::vector<best_cell>& strand : cells)
        for (std::size_t i = 0; i < best.size(); ++i) best[i] = std::max(best[i], strand[i].score);
      const std::vector<std::int32_t> all = gather(best);
      if (all.size() != nq * nt) throw std::logic_error("search_share: the gathered scores do not cover the database");
      std::vector<std::vector<best_cell>> whole_cells(1, std::vector<best_cell>(all.size()));
      for (std::size_t i = 0; i < all.size(); ++i) whole_cells[0][i].score = all[i];
      stats.emplace(settle_statistics(checked.plan, queries, targets, whole_cells, options.engine.options.cpu_threads));
    }
    times.fit_s = std::chrono::duration<double>(clock::now() - t0).count();
    report_rule rule = rule_of(*stats, options.stats, queries, targets, database);
    if (share.first != 0) {  // the share's target j is the database's share.first + j
      const std::size_t first = share.first;
      if (rule.exact) rule.exact = [exact = rule.exact, first](std::size_t q, std::size_t t) { return exact(q, first + t); };
      if (rule.passes)
        rule.passes = [passes = rule.passes, first](std::size_t q, std::size_t t, std::int32_t s) {
          return passes(q, first + t, s);
        };
    }
    return rule;
  };
  {
    progress_line progress("aligning", times.total_cells, show_progress);
    struct detach {  // the engine stops reaching the line before it goes, exceptions included
      std::atomic<progress_line*>* line;
      ~detach() {
        if (line) line->store(nullptr);
      }
    } detach_fill{fill_line};
    if (fill_line && nq * mine.size() == 1) fill_line->store(&progress);
    result.hits = search_all(eng, scheme, options, queries, mine, nt, settle, progress, on_cells, times);
  }
  for (output::hit& h : result.hits) h.target_index += share.first;
  times.aligned = clock::now();
  if (times.collected != clock::time_point{})  // the scan's best cells and the lists freed
    times.stages.emplace_back("search's buffers freed", std::chrono::duration<double>(times.aligned - times.collected).count());
  times.stats_method = std::string(scoring::to_string(stats->method()));
  return result;
}

void write_search(std::ostream& out, const scoring_scheme& scheme, const checked_search& checked,
                  const sequence_set& queries, const sequence_set& targets, const search_result& found,
                  const std::string& engine_name, const std::string& engine_device) {
  const align_options& options = checked.searching;
  const database_size database = size_of_database(targets, options.db_residues, options.db_sequences);
  const output::run_context ctx{queries,          targets,     scheme,        SWAT_VERSION_STRING,
                                options.command_line, database.residues, engine_name, engine_device,
                                &*found.statistics, database.sequences};
  output::write_hits(out, options.outfmt, ctx, found.hits);
}

search_result search_hits(engine& eng, const scoring_scheme& scheme, const checked_search& checked,
                          sequence_set& queries, const sequence_set& targets, bool show_progress,
                          std::atomic<progress_line*>* fill_line, const progress_fn& on_cells) {
  return search_share(eng, scheme, checked, queries, targets, {0, targets.records.size()}, {}, show_progress, fill_line,
                      on_cells);
}

search_times search_and_write(engine& eng, const scoring_scheme& scheme, const checked_search& checked,
                              sequence_set& queries, const sequence_set& targets, std::ostream& out,
                              bool show_progress, std::atomic<progress_line*>* fill_line) {
  const search_result found = search_hits(eng, scheme, checked, queries, targets, show_progress, fill_line);
  write_search(out, scheme, checked, queries, targets, found, eng.name(), eng.device());
  return found.times;
}

void run_align(const align_options& options, std::ostream& stdout_stream, const notice_fn& notice_in) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  // The output is prepared first (temporary file created, inputs refused as outputs), so an
  // unwritable path fails before any input is read or any cell is computed.
  std::optional<output::atomic_file> out_file;
  if (!options.out_path.empty() && options.out_path != "-") {
    std::vector<std::string> inputs = database_files(options.db_path);
    inputs.push_back(options.query_path);
    inputs.push_back(options.scoring.matrix_file);
    out_file.emplace(options.out_path, inputs);
  }
  const auto since_start = [&start] { return std::chrono::duration<double>(clock::now() - start).count(); };
  // The engine (for the GPU: the CUDA context, ~0.2–0.3 s on the H100 VM) starts in a second
  // thread while the inputs are read. Its notices wait until the inputs have been read and
  // checked: a bad input still gets its one error line and nothing else, and the order of the
  // lines does not depend on the threads.
  std::mutex engine_mutex;
  bool hold_engine_notices = true;
  std::vector<std::string> held_notices;
  const notice_fn engine_notice = [&](const std::string& line) {
    {
      const std::lock_guard<std::mutex> lock(engine_mutex);
      if (hold_engine_notices) {
        held_notices.push_back(line);
        return;
      }
    }
    notice_in(line);
  };
  // The fill progress of a single long pair (engines that report one) shows on the progress line.
  std::atomic<progress_line*> fill_line{nullptr};
  align_options with_progress = options;
  // --device auto: the planner predicts the search from the inputs' sizes before the engine
  // starts, and takes the CPU engine where it is predicted faster than the GPU (engine/plan.hpp).
  const unsigned threads =
      options.engine.options.cpu_threads ? options.engine.options.cpu_threads : std::max(1u, std::thread::hardware_concurrency());
  std::optional<device_plan> planned;  // the planner's prediction from the inputs' sizes
  // What the planner knows before the read: residues, records and the alphabet from the files'
  // first 64 KiB scaled by their sizes (a prepared database's own counts).
  const auto guess_size = [&] {
    const database_hint db = database_size_hint(options.db_path);
    const file_sample q = sample_sequences(options.query_path);
    const bool protein = db.protein || q.protein;
    // Both DNA strands only where the letters say DNA (gzip inputs are not sampled: one strand,
    // as before the sampling).
    const bool dna = !protein && (db.residues_sampled || q.letters_seen);
    const bool both = dna && options.strand_option.value_or(strand_choice::both) == strand_choice::both;
    return search_size{q.residues, db.residues, q.records, db.records, both ? 2 : 1, protein};
  };
  std::optional<search_size> guess;
  if (options.engine.gpu && options.engine.device.kind != device_kind::cpu) guess = guess_size();
  const bool sizes_known = guess && guess->query_residues > 0 && guess->target_residues > 0;
  // --gpus all or a count N: the planner decides how many of them (the first ones) the search
  // uses; a LIST of ids is used as given.
  // (A count beyond the GPUs there is left to the engine, which refuses it.)
  const gpu_selection& asked_gpus = options.engine.options.gpus;
  const int visible = visible_gpus_hint();  // 0: not known here (the planner's count is then an upper bound)
  // "all" is planned only where the GPUs can be counted before CUDA starts.
  const bool plan_gpus = sizes_known && options.engine.device.gpu_id == 0 &&
                         (asked_gpus.all ? visible > 0 : asked_gpus.ids.empty() && (visible == 0 || asked_gpus.count <= visible));
  const int may_use = asked_gpus.all ? visible : std::max(asked_gpus.count, 1);
  if (sizes_known && options.engine.device.kind == device_kind::auto_select && !options.engine.gpu_asked) {
    planned = plan_device(*guess, threads, {}, plan_gpus ? may_use : 1);
    if (planned->use_cpu) with_progress.engine.device.kind = device_kind::cpu;
  } else if (plan_gpus) {
    planned = plan_device(*guess, threads, {}, may_use);
    planned->use_cpu = false;  // the GPU was asked for: only the GPUs' count is planned
    if (planned->gpus == 0) planned->gpus = plan_gpu_count(*guess, may_use);
  }
  const bool chose_cpu = planned && planned->use_cpu;
  // CUDA's start initialises every visible GPU (0.1-0.3 s each): the GPUs this search will not
  // use are hidden before it (engine/gpu_selection.hpp), those after the first N of --gpus N, or
  // after the planner's count. Ids stay the same.
  if (!chose_cpu && options.engine.gpu && options.engine.device.kind != device_kind::cpu) {
    int keep = leading_count(asked_gpus);
    if (plan_gpus && planned && planned->gpus > 0 && (keep == 0 || planned->gpus < keep)) {
      keep = planned->gpus;
      // At most that many: the hint may count GPUs CUDA will not show (cgroups, a bad entry).
      with_progress.engine.options.gpus = gpu_selection{false, keep, {}, true};
    }
    if (keep > options.engine.device.gpu_id) hide_gpus_after(keep);
  }
  with_progress.engine.options.fill_progress = [&fill_line](double fraction, double elapsed) {
    if (progress_line* line = fill_line.load()) line->fill(fraction, elapsed);
  };
  double engine_s = 0;
  const auto start_engine = [&] {
    std::unique_ptr<engine> e = make_engine(with_progress, engine_notice);
    engine_s = since_start();
    return e;
  };
  std::future<std::unique_ptr<engine>> engine_ready;
  try {
    engine_ready = std::async(std::launch::async, start_engine);
  } catch (const std::system_error&) {  // no thread to spare (ulimit -u): start it after the read
    engine_ready = std::async(std::launch::deferred, start_engine);
  }
  // (Named references, not a structured binding: the settle lambda below captures them, which
  // clang 14, the fuzz build's compiler, refuses for bindings.)
  database_read db_read;
  std::pair<sequence_set, sequence_set> inputs = read_inputs(options, notice_in, db_read);
  sequence_set& queries = inputs.first;
  sequence_set& targets = inputs.second;
  const double read_s = since_start();
  const scoring_scheme scheme = build_scheme(queries.alphabet, options.scoring);
  const checked_search checked = check_search(options, queries, targets, scheme);
  std::unique_ptr<engine> eng = engine_ready.get();
  const double ready_s = since_start();
  {
    const std::lock_guard<std::mutex> lock(engine_mutex);
    hold_engine_notices = false;
  }
  if (chose_cpu) notice_in("notice: plan: " + planned->describe());
  for (const std::string& line : held_notices) notice_in(line);
  if (const std::string line = stats_notice(checked.plan); !line.empty()) notice_in("notice: " + line);

  std::ostream& out = out_file ? out_file->stream() : stdout_stream;
  const search_times times = search_and_write(*eng, scheme, checked, queries, targets, out, !options.quiet, &fill_line);
  const std::uint64_t total_cells = times.total_cells, db_residues = times.db_residues;
  const double scan_s = times.scan_s, fit_s = times.fit_s;
  const double aligned_s = std::chrono::duration<double>(times.aligned - start).count();
  const align_options& searching = checked.searching;

  if (!out_file) {
    stdout_stream.flush();
    if (!stdout_stream) throw runtime_failure("error writing to standard output");
  } else {
    out_file->commit();
  }
  if (options.timing) {
    std::string stages;
    for (const auto& [stage, seconds] : eng->stage_seconds()) {  // names of any length
      char part[32];
      std::snprintf(part, sizeof part, " %.3f s, ", seconds);
      stages += stage + part;
    }
    for (const auto& [stage, seconds] : times.stages) {  // the pipeline's steps after the engine's
      char part[32];
      std::snprintf(part, sizeof part, " %.3f s, ", seconds);
      stages += "pipeline: " + stage + part;
    }
    const double align_s = aligned_s - ready_s;
    search_size size{0, db_residues, queries.records.size(), targets.records.size(),
                     searching.strand == strand_choice::both ? 2 : 1};
    for (const auto& q : queries.records) size.query_residues += q.residues.size();
    std::string plan;
    if (planned && options.engine.device.kind == device_kind::auto_select && !options.engine.gpu_asked)
      plan = planned->describe() + " from the inputs' sizes";
    else if (planned)
      plan = eng->name() + " as asked, on " + planned->describe() + " from the inputs' sizes";
    else if (options.engine.device.kind != device_kind::auto_select || options.engine.gpu_asked)
      plan = eng->name() + " as asked";
    else if (!options.engine.gpu)
      plan = eng->name() + " (this build has no GPU engine)";
    else
      plan = eng->name() + " (the inputs' sizes were not known before the engine started)";
    const device_plan after = plan_device(size, threads);
    plan += std::string(", predicted for this search: GPU ") + std::to_string(after.gpu_s).substr(0, 6) + " s, CPU engine " +
            std::to_string(after.cpu_s).substr(0, 6) + " s";
    for (const std::string& d : eng->decisions()) plan += "; " + d;
    // Numbers through snprintf, names appended: no length limit on the engines' stage names.
    const auto num = [](const char* fmt, auto... v) {
      char buf[160];
      std::snprintf(buf, sizeof buf, fmt, v...);
      return std::string(buf);
    };
    const std::string line =
        num("timing: read %.3f s", read_s) + read_detail(db_read) + " | " + eng->name() + " engine on " + eng->device() +
        num(" ready %.3f s (started with the read) | align %.3f s (%.3g cells, %.1f GCUPS; ", engine_s, align_s,
            double(total_cells), double(total_cells) / std::max(align_s, 1e-9) / 1e9) +
        stages + num("scan %.3f s, E-values ", scan_s) + times.stats_method +
        num(" %.3f s, traceback %.3f s) | output %.3f s | total %.3f s", fit_s, align_s - scan_s - fit_s,
            since_start() - aligned_s, since_start()) +
        num(" | host peak memory %.0f MiB", double(peak_host_bytes()) / (1 << 20));
    options.timing(line + " | plan: " + plan);
  }
  if (options.leave_gpu_engine && options.engine.cpu && eng->name() != options.engine.cpu->name)
    options.leave_gpu_engine(std::move(eng));
  // The process ends right after, reclaiming everything at once: the inputs' records (1.6 M of
  // them for Swiss-Prot ×500: 1.7 s on the 2-core VM) are not freed one by one.
  if (options.process_ends_after) {
    leave_for_exit(std::move(queries));
    leave_for_exit(std::move(targets));
  }
}

}  // namespace swat::pipeline
