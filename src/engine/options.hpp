#pragma once
// Typed engine options: what `swat-gpu align` parses once from --device, --sync, --tile,
// --threads and the memory budgets, handed unchanged to whichever engine the registry builds
// (registry.hpp). Plain C++: the CUDA engines read these fields, they never re-parse strings.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "engine/gpu_selection.hpp"
#include "engine/sync_mode.hpp"

namespace swat {

//! One line for the user on stderr (a notice or a warning); suppressed by --quiet.
using notice_fn = std::function<void(const std::string&)>;
//! Progress of one long fill: fraction done (0…1) and seconds since the fill started.
using fill_progress_fn = std::function<void(double fraction, double elapsed_seconds)>;

//! Where the DP fill runs.
enum class device_kind {
  cpu,          //!< the CPU engine
  gpu,          //!< a GPU engine; an error when none can run
  auto_select,  //!< a GPU engine when one can run, else the CPU engine with a notice
};

//! --device parsed: cpu | gpu | gpu:ID | auto.
struct device_choice {
  device_kind kind = device_kind::auto_select;  //!< where the fill runs
  int gpu_id = 0;                               //!< CUDA device ordinal (gpu:ID; 0 otherwise)
};

//! Parses --device ("cpu", "gpu", "gpu:ID" with ID ≥ 0, "auto"); throws usage_error naming the
//! option and the valid values.
device_choice parse_device_choice(std::string_view text);

//! Default CPU traceback budget (bytes): 1 GiB.
inline constexpr std::uint64_t default_cpu_memory_bytes = std::uint64_t(1) << 30;

//! Options every engine receives (each takes what applies to it).
struct engine_options {
  std::optional<sync_mode> sync;                //!< --sync; empty: the engine's default
  int tile = 0;                                 //!< --tile edge (cells); 0: the engine's default
  int gpu_id = 0;                               //!< CUDA device the engine binds to
  std::uint64_t max_gpu_mem_bytes = 0;          //!< --max-gpu-mem (bytes); 0: free device memory
  gpu_selection gpus;                           //!< --gpus: the GPUs of database searches (all by default)
  unsigned cpu_threads = 0;                     //!< --threads of the CPU engine; 0: all cores
  std::uint64_t cpu_memory_bytes = default_cpu_memory_bytes;  //!< --cpu-mem: CPU traceback budget (bytes)
  notice_fn notice;                             //!< notices (fallbacks); may be empty
  fill_progress_fn fill_progress;               //!< progress of long single fills; may be empty
};

}  // namespace swat
