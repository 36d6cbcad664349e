#pragma once
// --gpus: which GPUs a search uses (plain C++, no CUDA). "all" (every visible device), a count
// N (the first N), or a comma-separated LIST of device ids ("0,1"; "2," for device 2 alone).
// For align, "all" and N are the most it uses: the planner (engine/plan.hpp) may take fewer.
// CUDA_VISIBLE_DEVICES decides what is visible and renumbers it, as for every CUDA program.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace swat {

//! A parsed --gpus value before the device count is known.
struct gpu_selection {
  bool all = true;            //!< every visible device
  int count = 0;              //!< the first `count` devices (when not all and ids is empty)
  std::vector<int> ids;       //!< explicit device ids (a LIST)
  //! The first `count` devices or fewer when fewer are visible (the planner's count, never a
  //! user's: a user's count beyond the GPUs there is an error).
  bool at_most = false;
};

//! Parses --gpus; throws usage_error naming the option for malformed text, a count of 0 and
//! negative ids.
gpu_selection parse_gpu_selection(std::string_view text);

//! The device ids of a selection on a machine with `visible` devices; throws usage_error for
//! ids or counts that the machine does not have (the message says how many are visible).
std::vector<int> resolve_gpu_selection(const gpu_selection& selection, int visible);

//! N when the selection is the first N visible devices in order (a count N, or the ids 0 … N−1),
//! else 0 ("all", or other ids).
int leading_count(const gpu_selection& selection);

//! Hides the visible GPUs after the first `count` by narrowing CUDA_VISIBLE_DEVICES to its first
//! `count` entries (0 … count−1 when it is unset), so that CUDA's start, which initialises every
//! visible GPU (0.1-0.3 s each, measured on two H200), initialises only the ones a search uses;
//! their ids stay the same. Must run before the process's first CUDA call, while no other thread
//! reads the environment. Leaves a list of at most `count` entries as it is. Returns whether it
//! narrowed the list.
bool hide_gpus_after(int count);

//! The GPUs a CUDA program would see, told without starting CUDA (which would start them all):
//! CUDA_VISIBLE_DEVICES's entries where it is set, else the driver's GPUs under
//! /proc/driver/nvidia/gpus; 0 when neither says.
int visible_gpus_hint();

//! "0,1" for the error lines, --timing and SAM @PG.
std::string device_list_text(const std::vector<int>& devices);

//! A long pair in bands over `devices` hands each band's last row to the next band's GPU
//! (band g on devices[g % size]); `peer(a, b)` says whether GPU a can write GPU b's memory. The
//! notice that names the neighbouring GPUs without peer access and the path used instead
//! (mapped host memory); empty when every hand-over is direct.
std::string band_path_notice(const std::vector<int>& devices, const std::function<bool(int, int)>& peer);

}  // namespace swat
