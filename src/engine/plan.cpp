// The shape planner's device choice (plan.hpp).

#include "engine/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace swat {

device_plan plan_device(const search_size& size, unsigned threads, const cost_model& model, int available_gpus) {
  device_plan p;
  p.cpu_threads = std::max(threads, 1u);
  const double cells = size.cells();
  // A scan needs many pairs to fill the GPU (or long sides cut into windows); a few pairs of
  // similar, long sides go to the pair engine at its lower rate.
  const double pairs = double(std::max<std::uint64_t>(size.queries, 1)) * double(std::max<std::uint64_t>(size.targets, 1));
  const double rate = pairs >= 64 ? model.gpu_scan_cells_per_s : model.gpu_pair_cells_per_s;
  p.gpu_s = model.gpu_start_s + cells / rate;
  p.cpu_s = cells / (model.cpu_cells_per_s_per_thread * p.cpu_threads);
  p.use_cpu = p.cpu_s < p.gpu_s;
  p.available_gpus = std::max(available_gpus, 1);
  p.gpus = p.use_cpu ? 0 : plan_gpu_count(size, p.available_gpus, model);
  return p;
}

namespace {

//! Seconds until n GPUs have scanned `work` (seconds of one GPU alone): the first GPU scans alone
//! while the driver starts the others' contexts, one after the other (they join together, `join`
//! each, measured); every GPU of a shared scan runs at `rate` of one alone (smaller chunks).
double shared_scan_s(double work, int n, double join, double rate) {
  const double alone = join * (n - 1), chunked = work / rate;
  return chunked <= alone ? work : alone + (chunked - alone) / n;
}

}  // namespace

int plan_gpu_count(const search_size& size, int available, const cost_model& model) {
  if (available <= 1) return 1;
  const bool known = size.queries > 0 && size.targets > 0;
  // Predicted seconds on 1 … available GPUs; the fewest GPUs within the model's margin of the
  // fastest count, and one GPU unless more are that much faster than one.
  std::vector<double> seconds;
  if (known && double(size.queries) * double(size.targets) < 64) {  // a few pairs
    // Long × long pairs are filled in bands over the GPUs; a tall, narrow pair (a gene against a
    // genome, either way round) is cut into windows of its long side: one GPU, as before.
    const double rows = double(size.query_residues) / double(size.queries);
    const double columns = double(size.target_residues) / double(size.targets);
    if (rows > model.long_pair_max_ratio * columns || columns > model.long_pair_max_ratio * rows) return 1;
    const double strips = rows / model.long_pair_strip_rows;
    for (int n = 1; n <= available; ++n) {
      const double rate = model.gpu_long_pair_cells_per_s * n * std::min(1.0, strips / (n * model.long_pair_full_strips));
      seconds.push_back((model.gpu_init_s + model.gpu_context_s) * (n - 1) + size.cells() / rate);
    }
  } else {
    const double work = size.cells() / (size.protein ? model.gpu_protein_scan_cells_per_s : model.gpu_scan_cells_per_s);
    seconds.push_back(work);
    for (int n = 2; n <= available; ++n)
      seconds.push_back(model.gpu_init_s * (n - 1) + shared_scan_s(work, n, model.gpu_context_s, model.multi_gpu_efficiency));
  }
  const double work = seconds.front();
  const double fastest = *std::min_element(seconds.begin(), seconds.end());
  if (fastest > model.multi_gpu_margin * work) return 1;
  int best = 1;
  while (seconds[std::size_t(best - 1)] * model.multi_gpu_margin > fastest) ++best;
  return best;
}

std::string device_plan::describe() const {
  char buf[200];
  if (use_cpu)
    std::snprintf(buf, sizeof buf, "the CPU engine on %u threads (predicted %.3g s; GPU %.3g s)", cpu_threads, cpu_s,
                  gpu_s);
  else
    std::snprintf(buf, sizeof buf, "%s (predicted %.3g s; CPU engine on %u threads %.3g s)",
                  gpus > 1 ? (std::to_string(gpus) + " GPUs").c_str() : available_gpus > 1 ? "one GPU" : "the GPU", gpu_s,
                  cpu_threads, cpu_s);
  return buf;
}

