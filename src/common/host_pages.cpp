// Pages the process may drop and read again (host_pages.hpp).

#include "common/host_pages.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace swat::host_pages {
namespace {

struct registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, std::uintptr_t> regions;  //!< start → end of each registered region
  //! The same regions for the signal handler: start (0: a free slot) and end, written under mutex.
  std::atomic<std::uintptr_t> signal_start[max_signal_regions]{};
  std::atomic<std::uintptr_t> signal_end[max_signal_regions]{};
};

static_assert(std::atomic<std::uintptr_t>::is_always_lock_free, "the SIGBUS handler reads the regions lock-free");

void (*bus_error_cleanup)() noexcept = nullptr;

extern "C" void on_bus_error(int sig, siginfo_t* info, void*) {
  if (info != nullptr && contains_signal_safe(info->si_addr)) {
    static const char message[] =
        "swat-gpu: error: a prepared database's volume shrank while it was searched (truncated or rewritten in "
        "place; makedb writes new files instead)\n";
    (void)!::write(2, message, sizeof message - 1);
    if (bus_error_cleanup) bus_error_cleanup();
    ::_exit(2);
  }
  ::signal(sig, SIG_DFL);  // not ours: the default action once the handler returns (the fault repeats)
  if (info == nullptr || info->si_code <= 0) ::raise(sig);  // sent by a process: nothing repeats it
}

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
  for (std::size_t k = 0; k < max_signal_regions; ++k)
    if (r.signal_start[k].load(std::memory_order_relaxed) == 0) {
      r.signal_end[k].store(at + bytes, std::memory_order_relaxed);
      r.signal_start[k].store(at, std::memory_order_release);
      break;
    }
}

void remove_releasable(const void* data) {
  registry& r = the_registry();
  const std::unique_lock lock(r.mutex);
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  r.regions.erase(at);
  for (std::size_t k = 0; k < max_signal_regions; ++k)
    if (r.signal_start[k].load(std::memory_order_relaxed) == at) r.signal_start[k].store(0, std::memory_order_release);
}

bool contains_signal_safe(const void* addr) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  registry& r = the_registry();
  for (std::size_t k = 0; k < max_signal_regions; ++k) {
    const std::uintptr_t start = r.signal_start[k].load(std::memory_order_acquire);
    if (start != 0 && a >= start && a < r.signal_end[k].load(std::memory_order_relaxed)) return true;
  }
  return false;
}

void install_bus_error_handler(void (*cleanup)() noexcept) {
  bus_error_cleanup = cleanup;
  (void)the_registry();  // made now, not first in the handler
  struct sigaction action {};
  action.sa_sigaction = on_bus_error;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, nullptr);
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
