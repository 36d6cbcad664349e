// End to end, `swat-gpu makedb` and searches of a prepared database on the CPU engine: every
// format (blast6, 7, SAM, BAM, pair, JSON) byte for byte what the FASTA database gives, DNA on
// both strands and protein, in one volume or many, from align and from serve; and the one-line
// errors (exit 2) of damaged files, another alphabet and a PREFIX that holds someone's file.
// The database is named in the output as given: the FASTA file and the PREFIX have names of the
// same length, which the comparisons exchange (BAM is compared decompressed).

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/serve_process.hpp"

namespace fs = std::filesystem;
using swat::test::process_result;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::serve_process;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const fs::path shared_data = SWAT_SHARED_DATA;
// Same length: the outputs name the database as given.
const std::string fasta_name = "db_fasta.fa";
const std::string prefix_name = "db_prepared";

std::string first_records(const fs::path& path, int n) {
  const std::string text = read_file(path);
  std::size_t at = 0;
  for (int k = 0; k <= n && at != std::string::npos; ++k) at = text.find('>', at + 1);
  return at == std::string::npos ? text : text.substr(0, at);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

process_result in_dir(const temp_dir& dir, const std::string& command) {
  return run_shell("cd " + dir.path().string() + " && " + command, dir);
}

//! Whether ../shared/data holds the protein files the protein inputs take (a clone outside the
//! workspace has none: those tests skip).
bool shared_protein_data() {
  return fs::exists(shared_data / "protein/swissprot_subset_mmseqs2.fa") &&
         fs::exists(shared_data / "protein/spike_sarscov2_QHU36824.fa") && fs::exists(shared_data / "protein/db_queries.fa");
}

//! Queries and database of one alphabet written into dir as q.fa and db_fasta.fa.
void write_inputs(const temp_dir& dir, bool protein) {
  if (protein) {
    write_file(dir / "q.fa", read_file(shared_data / "protein/spike_sarscov2_QHU36824.fa") +
                                 first_records(shared_data / "protein/db_queries.fa", 2));
    write_file(dir / fasta_name, read_file(source_dir / "data/spike_proteins.fa") +
                                     first_records(shared_data / "protein/swissprot_subset_mmseqs2.fa", 300));
  } else {
    write_file(dir / "q.fa", read_file(source_dir / "data/sarscov2_spike_gene.fa"));
    write_file(dir / fasta_name, read_file(source_dir / "data/coronavirus_regions.fa"));
  }
}

class cli_makedb : public ::testing::Test {
 protected:
  temp_dir dir;
  process_result makedb(const std::string& args) { return in_dir(dir, binary + " makedb " + args); }
  process_result align(const std::string& args) { return in_dir(dir, binary + " align " + args + " --device cpu"); }
};

}  // namespace

