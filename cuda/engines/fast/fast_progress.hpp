#pragma once
// Progress line of the fast engine's long fills (plain C++).
//
// The GPU traceback's crossing fill (fast_trace.hpp) counts finished strips in mapped host
// memory; the host polls it every 50 ms and, once a fill has run ≥ 2 s, calls the engine's
// progress hook with the fraction done. stderr_progress() is the hook the CLI wants: on a TTY a
// single "\r"-rewritten line, nothing when stderr is not a TTY or with --quiet.
//
// Connecting it (lead, src/ is not touched here): give gpu_engine_options a `bool quiet` (or a
// `std::function<void(double, double)> progress`) filled from --quiet, and in the engine factory
// call make_fast_engine(options, stderr_progress(options.quiet)) instead of
// make_fast_engine(options).

#include <cstdio>
#include <functional>
#include <string>

namespace swat::fast {

//! Progress hook: fraction of the fill done (0…1) and seconds since the fill started.
using fill_progress_fn = std::function<void(double fraction, double elapsed_seconds)>;

//! Text of one progress line, e.g. "gpu-fast: fill  42% (3.1 s, eta 4.3 s)".
std::string progress_line(double fraction, double elapsed_seconds);

//! Hook printing progress_line on stream with "\r" (newline when the fill ends); empty when quiet
//! or when stream is not a terminal (isatty), unless force is set (tests).
fill_progress_fn stderr_progress(bool quiet, std::FILE* stream = stderr, bool force = false);

}  // namespace swat::fast
