// A search's database, FASTA or prepared, and `swat-gpu makedb` (database.hpp).

#include "pipeline/database.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>

#include "common/error.hpp"
#include "db/writer.hpp"
#include "engine/plan.hpp"
#include "output/atomic_file.hpp"

namespace swat::pipeline {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

//! Whether path holds something other than a file that starts with magic (a user's file that
//! makedb must not replace). A missing path holds nothing.
bool holds_other_file(const std::string& path, std::string_view magic) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return false;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return true;
  char head[8] = {};
  const std::size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return n != magic.size() || std::string_view(head, n) != magic;
}

//! Six hex digits that name this run's volumes.
std::string generation_token() {
  std::random_device seed;
  char token[16];
  std::snprintf(token, sizeof token, "%06x", unsigned(seed() ^ (unsigned(::getpid()) << 8)) & 0xffffffu);
  return token;
}

}  // namespace

sequence_set read_database(const std::string& db, io::alphabet_request alphabet, const io::warning_fn& warn,
                           unsigned max_threads, database_read* how) {
  const std::optional<std::string> index = db::prepared_index_path(db);
  if (!index) {
    if (how) *how = {};
    return io::read_fasta(db, alphabet, warn, max_threads);
  }
  database_read read;
  read.prepared = true;
  const db::database_index parsed = db::read_index(*index);
  read.volumes = std::uint32_t(parsed.volumes.size());
  if (alphabet != io::alphabet_request::auto_detect &&
      (alphabet == io::alphabet_request::dna) != (parsed.alphabet == alphabet_kind::dna))
    throw usage_error("--alphabet " + std::string(io::to_string(alphabet)) + ": " + db + " is a prepared " +
                      std::string(to_string(parsed.alphabet)) + " database (made by swat-gpu makedb)");
  sequence_set set = db::read_database(*index, db, &read.report, max_threads);
  if (how) *how = read;
  return set;
}

void check_alphabets(const std::string& query_path, const sequence_set& queries, const sequence_set& targets,
                     bool prepared) {
  if (queries.alphabet == targets.alphabet) return;
  const std::string q = std::string(to_string(queries.alphabet)), t = std::string(to_string(targets.alphabet));
  if (prepared)
    throw usage_error(query_path + " reads as " + q + " but " + targets.file + " is a prepared " + t +
                      " database; search it with " + t + " queries (--alphabet " + t + " reads them so)");
  throw usage_error(query_path + " reads as " + q + " but " + targets.file + " as " + t +
                    "; choose one with --alphabet dna|protein");
}

std::uint64_t database_residues_hint(const std::string& db) {
  try {
    if (const std::optional<std::string> index = db::prepared_index_path(db)) return db::read_index(*index).residues;
  } catch (const input_error&) {
    return 0;  // reading it says what is wrong
  }
  return estimated_residues(db);
}

std::vector<std::string> database_files(const std::string& db) {
  std::vector<std::string> files{db};
  try {
    if (const std::optional<std::string> index = db::prepared_index_path(db)) {
      const db::database_index parsed = db::read_index(*index);
      files.push_back(*index);
      for (std::uint32_t k = 0; k < parsed.volumes.size(); ++k) files.push_back(db::volume_path(parsed, k));
    }
  } catch (const input_error&) {
    // reading it says what is wrong
  }
  return files;
}

