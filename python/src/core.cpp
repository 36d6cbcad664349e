// swat_gpu._core: the Python package's binding of the search session (pipeline/search_session.hpp).
// The package's Python half (swat_gpu/__init__.py) turns its arguments into FASTA sources and
// keyword values; here they become the command's typed options (the same checks and messages),
// a session over the targets runs the search with the GIL released, and its hits come back as
// tuples of the JSON output's fields (output::hit_record, in its key order). Engines are kept
// between align() calls in a pool per engine option set; a search interrupted by Ctrl-C stops at
// the engine's next progress report and its engine is dropped.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <climits>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "engine/registry.hpp"
#include "pipeline/database.hpp"
#include "pipeline/search_session.hpp"

namespace py = pybind11;

namespace swat::python {
namespace {

//! A FASTA source: a file ("path", path) or text the package made ("text", label, text).
struct source {
  std::string kind;
  std::string label;
  std::string text;
};

source source_of(const py::tuple& t) {
  source s{t[0].cast<std::string>(), t[1].cast<std::string>(), {}};
  if (s.kind == "text") s.text = t[2].cast<std::string>();
  return s;
}

//! The lines a search gives the user: warnings (Python warnings) and notices (the package's logger).
struct messages {
  std::mutex mutex;
  std::vector<std::string> lines;
  notice_fn sink() {
    return [this](const std::string& line) {
      const std::lock_guard<std::mutex> lock(mutex);
      lines.push_back(line);
    };
  }
  //! Hands the lines said so far to swat_gpu._report (GIL held).
  void deliver() {
    std::vector<std::string> said;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      said.swap(lines);
    }
    if (!said.empty()) py::module_::import("swat_gpu").attr("_report")(said);
  }
};

//! The sequences of a source: queries from FASTA; targets (how given) also from a prepared database
//! (`swat-gpu makedb`), as the command reads its DB.
sequence_set read_source(const source& s, io::alphabet_request alphabet, unsigned threads, const notice_fn& notice,
                         pipeline::database_read* how = nullptr) {
  const io::warning_fn warn = [&](const std::string& w) { notice("warning: " + w); };
  if (s.kind == "text") return io::read_fasta_text(s.label, s.text, alphabet, warn);
  if (how) return pipeline::read_database(s.label, alphabet, warn, threads, how);
  return io::read_fasta(s.label, alphabet, warn, threads);
}

//! The options every search of a session shares (the command's Input, Scoring and Engine options).
struct session_args {
  std::string alphabet = "auto";
  std::optional<std::string> matrix, matrix_file;
  std::optional<int> match, mismatch, gap_open, gap_extend;
  std::string device = "auto";
  std::optional<std::string> gpus;
  long long threads = 0;