std::uint64_t estimated_residues(const std::string& path) {
  std::error_code ec;
  if (path.empty() || path == "-" || !std::filesystem::is_regular_file(path, ec)) return 0;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  return std::uint64_t(double(bytes) * (gz ? 4.0 : 1.0) * 0.98);
}

namespace {

//! Files whose first record is longer than the sample have their records counted up to this
//! size (a genome or a few: ~10-20 ms in the page cache; it runs before CUDA's start, which
//! waits for the planner's GPU count); larger ones are estimated.
constexpr std::uintmax_t count_records_max_bytes = std::uintmax_t(64) << 20;

//! The FASTA records that begin in the rest of `in` (a '>' at a line's start; after_newline:
//! the byte before it ended a line).
std::uint64_t record_starts(std::istream& in, bool after_newline) {
  std::vector<char> block(std::size_t(1) << 20);
  std::uint64_t starts = 0;
  while (in.read(block.data(), std::streamsize(block.size())) || in.gcount() > 0) {
    const std::size_t got = std::size_t(in.gcount());
    if (after_newline && block[0] == '>') ++starts;
    const char* const end = block.data() + got;
    for (const char* p = block.data(); (p = static_cast<const char*>(std::memchr(p, '\n', std::size_t(end - p))));) {
      if (++p == end) break;
      starts += *p == '>' ? 1 : 0;
    }
    after_newline = block[got - 1] == '\n';
  }
  return starts;
}

}  // namespace

file_sample sample_sequences(const std::string& path) {
  file_sample out;
  out.residues = estimated_residues(path);  // until letters say better
  std::error_code ec;
  if (path.empty() || path == "-" || !std::filesystem::is_regular_file(path, ec)) return out;
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) return out;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes == 0) return out;
  std::ifstream in(path, std::ios::binary);
  std::string head(std::size_t(std::min<std::uintmax_t>(bytes, 64 * 1024)), '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  if (head.empty()) return out;
  const char mark = head[0] == '@' ? '@' : '>';
  std::uint64_t begun = 0, lines = 0, letters = 0, nucleotides = 0;
  std::size_t last_header = 0;  // where the sample's last record begins
  bool header = false, line_start = true;
  for (std::size_t k = 0; k < head.size(); ++k) {
    const char c = head[k];
    if (line_start && c == mark) {
      ++begun;
      header = true;
      last_header = k;
    }
    if (c == '\n') {
      ++lines;
      line_start = true;
      header = false;
      continue;
    }
    line_start = false;
    if (mark == '@' ? lines % 4 != 1 : header) continue;  // FASTQ: the second line of four holds the letters
    const char u = char(c & ~0x20);
    if (u >= 'A' && u <= 'Z') {
      ++letters;
      // IUPAC nucleotide codes too (R Y K M S W B D H V N): a DNA file full of them is DNA
      nucleotides += std::string_view("ACGTUNRYKMSWBDHV").find(u) != std::string_view::npos ? 1 : 0;
    }
  }
  const double scale = double(bytes) / double(head.size());
  if (mark == '@') {  // four lines a record (a quality line may begin with '@' too)
    out.records = std::max<std::uint64_t>(std::uint64_t(double(lines) / 4 * scale), 1);
  } else if (head.size() == bytes) {
    out.records = std::max<std::uint64_t>(begun, 1);
  } else if (begun >= 2) {  // the whole records of the sample, scaled
    out.records = std::uint64_t(double(begun - 1) * double(bytes) / double(last_header));
  } else if (bytes <= count_records_max_bytes) {  // one record longer than the sample (a genome): counted
    out.records = std::max<std::uint64_t>(begun + record_starts(in, head.back() == '\n'), 1);
  } else {  // … in a larger file: others as long as four samples
    out.records = std::max<std::uint64_t>(std::uint64_t(scale / 4), 1);
  }
  out.protein = letters > 0 && double(letters - nucleotides) > 0.1 * double(letters);
  if (letters > 0) {
    out.residues = std::uint64_t(double(letters) * scale);
    out.letters_seen = true;
  }
  return out;
}

}  // namespace swat
