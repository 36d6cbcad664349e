// Bounded-memory traceback of the CPU engine: codes of the whole rectangle when they fit,
// otherwise multi-level row checkpoints (memory bound and proof in cpu_traceback.hpp).

#include "engine/cpu_traceback.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/traceback.hpp"
#include "engine/cpu_kernels.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace swat::cpu {
namespace {

//! Rows of byte codes filled at a time before they are packed two to a byte.
constexpr std::int64_t pack_rows = 64;

//! Whether codes of `rows` rows of `cols` columns fit `rem` bytes packed two to a byte (with the
//! rows of byte codes they are filled in first).
bool packed_fits(std::int64_t rows, std::int64_t cols, std::size_t rem) {
  return double(rows) * double((cols + 1) / 2) + double(std::min(rows, pack_rows)) * double(cols) <= double(rem);
}

//! out[c] = in[2c] | in[2c + 1] << 4 for the n codes (< 16) of in, from code `from` (even) on;
//! the last nibble alone when n is odd.
void pack_nibbles_portable(const std::uint8_t* in, std::int64_t n, std::uint8_t* out, std::int64_t from) {
  std::int64_t c = from;
  for (; c + 8 <= n; c += 8) {  // eight codes into four bytes, in a 64-bit word
    std::uint64_t x;
    std::memcpy(&x, in + c, 8);
    x = (x | (x >> 4)) & 0x00ff00ff00ff00ffull;
    x = (x | (x >> 8)) & 0x0000ffff0000ffffull;
    x = (x | (x >> 16)) & 0x00000000ffffffffull;
    const std::uint32_t four = std::uint32_t(x);
    std::memcpy(out + c / 2, &four, 4);
  }
  for (; c + 1 < n; c += 2) out[c / 2] = std::uint8_t(in[c] | (in[c + 1] << 4));
  if (c < n) out[c / 2] = in[c];
}

#if defined(__x86_64__) && defined(__GNUC__)
//! pack_nibbles_portable, 32 codes at a time (AVX2: requires striped_available()).
__attribute__((target("avx2"))) void pack_nibbles_avx2(const std::uint8_t* in, std::int64_t n, std::uint8_t* out) {
  const __m256i weights = _mm256_set1_epi16(0x1001);  // bytes 1, 16: code 2c + 16 · code 2c+1
  std::int64_t c = 0;
  for (; c + 32 <= n; c += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + c));
    const __m256i pairs = _mm256_maddubs_epi16(v, weights);  // 16 words ≤ 255
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(pairs, pairs), 0xd8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c / 2), _mm256_castsi256_si128(bytes));
  }
  pack_nibbles_portable(in, n, out, c);
}
#endif

void pack_nibbles(const std::uint8_t* in, std::int64_t n, std::uint8_t* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (striped_available()) return pack_nibbles_avx2(in, n, out);
#endif
  pack_nibbles_portable(in, n, out, 0);
}

//! Rows (a, b] of the rectangle, split into bands of k rows; H and F of rows a + c·k
//! (c = 1 … stored) kept for columns 0..width, row a borrowed from the parent level.
struct level {
  std::int64_t a = 0, b = 0, k = 1, width = 0;
  const std::int32_t* top_h = nullptr;
  const std::int32_t* top_f = nullptr;
  std::vector<std::int32_t> ckpt;  //!< per stored row: h[width+1] then f[width+1]

  std::size_t bytes() const { return ckpt.size() * sizeof(std::int32_t); }
  const std::int32_t* row_h(std::int64_t c) const {
    return c == 0 ? top_h : ckpt.data() + std::size_t(c - 1) * 2 * std::size_t(width + 1);
  }
  const std::int32_t* row_f(std::int64_t c) const {
    return c == 0 ? top_f : row_h(c) + (width + 1);
  }
};

//! Serves code_at(i, j) to walk_traceback, recomputing one band of codes at a time.
class band_walker {
 public:
  band_walker(residue_span query, residue_span target, const scoring_scheme& scheme, std::size_t budget)
      : q_(query), t_(target), scheme_(scheme), budget_(budget) {
    const std::int64_t w = std::int64_t(target.size());
    zero_h_.assign(std::size_t(w + 1), 0);
    zero_f_.assign(std::size_t(w + 1), minus_infinity);
    work_h_.resize(std::size_t(w + 1));
    work_f_.resize(std::size_t(w + 1));
    levels_.push_back(make_level(0, std::int64_t(query.size()), w, zero_h_.data(), zero_f_.data(), budget_));
  }

  std::uint8_t code_at(std::int64_t i, std::int64_t j) {
    if (i <= band_a_ || i > band_b_) load_band(i, j);
    if (packed_) {
      const std::uint8_t two =
          codes_[std::size_t(i - band_a_ - 1) * std::size_t((band_w_ + 1) / 2) + std::size_t((j - 1) / 2)];
      return (j - 1) & 1 ? std::uint8_t(two >> 4) : std::uint8_t(two & 15);
    }
    return codes_[std::size_t(i - band_a_ - 1) * std::size_t(band_w_) + std::size_t(j - 1)];
  }

 private:
  std::size_t used() const {
    std::size_t s = 0;
    for (const level& l : levels_) s += l.bytes();
    return s;
  }

  //! Copies the border row (columns 0..w) into the working rows.
  void start_from(const std::int32_t* h, const std::int32_t* f, std::int64_t w) {
    std::copy(h, h + w + 1, work_h_.begin());
    std::copy(f, f + w + 1, work_f_.begin());
  }

