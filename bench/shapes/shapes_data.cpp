// The seeded data of `swat-gpu bench shapes` (see shapes_data.hpp): mutated copies of Swiss-Prot
// entries and pieces of the Spiroplasma kunkelii genome and its mutated copy, written as FASTA.
//
// A mutation of rate (s, d) visits every residue of the source once: with probability d an indel
// starts there (length 1-3, insertion of random residues before it or deletion of it and the
// next ones, equally likely), else with probability s the residue is replaced by another one
// (DNA: A C G T; protein: the 20 standard amino acids), else it is kept. A DNA rate r means
// s = 0.9 r, d = 0.1 r. Items of one file are redrawn until no two are identical.

#include "bench/shapes/shapes_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <span>
#include <unordered_set>
#include <vector>

#include "bench/common/bench_data.hpp"
#include "common/alphabet.hpp"
#include "common/error.hpp"
#include "common/sequence.hpp"
#include "io/fasta.hpp"

namespace swat::bench::shapes {
namespace {

using residues = std::vector<std::uint8_t>;

residues copy_of(std::span<const std::uint8_t> s) { return residues(s.begin(), s.end()); }

//! One record to write: name, description, encoded residues.
struct record {
  std::string name;
  std::string description;
  residues seq;
};

//! A small seeded generator (SplitMix64, Steele, Lea & Flood 2014): the same numbers with every
//! compiler and standard library, unlike std::uniform_*_distribution.
class item_rng {
 public:
  //! The generator of item index of stream (0 queries, 1 targets or genomes) of shape.
  item_rng(std::uint64_t seed, std::string_view shape, std::uint64_t stream, std::uint64_t index) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a of the shape's name
    for (char c : shape) h = (h ^ std::uint8_t(c)) * 1099511628211ull;
    state_ = seed;
    for (std::uint64_t word : {h, stream, index}) {
      state_ ^= word;
      state_ = next();
    }
  }
  //! The next 64 random bits.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  //! Uniform in [0, 1).
  double real() { return double(next() >> 11) * 0x1p-53; }
  //! Uniform in [0, n) (n > 0; the modulo bias is below n / 2^64).
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  //! Uniform in [lo, hi].
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }

 private:
  std::uint64_t state_ = 0;
};

//! Per-residue probabilities of a mutation (see the top of this file).
struct mutation {
  double substitution = 0;  //!< probability that a residue is replaced
  double indel = 0;         //!< probability that an indel of 1-3 residues starts at a residue
};

//! A DNA mutation of rate r: 90 % of the events substitutions, 10 % indels.
mutation dna_rate(double r) { return {0.9 * r, 0.1 * r}; }

constexpr std::string_view standard_amino_acids = "ACDEFGHIKLMNPQRSTVWY";

std::uint8_t random_residue(bool protein, item_rng& rng) {
  if (!protein) return std::uint8_t(rng.below(4));
  return protein_rank_table()[std::uint8_t(standard_amino_acids[rng.below(standard_amino_acids.size())])];
}

//! src with the mutation m applied.
residues mutate(std::span<const std::uint8_t> src, mutation m, bool protein, item_rng& rng) {
  residues out;
  out.reserve(src.size() + src.size() / 16 + 8);
  for (std::size_t i = 0; i < src.size();) {
    const double u = rng.real();
    if (u < m.indel) {
      const std::size_t length = 1 + rng.below(3);
      if (rng.below(2) == 0) {
        for (std::size_t k = 0; k < length; ++k) out.push_back(random_residue(protein, rng));
        out.push_back(src[i++]);
      } else {
        i += length;
      }
      continue;
    }
    std::uint8_t r = src[i++];
    if (u < m.indel + m.substitution) {
      std::uint8_t other = random_residue(protein, rng);
      while (other == r) other = random_residue(protein, rng);
      r = other;
    }
    out.push_back(r);
  }
  return out;
}

