// --device parsing (see options.hpp).

#include "engine/options.hpp"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "common/error.hpp"

namespace swat {

device_choice parse_device_choice(std::string_view text) {
  if (text == "cpu") return {device_kind::cpu, 0};
  if (text == "gpu") return {device_kind::gpu, 0};
  if (text == "auto") return {device_kind::auto_select, 0};
  if (text.substr(0, 4) == "gpu:" && text.size() > 4) {
    const std::string id(text.substr(4));
    errno = 0;
    char* end = nullptr;
    const long v = std::strtol(id.c_str(), &end, 10);
    if (end == id.c_str() + id.size() && errno == 0 && v >= 0 && v < 1024 && id[0] != '+' && id[0] != '-')
      return {device_kind::gpu, int(v)};
  }
  throw usage_error("unknown --device '" + std::string(text) + "' (valid: cpu, gpu, gpu:ID, auto)");
}

}  // namespace swat
