// The progress line's text (CI): the fill line of a single long pair, as the fast engine's
// GPU traceback reports it through engine_options::fill_progress.

#include "pipeline/progress.hpp"

#include <gtest/gtest.h>

namespace swat::pipeline {
namespace {

TEST(ProgressLine, FillText) {
  EXPECT_EQ(fill_progress_text("aligning", 0.5, 3.0), "aligning: fill  50% (3.0 s, eta 3.0 s)");
  EXPECT_EQ(fill_progress_text("aligning", 1.0, 7.25), "aligning: fill 100% (7.2 s)");
  EXPECT_EQ(fill_progress_text("aligning", 0.005, 1.0), "aligning: fill   0% (1.0 s)");
  EXPECT_EQ(fill_progress_text("aligning", 3.0, 1.0), "aligning: fill 100% (1.0 s)");
}

TEST(ProgressLine, QuietLineTakesReportsWithoutDrawing) {
  progress_line line("aligning", 100, false);
  line.add(40);
  line.fill(0.5, 1.0);
  line.finish();
  line.finish();  // idempotent
}

}  // namespace
}  // namespace swat::pipeline
