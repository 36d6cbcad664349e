// The engine registry and option resolution (CI, no GPU): --kernel names and aliases, --kernel
// auto, --sync and --tile checked whatever the device, notices for options that do not apply,
// and what build_engine() does without a usable GPU.

#include "engine/registry.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"

namespace swat {
namespace {

class named_engine final : public engine {
 public:
  explicit named_engine(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  alignment align(residue_span, residue_span, const scoring_scheme&) override { return {}; }

 private:
  std::string name_;
};

engine_entry entry(std::string name, engine_target target, int rank, bool sync, bool tile) {
  engine_entry e;
  e.name = name;
  e.target = target;
  e.auto_rank = rank;
  e.takes_sync = sync;
  e.takes_tile = tile;
  e.make = [name](const engine_options&) -> std::unique_ptr<engine> { return std::make_unique<named_engine>(name); };
  return e;
}

//! cpu, fast (auto), diagonal (alias simple), coalesced (auto with --sync), tiled (--tile 1..128).
engine_registry gpu_registry(int devices) {
  engine_registry r;
  r.add(entry("cpu", engine_target::cpu, 0, false, false));
  r.add(entry("fast", engine_target::gpu, 3, false, false));
  engine_entry diagonal = entry("diagonal", engine_target::gpu, 0, true, false);
  diagonal.aliases = {"simple"};
  r.add(diagonal);
  r.add(entry("coalesced", engine_target::gpu, 2, true, false));
  engine_entry tiled = entry("tiled", engine_target::gpu, 0, true, true);
  tiled.check = [](const engine_options& o) {
    if (o.tile < 0 || o.tile > 128) throw usage_error("--tile " + std::to_string(o.tile) + " is outside 1..128");
  };
  r.add(tiled);
  r.set_device_count([devices] { return devices; });
  return r;
}

engine_options with_sync(sync_mode m) {
  engine_options o;
  o.sync = m;
  return o;
}

std::string usage_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const usage_error& e) {
    return e.what();
  }
  return "no usage_error";
}

TEST(EngineRegistry, NamesAliasesAndDuplicates) {
  engine_registry r = gpu_registry(1);
  EXPECT_EQ(r.find("simple"), r.find("diagonal"));
  EXPECT_EQ(r.find("bogus"), nullptr);
  EXPECT_EQ(r.cpu_engine()->name, "cpu");
  EXPECT_EQ(r.gpu_names(), "fast, diagonal, coalesced, tiled");
  EXPECT_THROW(r.add(entry("fast", engine_target::gpu, 0, false, false)), std::logic_error);
  engine_entry no_factory;
  no_factory.name = "x";
  EXPECT_THROW(r.add(no_factory), std::logic_error);
}

TEST(EngineRegistry, AutoPicksTheHighestRankThatTakesTheOptions) {
  const engine_registry r = gpu_registry(1);
  const device_choice gpu{device_kind::gpu, 0};
  EXPECT_EQ(plan_engine(r, gpu, "auto", {}).gpu->name, "fast");
  EXPECT_EQ(plan_engine(r, gpu, "auto", with_sync(sync_mode::lastin)).gpu->name, "coalesced");
  EXPECT_EQ(plan_engine(r, gpu, "simple", with_sync(sync_mode::cg)).gpu->name, "diagonal");
}

TEST(EngineRegistry, BadOptionsAreUsageErrorsWhateverTheDevice) {
  const engine_registry r = gpu_registry(0);
  for (device_kind kind : {device_kind::cpu, device_kind::gpu, device_kind::auto_select}) {
    const device_choice d{kind, 0};
    std::string what = usage_message([&] { plan_engine(r, d, "bogus", {}); });
    EXPECT_NE(what.find("--kernel 'bogus'"), std::string::npos) << what;
    EXPECT_NE(what.find("fast, diagonal, coalesced, tiled, auto"), std::string::npos) << what;
    what = usage_message([&] { plan_engine(r, d, "fast", with_sync(sync_mode::cg)); });
    EXPECT_NE(what.find("--sync"), std::string::npos) << what;
    EXPECT_NE(what.find("diagonal|coalesced|tiled"), std::string::npos) << what;
    engine_options big_tile;
    big_tile.tile = 1000;
    what = usage_message([&] { plan_engine(r, d, "tiled", big_tile); });
    EXPECT_NE(what.find("--tile"), std::string::npos) << what;
    EXPECT_THROW(plan_engine(r, d, "cpu", {}), usage_error);  // the CPU engine is not a --kernel
  }
}

TEST(EngineRegistry, OptionsThatDoNotApplyBecomeNotices) {
  const engine_registry r = gpu_registry(1);
  engine_options tile;
  tile.tile = 16;
  engine_plan p = plan_engine(r, {device_kind::gpu, 0}, "fast", tile);
  ASSERT_EQ(p.notices.size(), 1u);
  EXPECT_NE(p.notices[0].find("--tile"), std::string::npos);
  EXPECT_TRUE(plan_engine(r, {device_kind::gpu, 0}, "tiled", tile).notices.empty());
  p = plan_engine(r, {device_kind::cpu, 0}, "coalesced", with_sync(sync_mode::flag));
  ASSERT_EQ(p.notices.size(), 1u);
  EXPECT_NE(p.notices[0].find("--device cpu"), std::string::npos);
  EXPECT_TRUE(plan_engine(r, {device_kind::cpu, 0}, "auto", {}).notices.empty());
}

TEST(EngineRegistry, BuildEngineWithAndWithoutAGpu) {
  std::vector<std::string> notices;
  const notice_fn notice = [&](const std::string& n) { notices.push_back(n); };
  const engine_registry none = gpu_registry(0), one = gpu_registry(1);
  EXPECT_EQ(build_engine(plan_engine(one, {device_kind::gpu, 0}, "auto", {}), notice)->name(), "fast");
  EXPECT_EQ(build_engine(plan_engine(one, {device_kind::cpu, 0}, "auto", {}), notice)->name(), "cpu");
  EXPECT_TRUE(notices.empty());
  EXPECT_EQ(build_engine(plan_engine(none, {device_kind::auto_select, 0}, "auto", {}), notice)->name(), "cpu");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0], "no CUDA device found; aligning on the CPU");
  std::string what = usage_message([&] { build_engine(plan_engine(none, {device_kind::gpu, 0}, "auto", {}), notice); });
  EXPECT_EQ(what, "--device gpu: no CUDA device found (use --device cpu)");
  what = usage_message([&] { build_engine(plan_engine(one, {device_kind::gpu, 3}, "auto", {}), notice); });
  EXPECT_NE(what.find("CUDA device 3 not found (1 visible)"), std::string::npos) << what;
  engine_registry cpu_only;
  cpu_only.add(entry("cpu", engine_target::cpu, 0, false, false));
  what = usage_message([&] { build_engine(plan_engine(cpu_only, {device_kind::gpu, 0}, "auto", {}), notice); });
  EXPECT_NE(what.find("SWAT_WITH_CUDA=OFF"), std::string::npos) << what;
  EXPECT_THROW(plan_engine(cpu_only, {device_kind::cpu, 0}, "auto", with_sync(sync_mode::cg)), usage_error);
}

TEST(EngineRegistry, DeviceChoices) {
  EXPECT_EQ(parse_device_choice("cpu").kind, device_kind::cpu);
  EXPECT_EQ(parse_device_choice("auto").kind, device_kind::auto_select);
  const device_choice g = parse_device_choice("gpu:2");
  EXPECT_EQ(g.kind, device_kind::gpu);
  EXPECT_EQ(g.gpu_id, 2);
  for (const char* bad : {"tpu", "gpu:", "gpu:-1", "gpu:x", "GPU"}) {
    const std::string what = usage_message([&] { parse_device_choice(bad); });
    EXPECT_NE(what.find("--device"), std::string::npos) << bad << ": " << what;
  }
}

}  // namespace
}  // namespace swat
