// Traceback in bounded memory (algorithm and bound in fast_trace.hpp): root crossing fill,
// pointer chains, band segments refilled for codes (or split again), CPU walk.

#include "cuda/engines/fast/fast_trace.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace swat::fast {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
//! A traceback fill's query (whole strips), target, one border row of 16 B a column (written in
//! place: fast_trace_dispatch.cu), strip flags and bests, error words, alignment slack.
std::int64_t fixed_bytes(std::int64_t rows, std::int64_t cols) {
  return ceil_div(rows, trace_strip_rows) * trace_strip_rows + cols + 16 * cols +
         28 * ceil_div(rows, trace_strip_rows) + 4096;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

//! The budget cannot hold a fill the traceback needs (a std::runtime_error to its callers; a walk
//! over special rows catches it and runs the root fill instead).
class budget_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! How a segment begins: a crossing cell of the path (true H and F), zero borders from a column,
//! or a kept special row as its top border (the crossing unknown, found by the walk).
struct segment_start {
  bool zero = false;         //!< zero borders: the walk stops at H = 0 (the alignment's begin)
  bool border = false;       //!< top border: special row border_row from column col on
  std::int64_t border_row = -1;
  std::int64_t col = 0;      //!< global column of the crossing cell / of the left border
  bool state_f = false;      //!< crossing lands in state F
  std::int32_t h = 0;        //!< true H at the crossing cell
  std::int32_t f = trace_minus_infinity;  //!< true F at the crossing cell
};

//! Rows (row0, row1] of the matrix; the path enters at (row1, end_col) in state H or F.
struct segment {
  std::int64_t row0 = 0, row1 = 0, end_col = 0;
  bool end_f = false;
  segment_start start;
};

class tracer {
 public:
  tracer(residue_span q, residue_span t, trace_backend& be, const trace_options& o, trace_stats& st)
      : q_(q), t_(t), be_(be), opt_(o), st_(st) {}

  alignment run() {
    const std::int64_t m = std::int64_t(q_.size()), n = std::int64_t(t_.size());
    if (n > trace_max_columns) throw std::invalid_argument("sw_fast trace: target too long");
    budget_ = opt_.budget_bytes;
    if (opt_.special) {
      const special_rows_of& kept = be_.special_kept();
      std::int64_t k = 0;
      best_cell best;
      // Kept rows serve when they are of this pair and leave room beside them for the crossing
      // fill of the widest band (a band that fits no fill falls back to the root fill below).
      const std::int64_t kept_bytes =
          kept.band_rows > 0 ? special_fill_bytes(std::int64_t(kept.query.size()), std::int64_t(kept.target.size()), kept.band_rows) : 0;
      const std::int64_t kept_band = std::min(kept.band_rows, m);
      if (special_rows_serve(kept, q_, t_) &&
          kept_bytes + crossing_fill_bytes(kept_band, n + 1, trace_strip_rows) <= budget_) {
        k = kept.band_rows;
        best = kept.best;
        st_.special_reused = true;
        held_ = kept_bytes;
      } else {
        be_.drop_special();  // not of this pair (or too large): their memory goes first
        if ((k = special_band_rows(m, n, budget_, opt_.special_band_rows)) > 0) {
          const auto t0 = std::chrono::steady_clock::now();
          best = be_.special_fill(q_, t_, k, std::min(m, n) >= special_fill16_min_length);
          st_.special_seconds = seconds_since(t0);
          held_ = special_fill_bytes(m, n, k);
        }
      }
      if (k > 0) {
        st_.special_rows_k = k;
        st_.peak_bytes = std::max(st_.peak_bytes, held_);
        budget_ -= held_;
        try {
          return walk_bands(best, k);
        } catch (const budget_error&) {
          // A band wider than the rows left room for: the root fill, with the whole budget.
          be_.codes_slots_release();
          be_.drop_special();
          rev_.clear();
          begin_i_ = begin_j_ = 0;
          budget_ = opt_.budget_bytes;
          held_ = 0;
          st_ = trace_stats{};
        }
      }
    }
    const std::int64_t k = choose_band(m, n, opt_.preferred_band_rows);
    st_.root_band_rows = k;
    trace_sub sub;
    sub.query = q_;
    sub.target = t_;
    const auto t0 = std::chrono::steady_clock::now();
    const crossing_result cr = be_.crossing_fill(sub, k, 0);
    st_.crossing_seconds += seconds_since(t0);
    st_.root_flag_wait_share = cr.flag_wait_share;
    ++st_.crossing_fills;
    alignment aln;
    if (cr.best.score <= 0) return aln;
    segment_start root;
    root.zero = true;
    const auto children = follow(cr.best_ptr, (cr.best.query_end - 1) / k, k, 0, 0, cr.best.query_end,
                                 cr.best.target_end, false, root);
    for (const segment& s : children) solve(s);
    aln.score = cr.best.score;
    aln.query_begin = begin_i_;
    aln.target_begin = begin_j_;
    aln.query_end = cr.best.query_end;
    aln.target_end = cr.best.target_end;
    aln.ops.assign(rev_.rbegin(), rev_.rend());
    return aln;
  }

 private:
  //! Smallest multiple of the strip ≥ preferred whose crossing fill fits the budget.
  std::int64_t choose_band(std::int64_t rows, std::int64_t cols, std::int64_t preferred) {
    std::int64_t k = std::max<std::int64_t>(1, ceil_div(preferred, trace_strip_rows)) * trace_strip_rows;
    if (crossing_fill_bytes(rows, cols, k) > budget_) {
      const std::int64_t room = budget_ - crossing_fill_bytes(rows, cols, rows);
      const std::int64_t rows_kept = room / (16 * std::max<std::int64_t>(cols, 1));
      if (rows_kept < 1 && rows > k)
        throw budget_error("sw_fast trace: GPU memory budget of " + std::to_string(opt_.budget_bytes) +
                                 " bytes cannot hold one checkpoint row of " + std::to_string(cols) + " columns");
      k = std::max(k, ceil_div(ceil_div(rows, rows_kept + 1), trace_strip_rows) * trace_strip_rows);
    }
    st_.peak_bytes = std::max(st_.peak_bytes, held_ + crossing_fill_bytes(rows, cols, k));
    return k;
  }

  //! Follows the pointer chain of the last crossing fill from pointer p in band b and returns the
  //! segments of the path from the bottom band up (the last one ends at the begin or the start).
  std::vector<segment> follow(std::uint32_t p, std::int64_t b, std::int64_t k, std::int64_t row0, std::int64_t lo,
                              std::int64_t end_row, std::int64_t end_col, bool end_f, const segment_start& start) {
    std::vector<segment> out;
    for (;;) {
      segment s;
      s.row0 = row0 + b * k;
      s.row1 = end_row;
      s.end_col = end_col;
      s.end_f = end_f;
      const std::int64_t c = std::int64_t(p & ptr_column);
      const bool f = (p & ptr_state_f) != 0;
      // Landing on column 0 of a band's top row: that cell is the fill's left border, on the path
      // only as its stop cell (H = 0): the matrix's column 0, or a zero segment's stop column.
      if (c == 0 && !(p & ptr_stop)) {
        if (f || !(start.zero || (start.border && lo == 0)))
          throw std::logic_error("sw_fast trace: path lands on the left border of its fill");
        p = ptr_stop;
      }
      if (p & ptr_stop) {
        s.start.zero = true;
        s.start.col = lo + c;
        out.push_back(s);
        return out;
      }
      if (b == 0) {
        if (start.border) {  // the crossing of the special row on top, with its exact values
          special_cell top{};
          be_.special_cells(start.border_row, lo + c, 1, &top);
          s.start.col = lo + c;
          s.start.state_f = f;
          s.start.h = top.h;
          s.start.f = top.f;
        } else if (start.zero) {
          if (f) throw std::logic_error("sw_fast trace: path lands in state F on a zero border");
          s.start.zero = true;
          s.start.col = lo + c;
        } else {
          if (lo + c != start.col || f != start.state_f)
            throw std::logic_error("sw_fast trace: path does not reach its segment's start cell");
          s.start = start;
        }
        out.push_back(s);
        return out;
      }
      const checkpoint_entry ck = be_.checkpoint(b, c);
      if (!f && ck.h == 0) {
        // The path begins on this checkpoint row (a cell of the path whose H is 0 is its begin,
        // where the walk stops): the segment starts there on zero borders, and nothing lies above.
        s.start.zero = true;
        s.start.col = lo + c;
        out.push_back(s);
        return out;
      }
      s.start.col = lo + c;
      s.start.state_f = f;
      s.start.h = ck.h;
      s.start.f = ck.f;
      out.push_back(s);
      p = f ? ck.pf : ck.ph;
      end_row = s.row0;
      end_col = lo + c;
      end_f = f;
      --b;
    }
  }

  static std::int64_t col_lo(const segment& s) {
    return s.start.zero || s.start.border ? s.start.col : s.start.col - 1;
  }

  trace_sub make_sub(const segment& s) const {
    const std::int64_t lo = col_lo(s);
    trace_sub sub;
    sub.query = q_.subspan(std::size_t(s.row0), std::size_t(s.row1 - s.row0));
    sub.target = t_.subspan(std::size_t(lo), std::size_t(s.end_col - lo));
    if (s.start.border) {
      sub.top_row = s.start.border_row;
      sub.top_col = lo;
    } else if (!s.start.zero) {
      sub.start_col = std::int32_t(s.start.col - lo);
      sub.start_h = s.start.h;
      sub.start_f = s.start.f;
    }
    return sub;
  }

  enum class state { h, e, f };
  //! Where a walk over the codes of the last codes fill ended: on a cell whose H is 0 (stopped),
  //! or on row 0 or column 0 in state st.
  struct walk_end {
    std::int64_t i = 0, j = 0;
    state st = state::h;
    bool stopped = false;
  };

  //! Whether the codes of a rows × cols piece fit the budget (a strip's always go; they throw when
  //! even they do not fit).
  bool codes_fit(std::int64_t rows, std::int64_t cols, const char* what) const {
    if (codes_fill_bytes(rows, cols) <= budget_) return true;
    if (rows > trace_strip_rows) return false;
    throw budget_error("sw_fast trace: GPU memory budget of " + std::to_string(opt_.budget_bytes) +
                       " bytes cannot hold the codes of a " + std::to_string(rows) + " x " + std::to_string(cols) + " " +
                       what);
  }

  //! Fills the codes of piece s (its sub) and walks them from its end (see walk_codes).
  walk_end fill_and_walk(const segment& s, const trace_sub& sub, std::int64_t rows, std::int64_t cols) {
    st_.peak_bytes = std::max(st_.peak_bytes, held_ + codes_fill_bytes(rows, cols));
    auto t0 = std::chrono::steady_clock::now();
    be_.codes_fill(sub);
    st_.codes_seconds += seconds_since(t0);
    ++st_.codes_fills;
    t0 = std::chrono::steady_clock::now();
    const walk_end w = walk_codes(rows, cols, s.end_f);
    st_.walk_seconds += seconds_since(t0);
    return w;
  }

  //! Cuts piece s, too wide for its codes, by a crossing fill (bands of the smallest K the budget
  //! takes) and solves the pieces; returns them from the bottom up.
  std::vector<segment> split(const segment& s, const trace_sub& sub, std::int64_t rows, std::int64_t cols,
                             std::int64_t lo, const char* what) {
    const std::int64_t k = choose_band(rows, cols, trace_strip_rows);
    if (k >= rows)
      throw budget_error("sw_fast trace: GPU memory budget too small to split a " + std::to_string(rows) + " x " +
                         std::to_string(cols) + " " + what);
    const auto t0 = std::chrono::steady_clock::now();
    const crossing_result cr = be_.crossing_fill(sub, k, cols);
    st_.crossing_seconds += seconds_since(t0);
    ++st_.crossing_fills;
    auto children =
        follow(s.end_f ? cr.end_pf : cr.end_ph, (rows - 1) / k, k, s.row0, lo, s.row1, s.end_col, s.end_f, s.start);
    for (const segment& c : children) solve(c);
    return children;
  }

  void solve(const segment& s) {
    const std::int64_t rows = s.row1 - s.row0, lo = col_lo(s), cols = s.end_col - lo;
    if (rows < 1 || cols < 1) throw std::logic_error("sw_fast trace: empty segment");
    const trace_sub sub = make_sub(s);
    if (codes_fit(rows, cols, "segment")) walk(s, fill_and_walk(s, sub, rows, cols), lo);
    else split(s, sub, rows, cols, lo, "segment");
  }

  //! Walks the codes of the last codes fill (rules of walk_traceback) from (rows, cols) in state
  //! H or F, pushing the operations.
  walk_end walk_codes(std::int64_t rows, std::int64_t cols, bool end_f, std::size_t slot = 0) {
    walk_end w;
    std::int64_t i = rows, j = cols;
    state st = end_f ? state::f : state::h;
    while (i > 0 && j > 0) {
      const std::uint8_t code = be_.slot_code_at(slot, i, j);
      if (st == state::h) {
        const std::uint8_t src = code & code_h_mask;
        if (src == code_zero) {
          w.stopped = true;
          break;
        }
        if (src == code_diag) {
          push_op(rev_, 'M');
          --i;
          --j;
        } else {
          st = src == code_e ? state::e : state::f;
        }
      } else if (st == state::e) {
        push_op(rev_, 'D');
        if (code & code_e_open) st = state::h;
        --j;
      } else {
        push_op(rev_, 'I');
        if (code & code_f_open) st = state::h;
        --i;
      }
    }
    w.i = i;
    w.j = j;
    w.st = st;
    return w;
  }

  //! Checks the walk w of segment s's codes, from its end to its start, and records a begin.
  void walk(const segment& s, const walk_end& w, std::int64_t lo) {
    const std::int64_t i = w.i, j = w.j;
    const state st = w.st;
    if (s.start.zero) {
      if (st != state::h) throw std::logic_error("sw_fast trace: walk left the matrix inside a gap");
      begin_i_ = s.row0 + i;
      begin_j_ = lo + j;
      return;
    }
    const bool landed_f = st == state::f;
    if (i != 0 || j != 1 || st == state::e || landed_f != s.start.state_f)
      throw std::logic_error("sw_fast trace: walk of rows (" + std::to_string(s.row0) + ", " +
                             std::to_string(s.row1) + "] missed its start cell");
  }

  //! The smallest column the path into (end_row, end_col) of the band of rows (row0, end_row]
  //! can cross the row above in (or begin in), the path's value there being v (fast_trace.hpp,
  //! step a); b is the band (b ≥ 1: special row b − 1 on top, b = 0: row 0 of the matrix).
  std::int64_t band_lo(std::int64_t b, std::int64_t rows, std::int64_t end_col, std::int32_t v) {
    const scoring_scheme& sc = be_.scheme();
    const std::int64_t smax = sc.max_score(), go = sc.gap_open, ge = sc.gap_extend;
    const auto gain = [&](std::int64_t w) { return w <= rows ? w * smax : rows * smax - go - ge * (w - rows); };
    const auto t0 = std::chrono::steady_clock::now();
    struct read_time {  // the band's reads of the special row above, timed
      trace_stats& st;
      std::chrono::steady_clock::time_point t0;
      ~read_time() { st.band_read_seconds += seconds_since(t0); }
    } timed{st_, t0};
    const std::int64_t hmax = b >= 1 ? be_.special_max(b - 1) : 0;
    if (hmax + rows * smax < v) throw std::logic_error("sw_fast trace: a band's end is out of reach of the row above");
    std::int64_t wmax = end_col;  // widest band any path of value v can span
    if (ge > 0) {
      const std::int64_t slack = hmax + rows * smax - go - v;
      wmax = std::min(end_col, rows + (slack > 0 ? slack / ge : 0));
    }
    const std::int64_t first = end_col - wmax;
    last_wmax_ = wmax;
    if (b == 0) return first;  // H_top = 0: every column from end_col − wmax on qualifies
    if (first == 0 && gain(end_col) >= v) return 0;  // column 0: H = 0 there
    const std::int64_t c0 = std::max<std::int64_t>(first, 1);
    top_.resize(std::size_t(end_col - c0 + 1));
    // The cells the band's fill ahead read back before it, when they cover these (else read now).
    const special_cell* ahead = nullptr;
    if (!ahead_.empty() && ahead_.front().row0 == b * k_ && ahead_.front().top_c0 <= c0 &&
        ahead_.front().top_c0 + ahead_.front().top_count > end_col)
      ahead = be_.slot_top_cells(ahead_.front().slot);
    if (ahead != nullptr) {
      std::copy_n(ahead + (c0 - ahead_.front().top_c0), top_.size(), top_.begin());
      ++st_.band_reads_ahead;
    } else {
      be_.special_cells(b - 1, c0, std::int64_t(top_.size()), top_.data());
    }
    top_row_ = b - 1;
    top_c0_ = c0;
    for (std::int64_t c = c0; c <= end_col; ++c)
      if (std::int64_t(top_[std::size_t(c - c0)].h) + gain(end_col - c) >= v) return c;
    throw std::logic_error("sw_fast trace: no column of the row above reaches a band's end");
  }

  //! Walks the path from the best cell up band by band over the kept special rows of band K.
  alignment walk_bands(const best_cell& best, std::int64_t k) {
    alignment aln;
    k_ = k;
    walk_bands_ = (best.query_end + k - 1) / k;
    // The ring: slots 1 … of the backend (slot 0 is the synchronous fills'), empty.
    be_.codes_slots_release();
    ahead_.clear();
    free_.clear();
    const std::size_t ring = std::min(2 * opt_.bands_at_once, be_.codes_slots() - 1);
    batch_ = std::max<std::size_t>(1, ring / 2);
    ring_ = walk_bands_ >= opt_.bands_ahead_min_walk ? ring : 0;
    for (std::size_t slot = ring_; slot >= 1; --slot) free_.push_back(slot);
    if (best.score <= 0) return aln;
    std::int64_t row = best.query_end, col = best.target_end;
    bool in_f = false;
    std::int32_t v = best.score;
    for (;;) {
      const std::int64_t b = (row - 1) / k, row0 = b * k;
      const std::int64_t lo = band_lo(b, row - row0, col, v);
      segment s;
      s.row0 = row0;
      s.row1 = row;
      s.end_col = col;
      s.end_f = in_f;
      s.start.col = std::max<std::int64_t>(lo - 1, 0);
      if (b == 0) {
        s.start.zero = true;
      } else {
        s.start.border = true;
        s.start.border_row = b - 1;
      }
      ++st_.bands;
      st_.band_cells += (row - row0) * (col - s.start.col);
      segment_start crossing;
      if (!solve_band(s, crossing)) break;  // the path begins in this band
      row = row0;
      col = crossing.col;
      in_f = crossing.state_f;
      v = in_f ? crossing.f : crossing.h;
      if (!in_f && v == 0) {  // the walk stops on a cell whose H is 0: the alignment begins there
        begin_i_ = row;
        begin_j_ = col;
        break;
      }
    }
    drop_ahead();  // fills above the begin, of no use
    be_.codes_slots_release();
    aln.score = best.score;
    aln.query_begin = begin_i_;
    aln.target_begin = begin_j_;
    aln.query_end = best.query_end;
    aln.target_end = best.target_end;
    aln.ops.assign(rev_.rbegin(), rev_.rend());
    return aln;
  }

  //! Solves band s (start zero or border): its operations pushed, and either the begin recorded
  //! (false) or the crossing on its top row returned in crossing (true).
  //!
  //! Bands ahead (fast_trace.hpp): the bands above the walk are queued in a ring of codes slots,
  //! each over a window of columns predicted from the last crossing and the path's slope: it ends
  //! where the path is expected to leave the band below (plus a margin growing by `ahead_margin` a
  //! band of distance) and starts as far left as the walked band's own bound (its width beyond the
  //! path's, and the margin). When the walk comes to such a band, its window serves if it holds the
  //! band's true columns (from band_lo, whose left column is a bound on the path, and the crossing
  //! the walk found): the codes of any window that holds the path and has the special row on top
  //! reproduce the reference's path (the argument of step b). Otherwise the band is filled again,
  //! and the ring with it.
  bool solve_band(const segment& s, segment_start& crossing) {
    const std::int64_t rows = s.row1 - s.row0, lo = col_lo(s), cols = s.end_col - lo;
    if (rows < 1 || cols < 1) throw std::logic_error("sw_fast trace: empty band");
    std::size_t slot = 0;
    std::int64_t from = lo;  // DP column of the filled window's column 0
    bool served = false, was_ahead = false;
    if (!ahead_.empty() && (ahead_.front().row0 != s.row0 || rows != k_)) drop_ahead();  // not the walk's way
    if (!ahead_.empty()) {
      const ahead_band a = ahead_.front();
      ahead_.erase(ahead_.begin());
      was_ahead = true;
      if (a.lo <= lo && a.end >= s.end_col) {
        served = true;
        slot = a.slot;
        from = a.lo;
      } else {
        free_.push_back(a.slot);
      }
    }
    if (served) {
      ++st_.bands_ahead;
      top_up(s, lo);  // the slot walked last takes the next band above the ring
      wait_for(slot);
    } else {
      if (was_ahead) ++st_.bands_ahead_missed;
      drop_ahead();  // their windows follow a line the path left
      if (!codes_fit(rows, cols, "band")) return split_band(s, rows, cols, lo, crossing);
      slot = fill_here(s, rows, lo);
    }
    auto t0 = std::chrono::steady_clock::now();
    const walk_end w = walk_codes(rows, s.end_col - from, s.end_f, slot);
    st_.walk_seconds += seconds_since(t0);
    if (slot != 0) free_.push_back(slot);  // walked: the slot is free for a band above
    if (w.stopped || (w.j == 0 && from == 0) || (w.i == 0 && s.start.zero)) {
      // H = 0 at the stop cell, the matrix's left column (also on the special row), or row 0
      if (w.st != state::h) throw std::logic_error("sw_fast trace: walk left the matrix inside a gap");
      begin_i_ = s.row0 + w.i;
      begin_j_ = from + w.j;
      return false;
    }
    if (w.i != 0 || w.j == 0 || w.st == state::e)
      throw std::logic_error("sw_fast trace: walk of rows (" + std::to_string(s.row0) + ", " + std::to_string(s.row1) +
                             "] left its band's columns");
    // The crossing's values: band_lo read the special row above from top_c0_ to the band's end
    // column, which the crossing never passes (read again otherwise).
    special_cell top{};
    const std::int64_t at = from + w.j - top_c0_;
    if (top_row_ == s.start.border_row && at >= 0 && at < std::int64_t(top_.size())) {
      top = top_[std::size_t(at)];
    } else {
      t0 = std::chrono::steady_clock::now();
      be_.special_cells(s.start.border_row, from + w.j, 1, &top);
      st_.band_read_seconds += seconds_since(t0);
    }
    crossing.col = from + w.j;
    crossing.state_f = w.st == state::f;
    crossing.h = top.h;
    crossing.f = top.f;
    if (rows == k_)  // the path's columns per row, for the windows of the bands ahead
      slope_ = std::clamp(0.5 * slope_ + 0.5 * double(s.end_col - crossing.col) / double(rows), 0.0, 4.0);
    return true;
  }

  //! Band s filled now, over its columns from lo (in a slot of the ring, whose other slots then
  //! take the bands above it, or in slot 0 without a ring); returns the slot.
  std::size_t fill_here(const segment& s, std::int64_t rows, std::int64_t lo) {
    trace_sub sub = make_sub(s);
    // The path ends at the band's last column.
    sub.path_end_col = s.end_col - lo;
    sub.path_slope = slope_;
    sub.path_margin = opt_.path_copy_margin;
    const std::int64_t need = codes_fill_bytes(rows, s.end_col - lo);
    std::size_t slot = 0;
    if (!free_.empty()) {  // a slot of the ring, when the ring's buffers leave room for it
      slot = free_.back();
      if (ring_bytes() - be_.codes_slot_bytes(slot, 0) + be_.codes_slot_bytes(slot, need) > budget_) {
        be_.codes_slots_release();  // every band ahead was dropped: their buffers go
        if (be_.codes_slot_bytes(slot, need) > budget_) slot = 0;
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (slot == 0) {
      st_.peak_bytes = std::max(st_.peak_bytes, held_ + ring_bytes() + need);
      be_.codes_fill(sub);
      st_.codes_seconds += seconds_since(t0);
    } else {
      free_.pop_back();
      be_.codes_fill_start(slot, sub);
      const double started = seconds_since(t0);
      st_.codes_seconds += started;
      st_.codes_launch_seconds += started;
      top_up(s, lo, 1);  // the bands above go out with it (its own time counted there)
      wait_for(slot);
    }
    ++st_.codes_fills;
    return slot;
  }

  //! Waits for the codes of a ring slot's band (timed: the walk idles).
  void wait_for(std::size_t slot) {
    const auto t0 = std::chrono::steady_clock::now();
    be_.codes_fill_wait(slot);
    const double waited = seconds_since(t0);
    st_.codes_seconds += waited;
    st_.codes_wait_seconds += waited;
  }

  //! Device bytes the ring's slots hold now.
  std::int64_t ring_bytes() const {
    std::int64_t bytes = 0;
    for (std::size_t slot = 1; slot <= ring_; ++slot) bytes += be_.codes_slot_bytes(slot, 0);
    return bytes;
  }

  //! Queues the bands above the ring's farthest into the free slots, while the budget holds them,
  //! in batches of batch_ bands (one launch each; a batch goes out whole, or with the matrix's
  //! last bands; in_batch: bands already started in the first). Windows are predicted from band
  //! s's end (its exact end, the walk's latest point) and its bound lo.
  void top_up(const segment& s, std::int64_t lo, std::size_t in_batch = 0) {
    if (free_.empty() && in_batch == 0) return;
    const auto t0 = std::chrono::steady_clock::now();
    // How much wider than the path's own columns a band's bound makes it.
    const double extra = std::max(0.0, double(s.end_col - lo) - slope_ * double(s.row1 - s.row0));
    const double margin = double(ahead_margin + k_ / 128);
    // Every slot of the ring keeps its buffer (free ones too): the budget counts them as held.
    std::int64_t bytes = ring_bytes();
    for (;;) {
      const std::int64_t row0 = (ahead_.empty() ? s.row0 : ahead_.back().row0) - k_;
      const std::size_t bands_left = row0 >= 0 ? std::size_t(row0 / k_ + 1) : 0;  // above the ring
      if (bands_left == 0 || free_.empty() || (in_batch == 0 && free_.size() < std::min(batch_, bands_left))) break;
      // The path's guessed column on the band's last row, and the bands between (distance).
      const double leave = double(s.end_col) - slope_ * double(s.row1 - (row0 + k_));
      const double distance = double(ceil_div(s.row1 - row0, k_) - 1);
      const std::int64_t end =
          std::min<std::int64_t>(std::int64_t(t_.size()), std::int64_t(leave + distance * margin));
      const std::int64_t left =
          std::max<std::int64_t>(0, std::int64_t(leave - slope_ * double(k_) - extra - distance * margin));
      if (end - left < 1) break;
      const std::size_t slot = free_.back();
      const std::int64_t need = codes_fill_bytes(k_, end - left);
      const std::int64_t held = be_.codes_slot_bytes(slot, 0), grown = be_.codes_slot_bytes(slot, need);
      if (bytes - held + grown > budget_) break;
      bytes += grown - held;
      const std::int64_t b = row0 / k_;
      segment a;
      a.row0 = row0;
      a.row1 = row0 + k_;
      a.end_col = end;
      a.start.col = left;
      if (b == 0) {
        a.start.zero = true;
      } else {
        a.start.border = true;
        a.start.border_row = b - 1;
      }
      trace_sub sub = make_sub(a);
      sub.path_end_col = std::max<std::int64_t>(1, std::int64_t(leave) - left);
      sub.path_slope = slope_;
      sub.path_margin = opt_.path_copy_margin + std::int64_t(distance * margin);
      // The special row's cells band_lo will read: from the band's end back as wide as the last
      // band's reach (wmax), with the margins for the drift of the end and of the reach.
      if (b >= 1 && last_wmax_ > 0) {
        const std::int64_t c0 = std::max<std::int64_t>(1, end - last_wmax_ - 2 * std::int64_t(distance * margin) - 64);
        sub.top_read_c0 = c0;
        sub.top_read_count = end - c0 + 1;
      }
      free_.pop_back();
      be_.codes_fill_start(slot, sub);
      ahead_.push_back({row0, left, end, slot, sub.top_read_c0, sub.top_read_count});
      ++st_.codes_fills;
      if (++in_batch == batch_) {
        be_.codes_fill_launch();
        in_batch = 0;
      }
    }
    if (in_batch > 0) be_.codes_fill_launch();
    st_.peak_bytes = std::max(st_.peak_bytes, held_ + bytes);
    const double spent = seconds_since(t0);
    st_.codes_seconds += spent;
    st_.codes_launch_seconds += spent;
  }

  //! The queued bands given up (their slots free; a fill still running finishes unread).
  void drop_ahead() {
    // At the front of the free slots: those whose fills are done are taken first (a slot still
    // filling is waited for before it takes another).
    for (const ahead_band& a : ahead_) free_.insert(free_.begin(), a.slot);
    ahead_.clear();
  }

  //! Band s, too wide for its codes (solve_band): split by a crossing fill.
  bool split_band(const segment& s, std::int64_t rows, std::int64_t cols, std::int64_t lo, segment_start& crossing) {
    be_.codes_slots_release();  // the crossing fill has the budget (the bands ahead were dropped)
    const trace_sub sub = make_sub(s);
    // Too wide for its codes: a crossing fill of the band with the same top border, then its
    // segments (the topmost starts on the crossing of the special row, or at the begin).
    const std::vector<segment> children = split(s, sub, rows, cols, lo, "band");
    const segment_start& top = children.back().start;
    if (top.zero) return false;  // solve() recorded the begin
    crossing = top;
    return true;
  }

  residue_span q_, t_;
  trace_backend& be_;
  const trace_options& opt_;
  trace_stats& st_;
  std::vector<cigar_op> rev_;
  std::int64_t begin_i_ = 0, begin_j_ = 0;
  std::int64_t budget_ = 0;  //!< device bytes for the fills beside the special rows
  std::int64_t held_ = 0;    //!< device bytes of the special rows (and their fill)
  std::vector<special_cell> top_;  //!< cells of special row top_row_ from column top_c0_ (band_lo's read)
  std::int64_t top_row_ = -1, top_c0_ = 0;
  //! A band filled ahead of the walk (solve_band): rows (row0, row0 + K], DP columns (lo, end]
  //! in codes slot `slot`.
  struct ahead_band {
    std::int64_t row0 = 0, lo = 0, end = 0;
    std::size_t slot = 0;
    std::int64_t top_c0 = 0, top_count = 0;  //!< the special row's cells read before the fill
  };
  std::vector<ahead_band> ahead_;  //!< the ring's queued bands, nearest to the walk first
  std::vector<std::size_t> free_;  //!< the ring's free slots
  std::size_t batch_ = 1;          //!< bands a launch fills (half the ring)
  std::size_t ring_ = 0;           //!< slots of the ring (1 … ring_; 0: none)
  std::int64_t k_ = 0;   //!< K of the special rows walked
  std::int64_t last_wmax_ = 0;  //!< the widest span band_lo allowed the last band's path
  std::int64_t walk_bands_ = 0;  //!< bands from the best cell's up (at most)
  double slope_ = 1.0;   //!< columns per row of the path walked so far (a running mean over bands)
  //! Columns a window ahead adds on each side per band ahead (with K/128), for the path's drift.
  static constexpr std::int64_t ahead_margin = 16;
};

}  // namespace

std::int64_t crossing_fill_bytes(std::int64_t rows, std::int64_t cols, std::int64_t band_rows) {
  return fixed_bytes(rows, cols) + 16 * cols * std::max<std::int64_t>(ceil_div(rows, band_rows) - 1, 0);
}

std::int64_t codes_fill_bytes(std::int64_t rows, std::int64_t cols) {
  return fixed_bytes(rows, cols) + 128 * ceil_div(rows, trace_strip_rows) * (cols + 31);
}

std::int64_t special_fill_bytes(std::int64_t rows, std::int64_t cols, std::int64_t band_rows) {
  const std::int64_t kept = (rows - 1) / band_rows;
  const std::int64_t strips = ceil_div(rows, special_strip_rows);
  // rows and maxima, then the score fill's query (whole strips), target, table, flags and bests,
  // error words and two border rows (fast_dispatch.cu), with room for the layout's alignment
  return kept * (cols * std::int64_t(sizeof(special_cell)) + 4) + strips * (special_strip_rows + 28) + cols + 16 * cols +
         8192;
}

std::int64_t special_band_rows(std::int64_t rows, std::int64_t cols, std::int64_t budget_bytes, std::int64_t preferred) {
  for (std::int64_t k = std::max<std::int64_t>(1, ceil_div(preferred, special_strip_rows)) * special_strip_rows;
       k <= special_max_band_rows; k *= 2) {
    // the rows, and beside them one band's codes a little wider than the band is tall
    const std::int64_t band = std::min(k, rows);
    if (special_fill_bytes(rows, cols, k) + codes_fill_bytes(band, std::min(cols, 2 * band + 1024)) <= budget_bytes)
      return k;
  }
  return 0;
}

bool special_rows_serve(const special_rows_of& kept, residue_span query, residue_span target) {
  return kept.band_rows > 0 && query.size() <= kept.query.size() && target.size() <= kept.target.size() &&
         std::size_t(kept.best.query_end) <= query.size() && std::size_t(kept.best.target_end) <= target.size() &&
         std::equal(query.begin(), query.end(), kept.query.begin()) &&
         std::equal(target.begin(), target.end(), kept.target.begin());
}

alignment trace_alignment(residue_span query, residue_span target, trace_backend& backend,
                          const trace_options& options, trace_stats* stats) {
  trace_stats local;
  if (query.empty() || target.empty()) return {};
  trace_stats& st = stats ? *stats : local;
  const double kernels_before = backend.codes_kernel_seconds(), copies_before = backend.codes_copy_seconds(),
               refetch_before = backend.codes_refetch_seconds();
  tracer tr(query, target, backend, options, st);
  alignment aln = tr.run();
  st.codes_kernel_seconds += backend.codes_kernel_seconds() - kernels_before;
  st.codes_copy_seconds += backend.codes_copy_seconds() - copies_before;
  st.codes_refetch_seconds += backend.codes_refetch_seconds() - refetch_before;
  return aln;
}

}  // namespace swat::fast
