// Striped score pass of the CPU engine: the query is laid out in 8 int32 lanes as in Farrar
// (2007): lane k, segment s holds DP row i = k·seg + s + 1, so one target column is seg vector
// steps, the query profile is one load per step and E/H stay lane-local. F crosses lanes; the
// first sweep uses F = -inf where it would come from the lane above; the exact F entering each
// lane is then combined over the 8 lanes (a short serial max-plus scan), and one correction
// sweep ("lazy F" of Farrar, but a single round) applies it until it stops winning.
//
// Exactness (values and origins identical to score_pass_scalar, Gotoh 1982 recurrences, tie
// rules of common/traceback.hpp): values only ever rise during the correction, so
//  • F(i) is replaced only when the recomputed max(H(i-1) - o - e, F(i-1) - e) is strictly
//    greater (an equal value implies the same argmax and origin, because H and F change value
//    whenever they change origin);
//  • H(i) takes the new F only when F > H strictly (F is last in the H preference order and H
//    was ≥ the old F);
//  • when H rises, the E carried to the next column becomes H - o - e iff that is ≥ the stored
//    E (open wins ties), which is exactly max(H - o - e, E(i,j) - e) with the open preference.
// Best cell: columns go left to right and a column replaces the best only with a strictly
// higher maximum, then the smallest row holding that maximum is found (tie rule: smallest j,
// then smallest i).
// Bands (bounded memory for any query length): when the striped arrays of the whole query do
// not fit the budget, the query is cut into bands of rows swept one after the other over every
// column. A band starts from the last row of the band above (H, F and their origins for every
// column: the "top" boundary) exactly as the first band starts from row 0 (H = 0, F = -inf,
// origins at the cell): lane 0's diagonal is H(i0, j-1) and the F entering lane 0 is
// max(H(i0,j) - o - e, F(i0,j) - e) with the open preference. Values and origins are those of
// one sweep over the whole query; bands are combined with cell_beats (traceback.hpp).

#include <algorithm>
#include <vector>

#include "engine/cpu_kernels.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SWAT_STRIPED 1
#define SWAT_AVX2 __attribute__((target("avx2")))
#endif

namespace swat::cpu {

#if SWAT_STRIPED
namespace {

constexpr int lanes = 8;
using vec = __m256i;

//! Per-band arrays, seg vectors each (row i of lane k, segment s at [s·8 + k]), in one block.
//! Their starts are staggered (stride ≡ 320 bytes mod 4 KiB) so that the arrays one step reads
//! and writes never sit a multiple of 4 KiB apart: with power-of-two band heights, 4K aliasing
//! between the loads and stores of different arrays made the sweep three times slower.
struct striped_arrays {
  std::vector<std::int32_t> block;
  std::size_t stride = 0;
  std::int32_t *h = nullptr, *e = nullptr, *f = nullptr, *valid = nullptr, *oh_i = nullptr, *oh_j = nullptr,
               *oe_i = nullptr, *oe_j = nullptr, *of_i = nullptr, *of_j = nullptr, *profile = nullptr;

  //! Arrays for `cells` rows; profile rows follow at the same stride.
  void allocate(std::size_t cells, int ranks, bool with_origins) {
    std::size_t s = (cells + 15) / 16 * 16;
    s += ((320 / 4 + 1024) - s % 1024) % 1024;  // s·4 ≡ 320 (mod 4096)
    const std::size_t arrays = std::size_t(with_origins ? 10 : 4) + std::size_t(ranks);
    if (s != stride || block.size() < arrays * s) block.assign(arrays * s, 0);
    stride = s;
    std::int32_t* p = block.data();
    for (std::int32_t** a : {&h, &e, &f, &valid, &oh_i, &oh_j, &oe_i, &oe_j, &of_i, &of_j}) {
      if (!with_origins && a == &oh_i) break;
      *a = p;
      p += s;
    }
    profile = p;
  }
};

//! One DP row over columns 0..n between two bands: H, F and (with origins) their origins.
struct band_border {
  std::vector<std::int32_t> h, f, oh_i, oh_j, of_i, of_j;
  void resize(std::size_t columns, bool with_origins) {
    h.resize(columns);
    f.resize(columns);
    if (!with_origins) return;
    oh_i.resize(columns);
    oh_j.resize(columns);
    of_i.resize(columns);
    of_j.resize(columns);
  }
};

SWAT_AVX2 inline vec load(const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const vec*>(p)); }
SWAT_AVX2 inline void store(std::int32_t* p, vec v) { _mm256_storeu_si256(reinterpret_cast<vec*>(p), v); }
SWAT_AVX2 inline vec pick(vec no, vec yes, vec mask) { return _mm256_blendv_epi8(no, yes, mask); }
//! Lanes moved up by one: result[0] = first, result[k] = v[k-1].
SWAT_AVX2 inline vec shift_in(vec v, std::int32_t first) {
  const vec p = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6));
  return _mm256_blend_epi32(p, _mm256_set1_epi32(first), 1);
}
SWAT_AVX2 inline std::int32_t hmax(vec v) {
  __m128i x = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  x = _mm_max_epi32(x, _mm_shuffle_epi32(x, 0x4E));
  x = _mm_max_epi32(x, _mm_shuffle_epi32(x, 0xB1));
  return _mm_cvtsi128_si32(x);
}
SWAT_AVX2 inline int movemask(vec m) { return _mm256_movemask_ps(_mm256_castsi256_ps(m)); }

