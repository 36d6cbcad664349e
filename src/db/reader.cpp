// Reading a prepared database (reader.hpp).

#include "db/reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include "common/error.hpp"
#include "common/host_pages.hpp"
#include "db/checksum.hpp"

namespace swat::db {
namespace {

using clock_type = std::chrono::steady_clock;

std::string num(std::uint64_t v) { return std::to_string(v); }

bool starts_with(std::span<const unsigned char> bytes, std::string_view magic) {
  return bytes.size() >= magic.size() && std::memcmp(bytes.data(), magic.data(), magic.size()) == 0;
}

//! The first 8 bytes of a file (fewer when it is shorter); empty when it cannot be read.
std::string first_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  char buf[8];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

//! An open descriptor of the regular file at path. O_NONBLOCK: a FIFO in a file's place is
//! refused instead of waiting for a writer. Throws input_error; err (when given) receives the
//! open's errno instead of throwing for it.
int open_regular(const std::string& path, int* err = nullptr) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (err) {
      *err = errno;
      return -1;
    }
    throw input_error(path, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw input_error(path, "not a regular file");
  }
  return fd;
}

//! How many descriptors a reader may hold open at once for wanted volumes: half the process's
//! limit, raised towards its hard limit when wanted needs it.
std::size_t descriptors_to_spare(std::size_t wanted) {
  rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  const rlim_t need = rlim_t(wanted) * 2 + 256;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < need && (limit.rlim_max == RLIM_INFINITY || limit.rlim_max > limit.rlim_cur)) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY ? need : std::min(need, limit.rlim_max);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? wanted : std::size_t(limit.rlim_cur / 2);
}

//! A whole file mapped read-only (or empty); unmapped with the object.
class mapped_file {
 public:
  explicit mapped_file(const std::string& path) : mapped_file(open_regular(path), path) {}
  //! Maps the regular file open at fd (closed here).
  mapped_file(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw input_error(path, "not a regular file");
    }
    size_ = std::size_t(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        const int e = errno;
        ::close(fd);
        throw input_error(path, std::string("cannot map: ") + std::strerror(e));
      }
      data_ = static_cast<const unsigned char*>(p);
      ::madvise(p, size_, MADV_SEQUENTIAL);
      host_pages::add_releasable(p, size_);  // read-only and never written: its pages may be dropped
    }
    ::close(fd);
  }
  ~mapped_file() {
    if (data_) {
      host_pages::remove_releasable(data_);
      ::munmap(const_cast<unsigned char*>(data_), size_);
    }
  }
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  std::span<const unsigned char> bytes() const { return {data_, size_}; }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

//! Descriptors of files opened ahead (-1: not open); the open ones are closed with the object.
struct open_files {
  std::vector<int> fds;
  ~open_files() { close_all(); }
  void close_all() {
    for (int& fd : fds)
      if (fd >= 0) ::close(std::exchange(fd, -1));
  }
};

//! The common checks of a file's first 128 bytes: size, magic, version, header checksum, size
//! field. what: "index" or "volume". Returns the header.
template <class header_t>
header_t check_header(std::span<const unsigned char> bytes, const std::string& name, std::string_view magic,
                      std::string_view other_magic, const char* what, const char* other_hint,
                      bool body_checksum = true) {
  if (starts_with(bytes, other_magic)) throw input_error(name, std::string("is a ") + other_hint);
  if (!starts_with(bytes, magic)) {
    if (bytes.size() < magic.size() && std::memcmp(bytes.data(), magic.data(), bytes.size()) == 0)
      throw input_error(name, "truncated: " + num(bytes.size()) + " bytes, less than a database " + what + "'s header");
    throw input_error(name, std::string("not a swat-gpu database ") + what + " (made by swat-gpu makedb)");
  }
  if (bytes.size() < header_bytes)
    throw input_error(name, "truncated: " + num(bytes.size()) + " bytes, less than a database " + what + "'s header");
  header_t h;
  std::memcpy(&h, bytes.data(), sizeof h);
  // The version first: a newer writer may have changed what the checksum covers.
  if (h.version > format_version)
    throw input_error(name, "database format version " + num(h.version) + " is newer than this swat-gpu reads (" +
                                num(format_version) + "); update swat-gpu or run its makedb again");
  if (checksum_of(bytes.first(header_checksum_bytes)) != h.header_checksum)
    throw input_error(name, std::string("corrupted: the ") + what + " header's checksum does not match");
  if (h.version == 0 || h.header_size != header_bytes || h.alphabet > 1)
    throw input_error(name, std::string("corrupted: the ") + what + " header is inconsistent");
  if (bytes.size() < h.file_bytes)
    throw input_error(name, "truncated: " + num(bytes.size()) + " of " + num(h.file_bytes) + " bytes");
  if (bytes.size() > h.file_bytes)
    throw input_error(name, "corrupted: " + num(bytes.size() - h.file_bytes) + " bytes after the end of the " + what);
  if (body_checksum && checksum_of(bytes.subspan(header_bytes)) != h.body_checksum)
    throw input_error(name, std::string("corrupted: the ") + what + "'s checksum does not match its contents");
  return h;
}

