#pragma once
// The data of `swat-gpu bench shapes`: five shapes of work (protein_db, reads_genome,
// genes_genome, all_vs_all, genome_pair) written as FASTA files (70-column lines) into a folder,
// made from the real sequences of the shared data folder (bench_data.hpp) by seeded mutation.
// Every item (query, target, read, gene, genome) draws from its own generator, seeded by the seed,
// the shape and the item's index, so a --scale below 1 keeps a prefix of the full-size files and
// a run on another day writes the same files. Rates and sizes: bench/README.md and shapes_data.cpp.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace swat::bench::shapes {

//! The five shapes, in the order a run takes them.
inline constexpr std::array<std::string_view, 5> shape_names = {"protein_db", "reads_genome", "genes_genome",
                                                                "all_vs_all", "genome_pair"};

//! The default seed of the data (any 64-bit value gives other data of the same shape).
inline constexpr std::uint64_t default_seed = 20261127;

//! How the data are made.
struct data_options {
  std::string dir;                    //!< folder the FASTA files are written into (must exist)
  std::uint64_t seed = default_seed;  //!< seed of every generator
  double scale = 1;                   //!< multiplies the counts of queries, targets, reads (at least 1 each)
};

//! The files of one shape and its size.
struct shape_data {
  std::string name;                  //!< one of shape_names
  std::string query_path;            //!< query FASTA
  std::string db_path;               //!< database FASTA (the query file itself for all_vs_all)
  bool protein = false;              //!< protein (else DNA)
  bool both_strands = false;         //!< swat-gpu align searches both strands of the queries
  std::uint64_t queries = 0;         //!< query records
  std::uint64_t targets = 0;         //!< database records
  std::uint64_t query_residues = 0;  //!< Σ query lengths (residues)
  std::uint64_t db_residues = 0;     //!< Σ target lengths (residues)

  //! DP cells of one strand: Σ query residues × Σ target residues.
  std::uint64_t one_strand_cells() const { return query_residues * db_residues; }
  //! DP cells of the search swat-gpu runs: one_strand_cells(), × 2 when both strands.
  std::uint64_t cells() const { return one_strand_cells() * (both_strands ? 2 : 1); }
};

//! True when name is one of shape_names.
bool is_shape(std::string_view name);

//! Writes the query and database FASTA files of shape into options.dir (NAME_queries.fa,
//! NAME_db.fa) and returns them with their sizes. Throws usage_error for an unknown shape,
//! input_error when a shared data file cannot be read, runtime_failure when a file cannot be
//! written.
shape_data make_shape(std::string_view shape, const data_options& options);

}  // namespace swat::bench::shapes
