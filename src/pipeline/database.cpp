// A search's database, FASTA or prepared, and `swat-gpu makedb` (database.hpp).

#include "pipeline/database.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>
#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>

#include "common/error.hpp"
#include "db/checksum.hpp"
#include "db/writer.hpp"
#include "engine/plan.hpp"
#include "output/atomic_file.hpp"

namespace swat::pipeline {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

//! Why makedb must not replace what is at path ("" when nothing is there or a regular file that
//! starts with magic): never a symbolic link, a FIFO, a device or someone's file. Nothing is
//! followed or waited on (lstat, then a non-blocking open that refuses a link).
std::string replace_refusal(const std::string& path, std::string_view magic, const char* what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    return path + ": " + std::strerror(errno);
  }
  if (S_ISLNK(st.st_mode))
    return path + " is a symbolic link; refusing to replace it (give the PREFIX of the file it names, or choose another PREFIX)";
  const std::string other = path + " exists and is not a swat-gpu database " + what + "; refusing to replace it (choose another PREFIX)";
  if (!S_ISREG(st.st_mode)) return other;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return other;
  char head[8] = {};
  const ssize_t n = ::read(fd, head, sizeof head);
  ::close(fd);
  return n == ssize_t(magic.size()) && std::string_view(head, std::size_t(n)) == magic ? "" : other;
}

//! The header of the swat-gpu volume at path: a regular file (not a link; never waited on) whose
//! first 128 bytes have the volume magic and a matching header checksum. nullopt: anything else.
std::optional<db::volume_header> volume_header_at(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  db::volume_header h {};
  const ssize_t n = ::read(fd, &h, sizeof h);
  ::close(fd);
  if (n != ssize_t(sizeof h) || std::string_view(h.magic, 8) != db::volume_magic ||
      db::checksum_of({reinterpret_cast<const unsigned char*>(&h), db::header_checksum_bytes}) != h.header_checksum)
    return std::nullopt;
  return h;
}

//! Whether name is base.<6 hex>.<digits>.swdbv, or its temporary file (+ ".tmp.<anything>").
bool is_volume_name_of(const std::string& name, const std::string& base) {
  if (!name.starts_with(base + ".")) return false;
  std::string_view rest = std::string_view(name).substr(base.size() + 1);
  if (rest.size() < 8 || rest[6] != '.') return false;
  for (int i = 0; i < 6; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(rest[i]))) return false;
  rest.remove_prefix(7);
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits < 3) return false;
  rest.remove_prefix(digits);
  if (!rest.starts_with(db::volume_suffix)) return false;
  rest.remove_prefix(db::volume_suffix.size());
  return rest.empty() || rest.starts_with(".tmp.");
}

//! Volume file names that the indexes in dir other than skip list (a copied index's volumes
//! are kept). Unreadable indexes list nothing.
std::set<std::string> listed_volumes(const std::filesystem::path& dir, const std::string& skip) {
  std::set<std::string> listed;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(db::index_suffix) || name == skip) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    try {
      const db::database_index other = db::read_index(it->path().string());
      for (std::uint32_t k = 0; k < other.volumes.size(); ++k)
        listed.insert(std::filesystem::path(db::volume_path(other, k)).filename().string());
    } catch (const input_error&) {
      // not an index: lists nothing
    }
  }
  return listed;
}

//! makedb's lock on PREFIX's directory (flock): shared while a run writes its volumes; the
//! removal of stale volumes (ones no index lists) needs it exclusive, so it never removes those
//! of another makedb still running there. Without locking (a file system that has none) no
//! stale volume is removed.
class directory_lock {
 public:
  explicit directory_lock(const std::filesystem::path& dir) {
    fd_ = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) return;
    // Another run holds it exclusive only while it removes stale files (moments).
    for (int tries = 0; ::flock(fd_, LOCK_SH | LOCK_NB) != 0; ++tries) {
      if (errno != EWOULDBLOCK || tries == 3000) {
        if (errno == EWOULDBLOCK)
          throw runtime_failure(dir.string() + ": another swat-gpu makedb holds this directory; try again");
        ::close(std::exchange(fd_, -1));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~directory_lock() {
    if (fd_ >= 0) ::close(fd_);
  }
  directory_lock(const directory_lock&) = delete;
  directory_lock& operator=(const directory_lock&) = delete;
  //! Whether this run alone writes here now (it then holds the lock exclusive).
  bool exclusive() { return fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0; }

 private:
  int fd_ = -1;
};

//! Six hex digits that name this run's volumes.
std::string generation_token() {
  std::random_device seed;
  char token[16];
  std::snprintf(token, sizeof token, "%06x", unsigned(seed() ^ (unsigned(::getpid()) << 8)) & 0xffffffu);
  return token;
}

}  // namespace

bool same_fasta_file(const std::string& path, const std::string& db) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || !std::filesystem::is_regular_file(db, ec)) return false;
  if (!std::filesystem::equivalent(path, db, ec) || ec) return false;
  return !db::prepared_index_path(db);
}

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

