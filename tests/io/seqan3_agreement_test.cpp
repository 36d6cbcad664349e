// read_fasta against SeqAn3's FASTA reader on every input both accept: same records, names,
// descriptions and residues (SeqAn3 reads the letters as chars; ours are encoded, so both are
// compared as upper-case letters). SeqAn3 was the reader before the streaming one.

#include <gtest/gtest.h>

#include <random>
#include <seqan3/io/sequence_file/input.hpp>
#include <sstream>

#include "io/fasta.hpp"
#include "io/fasta_scan.hpp"
#include "io_test_util.hpp"

namespace swat::io::test {
namespace {

struct char_traits : seqan3::sequence_file_input_default_traits_dna {
  using sequence_alphabet = char;
  using sequence_legal_alphabet = char;
  template <typename alphabet_t>
  using sequence_container = std::basic_string<alphabet_t>;
};

//! (header, residues) per record as SeqAn3 reads text (which must start at a '>').
std::vector<std::pair<std::string, std::string>> seqan3_records(const std::string& text) {
  seqan3::sequence_file_input<char_traits, seqan3::fields<seqan3::field::id, seqan3::field::seq>,
                              seqan3::type_list<seqan3::format_fasta>>
      in{std::istringstream{text}, seqan3::format_fasta{}};
  in.options.truncate_ids = false;
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& r : in) out.emplace_back(r.id(), r.sequence());
  return out;
}

void expect_agreement(const temp_dir& dir, const std::string& text, const std::string& what) {
  const sequence_set ours = read_fasta(write_plain(dir.file("x.fa"), text), alphabet_request::dna, nullptr);
  const auto theirs = seqan3_records(text.substr(text.find('>')));
  ASSERT_EQ(ours.records.size(), theirs.size()) << what;
  for (std::size_t r = 0; r < theirs.size(); ++r) {
    // The old reader's rules on top of SeqAn3: the header split (CR dropped) and the ranks.
    const detail::header_parts parts = detail::split_header(theirs[r].first);
    EXPECT_EQ(ours.records[r].name, parts.name) << what << " record " << r;
    EXPECT_EQ(ours.records[r].description, parts.description) << what << " record " << r;
    std::vector<std::uint8_t> ranks;
    for (const char c : theirs[r].second) ranks.push_back(dna_rank_table()[static_cast<unsigned char>(c)]);
    EXPECT_EQ(ours.records[r].residues, ranks) << what << " record " << r;
  }
}

TEST(seqan3_agreement, messy_inputs_read_the_same) {
  temp_dir dir;
  expect_agreement(dir, ">a one\nACGT\nacgt\n>b\r\nAC GT\r\n\r\nac\tgt\r\n", "crlf and blanks");
  expect_agreement(dir, "\n\n>x\nA\n>y\nNNNN\nTTTT", "no final newline");
  expect_agreement(dir, ">x\tdescription with\ttabs\nACGTU\n", "tabs in header");
  std::mt19937 rng(8);
  std::string text;
  for (int r = 0; r < 200; ++r) {
    text += ">r" + std::to_string(r) + (rng() % 2 ? " d" + std::to_string(rng()) : "") + (rng() % 2 ? "\r\n" : "\n");
    const std::size_t len = 1 + rng() % 3000;
    for (std::size_t i = 0; i < len; ++i) {
      text += "ACGTNacgtnRYKM"[rng() % 14];
      if (rng() % 50 == 0) text += "\n";
      if (rng() % 200 == 0) text += " \t\v\f"[rng() % 4];
    }
    text += "\n";
  }
  expect_agreement(dir, text, "random records");
}

}  // namespace
}  // namespace swat::io::test