//! length residues of s from start.
std::span<const std::uint8_t> piece(std::span<const std::uint8_t> s, std::size_t start, std::size_t length) {
  return std::span<const std::uint8_t>(s).subspan(start, length);
}

//! Remembers the items of one file so that no two are identical.
class distinct_items {
 public:
  //! draw() until it returns a non-empty item not seen before (at most 1,000 tries).
  residues next(const std::function<residues()>& draw) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
      residues r = draw();
      const std::string_view bytes(reinterpret_cast<const char*>(r.data()), r.size());
      if (!r.empty() && seen_.insert(std::hash<std::string_view>{}(bytes)).second) return r;
    }
    throw runtime_failure("bench shapes: cannot draw a distinct item (source too short?)");
  }

 private:
  std::unordered_set<std::size_t> seen_;
};

//! Every record of a file of the shared data folder.
std::vector<sequence_record> read_shared(const std::string& relative, bool protein) {
  const auto set = io::read_fasta(shared_data_dir() + "/" + relative,
                                  protein ? io::alphabet_request::protein : io::alphabet_request::dna, {});
  if (set.records.empty()) throw input_error(shared_data_dir() + "/" + relative, "no record");
  return set.records;
}

//! Writes records as FASTA with 70-column lines; throws runtime_failure when it cannot.
void write_fasta(const std::string& path, const std::vector<record>& records, bool protein) {
  std::ofstream out(path, std::ios::binary);
  const alphabet_kind kind = protein ? alphabet_kind::protein : alphabet_kind::dna;
  std::string line;
  for (const record& r : records) {
    out << '>' << r.name << (r.description.empty() ? "" : " ") << r.description << '\n';
    for (std::size_t i = 0; i < r.seq.size(); i += 70) {
      line.clear();
      for (std::size_t k = i; k < std::min(i + 70, r.seq.size()); ++k) line += rank_to_char(kind, r.seq[k]);
      out << line << '\n';
    }
  }
  out.close();
  if (!out) throw runtime_failure("bench shapes: cannot write " + path);
}

std::uint64_t residue_count(const std::vector<record>& records) {
  std::uint64_t n = 0;
  for (const record& r : records) n += r.seq.size();
  return n;
}

//! count × scale rounded, at least 1.
std::size_t scaled(std::size_t count, double scale) {
  return std::size_t(std::max<long long>(1, std::llround(double(count) * scale)));
}

//! prefix followed by i, e.g. "q17" (appended piecewise: a string literal + std::to_string(i) trips
//! a GCC 12 -Wrestrict false positive).
std::string numbered(const char* prefix, std::size_t i) { return std::string(prefix).append(std::to_string(i)); }

std::string percent(double rate) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f%%", rate * 100);
  return s;
}

//! "from NAME:START-END" (1-based, inclusive) and the strand.
std::string origin(const std::string& name, std::size_t start, std::size_t length, bool minus) {
  return "from " + name + ":" + std::to_string(start + 1) + "-" + std::to_string(start + length) +
         (minus ? " minus" : " plus");
}

//! Writes queries and targets as shape's two files (targets null: the query file is the
//! database too) and fills in the sizes.
shape_data finish(std::string_view shape, const data_options& options, bool protein, bool both_strands,
                  const std::vector<record>& queries, const std::vector<record>* targets) {
  shape_data d;
  d.name = std::string(shape);
  d.protein = protein;
  d.both_strands = both_strands;
  d.query_path = options.dir + "/" + d.name + "_queries.fa";
  write_fasta(d.query_path, queries, protein);
  d.db_path = d.query_path;
  if (targets != nullptr) {
    d.db_path = options.dir + "/" + d.name + "_db.fa";
    write_fasta(d.db_path, *targets, protein);
  }
  d.queries = queries.size();
  d.targets = targets != nullptr ? targets->size() : queries.size();
  d.query_residues = residue_count(queries);
  d.db_residues = targets != nullptr ? residue_count(*targets) : d.query_residues;
  return d;
}

