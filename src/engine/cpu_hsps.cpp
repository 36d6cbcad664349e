// The tiled Waterman–Eggert search of cpu_hsps.hpp: tile borders, lazy refills of the tiles
// that earlier alignments changed, and a traceback through exact tiles.

#include "engine/cpu_hsps.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>

#include "common/error.hpp"
#include "common/parallel.hpp"
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

//! Bytes of a layout with tile edge K for `threads` fill threads (see plan_hsps).
std::size_t layout_bytes(std::int64_t m, std::int64_t n, std::int64_t K, std::size_t codes, unsigned threads,
                         std::int64_t& band_rows) {
  const std::int64_t rt = ceil_div(m, K), ct = ceil_div(n, K);
  const std::int64_t w = std::min(K, n), ht = std::min(K, m);
  band_rows = std::clamp<std::int64_t>(std::int64_t(codes) / std::max<std::int64_t>(w, 1), 1, ht);
  const std::int64_t checkpoints = ceil_div(ht, band_rows) - 1;
  // H+F of the last row of every row of tiles but the last, H+E of the last column of every
  // column of tiles but the last.
  const std::size_t borders = 8 * std::size_t((rt - 1) * n + (ct - 1) * m);
  const std::size_t records = std::size_t(rt * ct) * 128;  // best cell, heap entries, dirty set, dependencies
  const std::size_t trace = std::size_t(band_rows * w) + 8 * std::size_t(checkpoints * w);
  // Row and column arrays of every thread and of the search itself; the AVX2 skew buffers.
  const std::size_t scratch = std::size_t(threads + 1) * 8 * std::size_t(w + (ct > 1 ? ht : 0) + w + 9);
  return borders + records + trace + scratch;
}

//! The residue pairs of the alignments found so far, kept per tile and sorted within each, so
//! that adding an alignment merges only the lists of the tiles it crosses.
class forbidden_tiles {
 public:
  forbidden_tiles(std::int64_t tile, std::int64_t tile_columns) : K_(tile), ct_(tile_columns) {}
  //! Adds the aligned pairs ('M' columns) of aln; returns the tiles they lie in.
  std::vector<std::int64_t> add(const alignment& aln) {
    std::vector<std::int64_t> touched;
    sorted_.clear();
    std::int64_t i = aln.query_begin, j = aln.target_begin;
    for (const cigar_op& op : aln.ops)
      for (std::uint32_t k = 0; k < op.length; ++k) {
        if (op.op == 'M') {  // cell (i+1, j+1)
          const std::int64_t t = (i / K_) * ct_ + j / K_;
          std::vector<forbidden_cell>& list = tiles_[t];
          if (sorted_.emplace(t, list.size()).second) touched.push_back(t);
          list.emplace_back(i + 1, j + 1);
          ++cells_;
        }
        if (op.op != 'D') ++i;
        if (op.op != 'I') ++j;
      }
    for (const std::int64_t t : touched) {  // an alignment's pairs rise in i and j: two sorted runs
      std::vector<forbidden_cell>& list = tiles_[t];
      std::inplace_merge(list.begin(), list.begin() + std::ptrdiff_t(sorted_[t]), list.end());
    }
    return touched;
  }
  //! The forbidden cells of tile t, sorted (empty when none).
  forbidden_span of_tile(std::int64_t t) const {
    const auto it = tiles_.find(t);
    return it == tiles_.end() ? forbidden_span{} : forbidden_span(it->second);
  }
  //! Memory held (bytes): 16 per cell and the per-tile lists.
  std::size_t bytes() const { return cells_ * sizeof(forbidden_cell) + tiles_.size() * 96; }
  //! What adding n more cells would hold (bytes), at most.
  std::size_t bytes_with(std::size_t n) const { return bytes() + n * (sizeof(forbidden_cell) + 96); }

 private:
  std::int64_t K_, ct_;
  std::unordered_map<std::int64_t, std::vector<forbidden_cell>> tiles_;
  std::unordered_map<std::int64_t, std::size_t> sorted_;  // in add(): each touched list's length before it
  std::size_t cells_ = 0;
};

