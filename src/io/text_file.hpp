#pragma once
// Internal to swat_io: an input file read chunk by chunk, decompressed when it is gzip, so that
// a FASTA file of any size is read without holding its text (see read_fasta's two passes).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace swat::io::detail {

//! The decompressed bytes of one input file. gzip (magic bytes 1f 8b, also multi-member and
//! BGZF) is inflated by zlib; anything else is read as is. Data after the last gzip member that
//! is not another member is an error (all-zero padding excepted, as gzip itself accepts it).
class input_file {
 public:
  //! Opens path ("-": standard input). Throws swat::input_error for a missing file, a directory
  //! or an unreadable file.
  explicit input_file(const std::string& path);
  ~input_file();
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;

  //! Reads up to n decompressed bytes into out (bytes); returns 0 at the end. Throws
  //! swat::input_error for read errors, corrupt or truncated gzip data and trailing garbage.
  std::size_t read(char* out, std::size_t n);
  //! True when the file can be read again from its start (a regular file; not a pipe).
  bool rewindable() const;
  //! Starts reading again from the first byte; requires rewindable().
  void rewind();
  //! True when the file is gzip-compressed.
  bool compressed() const;
  //! Size of a regular file on disk (bytes), 0 when unknown (pipes, /proc, …).
  std::uint64_t size_hint() const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace swat::io::detail
