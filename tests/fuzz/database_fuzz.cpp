// libFuzzer: the prepared database's reader (db/reader.hpp) on damaged files. The first byte
// chooses how the rest is read:
//   bit 0 clear: raw files, each a u16 length and its bytes: the index, then its volumes;
//   bit 0 set:   a database made by the writer from the next bytes (records, alphabet: bit 2,
//                volume bound: bits 3–5), then edits (file, offset, byte) applied to it.
//   bit 1:       the checksums recomputed after the edits (tests/db/db_test_util.hpp: reseal),
//                so that the structural checks behind them are reached.
// Bad files must end in swat::input_error; what is read must be well formed (the index's
// count of records, names, ranks within the alphabet); an unedited database must read back as
// written.

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "db/db_test_util.hpp"
#include "fuzz_support.hpp"

namespace {

struct reader {
  const std::uint8_t* p;
  std::size_t left;
  std::uint8_t byte() {
    if (left == 0) return 0;
    --left;
    return *p++;
  }
  std::uint16_t u16() { return std::uint16_t(byte() | (byte() << 8)); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using namespace swat;
  reader in{data + 1, size - 1};
  const std::uint8_t mode = data[0];
  test::database_bytes b;
  sequence_set made;
  bool edited = true;
  if ((mode & 1) == 0) {
    for (int file = 0; file < 9 && in.left > 0; ++file) {
      const std::size_t n = std::min<std::size_t>(in.u16(), in.left);
      std::string bytes(reinterpret_cast<const char*>(in.p), n);
      in.p += n;
      in.left -= n;
      if (file == 0)
        b.index = std::move(bytes);
      else
        b.volumes.push_back(std::move(bytes));
    }
  } else {
    made.alphabet = (mode & 4) ? alphabet_kind::protein : alphabet_kind::dna;
    const int ranks = made.alphabet == alphabet_kind::dna ? dna_size : protein_size;
    const int records = 1 + in.byte() % 16;
    for (int r = 0; r < records; ++r) {
      sequence_record rec;
      rec.name = "s" + std::to_string(r);
      if (in.byte() & 1) rec.description = "d " + std::to_string(r);
      rec.residues.resize(1 + in.byte() % 64);
      for (auto& c : rec.residues.own()) c = std::uint8_t(in.byte() % ranks);
      made.records.push_back(std::move(rec));
    }
    b = test::make_bytes(made, std::uint64_t(256) << ((mode >> 3) & 7));
    edited = in.left >= 4;
    while (in.left >= 4) {
      const std::size_t file = in.byte() % (b.volumes.size() + 1);
      std::string& target = file == 0 ? b.index : b.volumes[file - 1];
      const std::uint16_t at = in.u16();
      const std::uint8_t value = in.byte();
      if (!target.empty()) target[at % target.size()] = char(value);
    }
  }
  if (mode & 2)
    for (std::uint32_t k = 0; k < b.volumes.size(); ++k) test::reseal(b, k);
  try {
    const sequence_set set = test::read_bytes(b);
    fuzz::require(test::well_formed(set, b), "a database that is read is well formed");
    if ((mode & 1) && !edited) fuzz::require(test::same_records(set, made), "an unedited database reads back as written");
  } catch (const input_error&) {
    fuzz::require(!(mode & 1) || edited, "an unedited database is read");
  } catch (const std::runtime_error& e) {
    // read_bytes' own "missing volume" (fewer raw files than the index lists) is the harness's.
    fuzz::require(std::string(e.what()) == "missing volume", "only input errors");
  }
  return 0;
}
