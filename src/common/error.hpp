#pragma once
// Error types of swat-gpu. Library code throws; only main() turns them into exit codes.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace swat {

//! Bad command line or parameters: exit code 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! Bad input data: exit code 2. The message names file[:record[:position]].
class input_error : public std::runtime_error {
 public:
  //! file: path as given; record: 1-based record number or name; position: 1-based residue.
  input_error(const std::string& file, const std::string& what,
              std::optional<std::string> record = std::nullopt,
              std::optional<std::uint64_t> position = std::nullopt)
      : std::runtime_error(format(file, what, record, position)) {}

 private:
  static std::string format(const std::string& file, const std::string& what,
                            const std::optional<std::string>& record,
                            const std::optional<std::uint64_t>& position) {
    // Appends piecewise (operator+ chains trip a GCC 12 -Wrestrict false positive).
    std::string s(file);
    if (record) s.append(":").append(*record);
    if (record && position) s.append(":").append(std::to_string(*position));
    s.append(": ").append(what);
    return s;
  }
};

//! Failure while running (I/O error writing output, GPU failure, …): exit code 1.
class runtime_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace swat
