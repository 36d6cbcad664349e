// `swat-gpu makedb DB.fa PREFIX [options]`: command-line parsing (cxxopts) for writing a
// prepared database (pipeline/database.hpp, db/format.hpp).

#include <cxxopts.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"
#include "db/writer.hpp"
#include "pipeline/database.hpp"

namespace swat::cli {
namespace {

const char* const makedb_help_text = R"(
A prepared database: the sequences of DB.fa encoded, with their names, lengths and the totals
that E-values use, in PREFIX.swdb (the index) and one or more volumes PREFIX.<id>.NNN.swdbv
beside it (docs/database-format.md). `swat-gpu align QUERY.fa PREFIX` and `swat-gpu serve
PREFIX` map it instead of parsing FASTA, and write exactly what they write for DB.fa (the
database named as given). Every file carries a format version and checksums: a truncated,
corrupted or newer file is refused with one line (exit 2). The files are written atomically: an
older database at PREFIX stays as it was until the new index replaces it, and a failure leaves
nothing behind.
)";

//! The range of --volume-size in bytes: 4K … 8388607G.
constexpr std::uint64_t min_volume_bytes = 4096;
constexpr std::uint64_t max_volume_size_bytes = (std::uint64_t(LLONG_MAX) >> 40) << 30;

//! "1G", "512M", "4096K", "65536" (bytes) → bytes in min_volume_bytes … max_volume_size_bytes;
//! throws usage_error naming the option and that range.
std::uint64_t size_value(const std::string& option, const std::string& text) {
  std::string digits = text;
  std::uint64_t unit = 1;
  if (!digits.empty()) {
    switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
      case 'K': unit = 1ull << 10; break;
      case 'M': unit = 1ull << 20; break;
      case 'G': unit = 1ull << 30; break;
      default: unit = 1;
    }
    if (unit != 1) digits.pop_back();
  }
  const bool number = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!number) throw usage_error(option + ": '" + text + "' is not a size (bytes, or a number with K, M or G)");
  const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size());
  const std::uint64_t n = digits.size() - first > 19 ? UINT64_MAX : std::stoull(digits.substr(first) + (first == digits.size() ? "0" : ""));
  if (n < min_volume_bytes / unit + (min_volume_bytes % unit != 0) || n > max_volume_size_bytes / unit)
    throw usage_error(option + ": " + text + " is outside 4K … 8388607G (4096 … " + std::to_string(max_volume_size_bytes) +
                      " bytes)");
  return n * unit;
}

}  // namespace

int makedb_command(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu makedb", "Write a prepared database that align and serve map instead of parsing FASTA");
  opts.positional_help("DB.fa PREFIX").show_positional_help();
  // clang-format off
  opts.add_options()
    ("fasta", "database FASTA (.gz ok; - for standard input)", cxxopts::value<std::string>())
    ("prefix", "prefix of the files written: PREFIX.swdb and its volumes", cxxopts::value<std::string>())
    ("alphabet", "auto|dna|protein", cxxopts::value<std::string>()->default_value("auto"))
    ("volume-size", "largest volume file, bytes with an optional K, M or G suffix (at least 4K; a longer "
                    "sequence gets a volume of its own)", cxxopts::value<std::string>()->default_value("256M"))
    ("t,threads", "FASTA reader threads (0 = all cores)", cxxopts::value<std::string>()->default_value("0"))
    ("quiet", "no notices")
    ("h,help", "this help");
  // clang-format on
  opts.parse_positional({"fasta", "prefix"});
  const std::vector<std::string> words = split_attached_values(args, "t");  // -oFILE, -t4
  const auto argv = argv_of("swat-gpu makedb", words);
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help() << makedb_help_text;
    return 0;
  }
  reject_unmatched(r.unmatched());
  if (!r.count("fasta") || !r.count("prefix")) throw usage_error("makedb needs DB.fa and PREFIX (try: swat-gpu makedb --help)");
  pipeline::makedb_options o;
  o.fasta_path = r["fasta"].as<std::string>();
  o.prefix = r["prefix"].as<std::string>();
  o.alphabet = io::parse_alphabet_request(r["alphabet"].as<std::string>());
  o.max_volume_bytes = size_value("--volume-size", r["volume-size"].as<std::string>());
  o.threads = unsigned(integer_value("--threads", r["threads"].as<std::string>(), 0, UINT_MAX));
  const bool quiet = r.count("quiet") > 0;
  const io::warning_fn warn = [quiet](const std::string& w) {
    if (!quiet) std::cerr << "swat-gpu: warning: " << w << "\n";
  };
  o.process_ends_after = true;  // main returns right after
  const pipeline::makedb_result made = pipeline::make_database(o, warn);
  if (!quiet) {
    char times[96];
    std::snprintf(times, sizeof times, "read %.3f s, written %.3f s", made.read_s, made.write_s);
    std::cerr << "swat-gpu: notice: wrote " << made.index_path << ": " << made.sequences << " "
              << to_string(made.alphabet) << " sequences, " << made.residues << " residues, " << made.volumes
              << (made.volumes == 1 ? " volume, " : " volumes, ") << made.bytes << " bytes (" << times << ")\n";
  }
  return 0;
}

}  // namespace swat::cli
