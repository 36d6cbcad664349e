// End to end, `mpirun -np N swat-gpu align` on the CPU engine (src/dist): for 1 to 4 ranks the
// output is byte for byte one process's in tabular, SAM, JSON and pair (BAM once), for DNA on
// both strands and protein, also with ranks that have no targets (more ranks than targets),
// several alignments per target (--max-hsps), an E-value cutoff and a prepared database
// (makedb); empirical statistics fitted over the ranks; a database cut by hand into shards
// searched with --dbsize/--dbseqs gives the whole search's lines (E-values included); a rank that fails on its input or is killed ends
// the job with one error naming it and leaves no output file (a file that was there stays as it
// was). A build without MPI refuses several ranks. Skips where mpirun is not installed.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using swat::test::process_result;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const fs::path shared_data = SWAT_SHARED_DATA;
const std::string dna_query = (source_dir / "data/sarscov2_spike_gene.fa").string();
const std::string dna_db = (source_dir / "data/coronavirus_regions.fa").string();

//! mpirun as a test on a small machine runs it: as root where it must, more ranks than cores.
std::string mpirun(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 mpirun -q "
         "--oversubscribe --bind-to none -np " + std::to_string(ranks) + " ";
}

bool have_mpirun() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }

bool built_with_mpi() {
  const temp_dir dir;
  const std::string version = run_shell(binary + " --version", dir).out;
  return version.find("MPI: ") != std::string::npos && version.find("MPI: none") == std::string::npos;
}

#define SKIP_WITHOUT_MPI()                                                         \
  do {                                                                             \
    if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed";                 \
    if (!built_with_mpi()) GTEST_SKIP() << "this build has no MPI (see --version)"; \
  } while (0)

//! The records of a FASTA text from record `from` (0-based) on, `count` of them.
std::string records(const std::string& text, std::size_t from, std::size_t count) {
  std::vector<std::size_t> starts;  // where each record's '>' is
  for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) == std::string::npos ? text.size() : text.find('\n', at) + 1)
    if (text[at] == '>') starts.push_back(at);
  if (from >= starts.size()) return {};
  const std::size_t end = from + count >= starts.size() ? text.size() : starts[from + count];
  return text.substr(starts[from], end - starts[from]);
}

//! Whether ../shared/data holds the protein files the protein inputs take (a clone outside the
//! workspace has none: those tests skip).
bool shared_protein_data() {
  return fs::exists(shared_data / "protein/swissprot_subset_mmseqs2.fa") &&
         fs::exists(shared_data / "protein/spike_sarscov2_QHU36824.fa") && fs::exists(shared_data / "protein/db_queries.fa");
}

//! A protein database of the spike proteins and Swiss-Prot records; queries: three spikes.
struct protein_inputs {
  std::string query, db;
  protein_inputs(const temp_dir& dir, std::size_t swissprot) {
    query = (dir / "pq.fa").string();
    db = (dir / "pdb.fa").string();
    write_file(query, read_file(shared_data / "protein/spike_sarscov2_QHU36824.fa") +
                          read_file(shared_data / "protein/spike_ratg13_QHR63300.fa") +
                          read_file(shared_data / "protein/spike_sarscov_AAP33697.1.fa"));
    write_file(db, read_file(source_dir / "data/spike_proteins.fa") +
                       records(read_file(shared_data / "protein/swissprot_subset_mmseqs2.fa"), 0, swissprot));
  }
};

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

//! For each format, one process's output against mpirun's with 1 to 4 ranks.
void expect_ranks_match(const std::string& query, const std::string& db, const std::string& options,
                        const std::vector<int>& ranks,
                        const std::vector<std::string>& formats = {"6 std score", "sam", "json", "pair"}) {
  const temp_dir dir;
  for (const std::string& format : formats) {
    const std::string args = " align " + query + " " + db + " --device cpu --threads 1 --outfmt '" + format + "' " + options;
    const process_result one = run_shell(binary + args, dir);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    ASSERT_FALSE(one.out.empty());
    for (const int n : ranks) {
      const process_result many = run_shell(mpirun(n) + binary + args, dir);
      ASSERT_EQ(many.exit_code, 0) << n << " ranks: " << many.err;
      EXPECT_EQ(many.out, one.out) << n << " ranks, --outfmt " << format << " " << options;
    }
  }
}

