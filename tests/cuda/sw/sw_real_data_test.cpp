// Every paper kernel × every sync mode on every pair of ../shared/data/expected.tsv whose
// sequences are at most 65 kb (mtDNA, SARS-CoV-2 pairs, spike proteins, lambda × Stx2 phage):
// score, begin and end equal the agreed values and the alignment rescores to the score.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/fasta.hpp"
#include "cuda/sw/sw_fill.hpp"
#include "cuda/sw/sw_test_util.hpp"

namespace swat::sw {
namespace {

const std::filesystem::path data_dir = SWAT_SHARED_DATA;
constexpr std::uintmax_t max_file_bytes = 66000;

struct real_case {
  std::string name;
  std::vector<std::uint8_t> query, target;
  scoring_scheme scheme;
  std::int32_t score = 0;
  std::string qb, qe, tb, te;  // 1-based inclusive, as in expected.tsv
};

std::vector<std::uint8_t> first_record(const std::string& rel, io::alphabet_request a) {
  return io::read_fasta((data_dir / rel).string(), a, {}).records.at(0).residues;
}

const std::vector<real_case>& real_cases() {
  static std::vector<real_case> out = [] {
    std::vector<real_case> v;
    std::ifstream in(data_dir / "expected.tsv");
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string cell; std::getline(ss, cell, '\t');) f.push_back(cell);
      if (f.size() < 8) continue;
      if (std::filesystem::file_size(data_dir / f[0]) > max_file_bytes ||
          std::filesystem::file_size(data_dir / f[1]) > max_file_bytes)
        continue;
      const bool dna = f[2].rfind("DNA", 0) == 0;
      const auto a = dna ? io::alphabet_request::dna : io::alphabet_request::protein;
      real_case c;
      c.name = f[0] + " x " + f[1];
      c.query = first_record(f[0], a);
      c.target = first_record(f[1], a);
      c.scheme = dna ? scoring::make_dna_scheme(2, -3, 5, 2)
                     : scoring::make_protein_scheme("BLOSUM62", 11, 1);
      c.score = std::stoi(f[3]);
      c.qb = f[4], c.qe = f[5], c.tb = f[6], c.te = f[7];
      v.push_back(std::move(c));
    }
    return v;
  }();
  return out;
}

class SwRealData : public testing::TestWithParam<std::tuple<kernel_kind, sync_mode>> {};

TEST_P(SwRealData, ExpectedPairsUpTo65kb) {
  SWAT_REQUIRE_DEVICE();
  if (!std::filesystem::exists(data_dir / "expected.tsv")) GTEST_SKIP() << "no shared data";
  static fill_context ctx;
  const auto& cases = real_cases();
  ASSERT_GE(cases.size(), 5u);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const real_case& c = cases[k];
    if (test::short_run() && c.query.size() * c.target.size() > 2'000'000) continue;
    fill_config cfg;
    cfg.kernel = std::get<0>(GetParam());
    cfg.sync = std::get<1>(GetParam());
    cfg.poison = true;
    const alignment a = traceback(ctx.fill(c.query, c.target, c.scheme, cfg));
    EXPECT_EQ(a.score, c.score) << c.name;
    if (c.qb != "n/a") {
      EXPECT_EQ(std::to_string(a.query_begin + 1), c.qb) << c.name;
    }
    EXPECT_EQ(std::to_string(a.query_end), c.qe) << c.name;
    if (c.tb != "n/a") {
      EXPECT_EQ(std::to_string(a.target_begin + 1), c.tb) << c.name;
    }
    EXPECT_EQ(std::to_string(a.target_end), c.te) << c.name;
    EXPECT_EQ(rescore(a, c.query, c.target, c.scheme), a.score) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernelsAllModes, SwRealData, testing::ValuesIn(test::kernel_modes()),
                         test::kernel_mode_name);

}  // namespace
}  // namespace swat::sw
