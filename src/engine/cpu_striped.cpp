#include "engine/cpu_kernels.hpp"

namespace swat::cpu {

bool striped_available() { return false; }

pass_result score_pass_striped(residue_span query, residue_span target, const scoring_scheme& scheme,
                               bool with_origins, const progress_fn* progress) {
  return score_pass_scalar(query, target, scheme, with_origins, progress);
}

}  // namespace swat::cpu