std::string fixed_text(const char* field, std::size_t bytes) { return std::string(field, strnlen(field, bytes)); }

bool all_zero(const std::uint8_t* p, std::size_t n) {
  return std::all_of(p, p + n, [](std::uint8_t b) { return b == 0; });
}

//! Reads the u64 at a (unaligned-safe).
std::uint64_t u64_at(const unsigned char* a) {
  std::uint64_t v;
  std::memcpy(&v, a, 8);
  return v;
}

}  // namespace

std::optional<std::string> prepared_index_path(const std::string& db) {
  if (db.empty() || db == "-") return std::nullopt;
  if (is_regular_file(db)) {
    const std::string head = first_bytes(db);
    if (head == index_magic) return db;
    if (head == volume_magic)
      throw input_error(db, "is a volume of a prepared database; give the database's PREFIX (its .swdb index)");
    return std::nullopt;
  }
  std::error_code ec;
  if (std::filesystem::exists(db, ec)) return std::nullopt;  // a directory, a FIFO: the FASTA reader's message
  const std::string index = db + std::string(index_suffix);
  if (is_regular_file(index)) return index;
  return std::nullopt;
}

database_index parse_index(std::span<const unsigned char> bytes, const std::string& name) {
  const auto h = check_header<index_header>(bytes, name, index_magic, volume_magic, "index",
                                            "volume of a prepared database; give the database's PREFIX (its .swdb index)");
  if (!all_zero(h.reserved0, sizeof h.reserved0) || !all_zero(h.reserved1, sizeof h.reserved1) ||
      h.file_bytes != header_bytes + composition_ranks * 8 + std::uint64_t(h.volumes) * sizeof(volume_entry))
    throw input_error(name, "corrupted: the index header is inconsistent");
  database_index index;
  index.path = name;
  index.directory = std::filesystem::path(name).parent_path().string();
  index.alphabet = h.alphabet == 0 ? alphabet_kind::dna : alphabet_kind::protein;
  index.version = h.version;
  index.tool_version = fixed_text(h.tool_version, sizeof h.tool_version);
  index.sequences = h.sequences;
  index.residues = h.residues;
  index.longest = h.longest;
  index.max_volume_bytes = h.max_volume_bytes;
  const unsigned char* body = bytes.data() + header_bytes;
  std::uint64_t composed = 0;
  const int ranks = index.alphabet == alphabet_kind::dna ? dna_size : protein_size;
  for (std::uint32_t r = 0; r < composition_ranks; ++r) {
    index.composition[r] = u64_at(body + 8 * r);
    if (int(r) >= ranks && index.composition[r] != 0) throw input_error(name, "corrupted: a residue count outside the alphabet");
    composed += index.composition[r];
    if (composed < index.composition[r]) throw input_error(name, "corrupted: the residue counts overflow");
  }
  index.volumes.resize(h.volumes);
  std::uint64_t sequences = 0, residues = 0;
  for (std::uint32_t k = 0; k < h.volumes; ++k) {
    volume_entry& e = index.volumes[k];
    std::memcpy(&e, body + composition_ranks * 8 + std::size_t(k) * sizeof(volume_entry), sizeof e);
    const std::string file = fixed_text(e.name, sizeof e.name);
    if (e.name[volume_name_bytes - 1] != 0 || file.empty() || file == "." || file == ".." ||
        file.find('/') != std::string::npos || e.sequences == 0 || e.residues < e.sequences)
      throw input_error(name, "corrupted: volume entry " + num(k + 1) + " is inconsistent");
    sequences += e.sequences;
    residues += e.residues;
    if (sequences < e.sequences || residues < e.residues) throw input_error(name, "corrupted: the volume counts overflow");
  }
  if (h.sequences == 0 || h.volumes == 0) throw input_error(name, "corrupted: the database has no sequences");
  if (sequences != h.sequences || residues != h.residues || composed != h.residues || h.longest == 0 ||
      h.longest > max_sequence_residues || h.longest > h.residues)
    throw input_error(name, "corrupted: the index's counts disagree with its volumes");
  return index;
}