  //! The key of the engine pool: what makes an engine.
  std::string engine_key() const { return device + "|" + gpus.value_or("all") + "|" + std::to_string(threads); }
};

//! The options of one search (the command's --strand and report options).
struct search_args {
  std::string strand = "both";
  bool strand_given = false;
  long long max_hits = 10;
  long long max_hsps = 1;
  double evalue = 10;
  bool evalue_given = false;
  long long min_score = 1;
  std::string stats = "auto";
};

//! A session's options from the package's arguments, checked as `swat-gpu align` checks them.
pipeline::session_options session_options_of(const session_args& a, const std::string& db_label) {
  pipeline::session_options o;
  o.db_path = db_label;
  o.alphabet = io::parse_alphabet_request(a.alphabet);
  o.scoring.match = a.match;
  o.scoring.mismatch = a.mismatch;
  o.scoring.gap_open = a.gap_open;
  o.scoring.gap_extend = a.gap_extend;
  o.scoring.matrix = a.matrix.value_or("");
  o.scoring.matrix_file = a.matrix_file.value_or("");
  if (a.threads < 0 || a.threads > INT_MAX) throw usage_error("--threads: '" + std::to_string(a.threads) + "' is out of range");
  engine_options e;
  e.cpu_threads = unsigned(a.threads);
  e.gpus = parse_gpu_selection(a.gpus.value_or("all"));
  o.engine = plan_engine(built_engines(), parse_device_choice(a.device), "auto", std::move(e));
  if (a.gpus) o.engine.gpu_asked = true;
  return o;
}

//! A search request from the package's arguments (--max-hits and --evalue checked as the command does).
pipeline::align_options request_of(const search_args& a, const std::string& query_label) {
  pipeline::align_options o;
  o.query_path = query_label;
  o.outfmt = output::parse_outfmt("json");
  o.outfmt_text = "json";
  if (a.strand_given) o.strand_option = pipeline::parse_strand_choice(a.strand);
  if (a.max_hits < 1) throw usage_error("--max-hits must be at least 1");
  if (a.max_hsps < 0) throw usage_error("--max-hsps: '" + std::to_string(a.max_hsps) + "' is out of range");
  o.max_hits = std::size_t(a.max_hits);
  o.max_hsps = std::size_t(a.max_hsps);
  if (!(a.evalue > 0))  // also NaN
    throw usage_error("--evalue must be a positive number (got '" + py::str(py::float_(a.evalue)).cast<std::string>() + "')");
  o.stats.max_evalue = a.evalue;
  o.stats.evalue_given = a.evalue_given;
  if (a.min_score < INT_MIN || a.min_score > INT_MAX)
    throw usage_error("--min-score: '" + std::to_string(a.min_score) + "' is out of range");
  o.stats.min_score = std::int32_t(a.min_score);
  o.stats.choice = scoring::parse_stats_choice(a.stats);
  o.quiet = true;
  return o;
}

//! Engines kept between align() calls, per engine option set (engines are not shared by searches
//! that run at the same time: each takes one, or makes one, and gives it back when done).
class engine_pool {
 public:
  std::unique_ptr<engine> take(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& idle = idle_[key];
    if (idle.empty()) return nullptr;
    std::unique_ptr<engine> e = std::move(idle.back());
    idle.pop_back();
    return e;
  }
  void give(const std::string& key, std::unique_ptr<engine> e) {
    if (!e) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    idle_[key].push_back(std::move(e));
  }
  void clear() {
    std::map<std::string, std::vector<std::unique_ptr<engine>>> gone;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      gone.swap(idle_);
    }
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<std::unique_ptr<engine>>> idle_;
};

engine_pool& pool() {
  static engine_pool* p = new engine_pool;  // lives until the process ends (no teardown order issues)
  return *p;
}

//! Thrown from the engine's progress report when Ctrl-C asked the search to stop.
struct interrupted {};

//! Searches above this many cells run in a second thread while the calling thread watches for
//! Ctrl-C; smaller ones (milliseconds) run in the calling thread with the GIL released.
constexpr double watched_cells = 2e7;

//! Runs body(check) with the GIL released; check is the progress function the search reports to.
//! A KeyboardInterrupt raised by a signal handler meanwhile stops the search at its next report
//! and is raised here once it has stopped.
template <typename Body>
auto run_released(double cells, Body&& body) {
  std::atomic<bool> stop{false};
  const progress_fn check = [&stop](std::uint64_t) {
    if (stop.load(std::memory_order_relaxed)) throw interrupted{};
  };
  using result_t = decltype(body(check));
  if (cells < watched_cells) {
    const py::gil_scoped_release release;
    return body(check);
  }
  std::optional<result_t> result;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::optional<py::error_already_set> raised;
  {
    const py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        result.emplace(body(check));
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mutex);
      done = true;
      finished.notify_all();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!done) {
      finished.wait_for(lock, std::chrono::milliseconds(20));
      if (done || raised) continue;
      lock.unlock();
      {
        const py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) raised.emplace();  // fetches the KeyboardInterrupt
      }
      if (raised) stop = true;
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (raised) throw std::move(*raised);
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

double cells_of(const sequence_set& queries, const sequence_set& targets, int strands) {
  double q = 0, t = 0;
  for (const auto& r : queries.records) q += double(r.residues.size());
  for (const auto& r : targets.records) t += double(r.residues.size());
  return q * t * strands;
}

//! A hit as the tuple swat_gpu.Hit is made from (the JSON keys' order, has_log10_evalue last).
py::tuple tuple_of(const output::hit_record& r) {
  py::object none = py::none();
  return py::make_tuple(r.query, r.target, r.score, r.query_start, r.query_end, r.target_start, r.target_end,
                        r.strand ? py::object(py::str(*r.strand)) : none, r.query_length, r.target_length, r.length,
                        r.identity ? py::object(py::float_(*r.identity)) : none, r.matches, r.mismatches,
                        r.positives, r.gap_opens, r.gaps, r.cigar,
                        r.evalue ? py::object(py::float_(*r.evalue)) : none,
                        r.log10_evalue ? py::object(py::float_(*r.log10_evalue)) : none,
                        r.bitscore ? py::object(py::float_(*r.bitscore)) : none, r.query_aligned, r.target_aligned,
                        r.has_log10_evalue);
}

py::list hits_list(const std::vector<output::hit_record>& records) {
  py::list out(records.size());
  for (std::size_t k = 0; k < records.size(); ++k) out[k] = tuple_of(records[k]);
  return out;
}

py::array_t<std::int32_t> score_array(const std::vector<std::int32_t>& scores, std::size_t rows, std::size_t cols) {
  py::array_t<std::int32_t> a({rows, cols});
  std::copy(scores.begin(), scores.end(), a.mutable_data());
  return a;
}

int strands_of(const sequence_set& queries, const search_args& a) {
  return queries.alphabet == alphabet_kind::dna && (!a.strand_given || a.strand == "both") ? 2 : 1;
}

//! A database prepared once and searched many times (swat_gpu.Searcher).
class searcher {
 public:
  searcher(const py::tuple& db, const session_args& args) {
    const source s = source_of(db);
    pipeline::session_options options = session_options_of(args, s.label);
    options.pin = true;
    options.warm_up = true;
    const notice_fn notice = messages_.sink();
    {
      const py::gil_scoped_release release;
      pipeline::database_read how;
      sequence_set targets = read_source(s, options.alphabet, unsigned(args.threads), notice, &how);
      session_ = std::make_unique<pipeline::search_session>(std::move(options), std::move(targets), nullptr, notice, how);
    }
    messages_.deliver();
  }