//! One thread's arrays for a tile fill: H and F of a row (the tile's width), H and E of its
//! last column (its height, when that column is kept).
struct fill_scratch {
  std::vector<std::int32_t> row_h, row_f, col_h, col_e;
  fill_scratch(std::int64_t width, std::int64_t height)
      : row_h(std::size_t(width)), row_f(std::size_t(width)), col_h(std::size_t(height)), col_e(std::size_t(height)) {}
};

//! One pair's matrix in tiles (see cpu_hsps.hpp).
class tiled_search {
 public:
  tiled_search(residue_span query, residue_span target, const scoring_scheme& scheme, const hsp_plan& plan,
               std::optional<diagonal_band> band = std::nullopt)
      : band_of_tiles_(band), q_(query), t_(target), s_(scheme), m_(std::int64_t(query.size())), n_(std::int64_t(target.size())),
        K_(plan.tile), S_(plan.band_rows), rt_(ceil_div(m_, K_)), ct_(ceil_div(n_, K_)),
        bottom_h_(std::size_t((rt_ - 1) * n_)), bottom_f_(bottom_h_.size()),
        right_h_(std::size_t((ct_ - 1) * m_)), right_e_(right_h_.size()),
        tiles_(std::size_t(rt_ * ct_)), forbidden_(K_, ct_), main_(std::min(K_, n_), ct_ > 1 ? std::min(K_, m_) : 0) {}

  //! Pass 0: every tile once, on up to `threads` threads (a tile waits for its left and upper
  //! neighbours; threads the system refuses leave the work to the others). Later refills use as
  //! many.
  void fill_all(const progress_fn* progress, unsigned threads) {
    threads_ = std::max(threads, 1u);
    const std::int64_t tiles = rt_ * ct_;
    const unsigned workers = unsigned(std::clamp<std::int64_t>(threads, 1, std::min(rt_, ct_)));
    if (workers == 1) {
      for (std::int64_t t = 0; t < tiles; ++t) {
        store(t, fill(t, main_), main_, false);
        report(progress, t);
      }
    } else {
      fill_parallel(progress, workers);
    }
    for (std::int64_t t = 0; t < tiles; ++t) push(t);
  }

  //! The best cell of the stored tile bests (tie rule): after pass 0, the matrix's.
  best_cell best() const { return heap_.empty() ? best_cell{} : heap_.top().best; }

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

