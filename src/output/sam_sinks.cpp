// SAM sinks: htslib (text SAM via sam_format1, BAM via a BGZF stream on an unnamed temporary
// file copied to the output stream at the end) and plain text for protein SAM.

#include "output/sam_sinks.hpp"

#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <htslib/sam.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace swat::output::detail {
namespace {

[[noreturn]] void fail(const std::string& what) { throw runtime_failure("SAM/BAM output: " + what); }

std::uint32_t bam_op(char op) {
  switch (op) {
    case 'S': return BAM_CSOFT_CLIP;
    case '=': return BAM_CEQUAL;
    case 'X': return BAM_CDIFF;
    case 'I': return BAM_CINS;
    case 'D': return BAM_CDEL;
    default: throw std::logic_error(std::string("SAM: unexpected CIGAR op ") + op);
  }
}

class htslib_sink final : public sam_sink {
 public:
  htslib_sink(std::ostream& out, bool bam) : out_(out), bam_(bam), record_(bam_init1()) {
    if (!record_) throw std::bad_alloc();
  }
  ~htslib_sink() override {
    if (file_) hts_close(file_);
    if (temp_) std::fclose(temp_);
    if (header_) sam_hdr_destroy(header_);
    bam_destroy1(record_);
    ks_free(&line_);
  }
  htslib_sink(const htslib_sink&) = delete;
  htslib_sink& operator=(const htslib_sink&) = delete;

  void header(const std::string& text) override {
    header_ = sam_hdr_parse(text.size(), text.c_str());
    if (!header_) fail("htslib rejected the header");
    if (!bam_) {
      out_ << sam_hdr_str(header_);
      return;
    }
    temp_ = std::tmpfile();
    if (!temp_) fail("cannot create a temporary file for BAM: " + std::string(std::strerror(errno)));
    const int fd = ::dup(::fileno(temp_));
    hFILE* handle = fd >= 0 ? hdopen(fd, "w") : nullptr;
    if (!handle) {
      if (fd >= 0) ::close(fd);
      fail("cannot open the temporary BAM file");
    }
    file_ = hts_hopen(handle, "swat-gpu.bam", "wb");
    if (!file_) {
      hclose_abruptly(handle);
      fail("htslib cannot open a BAM stream");
    }
    if (sam_hdr_write(file_, header_) < 0) fail("writing the BAM header failed");
  }

  void record(const sam_record& r) override {
    cigar_.clear();
    for (const auto& [op, n] : r.cigar) cigar_.push_back(bam_cigar_gen(n, bam_op(op)));
    const bool mapped = r.tid >= 0;
    if (bam_set1(record_, r.qname->size(), r.qname->c_str(), std::uint16_t(r.flag), r.tid, r.pos,
                 mapped ? 255 : 0, cigar_.size(), cigar_.data(), -1, -1, 0, r.seq.size(), r.seq.c_str(), nullptr,
                 0) < 0)
      fail("htslib rejected the record of " + *r.qname);
    if ((r.as && bam_aux_update_int(record_, "AS", *r.as) < 0) ||
        (r.nm && bam_aux_update_int(record_, "NM", *r.nm) < 0) || !append_string("MD", r.md) ||
        !append_string("ZE", r.ze))
      fail("htslib rejected a tag of " + *r.qname);
    if (bam_) {
      if (sam_write1(file_, header_, record_) < 0) fail("writing a BAM record failed");
      return;
    }
    line_.l = 0;
    if (sam_format1(header_, record_, &line_) < 0) fail("htslib cannot format the record of " + *r.qname);
    out_.write(line_.s, std::streamsize(line_.l));
    out_.put('\n');
  }

  void finish() override {
    if (!bam_) return;
    const int closed = hts_close(file_);
    file_ = nullptr;
    if (closed != 0) fail("finishing the BAM stream failed");
    std::rewind(temp_);
    std::vector<char> buffer(1 << 16);
    std::size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), temp_)) > 0) out_.write(buffer.data(), std::streamsize(n));
    if (std::ferror(temp_)) fail("reading the temporary BAM file back failed");
  }

 private:
  bool append_string(const char tag[2], const std::string& value) {
    return value.empty() ||
           bam_aux_append(record_, tag, 'Z', int(value.size() + 1), reinterpret_cast<const std::uint8_t*>(value.c_str())) == 0;
  }

  std::ostream& out_;
  bool bam_;
  bam1_t* record_;
  sam_hdr_t* header_ = nullptr;
  kstring_t line_ = KS_INITIALIZE;
  std::vector<std::uint32_t> cigar_;
  std::FILE* temp_ = nullptr;
  htsFile* file_ = nullptr;
};

class text_sink final : public sam_sink {
 public:
  text_sink(std::ostream& out, const sequence_set& targets) : out_(out), targets_(targets) {}

  void header(const std::string& text) override { out_ << text; }

  void record(const sam_record& r) override {
    line_ = *r.qname + '\t' + std::to_string(r.flag) + '\t';
    line_ += r.tid >= 0 ? targets_.records.at(std::size_t(r.tid)).name : "*";
    line_ += '\t' + std::to_string(r.pos + 1) + '\t' + (r.tid >= 0 ? "255" : "0") + '\t';
    if (r.cigar.empty()) line_ += '*';
    for (const auto& [op, n] : r.cigar) line_ += std::to_string(n) + op;
    line_ += "\t*\t0\t0\t" + (r.seq.empty() ? std::string("*") : r.seq) + "\t*";
    if (r.as) line_ += "\tAS:i:" + std::to_string(*r.as);
    if (r.nm) line_ += "\tNM:i:" + std::to_string(*r.nm);
    if (!r.md.empty()) line_ += "\tMD:Z:" + r.md;
    if (!r.ze.empty()) line_ += "\tZE:Z:" + r.ze;
    line_ += '\n';
    out_ << line_;
  }

  void finish() override {}

 private:
  std::ostream& out_;
  const sequence_set& targets_;
  std::string line_;
};

}  // namespace

std::unique_ptr<sam_sink> make_htslib_sink(std::ostream& out, bool bam) {
  return std::make_unique<htslib_sink>(out, bam);
}

std::unique_ptr<sam_sink> make_text_sink(std::ostream& out, const sequence_set& targets) {
  return std::make_unique<text_sink>(out, targets);
}

}  // namespace swat::output::detail
