#pragma once
// Internal to swat_io: a whole input file as text, decompressed when it is gzip.

#include <functional>
#include <string>
#include <string_view>

namespace swat::io::detail {

//! Contents of one input file after decompression.
struct text_file {
  std::string text;         //!< the bytes, decompressed
  bool compressed = false;  //!< true when the file was gzip (detected by its magic bytes)
};

//! Decides after the first chunk (up to 1 MiB) whether reading the rest is worth it; returning
//! false stops early (binary data such as /dev/zero), and the caller reports the error.
using keep_reading_fn = std::function<bool(std::string_view first_chunk)>;

//! Reads path whole; gzip (magic bytes 1f 8b, also multi-member and BGZF) is decompressed by
//! zlib, anything else is read as is. Throws swat::input_error for a missing file, a directory,
//! an unreadable file and corrupt or truncated gzip data.
text_file read_text_file(const std::string& path, const keep_reading_fn& keep_reading = {});

}  // namespace swat::io::detail
