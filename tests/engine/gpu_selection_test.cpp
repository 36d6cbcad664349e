// --gpus parsing and resolution (engine/gpu_selection.hpp), the GPUs hidden before CUDA's start,
// and the notice for GPUs without peer access; no GPU needed.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "engine/gpu_selection.hpp"

namespace swat {
namespace {

TEST(GpuSelection, AllCountsAndLists) {
  EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("all"), 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("2"), 4), (std::vector<int>{0, 1}));
  EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("3,1"), 4), (std::vector<int>{3, 1}));
  EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("2,"), 4), (std::vector<int>{2}));
  EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("0,0"), 1), (std::vector<int>{0, 0}));  // two workers, one GPU
  EXPECT_EQ(device_list_text({0, 2}), "0,2");
  // The planner's count is "at most": fewer GPUs visible than it counted is no error (a user's
  // count beyond them is: BadValuesNameTheOption).
  EXPECT_EQ(resolve_gpu_selection(gpu_selection{false, 4, {}, true}, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(resolve_gpu_selection(gpu_selection{false, 2, {}, true}, 4), (std::vector<int>{0, 1}));
  EXPECT_THROW(resolve_gpu_selection(gpu_selection{false, 4, {}, false}, 2), usage_error);
}

TEST(GpuSelection, VisibleGpusAreCountedWithoutCuda) {
  const char* saved = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> keep = saved ? std::optional<std::string>(saved) : std::nullopt;
  ::setenv("CUDA_VISIBLE_DEVICES", "0,1,2", 1);
  EXPECT_EQ(visible_gpus_hint(), 3);
  ::setenv("CUDA_VISIBLE_DEVICES", "GPU-aa", 1);
  EXPECT_EQ(visible_gpus_hint(), 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_EQ(visible_gpus_hint(), 0);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_GE(visible_gpus_hint(), 0);  // the driver's GPUs, 0 on a machine without one
  if (keep) ::setenv("CUDA_VISIBLE_DEVICES", keep->c_str(), 1);
}

TEST(GpuSelection, LeadingCountIsTheFirstNDevicesInOrder) {
  EXPECT_EQ(leading_count(parse_gpu_selection("all")), 0);
  EXPECT_EQ(leading_count(parse_gpu_selection("2")), 2);
  EXPECT_EQ(leading_count(parse_gpu_selection("0,")), 1);
  EXPECT_EQ(leading_count(parse_gpu_selection("0,1,2")), 3);
  EXPECT_EQ(leading_count(parse_gpu_selection("1,")), 0);    // not the first
  EXPECT_EQ(leading_count(parse_gpu_selection("1,0")), 0);   // not in order
  EXPECT_EQ(leading_count(parse_gpu_selection("0,0")), 0);   // one GPU twice
  EXPECT_EQ(leading_count(parse_gpu_selection("0,2")), 0);
}

//! CUDA_VISIBLE_DEVICES after hide_gpus_after(count) from `before` (nullopt: unset), restored after.
std::optional<std::string> visible_after(const std::optional<std::string>& before, int count, bool& narrowed) {
  const char* saved = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> keep = saved ? std::optional<std::string>(saved) : std::nullopt;
  if (before) ::setenv("CUDA_VISIBLE_DEVICES", before->c_str(), 1);
  else ::unsetenv("CUDA_VISIBLE_DEVICES");
  narrowed = hide_gpus_after(count);
  const char* now = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> out = now ? std::optional<std::string>(now) : std::nullopt;
  if (keep) ::setenv("CUDA_VISIBLE_DEVICES", keep->c_str(), 1);
  else ::unsetenv("CUDA_VISIBLE_DEVICES");
  return out;
}

TEST(GpuSelection, HidingTheGpusAfterTheFirstNarrowsCudaVisibleDevices) {
  bool narrowed = false;
  EXPECT_EQ(visible_after(std::nullopt, 1, narrowed), std::optional<std::string>("0"));
  EXPECT_TRUE(narrowed);
  EXPECT_EQ(visible_after(std::nullopt, 3, narrowed), std::optional<std::string>("0,1,2"));
  EXPECT_EQ(visible_after(std::string("3,1,2"), 2, narrowed), std::optional<std::string>("3,1"));  // the user's order
  EXPECT_TRUE(narrowed);
  EXPECT_EQ(visible_after(std::string("GPU-aa,GPU-bb"), 1, narrowed), std::optional<std::string>("GPU-aa"));
  EXPECT_EQ(visible_after(std::string("2,3"), 2, narrowed), std::optional<std::string>("2,3"));  // nothing to hide
  EXPECT_FALSE(narrowed);
  EXPECT_EQ(visible_after(std::string("2"), 4, narrowed), std::optional<std::string>("2"));
  EXPECT_FALSE(narrowed);
  EXPECT_EQ(visible_after(std::string(""), 1, narrowed), std::optional<std::string>(""));  // none visible stays none
  EXPECT_FALSE(narrowed);
  EXPECT_EQ(visible_after(std::string("0,,1"), 2, narrowed), std::optional<std::string>("0,,1"));  // CUDA's own reading
  EXPECT_FALSE(narrowed);
  EXPECT_EQ(visible_after(std::nullopt, 0, narrowed), std::nullopt);
  EXPECT_FALSE(narrowed);
}

TEST(GpuSelection, BadValuesNameTheOption) {
  for (const char* bad : {"0", "-1", "x", "1,x", ",", "", "1.5"}) {
    try {
      (void)parse_gpu_selection(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("--gpus"), std::string::npos) << e.what();
    }
  }
  try {
    (void)resolve_gpu_selection(parse_gpu_selection("3"), 2);
    ADD_FAILURE() << "3 of 2";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("only 2 GPUs are visible"), std::string::npos) << e.what();
  }
  try {
    (void)resolve_gpu_selection(parse_gpu_selection("0,5"), 2);
    ADD_FAILURE() << "id 5 of 2";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)resolve_gpu_selection(parse_gpu_selection("all"), 0), usage_error);
}

TEST(GpuSelection, BandPathNoticeNamesTheGpusWithoutPeerAccess) {
  const auto all = [](int, int) { return true; };
  const auto none = [](int, int) { return false; };
  const auto only_01 = [](int a, int b) { return (a == 0 && b == 1) || (a == 1 && b == 0); };
  EXPECT_EQ(band_path_notice({0, 1}, all), "");
  EXPECT_EQ(band_path_notice({0}, none), "");     // one GPU: no hand-over between GPUs
  EXPECT_EQ(band_path_notice({0, 0}, none), "");  // a GPU and itself
  const std::string two = band_path_notice({0, 1}, none);
  EXPECT_NE(two.find("0 → 1"), std::string::npos) << two;
  EXPECT_NE(two.find("1 → 0"), std::string::npos) << two;  // bands cycle back to the first GPU
  EXPECT_NE(two.find("mapped host memory"), std::string::npos) << two;
  const std::string three = band_path_notice({0, 1, 2}, only_01);
  EXPECT_EQ(three.find("0 → 1"), std::string::npos) << three;
  EXPECT_NE(three.find("1 → 2"), std::string::npos) << three;
  EXPECT_NE(three.find("2 → 0"), std::string::npos) << three;
  const auto only_1011 = [](int a, int b) { return a == 10 && b == 11; };  // "0 → 1" inside "10 → 11"
  const std::string ids = band_path_notice({10, 11, 0, 1}, only_1011);
  EXPECT_NE(ids.find(", 0 → 1"), std::string::npos) << ids;
}

}  // namespace
}  // namespace swat
