#pragma once
// SAM records as the SAM writer builds them, before a sink writes them as text or through
// htslib. Internal to src/output.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace swat::output::detail {

//! One SAM record. Unmapped records have tid -1, pos -1, no CIGAR and no tags.
struct sam_record {
  const std::string* qname = nullptr;
  int flag = 0;
  std::int32_t tid = -1;  //!< index of the target (@SQ line), -1 = '*'
  std::int64_t pos = -1;  //!< 0-based leftmost target position, -1 = 0 in SAM
  std::vector<std::pair<char, std::uint32_t>> cigar;  //!< ops S = X I D
  std::string seq;                                     //!< letters; empty = '*'
  std::optional<std::int32_t> as;                      //!< AS:i alignment score
  std::optional<std::int64_t> nm;                      //!< NM:i edit distance
  std::string md;                                      //!< MD:Z (empty: absent)
  std::string ze;                                      //!< ZE:Z E-value (empty: absent)
};

//! Where the SAM writer sends the header text and the records.
class sam_sink {
 public:
  virtual ~sam_sink() = default;
  //! The whole header, lines ending in '\n'.
  virtual void header(const std::string& text) = 0;
  //! One record (after header()).
  virtual void record(const sam_record& r) = 0;
  //! Flushes what remains (after the last record).
  virtual void finish() = 0;
};

}  // namespace swat::output::detail