//! Rows i0+1 … i0+rows of the band in the arrays (seg = ⌈rows/8⌉); top: the row i0 above
//! (null for i0 = 0: the zero row); bottom (may be null): receives row i0+rows.
template <bool with_origins>
SWAT_AVX2 pass_result striped_kernel(residue_span target, std::int64_t i0, std::int64_t rows, std::int64_t seg,
                                     striped_arrays& a, const band_border* top, band_border* bottom,
                                     std::int32_t open, std::int32_t ext, const progress_fn* progress) {
  const std::int64_t n = std::int64_t(target.size());
  const vec v_open = _mm256_set1_epi32(open), v_ext = _mm256_set1_epi32(ext);
  const vec zero = _mm256_setzero_si256(), neg = _mm256_set1_epi32(minus_infinity), one = _mm256_set1_epi32(1);
  const auto first_row = [&](std::int64_t k) { return int(i0 + k * seg + 1); };
  const vec row0 = _mm256_setr_epi32(first_row(0), first_row(1), first_row(2), first_row(3), first_row(4),
                                     first_row(5), first_row(6), first_row(7));
  const std::int64_t x_bottom = ((rows - 1) % seg) * lanes + (rows - 1) / seg;  // row i0 + rows
  if (bottom) {
    bottom->h[0] = 0;
    bottom->f[0] = minus_infinity;
    if constexpr (with_origins) {
      bottom->oh_i[0] = std::int32_t(i0 + rows);
      bottom->oh_j[0] = bottom->of_i[0] = bottom->of_j[0] = 0;
    }
  }
  std::int32_t *H = a.h, *E = a.e, *F = a.f;
  std::int32_t *OHi = a.oh_i, *OHj = a.oh_j, *OEi = a.oe_i, *OEj = a.oe_j;
  std::int32_t *OFi = a.of_i, *OFj = a.of_j;
  const std::int32_t* valid = a.valid;
  const std::int64_t last = (seg - 1) * lanes;
  pass_result out;
  std::uint64_t pending = 0;
  for (std::int64_t j = 1; j <= n; ++j) {
    const std::int32_t* P = a.profile + std::size_t(target[std::size_t(j - 1)]) * a.stride;
    const vec vj = _mm256_set1_epi32(std::int32_t(j));
    vec vmax = zero, vpos = zero, vs = zero;  // per lane: maximum and its first segment
    // First sweep: F from the lane above is taken as -inf; lane 0's diagonal is H(i0, j-1).
    const std::size_t jl = std::size_t(j - 1), jc = std::size_t(j);
    vec d = shift_in(load(H + last), top ? top->h[jl] : 0);
    vec d_i{}, d_j{}, f_i{}, f_j{}, vi = row0;
    if constexpr (with_origins) {
      d_i = shift_in(load(OHi + last), top ? top->oh_i[jl] : 0);
      d_j = shift_in(load(OHj + last), top ? top->oh_j[jl] : std::int32_t(j - 1));
      f_i = f_j = zero;
    }
    vec f = neg;
    for (std::int64_t s = 0; s < seg; ++s) {
      const std::int64_t x = s * lanes;
      const vec h_old = load(H + x);
      const vec diag = _mm256_add_epi32(d, load(P + x));
      const vec e = load(E + x);
      const vec h = _mm256_max_epi32(_mm256_max_epi32(diag, e), _mm256_max_epi32(f, zero));
      store(H + x, h);
      store(F + x, f);
      const vec hv = _mm256_and_si256(h, load(valid + x));
      vpos = pick(vpos, vs, _mm256_cmpgt_epi32(hv, vmax));
      vmax = _mm256_max_epi32(vmax, hv);
      vs = _mm256_add_epi32(vs, one);
      const vec h_open = _mm256_sub_epi32(h, v_open);
      const vec e_ext = _mm256_sub_epi32(e, v_ext);
      const vec f_ext = _mm256_sub_epi32(f, v_ext);
      store(E + x, _mm256_max_epi32(h_open, e_ext));
      if constexpr (with_origins) {
        const vec m_e = _mm256_cmpeq_epi32(h, e), m_d = _mm256_cmpeq_epi32(h, diag);
        const vec m_z = _mm256_cmpeq_epi32(h, zero);
        const vec e_i = load(OEi + x), e_j = load(OEj + x);
        const vec ho_i = load(OHi + x), ho_j = load(OHj + x);
        const vec o_i = pick(pick(pick(f_i, e_i, m_e), d_i, m_d), vi, m_z);
        const vec o_j = pick(pick(pick(f_j, e_j, m_e), d_j, m_d), vj, m_z);
        store(OHi + x, o_i);
        store(OHj + x, o_j);
        store(OFi + x, f_i);
        store(OFj + x, f_j);
        const vec e_keep = _mm256_cmpgt_epi32(e_ext, h_open);  // extension strictly better
        store(OEi + x, pick(o_i, e_i, e_keep));
        store(OEj + x, pick(o_j, e_j, e_keep));
        const vec f_keep = _mm256_cmpgt_epi32(f_ext, h_open);
        f_i = pick(o_i, f_i, f_keep);
        f_j = pick(o_j, f_j, f_keep);
        d_i = ho_i;
        d_j = ho_j;
        vi = _mm256_add_epi32(vi, one);
      }
      f = _mm256_max_epi32(h_open, f_ext);
      d = h_old;
    }
    // F entering each lane at segment 0, exactly: C(0) = F(1,j) = -o-e (opened at (0,j));
    // C(k) = max(X(k-1), C(k-1) - seg·e), X = first-sweep exit of the lane above (closer, so
    // it wins ties). The first sweep's exit already holds max(H - o - e, F - e) of each lane's
    // last row without the lane-crossing part, which the decayed C(k-1) supplies.
    alignas(32) std::int32_t xv[lanes], xi[lanes], xj[lanes], cv[lanes], ci[lanes], cj[lanes];
    _mm256_store_si256(reinterpret_cast<vec*>(xv), f);
    if constexpr (with_origins) {
      _mm256_store_si256(reinterpret_cast<vec*>(xi), f_i);
      _mm256_store_si256(reinterpret_cast<vec*>(xj), f_j);
    }
    cv[0] = -open;  // below row 0: F(1,j) opened at (0,j); below a band: from its last row
    ci[0] = 0;
    cj[0] = std::int32_t(j);
    if (top) {
      const std::int32_t f_open = top->h[jc] - open, f_ext = top->f[jc] - ext;
      cv[0] = std::max(f_open, f_ext);
      if constexpr (with_origins) {
        ci[0] = f_open >= f_ext ? top->oh_i[jc] : top->of_i[jc];
        cj[0] = f_open >= f_ext ? top->oh_j[jc] : top->of_j[jc];
      }
    }
    for (int k = 1; k < lanes; ++k) {
      const std::int32_t decayed = std::int32_t(std::max<std::int64_t>(cv[k - 1] - seg * ext, minus_infinity));
      const bool own = xv[k - 1] >= decayed;
      cv[k] = own ? xv[k - 1] : decayed;
      ci[k] = own ? xi[k - 1] : ci[k - 1];
      cj[k] = own ? xj[k - 1] : cj[k - 1];
    }
    // Correction sweep: the carried F decays by e per segment; a lane stops changing at its
    // first segment where the carried value does not beat the stored F (then it never does
    // again in this column, since the stored F decays at most as fast), so the sweep ends at
    // the first segment where no lane changes.
    vec cand = _mm256_load_si256(reinterpret_cast<const vec*>(cv));
    vec c_i{}, c_j{};
    if constexpr (with_origins) {
      c_i = _mm256_load_si256(reinterpret_cast<const vec*>(ci));
      c_j = _mm256_load_si256(reinterpret_cast<const vec*>(cj));
    }
    for (std::int64_t s = 0; s < seg; ++s) {
      const std::int64_t x = s * lanes;
      vec fs = load(F + x);
      const vec upd = _mm256_cmpgt_epi32(cand, fs);
      if (!movemask(upd)) break;
      fs = pick(fs, cand, upd);
      store(F + x, fs);
      vec h = load(H + x);
      const vec h_upd = _mm256_cmpgt_epi32(fs, h);
      h = pick(h, fs, h_upd);
      store(H + x, h);
      // h rose: it becomes the lane maximum if greater, or equal and in an earlier segment.
      const vec hv = _mm256_and_si256(h, load(valid + x)), vs_here = _mm256_set1_epi32(std::int32_t(s));
      const vec earlier = _mm256_and_si256(_mm256_cmpeq_epi32(hv, vmax), _mm256_cmpgt_epi32(vpos, vs_here));
      vpos = pick(vpos, vs_here, _mm256_or_si256(_mm256_cmpgt_epi32(hv, vmax), earlier));
      vmax = _mm256_max_epi32(vmax, hv);
      const vec h_open = _mm256_sub_epi32(h, v_open);
      const vec en = load(E + x);
      const vec e_upd = _mm256_andnot_si256(_mm256_cmpgt_epi32(en, h_open), h_upd);
      store(E + x, pick(en, h_open, e_upd));
      if constexpr (with_origins) {
        const vec of_i = pick(load(OFi + x), c_i, upd), of_j = pick(load(OFj + x), c_j, upd);
        store(OFi + x, of_i);
        store(OFj + x, of_j);
        const vec oh_i = pick(load(OHi + x), of_i, h_upd), oh_j = pick(load(OHj + x), of_j, h_upd);
        store(OHi + x, oh_i);
        store(OHj + x, oh_j);
        store(OEi + x, pick(load(OEi + x), oh_i, e_upd));
        store(OEj + x, pick(load(OEj + x), oh_j, e_upd));
      }
      cand = _mm256_sub_epi32(cand, v_ext);
    }
    const std::int32_t col_max = hmax(vmax);
    if (col_max > out.best.score) {
      // Smallest row i holding col_max: the lowest lane reaching it, at that lane's first segment.
      const int k = __builtin_ctz(unsigned(movemask(_mm256_cmpeq_epi32(vmax, _mm256_set1_epi32(col_max)))));
      alignas(32) std::int32_t pos[lanes];
      _mm256_store_si256(reinterpret_cast<vec*>(pos), vpos);
      const std::int64_t s = pos[k];
      out.best = {col_max, i0 + k * seg + s + 1, j};
      if constexpr (with_origins) {
        out.query_begin = OHi[std::size_t(s * lanes + k)];
        out.target_begin = OHj[std::size_t(s * lanes + k)];
      }
    }
    if (bottom) {
      const std::size_t x = std::size_t(x_bottom);
      bottom->h[jc] = H[x];
      bottom->f[jc] = F[x];
      if constexpr (with_origins) {
        bottom->oh_i[jc] = OHi[x];
        bottom->oh_j[jc] = OHj[x];
        bottom->of_i[jc] = OFi[x];
        bottom->of_j[jc] = OFj[x];
      }
    }
    pending += std::uint64_t(rows);
    if (progress && *progress && pending >= progress_chunk_cells) {
      (*progress)(pending);
      pending = 0;
    }
  }
  if (progress && *progress && pending) (*progress)(pending);
  return out;
}

}  // namespace

