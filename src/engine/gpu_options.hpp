#pragma once
// Options of the GPU engines as the CLI gives them (plain C++; the CUDA libraries parse the
// names into their enums and throw usage_error for unknown ones).

#include <cstdint>
#include <functional>
#include <string>

namespace swat {

struct gpu_engine_options {
  std::string kernel = "auto";          //!< --kernel: diagonal|coalesced|tiled|fast|auto
  std::string sync = "auto";            //!< --sync: a sync mode name or auto
  int tile = 0;                         //!< --tile: tile edge in cells for tiled (0 = policy default)
  std::uint64_t max_gpu_mem_bytes = 0;  //!< --max-gpu-mem: 0 = use free device memory
  std::string gpus = "all";             //!< --gpus: all | N | LIST (engine/gpu_selection.hpp)
  unsigned cpu_threads = 0;             //!< threads of the CPU fallback engine
  std::uint64_t cpu_memory_bytes = 1ull << 30;  //!< memory budget of the CPU fallback engine
  std::function<void(const std::string&)> notice;  //!< one-line notices (fallbacks), may be empty
  bool quiet = false;                   //!< --quiet: no progress line from the engine
};

}  // namespace swat
