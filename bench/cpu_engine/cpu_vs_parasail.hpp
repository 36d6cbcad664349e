#pragma once
// `swat-gpu bench cpu --shapes …`: whole `swat-gpu align --device cpu` commands against
// parasail_aligner (scores only) on the same data, same thread counts, same run: the two shapes
// of issue 33 (issue_protein: the first 6 queries of db_queries.fa, 3,091 aa, × the Swiss-Prot
// subset; issue_reads: 2 reads of 5 kb of the mutated S. kunkelii × the genome) and the shapes
// of `bench shapes` (bench/shapes/shapes_data.hpp, at --scale). DNA runs on the plus strand on
// both sides (parasail has no reverse complement). Each parasail variant of the shape's alphabet
// is timed; the best one is the one to beat.

#include <string>
#include <vector>

namespace swat::bench {

//! The issue's two shapes, beside the names of shapes::shape_names.
inline constexpr const char* issue_protein_shape = "issue_protein";
inline constexpr const char* issue_reads_shape = "issue_reads";

//! What a comparison run takes.
struct vs_parasail_options {
  std::vector<std::string> shapes;  //!< shape names (issue_protein, issue_reads, shapes::shape_names)
  std::vector<unsigned> threads;    //!< thread counts, both tools (0: every core)
  std::string parasail_dir;         //!< unpacked Debian parasail package ("": swat-gpu alone)
  std::string self;                 //!< this binary
  double scale = 0.02;              //!< --scale of the `bench shapes` shapes
  int repeat = 3;                   //!< runs per tool (median kept), interleaved between the tools
  std::string csv_path;             //!< CSV (shape,tool,threads,seconds,gcups,commit,machine,date); "": none
  std::string command;              //!< the command line, for the CSV's provenance
  std::string commit;               //!< git commit recorded
  std::string machine;              //!< machine recorded
};

//! Runs the comparison, prints a table (and the ratio to parasail's best variant), writes the
//! CSV. Throws usage_error for an unknown shape, runtime_failure when a command fails.
void run_cpu_vs_parasail(const vs_parasail_options& options);

}  // namespace swat::bench
