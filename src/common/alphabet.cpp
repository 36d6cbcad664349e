#include "common/alphabet.hpp"

#include <cctype>

namespace swat {
namespace {

std::array<std::uint8_t, 256> make_dna_table() {
  std::array<std::uint8_t, 256> t{};
  t.fill(invalid_rank);
  auto set = [&](char c, std::uint8_t r) {
    t[static_cast<unsigned char>(c)] = r;
    t[static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(c)))] = r;
  };
  set('A', 0);
  set('C', 1);
  set('G', 2);
  set('T', 3);
  set('U', 3);
  for (char c : std::string_view("RYKMSWBDHVN")) set(c, dna_n_rank);
  return t;
}

std::array<std::uint8_t, 256> make_protein_table() {
  std::array<std::uint8_t, 256> t{};
  t.fill(invalid_rank);
  for (std::size_t r = 0; r < protein_letters.size(); ++r) {
    const auto c = static_cast<unsigned char>(protein_letters[r]);
    t[c] = static_cast<std::uint8_t>(r);
    t[static_cast<unsigned char>(std::tolower(c))] = static_cast<std::uint8_t>(r);
  }
  return t;
}

}  // namespace

const std::array<std::uint8_t, 256>& dna_rank_table() {
  static const auto table = make_dna_table();
  return table;
}

const std::array<std::uint8_t, 256>& protein_rank_table() {
  static const auto table = make_protein_table();
  return table;
}

std::string_view to_string(alphabet_kind kind) {
  return kind == alphabet_kind::dna ? "dna" : "protein";
}

}  // namespace swat