TEST(cli_mpi, dna_both_strands_as_one_process) {
  SKIP_WITHOUT_MPI();
  // Three targets: with four ranks, one has none.
  expect_ranks_match(dna_query, dna_db, "--max-hits 2", {1, 2, 3, 4});
  expect_ranks_match(dna_query, dna_db, "--max-hsps 0", {2}, {"bam"});
}

TEST(cli_mpi, protein_as_one_process) {
  SKIP_WITHOUT_MPI();
  const temp_dir dir;
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs in(dir, 150);
  expect_ranks_match(in.query, in.db, "--max-hits 5 --max-hsps 2", {1, 2, 4});
  expect_ranks_match(in.query, in.db, "--evalue 1e-3", {3});
  // A prepared database (makedb, several volumes): every rank maps it.
  const std::string prefix = (dir / "prepared").string();
  const process_result made = run_shell(binary + " makedb " + in.db + " " + prefix + " --volume-size 64K --quiet", dir);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  expect_ranks_match(in.query, prefix, "--max-hits 5", {2}, {"6 std score", "json"});
}

TEST(cli_mpi, one_target_more_ranks_than_targets) {
  SKIP_WITHOUT_MPI();
  const temp_dir dir;
  const std::string db = (dir / "one.fa").string();
  write_file(db, records(read_file(dna_db), 0, 1));
  expect_ranks_match(dna_query, db, "", {3});
}

TEST(cli_mpi, empirical_statistics_fitted_over_the_ranks) {
  SKIP_WITHOUT_MPI();
  const temp_dir dir;
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs in(dir, 600);  // 500 targets or more: the fit (--stats empirical)
  const std::string args = " align " + in.query + " " + in.db +
                           " --device cpu --threads 1 --stats empirical --max-hits 20 --outfmt '6 std score'";
  const process_result one = run_shell(binary + args, dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const process_result many = run_shell(mpirun(3) + binary + args, dir);
  ASSERT_EQ(many.exit_code, 0) << many.err;
  EXPECT_EQ(many.out, one.out);
}

TEST(cli_mpi, dbsize_dbseqs_shards_give_the_whole_evalues) {
  // Also without MPI: shards searched one by one with the whole database's size, their lines
  // together (sorted) are the whole search's.
  const temp_dir dir;
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs in(dir, 150);
  const std::string db_text = read_file(in.db);
  std::size_t residues = 0, sequences = 0;
  {
    std::istringstream lines(db_text);
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with('>')) ++sequences;
      else residues += line.size();
  }
  const std::string shard1 = (dir / "shard1.fa").string(), shard2 = (dir / "shard2.fa").string();
  write_file(shard1, records(db_text, 0, 70));
  write_file(shard2, records(db_text, 70, 1000));
  const std::string options = " --device cpu --max-hits 1000 --outfmt '6 std score'";
  const process_result whole = run_shell(binary + " align " + in.query + " " + in.db + options, dir);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string sizes = " --dbsize " + std::to_string(residues) + " --dbseqs " + std::to_string(sequences);
  const process_result a = run_shell(binary + " align " + in.query + " " + shard1 + options + sizes, dir);
  const process_result b = run_shell(binary + " align " + in.query + " " + shard2 + options + sizes, dir);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  ASSERT_FALSE(a.out.empty());
  ASSERT_FALSE(b.out.empty());
  EXPECT_EQ(sorted_lines(a.out + b.out), sorted_lines(whole.out));
  // The merge of docs/usage.md: per query the best 3 by raw score, equal scores in shard order.
  const std::string top3 = " --device cpu --max-hits 3 --outfmt '6 std score'";
  const process_result whole3 = run_shell(binary + " align " + in.query + " " + in.db + top3, dir);
  ASSERT_EQ(whole3.exit_code, 0) << whole3.err;
  write_file(dir / "whole3.tsv", whole3.out);
  for (const auto& [shard, name] : {std::pair{shard1, "s1.tsv"}, std::pair{shard2, "s2.tsv"}})
    ASSERT_EQ(run_shell(binary + " align " + in.query + " " + shard + top3 + sizes + " -o " + (dir / name).string(), dir).exit_code, 0);
  // (In parentheses: run_shell's redirections, </dev/null among them, apply to the whole pipe.)
  const process_result merged = run_shell("(cd " + dir.path().string() + " && sort -s -t \"$(printf '\\t')\" -k1,1 -k13,13nr s1.tsv s2.tsv | "
                                          "awk -F '\\t' '++n[$1] <= 3')", dir);
  const process_result expected = run_shell("cd " + dir.path().string() + " && sort -s -t \"$(printf '\\t')\" -k1,1 whole3.tsv", dir);
  ASSERT_FALSE(expected.out.empty());
  EXPECT_EQ(merged.out, expected.out) << merged.err;
  // Without the sizes a shard's E-values are its own (smaller database, smaller E-values).
  const process_result alone = run_shell(binary + " align " + in.query + " " + shard2 + options, dir);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_NE(alone.out, b.out);
  // JSON says the size the E-values used.
  const process_result json =
      run_shell(binary + " align " + in.query + " " + shard1 + " --device cpu --outfmt json" + sizes, dir);
  EXPECT_NE(json.out.find("\"sequences\": " + std::to_string(sequences)), std::string::npos) << json.out.substr(0, 600);
  for (const std::string bad : {" --dbsize 0", " --dbseqs -3", " --dbsize x"}) {
    const process_result r = run_shell(binary + " align " + in.query + " " + shard1 + bad, dir);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find(bad.substr(1, 8)), std::string::npos) << r.err;
  }
}