TEST_F(cli_makedb, every_format_is_the_fasta_databases_byte_for_byte) {
  for (const bool protein : {false, true}) {
    if (protein && !shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
    write_inputs(dir, protein);
    for (const std::string volume_size : {"1G", "4K"}) {
      const auto made = makedb(fasta_name + " " + prefix_name + " --volume-size " + volume_size);
      ASSERT_EQ(made.exit_code, 0) << made.err;
      EXPECT_NE(made.err.find("notice: wrote db_prepared.swdb: "), std::string::npos) << made.err;
      if (volume_size == "4K") {
        EXPECT_EQ(made.err.find(" 1 volume,"), std::string::npos) << made.err;
      }
      for (const std::string fmt : {"blast6", "7 std score", "sam", "bam", "pair", "json"}) {
        for (const std::string extra : {"", " --max-hits 2 --max-hsps 2"}) {
          if (!extra.empty() && fmt != "blast6" && fmt != "sam") continue;
          if (fmt == "bam" && protein) continue;  // BAM holds nucleotides only
          const std::string opts = " --outfmt '" + fmt + "'" + extra + " -o out";
          const auto one = align("q.fa " + fasta_name + opts);
          ASSERT_EQ(one.exit_code, 0) << one.err;
          const std::string expected = fmt == "bam" ? in_dir(dir, "gzip -dc out").out : read_file(dir / "out");
          const auto two = align("q.fa " + prefix_name + opts);
          ASSERT_EQ(two.exit_code, 0) << two.err;
          const std::string got = fmt == "bam" ? in_dir(dir, "gzip -dc out").out : read_file(dir / "out");
          EXPECT_FALSE(expected.empty());
          EXPECT_EQ(replace_all(got, prefix_name, fasta_name), expected) << fmt << extra << " protein " << protein;
          EXPECT_EQ(one.err, two.err);
        }
      }
    }
    // The index's own name works as well as PREFIX.
    const auto one = align("q.fa " + fasta_name);
    const auto two = align("q.fa " + prefix_name + ".swdb");
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_EQ(one.out, two.out);
  }
}

TEST_F(cli_makedb, serve_answers_from_a_prepared_database_as_align_from_the_fasta) {
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  write_inputs(dir, true);
  ASSERT_EQ(makedb(fasta_name + " " + prefix_name + " --volume-size 8K").exit_code, 0);
  const fs::path run = dir / "run";
  fs::create_directory(run);
  fs::permissions(run, fs::perms::owner_all, fs::perm_options::replace);
  const std::string socket = (run / "s.sock").string();
  serve_process server(binary, {(dir / prefix_name).string(), "--socket", socket, "--device", "cpu"}, dir / "server.err");
  ASSERT_TRUE(server.ready()) << server.stderr_text();
  for (const std::string fmt : {"blast6", "sam", "json"}) {
    const auto one = align("q.fa " + (dir / fasta_name).string() + " --outfmt " + fmt);
    const auto two = in_dir(dir, binary + " align q.fa --server " + socket + " --outfmt " + fmt);
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_EQ(replace_all(two.out, (dir / prefix_name).string(), (dir / fasta_name).string()), one.out) << fmt;
  }
  // A DNA query against the protein database: the alphabet error.
  write_file(dir / "dna.fa", ">d\nACGTACGTACGTAAACCCGGGTTT\n");
  const auto dna = in_dir(dir, binary + " align dna.fa --server " + socket);
  EXPECT_EQ(dna.exit_code, 2);
  EXPECT_NE(dna.err.find("is a prepared protein database"), std::string::npos) << dna.err;
}

TEST_F(cli_makedb, damaged_files_and_other_alphabets_are_one_line_errors) {
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  write_inputs(dir, true);
  ASSERT_EQ(makedb(fasta_name + " " + prefix_name + " --volume-size 16K").exit_code, 0);
  std::vector<fs::path> volumes;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().extension() == ".swdbv") volumes.push_back(e.path());
  ASSERT_GE(volumes.size(), 2u);
  const auto one_line_error = [](const process_result& r, const std::string& words) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  };
  // Another alphabet: DNA queries, or --alphabet dna.
  write_file(dir / "dna.fa", ">d\nACGTACGTACGTAAACCCGGGTTT\n");
  one_line_error(align("dna.fa " + prefix_name), "dna.fa reads as dna but db_prepared is a prepared protein database");
  one_line_error(align("dna.fa " + prefix_name + " --alphabet dna"), "--alphabet dna: db_prepared is a prepared protein database");
  // A volume given for the database.
  one_line_error(align("q.fa " + volumes[0].string()), "is a volume of a prepared database");
  // A truncated volume, a corrupted one, a newer format, a missing one.
  const std::string saved = read_file(volumes[1]);
  write_file(volumes[1], saved.substr(0, saved.size() / 2));
  one_line_error(align("q.fa " + prefix_name), "truncated: ");
  std::string flipped = saved;
  flipped[flipped.size() - 10] ^= 0x20;
  write_file(volumes[1], flipped);
  one_line_error(align("q.fa " + prefix_name), "corrupted: the volume's checksum does not match");
  std::string newer = saved;
  newer[8] = 7;
  write_file(volumes[1], newer);
  one_line_error(align("q.fa " + prefix_name), "database format version 7 is newer than this swat-gpu reads");
  fs::remove(volumes[1]);
  one_line_error(align("q.fa " + prefix_name), volumes[1].filename().string());
  write_file(volumes[1], saved);
  EXPECT_EQ(align("q.fa " + prefix_name).exit_code, 0);
  // An output that would replace the index or a volume is refused.
  one_line_error(align("q.fa " + prefix_name + " -o " + prefix_name + ".swdb"), "is the same file as input");
  one_line_error(align("q.fa " + prefix_name + " -o " + volumes[0].string()), "is the same file as input");
}

