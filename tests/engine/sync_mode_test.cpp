// Sync mode names (CI, no GPU): round trips, the error for unknown names, the mode sets.

#include "engine/sync_mode.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/error.hpp"

namespace swat {
namespace {

TEST(SyncMode, NamesRoundTrip) {
  for (sync_mode m : all_gpu_sync_modes()) EXPECT_EQ(parse_sync_mode(to_string(m)), m);
  EXPECT_EQ(parse_sync_mode("tree2"), sync_mode::tree);
  EXPECT_EQ(parse_sync_mode("cpu-explicit"), sync_mode::cpu_explicit);
  EXPECT_EQ(parse_sync_mode("cpu_explicit"), sync_mode::cpu_explicit);
  EXPECT_EQ(to_string(sync_mode::cpu_explicit), "cpu-explicit");
  EXPECT_EQ(parse_sync_mode("none", true), sync_mode::none);
}

TEST(SyncMode, UnknownNamesListTheValidOnes) {
  for (const char* bad : {"", "tree4", "CG", "none", "lock-free"}) {
    try {
      (void)parse_sync_mode(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const usage_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
      for (sync_mode m : all_gpu_sync_modes())
        EXPECT_NE(what.find(std::string(to_string(m))), std::string::npos) << what;
    }
  }
}

TEST(SyncMode, Sets) {
  const auto all = all_gpu_sync_modes();
  EXPECT_EQ(all.size(), 11u);
  EXPECT_EQ(std::count(all.begin(), all.end(), sync_mode::none), 0);
  for (sync_mode m : {sync_mode::cpu, sync_mode::cpu_explicit, sync_mode::graph})
    EXPECT_FALSE(is_persistent(m)) << to_string(m);
  for (sync_mode m : persistent_sync_modes()) EXPECT_TRUE(is_persistent(m)) << to_string(m);
  EXPECT_EQ(persistent_sync_modes().size(), 8u);
  EXPECT_TRUE(is_persistent(sync_mode::none));
  EXPECT_THROW((void)to_string(static_cast<sync_mode>(99)), usage_error);
}

}  // namespace
}  // namespace swat
