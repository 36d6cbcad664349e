// The MPI runner of `swat-gpu align` (distributed.hpp), registered in swat-gpu-mpi. Every rank
// runs the same phases; each phase ends with an agreement (one MPI_Allreduce) on whether a rank
// failed in it, so that a failure anywhere ends every rank at its next phase boundary with the
// failing rank's error, whatever the others were doing: read and check, engine start, the search
// of the share (whose empirical statistics gather every rank's scores after an agreement of their
// own), then the hits to rank 0, which merges and writes them. MPI is called from the main
// thread only.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "dist/distributed.hpp"
#include "output/atomic_file.hpp"
#include "pipeline/shares.hpp"

namespace swat::dist {

namespace {

std::string mpi_library_line() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);  // may be called before MPI_Init
  std::string text(version, std::size_t(std::max(length, 0)));
  text = text.substr(0, text.find_first_of(",\n"));
  return "MPI: " + text + " (mpirun -np N swat-gpu align ...: one search over N ranks)";
}

using clock = std::chrono::steady_clock;
double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

constexpr int tag_failure = 1;  //!< a failing rank's error line to rank 0
constexpr int tag_hits = 2;     //!< a rank's hits to rank 0
//! The longest error line a rank hands on (characters).
constexpr std::size_t max_error_line = 4096;
//! The largest message MPI's int counts carry at once (bytes).
constexpr std::size_t max_message_bytes = std::size_t(1) << 30;

//! MPI for the length of one run, and where this rank is: in the job and on its node.
class world {
 public:
  world() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank_);
    MPI_Comm_size(node, &node_size_);
    MPI_Comm_free(&node);
  }
  ~world() { MPI_Finalize(); }
  world(const world&) = delete;
  world& operator=(const world&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int node_rank() const { return node_rank_; }  //!< among the ranks of this node
  int node_size() const { return node_size_; }

 private:
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1;
};

//! Thrown once the ranks agreed that the job failed: rank 0 rethrows error (its own, or one that
//! names the failing rank); the other ranks leave quietly (error is null).
struct job_failed {
  std::exception_ptr error;
};

//! The one line an exception says.
std::string line_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    return "out of host memory";
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown failure";
  }
}