TEST_F(cli_makedb, makedb_replaces_only_its_own_files_and_leaves_nothing_when_it_fails) {
  write_inputs(dir, false);
  const auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.path()))
      if (e.path().filename().string()[0] != '.') names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  // Bad FASTA: exit 2, nothing written.
  write_file(dir / "bad.fa", ">a\nACGT\n>b\nAC1GT\n");
  auto before = listing();
  const auto bad = makedb("bad.fa " + prefix_name);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(listing(), before);
  // A PREFIX.swdb that is someone's file is never replaced.
  write_file(dir / "mine.swdb", "my notes\n");
  const auto refused = makedb(fasta_name + " mine");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("mine.swdb exists and is not a swat-gpu database index"), std::string::npos) << refused.err;
  EXPECT_EQ(read_file(dir / "mine.swdb"), "my notes\n");
  // A database made again: the new volumes replace the old ones, which are removed.
  ASSERT_EQ(makedb(fasta_name + " " + prefix_name + " --volume-size 4K").exit_code, 0);
  const auto first = listing();
  ASSERT_EQ(makedb(fasta_name + " " + prefix_name).exit_code, 0);
  const auto second = listing();
  const auto volumes_in = [](const std::vector<std::string>& names) {
    return std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.ends_with(".swdbv"); });
  };
  EXPECT_GT(volumes_in(first), 1);
  EXPECT_EQ(volumes_in(second), 1);
  const auto one = align("q.fa " + fasta_name);
  const auto two = align("q.fa " + prefix_name);
  EXPECT_EQ(one.out, two.out);
  // --timing says how the prepared database was read and the host's peak memory.
  const auto timed = align("q.fa " + prefix_name + " --timing --quiet");
  EXPECT_NE(timed.err.find("(prepared database: 1 volume, "), std::string::npos) << timed.err;
  EXPECT_NE(timed.err.find("| host peak memory "), std::string::npos) << timed.err;
  // Usage errors.
  EXPECT_EQ(makedb(fasta_name).exit_code, 2);
  EXPECT_EQ(makedb(fasta_name + " x --volume-size 1K").exit_code, 2);
  EXPECT_EQ(makedb(fasta_name + " x --volume-size lots").exit_code, 2);
  const auto long_name = makedb(fasta_name + " " + std::string(80, 'n'));
  EXPECT_EQ(long_name.exit_code, 2);
  EXPECT_NE(long_name.err.find("choose a shorter one"), std::string::npos) << long_name.err;
  EXPECT_EQ(makedb(fasta_name + " sub/").exit_code, 2);
}

namespace {

//! Names of the files in dir (sorted; hidden ones left out).
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] != '.') names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::size_t count_ending(const std::vector<std::string>& names, const std::string& end) {
  return std::size_t(std::count_if(names.begin(), names.end(), [&](const std::string& n) { return n.ends_with(end); }));
}

std::size_t count_containing(const std::vector<std::string>& names, const std::string& part) {
  return std::size_t(std::count_if(names.begin(), names.end(),
                                   [&](const std::string& n) { return n.find(part) != std::string::npos; }));
}

//! A DNA FASTA of n records of length residues each (seeded): a database of many 4K volumes.
std::string many_records(std::size_t n, std::size_t length) {
  std::mt19937 rng(7);
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    text += ">r" + std::to_string(i) + "\n";
    for (std::size_t k = 0; k < length; ++k) text += "ACGT"[rng() % 4];
    text += "\n";
  }
  return text;
}