database_hint database_size_hint(const std::string& db) {
  try {
    if (const std::optional<std::string> index = db::prepared_index_path(db)) {
      const db::database_index parsed = db::read_index(*index);
      return {parsed.residues, parsed.sequences, parsed.alphabet == alphabet_kind::protein, true};
    }
  } catch (const input_error&) {
    return {};  // reading it says what is wrong
  }
  const file_sample sample = sample_sequences(db);
  return {sample.residues, sample.records, sample.protein, sample.letters_seen};
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

namespace {

//! After a new index at dir/base.swdb (listing kept): removes the volumes of the index it
//! replaced (older), each only when its name is base.* and its header is the one older lists;
//! and, when exclusive (no other makedb runs in dir), the stale volumes of base that no index
//! lists: base.<6 hex>.NNN.swdbv and their temporary files left by a run that was killed, each
//! only when its header is a swat-gpu volume's. A volume another index in dir lists is kept.
void remove_replaced_volumes(const std::optional<db::database_index>& older, const std::filesystem::path& dir,
                             const std::string& base, const std::string& index_path,
                             const std::vector<std::string>& kept, bool exclusive) {
  const std::string index_name = std::filesystem::path(index_path).filename().string();
  std::set<std::string> keep = listed_volumes(dir, index_name);
  keep.insert(kept.begin(), kept.end());
  if (older)
    for (std::uint32_t k = 0; k < older->volumes.size(); ++k) {
      const std::string path = (dir / std::filesystem::path(db::volume_path(*older, k)).filename()).string();
      const std::string name = std::filesystem::path(path).filename().string();
      if (!name.starts_with(base + ".") || keep.contains(name)) continue;
      const std::optional<db::volume_header> h = volume_header_at(path);
      if (h && h->header_checksum == older->volumes[k].header_checksum &&
          h->body_checksum == older->volumes[k].body_checksum)
        ::unlink(path.c_str());
    }
  if (!exclusive) return;
  std::error_code ec;
  std::vector<std::filesystem::path> stale;
  for (std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_volume_name_of(name, base) && !keep.contains(name) && volume_header_at(it->path().string()))
      stale.push_back(it->path());
  }
  for (const std::filesystem::path& p : stale) ::unlink(p.c_str());
}

}  // namespace

void leave_for_exit(sequence_set set) {
  static std::mutex guard;
  static auto* const left = new std::vector<sequence_set>();  // never freed: the process reclaims it
  const std::lock_guard<std::mutex> lock(guard);
  left->push_back(std::move(set));
}

makedb_result make_database(const makedb_options& options, const io::warning_fn& warn) {
  const auto start = clock_type::now();
  makedb_result result;
  if (options.prefix.empty()) throw usage_error("makedb: PREFIX is empty");
  result.index_path = options.prefix + std::string(db::index_suffix);
  if (const std::string why = replace_refusal(result.index_path, db::index_magic, "index"); !why.empty())
    throw usage_error("makedb: " + why);
  // An older database at this PREFIX: its volumes go once the new index has replaced it.
  std::optional<db::database_index> older;
  try {
    struct stat st {};
    if (::lstat(result.index_path.c_str(), &st) == 0) older = db::read_index(result.index_path);
  } catch (const input_error&) {
    // a damaged older index: replaced; its volumes are stale ones (removed below when unlisted)
  }
  const std::uint64_t max_volume_bytes = options.max_volume_bytes ? options.max_volume_bytes : db::default_volume_bytes;
  const std::filesystem::path prefix_path(options.prefix);
  const std::string base = prefix_path.filename().string();
  if (base.empty() || base == "." || base == "..")
    throw usage_error("makedb: PREFIX " + options.prefix + " names a directory; give a file name prefix (DIR/NAME)");
  if (db::volume_file_name(base + "." + generation_token(), 0).size() + 1 >= db::volume_name_bytes)  // room for 4-digit numbers
    throw usage_error("makedb: the file name of PREFIX (" + base + ") is longer than " +
                      std::to_string(db::volume_name_bytes - 2 - db::volume_file_name(".000000", 0).size()) +
                      " bytes; choose a shorter one");

  sequence_set set = io::read_fasta(options.fasta_path, options.alphabet, warn, options.threads);
  if (set.records.empty()) throw input_error(options.fasta_path, "no sequences to write into a database");
  result.read_s = seconds_since(start);
  const auto t_write = clock_type::now();
  result.alphabet = set.alphabet;

  const std::vector<db::volume_range> ranges = db::plan_volumes(set.records, max_volume_bytes);
  const std::filesystem::path dir = prefix_path.parent_path();
  const std::string inputs[] = {options.fasta_path};
  directory_lock lock(dir);

  // Volumes are written on up to `threads` threads at once (each its own file), the index last,
  // under names where nothing is (a generation whose names are all free).
  std::vector<std::string> paths(ranges.size()), names(ranges.size());
  for (int attempt = 0;; ++attempt) {
    const std::string generation = generation_token();
    bool free = true;
    for (std::uint32_t k = 0; k < ranges.size(); ++k) {
      names[k] = db::volume_file_name(base + "." + generation, k);
      paths[k] = (dir / names[k]).string();
      struct stat st {};
      if (free && ::lstat(paths[k].c_str(), &st) == 0) free = false;
    }
    if (free) break;
    if (attempt == 64) throw runtime_failure("makedb: no free volume names for " + options.prefix + " (" + paths[0] + " exists)");
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
  // A signal (Ctrl-C, SIGTERM) before the index lists them removes the finished volumes too.
  output::remove_on_signal on_signal(paths);
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
    index.stream().flush();
    on_signal.release();  // a signal from here on leaves them (a later makedb removes them if no index lists them)
    index.commit();
  }
  cleanup.done = true;
  remove_replaced_volumes(older, dir, base, result.index_path, names, lock.exclusive());
  result.sequences = totals.sequences;
  result.residues = totals.residues;
  result.volumes = std::uint32_t(volumes.size());
  result.bytes += db::header_bytes + sizeof totals.composition + volumes.size() * sizeof(db::volume_entry);
  result.write_s = seconds_since(t_write);
  if (options.process_ends_after) leave_for_exit(std::move(set));
  return result;
}

}  // namespace swat::pipeline
