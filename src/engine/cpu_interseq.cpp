// The inter-sequence 8-bit kernel (cpu_interseq.hpp): one template over the vector operations,
// instantiated for AVX2 (32 lanes) and AVX-512BW (64 lanes) inside functions carrying those
// targets (flatten inlines the template and its operations there), chosen at run time.

#include "engine/cpu_interseq.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/cpu_simd8.hpp"

namespace swat::cpu {

#if SWAT_SIMD8
using simd8::avx2_ops;
using simd8::avx512_ops;
#endif

interseq_scheme make_interseq_scheme(const scoring_scheme& scheme, int ranks) {
  interseq_scheme s;
  ranks = std::clamp(ranks, 1, matrix_stride);
  std::int32_t low = 0, high = 0;
  for (int a = 0; a < ranks; ++a)
    for (int b = 0; b < ranks; ++b) {
      low = std::min(low, scheme.score(std::uint8_t(a), std::uint8_t(b)));
      high = std::max(high, scheme.score(std::uint8_t(a), std::uint8_t(b)));
    }
  if (scheme.gap_open < 0 || scheme.gap_extend < 0 || high - low > 127) return s;
  s.bias = std::uint8_t(-low);
  s.limit = std::uint8_t(255 - (high - low));
  s.open_extend = std::uint8_t(std::min<std::int64_t>(std::int64_t(scheme.gap_open) + scheme.gap_extend, 255));
  s.extend = std::uint8_t(std::min<std::int32_t>(scheme.gap_extend, 255));
  s.wide_open_extend = std::uint16_t(std::min<std::int64_t>(std::int64_t(scheme.gap_open) + scheme.gap_extend, 65535));
  s.wide_extend = std::uint16_t(std::min<std::int32_t>(scheme.gap_extend, 65535));
  s.wide_limit = std::uint16_t(65535 - (high - low));
  s.full_open_extend = std::uint32_t(std::min<std::int64_t>(std::int64_t(scheme.gap_open) + scheme.gap_extend, INT32_MAX));
  s.full_extend = std::uint32_t(scheme.gap_extend);
  s.query_ranks = s.target_ranks = ranks;
  for (int a = 0; a < ranks; ++a)
    for (int b = 0; b < ranks; ++b)
      s.biased[std::size_t(a * matrix_stride + b)] = std::uint8_t(scheme.score(std::uint8_t(a), std::uint8_t(b)) - low);
  s.fits = true;
  return s;
}

namespace {

//! Query rows per block whose column maxima are kept (the tie search reads one block).
constexpr std::int64_t block_rows = 64;

//! Target columns per pass over the query: independent dependency chains for the core (F runs
//! down each column) and one load and store of H and E per row for all of them. AVX2 has 16
//! registers, AVX-512 32.
constexpr int pass_columns(int lanes) { return lanes == 64 ? 4 : 2; }

//! Scratch layout (bytes, in this order): H and E interleaved per row, read and written (2 ×
//! 2·m·lanes); H of the pass's other columns (c − 1 of them, m·lanes each, for the tie search);
//! the column profiles (c · query_ranks · lanes); the score tables (2 · query_ranks · lanes);
//! per block the column maxima (blocks · c · lanes); the interleaved targets, n rounded up to
//! c columns (· lanes).
struct layout {
  std::size_t he_in = 0, he_out = 0, side = 0, profile = 0, tables = 0, block_max = 0, columns = 0, total = 0;
  layout(std::int64_t m, std::int64_t n, int lanes, int query_ranks) {
    const std::size_t w = std::size_t(lanes), c = std::size_t(pass_columns(lanes)), rows = std::size_t(m);
    he_out = he_in + 2 * rows * w;
    side = he_out + 2 * rows * w;
    profile = side + (c - 1) * rows * w;
    tables = profile + c * std::size_t(query_ranks) * w;
    block_max = tables + 2 * std::size_t(query_ranks) * w;
    columns = block_max + std::size_t((m + block_rows - 1) / block_rows) * c * w;
    total = columns + (std::size_t(n) + c - 1) / c * c * w;
  }
};

//! Packs the targets' lengths into `lanes` lanes, longest first, each into the lane that ends
//! soonest (the lowest on a tie), every run starting on a multiple of the pass's columns. runs:
//! by start column (then lane). Returns the columns of the pass (the latest end).
//! runs == nullptr: only the columns (the plan's estimate of a batch).
std::int64_t pack_lanes(std::span<const std::int64_t> lengths, int lanes, std::vector<lane_run>* runs) {
  const std::int64_t c = pass_columns(lanes);
  std::vector<int> order(lengths.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = int(k);
  const auto longer = [&](int a, int b) { return lengths[std::size_t(a)] > lengths[std::size_t(b)]; };
  if (!std::is_sorted(order.begin(), order.end(), longer)) std::stable_sort(order.begin(), order.end(), longer);
  // Lanes by (next free column, lane): a min-heap, the front the lane that ends soonest.
  std::vector<std::pair<std::int64_t, int>> heap;
  for (int l = 0; l < lanes; ++l) heap.emplace_back(0, l);
  const auto later = std::greater<std::pair<std::int64_t, int>>();
  if (runs != nullptr) runs->clear();
  std::int64_t n = 0;
  for (const int k : order) {
    std::pop_heap(heap.begin(), heap.end(), later);
    auto& [at, l] = heap.back();
    const std::int64_t len = lengths[std::size_t(k)];
    if (runs != nullptr) runs->push_back({at, len, l, k});
    n = std::max(n, at + len);
    at += (len + c - 1) / c * c;
    std::push_heap(heap.begin(), heap.end(), later);
  }
  if (runs != nullptr)
    std::sort(runs->begin(), runs->end(), [](const lane_run& a, const lane_run& b) {
      return a.start != b.start ? a.start < b.start : a.lane < b.lane;
    });
  return n;
}

}  // namespace

std::size_t interseq_bytes(std::int64_t m, std::int64_t n, int lanes, int query_ranks) {
  return layout(m, n, lanes, query_ranks).total + 64;
}

std::int64_t packed_columns(std::span<const std::int64_t> lengths, int lanes) {
  return pack_lanes(lengths, lanes, nullptr);
}

#if SWAT_SIMD8
namespace {


//! The pass (file comment of cpu_interseq.hpp). The query q (m rows) against the targets of
//! `runs`, whose residues are interleaved in cols (column j of lane l at cols[j · lanes + l];
//! columns outside a run hold rank 0 and are not scored). `runs` in order of start column; a
//! lane's H and E are zeroed where a run starts (its column 0), and its best cell is kept from
//! there to its end (results[target], first_over[target] relative to the run's start).
//! The pass over a batch's lanes. With `offset`, a lane holds H, E and F as signed bytes v − 128
//! (0 as −128): a saturating signed addition of the plain substitution score then floors H at 0
//! and tops it at 255 in one instruction, where unsigned bytes need the score biased and the bias
//! taken off again (one operation less per cell; exact by the same limit: a saturated H reaches
//! the lane's best, and the limit 255 − (high − low) is at most 255 − high). The gaps are then
//! signed subtrahends, so it takes gap costs (o + e, e) of at most 127; the unsigned form takes
//! the rest. The column maxima, the block maxima and the tie search compare in unsigned form.
template <class ops, bool offset>
void interseq_kernel(const std::uint8_t* q, std::int64_t m, std::int64_t n, std::span<const lane_run> runs,
                     const interseq_scheme& s, std::uint8_t* base, const layout& at, best_cell* results,
                     std::int64_t* first_over) {
  using vec = typename ops::vec;
  constexpr std::uint8_t zero_byte = offset ? 0x80 : 0;  // H = 0, as held in a lane
  const auto sat_add = [](vec a, vec b) {
    if constexpr (offset) return ops::adds_signed(a, b);
    else return ops::adds(a, b);
  };
  const auto sat_sub = [](vec a, vec b) {
    if constexpr (offset) return ops::subs_signed(a, b);
    else return ops::subs(a, b);
  };
  const auto vmax = [](vec a, vec b) {
    if constexpr (offset) return ops::max_signed(a, b);
    else return ops::max(a, b);
  };
  const vec flip = ops::set1(zero_byte);
  const auto as_unsigned = [&flip](vec v) {  // a lane's value as an unsigned byte
    if constexpr (offset) return ops::bit_xor(v, flip);
    else return v;
  };
  constexpr int w = ops::lanes, c = pass_columns(w);
  std::uint8_t* he_in = base + at.he_in;
  std::uint8_t* he_out = base + at.he_out;
  std::uint8_t* side = base + at.side;
  std::uint8_t* profile = base + at.profile;
  std::uint8_t* tables = base + at.tables;
  std::uint8_t* block_max = base + at.block_max;
  const std::uint8_t* cols = base + at.columns;
  const int qr = s.query_ranks;
  const std::size_t profile_bytes = std::size_t(qr) * w;
  const bool narrow = s.target_ranks <= 16;  // one shuffle per profile row
  // Per query rank, its table row's two halves, each repeated in every 16-byte part of a vector
  // (offset: the plain scores, as signed bytes).
  for (int a = 0; a < qr; ++a)
    for (int x = 0; x < 2 * w; ++x)
      tables[std::size_t(2 * a) * w + std::size_t(x)] =
          std::uint8_t(s.biased[std::size_t(a * matrix_stride + (x / w) * 16 + x % 16)] - (offset ? s.bias : 0));
  for (std::int64_t x = 0; x < 2 * m * w; ++x) he_in[x] = zero_byte;  // H(i, 0) = 0, E(i, 1) = max(-o-e, 0)
  const vec bias = ops::set1(s.bias), open_extend = ops::set1(s.open_extend), extend = ops::set1(s.extend);
  // Lanes inside a run: active[l] = 0xff; run_of[l]: the lane's current run (index into runs).
  alignas(64) std::uint8_t active[w], best_score[w], col_max[w];
  int run_of[w];
  std::int64_t best_row[w], best_col[w], over[w];
  for (int l = 0; l < w; ++l) active[l] = 0, run_of[l] = -1, best_row[l] = best_col[l] = 0, over[l] = -1;
  vec live = ops::zero(), best = ops::zero();
  // Runs by end column, for the ends; runs (already by start) for the starts.
  std::vector<std::size_t> by_end(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) by_end[r] = r;
  std::sort(by_end.begin(), by_end.end(), [&](std::size_t a, std::size_t b) {
    return runs[a].start + runs[a].length < runs[b].start + runs[b].length;
  });
  std::size_t next_start = 0, next_end = 0;
  const std::int64_t blocks = (m + block_rows - 1) / block_rows;
  for (std::int64_t j0 = 0; j0 < n; j0 += c) {
    // Lanes that begin a target here (their best is 0: a lane's is reset where its run ends).
    if (next_start < runs.size() && runs[next_start].start == j0) {
      for (; next_start < runs.size() && runs[next_start].start == j0; ++next_start) {
        const int l = runs[next_start].lane;
        for (std::int64_t i = 0; i < m; ++i) he_in[2 * i * w + l] = he_in[2 * i * w + w + l] = zero_byte;
        active[l] = 0xff;
        run_of[l] = int(next_start);
        over[l] = -1;
      }
      live = ops::load(active);
    }
    for (int k = 0; k < c; ++k) {
      const vec residues = ops::load(cols + (j0 + k) * w);
      for (int a = 0; a < qr; ++a) {
        const vec lo = ops::load(tables + std::size_t(2 * a) * w);
        const vec row = narrow ? ops::lookup16(lo, residues)
                               : ops::lookup32(lo, ops::load(tables + std::size_t(2 * a + 1) * w), residues);
        ops::store(profile + std::size_t(k) * profile_bytes + std::size_t(a) * w, row);
      }
    }
    vec f[c], up[c], column[c];  // F down each column, H of the row above, column maxima
    for (int k = 0; k < c; ++k) f[k] = up[k] = column[k] = flip;
    vec diag = flip;  // H(i-1, j0-1)
    for (std::int64_t b = 0; b < blocks; ++b) {
      vec top[c];
      for (int k = 0; k < c; ++k) top[k] = flip;
      const std::int64_t end = (b + 1) * block_rows < m ? (b + 1) * block_rows : m;
      for (std::int64_t i = b * block_rows; i < end; ++i) {
        const std::uint8_t* in = he_in + 2 * i * w;
        const vec h_left = ops::load(in);
        vec e = ops::load(in + w), d = diag;
        const std::uint8_t* p = profile + std::size_t(q[i]) * w;
        for (int k = 0; k < c; ++k) {
          vec h = sat_add(d, ops::load(p + std::size_t(k) * profile_bytes));
          if constexpr (!offset) h = ops::subs(h, bias);
          h = vmax(vmax(h, e), f[k]);
          top[k] = vmax(top[k], h);
          const vec h_open = sat_sub(h, open_extend);
          e = vmax(sat_sub(e, extend), h_open);
          f[k] = vmax(sat_sub(f[k], extend), h_open);
          d = up[k];
          up[k] = h;
          if (k < c - 1) ops::store(side + (std::size_t(k) * std::size_t(m) + std::size_t(i)) * w, h);
        }
        std::uint8_t* out = he_out + 2 * i * w;
        ops::store(out, up[c - 1]);
        ops::store(out + w, e);
        diag = h_left;
      }
      for (int k = 0; k < c; ++k) {
        ops::store(block_max + (b * c + k) * w, as_unsigned(top[k]));
        column[k] = vmax(column[k], top[k]);
      }
    }
    for (int k = 0; k < c && j0 + k < n; ++k) {
      const std::int64_t j = j0 + k;
      const vec here_max = ops::bit_and(as_unsigned(column[k]), live);
      if (const std::uint64_t better = ops::gt(here_max, best)) {
        best = ops::max(best, here_max);
        ops::store(col_max, here_max);
        for (std::uint64_t x = better; x != 0; x &= x - 1) {  // lanes whose best reaches the limit here first
          const int l = __builtin_ctzll(x);
          if (col_max[l] >= s.limit && over[l] < 0) over[l] = j - runs[std::size_t(run_of[l])].start;
        }
        // H of this column: the side rows, or the pass's output for its last column.
        const std::uint8_t* h_of = k < c - 1 ? side + std::size_t(k) * std::size_t(m) * w : he_out;
        const std::size_t stride = k < c - 1 ? w : 2 * w;
        // Each improved lane's first block holding its maximum, then the first row there.
        std::uint64_t pending = better;
        for (std::int64_t b = 0; pending != 0 && b < blocks; ++b) {
          std::uint64_t found = ops::eq(ops::load(block_max + (b * c + k) * w), here_max) & pending;
          pending &= ~found;
          for (; found != 0; found &= found - 1) {
            const int l = __builtin_ctzll(found);
            std::int64_t i = b * block_rows;
            while (std::uint8_t(h_of[std::size_t(i) * stride + std::size_t(l)] ^ zero_byte) != col_max[l]) ++i;
            best_row[l] = i + 1;
            best_col[l] = j + 1;
          }
        }
      }
      if (next_end < by_end.size() && runs[by_end[next_end]].start + runs[by_end[next_end]].length == j + 1) {
        // lanes whose target ends here: their best cells, then they idle until their next run
        ops::store(best_score, best);
        for (; next_end < by_end.size(); ++next_end) {
          const lane_run& r = runs[by_end[next_end]];
          if (r.start + r.length != j + 1) break;
          const int l = r.lane;
          results[r.target] = best_score[l] == 0 ? best_cell{}
                                                 : best_cell{best_score[l], best_row[l], best_col[l] - r.start};
          first_over[r.target] = best_score[l] >= s.limit ? over[l] : -1;
          active[l] = 0;
          best_score[l] = 0;
        }
        best = ops::load(best_score);
        live = ops::load(active);
      }
    }
    std::uint8_t* swap = he_in;
    he_in = he_out;
    he_out = swap;
  }
}

//! Whether the signed offset lanes take the scheme's gap costs (interseq_kernel).
bool offset_fits(const interseq_scheme& s) { return s.open_extend <= 127 && s.extend <= 127; }

__attribute__((target("avx2"), flatten)) void kernel_avx2(const std::uint8_t* q, std::int64_t m, std::int64_t n,
                                                           std::span<const lane_run> runs, const interseq_scheme& s,
                                                           std::uint8_t* base, const layout& at, best_cell* results,
                                                           std::int64_t* first_over) {
  if (offset_fits(s)) interseq_kernel<avx2_ops, true>(q, m, n, runs, s, base, at, results, first_over);
  else interseq_kernel<avx2_ops, false>(q, m, n, runs, s, base, at, results, first_over);
}

__attribute__((target("avx512bw"), flatten)) void kernel_avx512(const std::uint8_t* q, std::int64_t m, std::int64_t n,
                                                                 std::span<const lane_run> runs,
                                                                 const interseq_scheme& s, std::uint8_t* base,
                                                                 const layout& at, best_cell* results,
                                                                 std::int64_t* first_over) {
  if (offset_fits(s)) interseq_kernel<avx512_ops, true>(q, m, n, runs, s, base, at, results, first_over);
  else interseq_kernel<avx512_ops, false>(q, m, n, runs, s, base, at, results, first_over);
}

}  // namespace

int interseq_lanes() {
  static const int lanes = __builtin_cpu_supports("avx512bw") ? 64 : __builtin_cpu_supports("avx2") ? 32 : 0;
  return lanes;
}

std::size_t score_interseq8(residue_span query, std::span<const residue_span> targets, const interseq_scheme& s,
                            int lanes, interseq_scratch& scratch, std::span<best_cell> results,
                            std::span<std::int64_t> first_saturated) {
  const std::size_t count = targets.size();
  if (!s.fits || (lanes != 32 && lanes != 64) || lanes > interseq_lanes() || count < 1 ||
      results.size() < count || first_saturated.size() < count)
    throw std::invalid_argument("score_interseq8: unsupported lanes, scheme or target count");
  const std::int64_t m = std::int64_t(query.size());
  std::vector<std::int64_t> lengths(count);
  for (std::size_t k = 0; k < count; ++k) lengths[k] = std::int64_t(targets[k].size());
  std::vector<lane_run>& runs = scratch.runs;
  const std::int64_t n = pack_lanes(lengths, lanes, &runs);
  const layout at(m, n, lanes, s.query_ranks);
  if (scratch.bytes.size() < at.total + 64) scratch.bytes.resize(at.total + 64);
  // 64-byte aligned start (the kernel's loads are unaligned; this keeps rows on cache lines).
  std::uint8_t* base = scratch.bytes.data();
  base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
  std::uint8_t* cols = base + at.columns;
  std::memset(cols, 0, at.total - at.columns);
  for (const lane_run& r : runs) {
    const std::uint8_t* t = targets[std::size_t(r.target)].data();
    for (std::int64_t j = 0; j < r.length; ++j) cols[(r.start + j) * lanes + r.lane] = t[j];
  }
  if (m == 0) {
    for (std::size_t k = 0; k < count; ++k) results[k] = {}, first_saturated[k] = -1;
    return 0;
  }
  if (lanes == 64) kernel_avx512(query.data(), m, n, runs, s, base, at, results.data(), first_saturated.data());
  else kernel_avx2(query.data(), m, n, runs, s, base, at, results.data(), first_saturated.data());
  std::size_t saturated = 0;
  for (std::size_t k = 0; k < count; ++k) saturated += first_saturated[k] >= 0 ? 1 : 0;
  return saturated;
}

#else

int interseq_lanes() { return 0; }

std::size_t score_interseq8(residue_span, std::span<const residue_span>, const interseq_scheme&, int,
                            interseq_scratch&, std::span<best_cell>, std::span<std::int64_t>) {
  throw std::invalid_argument("score_interseq8: no inter-sequence kernel on this CPU");
}

#endif

}  // namespace swat::cpu