bool striped_available() {
  static const bool ok = __builtin_cpu_supports("avx2");
  return ok;
}

namespace {

//! Fills the arrays for rows i0+1 … i0+rows (seg = ⌈rows/8⌉ segments).
void start_band(residue_span query, const scoring_scheme& scheme, int ranks, std::int64_t i0, std::int64_t rows,
                std::int64_t seg, bool with_origins, striped_arrays& a) {
  const std::size_t cells = std::size_t(seg * lanes);
  const std::int32_t open = scheme.gap_open + scheme.gap_extend;
  a.allocate(cells, ranks, with_origins);
  std::fill_n(a.profile, std::size_t(ranks) * a.stride, 0);
  std::fill_n(a.valid, cells, 0);
  std::fill_n(a.h, cells, 0);
  std::fill_n(a.e, cells, -open);  // E(i,1) = H(i,0) - o - e, opened at (i,0)
  std::fill_n(a.f, cells, minus_infinity);
  if (with_origins)
    for (std::int32_t* o : {a.oh_j, a.oe_j, a.of_i, a.of_j}) std::fill_n(o, cells, 0);
  for (std::int64_t s = 0; s < seg; ++s)
    for (int k = 0; k < lanes; ++k) {
      const std::int64_t r = k * seg + s + 1;
      const std::size_t x = std::size_t(s * lanes + k);
      if (with_origins) a.oh_i[x] = a.oe_i[x] = std::int32_t(i0 + r);
      if (r > rows) continue;
      a.valid[x] = -1;
      for (int b = 0; b < ranks; ++b)
        a.profile[std::size_t(b) * a.stride + x] = scheme.score(query[std::size_t(i0 + r - 1)], std::uint8_t(b));
    }
}

}  // namespace