makedb_result make_database(const makedb_options& options, const io::warning_fn& warn) {
  const auto start = clock_type::now();
  makedb_result result;
  if (options.prefix.empty()) throw usage_error("makedb: PREFIX is empty");
  result.index_path = options.prefix + std::string(db::index_suffix);
  if (holds_other_file(result.index_path, db::index_magic))
    throw usage_error("makedb: " + result.index_path +
                      " exists and is not a swat-gpu database index; refusing to replace it (choose another PREFIX)");
  // An older database at this PREFIX: its volumes go once the new index has replaced it.
  std::optional<db::database_index> older;
  try {
    if (std::filesystem::exists(result.index_path)) older = db::read_index(result.index_path);
  } catch (const input_error&) {
    // a damaged older index: replaced, its volumes (unknown) left
  }
  const std::uint64_t max_volume_bytes = options.max_volume_bytes ? options.max_volume_bytes : db::default_volume_bytes;
  const std::filesystem::path prefix_path(options.prefix);
  const std::string base = prefix_path.filename().string();
  if (base.empty() || base == "." || base == "..")
    throw usage_error("makedb: PREFIX " + options.prefix + " names a directory; give a file name prefix (DIR/NAME)");
  const std::string generation = generation_token();
  if (db::volume_file_name(base + "." + generation, 0).size() + 1 >= db::volume_name_bytes)  // room for 4-digit numbers
    throw usage_error("makedb: the file name of PREFIX (" + base + ") is longer than " +
                      std::to_string(db::volume_name_bytes - 2 - db::volume_file_name("." + generation, 0).size()) +
                      " bytes; choose a shorter one");

  sequence_set set = io::read_fasta(options.fasta_path, options.alphabet, warn, options.threads);
  if (set.records.empty()) throw input_error(options.fasta_path, "no sequences to write into a database");
  result.read_s = seconds_since(start);
  const auto t_write = clock_type::now();
  result.alphabet = set.alphabet;

  const std::vector<db::volume_range> ranges = db::plan_volumes(set.records, max_volume_bytes);
  const std::filesystem::path dir = prefix_path.parent_path();
  const std::string inputs[] = {options.fasta_path};

  // Volumes are written on up to `threads` threads at once (each its own file), the index last.
  std::vector<std::string> paths(ranges.size()), names(ranges.size());
  for (std::uint32_t k = 0; k < ranges.size(); ++k) {
    names[k] = db::volume_file_name(base + "." + generation, k);
    paths[k] = (dir / names[k]).string();
    if (holds_other_file(paths[k], db::volume_magic))
      throw usage_error("makedb: " + paths[k] + " exists and is not a swat-gpu database volume; refusing to replace it");
  }
  std::vector<char> committed(ranges.size(), 0);  // volumes of this run on disk: removed if it fails
  struct remove_on_failure {
    const std::vector<std::string>& paths;
    const std::vector<char>& committed;
    bool done = false;
    ~remove_on_failure() {
      if (done) return;
      for (std::size_t k = 0; k < paths.size(); ++k)
        if (committed[k]) ::unlink(paths[k].c_str());
    }
  } cleanup{paths, committed};
  std::vector<db::volume_summary> volumes(ranges.size());
  std::vector<std::exception_ptr> failed(ranges.size());
  std::atomic<std::size_t> next{0};
  const auto write_volumes = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < ranges.size();) {
      try {
        output::atomic_file file(paths[k], inputs);
        const std::span<const sequence_record> records(set.records.data() + ranges[k].first, ranges[k].count);
        volumes[k] = db::write_volume(file.stream(), records, set.alphabet, std::uint32_t(k), ranges[k].first, names[k]);
        file.commit();
        committed[k] = 1;
      } catch (...) {
        failed[k] = std::current_exception();
        next.store(ranges.size());  // no more volumes once one failed
      }
    }
  };
  {
    // At most 8 at once: each holds a temporary file that a signal handler removes (8 slots).
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t writers = std::min<std::size_t>({ranges.size(), options.threads ? options.threads : hardware, 8});
    std::vector<std::jthread> running;
    try {
      for (std::size_t w = 1; w < writers; ++w) running.emplace_back(write_volumes);
    } catch (const std::system_error&) {
      // no thread to spare: the rest is written here
    }
    write_volumes();
  }
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  for (const db::volume_summary& v : volumes) result.bytes += v.entry.file_bytes;
  const db::index_totals totals = db::totals_of(std::span<const db::volume_summary>(volumes), set.alphabet, max_volume_bytes);
  {
    output::atomic_file index(result.index_path, inputs);
    db::write_index(index.stream(), totals, volumes);
    index.commit();
  }
  cleanup.done = true;
  if (older)
    for (std::uint32_t k = 0; k < older->volumes.size(); ++k) {
      const std::string path = db::volume_path(*older, k);
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) ::unlink(path.c_str());
    }
  result.sequences = totals.sequences;
  result.residues = totals.residues;
  result.volumes = std::uint32_t(volumes.size());
  result.bytes += db::header_bytes + sizeof totals.composition + volumes.size() * sizeof(db::volume_entry);
  result.write_s = seconds_since(t_write);
  return result;
}

}  // namespace swat::pipeline
