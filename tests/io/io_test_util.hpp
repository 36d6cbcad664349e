#pragma once
// Helpers for the swat_io tests: a temporary directory, plain and gzip writers, decoding.

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "io/fasta.hpp"

namespace swat::io::test {

//! A fresh directory under the system temp dir, removed with everything in it.
class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "swat_io_test_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  //! Full path of name inside the directory.
  std::string file(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

//! Writes bytes to path as is.
inline std::string write_plain(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

//! Writes bytes gzip-compressed to path through zlib's gzopen.
inline std::string write_gz(const std::string& path, std::string_view bytes,
                            const char* mode = "wb") {
  gzFile gz = gzopen(path.c_str(), mode);
  if (gz == nullptr) throw std::runtime_error("gzopen failed for " + path);
  const int wrote =
      bytes.empty() ? 0 : gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  if (gzclose(gz) != Z_OK || wrote != static_cast<int>(bytes.size()))
    throw std::runtime_error("gzwrite failed for " + path);
  return path;
}

//! Whole file as bytes.
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

//! Residue ranks of a record back to upper-case letters.
inline std::string letters(const sequence_set& set, std::size_t record) {
  std::string out;
  for (const std::uint8_t r : set.records.at(record).residues) out += rank_to_char(set.alphabet, r);
  return out;
}

//! Reads path and returns the input_error's message; fails the test on success or another type.
inline std::string input_error_of(const std::string& path,
                                  alphabet_request request = alphabet_request::auto_detect,
                                  std::vector<std::string>* warnings = nullptr) {
  const warning_fn warn = [&](const std::string& w) {
    if (warnings) warnings->push_back(w);
  };
  try {
    read_fasta(path, request, warn);
  } catch (const input_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected swat::input_error, got " << typeid(e).name() << ": " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected swat::input_error for " << path;
  return {};
}

//! Passes when text contains part (prints text otherwise).
inline ::testing::AssertionResult contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

//! Passes when text starts with prefix (prints text otherwise).
inline ::testing::AssertionResult starts_with(const std::string& text, std::string_view prefix) {
  if (text.starts_with(prefix)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not start with '" << prefix << "'";
}

//! Reads path and collects warnings.
inline sequence_set read_collecting(const std::string& path, std::vector<std::string>& warnings,
                                    alphabet_request request = alphabet_request::auto_detect) {
  return read_fasta(path, request, [&](const std::string& w) { warnings.push_back(w); });
}

//! Expects two sets to hold the same records (names, descriptions, residues) and alphabet.
inline void expect_same_records(const sequence_set& a, const sequence_set& b) {
  EXPECT_EQ(a.alphabet, b.alphabet);
  ASSERT_EQ(a.records.size(), b.records.size());
  for (std::size_t r = 0; r < a.records.size(); ++r) {
    EXPECT_EQ(a.records[r].name, b.records[r].name) << "record " << r + 1;
    EXPECT_EQ(a.records[r].description, b.records[r].description) << "record " << r + 1;
    EXPECT_EQ(a.records[r].residues, b.records[r].residues) << "record " << r + 1;
  }
}

}  // namespace swat::io::test