pass_result score_pass_striped(residue_span query, residue_span target, const scoring_scheme& scheme,
                               bool with_origins, const progress_fn* progress, std::size_t budget_bytes) {
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if (m == 0 || n == 0) {
    if (progress && *progress) (*progress)(0);
    return {};
  }
  int ranks = scheme.size();
  for (std::uint8_t r : target) ranks = std::max(ranks, int(r) + 1);
  const std::int64_t band = plan_score_pass(m, n, ranks, with_origins, budget_bytes).band_rows;
  if (!with_origins && band >= m) {  // one band: 16-bit lanes first (half the memory of this pass)
    pass_result r;
    if (score_pass_striped16(query, target, scheme, progress, r)) return r;
  }
  const std::int32_t open = scheme.gap_open + scheme.gap_extend, ext = scheme.gap_extend;
  striped_arrays a;
  band_border borders[2];
  if (band < m)
    for (band_border& b : borders) b.resize(std::size_t(n + 1), with_origins);
  pass_result best;
  for (std::int64_t i0 = 0, b = 0; i0 < m; i0 += band, ++b) {
    const std::int64_t rows = std::min(band, m - i0), seg = (rows + lanes - 1) / lanes;
    const band_border* top = i0 > 0 ? &borders[(b + 1) % 2] : nullptr;
    band_border* bottom = i0 + rows < m ? &borders[b % 2] : nullptr;
    start_band(query, scheme, ranks, i0, rows, seg, with_origins, a);
    const pass_result r = with_origins ? striped_kernel<true>(target, i0, rows, seg, a, top, bottom, open, ext, progress)
                                       : striped_kernel<false>(target, i0, rows, seg, a, top, bottom, open, ext, progress);
    if (r.best.score > 0 && cell_beats(r.best.score, r.best.query_end, r.best.target_end, best.best.score,
                                       best.best.query_end, best.best.target_end))
      best = r;
  }
  return best;
}