void send_bytes(const char* data, std::size_t n, int to, int tag) {
  const unsigned long long size = n;
  MPI_Send(&size, 1, MPI_UNSIGNED_LONG_LONG, to, tag, MPI_COMM_WORLD);
  for (std::size_t at = 0; at < n; at += max_message_bytes)
    MPI_Send(data + at, int(std::min(max_message_bytes, n - at)), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

std::string receive_bytes(int from, int tag) {
  unsigned long long size = 0;
  MPI_Recv(&size, 1, MPI_UNSIGNED_LONG_LONG, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string bytes(size, '\0');
  for (std::size_t at = 0; at < bytes.size(); at += max_message_bytes)
    MPI_Recv(bytes.data() + at, int(std::min(max_message_bytes, bytes.size() - at)), MPI_CHAR, from, tag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  return bytes;
}

//! Every rank says whether it failed (error set); when one did, every rank throws job_failed,
//! rank 0's carrying the error of the lowest failing rank (its own as it was thrown, so that its
//! exit status is the one process's; another rank's as a runtime_failure naming that rank).
void agree(const world& w, const std::exception_ptr& error) {
  const int mine = error ? w.rank() : w.size();
  int first = w.size();
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == w.size()) return;
  if (first == 0) throw job_failed{w.rank() == 0 ? error : nullptr};
  if (w.rank() == first) {
    std::string line = line_of(error);
    if (line.size() > max_error_line) line.resize(max_error_line);
    send_bytes(line.data(), line.size(), 0, tag_failure);
  }
  if (w.rank() != 0) throw job_failed{};
  const std::string line = receive_bytes(first, tag_failure);
  throw job_failed{std::make_exception_ptr(
      runtime_failure("rank " + std::to_string(first) + " of " + std::to_string(w.size()) + ": " + line))};
}

//! Runs one phase on every rank and agrees on its outcome.
template <class work_t>
void phase(const world& w, work_t&& work) {
  std::exception_ptr error;
  try {
    work();
  } catch (const job_failed&) {
    throw;  // agreed already (inside the phase)
  } catch (...) {
    error = std::current_exception();
  }
  agree(w, error);
}

//! The GPUs this process may see, counted without CUDA (whose start must come after the
//! narrowing below): CUDA_VISIBLE_DEVICES's entries where it is set, else the driver's GPUs
//! (/proc/driver/nvidia/gpus); 0 where neither says.
int visible_gpus_without_cuda() {
  if (const char* list = std::getenv("CUDA_VISIBLE_DEVICES")) {
    const std::string text(list);
    if (text.empty()) return 0;
    return int(std::count(text.begin(), text.end(), ',')) + (text.back() == ',' ? 0 : 1);
  }
  std::error_code ec;
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    (void)entry;
    ++n;
  }
  return n;
}

//! Ranks of one node split its cores (--threads 0) and its GPUs (--gpus all, no --device gpu:ID)
//! evenly; a node with fewer GPUs than ranks gives each rank one, shared round robin. A rank sees
//! its GPUs alone (CUDA_VISIBLE_DEVICES narrowed before CUDA starts, as align narrows it: CUDA's
//! start initialises every visible GPU), as its GPUs 0 … n−1.
void split_node(pipeline::align_options& o, const world& w) {
  if (w.node_size() <= 1) return;
  engine_options& e = o.engine.options;
  if (e.cpu_threads == 0) e.cpu_threads = std::max(1u, std::thread::hardware_concurrency() / unsigned(w.node_size()));
  if (!e.gpus.all || o.engine.device.gpu_id != 0 || o.engine.device.kind == device_kind::cpu || !o.engine.gpu) return;
  const int visible = visible_gpus_without_cuda();
  if (visible <= 0) return;
  int first = w.node_rank() * visible / w.node_size(), last = (w.node_rank() + 1) * visible / w.node_size();
  if (first == last) first = w.node_rank() % visible, last = first + 1;
  // The entries [first, last) of the visible list (indices where none is set).
  std::vector<std::string> entries;
  if (const char* list = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string text(list);
    for (std::size_t at = 0; at <= text.size();) {
      const std::size_t comma = std::min(text.find(',', at), text.size());
      entries.push_back(text.substr(at, comma - at));
      at = comma + 1;
    }
  } else {
    for (int d = 0; d < visible; ++d) entries.push_back(std::to_string(d));
  }
  std::string mine;
  for (int d = first; d < last && d < int(entries.size()); ++d) mine += (mine.empty() ? "" : ",") + entries[std::size_t(d)];
  if (mine.empty() || ::setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1) != 0) return;
  e.gpus = gpu_selection{false, last - first, {}};
}

//! What rank 0 reports with --timing.
struct rank_times {
  double init_s = 0, read_s = 0, ready_s = 0, exchange_s = 0, merge_s = 0, output_s = 0;
  std::uint64_t hit_bytes = 0, score_bytes = 0;
};

void run_ranks(const pipeline::align_options& given, std::ostream& stdout_stream, const notice_fn& notice_in) {
  const auto start = clock::now();
  world w;
  const bool lead = w.rank() == 0;
  const double init_s = seconds_since(start);
  pipeline::align_options options = given;
  split_node(options, w);
  // Rank 0 speaks for the job; the engine's notices wait until the inputs are checked (as align's).
  const notice_fn notice = [&](const std::string& line) {
    if (lead) notice_in(line);
  };
  std::mutex held_mutex;
  bool holding = true;
  std::vector<std::string> held;
  const notice_fn engine_notice = [&](const std::string& line) {
    {
      const std::lock_guard<std::mutex> lock(held_mutex);
      if (holding) {
        held.push_back(line);
        return;
      }
    }
    notice(line);
  };
  rank_times times;
  times.init_s = init_s;
  try {
    std::optional<output::atomic_file> out_file;  // rank 0's, prepared first as align's
    std::future<std::unique_ptr<engine>> engine_ready;
    std::pair<sequence_set, sequence_set> inputs;
    std::optional<scoring_scheme> scheme;
    std::optional<pipeline::checked_search> checked;
    phase(w, [&] {
      if (lead && !options.out_path.empty() && options.out_path != "-") {
        std::vector<std::string> inputs = pipeline::database_files(options.db_path);
        inputs.push_back(options.query_path);
        inputs.push_back(options.scoring.matrix_file);
        out_file.emplace(options.out_path, inputs);
      }
      const auto start_engine = [&options, &engine_notice] { return pipeline::make_engine(options, engine_notice); };
      try {
        engine_ready = std::async(std::launch::async, start_engine);
      } catch (const std::system_error&) {  // no thread to spare: start it after the read
        engine_ready = std::async(std::launch::deferred, start_engine);
      }
      pipeline::database_read how;
      inputs = pipeline::read_inputs(options, notice, how);
      times.read_s = seconds_since(start);
      scheme.emplace(pipeline::build_scheme(inputs.first.alphabet, options.scoring));
      checked.emplace(pipeline::check_search(options, inputs.first, inputs.second, *scheme));
    });
    sequence_set& queries = inputs.first;
    const sequence_set& targets = inputs.second;
    std::unique_ptr<engine> eng;
    phase(w, [&] { eng = engine_ready.get(); });
    times.ready_s = seconds_since(start);
    {
      const std::lock_guard<std::mutex> lock(held_mutex);
      holding = false;
    }
    for (const std::string& line : held) notice(line);
    if (const std::string line = pipeline::stats_notice(checked->plan); !line.empty()) notice("notice: " + line);

    const std::size_t nq = queries.records.size(), nt = targets.records.size();
    std::vector<std::uint64_t> lengths;
    lengths.reserve(nt);
    for (const sequence_record& t : targets.records) lengths.push_back(t.residues.size());
    const std::vector<pipeline::target_share> shares = pipeline::split_targets(lengths, std::size_t(w.size()));
    // Empirical statistics: every rank's best scores to every rank (each fits every query).
    const pipeline::gather_scores_fn gather = [&](std::span<const std::int32_t> mine) {
      agree(w, nullptr);  // a rank that failed before its scan ends the job here
      const auto t0 = clock::now();
      std::vector<int> counts(std::size_t(w.size())), offsets(std::size_t(w.size()));
      std::size_t at = 0;
      for (std::size_t r = 0; r < shares.size(); ++r) {
        if (nq * shares[r].size() > std::size_t(INT_MAX) || at > std::size_t(INT_MAX))
          throw runtime_failure("empirical statistics over MPI: " + std::to_string(nq) + " queries × " +
                                std::to_string(nt) + " targets are more scores than one exchange carries; "
                                "use --stats analytic or fewer queries per run");
        counts[r] = int(nq * shares[r].size());
        offsets[r] = int(at);
        at += std::size_t(counts[r]);
      }
      std::vector<std::int32_t> blocks(at), all(nq * nt);
      MPI_Allgatherv(mine.data(), int(mine.size()), MPI_INT32_T, blocks.data(), counts.data(), offsets.data(),
                     MPI_INT32_T, MPI_COMM_WORLD);
      for (std::size_t r = 0; r < shares.size(); ++r)
        for (std::size_t q = 0; q < nq; ++q)
          std::copy_n(blocks.begin() + std::ptrdiff_t(std::size_t(offsets[r]) + q * shares[r].size()), shares[r].size(),
                      all.begin() + std::ptrdiff_t(q * nt + shares[r].first));
      times.exchange_s += seconds_since(t0);
      times.score_bytes += at * sizeof(std::int32_t);
      return all;
    };
    pipeline::search_result found;
    std::string bytes;  // the share's hits as they travel (encoded inside the phase: a rank that
                        // cannot encode them fails before rank 0 waits for them)
    phase(w, [&] {
      found = pipeline::search_share(*eng, *scheme, *checked, queries, targets, shares[std::size_t(w.rank())], gather,
                                     false);
      bytes = pipeline::encode_hits(found.hits);
    });
    const double search_s = std::chrono::duration<double>(found.times.aligned - start).count() - times.ready_s;

    // The hits to rank 0 (every rank arrives at once: the agreement above waited for the slowest).
    const auto t_exchange = clock::now();
    std::vector<double> searched(lead ? std::size_t(w.size()) : 0);
    MPI_Gather(&search_s, 1, MPI_DOUBLE, searched.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (!lead) {
      send_bytes(bytes.data(), bytes.size(), 0, tag_hits);
      return;
    }
    std::vector<std::string> received(std::size_t(w.size()));
    received[0] = std::move(bytes);
    for (int r = 1; r < w.size(); ++r) received[std::size_t(r)] = receive_bytes(r, tag_hits);
    times.exchange_s += seconds_since(t_exchange);
    const auto t_merge = clock::now();
    std::vector<std::vector<output::hit>> parts;
    for (const std::string& part : received) {
      times.hit_bytes += part.size();
      parts.push_back(pipeline::decode_hits(part));
    }
    found.hits = pipeline::merge_hits(std::move(parts), nq, checked->searching.max_hits);
    times.merge_s = seconds_since(t_merge);

    const auto t_output = clock::now();
    std::ostream& out = out_file ? out_file->stream() : stdout_stream;
    pipeline::write_search(out, *scheme, *checked, queries, targets, found, eng->name(), eng->device());
    if (out_file) {
      out_file->commit();
    } else {
      stdout_stream.flush();
      if (!stdout_stream) throw runtime_failure("error writing to standard output");
    }
    times.output_s = seconds_since(t_output);
    if (options.timing) {
      const auto slowest = std::max_element(searched.begin(), searched.end());
      const auto fastest = std::min_element(searched.begin(), searched.end());
      char line[640];
      std::snprintf(line, sizeof line,
                    "timing: mpi %d ranks | MPI start %.3f s | read %.3f s | ready %.3f s | search: rank 0 %.3f s, slowest %.3f s "
                    "(rank %d), fastest %.3f s | exchange %.4f s (%llu bytes of hits, %llu of scores) | merge %.4f s "
                    "| output %.3f s | total %.3f s",
                    w.size(), times.init_s, times.read_s, times.ready_s, searched[0], *slowest, int(slowest - searched.begin()),
                    *fastest, times.exchange_s, (unsigned long long)times.hit_bytes,
                    (unsigned long long)times.score_bytes, times.merge_s, times.output_s, seconds_since(start));
      options.timing(std::string(line) + " | " + eng->name() + " engine on " + eng->device());
    }
  } catch (const job_failed& failed) {
    if (failed.error) std::rethrow_exception(failed.error);
  }
}

[[maybe_unused]] const bool registered = register_mpi_runner(run_ranks, mpi_library_line);

}  // namespace

}  // namespace swat::dist