  level make_level(std::int64_t a, std::int64_t b, std::int64_t w, const std::int32_t* top_h,
                   const std::int32_t* top_f, std::size_t rem) {
    level l;
    l.a = a;
    l.b = b;
    l.width = w;
    l.top_h = top_h;
    l.top_f = top_f;
    const std::int64_t rows = b - a;
    const double row_bytes = 8.0 * double(w + 1);
    if (double(rows) * double(w) <= double(rem) || rows <= 1 || packed_fits(rows, w, rem)) {
      l.k = std::max<std::int64_t>(rows, 1);
      return l;
    }
    // Balanced split: rows/(c+1) code rows against c checkpoint rows.
    std::int64_t c = std::max<std::int64_t>(1, std::llround(std::sqrt(double(rows) * double(w) / row_bytes)) - 1);
    const double cost = double((rows + c) / (c + 1)) * double(w) + double(c) * row_bytes;
    if (cost > double(rem)) c = std::max<std::int64_t>(1, std::int64_t(double(rem) / 2.0 / row_bytes));
    c = std::min(c, rows - 1);
    l.k = (rows + c) / (c + 1);
    const std::int64_t stored = (rows - 1) / l.k;
    l.ckpt.resize(std::size_t(stored) * 2 * std::size_t(w + 1));
    start_from(top_h, top_f, w);
    for (std::int64_t c = 1; c <= stored; ++c) {
      fill_rows(q_.data() + (a + (c - 1) * l.k), l.k, t_.data(), w, scheme_, work_h_.data(), work_f_.data(),
                nullptr, 0);
      std::int32_t* dst = l.ckpt.data() + std::size_t(c - 1) * 2 * std::size_t(w + 1);
      std::copy(work_h_.begin(), work_h_.begin() + (w + 1), dst);
      std::copy(work_f_.begin(), work_f_.begin() + (w + 1), dst + (w + 1));
    }
    return l;
  }

  void load_band(std::int64_t i, std::int64_t j) {
    codes_ = {};
    while (levels_.back().a >= i) levels_.pop_back();  // the root (a = 0) always stays
    for (;;) {
      const level& l = levels_.back();
      const std::int64_t c = (i - l.a - 1) / l.k;
      const std::int64_t r0 = l.a + c * l.k;
      const std::int64_t r1 = std::min(r0 + l.k, l.b);
      const std::size_t u = used();
      const std::size_t rem = budget_ > u ? budget_ - u : 0;
      if (double(r1 - r0) * double(j) <= double(rem) || r1 - r0 == 1) {
        codes_.resize(std::size_t(r1 - r0) * std::size_t(j));
        start_from(l.row_h(c), l.row_f(c), j);
        fill_rows(q_.data() + r0, r1 - r0, t_.data(), j, scheme_, work_h_.data(), work_f_.data(), codes_.data(), j);
        band_a_ = r0;
        band_b_ = r1;
        band_w_ = j;
        packed_ = false;
        return;
      }
      if (packed_fits(r1 - r0, j, rem)) {
        // Two codes a byte: filled pack_rows rows at a time, then packed (a band twice as tall
        // as the byte codes allow, often the whole rectangle: one fill instead of two).
        const std::size_t half = std::size_t((j + 1) / 2);
        codes_.resize(std::size_t(r1 - r0) * half);
        unpacked_.resize(std::size_t(std::min(r1 - r0, pack_rows)) * std::size_t(j));
        start_from(l.row_h(c), l.row_f(c), j);
        for (std::int64_t r = r0; r < r1; r += pack_rows) {
          const std::int64_t nr = std::min(pack_rows, r1 - r);
          fill_rows(q_.data() + r, nr, t_.data(), j, scheme_, work_h_.data(), work_f_.data(), unpacked_.data(), j);
          for (std::int64_t k = 0; k < nr; ++k)
            pack_nibbles(unpacked_.data() + std::size_t(k) * std::size_t(j), j, codes_.data() + std::size_t(r - r0 + k) * half);
        }
        band_a_ = r0;
        band_b_ = r1;
        band_w_ = j;
        packed_ = true;
        return;
      }
      level child = make_level(r0, r1, j, l.row_h(c), l.row_f(c), rem);
      levels_.push_back(std::move(child));
    }
  }

  residue_span q_, t_;
  const scoring_scheme& scheme_;
  std::size_t budget_;
  std::vector<std::int32_t> zero_h_, zero_f_, work_h_, work_f_;
  std::vector<level> levels_;
  std::vector<std::uint8_t> codes_;
  std::vector<std::uint8_t> unpacked_;  //!< byte codes of up to pack_rows rows before they are packed
  std::int64_t band_a_ = 0, band_b_ = 0, band_w_ = 0;  //!< codes_ holds rows (band_a_, band_b_]
  bool packed_ = false;                                //!< … two codes a byte (low nibble: odd column j)
};

}  // namespace

std::size_t trace_overhead_bytes(std::int64_t rows, std::int64_t width) {
  std::size_t levels = 1;
  while ((std::int64_t(1) << (levels - 1)) < rows) ++levels;  // ⌈log2 R⌉ + 1
  const std::size_t w = std::size_t(std::max<std::int64_t>(width, 0));
  return 8 * (w + 1) * levels + w + 32 * (w + 1) + 8 * (w + 9);
}

alignment trace_rectangle(residue_span query, residue_span target, const scoring_scheme& scheme,
                          std::int32_t score, std::size_t budget_bytes) {
  band_walker walker(query, target, scheme, budget_bytes);
  const best_cell end{score, std::int64_t(query.size()), std::int64_t(target.size())};
  alignment aln = walk_traceback(end, [&](std::int64_t i, std::int64_t j) { return walker.code_at(i, j); });
  if (aln.query_begin != 0 || aln.target_begin != 0)
    throw std::logic_error("cpu engine: traceback did not end at the alignment's origin");
  return aln;
}

}  // namespace swat::cpu