database_index read_index(const std::string& path) {
  database_index index;
  {
    const mapped_file file(path);
    index = parse_index(file.bytes(), path);
  }
  // An index reached through a symbolic link: its volumes are beside the file it names.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(path, ec);
    if (!ec) index.directory = real.parent_path().string();
  }
  return index;
}

namespace {

//! A volume whose header, index entry and layout were checked (its body checksum and its
//! records not yet).
struct volume_view {
  volume_header h;
  const unsigned char* base = nullptr;
  std::uint64_t text_bytes = 0;
  std::uint8_t ranks = 0;
  std::uint64_t longest = 0;
};

volume_view check_volume(std::span<const unsigned char> bytes, const std::string& name, const database_index& index,
                         std::uint32_t k, std::uint64_t first_sequence, bool body_checksum) {
  volume_view v;
  v.h = check_header<volume_header>(bytes, name, volume_magic, index_magic, "volume",
                                    "database index, not one of its volumes", body_checksum);
  const volume_header& h = v.h;
  const volume_entry& e = index.volumes.at(k);
  if (h.alphabet != std::uint8_t(index.alphabet) || h.volume != k || h.first_sequence != first_sequence ||
      h.sequences != e.sequences || h.residues != e.residues || h.file_bytes != e.file_bytes ||
      h.body_checksum != e.body_checksum || h.header_checksum != e.header_checksum)
    throw input_error(name, "does not belong to " + index.path + " (volume " + num(k + 1) + " of " +
                                num(index.volumes.size()) + " differs from what the index lists; run makedb again)");
  const std::uint64_t n = h.sequences, size = bytes.size();
  // Sizes first (no arithmetic below can overflow once these hold), then the layout.
  if (!all_zero(h.reserved0, sizeof h.reserved0) || h.reserved1 != 0 || n == 0 || n > size / 24 || h.residues > size ||
      h.residue_index_at != header_bytes || h.residues_at != align_section(h.residue_index_at + 8 * (n + 1)) ||
      h.text_index_at != align_section(h.residues_at + h.residues) ||
      h.text_at != align_section(h.text_index_at + 8 * (2 * n + 1)) || h.text_at > size)
    throw input_error(name, "corrupted: the volume's layout is inconsistent");
  v.base = bytes.data();
  v.text_bytes = size - h.text_at;
  if (u64_at(v.base + h.residue_index_at) != 0 || u64_at(v.base + h.residue_index_at + 8 * n) != h.residues ||
      u64_at(v.base + h.text_index_at) != 0 || u64_at(v.base + h.text_index_at + 16 * n) != v.text_bytes)
    throw input_error(name, "corrupted: the volume's offsets are inconsistent");
  v.ranks = index.alphabet == alphabet_kind::dna ? dna_size : protein_size;
  v.longest = index.longest;
  return v;
}

//! One record of a checked volume.
struct record_view {
  std::string_view name, description;
  residue_span residues;
};

//! Checks record i of v; the reason when it is damaged ("" when it is not).
const char* check_record(const volume_view& v, std::uint64_t i, record_view& r) {
  const unsigned char* residue_index = v.base + v.h.residue_index_at;
  const unsigned char* text_index = v.base + v.h.text_index_at;
  const std::uint64_t r0 = u64_at(residue_index + 8 * i), r1 = u64_at(residue_index + 8 * (i + 1));
  const std::uint64_t t0 = u64_at(text_index + 16 * i), t1 = u64_at(text_index + 16 * i + 8),
                      t2 = u64_at(text_index + 16 * i + 16);
  if (r1 <= r0 || r1 > v.h.residues || r1 - r0 > v.longest || t1 <= t0 || t2 < t1 || t2 > v.text_bytes)
    return "offsets are inconsistent";
  r.residues = residue_span(v.base + v.h.residues_at + r0, r1 - r0);
  std::uint8_t top = 0;
  for (const std::uint8_t c : r.residues) top = std::max(top, c);
  if (top >= v.ranks) return "residues are outside the alphabet";
  const char* text = reinterpret_cast<const char*>(v.base + v.h.text_at);
  r.name = std::string_view(text + t0, t1 - t0);
  r.description = std::string_view(text + t1, t2 - t1);
  if (std::any_of(r.name.begin(), r.name.end(), [](char c) { return (unsigned char)c <= 0x20 || c == 0x7f; }) ||
      std::any_of(r.description.begin(), r.description.end(),
                  [](char c) { return ((unsigned char)c < 0x20 && c != '\t') || c == 0x7f; }))
    return "name or description holds a control byte";
  return "";
}

[[noreturn]] void throw_record(const std::string& name, std::uint64_t record, const char* why) {
  throw input_error(name, "corrupted: record " + num(record) + ": " + why);
}

}  // namespace