  py::list search(const py::tuple& queries, const search_args& a) {
    const std::shared_lock<std::shared_mutex> using_it(in_use_);
    const source s = source_of(queries);
    const pipeline::align_options request = request_of(a, s.label);
    std::optional<sequence_set> q;
    std::optional<pipeline::checked_search> checked;
    {
      const py::gil_scoped_release release;
      q.emplace(read_source(s, session().options().alphabet, unsigned(session().options().engine.options.cpu_threads),
                            messages_.sink()));
      checked.emplace(session().check(request, *q));
    }
    messages_.deliver();
    const auto records = run_released(cells_of(*q, session().targets(), strands_of(*q, a)),
                                      [&](const progress_fn& check) { return session().hits(*checked, *q, check); });
    return hits_list(records);
  }

  py::array_t<std::int32_t> scores(const py::tuple& queries, const search_args& a) {
    const std::shared_lock<std::shared_mutex> using_it(in_use_);
    const source s = source_of(queries);
    const pipeline::align_options request = request_of(a, s.label);
    std::optional<sequence_set> q;
    std::optional<pipeline::checked_search> checked;
    {
      const py::gil_scoped_release release;
      q.emplace(read_source(s, session().options().alphabet, unsigned(session().options().engine.options.cpu_threads),
                            messages_.sink()));
      checked.emplace(session().check(request, *q));
    }
    messages_.deliver();
    const auto scores = run_released(cells_of(*q, session().targets(), strands_of(*q, a)),
                                     [&](const progress_fn& check) { return session().scores(*checked, *q, check); });
    return score_array(scores, q->records.size(), session().targets().records.size());
  }

  std::vector<std::string> target_names() const {
    const std::shared_lock<std::shared_mutex> using_it(in_use_);
    std::vector<std::string> names;
    for (const auto& r : session().targets().records) names.push_back(r.name);
    return names;
  }
  std::string alphabet() const {
    const std::shared_lock<std::shared_mutex> using_it(in_use_);
    return std::string(to_string(session().targets().alphabet));
  }
  std::string engine_name() const {
    const std::shared_lock<std::shared_mutex> using_it(in_use_);
    return session().engine_name();
  }
  std::string engine_device() const {
    const std::shared_lock<std::shared_mutex> using_it(in_use_);
    return session().engine_device();
  }
  //! Waits for the searches in progress (other threads), then releases the engine and the database.
  void close() {
    const py::gil_scoped_release release;
    const std::unique_lock<std::shared_mutex> alone(in_use_);
    session_.reset();
  }

