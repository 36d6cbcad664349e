// Safe output files: path resolution (symbolic links, special files, inherited descriptors),
// the same-file check against inputs, the temporary file with the replaced file's mode and
// owner, a descriptor stream buffer that keeps the first write error, and the static registry
// of temporary names that a signal handler may unlink.

#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <streambuf>
#include <vector>

#include "common/error.hpp"

namespace swat::output {
namespace {

//! Symbolic links followed before giving up (the kernel's own limit for a path).
constexpr int max_link_hops = 40;
//! Temporary files registered at once for the signal handler, and the bytes of each name.
constexpr int registry_slots = 8;
constexpr std::size_t registry_name_bytes = 4096 + 64;

// The registry: a slot is free (0), being written (1) or armed (2). Only armed names are
// unlinked by remove_temp_files_signal_safe(), which reads nothing but these statics.
char registry_names[registry_slots][registry_name_bytes];
std::atomic<int> registry_state[registry_slots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free flags");

int register_temp(const std::string& name) {
  if (name.size() >= registry_name_bytes) return -1;
  for (int s = 0; s < registry_slots; ++s) {
    int expected = 0;
    if (!registry_state[s].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(registry_names[s], name.c_str(), name.size() + 1);
    registry_state[s].store(2);
    return s;
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot >= 0) registry_state[slot].store(0);
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  std::string msg = path + ": " + what;
  if (err) msg += std::string(": ") + std::strerror(err);
  throw runtime_failure(msg);
}

// Creating a temporary file and renaming one into place happen inside a section that the signal
// handler waits for, so that the files it removes cannot reappear behind it (another thread's
// rename a moment later); once it has begun, no section begins.
std::atomic<int> sections_in_flight{0};
std::atomic<bool> signal_stopping{false};
thread_local int sections_of_this_thread = 0;  // the handler may run on a thread inside one
static_assert(std::atomic<bool>::is_always_lock_free);

class file_section {
 public:
  explicit file_section(const std::string& path) {
    sections_in_flight.fetch_add(1);
    ++sections_of_this_thread;
    if (signal_stopping.load()) {
      end();
      fail(path, "interrupted by a signal", 0);
    }
  }
  ~file_section() { end(); }
  file_section(const file_section&) = delete;
  file_section& operator=(const file_section&) = delete;

 private:
  void end() noexcept {
    if (ended_) return;
    ended_ = true;
    --sections_of_this_thread;
    sections_in_flight.fetch_sub(1);
  }
  bool ended_ = false;
};

//! In a signal handler: no section begins from now on; waits (at most 2 s) for those of other
//! threads to end.
void stop_sections_signal_safe() noexcept {
  signal_stopping.store(true);
  timespec start {}, now {};
  ::clock_gettime(CLOCK_MONOTONIC, &start);
  while (sections_in_flight.load() > sections_of_this_thread) {
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 2) break;
  }
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

//! N for /dev/stdout (1), /dev/stderr (2), /dev/stdin (0), /dev/fd/N and /proc/self/fd/N:
//! names of a descriptor this process already holds.
std::optional<int> descriptor_of(const std::string& path) {
  if (path == "/dev/stdin") return 0;
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
                                   std::string("/proc/thread-self/fd/"),
                                   "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (path.size() <= prefix.size() || path.size() > prefix.size() + 9 || !path.starts_with(prefix)) continue;
    int n = 0;
    for (std::size_t k = prefix.size(); k < path.size(); ++k) {
      if (path[k] < '0' || path[k] > '9') return std::nullopt;
      n = n * 10 + (path[k] - '0');
    }
    return n;
  }
  return std::nullopt;
}

//! Where an output path leads after symbolic links.
struct resolved_path {
  std::string target;        //!< the final path, or "fd N"
  std::optional<int> fd;     //!< an inherited descriptor
  bool exists = false;
  struct stat info {};       //!< of the target when it exists
};

resolved_path resolve(const std::string& path) {
  std::string p = path;
  for (int hops = 0;; ++hops) {
    resolved_path r;
    if (const auto n = descriptor_of(p)) {
      r.target = "fd " + std::to_string(*n);
      r.fd = *n;
      if (::fstat(*n, &r.info) != 0) fail(path, "descriptor " + std::to_string(*n) + " is not open", errno);
      r.exists = true;
      return r;
    }
    r.target = p;
    if (::lstat(p.c_str(), &r.info) != 0) {
      if (errno == ENOENT) return r;  // a new file (or a dangling link's target)
      fail(path, "cannot use as output", errno);
    }
    r.exists = true;
    if (!S_ISLNK(r.info.st_mode)) return r;
    if (hops == max_link_hops) fail(path, "cannot use as output", ELOOP);
    std::vector<char> link(std::size_t(r.info.st_size > 0 ? r.info.st_size : 255) + 2);
    const ssize_t got = ::readlink(p.c_str(), link.data(), link.size());
    if (got < 0 || std::size_t(got) >= link.size()) fail(path, "cannot read symbolic link " + p, got < 0 ? errno : 0);
    const std::string next(link.data(), std::size_t(got));
    p = next.starts_with('/') ? next : directory_of(p) + "/" + next;
  }
}

//! Throws usage_error when the resolved output is one of the inputs (same device and inode).
void refuse_inputs(const std::string& path, const resolved_path& out, std::span<const std::string> inputs) {
  if (!out.exists) return;
  for (const std::string& input : inputs) {
    struct stat st {};
    if (input.empty() || ::stat(input.c_str(), &st) != 0) continue;
    if (st.st_dev == out.info.st_dev && st.st_ino == out.info.st_ino)
      throw usage_error("output " + path + " is the same file as input " + input +
                        "; refusing to overwrite it (choose another -o)");
  }
}

//! Creates "<target>.tmp.<pid>.<random>" exclusively, registered for the signal handler first.
int create_temp(const std::string& path, const std::string& target, std::string& temp, int& slot) {
  std::random_device seed;
  std::mt19937_64 rng((std::uint64_t(seed()) << 32) ^ seed());
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%08llx", static_cast<long>(::getpid()),
                  static_cast<unsigned long long>(rng() & 0xFFFFFFFFull));
    temp = target + suffix;
    const file_section section(path);
    slot = register_temp(temp);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    const int err = errno;
    unregister_temp(slot);
    slot = -1;
    if (err != EEXIST) fail(path, "cannot create temporary output file " + temp, err);
  }
  fail(path, "cannot find an unused temporary file name", 0);
}

//! Gives the temporary file the owner (where permitted) and mode of the file it replaces.
void copy_owner_and_mode(int fd, const struct stat& old, const std::string& path) {
  bool same_owner = old.st_uid == ::geteuid() && old.st_gid == ::getegid();
  if (!same_owner) {
    same_owner = ::fchown(fd, old.st_uid, old.st_gid) == 0;
    if (!same_owner) (void)::fchown(fd, static_cast<uid_t>(-1), old.st_gid);  // the group at least
  }
  // Set-id bits only stay with their owner.
  const mode_t mode = old.st_mode & (same_owner ? 07777 : 01777);
  if (::fchmod(fd, mode) != 0) fail(path, "cannot set the mode of the temporary output file", errno);
}

}  // namespace

