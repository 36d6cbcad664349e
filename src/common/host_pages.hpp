#pragma once
// Pages the process may drop and read again: the read-only file mappings of a prepared
// database (db/reader.hpp) are registered here, and whoever has read a part of them (the
// reader's checks, the database engine's upload) may drop its pages from the process's
// memory; a later read faults them in again from the file (the page cache). Any other memory
// (heap, anonymous maps) is never touched, so a caller may hand in any residues it was given.

#include <cstddef>

namespace swat::host_pages {

//! Registers [data, data + bytes), a read-only mapping of a file that stays mapped until
//! remove_releasable(data).
void add_releasable(const void* data, std::size_t bytes);

//! Forgets the region registered at data (before it is unmapped).
void remove_releasable(const void* data);

//! Whether addr lies in a registered region; async-signal-safe (lock-free atomics only: the
//! first max_signal_regions regions registered at once are seen).
bool contains_signal_safe(const void* addr) noexcept;

//! Regions contains_signal_safe sees at once.
inline constexpr std::size_t max_signal_regions = 4096;

//! Installs a SIGBUS handler for reads of registered regions whose file shrank meanwhile (a
//! volume truncated in place while a search maps it): it writes one line naming what happened
//! to standard error, calls cleanup (async-signal-safe: the output's temporary files), and ends
//! the process with exit status 2, as for any input that changed while it was read. A SIGBUS
//! anywhere else keeps its default action.
void install_bus_error_handler(void (*cleanup)() noexcept);

//! Drops the whole pages of [data, data + bytes) that lie in a registered region from the
//! process's resident memory (madvise MADV_DONTNEED); memory outside every registered region
//! is left alone. Returns the bytes dropped.
std::size_t release(const void* data, std::size_t bytes);

}  // namespace swat::host_pages
