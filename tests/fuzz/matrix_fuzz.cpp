// libFuzzer: the NCBI substitution-matrix parser on arbitrary text. Bad text must end in
// swat::input_error (or usage_error); an accepted matrix is a protein scheme.

#include <string_view>

#include "common/error.hpp"
#include "fuzz_support.hpp"
#include "scoring/scoring.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const swat::scoring_scheme s = swat::scoring::parse_matrix_text(text, "fuzz.mat", "fuzz", 11, 1);
    swat::fuzz::require(s.alphabet == swat::alphabet_kind::protein, "a matrix file is protein");
  } catch (const swat::input_error&) {
  } catch (const swat::usage_error&) {
  }
  return 0;
}
