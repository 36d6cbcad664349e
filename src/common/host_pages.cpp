// Pages the process may drop and read again (host_pages.hpp).

#include "common/host_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace swat::host_pages {
namespace {

struct registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, std::uintptr_t> regions;  //!< start → end of each registered region
};

registry& the_registry() {
  static registry* r = new registry;  // never destroyed: mappings may be released at exit
  return *r;
}

std::uintptr_t page_bytes() {
  static const std::uintptr_t bytes = [] {
    const long b = ::sysconf(_SC_PAGESIZE);
    return b > 0 ? std::uintptr_t(b) : std::uintptr_t(4096);
  }();
  return bytes;
}

}  // namespace

void add_releasable(const void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0) return;
  registry& r = the_registry();
  const std::unique_lock lock(r.mutex);
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  r.regions[at] = at + bytes;
}

void remove_releasable(const void* data) {
  registry& r = the_registry();
  const std::unique_lock lock(r.mutex);
  r.regions.erase(reinterpret_cast<std::uintptr_t>(data));
}

std::size_t release(const void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0) return 0;
  const auto lo = reinterpret_cast<std::uintptr_t>(data), hi = lo + bytes;
  const std::uintptr_t page = page_bytes();
  std::size_t dropped = 0;
  registry& r = the_registry();
  const std::shared_lock lock(r.mutex);  // a region stays mapped while it is registered
  auto it = r.regions.upper_bound(lo);
  if (it != r.regions.begin()) --it;
  for (; it != r.regions.end() && it->first < hi; ++it) {
    const std::uintptr_t from = (std::max(lo, it->first) + page - 1) / page * page;
    const std::uintptr_t to = std::min(hi, it->second) / page * page;
    if (from >= to) continue;
    if (::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED) == 0) dropped += to - from;
  }
  return dropped;
}

}  // namespace swat::host_pages
