// read_fasta_text (the Python package's sequences): the same sets, alphabet rule, warnings and
// errors as read_fasta on the same bytes in a file, with the label in the place of the path.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/io_test_util.hpp"

namespace swat::io {
namespace {

//! read_fasta of text written to a file, with the file's path in its messages replaced by label.
struct from_file {
  sequence_set set;
  std::vector<std::string> warnings;
  std::string error;
};

std::string relabel(std::string s, const std::string& path, const std::string& label) {
  for (std::size_t at; (at = s.find(path)) != std::string::npos;) s.replace(at, path.size(), label);
  return s;
}

from_file read_as_file(const std::string& text, alphabet_request request, const std::string& label) {
  test::temp_dir dir;
  const std::string path = dir.file("in.fa");
  std::ofstream(path, std::ios::binary) << text;
  from_file r;
  try {
    r.set = read_fasta(path, request, [&](const std::string& w) { r.warnings.push_back(relabel(w, path, label)); });
    r.set.file = label;
  } catch (const input_error& e) {
    r.error = relabel(e.what(), path, label);
  }
  return r;
}

void expect_same(const std::string& text, alphabet_request request) {
  const from_file want = read_as_file(text, request, "queries");
  std::vector<std::string> warnings;
  try {
    const sequence_set got =
        read_fasta_text("queries", text, request, [&](const std::string& w) { warnings.push_back(w); });
    ASSERT_EQ(want.error, "") << text;
    EXPECT_EQ(got.file, "queries");
    EXPECT_EQ(got.alphabet, want.set.alphabet) << text;
    ASSERT_EQ(got.records.size(), want.set.records.size()) << text;
    for (std::size_t k = 0; k < got.records.size(); ++k) {
      EXPECT_EQ(got.records[k].name, want.set.records[k].name);
      EXPECT_EQ(got.records[k].description, want.set.records[k].description);
      EXPECT_EQ(got.records[k].residues, want.set.records[k].residues);
    }
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), want.error) << text;
  }
  EXPECT_EQ(warnings, want.warnings) << text;
}

TEST(FastaText, SameSetsAsTheFileReader) {
  expect_same(">q1\nACGTACGTNNacgu\n>q2 desc here\nGGGCCC\n", alphabet_request::auto_detect);
  expect_same(">p1\nMKVLAAGIVALLLAAGCSS\n>p2\nmstnpkpqrk\n", alphabet_request::auto_detect);
  expect_same(">p1\nACGTACGT\n", alphabet_request::protein);
  expect_same(">a\nMKV\n>empty\n\n>b\nWWW\n", alphabet_request::auto_detect);  // a warning, skipped
}

TEST(FastaText, SameErrorsAsTheFileReader) {
  expect_same(">ok\nMKVLA\n>b1\nMKV1LA\n", alphabet_request::auto_detect);  // a digit
  expect_same(">ok\nMKVLA\n", alphabet_request::dna);                      // not DNA
  expect_same(">only\n\n", alphabet_request::auto_detect);                 // no residues
  expect_same(">q\nAC>GT\n", alphabet_request::auto_detect);               // '>' in a sequence
  expect_same("> \nACGT\n", alphabet_request::auto_detect);                // a header without a name
}

TEST(FastaText, ErrorsNameTheLabel) {
  try {
    read_fasta_text("targets", ">t1\nMKV*LA\n>t2\nMKVJ1\n", alphabet_request::auto_detect, {});
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("targets:record 2 (t2):5: ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace swat::io