  //! Forbids the aligned pairs of aln and marks the tiles they lie in dirty; false (nothing
  //! forbidden) when their list would take more than memory_bytes.
  bool forbid(const alignment& aln, std::size_t memory_bytes) {
    std::size_t pairs = 0;
    for (const cigar_op& op : aln.ops) pairs += op.op == 'M' ? op.length : 0;
    if (forbidden_.bytes_with(pairs) > memory_bytes) return false;
    for (const std::int64_t t : forbidden_.add(aln)) dirty_.insert(t);
    band_tile_ = ck_tile_ = -1;  // cached codes and checkpoints are of the old matrix
    return true;
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
  //! Loads H and F of the row above tile t into row_h, row_f.
  void load_top(std::int64_t t, const block& g, std::int32_t* row_h, std::int32_t* row_f) const {
    const std::int64_t a = t / ct_, w = g.width();
    if (a == 0) {
      std::fill_n(row_h, w, 0);
      std::fill_n(row_f, w, minus_infinity);
    } else {
      std::copy_n(&bottom_h_[std::size_t((a - 1) * n_ + g.j0 - 1)], w, row_h);
      std::copy_n(&bottom_f_[std::size_t((a - 1) * n_ + g.j0 - 1)], w, row_f);
    }
  }
  void report(const progress_fn* progress, std::int64_t t) const {
    if (progress && *progress) (*progress)(std::uint64_t(geometry(t).width()) * std::uint64_t(geometry(t).height()));
  }

  //! Whether tile t lies wholly outside the band (never filled: best_alignment_in_band).
  bool outside_band(std::int64_t t) const {
    if (!band_of_tiles_) return false;
    const block g = geometry(t);
    return g.j1 - g.i0 < band_of_tiles_->lo || g.j0 - g.i1 > band_of_tiles_->hi;
  }

  //! Fills tile t from its neighbours' borders into x: its last row in x.row_h/row_f, its last
  //! column in x.col_h/col_e (unless it is in the last column of tiles). A tile outside the band
  //! leaves H = 0, E = F = −inf there and no best cell.
  best_cell fill(std::int64_t t, fill_scratch& x) const {
    const std::int64_t b = t % ct_;
    const block g = geometry(t);
    const bool keep_right = b + 1 < ct_;
    if (outside_band(t)) {
      std::fill_n(x.row_h.begin(), g.width(), 0);
      std::fill_n(x.row_f.begin(), g.width(), minus_infinity);
      if (keep_right) {
        std::fill_n(x.col_h.begin(), g.height(), 0);
        std::fill_n(x.col_e.begin(), g.height(), minus_infinity);
      }
      return {};
    }
    load_top(t, g, x.row_h.data(), x.row_f.data());
    return fill_block(g, q_, t_, s_, forbidden_.of_tile(t),
                      {x.row_h.data(), x.row_f.data(), corner(g.i0, b), left_h(g.i0, b), left_e(g.i0, b),
                       keep_right ? x.col_h.data() : nullptr, keep_right ? x.col_e.data() : nullptr},
                      nullptr);
  }

  //! Stores tile t's borders from x and its best cell; with compare, returns which neighbours
  //! read a changed border (mark() makes them dirty). Tiles of the last row (column) keep no last
  //! row (column). Touches only tile t's borders and record: tiles of one anti-diagonal may be
  //! stored at once.
  int store(std::int64_t t, const best_cell& best, const fill_scratch& x, bool compare) {
    const std::int64_t a = t / ct_, b = t % ct_;
    const block g = geometry(t);
    const std::size_t w = std::size_t(g.width()), ht = std::size_t(g.height());
    bool below = false, diagonal = false, right = false;
    if (a + 1 < rt_) {
      std::int32_t* bh = &bottom_h_[std::size_t(a * n_ + g.j0 - 1)];
      std::int32_t* bf = &bottom_f_[std::size_t(a * n_ + g.j0 - 1)];
      if (compare) {
        below = !std::equal(bh, bh + w, x.row_h.begin()) || !std::equal(bf, bf + w, x.row_f.begin());
        diagonal = bh[w - 1] != x.row_h[w - 1];
      }
      std::copy_n(x.row_h.begin(), w, bh);
      std::copy_n(x.row_f.begin(), w, bf);
    }
    if (b + 1 < ct_) {
      std::int32_t* rh = &right_h_[std::size_t(b * m_ + g.i0 - 1)];
      std::int32_t* re = &right_e_[std::size_t(b * m_ + g.i0 - 1)];
      if (compare) right = !std::equal(rh, rh + ht, x.col_h.begin()) || !std::equal(re, re + ht, x.col_e.begin());
      std::copy_n(x.col_h.begin(), ht, rh);
      std::copy_n(x.col_e.begin(), ht, re);
    }
    tile_record& rec = tiles_[std::size_t(t)];
    rec.best = best;
    ++rec.version;
    return (right ? changed_right : 0) | (below ? changed_below : 0) | (diagonal && b + 1 < ct_ ? changed_corner : 0);
  }
  static constexpr int changed_right = 1, changed_below = 2, changed_corner = 4;
  //! Makes the neighbours of t that store() said read a changed border dirty.
  void mark(std::int64_t t, int changed) {
    if (changed & changed_right) dirty_.insert(t + 1);
    if (changed & changed_below) dirty_.insert(t + ct_);
    if (changed & changed_corner) dirty_.insert(t + ct_ + 1);
  }
  void push(std::int64_t t) {
    const tile_record& rec = tiles_[std::size_t(t)];
    if (rec.best.score > 0) heap_.push({rec.best, t, rec.version});
    if (heap_.size() > 2 * tiles_.size() + 64) {  // drop the stale entries of refilled tiles
      std::vector<heap_entry> live;
      for (std::int64_t k = 0; k < std::int64_t(tiles_.size()); ++k)
        if (tiles_[std::size_t(k)].best.score > 0) live.push_back({tiles_[std::size_t(k)].best, k, tiles_[std::size_t(k)].version});
      heap_ = decltype(heap_)(heap_order{}, std::move(live));
    }
  }

  //! Pass 0 on several threads: a tile is ready once its left and upper neighbours are stored
  //! (the upper-left one, which gives its corner, is then stored too). Each tile writes only its
  //! own borders and record.
  void fill_parallel(const progress_fn* progress, unsigned workers) {
    const std::int64_t tiles = rt_ * ct_;
    std::vector<std::uint8_t> waiting(static_cast<std::size_t>(tiles));
    for (std::int64_t t = 0; t < tiles; ++t) waiting[std::size_t(t)] = std::uint8_t((t / ct_ > 0) + (t % ct_ > 0));
    std::mutex mutex;
    std::condition_variable ready_cv;
    std::vector<std::int64_t> ready{0};
    std::int64_t done = 0;
    std::exception_ptr error;
    const auto fail = [&](std::exception_ptr e) {
      const std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = e;
      ready_cv.notify_all();
    };
    auto work = [&] {
      try {
        fill_scratch x(std::min(K_, n_), ct_ > 1 ? std::min(K_, m_) : 0);
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
          ready_cv.wait(lock, [&] { return !ready.empty() || done == tiles || error; });
          if (ready.empty() || error) return;
          const std::int64_t t = ready.back();
          ready.pop_back();
          lock.unlock();
          const best_cell best = fill(t, x);
          store(t, best, x, false);
          report(progress, t);
          lock.lock();
          ++done;
          for (const std::int64_t next : {t % ct_ + 1 < ct_ ? t + 1 : -1, t / ct_ + 1 < rt_ ? t + ct_ : -1})
            if (next >= 0 && --waiting[std::size_t(next)] == 0) ready.push_back(next);
          ready_cv.notify_all();
        }
      } catch (...) {  // unlocked here (the lock's destructor ran)
        fail(std::current_exception());
      }
    };
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < workers; ++k) {
      try {
        pool.emplace_back(work);
      } catch (...) {
        break;  // the calling thread and those that started do the work
      }
    }
    work();
    for (std::thread& th : pool) th.join();
    if (error) std::rethrow_exception(error);
  }

  //! Refills the dirty tiles of t's cone (t and every tile above-left of it), one anti-diagonal
  //! of tiles after the other (a tile reads only tiles of earlier anti-diagonals, so each reads
  //! exact borders; the tiles of one anti-diagonal are refilled at once on the pair's threads);
  //! true when any was refilled.
  bool make_exact(std::int64_t t) {
    const std::int64_t a = t / ct_, b = t % ct_;
    bool any = false;
    for (;;) {
      std::vector<std::int64_t> batch;  // the cone's dirty tiles on its first dirty anti-diagonal
      std::int64_t diagonal = a + b + 1;
      for (auto it = dirty_.begin(); it != dirty_.end() && *it <= t; ++it) {
        const std::int64_t da = *it / ct_, db = *it % ct_;
        if (da > a || db > b || da + db > diagonal) continue;
        if (da + db < diagonal) batch.clear(), diagonal = da + db;
        batch.push_back(*it);
      }
      if (batch.empty()) return any;
      for (const std::int64_t d : batch) dirty_.erase(d);
      std::vector<int> changed(batch.size());
      if (batch.size() == 1 || threads_ <= 1) {
        for (std::size_t k = 0; k < batch.size(); ++k) changed[k] = store(batch[k], fill(batch[k], main_), main_, true);
      } else {
        refill_together(batch, changed);
      }
      for (std::size_t k = 0; k < batch.size(); ++k) {
        mark(batch[k], changed[k]);
        push(batch[k]);
      }
      any = true;
    }
  }

  //! Refills the tiles of one anti-diagonal on the pair's threads (the pool starts on first use;
  //! threads the system refuses leave the work to the others).
  void refill_together(const std::vector<std::int64_t>& batch, std::vector<int>& changed) {
    if (!pool_) pool_ = std::make_unique<batch_pool>(threads_);
    while (scratch_.size() < pool_->workers())
      scratch_.emplace_back(std::min(K_, n_), ct_ > 1 ? std::min(K_, m_) : 0);
    pool_->run(batch.size(), [&](std::size_t k, unsigned worker) {
      fill_scratch& x = scratch_[worker];
      changed[k] = store(batch[k], fill(batch[k], x), x, true);
    });
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
    std::int32_t* row_h = main_.row_h.data();
    std::int32_t* row_f = main_.row_f.data();
    if (bands > 1 && ck_tile_ != t) {  // rows above bands 1, 2, … of this tile
      checkpoints_.resize(std::size_t(2 * (bands - 1) * w));
      load_top(t, g, row_h, row_f);
      for (std::int64_t k = 0; k + 1 < bands; ++k) {
        const block part{g.i0 + k * S_, g.i0 + (k + 1) * S_ - 1, g.j0, g.j1};
        fill_block(part, q_, t_, s_, forbidden_.of_tile(t),
                   {row_h, row_f, corner(part.i0, b), left_h(part.i0, b), left_e(part.i0, b), nullptr, nullptr},
                   nullptr);
        std::copy_n(row_h, w, checkpoints_.begin() + 2 * k * w);
        std::copy_n(row_f, w, checkpoints_.begin() + (2 * k + 1) * w);
      }
      ck_tile_ = t;
    }
    if (band == 0) {
      load_top(t, g, row_h, row_f);
    } else {
      std::copy_n(checkpoints_.begin() + 2 * (band - 1) * w, w, row_h);
      std::copy_n(checkpoints_.begin() + (2 * band - 1) * w, w, row_f);
    }
    const block part{g.i0 + band * S_, std::min(g.i0 + (band + 1) * S_ - 1, g.i1), g.j0, g.j1};
    codes_.resize(std::size_t(part.height() * w));
    fill_block(part, q_, t_, s_, forbidden_.of_tile(t),
               {row_h, row_f, corner(part.i0, b), left_h(part.i0, b), left_e(part.i0, b), nullptr, nullptr},
               codes_.data());
    band_tile_ = t;
    band_ = band;
    band_i0_ = part.i0;
  }

  std::optional<diagonal_band> band_of_tiles_;  // best_alignment_in_band's: tiles outside it stay unfilled
  residue_span q_, t_;
  const scoring_scheme& s_;
  std::int64_t m_, n_, K_, S_, rt_, ct_;
  std::vector<std::int32_t> bottom_h_, bottom_f_;  // [row of tiles a < rt-1][column]: H, F of its last row
  std::vector<std::int32_t> right_h_, right_e_;    // [column of tiles b < ct-1][row]: H, E of its last column
  std::vector<tile_record> tiles_;
  std::priority_queue<heap_entry, std::vector<heap_entry>, heap_order> heap_;
  std::set<std::int64_t> dirty_;  // row-major tile numbers
  forbidden_tiles forbidden_;
  fill_scratch main_;                      // the calling thread's arrays
  unsigned threads_ = 1;                   // threads a refill may use
  std::unique_ptr<batch_pool> pool_;       // started on the first refill of several tiles at once
  std::deque<fill_scratch> scratch_;       // one per pool worker
  std::vector<std::int32_t> checkpoints_;  // H, F rows above the bands of tile ck_tile_
  std::int64_t ck_tile_ = -1;
  std::vector<std::uint8_t> codes_;  // codes of band band_ of tile band_tile_
  std::int64_t band_tile_ = -1, band_ = -1, band_i0_ = 0;
};

}  // namespace

