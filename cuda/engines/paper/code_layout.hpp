#pragma once
// Where every DP cell's 4-bit traceback code lives in a fill's code buffer (plain C++, shared by
// the device fill, the memory plan and the CPU traceback; reusable by later engines).
//
// Codes are packed two per byte: cell position p is the low nibble of byte p/2 when p is even,
// the high nibble when p is odd. Layouts (Xiao, Aji & Feng 2009 §5.1):
//   diagonal  — diagonal-major: anti-diagonal d = i + j (2..m+n) holds cells i = lo(d)..hi(d)
//               in order, diagonals back to back; each start rounded up to an even position so
//               that two cells of one diagonal share a byte, never two diagonals;
//   coalesced — the same with every diagonal's start aligned to 128 bytes (256 cells);
//   tiled     — tiles of tile × tile cells, tile (ti, tj) row-major in a chunk of
//               round_up(tile², 256) cells, chunks in row-major tile order.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace swat::paper {

//! The paper engines (Xiao, Aji & Feng 2009): "simple" (diagonal), coalesced, tiled wavefront.
enum class kernel_kind { diagonal, coalesced, tiled };

//! Parses --kernel: "diagonal" (alias "simple"), "coalesced", "tiled", "auto" (= coalesced).
//! Throws swat::usage_error listing the valid names.
kernel_kind parse_kernel_kind(std::string_view name);
//! CLI name of a kernel.
std::string_view to_string(kernel_kind kind);
//! "diagonal, coalesced, tiled, auto" (for messages).
std::string kernel_kind_names();

//! Default tile edge of the tiled kernel (cells; the paper's 32 × 32).
inline constexpr int default_tile = 32;
//! Largest tile edge the tiled kernel accepts (cells; its codes are staged in shared memory).
inline constexpr int max_tile = 128;

//! First DP row on anti-diagonal d of an m × n matrix (1-based rows, d = i + j).
inline std::int64_t diagonal_lo(std::int64_t d, std::int64_t n) { return d - n > 1 ? d - n : 1; }
//! Last DP row on anti-diagonal d.
inline std::int64_t diagonal_hi(std::int64_t d, std::int64_t m) { return d - 1 < m ? d - 1 : m; }

//! Code positions of one m × n fill for one kernel (see file comment).
class code_layout {
 public:
  //! Layout of kernel for an m × n matrix (m, n ≥ 1); tile is the tiled kernel's edge
  //! (0 = default_tile; must be 1..max_tile, else usage_error).
  code_layout(kernel_kind kernel, std::int64_t m, std::int64_t n, int tile = 0);

  kernel_kind kernel() const { return kernel_; }
  std::int64_t rows() const { return m_; }
  std::int64_t cols() const { return n_; }
  //! Tile edge (cells; tiled only, else 0).
  int tile() const { return tile_; }
  //! Tiles per column / per row (tiled only).
  std::int64_t tiles_m() const { return tiles_m_; }
  std::int64_t tiles_n() const { return tiles_n_; }
  //! Cells per tile chunk (tiled only).
  std::int64_t chunk_cells() const { return chunk_cells_; }
  //! Code positions in the buffer, padding included (cells, even).
  std::int64_t total_cells() const { return total_cells_; }
  //! Bytes of the code buffer (total_cells / 2).
  std::int64_t code_bytes() const { return total_cells_ / 2; }
  //! Padding overhead: total_cells / (m · n) − 1 (fraction).
  double padding_overhead() const;
  //! Start position of anti-diagonal d (index d = 0..m+n; diagonal kernels, else empty).
  std::span<const std::int64_t> diagonal_starts() const { return starts_; }

  //! Position of DP cell (i, j), 1 ≤ i ≤ m, 1 ≤ j ≤ n.
  std::int64_t position(std::int64_t i, std::int64_t j) const {
    if (kernel_ == kernel_kind::tiled) {
      const std::int64_t ti = (i - 1) / tile_, r = (i - 1) % tile_;
      const std::int64_t tj = (j - 1) / tile_, c = (j - 1) % tile_;
      return (ti * tiles_n_ + tj) * chunk_cells_ + r * tile_ + c;
    }
    const std::int64_t d = i + j;
    return starts_[static_cast<std::size_t>(d)] + (i - diagonal_lo(d, n_));
  }
  //! The 4-bit code of (i, j) from a packed buffer of code_bytes() bytes.
  std::uint8_t code_at(const std::uint8_t* codes, std::int64_t i, std::int64_t j) const {
    const std::int64_t p = position(i, j);
    return static_cast<std::uint8_t>((codes[p >> 1] >> ((p & 1) * 4)) & 0xF);
  }

 private:
  kernel_kind kernel_;
  std::int64_t m_, n_;
  int tile_ = 0;
  std::int64_t tiles_m_ = 0, tiles_n_ = 0, chunk_cells_ = 0;
  std::int64_t total_cells_ = 0;
  std::vector<std::int64_t> starts_;
};

}  // namespace swat::paper
