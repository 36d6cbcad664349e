// The tiled Waterman–Eggert search of cpu_hsps.hpp: tile borders, lazy refills of the tiles
// that earlier alignments changed, and a traceback through exact tiles.

#include "engine/cpu_hsps.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <set>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "common/traceback.hpp"
#include "engine/cpu_block.hpp"
#include "engine/cpu_kernels.hpp"

namespace swat::cpu {
namespace {

//! Traceback codes of one band: an eighth of the budget, within [64 KiB, 16 MiB].
std::size_t code_budget(std::size_t budget_bytes) {
  return std::clamp<std::size_t>(budget_bytes / 8, std::size_t(64) << 10, std::size_t(16) << 20);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

//! Bytes of a layout with tile edge K (see plan_hsps).
std::size_t layout_bytes(std::int64_t m, std::int64_t n, std::int64_t K, std::size_t codes, std::int64_t& band_rows) {
  const std::int64_t rt = ceil_div(m, K), ct = ceil_div(n, K);
  const std::int64_t w = std::min(K, n), ht = std::min(K, m);
  band_rows = std::clamp<std::int64_t>(std::int64_t(codes) / std::max<std::int64_t>(w, 1), 1, ht);
  const std::int64_t checkpoints = ceil_div(ht, band_rows) - 1;
  const std::size_t borders = 8 * std::size_t(rt * n + ct * m);  // H+F per row of tiles, H+E per column
  const std::size_t records = std::size_t(rt * ct) * 96;         // best cell, heap entries, dirty set
  const std::size_t trace = std::size_t(band_rows * w) + 8 * std::size_t(checkpoints * w);
  const std::size_t scratch = 8 * std::size_t(2 * w + 2 * ht);
  return borders + records + trace + scratch;
}

//! One pair's matrix in tiles (see cpu_hsps.hpp).
class tiled_search {
 public:
  tiled_search(residue_span query, residue_span target, const scoring_scheme& scheme, const hsp_plan& plan)
      : q_(query), t_(target), s_(scheme), m_(std::int64_t(query.size())), n_(std::int64_t(target.size())),
        K_(plan.tile), S_(plan.band_rows), rt_(ceil_div(m_, K_)), ct_(ceil_div(n_, K_)),
        bottom_h_(std::size_t(rt_ * n_)), bottom_f_(std::size_t(rt_ * n_)),
        right_h_(std::size_t(ct_ * m_)), right_e_(std::size_t(ct_ * m_)),
        tiles_(std::size_t(rt_ * ct_)),
        row_h_(std::size_t(std::min(K_, n_))), row_f_(row_h_.size()),
        col_h_(std::size_t(std::min(K_, m_))), col_e_(col_h_.size()) {}

  //! Pass 0: every tile in row-major order.
  void fill_all(const progress_fn* progress) {
    for (std::int64_t t = 0; t < rt_ * ct_; ++t) {
      refill(t, false);
      if (progress && *progress) (*progress)(std::uint64_t(geometry(t).width()) * std::uint64_t(geometry(t).height()));
    }
  }

  //! The best alignment under the cells forbidden so far, if it scores at least min_score (≥ 1).
  bool next(std::int32_t min_score, alignment& out) {
    for (;;) {
      while (!heap_.empty() && heap_.top().version != tiles_[std::size_t(heap_.top().tile)].version) heap_.pop();
      if (heap_.empty()) return false;
      const heap_entry top = heap_.top();
      if (top.best.score < min_score) return false;  // an upper bound of every cell below it
      if (make_exact(top.tile)) continue;
      out = walk_traceback(top.best, [this](std::int64_t i, std::int64_t j) { return code_at(i, j); });
      return true;
    }
  }

  //! Forbids the aligned pairs of aln and marks the tiles they lie in dirty.
  void forbid(const alignment& aln) {
    forbidden_.add(aln);
    std::int64_t i = aln.query_begin, j = aln.target_begin;
    for (const cigar_op& op : aln.ops)
      for (std::uint32_t k = 0; k < op.length; ++k) {
        if (op.op == 'M') dirty_.insert((i / K_) * ct_ + j / K_);  // cell (i+1, j+1)
        if (op.op != 'D') ++i;
        if (op.op != 'I') ++j;
      }
    band_tile_ = ck_tile_ = -1;  // cached codes and checkpoints are of the old matrix
  }

 private:
  struct tile_record {
    best_cell best;
    std::uint32_t version = 0;
  };
  struct heap_entry {
    best_cell best;
    std::int64_t tile;
    std::uint32_t version;
  };
  struct heap_order {  // the top is the cell that wins the tie rule
    bool operator()(const heap_entry& x, const heap_entry& y) const {
      return cell_beats(y.best.score, y.best.query_end, y.best.target_end, x.best.score, x.best.query_end,
                        x.best.target_end);
    }
  };

  block geometry(std::int64_t t) const {
    const std::int64_t a = t / ct_, b = t % ct_;
    return {a * K_ + 1, std::min((a + 1) * K_, m_), b * K_ + 1, std::min((b + 1) * K_, n_)};
  }
  //! H(x0-1, j0-1) for a block of tile column b starting at row x0.
  std::int32_t corner(std::int64_t x0, std::int64_t b) const {
    return x0 == 1 || b == 0 ? 0 : right_h_[std::size_t((b - 1) * m_ + x0 - 2)];
  }
  const std::int32_t* left_h(std::int64_t x0, std::int64_t b) const {
    return b == 0 ? nullptr : &right_h_[std::size_t((b - 1) * m_ + x0 - 1)];
  }
  const std::int32_t* left_e(std::int64_t x0, std::int64_t b) const {
    return b == 0 ? nullptr : &right_e_[std::size_t((b - 1) * m_ + x0 - 1)];
  }
  //! Loads H and F of the row above tile t into row_h_, row_f_.
  void load_top(std::int64_t t, const block& g) {
    const std::int64_t a = t / ct_, w = g.width();
    if (a == 0) {
      std::fill_n(row_h_.begin(), w, 0);
      std::fill_n(row_f_.begin(), w, minus_infinity);
    } else {
      std::copy_n(&bottom_h_[std::size_t((a - 1) * n_ + g.j0 - 1)], w, row_h_.begin());
      std::copy_n(&bottom_f_[std::size_t((a - 1) * n_ + g.j0 - 1)], w, row_f_.begin());
    }
  }

  //! Fills tile t from its neighbours' borders and stores its borders and best cell; with
  //! compare, the neighbours that read a changed border become dirty.
  void refill(std::int64_t t, bool compare) {
    const std::int64_t a = t / ct_, b = t % ct_;
    const block g = geometry(t);
    load_top(t, g);
    const best_cell best = fill_block(g, q_, t_, s_, forbidden_,
                                      {row_h_.data(), row_f_.data(), corner(g.i0, b), left_h(g.i0, b),
                                       left_e(g.i0, b), col_h_.data(), col_e_.data()},
                                      nullptr);
    const std::size_t w = std::size_t(g.width()), ht = std::size_t(g.height());
    std::int32_t* bh = &bottom_h_[std::size_t(a * n_ + g.j0 - 1)];
    std::int32_t* bf = &bottom_f_[std::size_t(a * n_ + g.j0 - 1)];
    std::int32_t* rh = &right_h_[std::size_t(b * m_ + g.i0 - 1)];
    std::int32_t* re = &right_e_[std::size_t(b * m_ + g.i0 - 1)];
    if (compare) {
      const bool below = !std::equal(bh, bh + w, row_h_.begin()) || !std::equal(bf, bf + w, row_f_.begin());
      const bool diagonal = bh[w - 1] != row_h_[w - 1];
      const bool right = !std::equal(rh, rh + ht, col_h_.begin()) || !std::equal(re, re + ht, col_e_.begin());
      if (right && b + 1 < ct_) dirty_.insert(t + 1);
      if (below && a + 1 < rt_) dirty_.insert(t + ct_);
      if (diagonal && a + 1 < rt_ && b + 1 < ct_) dirty_.insert(t + ct_ + 1);
    }
    std::copy_n(row_h_.begin(), w, bh);
    std::copy_n(row_f_.begin(), w, bf);
    std::copy_n(col_h_.begin(), ht, rh);
    std::copy_n(col_e_.begin(), ht, re);
    tile_record& rec = tiles_[std::size_t(t)];
    rec.best = best;
    ++rec.version;
    if (best.score > 0) heap_.push({best, t, rec.version});
  }

  //! Refills the dirty tiles of t's cone (t and every tile above-left of it) in row-major
  //! order, so that each reads exact borders; true when any was refilled.
  bool make_exact(std::int64_t t) {
    const std::int64_t a = t / ct_, b = t % ct_;
    bool any = false;
    auto it = dirty_.begin();
    while (it != dirty_.end() && *it <= t) {
      const std::int64_t d = *it;
      if (d / ct_ <= a && d % ct_ <= b) {
        dirty_.erase(it);
        refill(d, true);  // marks only later tiles dirty
        any = true;
        it = dirty_.upper_bound(d);
      } else {
        ++it;
      }
    }
    return any;
  }

  //! Traceback code of cell (i, j): its tile's band is refilled with codes when not cached.
  std::uint8_t code_at(std::int64_t i, std::int64_t j) {
    const std::int64_t t = ((i - 1) / K_) * ct_ + (j - 1) / K_;
    const block g = geometry(t);
    const std::int64_t band = (i - g.i0) / S_;
    if (t != band_tile_ || band != band_) fill_band(t, g, band);
    return codes_[std::size_t((i - band_i0_) * g.width() + (j - g.j0))];
  }

  void fill_band(std::int64_t t, const block& g, std::int64_t band) {
    const std::int64_t b = t % ct_, w = g.width();
    const std::int64_t bands = ceil_div(g.height(), S_);
    if (bands > 1 && ck_tile_ != t) {  // rows above bands 1, 2, … of this tile
      checkpoints_.resize(std::size_t(2 * (bands - 1) * w));
      load_top(t, g);
      for (std::int64_t k = 0; k + 1 < bands; ++k) {
        const block part{g.i0 + k * S_, g.i0 + (k + 1) * S_ - 1, g.j0, g.j1};
        fill_block(part, q_, t_, s_, forbidden_,
                   {row_h_.data(), row_f_.data(), corner(part.i0, b), left_h(part.i0, b), left_e(part.i0, b),
                    nullptr, nullptr},
                   nullptr);
        std::copy_n(row_h_.begin(), w, checkpoints_.begin() + 2 * k * w);
        std::copy_n(row_f_.begin(), w, checkpoints_.begin() + (2 * k + 1) * w);
      }
      ck_tile_ = t;
    }
    if (band == 0) {
      load_top(t, g);
    } else {
      std::copy_n(checkpoints_.begin() + 2 * (band - 1) * w, w, row_h_.begin());
      std::copy_n(checkpoints_.begin() + (2 * band - 1) * w, w, row_f_.begin());
    }
    const block part{g.i0 + band * S_, std::min(g.i0 + (band + 1) * S_ - 1, g.i1), g.j0, g.j1};
    codes_.resize(std::size_t(part.height() * w));
    fill_block(part, q_, t_, s_, forbidden_,
               {row_h_.data(), row_f_.data(), corner(part.i0, b), left_h(part.i0, b), left_e(part.i0, b), nullptr,
                nullptr},
               codes_.data());
    band_tile_ = t;
    band_ = band;
    band_i0_ = part.i0;
  }

  residue_span q_, t_;
  const scoring_scheme& s_;
  std::int64_t m_, n_, K_, S_, rt_, ct_;
  std::vector<std::int32_t> bottom_h_, bottom_f_;  // [row of tiles][column]: H, F of its last row
  std::vector<std::int32_t> right_h_, right_e_;    // [column of tiles][row]: H, E of its last column
  std::vector<tile_record> tiles_;
  std::priority_queue<heap_entry, std::vector<heap_entry>, heap_order> heap_;
  std::set<std::int64_t> dirty_;  // row-major tile numbers
  forbidden_cells forbidden_;
  std::vector<std::int32_t> row_h_, row_f_, col_h_, col_e_;
  std::vector<std::int32_t> checkpoints_;  // H, F rows above the bands of tile ck_tile_
  std::int64_t ck_tile_ = -1;
  std::vector<std::uint8_t> codes_;  // codes of band band_ of tile band_tile_
  std::int64_t band_tile_ = -1, band_ = -1, band_i0_ = 0;
};

}  // namespace

hsp_plan plan_hsps(std::int64_t m, std::int64_t n, std::size_t budget_bytes) {
  hsp_plan plan;
  const std::int64_t longest = std::max<std::int64_t>({m, n, 1});
  for (std::int64_t K = hsp_min_tile;; K *= 2) {
    std::int64_t rows = 0;
    const std::size_t bytes = layout_bytes(m, n, K, code_budget(budget_bytes), rows);
    if (plan.tile == 0 || bytes < plan.bytes) plan = {K, rows, bytes};
    if (bytes <= budget_bytes) return {K, rows, bytes};
    if (K >= longest) return plan;  // nothing fits: the smallest layout
  }
}

std::vector<alignment> waterman_eggert(residue_span query, residue_span target, const scoring_scheme& scheme,
                                       std::size_t max_hsps, std::int32_t min_score, std::size_t budget_bytes,
                                       const progress_fn* progress, const hsp_plan& layout) {
  std::vector<alignment> found;
  if (query.empty() || target.empty()) return found;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  hsp_plan plan = plan_hsps(m, n, budget_bytes);
  if (layout.tile > 0) {
    plan.tile = layout.tile;
    plan.bytes = layout_bytes(m, n, layout.tile, code_budget(budget_bytes), plan.band_rows);
    if (layout.band_rows > 0) plan.band_rows = std::min(layout.band_rows, std::min(layout.tile, m));
  } else if (plan.bytes > budget_bytes)
    throw usage_error("a pair of " + std::to_string(query.size()) + " × " + std::to_string(target.size()) +
                      " residues needs " + std::to_string(plan.bytes >> 20) + " MiB of CPU memory for --max-hsps, " +
                      "more than its share of " + std::to_string(budget_bytes >> 20) + " MiB (raise --cpu-mem)");
  tiled_search search(query, target, scheme, plan);
  search.fill_all(progress);
  const std::int32_t threshold = std::max(min_score, 1);
  alignment aln;
  while ((max_hsps == 0 || found.size() < max_hsps) && search.next(threshold, aln)) {
    found.push_back(aln);
    if (max_hsps == 0 || found.size() < max_hsps) search.forbid(aln);
  }
  return found;
}

std::uint64_t hsp_cells_filled() { return block_cells_filled(); }

}  // namespace swat::cpu
