// --gpus parsing and resolution (see gpu_selection.hpp).

#include "engine/gpu_selection.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <string>
#include <set>
#include <utility>

#include "common/error.hpp"

namespace swat {

namespace {

int parse_id(std::string_view text, std::string_view whole) {
  int v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw usage_error("--gpus '" + std::string(whole) + "': '" + std::string(text) +
                      "' is not a device id (expected all, a count N, or ids such as 0,1)");
  return v;
}

}  // namespace

gpu_selection parse_gpu_selection(std::string_view text) {
  gpu_selection s;
  if (text == "all") return s;
  s.all = false;
  if (text.find(',') == std::string_view::npos) {
    s.count = parse_id(text, text);
    if (s.count == 0) throw usage_error("--gpus 0: a search needs at least one GPU (use --device cpu for none)");
    return s;
  }
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!part.empty() || comma == std::string_view::npos) s.ids.push_back(parse_id(part, text));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (s.ids.empty()) throw usage_error("--gpus '" + std::string(text) + "': no device id");
  return s;
}

std::vector<int> resolve_gpu_selection(const gpu_selection& s, int visible) {
  std::vector<int> out;
  if (s.all) {
    for (int d = 0; d < visible; ++d) out.push_back(d);
  } else if (s.ids.empty()) {
    if (s.count > visible && !s.at_most)
      throw usage_error("--gpus " + std::to_string(s.count) + ": only " + std::to_string(visible) + " GPU" +
                        (visible == 1 ? " is" : "s are") + " visible");
    for (int d = 0; d < std::min(s.count, visible); ++d) out.push_back(d);
  } else {
    for (int d : s.ids)
      if (d >= visible)
        throw usage_error("--gpus: there is no GPU " + std::to_string(d) + " (" + std::to_string(visible) + " visible: ids 0 to " +
                          std::to_string(visible - 1) + ")");
    out = s.ids;
  }
  if (out.empty()) throw usage_error("--gpus: no GPU is visible");
  return out;
}

int leading_count(const gpu_selection& s) {
  if (s.all) return 0;
  if (s.ids.empty()) return s.count;
  for (std::size_t k = 0; k < s.ids.size(); ++k)
    if (s.ids[k] != int(k)) return 0;
  return int(s.ids.size());
}

bool hide_gpus_after(int count) {
  if (count < 1) return false;
  const char* current = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string narrowed;
  if (current == nullptr) {
    for (int d = 0; d < count; ++d) {
      if (d > 0) narrowed.push_back(',');
      narrowed.append(std::to_string(d));
    }
  } else {
    // Its entries (indices, GPU-/MIG- UUIDs) as CUDA reads them, comma-separated; the first
    // `count` kept.
    const std::string_view list(current);
    std::size_t start = 0;
    int kept = 0;
    while (start <= list.size() && kept < count) {
      const std::size_t comma = list.find(',', start);
      const std::string_view entry = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      if (entry.empty()) return false;  // an empty or malformed list: CUDA's reading of it stays
      if (kept > 0) narrowed.push_back(',');
      narrowed.append(entry);
      ++kept;
      if (comma == std::string_view::npos) return false;  // at most `count` entries: nothing to hide
      start = comma + 1;
    }
  }
  return ::setenv("CUDA_VISIBLE_DEVICES", narrowed.c_str(), 1) == 0;
}

int visible_gpus_hint() {
  if (const char* current = std::getenv("CUDA_VISIBLE_DEVICES")) {
    const std::string_view list(current);
    if (list.empty()) return 0;
    int entries = 1;
    for (const char c : list) entries += c == ',' ? 1 : 0;
    return entries;
  }
  std::error_code ec;
  int gpus = 0;
  for (std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", ec), end; !ec && it != end; it.increment(ec)) ++gpus;
  return gpus;
}

std::string device_list_text(const std::vector<int>& devices) {
  std::string s;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    if (k) s.push_back(',');
    s.append(std::to_string(devices[k]));
  }
  return s;
}

std::string band_path_notice(const std::vector<int>& devices, const std::function<bool(int, int)>& peer) {
  std::string pairs;
  std::set<std::pair<int, int>> named;
  const std::size_t g = devices.size();
  for (std::size_t k = 0; k < g && g >= 2; ++k) {  // every neighbouring pair, the wrap-around included
    const int a = devices[k], b = devices[(k + 1) % g];
    if (a == b || peer(a, b) || !named.insert({a, b}).second) continue;
    pairs += (pairs.empty() ? "" : ", ") + std::to_string(a) + " → " + std::to_string(b);
  }
  if (pairs.empty()) return {};
  return "notice: GPUs without peer access (" + pairs +
         "): long pairs in bands hand those rows over through mapped host memory instead";
}

}  // namespace swat