TEST(cli_mpi, failing_rank_ends_the_job_without_output) {
  SKIP_WITHOUT_MPI();
  const temp_dir dir;
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs in(dir, 150);
  const std::string broken = (dir / "broken.fa").string();
  write_file(broken, ">x\nMKV1LL\n");
  const std::string out = (dir / "hits.tsv").string();
  // Rank 1 reads a damaged copy of the database (as a node whose copy is broken would).
  const std::string per_rank = "sh -c 'db=" + in.db + "; [ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && db=" + broken +
                               "; exec " + binary + " align " + in.query + " $db --device cpu --threads 1 -o " + out + "'";
  process_result r = run_shell(mpirun(2) + per_rank, dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("swat-gpu: error: rank 1 of 2: " + broken), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // A file the user had stays as it was.
  write_file(out, "mine\n");
  r = run_shell(mpirun(2) + per_rank, dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(read_file(out), "mine\n");
  // Rank 0's own bad input: the one process's error and exit status.
  const std::string rank0 = "sh -c 'db=" + in.db + "; [ \"$OMPI_COMM_WORLD_RANK\" = 0 ] && db=" + broken + "; exec " +
                            binary + " align " + in.query + " $db --device cpu --threads 1 -o " + out + "'";
  r = run_shell(mpirun(3) + rank0, dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("rank"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(broken), std::string::npos) << r.err;
  EXPECT_EQ(read_file(out), "mine\n");
  for (const auto& entry : fs::directory_iterator(dir.path()))  // no temporary file left
    EXPECT_EQ(entry.path().filename().string().find("hits.tsv."), std::string::npos) << entry.path();
}

TEST(cli_mpi, standard_input_and_server_clients_are_refused_under_mpirun) {
  SKIP_WITHOUT_MPI();
  const temp_dir dir;
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs in(dir, 20);
  // Only rank 0 has the standard input; a client would ask a server once per rank.
  for (const std::string& args : {"align - " + in.db, "align " + in.query + " -", "align " + in.query + " --server sock"}) {
    const process_result r = run_shell("cat " + in.query + " | " + mpirun(2) + binary + " " + args + " --device cpu", dir);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(args.find("--server") != std::string::npos ? "--server: a client runs as one process"
                                                                      : "standard input ('-') reaches only one"),
              std::string::npos)
        << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

TEST(cli_mpi, killed_rank_ends_the_job_without_output) {
  SKIP_WITHOUT_MPI();
  const temp_dir dir;
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs in(dir, 3000);
  const std::string out = (dir / "hits.tsv").string();
  // Rank 1 is killed while the ranks search (seven queries, titin among them: about ten seconds
  // on one thread).
  const std::string queries = (shared_data / "protein/db_queries.fa").string();
  const std::string per_rank = "sh -c '[ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && (sleep 1; kill -KILL $$) & exec " + binary +
                               " align " + queries + " " + in.db + " --device cpu --threads 1 -o " + out + "'";
  const process_result r = run_shell(mpirun(2) + per_rank, dir);
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find("hits.tsv."), std::string::npos) << entry.path();
}

TEST(cli_mpi, build_without_mpi_refuses_several_ranks) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed";
  if (built_with_mpi()) GTEST_SKIP() << "this build has MPI (the other tests run it)";
  const temp_dir dir;
  const process_result r = run_shell(mpirun(2) + binary + " align " + dna_query + " " + dna_db + " --device cpu", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("built without MPI"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
