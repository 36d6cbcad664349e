#pragma once
// Hand-built sequences, scoring schemes and alignments for the writer tests.

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/alignment.hpp"
#include "output/output.hpp"
#include "support/run_process.hpp"

namespace swat::output::test {

//! A sequence set of (name, letters) records in the given alphabet.
inline sequence_set make_set(alphabet_kind kind,
                             std::vector<std::pair<std::string, std::string>> records) {
  sequence_set set;
  set.file = "test.fa";
  set.alphabet = kind;
  const auto& table = kind == alphabet_kind::dna ? dna_rank_table() : protein_rank_table();
  for (auto& [name, text] : records) {
    sequence_record r;
    r.name = name;
    for (char c : text) {
      const std::uint8_t rank = table[static_cast<unsigned char>(c)];
      if (rank == invalid_rank) throw std::invalid_argument("bad test residue");
      r.residues.push_back(rank);
    }
    set.records.push_back(std::move(r));
  }
  return set;
}

//! blastn defaults: match 2, mismatch -3 (N mismatches everything), gap 5 + 2k.
inline scoring_scheme dna_scheme() {
  scoring_scheme s;
  s.alphabet = alphabet_kind::dna;
  for (int a = 0; a < dna_size; ++a)
    for (int b = 0; b < dna_size; ++b)
      s.matrix[a * matrix_stride + b] = (a == b && a != dna_n_rank) ? 2 : -3;
  s.gap_open = 5;
  s.gap_extend = 2;
  s.matrix_name = "match 2 mismatch -3";
  return s;
}

//! A toy protein matrix named "BLOSUM62": identical +5, the pairs I/V, I/L, L/V, K/R +2,
//! everything else -2; gap 11 + k. Not NCBI's BLOSUM62: give runs blosum62_stats().
inline scoring_scheme protein_scheme() {
  scoring_scheme s;
  s.alphabet = alphabet_kind::protein;
  const auto& t = protein_rank_table();
  for (int a = 0; a < protein_size; ++a)
    for (int b = 0; b < protein_size; ++b) s.matrix[a * matrix_stride + b] = a == b ? 5 : -2;
  const auto set = [&](char x, char y) {
    s.matrix[t[std::uint8_t(x)] * matrix_stride + t[std::uint8_t(y)]] = 2;
    s.matrix[t[std::uint8_t(y)] * matrix_stride + t[std::uint8_t(x)]] = 2;
  };
  set('I', 'V');
  set('I', 'L');
  set('L', 'V');
  set('K', 'R');
  s.gap_open = 11;
  s.gap_extend = 1;
  s.matrix_name = "BLOSUM62";
  return s;
}

//! NCBI's BLOSUM62 gap 11/1 parameters, given to runs of the toy protein_scheme() so that
//! their E-values do not depend on an estimate.
inline const scoring::karlin_params& blosum62_params() {
  static const scoring::karlin_params p{0.267, 0.041, 0.14, 1.9, -30, false, scoring::karlin_source::ncbi_table,
                                        "NCBI BLAST table: BLOSUM62, gap 11/1", std::nullopt};
  return p;
}

//! Analytic statistics with blosum62_params(), for run_context::statistics.
inline const scoring::search_statistics& blosum62_stats() {
  static const scoring::search_statistics s = scoring::search_statistics::analytic(blosum62_params());
  return s;
}

//! An alignment starting at (query_begin, target_begin) with ops from CIGAR text ("4M2I4M");
//! the ends follow from the ops and the score is recomputed under scheme.
inline alignment make_alignment(const sequence_set& queries, std::size_t qi,
                                const sequence_set& targets, std::size_t ti,
                                const scoring_scheme& scheme, std::int64_t query_begin,
                                std::int64_t target_begin, std::string_view cigar) {
  alignment a;
  a.query_begin = a.query_end = query_begin;
  a.target_begin = a.target_end = target_begin;
  std::uint32_t n = 0;
  for (char c : cigar) {
    if (c >= '0' && c <= '9') {
      n = n * 10 + std::uint32_t(c - '0');
      continue;
    }
    push_op(a.ops, c, n);
    if (c != 'D') a.query_end += n;
    if (c != 'I') a.target_end += n;
    n = 0;
  }
  a.score = std::int32_t(rescore(a, queries.records[qi].residues, targets.records[ti].residues,
                                 scheme));
  return a;
}

//! Output of write_hits as a string.
inline std::string render(const output_spec& spec, const run_context& ctx,
                          const std::vector<hit>& hits) {
  std::ostringstream out;
  write_hits(out, spec, ctx, hits);
  return out.str();
}

//! A python3 that can import `module`: the one on PATH, else Debian's /usr/bin/python3 (where
//! python3-biopython and python3-pysam install); "" when neither can (tests then skip).
inline std::string python_with(const std::string& module) {
  for (const char* python : {"python3", "/usr/bin/python3"}) {
    const std::string cmd = std::string(python) + " -c 'import " + module + "' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return python;
  }
  return "";
}

//! True when `tool` is on PATH.
inline bool have_tool(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

//! Runs `python -c script args` with text written to dir/name first; returns the result.
inline swat::test::process_result run_python(const std::string& python, const std::string& script,
                                             const std::string& text, const swat::test::temp_dir& dir,
                                             const std::string& name = "out.txt") {
  swat::test::write_file(dir / name, text);
  swat::test::write_file(dir / "check.py", script);
  return swat::test::run_shell(python + " " + (dir / "check.py").string() + " " + (dir / name).string(), dir);
}

//! The DNA fixture shared by the blast6, SAM and JSON tests.
struct dna_fixture {
  sequence_set queries = make_set(alphabet_kind::dna,
                                  {{"q1", "ACGTACGTAC"}, {"q2", "GGGACGTTTACGTCCC"}});
  sequence_set targets = make_set(alphabet_kind::dna,
                                  {{"t1", "TTACGTTCGTACGG"}, {"t2", "ACGTACGTACGT"}});
  scoring_scheme scheme = dna_scheme();
  run_context ctx{queries, targets, scheme, "0.1.0", "swat-gpu -q q.fa -d db.fa", 26};
  //! q1/t1 with one mismatch and a clipped base at each query end; q1/t2 exact (secondary for
  //! q1); q2/t2 with a 2-residue gap in the target (3 clipped bases each side).
  std::vector<hit> hits{
      {0, 0, make_alignment(queries, 0, targets, 0, scheme, 1, 3, "8M")},
      {0, 1, make_alignment(queries, 0, targets, 1, scheme, 0, 0, "10M")},
      {1, 1, make_alignment(queries, 1, targets, 1, scheme, 3, 0, "4M2I4M")},
  };
};

}  // namespace swat::output::test