#else

bool striped_available() { return false; }

pass_result score_pass_striped(residue_span query, residue_span target, const scoring_scheme& scheme,
                               bool with_origins, const progress_fn* progress, std::size_t) {
  return score_pass_scalar(query, target, scheme, with_origins, progress);
}

#endif

pass_plan plan_score_pass(std::int64_t m, std::int64_t n, int ranks, bool with_origins, std::size_t budget_bytes) {
  const std::size_t columns = std::size_t(std::max<std::int64_t>(n, 0) + 1);
  if (!striped_available()) return {m, columns * (with_origins ? 24 : 8)};  // the scalar row pass
  // Bytes per query row: h, e, f, valid and the profile; with origins six more arrays. A band
  // border holds H and F (and four origin arrays) for every column, twice (read and written).
  const std::size_t per_row = std::size_t(16 + 4 * ranks + (with_origins ? 24 : 0));
  const std::size_t padding = std::size_t(4 + ranks + (with_origins ? 6 : 0)) * 4096;  // staggered starts
  const std::size_t border = 2 * columns * (with_origins ? 24 : 8);
  const std::int64_t all_rows = (std::max<std::int64_t>(m, 1) + lanes - 1) / lanes * lanes;
  const pass_plan whole{all_rows, per_row * std::size_t(all_rows) + padding};
  if (all_rows <= cache_band_rows && whole.bytes <= budget_bytes) return whole;
  // Bands: as tall as the budget allows, at most cache_band_rows (the arrays stay in cache).
  std::int64_t band = lanes;
  if (budget_bytes > border + padding + per_row * lanes)
    band = std::int64_t((budget_bytes - border - padding) / per_row) / lanes * lanes;
  band = std::min({band, all_rows, cache_band_rows});
  const pass_plan banded{band, per_row * std::size_t(band) + padding + border};
  if (banded.bytes <= budget_bytes) return banded;
  // Borders too large for the budget: the whole query if it fits, else the smaller layout
  // (bytes > budget_bytes) for the caller to refuse.
  return whole.bytes <= budget_bytes || whole.bytes <= banded.bytes ? whole : banded;
}

}  // namespace swat::cpu
