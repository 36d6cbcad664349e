// Code layouts of the paper engines (see code_layout.hpp).

#include "cuda/engines/paper/code_layout.hpp"

#include "common/error.hpp"

namespace swat::paper {

namespace {
std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }
}  // namespace

kernel_kind parse_kernel_kind(std::string_view name) {
  if (name == "diagonal" || name == "simple") return kernel_kind::diagonal;
  if (name == "coalesced" || name == "auto") return kernel_kind::coalesced;
  if (name == "tiled") return kernel_kind::tiled;
  throw usage_error("unknown --kernel '" + std::string(name) + "' (valid: " + kernel_kind_names() +
                    ")");
}

std::string_view to_string(kernel_kind kind) {
  switch (kind) {
    case kernel_kind::diagonal: return "diagonal";
    case kernel_kind::coalesced: return "coalesced";
    case kernel_kind::tiled: return "tiled";
  }
  return "?";
}

std::string kernel_kind_names() { return "diagonal, coalesced, tiled, auto"; }

code_layout::code_layout(kernel_kind kernel, std::int64_t m, std::int64_t n, int tile)
    : kernel_(kernel), m_(m), n_(n) {
  if (m < 1 || n < 1) throw usage_error("code_layout: empty matrix");
  if (kernel == kernel_kind::tiled) {
    tile_ = tile == 0 ? default_tile : tile;
    if (tile_ < 1 || tile_ > max_tile)
      throw usage_error("--tile " + std::to_string(tile_) + " is outside 1.." +
                        std::to_string(max_tile));
    tiles_m_ = (m + tile_ - 1) / tile_;
    tiles_n_ = (n + tile_ - 1) / tile_;
    chunk_cells_ = round_up(std::int64_t(tile_) * tile_, 256);
    total_cells_ = tiles_m_ * tiles_n_ * chunk_cells_;
    return;
  }
  const std::int64_t align = kernel == kernel_kind::coalesced ? 256 : 2;
  starts_.assign(static_cast<std::size_t>(m + n + 1), 0);
  std::int64_t pos = 0;
  for (std::int64_t d = 2; d <= m + n; ++d) {
    pos = round_up(pos, align);
    starts_[static_cast<std::size_t>(d)] = pos;
    pos += diagonal_hi(d, m) - diagonal_lo(d, n) + 1;
  }
  total_cells_ = round_up(pos, 2);
}

double code_layout::padding_overhead() const {
  return double(total_cells_) / (double(m_) * double(n_)) - 1.0;
}

}  // namespace swat::paper