 private:
  pipeline::search_session& session() const {
    if (!session_) throw runtime_failure("this Searcher is closed");
    return *session_;
  }
  messages messages_;
  mutable std::shared_mutex in_use_;  //!< searches share it; close() takes it alone
  std::unique_ptr<pipeline::search_session> session_;
};

//! One search of queries against targets on an engine of the pool: what Body returns of the
//! session, which then hands the engine back (not after an interrupted or failed search).
template <typename Body>
auto one_shot(const py::tuple& queries, const py::tuple& targets, const session_args& sa, const search_args& a,
              Body&& body) {
  const source qs = source_of(queries), ts = source_of(targets);
  pipeline::session_options options = session_options_of(sa, ts.label);
  options.pin = false;
  options.warm_up = false;
  const pipeline::align_options request = request_of(a, qs.label);
  const std::string key = sa.engine_key();
  messages said;
  const notice_fn notice = said.sink();
  std::optional<sequence_set> q;
  std::unique_ptr<pipeline::search_session> session;
  std::optional<pipeline::checked_search> checked;
  {
    const py::gil_scoped_release release;
    q.emplace(read_source(qs, options.alphabet, unsigned(sa.threads), notice));
    pipeline::database_read how;
    sequence_set t = read_source(ts, options.alphabet, unsigned(sa.threads), notice, &how);
    session = std::make_unique<pipeline::search_session>(std::move(options), std::move(t), pool().take(key), notice, how);
    checked.emplace(session->check(request, *q));
  }
  said.deliver();
  auto result = run_released(cells_of(*q, session->targets(), strands_of(*q, a)),
                             [&](const progress_fn& check) { return body(*session, *checked, *q, check); });
  pool().give(key, session->release_engine());  // not after an exception: that engine goes with its session
  return result;
}

}  // namespace
}  // namespace swat::python

PYBIND11_MODULE(_core, m) {
  using namespace swat::python;
  m.doc() = "The C++ half of swat_gpu (see help(swat_gpu)).";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const swat::usage_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const swat::input_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const interrupted&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  py::class_<session_args>(m, "SessionArgs")
      .def(py::init<>())
      .def_readwrite("alphabet", &session_args::alphabet)
      .def_readwrite("matrix", &session_args::matrix)
      .def_readwrite("matrix_file", &session_args::matrix_file)
      .def_readwrite("match", &session_args::match)
      .def_readwrite("mismatch", &session_args::mismatch)
      .def_readwrite("gap_open", &session_args::gap_open)
      .def_readwrite("gap_extend", &session_args::gap_extend)
      .def_readwrite("device", &session_args::device)
      .def_readwrite("gpus", &session_args::gpus)
      .def_readwrite("threads", &session_args::threads);
  py::class_<search_args>(m, "SearchArgs")
      .def(py::init<>())
      .def_readwrite("strand", &search_args::strand)
      .def_readwrite("strand_given", &search_args::strand_given)
      .def_readwrite("max_hits", &search_args::max_hits)
      .def_readwrite("max_hsps", &search_args::max_hsps)
      .def_readwrite("evalue", &search_args::evalue)
      .def_readwrite("evalue_given", &search_args::evalue_given)
      .def_readwrite("min_score", &search_args::min_score)
      .def_readwrite("stats", &search_args::stats);

  m.def("align", [](const py::tuple& queries, const py::tuple& targets, const session_args& sa, const search_args& a) {
    return hits_list(one_shot(queries, targets, sa, a,
                              [](swat::pipeline::search_session& s, const swat::pipeline::checked_search& c,
                                 swat::sequence_set& q, const swat::progress_fn& check) { return s.hits(c, q, check); }));
  });
  m.def("scores", [](const py::tuple& queries, const py::tuple& targets, const session_args& sa, const search_args& a) {
    std::size_t rows = 0, cols = 0;
    const auto found = one_shot(queries, targets, sa, a,
                          [&](swat::pipeline::search_session& s, const swat::pipeline::checked_search& c,
                              swat::sequence_set& q, const swat::progress_fn& check) {
                            rows = q.records.size();
                            cols = s.targets().records.size();
                            return s.scores(c, q, check);
                          });
    return score_array(found, rows, cols);
  });
  m.def("gpu_count", [] { return swat::built_engines().device_count(); },
        "GPU devices this build can use now (0 without a CUDA build, a driver or a device).");
  m.def("release_engines", [] { pool().clear(); }, "Drops the engines kept between align() calls.");
  m.attr("version") = SWAT_VERSION_STRING;

  py::class_<searcher>(m, "Searcher")
      .def(py::init<const py::tuple&, const session_args&>())
      .def("search", &searcher::search)
      .def("scores", &searcher::scores)
      .def_property_readonly("target_names", &searcher::target_names)
      .def_property_readonly("alphabet", &searcher::alphabet)
      .def_property_readonly("engine", &searcher::engine_name)
      .def_property_readonly("device", &searcher::engine_device)
      .def("close", &searcher::close);
}