constexpr const char* kunkelii_file = "dna/spiroplasma_kunkelii_CP010899.1.fa";
constexpr const char* mutated_file = "dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa";

// 400 queries (15 % substitutions) × 30,000 targets (10-30 % substitutions), 0.5 % indels each,
// mutated from the 3,183 Swiss-Prot entries (target i from entry i mod 3,183).
shape_data protein_db(const data_options& o) {
  constexpr std::string_view shape = "protein_db";
  const auto swissprot = read_shared("protein/swissprot_subset_mmseqs2.fa", true);
  std::vector<record> queries, targets;
  distinct_items seen_queries, seen_targets;
  for (std::size_t i = 0; i < scaled(400, o.scale); ++i) {
    item_rng rng(o.seed, shape, 0, i);
    const sequence_record& src = swissprot[rng.below(swissprot.size())];
    residues q = seen_queries.next([&] { return mutate(src.residues, {0.15, 0.005}, true, rng); });
    queries.push_back({numbered("q", i), "from " + src.name + ", 15.0% substitutions", std::move(q)});
  }
  for (std::size_t i = 0; i < scaled(30000, o.scale); ++i) {
    item_rng rng(o.seed, shape, 1, i);
    const sequence_record& src = swissprot[i % swissprot.size()];
    const double substitution = 0.10 + 0.20 * rng.real();
    residues t = seen_targets.next([&] { return mutate(src.residues, {substitution, 0.005}, true, rng); });
    targets.push_back(
        {numbered("t", i), "from " + src.name + ", " + percent(substitution) + " substitutions", std::move(t)});
  }
  return finish(shape, o, true, false, queries, &targets);
}

// 150 reads of 1-10 kb from S. kunkelii, 5 % mutations, every third one reverse-complemented;
// the database is the genome.
shape_data reads_genome(const data_options& o) {
  constexpr std::string_view shape = "reads_genome";
  const sequence_record genome = read_shared(kunkelii_file, false).front();
  std::vector<record> reads;
  distinct_items seen;
  for (std::size_t i = 0; i < scaled(150, o.scale); ++i) {
    item_rng rng(o.seed, shape, 0, i);
    const std::size_t length = std::min<std::size_t>(rng.between(1000, 10000), genome.residues.size());
    const std::size_t start = rng.below(genome.residues.size() - length + 1);
    const bool minus = i % 3 == 2;
    residues r = seen.next([&] { return mutate(piece(genome.residues, start, length), dna_rate(0.05), false, rng); });
    if (minus) r = reverse_complement(r);
    reads.push_back({numbered("read", i), origin(genome.name, start, length, minus) + ", 5% mutations",
                     std::move(r)});
  }
  const std::vector<record> targets{{genome.name, "", copy_of(genome.residues)}};
  return finish(shape, o, false, true, reads, &targets);
}

