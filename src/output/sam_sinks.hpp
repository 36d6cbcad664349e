#pragma once
// The two ways SAM records leave the writer: through htslib (DNA; text SAM or BAM) or as plain
// text (protein SAM, whose amino-acid SEQ htslib's 4-bit encoding cannot hold). Internal.

#include <memory>
#include <ostream>

#include "common/sequence.hpp"
#include "output/sam_record.hpp"

namespace swat::output::detail {

//! Records through htslib: bam_set1 + tags, then sam_format1 (SAM) or a BGZF-compressed BAM
//! written to an unnamed temporary file and copied to out at finish(). Throws
//! swat::runtime_failure when htslib refuses a header or record or cannot write.
std::unique_ptr<sam_sink> make_htslib_sink(std::ostream& out, bool bam);

//! Records as SAM text lines written directly (the same fields and tag order as htslib's);
//! RNAME comes from targets by the record's tid.
std::unique_ptr<sam_sink> make_text_sink(std::ostream& out, const sequence_set& targets);

}  // namespace swat::output::detail