//! Runs `binary makedb args…` (default signal dispositions), waits until a finished volume
//! (*.swdbv) is in dir, sends sig and waits; true when it died by that signal.
bool signal_makedb(const std::vector<std::string>& args, const fs::path& dir, int sig) {
  const pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    std::vector<char*> argv{const_cast<char*>(binary.c_str()), const_cast<char*>("makedb")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  for (int k = 0; k < 20000; ++k) {
    if (count_ending(names_in(dir), ".swdbv") >= 2) break;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  ::kill(pid, sig);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return false;
  return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

}  // namespace

TEST_F(cli_makedb, a_fifo_at_the_index_path_is_refused_not_waited_on) {
  write_inputs(dir, false);
  ASSERT_EQ(::mkfifo((dir / "f.swdb").c_str(), 0600), 0);
  const auto timed = in_dir(dir, "timeout 10 " + binary + " makedb " + fasta_name + " f");
  EXPECT_EQ(timed.exit_code, 2) << timed.err;
  EXPECT_EQ(std::count(timed.err.begin(), timed.err.end(), '\n'), 1) << timed.err;
  EXPECT_NE(timed.err.find("f.swdb exists and is not a swat-gpu database index"), std::string::npos) << timed.err;
  EXPECT_TRUE(fs::is_fifo(dir / "f.swdb"));
  EXPECT_EQ(count_ending(names_in(dir.path()), ".swdbv"), 0u);
}

TEST_F(cli_makedb, a_symlinked_index_is_read_through_and_never_replaced) {
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  write_inputs(dir, true);
  fs::create_directory(dir / "A");
  fs::create_directory(dir / "B");
  ASSERT_EQ(makedb("--quiet " + fasta_name + " A/real --volume-size 16K").exit_code, 0);
  fs::create_symlink("../A/real.swdb", dir / "B/link.swdb");
  write_file(dir / "B/db.fa.swdbv", "mine\n");
  const auto before_a = names_in(dir / "A");
  const std::string index_bytes = read_file(dir / "A/real.swdb");
  // A search through the link finds the volumes beside the file it names.
  const auto through = align("q.fa B/link");
  const auto direct = align("q.fa A/real");
  ASSERT_EQ(through.exit_code, 0) << through.err;
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_EQ(replace_all(through.out, "B/link", "A/real"), direct.out);
  // makedb onto the link: one line, exit 2, nothing written or removed anywhere.
  write_file(dir / "other.fa", ">o\nMKVLAAGIVALLLAAGCSSSKEEAQ\n");
  const auto refused = makedb("other.fa B/link");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_NE(refused.err.find("B/link.swdb is a symbolic link; refusing to replace it"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::is_symlink(dir / "B/link.swdb"));
  EXPECT_EQ(read_file(dir / "A/real.swdb"), index_bytes);
  EXPECT_EQ(names_in(dir / "A"), before_a);
  EXPECT_EQ(names_in(dir / "B"), (std::vector<std::string>{"db.fa.swdbv", "link.swdb"}));
  EXPECT_EQ(align("q.fa A/real").out, direct.out);
}

TEST_F(cli_makedb, a_signal_leaves_no_volume_and_a_later_run_removes_what_kill_9_left) {
  write_file(dir / "big.fa", many_records(4000, 3000));
  for (const int sig : {SIGTERM, SIGINT}) {
    ASSERT_TRUE(signal_makedb({"--quiet", "big.fa", "sig", "--volume-size", "4K"}, dir.path(), sig)) << sig;
    const auto left = names_in(dir.path());
    EXPECT_EQ(left, (std::vector<std::string>{"big.fa"})) << "signal " << sig << ": " << left.size() << " files left";
  }
  // kill -9 leaves its volumes (and maybe a temporary file): the next makedb of that PREFIX
  // removes every one whose header is a swat-gpu volume's, and nothing else.
  ASSERT_TRUE(signal_makedb({"--quiet", "big.fa", "sig", "--volume-size", "4K"}, dir.path(), SIGKILL));
  ASSERT_GE(count_ending(names_in(dir.path()), ".swdbv"), 2u);
  write_file(dir / "sig.abcdef.000.swdbv", "not a volume\n");
  write_file(dir / "sig.abcdef.001.swdbv.tmp.1.2", "");
  write_file(dir / "other.fa", ">o\nACGTACGTAAACCCGGGTTTACGT\n");
  ASSERT_EQ(makedb("--quiet other.fa sig").exit_code, 0);
  const auto after = names_in(dir.path());
  EXPECT_EQ(count_ending(after, ".swdbv"), 2u);  // the new one and the file that is not a volume
  EXPECT_EQ(read_file(dir / "sig.abcdef.000.swdbv"), "not a volume\n");
  EXPECT_TRUE(fs::exists(dir / "sig.abcdef.001.swdbv.tmp.1.2"));
  // A temporary file the killed run had not yet given its volume header stays (nothing tells it
  // from someone else's; slow runs, e.g. under ASan, are killed while one is being written).
  std::size_t kept = 0;
  for (const std::string& name : after)
    if (name.find(".tmp.") != std::string::npos && name != "sig.abcdef.001.swdbv.tmp.1.2") {
      ++kept;
      EXPECT_EQ(name.rfind("sig.", 0), 0u) << name;
      EXPECT_NE(name.find(".swdbv.tmp."), std::string::npos) << name;
    }
  EXPECT_EQ(count_containing(after, ".tmp."), kept + 1);
  // big.fa other.fa sig.swdb, its volume, the two of mine, and the kept temporaries.
  EXPECT_EQ(after.size(), 6u + kept) << after.size();
}

TEST_F(cli_makedb, a_copied_index_made_again_leaves_the_original_databases_volumes) {
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  write_inputs(dir, true);
  ASSERT_EQ(makedb("--quiet " + fasta_name + " db --volume-size 16K").exit_code, 0);
  const auto before = align("q.fa db");
  ASSERT_EQ(before.exit_code, 0) << before.err;
  fs::copy_file(dir / "db.swdb", dir / "db2.swdb");
  write_file(dir / "other.fa", ">o\nMKVLAAGIVALLLAAGCSSSKEEAQ\n");
  ASSERT_EQ(makedb("--quiet other.fa db2").exit_code, 0);
  const auto after = align("q.fa db");
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out, before.out);
}

TEST_F(cli_makedb, volume_size_errors_state_the_range_it_takes) {
  write_inputs(dir, false);
  for (const std::string size : {"0", "1", "4095", "3K", "8388608G", "99999999999999999999"}) {
    const auto r = makedb(fasta_name + " x --volume-size " + size);
    EXPECT_EQ(r.exit_code, 2) << size;
    EXPECT_NE(r.err.find("--volume-size: " + size + " is outside 4K … 8388607G"), std::string::npos) << r.err;
  }
  EXPECT_NE(makedb(fasta_name + " x --volume-size lots").err.find("'lots' is not a size"), std::string::npos);
  for (const std::string size : {"4096", "4K", "16777216", "1G"}) EXPECT_EQ(makedb("--quiet " + fasta_name + " x --volume-size " + size).exit_code, 0) << size;
}
