#include "io/seqan3_fasta.hpp"

#include <exception>
#include <seqan3/io/sequence_file/input.hpp>
#include <sstream>
#include <utility>

#include "common/error.hpp"

namespace swat::io::detail {
namespace {

// Reads residues as plain chars: every byte is legal here; swat_io validates and encodes them.
struct char_sequence_traits : seqan3::sequence_file_input_default_traits_dna {
  using sequence_alphabet = char;
  using sequence_legal_alphabet = char;
  template <typename alphabet_t>
  using sequence_container = std::basic_string<alphabet_t>;
};

using fasta_input =
    seqan3::sequence_file_input<char_sequence_traits,
                                seqan3::fields<seqan3::field::id, seqan3::field::seq>,
                                seqan3::type_list<seqan3::format_fasta>>;

std::string label(std::size_t index) { return "record " + std::to_string(index + 1); }

}  // namespace

std::vector<raw_record> parse_fasta_text(std::string text, const std::string& path) {
  std::vector<raw_record> records;
  try {
    fasta_input input{std::istringstream{std::move(text)}, seqan3::format_fasta{}};
    input.options.truncate_ids = false;
    for (auto& record : input)
      records.push_back({std::move(record.id()), std::move(record.sequence())});
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const seqan3::parse_error& e) {
    throw input_error(path, std::string("FASTA parse error: ") + e.what(), label(records.size()));
  } catch (const std::exception& e) {
    throw input_error(path, std::string("cannot read FASTA: ") + e.what(), label(records.size()));
  }
  return records;
}

}  // namespace swat::io::detail