hsp_plan plan_hsps(std::int64_t m, std::int64_t n, std::size_t budget_bytes, unsigned threads) {
  hsp_plan plan;
  const std::int64_t longest = std::max<std::int64_t>({m, n, 1});
  for (std::int64_t K = hsp_min_tile;; K *= 2) {
    std::int64_t rows = 0;
    const std::size_t bytes = layout_bytes(m, n, K, code_budget(budget_bytes), std::max(threads, 1u), rows);
    if (plan.tile == 0 || bytes < plan.bytes) plan = {K, rows, bytes};
    if (bytes <= budget_bytes) return {K, rows, bytes};
    if (K >= longest) return plan;  // nothing fits: the smallest layout
  }
}

namespace {

//! plan_hsps's layout, or the one `layout` forces (tests: the budget is then not checked); a
//! usage_error naming `what` when the planned one does not fit the budget.
hsp_plan forced_or_planned(std::int64_t m, std::int64_t n, std::size_t budget_bytes, const hsp_plan& layout,
                           unsigned threads, const char* what, const char* hint) {
  hsp_plan plan = plan_hsps(m, n, budget_bytes, threads);
  if (layout.tile > 0) {
    plan.tile = layout.tile;
    plan.bytes = layout_bytes(m, n, layout.tile, code_budget(budget_bytes), threads, plan.band_rows);
    if (layout.band_rows > 0) plan.band_rows = std::min(layout.band_rows, std::min(layout.tile, m));
  } else if (plan.bytes > budget_bytes) {
    throw usage_error("a pair of " + std::to_string(m) + " × " + std::to_string(n) + " residues needs " +
                      std::to_string(plan.bytes >> 20) + " MiB of CPU memory " + what + ", more than its share of " +
                      std::to_string(budget_bytes >> 20) + " MiB" + hint);
  }
  return plan;
}

}  // namespace