//! A std::streambuf over a file descriptor that remembers the first write error (errno).
class atomic_file::fd_buffer : public std::streambuf {
 public:
  explicit fd_buffer(int fd) : fd_(fd), buffer_(std::size_t(1) << 16) { reset(); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (std::size_t(n) < buffer_.size()) return std::streambuf::xsputn(s, n);
    return drain() && write_all(s, std::size_t(n)) ? n : 0;
  }

 private:
  void reset() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  bool drain() {
    const bool ok = write_all(pbase(), std::size_t(pptr() - pbase()));
    reset();
    return ok;
  }
  bool write_all(const char* p, std::size_t n) {
    while (n > 0 && error_ == 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        error_ = w < 0 ? errno : EIO;
        break;
      }
      p += w;
      n -= std::size_t(w);
    }
    return error_ == 0;
  }

  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

atomic_file::atomic_file(std::string path, std::span<const std::string> inputs) : path_(std::move(path)) {
  if (path_.empty()) throw usage_error("the output path is empty");
  const resolved_path r = resolve(path_);
  target_ = r.target;
  const std::string shown = target_ == path_ ? path_ : path_ + " (-> " + target_ + ")";
  if (r.exists && S_ISDIR(r.info.st_mode)) fail(shown, "is a directory, cannot write output there", 0);
  refuse_inputs(path_, r, inputs);
  if (r.fd) {
    mode_ = output_mode::in_place;
    inherited_fd_ = *r.fd;
    const int flags = ::fcntl(inherited_fd_, F_GETFL);
    if (flags < 0 || ((flags & O_ACCMODE) != O_WRONLY && (flags & O_ACCMODE) != O_RDWR))
      fail(shown, "descriptor is not open for writing", flags < 0 ? errno : 0);
    return;
  }
  if (r.exists && !S_ISREG(r.info.st_mode)) {
    mode_ = output_mode::in_place;  // FIFO, device, socket: write into it, never replace it
    if (::faccessat(AT_FDCWD, target_.c_str(), W_OK, AT_EACCESS) != 0) fail(shown, "cannot write output", errno);
    return;
  }
  // A regular file is replaced only where it could be written in place: a read-only file stays.
  if (r.exists && ::faccessat(AT_FDCWD, target_.c_str(), W_OK, AT_EACCESS) != 0) {
    const int err = errno;
    fail(shown, err == EACCES ? "cannot write output: the file is read-only (left unchanged)" : "cannot write output",
         err == EACCES ? 0 : err);
  }
  fd_ = create_temp(shown, target_, temp_path_, registry_slot_);
  try {
    if (r.exists) copy_owner_and_mode(fd_, r.info, shown);
  } catch (...) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
    unregister_temp(registry_slot_);
    throw;
  }
  buffer_ = std::make_unique<fd_buffer>(fd_);
  out_ = std::make_unique<std::ostream>(buffer_.get());
}

