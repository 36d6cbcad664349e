// End-to-end tests of `swat-gpu align`: every output format, real data against
// ../shared/data/expected.tsv, and messy inputs (CRLF, lowercase, gzip) scoring like clean ones.

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "support/run_process.hpp"
#include "support/sequence_text.hpp"

namespace fs = std::filesystem;
using swat::test::process_result;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::tsv_rows;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const fs::path shared_data = SWAT_SHARED_DATA;

process_result run_swat(const std::string& args, const temp_dir& dir) {
  return run_shell(binary + " " + args, dir);
}

bool json_has(const std::string& json, const std::string& key, const std::string& value) {
  return std::regex_search(json, std::regex("\"" + key + "\"\\s*:\\s*" + value + "[,}\\s]"));
}

std::string gzip(const std::string& text) {
  temp_dir d;
  const auto p = d / "x.gz";
  gzFile f = gzopen(p.c_str(), "wb");
  gzwrite(f, text.data(), unsigned(text.size()));
  gzclose(f);
  return read_file(p);
}

}  // namespace

TEST(cli, version_and_help) {
  temp_dir dir;
  auto r = run_swat("--version", dir);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("swat-gpu "), std::string::npos);
  r = run_swat("align --help", dir);
  EXPECT_EQ(r.exit_code, 0);
  for (const char* needle : {"gap-open + k * gap-extend", "smallest target end", "blast6", "--alphabet"})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
  r = run_swat("", dir);
  EXPECT_EQ(r.exit_code, 2);
}