std::vector<alignment> waterman_eggert(residue_span query, residue_span target, const scoring_scheme& scheme,
                                       std::size_t max_hsps, std::int32_t min_score, std::size_t budget_bytes,
                                       const progress_fn* progress, const hsp_plan& layout, unsigned threads,
                                       bool* stopped_by_memory) {
  std::vector<alignment> found;
  if (stopped_by_memory) *stopped_by_memory = false;
  if (query.empty() || target.empty()) return found;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  threads = std::max(threads, 1u);
  const hsp_plan plan = forced_or_planned(m, n, budget_bytes, layout, threads, "for --max-hsps", " (raise --cpu-mem)");
  tiled_search search(query, target, scheme, plan);
  search.fill_all(progress, threads);
  const std::int32_t threshold = std::max(min_score, 1);
  // What the layout leaves of the budget holds the pairs of the alignments found (a forced
  // layout, tests only, leaves them the whole budget).
  const std::size_t pairs_bytes =
      layout.tile > 0 ? budget_bytes : budget_bytes > plan.bytes ? budget_bytes - plan.bytes : 0;
  alignment aln;
  while ((max_hsps == 0 || found.size() < max_hsps) && search.next(threshold, aln)) {
    found.push_back(aln);
    if ((max_hsps == 0 || found.size() < max_hsps) && !search.forbid(aln, pairs_bytes)) {
      if (stopped_by_memory) *stopped_by_memory = true;
      break;
    }
  }
  return found;
}