atomic_file::~atomic_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
  unregister_temp(registry_slot_);
}

void atomic_file::open_in_place() {
  if (inherited_fd_ >= 0) {
    fd_ = ::fcntl(inherited_fd_, F_DUPFD_CLOEXEC, 3);
  } else {
    do fd_ = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    while (fd_ < 0 && errno == EINTR);
  }
  if (fd_ < 0) fail(path_, "cannot open output", errno);
}

std::ostream& atomic_file::stream() {
  if (!out_) {
    open_in_place();
    buffer_ = std::make_unique<fd_buffer>(fd_);
    out_ = std::make_unique<std::ostream>(buffer_.get());
  }
  return *out_;
}

void atomic_file::commit() {
  if (committed_) throw std::logic_error("atomic_file::commit called twice for " + path_);
  std::ostream& out = stream();
  out.flush();
  if (buffer_->error() != 0) fail(path_, "write failed", buffer_->error());
  if (!out) fail(path_, "write failed (disk full or I/O error)", 0);
  if (mode_ == output_mode::replace && ::fsync(fd_) != 0) fail(path_, "fsync failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && mode_ == output_mode::replace) fail(path_, "close failed", errno);
  if (mode_ == output_mode::in_place) {
    committed_ = true;
    return;
  }
  {
    const file_section section(path_);
    if (::rename(temp_path_.c_str(), target_.c_str()) != 0)
      fail(path_, "cannot rename " + temp_path_ + " over " + target_, errno);
  }
  committed_ = true;
  unregister_temp(registry_slot_);
  registry_slot_ = -1;

  // Make the rename itself durable; failure here leaves a complete file, so it is not fatal.
  const int dir = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

namespace {
// The held remove_on_signal set: its names (nullptr: none) and how many.
std::atomic<const char* const*> finished_names{nullptr};
std::atomic<std::size_t> finished_count{0};
std::atomic<bool> finished_taken{false};
}  // namespace

remove_on_signal::remove_on_signal(std::span<const std::string> paths) : paths_(paths.begin(), paths.end()) {
  if (paths_.empty() || finished_taken.exchange(true)) return;
  for (const std::string& p : paths_) names_.push_back(p.c_str());
  finished_count.store(names_.size());
  finished_names.store(names_.data());
  held_ = true;
}

void remove_on_signal::release() noexcept {
  if (!held_) return;
  finished_names.store(nullptr);
  finished_count.store(0);
  finished_taken.store(false);
  held_ = false;
}

void stop_new_files_signal_safe() noexcept { stop_sections_signal_safe(); }

void remove_temp_files_signal_safe() noexcept {
  for (int s = 0; s < registry_slots; ++s)
    if (registry_state[s].load() == 2) ::unlink(registry_names[s]);
  if (const char* const* names = finished_names.load()) {
    const std::size_t n = finished_count.load();
    for (std::size_t k = 0; k < n; ++k) ::unlink(names[k]);
  }
}

}  // namespace swat::output