// 4 genomes, smallest first (a --scale below 1 keeps the smallest): Stx2 phage + lambda
// concatenated (0.11 Mb); 0.3 Mb of the mutated copy from 1,000,000, mutated 2 % more; 0.8 Mb of
// the mutated copy from 100,000; S. kunkelii (1.46 Mb). Query k (5-50 kb, 3 % mutations, odd k
// reverse-complemented) is a piece of genome k mod 4.
shape_data genes_genome(const data_options& o) {
  constexpr std::string_view shape = "genes_genome";
  const sequence_record kunkelii = read_shared(kunkelii_file, false).front();
  const sequence_record mutated = read_shared(mutated_file, false).front();
  std::vector<record> genomes;
  {
    residues phages = copy_of(read_shared("dna/stx2_phage_II_AP005154.1.fa", false).front().residues);
    const residues lambda = copy_of(read_shared("dna/lambda_NC_001416.1.fa", false).front().residues);
    phages.insert(phages.end(), lambda.begin(), lambda.end());
    genomes.push_back({"stx2_lambda", "AP005154.1 then NC_001416.1", std::move(phages)});
    item_rng rng(o.seed, shape, 1, 1);
    genomes.push_back({"mutated_slice_0.3Mb", origin(mutated.name, 1000000, 300000, false) + ", 2% mutations",
                       mutate(piece(mutated.residues, 1000000, 300000), dna_rate(0.02), false, rng)});
    const auto slice = piece(mutated.residues, 100000, 800000);
    genomes.push_back({"mutated_slice_0.8Mb", origin(mutated.name, 100000, 800000, false),
                       residues(slice.begin(), slice.end())});
    genomes.push_back({kunkelii.name, "", copy_of(kunkelii.residues)});
  }
  std::vector<record> queries;
  distinct_items seen;
  for (std::size_t k = 0; k < scaled(4, o.scale); ++k) {
    item_rng rng(o.seed, shape, 0, k);
    const record& g = genomes[k % genomes.size()];
    const std::size_t length = std::min<std::size_t>(rng.between(5000, 50000), g.seq.size());
    const std::size_t start = rng.below(g.seq.size() - length + 1);
    const bool minus = k % 2 == 1;
    residues q = seen.next([&] { return mutate(piece(g.seq, start, length), dna_rate(0.03), false, rng); });
    if (minus) q = reverse_complement(q);
    queries.push_back({numbered("gene", k), origin(g.name, start, length, minus) + ", 3% mutations",
                       std::move(q)});
  }
  genomes.resize(scaled(genomes.size(), o.scale));
  return finish(shape, o, false, true, queries, &genomes);
}

// 1,000 genes of 1-3 kb, even ones from S. kunkelii, odd ones from its mutated copy, each 5 %
// mutated; one file is both the queries and the database.
shape_data all_vs_all(const data_options& o) {
  constexpr std::string_view shape = "all_vs_all";
  const sequence_record kunkelii = read_shared(kunkelii_file, false).front();
  const sequence_record mutated = read_shared(mutated_file, false).front();
  std::vector<record> genes;
  distinct_items seen;
  for (std::size_t i = 0; i < scaled(1000, o.scale); ++i) {
    item_rng rng(o.seed, shape, 0, i);
    const sequence_record& g = i % 2 == 0 ? kunkelii : mutated;
    const std::size_t length = rng.between(1000, 3000);
    const std::size_t start = rng.below(g.residues.size() - length + 1);
    residues s = seen.next([&] { return mutate(piece(g.residues, start, length), dna_rate(0.05), false, rng); });
    genes.push_back({numbered("gene", i), origin(g.name, start, length, false) + ", 5% mutations",
                     std::move(s)});
  }
  return finish(shape, o, false, true, genes, nullptr);
}

// S. kunkelii against its mutated copy (mason_variator seed 42), plus strand; no scaling.
shape_data genome_pair(const data_options& o) {
  const sequence_record kunkelii = read_shared(kunkelii_file, false).front();
  const sequence_record mutated = read_shared(mutated_file, false).front();
  const std::vector<record> queries{{kunkelii.name, "", copy_of(kunkelii.residues)}};
  const std::vector<record> targets{{mutated.name, "", copy_of(mutated.residues)}};
  return finish("genome_pair", o, false, false, queries, &targets);
}

}  // namespace

bool is_shape(std::string_view name) {
  return std::find(shape_names.begin(), shape_names.end(), name) != shape_names.end();
}

shape_data make_shape(std::string_view shape, const data_options& options) {
  if (shape == "protein_db") return protein_db(options);
  if (shape == "reads_genome") return reads_genome(options);
  if (shape == "genes_genome") return genes_genome(options);
  if (shape == "all_vs_all") return all_vs_all(options);
  if (shape == "genome_pair") return genome_pair(options);
  throw usage_error("bench shapes: unknown shape '" + std::string(shape) + "'");
}

}  // namespace swat::bench::shapes