std::optional<diagonal_band> band_of_score(std::int64_t rows, std::int64_t columns, std::int32_t score,
                                           const scoring_scheme& scheme) {
  const std::int64_t best = scheme.max_score(), extend = scheme.gap_extend;
  if (extend <= 0 || best <= 0 || score <= 0 || rows < 1 || columns < 1) return std::nullopt;
  const std::int64_t room_rows = rows * best - std::int64_t(score), room_columns = columns * best - std::int64_t(score);
  if (room_rows < 0 || room_columns < 0) return std::nullopt;
  const std::int64_t up = std::min(room_rows / (best + extend), room_columns / extend);      // I_max
  const std::int64_t down = std::min(room_rows / extend, room_columns / (best + extend));    // D_max
  const std::int64_t end = columns - rows;
  return diagonal_band{end - down, end + up};
}

std::optional<alignment> best_alignment_in_band(residue_span query, residue_span target, const scoring_scheme& scheme,
                                                diagonal_band band, std::size_t budget_bytes,
                                                const progress_fn* progress, const hsp_plan& layout, unsigned threads) {
  if (query.empty() || target.empty()) return std::nullopt;
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  threads = std::max(threads, 1u);
  const hsp_plan plan = forced_or_planned(m, n, budget_bytes, layout, threads, "for its alignment", "");
  tiled_search search(query, target, scheme, plan, band);
  search.fill_all(progress, threads);
  alignment aln;
  if (!search.next(1, aln)) return std::nullopt;
  return aln;
}

best_cell tiled_best_cell(residue_span query, residue_span target, const scoring_scheme& scheme,
                          std::size_t budget_bytes, unsigned threads, const progress_fn* progress) {
  if (query.empty() || target.empty()) return {};
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  threads = std::max(threads, 1u);
  const hsp_plan plan = forced_or_planned(m, n, budget_bytes, {}, threads, "for its tiled score pass", "");
  tiled_search search(query, target, scheme, plan);
  search.fill_all(progress, threads);
  return search.best();
}

std::uint64_t hsp_cells_filled() { return block_cells_filled(); }

}  // namespace swat::cpu
