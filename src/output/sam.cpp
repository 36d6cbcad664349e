// SAM writer (SAM v1.6, https://samtools.github.io/hts-specs/SAMv1.pdf).
//
// Header: @HD VN:1.6 SO:unsorted, one @SQ per target in input order, @PG for swat-gpu.
// Records: the query is the read, the target the reference. The first hit of each query is
// primary (FLAG 0), later hits of the same query are secondary (FLAG 256, SEQ '*'). A
// minus-strand hit has FLAG 16 and SEQ reverse-complemented (its alignment already is of the
// reverse-complemented query against the forward target, see output.hpp). CIGAR uses
// '=' and 'X', with soft clips (S) for the query residues outside the local alignment, so the
// CIGAR's query length equals the full query length. A hit without an alignment (score 0, no
// ops) is written as an unmapped record (FLAG 4, RNAME '*', POS 0, CIGAR '*').
//
// Protein: SEQ holds the amino-acid letters. The SAM grammar allows any letter in SEQ
// ([A-Za-z=.]+) and samtools 1.16 reads such files without error or warning, but htslib keeps
// SEQ as 4-bit nucleotide codes, so anything samtools writes back (SAM or BAM) shows letters that
// are not IUPAC nucleotide codes as N (MMPQIKWLEA becomes MMNNNKWNNA). CIGAR, POS and the tags
// survive unchanged. Target names are written as given; SAM restricts RNAME characters and
// wants them unique, which FASTA names normally satisfy.

#include <string>
#include <vector>

#include "output/detail.hpp"

namespace swat::output::detail {

void write_sam(std::ostream& out, const run_context& ctx, std::span<const hit> hits) {
  const alphabet_kind kind = ctx.scheme.alphabet;
  out << "@HD\tVN:1.6\tSO:unsorted\n";
  for (const sequence_record& t : ctx.targets.records)
    out << "@SQ\tSN:" << t.name << "\tLN:" << t.residues.size() << '\n';
  out << "@PG\tID:swat-gpu\tPN:swat-gpu";
  if (!ctx.program_version.empty()) out << "\tVN:" << one_line(ctx.program_version);
  if (!ctx.command_line.empty()) out << "\tCL:" << one_line(ctx.command_line);
  out << '\n';

  std::vector<bool> seen(ctx.queries.records.size(), false);
  std::string line;
  strand_cache strands;
  for (const hit& h : hits) {
    const sequence_record& q = ctx.queries.records.at(h.query_index);
    const sequence_record& t = ctx.targets.records.at(h.target_index);
    const bool secondary = seen.at(h.query_index);
    seen[h.query_index] = true;
    const residue_span qr = strands.residues(q, h.query_index, h.strand);
    const std::string seq = secondary || q.residues.empty() ? "*" : letters(qr, kind);
    line = q.name;
    if (h.aln.ops.empty()) {
      line += "\t4\t*\t0\t0\t*\t*\t0\t0\t" + seq + "\t*\tAS:i:" + std::to_string(h.aln.score) + '\n';
      out << line;
      continue;
    }
    const alignment_stats stats = compute_stats(h.aln, qr, t.residues, kind);
    const std::int64_t clip_front = h.aln.query_begin;
    const std::int64_t clip_back = std::int64_t(q.residues.size()) - h.aln.query_end;
    std::string cigar;
    if (clip_front > 0) cigar += std::to_string(clip_front) + 'S';
    cigar += cigar_string(h.aln, qr, t.residues, kind, true);
    if (clip_back > 0) cigar += std::to_string(clip_back) + 'S';
    const int flag = (secondary ? 256 : 0) | (h.strand == dna_strand::minus ? 16 : 0);
    line += '\t' + std::to_string(flag) + '\t';
    line += t.name + '\t' + std::to_string(h.aln.target_begin + 1) + "\t255\t" + cigar;
    line += "\t*\t0\t0\t" + seq + "\t*";
    line += "\tAS:i:" + std::to_string(h.aln.score);
    line += "\tNM:i:" + std::to_string(stats.mismatches + stats.gaps) + '\n';
    out << line;
  }
}

}  // namespace swat::output::detail
