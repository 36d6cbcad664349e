// Pieces of a large plain FASTA file read in parallel (see fasta_parallel.hpp).

#include "io/fasta_parallel.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

namespace swat::io::detail {
namespace {

//! Bytes read per pread, as the sequential reader's chunks.
constexpr std::size_t block_bytes = std::size_t(1) << 20;
//! Bytes looked at per pread while searching a record start.
constexpr std::size_t probe_bytes = std::size_t(1) << 16;

//! A read-only descriptor, closed on scope exit (each thread opens its own).
class file_handle {
 public:
  explicit file_handle(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~file_handle() {
    if (fd_ >= 0) ::close(fd_);
  }
  file_handle(const file_handle&) = delete;
  file_handle& operator=(const file_handle&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

//! pread that retries on EINTR; the bytes read (0 at the end), or -1 on an error.
ssize_t read_at(int fd, char* out, std::size_t n, std::uint64_t at) {
  for (;;) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(at));
    if (got >= 0 || errno != EINTR) return got;
  }
}

//! Feeds bytes [begin, end) of path to feed(std::string_view) in blocks; throws when the file
//! cannot be opened or ends early (it changed).
template <typename F>
void read_range(const std::string& path, std::uint64_t begin, std::uint64_t end, F&& feed) {
  const file_handle f(path);
  if (f.fd() < 0) throw std::runtime_error("cannot open");
  std::vector<char> buf(static_cast<std::size_t>(std::min<std::uint64_t>(block_bytes, end - begin)));
  for (std::uint64_t at = begin; at < end;) {
    const ssize_t got = read_at(f.fd(), buf.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), end - at)), at);
    if (got <= 0) throw std::runtime_error("short read");
    feed(std::string_view(buf.data(), static_cast<std::size_t>(got)));
    at += static_cast<std::uint64_t>(got);
  }
}

//! Offset of the first '>' at or after `from` (≥ 1) whose previous byte is '\n', or `end` when
//! there is none before `end`.
std::uint64_t next_record_start(int fd, std::uint64_t from, std::uint64_t end) {
  std::vector<char> buf(probe_bytes);
  for (std::uint64_t at = from - 1; at + 1 < end;) {  // buf[0] is the byte before the candidate
    const ssize_t got = read_at(fd, buf.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), end - at)), at);
    if (got < 2) return end;
    const char* const begin = buf.data();
    const char* const last = begin + got - 1;  // a '\n' here needs the next block's first byte
    for (const char* p = begin; p < last;) {
      p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(last - p)));
      if (p == nullptr) break;
      if (p[1] == '>') return at + static_cast<std::uint64_t>(p + 1 - begin);
      ++p;
    }
    at += static_cast<std::uint64_t>(got) - 1;  // the last byte is the next block's "previous"
  }
  return end;
}

//! Runs body(k) for every piece k, piece 0 on the calling thread; false when a body threw or
//! a thread could not be started.
template <typename F>
bool run_pieces(int n, F&& body) {
  std::vector<char> ok(static_cast<std::size_t>(n), 0);
  const auto run = [&](int k) {
    try {
      body(k);
      ok[static_cast<std::size_t>(k)] = 1;
    } catch (...) {  // the sequential reader says what is wrong
    }
  };
  std::vector<std::thread> threads;
  bool started = true;
  try {
    for (int k = 1; k < n; ++k) threads.emplace_back(run, k);
  } catch (const std::system_error&) {
    started = false;
  }
  if (started) run(0);
  for (auto& t : threads) t.join();
  return started && std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
}

}  // namespace

int parallel_pieces(std::uint64_t bytes, unsigned max_threads) {
  if (bytes < parallel_min_bytes) return 1;
  const std::uint64_t hw = max_threads != 0 ? max_threads : std::thread::hardware_concurrency();
  if (hw < 2) return 1;
  return static_cast<int>(std::min<std::uint64_t>({hw, parallel_max_pieces, bytes / parallel_min_piece_bytes}));
}

piece_reader::piece_reader(std::string path, std::uint64_t bytes, int pieces) : path_(std::move(path)) {
  starts_.push_back(0);
  const file_handle f(path_);
  if (f.fd() >= 0) {
    for (int k = 1; k < pieces; ++k) {
      const std::uint64_t guess = bytes * static_cast<std::uint64_t>(k) / static_cast<std::uint64_t>(pieces);
      if (guess <= starts_.back()) continue;
      const std::uint64_t s = next_record_start(f.fd(), guess, bytes);
      if (s >= bytes) break;  // no record starts after guess: none after the later guesses either
      starts_.push_back(s);
    }
  }
  starts_.push_back(bytes);
}

bool piece_reader::scan() {
  const int n = pieces();
  piece_records_.assign(static_cast<std::size_t>(n), {});
  std::vector<std::array<std::uint64_t, 256>> counts(static_cast<std::size_t>(n));
  const bool ok = run_pieces(n, [&](int k) {
    const auto piece = static_cast<std::size_t>(k);
    fasta_scan scan(path_);
    read_range(path_, starts_[piece], starts_[piece + 1], [&](std::string_view b) { scan.feed(b); });
    scan.finish();
    piece_records_[piece] = scan.take_records();
    counts[piece] = scan.residue_counts();
  });
  if (!ok) return false;
  records_.clear();
  first_record_.clear();
  counts_.fill(0);
  for (std::size_t k = 0; k < piece_records_.size(); ++k) {
    first_record_.push_back(records_.size());
    // The headers move (a piece's encoder needs only the residue counts: its errors are never
    // shown, the sequential reader reports them), which saves a copy of every header.
    records_.insert(records_.end(), std::make_move_iterator(piece_records_[k].begin()),
                    std::make_move_iterator(piece_records_[k].end()));
    for (std::size_t c = 0; c < 256; ++c) counts_[c] += counts[k][c];
  }
  return true;
}

bool piece_reader::encode(const std::array<std::uint8_t, 256>& table, const std::string& alphabet_what) {
  // One arena for every record's ranks, end to end in file order; each piece writes its own part.
  at_.assign(records_.size() + 1, 0);
  for (std::size_t r = 0; r < records_.size(); ++r) at_[r + 1] = at_[r] + records_[r].residues;
  arena_ = residue_arena(at_.back());
  const bool ok = run_pieces(pieces(), [&](int k) {
    const auto piece = static_cast<std::size_t>(k);
    std::uint8_t* out = arena_.get() + at_[first_record_[piece]];
    fasta_encoder encoder(path_, table, alphabet_what, piece_records_[piece], [](std::size_t) {}, out);
    read_range(path_, starts_[piece], starts_[piece + 1], [&](std::string_view b) { encoder.feed(b); });
    encoder.finish();
  });
  // A file that grew while it was read holds bytes no piece saw: the sequential reader decides.
  struct stat st {};
  return ok && ::stat(path_.c_str(), &st) == 0 && std::uint64_t(st.st_size) == starts_.back();
}

residue_store piece_reader::take(std::size_t r) {
  return residue_store::writable_view_of({arena_.get() + at_[r], std::size_t(at_[r + 1] - at_[r])});
}

}  // namespace swat::io::detail