TEST(cli, bundled_example_every_format) {
  temp_dir dir;
  const std::string q = (source_dir / "data/sarscov2_spike_gene.fa").string();
  const std::string db = (source_dir / "data/coronavirus_regions.fa").string();
  auto r = run_swat("align " + q + " " + db + " --device cpu --outfmt 'blast6 score cigar'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = tsv_rows(r.out);
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "MN908947.3:21563-25384");
  EXPECT_EQ(rows[0].size(), 14u);
  // Sorted by score.
  for (std::size_t k = 1; k < rows.size(); ++k) EXPECT_GE(std::stoi(rows[k - 1][12]), std::stoi(rows[k][12]));

  for (const char* fmt : {"sam", "pair", "json"}) {
    const auto out = dir / (std::string("out.") + fmt);
    r = run_swat("align " + q + " " + db + " --device cpu --outfmt " + fmt + " -o " + out.string(), dir);
    ASSERT_EQ(r.exit_code, 0) << fmt << ": " << r.err;
    EXPECT_TRUE(r.out.empty());
    const std::string text = read_file(out);
    EXPECT_NE(text.find(rows[0][12]), std::string::npos) << fmt << " lacks the best score";
  }
  if (std::system("command -v samtools >/dev/null 2>&1") == 0) {
    r = run_shell("samtools view " + (dir / "out.sam").string(), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(tsv_rows(r.out).size(), rows.size());
  }
}

// --timing adds one stderr line with every stage, even with --quiet, and leaves stdout alone.
TEST(cli, timing_line_names_every_stage) {
  temp_dir dir;
  const std::string q = (source_dir / "data/sarscov2_spike_gene.fa").string();
  const std::string db = (source_dir / "data/coronavirus_regions.fa").string();
  const auto plain = run_swat("align " + q + " " + db + " --device cpu --quiet", dir);
  const auto timed = run_swat("align " + q + " " + db + " --device cpu --quiet --timing", dir);
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  EXPECT_EQ(timed.out, plain.out);
  EXPECT_TRUE(plain.err.empty()) << plain.err;
  for (const char* stage : {"swat-gpu: timing: read ", "cpu engine on CPU (", " threads) ready ", "| align ", "GCUPS", "| output ", "| total "})
    EXPECT_NE(timed.err.find(stage), std::string::npos) << stage << " missing in: " << timed.err;
}

// sarscov2 x ratg13 from expected.tsv: score 53973, query 1-29875, target 1-29855, in every format.
TEST(cli, sarscov2_ratg13_every_format) {
  const fs::path q = shared_data / "dna/sarscov2_MN908947.3.fa";
  const fs::path t = shared_data / "dna/ratg13_MN996532.2.fa";
  if (!fs::exists(q) || !fs::exists(t)) GTEST_SKIP() << "no " << shared_data;
  temp_dir dir;
  const std::string base = "align " + q.string() + " " + t.string() + " --device cpu --quiet";
  for (const char* fmt : {"blast6 score", "sam", "pair", "json"}) {
    const auto out = dir / "out";
    auto r = run_swat(base + " --outfmt '" + fmt + "' -o " + out.string(), dir);
    ASSERT_EQ(r.exit_code, 0) << fmt << ": " << r.err;
    const std::string text = read_file(out);
    const std::string f = fmt;
    if (f == "blast6 score") {
      const auto rows = tsv_rows(text);
      ASSERT_EQ(rows.size(), 1u);
      EXPECT_EQ(rows[0][6], "1");
      EXPECT_EQ(rows[0][7], "29875");
      EXPECT_EQ(rows[0][8], "1");
      EXPECT_EQ(rows[0][9], "29855");
      EXPECT_EQ(rows[0][12], "53973");
    } else if (f == "sam") {
      EXPECT_NE(text.find("AS:i:53973"), std::string::npos);
      const auto rows = tsv_rows(text);
      ASSERT_EQ(rows.size(), 1u);
      EXPECT_EQ(rows[0][3], "1");                                    // POS
      EXPECT_TRUE(rows[0][5].ends_with("28S")) << rows[0][5];       // 29903 - 29875 clipped
    } else if (f == "pair") {
      EXPECT_NE(text.find("53973"), std::string::npos);
      EXPECT_NE(text.find("29875"), std::string::npos);
      EXPECT_NE(text.find("29855"), std::string::npos);
    } else {
      EXPECT_TRUE(json_has(text, "score", "53973")) << text.substr(0, 400);
      EXPECT_TRUE(json_has(text, "query_start", "1"));
      EXPECT_TRUE(json_has(text, "query_end", "29875"));
      EXPECT_TRUE(json_has(text, "target_start", "1"));
      EXPECT_TRUE(json_has(text, "target_end", "29855"));
    }
  }
}

TEST(cli, messy_inputs_score_like_clean_ones) {
  temp_dir dir;
  const std::string clean_q = ">q1 first\nACGTTGCAAGGCTTACGATCGATCGGGCTAGCTAGGATCCA\n>q2\nTTGACCAGTAGGACCATTAGGCAGT\n";
  const std::string clean_t = ">t1\nGGACGTTGCATGGCTTACGATCGTTCGGGCTAGCTAGGATCCAAA\n>t2 second\nCCTTGACCAGTAGCACCATTAGGCAGTCC\n";
  write_file(dir / "q.fa", clean_q);
  write_file(dir / "t.fa", clean_t);
  auto lower = [](std::string s) {
    for (std::size_t k = 0; k < s.size(); ++k)
      if (k == 0 || s[k - 1] == '\n') {
        while (k < s.size() && s[k] != '\n') ++k;  // keep headers as they are
      } else if (s[k] != '\n') {
        s[k] = char(std::tolower(static_cast<unsigned char>(s[k])));
      }
    return s;
  };
  auto crlf_wrapped = [](const std::string& s) {
    std::string out;
    int col = 0;
    bool header = false;
    for (char c : s) {
      if (c == '>') header = true;
      if (c == '\n') {
        out += "\r\n\r\n";
        header = false;
        col = 0;
        continue;
      }
      out += c;
      if (!header && ++col == 7) {
        out += "\r\n";
        col = 0;
      }
    }
    return out;
  };
  write_file(dir / "q_messy.fa", crlf_wrapped(lower(clean_q)));
  write_file(dir / "t_messy.fa.gz", gzip(lower(clean_t)));
  const std::string fmt = " --device cpu --outfmt 'blast6 score cigar'";
  const auto clean = run_swat("align " + (dir / "q.fa").string() + " " + (dir / "t.fa").string() + fmt, dir);
  const auto messy = run_swat("align " + (dir / "q_messy.fa").string() + " " + (dir / "t_messy.fa.gz").string() + fmt, dir);
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  ASSERT_EQ(messy.exit_code, 0) << messy.err;
  EXPECT_FALSE(clean.out.empty());
  EXPECT_EQ(clean.out, messy.out);
}

TEST(cli, empty_record_among_others_is_skipped_with_a_warning) {
  temp_dir dir;
  write_file(dir / "q.fa", ">empty\n\n>q\nACGTACGTAAAC\n");
  write_file(dir / "t.fa", ">t\nTTACGTACGTAAACTT\n");
  const auto r = run_swat("align " + (dir / "q.fa").string() + " " + (dir / "t.fa").string() + " --device cpu", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos);
  EXPECT_NE(r.err.find("empty"), std::string::npos);
  EXPECT_EQ(tsv_rows(r.out).size(), 1u);
}

//! One file as queries and database (all against all) is read once, its records copied: the
//! output is byte for byte that of the same search against a copy of the file, through a
//! symbolic link too, and the file's warnings come once.
TEST(cli, one_file_against_itself_reads_it_once_with_the_same_output) {
  temp_dir dir;
  const std::string text = read_file(source_dir / "data/coronavirus_regions.fa") + ">empty\n\n";
  write_file(dir / "x.fa", text);
  write_file(dir / "copy.fa", text);
  fs::create_symlink(dir / "x.fa", dir / "link.fa");
  const std::string x = (dir / "x.fa").string();
  const auto want = run_swat("align " + x + " " + (dir / "copy.fa").string() + " --device cpu --outfmt 6", dir);
  ASSERT_EQ(want.exit_code, 0) << want.err;
  ASSERT_FALSE(want.out.empty());
  for (const std::string db : {x, (dir / "link.fa").string()}) {
    const auto got = run_swat("align " + x + " " + db + " --device cpu --outfmt 6", dir);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.out, want.out) << db;
  }
  // The warning about the empty record: twice when the two files are read, once when one is.
  const auto count = [](const std::string& err) {
    std::size_t n = 0;
    for (std::size_t at = err.find("warning"); at != std::string::npos; at = err.find("warning", at + 1)) ++n;
    return n;
  };
  const auto once = run_swat("align " + x + " " + x + " --device cpu --outfmt 6", dir);
  EXPECT_EQ(count(want.err), 2u) << want.err;
  EXPECT_EQ(count(once.err), 1u) << once.err;
}

