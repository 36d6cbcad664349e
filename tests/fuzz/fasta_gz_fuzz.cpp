// libFuzzer: the bytes gzip-compressed, then read_fasta on both: the gzip file must read exactly
// like the plain one (same records, or an input error for both).

#include <zlib.h>

#include <optional>
#include <vector>

#include "common/error.hpp"
#include "fuzz_support.hpp"
#include "io/fasta.hpp"

namespace {

std::vector<std::uint8_t> gzip(const std::uint8_t* data, std::size_t size) {
  z_stream zs{};
  swat::fuzz::require(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2");
  std::vector<std::uint8_t> out(deflateBound(&zs, uLong(size)) + 32);
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = uInt(size);
  zs.next_out = out.data();
  zs.avail_out = uInt(out.size());
  swat::fuzz::require(deflate(&zs, Z_FINISH) == Z_STREAM_END, "deflate");
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

//! The records, or nothing for an input error.
std::optional<swat::sequence_set> read(const std::string& path) {
  try {
    return swat::io::read_fasta(path, swat::io::alphabet_request::auto_detect, nullptr);
  } catch (const swat::input_error&) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return 0;  // would be gzip inside gzip
  const std::vector<std::uint8_t> gz = gzip(data, size);
  const swat::fuzz::memory_file plain_file(data, size), gz_file(gz.data(), gz.size());
  const auto plain = read(plain_file.path());
  const auto packed = read(gz_file.path());
  swat::fuzz::require(plain.has_value() == packed.has_value(), "gzip accepted exactly when plain is");
  if (!plain) return 0;
  swat::fuzz::require(plain->alphabet == packed->alphabet, "same alphabet");
  swat::fuzz::require(plain->records.size() == packed->records.size(), "same record count");
  for (std::size_t r = 0; r < plain->records.size(); ++r) {
    swat::fuzz::require(plain->records[r].name == packed->records[r].name, "same names");
    swat::fuzz::require(plain->records[r].residues == packed->records[r].residues, "same residues");
  }
  return 0;
}
