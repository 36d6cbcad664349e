// read_fasta on bad inputs: every case throws swat::input_error whose message names the file,
// and the record and 1-based residue position where there is one. Nothing crashes or hangs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <random>
#include <string>

#include "io/fasta.hpp"
#include "io/fasta_scan.hpp"
#include "io_test_util.hpp"

namespace swat::io::test {
namespace {

using namespace std::string_literals;

class fasta_error : public ::testing::Test {
 protected:
  temp_dir dir;
  std::string write(std::string_view name, std::string_view content) {
    return write_plain(dir.file(name), content);
  }
};

// Random DNA that does not compress to almost nothing.
std::string random_fasta(std::size_t records, std::size_t length, unsigned seed) {
  std::mt19937 rng(seed);
  std::string text;
  for (std::size_t r = 0; r < records; ++r) {
    text += ">seq" + std::to_string(r + 1) + "\n";
    for (std::size_t i = 0; i < length; ++i) {
      text += "ACGT"[rng() % 4];
      if (i % 70 == 69) text += '\n';
    }
    text += '\n';
  }
  return text;
}

TEST_F(fasta_error, missing_file) {
  const std::string path = dir.file("missing.fa");
  EXPECT_EQ(input_error_of(path), path + ": no such file");
}

TEST_F(fasta_error, directory) {
  const std::string path = dir.file("subdir");
  std::filesystem::create_directory(path);
  EXPECT_EQ(input_error_of(path), path + ": is a directory, not a FASTA file");
}

// Reading a mode-000 file must fail with "Permission denied". root ignores permissions, so
// as root the read runs in a child process that has dropped to user nobody.
TEST_F(fasta_error, unreadable_file) {
  const std::string path = write("secret.fa", ">a\nACGT\n");
  ::chmod(path.c_str(), 0);
  const std::string expected = path + ": cannot open: Permission denied";
  if (::geteuid() != 0) {
    EXPECT_EQ(input_error_of(path), expected);
    return;
  }
  ::chmod(std::filesystem::path(path).parent_path().c_str(), 0755);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int status = 3;
    if (::setgid(65534) == 0 && ::setuid(65534) == 0) {
      try {
        read_fasta(path, alphabet_request::auto_detect, nullptr);
        status = 1;
      } catch (const input_error& e) {
        status = e.what() == expected ? 0 : 2;
      } catch (...) {
        status = 4;
      }
    }
    ::_exit(status);
  }
  int status = -1;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "cannot drop root privileges";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: read succeeded, 2: other message, 4: other exception";
}

TEST_F(fasta_error, read_failure_after_open) {
  // Opens fine but read() fails with EIO at offset 0, even for root.
  const std::string path = "/proc/self/mem";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no /proc";
  EXPECT_TRUE(starts_with(input_error_of(path), path + ": cannot read: "));
}

TEST_F(fasta_error, empty_and_blank_files) {
  const std::string empty = write("empty.fa", "");
  EXPECT_EQ(input_error_of(empty), empty + ": file is empty");
  const std::string blank = write("blank.fa", "\n  \r\n\t\n");
  EXPECT_EQ(input_error_of(blank), blank + ": file has only blank lines, no FASTA record");
  const std::string empty_gz = write_gz(dir.file("empty.fa.gz"), "");
  EXPECT_EQ(input_error_of(empty_gz), empty_gz + ": file is empty");
}

TEST_F(fasta_error, not_fasta) {
  const std::string text = write("notes.txt", "\n\nhello world\n>a\nACGT\n");
  EXPECT_EQ(input_error_of(text),
            text + ": not a FASTA file: the first non-blank line (line 3) does not start with '>'");
  const std::string fastq = write("reads.fq", "@r1\nACGT\n+\nIIII\n");
  EXPECT_TRUE(contains(input_error_of(fastq), "(FASTQ is not supported)"));
  const std::string legacy = write("legacy.fa", ";comment\n>a\nACGT\n");
  EXPECT_TRUE(contains(input_error_of(legacy), "does not start with '>'"));
}

TEST_F(fasta_error, binary_garbage) {
  std::string garbage(4096, '\0');
  std::mt19937 rng(1);
  for (std::size_t i = 16; i < garbage.size(); ++i) garbage[i] = static_cast<char>(rng());
  const std::string path = write("garbage.bin", garbage);
  EXPECT_EQ(input_error_of(path), path + ": not a FASTA file: binary data (byte 0x00 on line 1)");
  const std::string gz = write_gz(dir.file("garbage.gz"), garbage);
  EXPECT_EQ(input_error_of(gz), gz + ": not a FASTA file: binary data (byte 0x00 on line 1)");
}

TEST_F(fasta_error, binary_inside_fasta) {
  const std::string header = write("h.fa", ">ok\nACGT\n>bad\x01name\nACGT\n");
  EXPECT_EQ(input_error_of(header),
            header +
                ":record 2: control byte 0x01 in header (line 3, column 5): binary data, "
                "not FASTA text");
  const std::string seq = write("s.fa", ">ok\nACGT\n>b\nAC\nGT\0CC\n"s);
  EXPECT_EQ(input_error_of(seq),
            seq +
                ":record 2 (b):5: control byte 0x00 in sequence (line 5): binary data, not "
                "FASTA text");
}

TEST_F(fasta_error, cr_only_line_ends) {
  const std::string path = write("mac.fa", ">a\rACGT\rACGT\r");
  EXPECT_EQ(input_error_of(path), path +
                                      ":record 1: carriage return without line feed in header "
                                      "(line 1, column 3): CR-only line ends are not supported");
}

TEST_F(fasta_error, endless_binary_stream_fails_fast) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(contains(input_error_of("/dev/zero"), "binary data"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(fasta_error, other_compression_formats) {
  const std::string bz2 = write("x.fa.bz2", "BZh91AY&SY\x01\x02garbage");
  EXPECT_EQ(input_error_of(bz2),
            bz2 + ": not a FASTA file: bzip2-compressed data (only plain and gzip FASTA are read)");
  const std::string zst = write("x.fa.zst", "\x28\xB5\x2F\xFD\x01\x02");
  EXPECT_TRUE(contains(input_error_of(zst), "zstd-compressed"));
}

TEST_F(fasta_error, truncated_gzip) {
  const std::string full = slurp(write_gz(dir.file("full.fa.gz"), random_fasta(4, 20'000, 3)));
  ASSERT_GT(full.size(), 1000u);
  const std::string half = write("half.fa.gz", std::string_view(full).substr(0, full.size() / 2));
  EXPECT_EQ(input_error_of(half),
            half + ": corrupt or truncated gzip data (unexpected end of file)");
  // Only the 8-byte trailer (CRC and length) missing.
  const std::string no_trailer =
      write("no_trailer.fa.gz", std::string_view(full).substr(0, full.size() - 8));
  EXPECT_TRUE(starts_with(input_error_of(no_trailer), no_trailer + ": corrupt or truncated gzip"));
  // Just the 10-byte gzip header.
  const std::string header_only = write("hdr.fa.gz", std::string_view(full).substr(0, 10));
  EXPECT_TRUE(
      starts_with(input_error_of(header_only), header_only + ": corrupt or truncated gzip"));
}

TEST_F(fasta_error, corrupt_gzip) {
  std::string bytes = slurp(write_gz(dir.file("full.fa.gz"), random_fasta(2, 20'000, 4)));
  std::string crc = bytes;
  crc[crc.size() - 6] ^= 0x55;  // the stored CRC-32
  const std::string bad_crc = write("crc.fa.gz", crc);
  EXPECT_EQ(input_error_of(bad_crc),
            bad_crc + ": corrupt or truncated gzip data (incorrect data check)");
  for (std::size_t at : {std::size_t{20}, bytes.size() / 3, bytes.size() / 2}) {
    std::string flipped = bytes;
    for (std::size_t k = 0; k < 16; ++k) flipped[at + k] ^= static_cast<char>(0xA5);
    const std::string path = write("flip.fa.gz", flipped);
    EXPECT_TRUE(starts_with(input_error_of(path), path + ": corrupt or truncated gzip data ("))
        << at;
  }
}

TEST_F(fasta_error, invalid_dna_residue) {
  const std::string path = write("bad.fa", ">a\nACGT\n>b desc\nACGT\r\nACGTE\r\n");
  EXPECT_EQ(input_error_of(path, alphabet_request::dna),
            path + ":record 2 (b):9: invalid residue 'E' for dna");
  const std::string x = write("x.fa", ">x\nACGTX\n");
  EXPECT_EQ(input_error_of(x, alphabet_request::dna),
            x + ":record 1 (x):5: invalid residue 'X' for dna");
}

TEST_F(fasta_error, invalid_protein_residue) {
  const std::string path = write("bad.faa", ">p1\nMKVL\nAA-GG\n");
  EXPECT_EQ(input_error_of(path, alphabet_request::protein),
            path + ":record 1 (p1):7: invalid residue '-' for protein");
  EXPECT_EQ(
      input_error_of(path),
      path + ":record 1 (p1):7: invalid residue '-' for protein (alphabet detected automatically)");
  const std::string utf8 = write("u.faa", ">p\nMK\xC3\xA9L\n");
  EXPECT_EQ(input_error_of(utf8, alphabet_request::protein),
            utf8 + ":record 1 (p):3: invalid residue byte 0xC3 for protein");
}

TEST_F(fasta_error, digits_and_stray_header_marks) {
  const std::string digits = write("d.fa", ">a\nAC1GT\n");
  EXPECT_EQ(input_error_of(digits),
            digits + ":record 1 (a):3: digit '1' in sequence (line 2): not a residue");
  const std::string numbered = write("n.fa", ">a\n1 ACGT\n");
  EXPECT_TRUE(starts_with(input_error_of(numbered), numbered + ":record 1 (a):1: digit '1'"));
  const std::string gt = write("g.fa", ">a\nACGT\nAC>GT\n");
  EXPECT_EQ(
      input_error_of(gt),
      gt + ":record 1 (a):7: '>' inside a sequence line (line 3): a header must start its line");
  const std::string indented = write("i.fa", ">a\nACGT\n >b\nGG\n");
  EXPECT_TRUE(starts_with(input_error_of(indented), indented + ":record 1 (a):5: '>' inside"));
  const std::string semi = write("s.fa", ">a\nACGT\n;comment\nGG\n");
  EXPECT_TRUE(
      starts_with(input_error_of(semi), semi + ":record 1 (a):5: ';' in sequence (line 3)"));
}

TEST_F(fasta_error, positions_count_residues_across_wrapped_lines) {
  const std::string path = write("w.fa", ">a\nACGT\n>b\r\nAC GT\r\n\r\nac\tgt\r\nACxT\r\n");
  EXPECT_EQ(input_error_of(path, alphabet_request::dna),
            path + ":record 2 (b):11: invalid residue 'x' for dna");
  const std::string gz = write_gz(dir.file("w.fa.gz"), slurp(path));
  EXPECT_EQ(input_error_of(gz, alphabet_request::dna),
            gz + ":record 2 (b):11: invalid residue 'x' for dna");
}

TEST_F(fasta_error, records_without_residues) {
  const std::string one = write("one.fa", ">a only a header\n");
  EXPECT_EQ(input_error_of(one), one + ": the only record has no residues");
  std::vector<std::string> warnings;
  const std::string all = write("all.fa", ">a\n\n>b\r\n  \r\n>c");
  EXPECT_EQ(input_error_of(all, alphabet_request::auto_detect, &warnings),
            all + ": none of the 3 records has residues");
  EXPECT_TRUE(warnings.empty());
}

TEST_F(fasta_error, header_without_name) {
  const std::string path = write("noname.fa", ">a\nAC\n>  \nACGT\n");
  EXPECT_EQ(input_error_of(path), path + ":record 2: header has no name");
}

TEST_F(fasta_error, errors_are_input_errors_not_usage_errors) {
  const std::string path = write("bad.fa", "nope");
  EXPECT_THROW(read_fasta(path, alphabet_request::dna, nullptr), input_error);
  EXPECT_THROW(parse_alphabet_request("rna"), usage_error);
}

}  // namespace
}  // namespace swat::io::test

namespace swat::io::test {
namespace {

TEST(fasta_scan_limit, a_record_longer_than_one_sequence_may_be_is_refused_while_scanning) {
  // The scan counts residues as it reads: a record beyond the limit (INT32_MAX in use; 1,000 here)
  // is refused at once, naming the file, the record and the first residue beyond the limit,
  // before the bytes after it are read (a genome of billions of residues is never stored).
  const std::string lines = std::string(600, 'A') + "\n";
  for (const std::size_t piece : {std::size_t(7), std::size_t(4096)}) {
    detail::fasta_scan scan("big.fa", 1000);
    const std::string text = ">ok\nACGT\n>huge chromosome\n" + lines + lines + lines;
    std::string message;
    std::size_t fed = 0;
    try {
      for (; fed < text.size(); fed += piece) scan.feed(std::string_view(text).substr(fed, piece));
      scan.finish();
    } catch (const input_error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("big.fa"), std::string::npos) << message;
    EXPECT_NE(message.find("huge"), std::string::npos) << message;
    EXPECT_NE(message.find("1001"), std::string::npos) << message;
    EXPECT_NE(message.find("longer than 1000 residues"), std::string::npos) << message;
    EXPECT_LT(fed, text.size() - 600 + piece) << "the scan went on past the limit";
  }
  detail::fasta_scan fits("fits.fa", 1000);
  fits.feed(">a\n" + lines + ">b\n" + lines);
  fits.finish();
  EXPECT_EQ(fits.records().size(), 2u);
  EXPECT_EQ(detail::fasta_scan::max_record_residues, std::uint64_t(INT32_MAX));
}

}  // namespace
}  // namespace swat::io::test