TEST(cli, max_hits_and_min_score) {
  temp_dir dir;
  const std::string q = (source_dir / "data/sarscov2_spike_gene.fa").string();
  const std::string db = (source_dir / "data/coronavirus_regions.fa").string();
  auto r = run_swat("align " + q + " " + db + " --device cpu --max-hits 1", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tsv_rows(r.out).size(), 1u);
  r = run_swat("align " + q + " " + db + " --device cpu --min-score 1000000", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(cli, protein_example) {
  temp_dir dir;
  const std::string q = (source_dir / "data/spike_sarscov2_QHU36824.fa").string();
  const std::string db = (source_dir / "data/spike_proteins.fa").string();
  const auto r = run_swat("align " + q + " " + db + " --device cpu --outfmt 'blast6 score'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = tsv_rows(r.out);
  ASSERT_EQ(rows.size(), 2u);
  // expected.tsv: spike SARS-CoV-2 x RaTG13 6540 (1-1273, 1-1269); x SARS-CoV 5200 (1-1273, 1-1255).
  EXPECT_EQ(rows[0][12], "6540");
  EXPECT_EQ(rows[0][6] + "-" + rows[0][7] + "/" + rows[0][8] + "-" + rows[0][9], "1-1273/1-1269");
  EXPECT_EQ(rows[1][12], "5200");
  EXPECT_EQ(rows[1][6] + "-" + rows[1][7] + "/" + rows[1][8] + "-" + rows[1][9], "1-1273/1-1255");
}