void parse_volume(std::span<const unsigned char> bytes, const std::string& name, const database_index& index,
                  std::uint32_t k, std::uint64_t first_sequence, const record_fn& add) {
  const volume_view v = check_volume(bytes, name, index, k, first_sequence, false);
  if (checksum_of(bytes.subspan(header_bytes)) != v.h.body_checksum)
    throw input_error(name, "corrupted: the volume's checksum does not match its contents");
  record_view r;
  for (std::uint64_t i = 0; i < v.h.sequences; ++i) {
    if (const char* why = check_record(v, i, r); *why) throw_record(name, first_sequence + i + 1, why);
    add(r.name, r.description, r.residues);
  }
}

std::string volume_path(const database_index& index, std::uint32_t k) {
  const std::string file = fixed_text(index.volumes.at(k).name, volume_name_bytes);
  return (std::filesystem::path(index.directory) / file).string();
}

sequence_set read_database(const std::string& index_path, const std::string& shown, read_report* report,
                           unsigned threads) {
  auto t0 = clock_type::now();
  read_report measured;
  database_index index = read_index(index_path);
  if (test_hooks::after_index_read) test_hooks::after_index_read();
  // Every volume opened now: a makedb replacing the database from here on removes files that
  // these descriptors still read. A missing volume: a replacement just happened (its index is
  // newer than the one read), so the index is read again, once. Beyond the descriptors the
  // process can spare (thousands of volumes), or out of them, the rest are opened in turn.
  open_files opened;
  for (int attempt = 0;; ++attempt) {
    opened.close_all();
    opened.fds.assign(index.volumes.size(), -1);
    bool missing = false;
    const std::size_t ahead = std::min<std::size_t>(index.volumes.size(), descriptors_to_spare(index.volumes.size()));
    for (std::uint32_t k = 0; k < ahead; ++k) {
      int err = 0;
      opened.fds[k] = open_regular(volume_path(index, k), &err);
      if (opened.fds[k] >= 0) continue;
      if (err == EMFILE || err == ENFILE) break;
      if (err == ENOENT && attempt == 0) {
        missing = true;
        break;
      }
      throw input_error(volume_path(index, k), std::string("cannot open: ") + std::strerror(err));
    }
    if (!missing) break;
    index = read_index(index_path);
  }
  if (test_hooks::after_volumes_opened) test_hooks::after_volumes_opened();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, 16u);
  sequence_set set;
  set.file = shown;
  set.alphabet = index.alphabet;
  // Slots for every record at once (no regrowth), as many as the volumes' files can hold.
  std::uint64_t can_hold = 0;
  for (std::uint32_t k = 0; k < index.volumes.size(); ++k) {
    struct stat st {};
    if (opened.fds[k] >= 0 ? ::fstat(opened.fds[k], &st) == 0 : ::stat(volume_path(index, k).c_str(), &st) == 0)
      can_hold += std::uint64_t(st.st_size) / 24;
  }
  set.records.reserve(std::min(index.sequences, can_hold));
  std::uint64_t first = 0;
  for (std::uint32_t k = 0; k < index.volumes.size(); ++k) {
    const std::string path = volume_path(index, k);
    const auto mapping = opened.fds[k] >= 0 ? std::make_shared<const mapped_file>(std::exchange(opened.fds[k], -1), path)
                                            : std::make_shared<const mapped_file>(path);
    const mapped_file& file = *mapping;
    const auto t1 = clock_type::now();
    measured.map_s += std::chrono::duration<double>(t1 - t0).count();
    measured.mapped_bytes += file.bytes().size();
    // What parse_volume checks, the body checksum in one thread beside the records in others
    // (each a run of records into its own slots); its errors in parse_volume's order: the
    // checksum first, then the first damaged record.
    const volume_view v = check_volume(file.bytes(), path, index, k, first, false);
    const std::uint64_t n = v.h.sequences;  // at most the file's bytes / 24: the slots fit beside it
    set.records.resize(first + n);
    const unsigned workers = unsigned(std::min<std::uint64_t>(threads, 1 + n / 2048));
    std::vector<std::uint64_t> bad(workers, n);  // first damaged record of each run
    std::vector<const char*> why(workers, "");
    std::vector<std::exception_ptr> failed(workers);  // out of memory in a thread
    const auto copy_run = [&](unsigned w) {
      record_view r;
      try {
        for (std::uint64_t i = n * w / workers, end = n * (w + 1) / workers; i < end; ++i) {
          if (const char* reason = check_record(v, i, r); *reason) {
            bad[w] = i;
            why[w] = reason;
            return;
          }
          sequence_record& out = set.records[first + i];
          out.name.assign(r.name);
          out.description.assign(r.description);
          out.residues = residue_store::view_of(r.residues);
        }
      } catch (...) {
        failed[w] = std::current_exception();
      }
    };
    std::uint64_t body = 0;
    const auto sum_body = [&] { body = checksum_of(file.bytes().subspan(header_bytes)); };
    {
      std::vector<std::jthread> running;
      try {
        running.emplace_back(sum_body);
        for (unsigned w = 1; w < workers; ++w) running.emplace_back(copy_run, w);
      } catch (const std::system_error&) {
        // no thread to spare: the rest runs here
      }
      if (running.empty()) sum_body();
      copy_run(0);
      for (unsigned w = unsigned(running.size()); w < workers; ++w) copy_run(w);
    }
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
    if (body != v.h.body_checksum) throw input_error(path, "corrupted: the volume's checksum does not match its contents");
    for (unsigned w = 0; w < workers; ++w)
      if (bad[w] < n) throw_record(path, first + bad[w] + 1, why[w]);
    // The records view the volume's residues, which stays mapped with the set; the pages the
    // checks read leave the process's memory (the engine reads them again from the page cache).
    set.backing.push_back(mapping);
    host_pages::release(file.bytes().data(), file.bytes().size());
    first += n;
    t0 = clock_type::now();
    measured.check_s += std::chrono::duration<double>(t0 - t1).count();
  }
  std::uint64_t longest = 0;
  for (const sequence_record& r : set.records) longest = std::max<std::uint64_t>(longest, r.residues.size());
  if (longest != index.longest) throw input_error(index_path, "corrupted: its longest sequence differs from its volumes'");
  if (report) *report = measured;
  return set;
}

}  // namespace swat::db
