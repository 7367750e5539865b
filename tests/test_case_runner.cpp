#include <gtest/gtest.h>

#include <atomic>

#include "harness/case_runner.h"
#include "tests/fake_backend.h"

using namespace optbench;
using namespace optbench::testing;
using json = nlohmann::json;

namespace {

struct Fixture {
  SimClock clock;
  FakeBackend backend{clock};
  std::atomic<bool> stop{false};
  MeasureConfig cfg = [] {
    MeasureConfig c = measure_config_for(Profile::quick);
    c.warmup_min_s = 0.01;  // simulated seconds
    c.warmup_max_s = 0.1;
    c.stopping = {10, 0.05, 5.0, 2000, 0.02, 0.95};
    c.stopping_resamples = 200;
    c.bootstrap_resamples = 500;
    return c;
  }();

  Variant variant(std::string name, double seconds, double noise, std::uint64_t seed, long fail_after = -1,
                  double value = 1.0) {
    return Variant{name, "", [=, this] {
                     return std::make_unique<FakeWork>(clock, seconds, noise, seed, fail_after, value);
                   }};
  }
  json run(const Case& c, double max_time = 5.0) { return run_case(c, backend, cfg, {max_time, std::nullopt}, stop); }
};

}  // namespace

TEST(CaseRunner, MeasuresTheRatioAndStopsOnPrecision) {
  Fixture f;
  Case c;
  c.name = "ratio";
  c.units.items = 10;
  c.variants = {f.variant("slow", 2e-3, 0.01, 1), f.variant("fast", 1e-3, 0.01, 2)};
  const json r = f.run(c);
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["stop_reason"], "precision");
  const auto& cmp = r["comparisons"][0];
  EXPECT_NEAR(cmp["speedup"].get<double>(), 2.0, 0.02);
  EXPECT_LE(cmp["ci_low"].get<double>(), cmp["speedup"].get<double>());
  EXPECT_GE(cmp["ci_high"].get<double>(), cmp["speedup"].get<double>());
  EXPECT_LE(cmp["rel_ci_width"].get<double>(), 0.02 * 1.5);  // final CI uses more resamples than the check
  EXPECT_TRUE(cmp["paired"].get<bool>());
  // Throughput derived from the units: 10 items per ~1 ms step.
  EXPECT_NEAR(r["variants"][1]["throughput"]["items_per_s"].get<double>(), 1e4, 200);
  // Samples are batches sized to the target sample time.
  EXPECT_GE(r["variants"][1]["iters_per_sample"].get<long>(), 1);
  EXPECT_EQ(r["variants"][0]["samples"]["host_s"].size(), r["variants"][1]["samples"]["host_s"].size());
}

TEST(CaseRunner, NoisyCaseHitsTheTimeCap) {
  Fixture f;
  Case c;
  c.name = "noisy";
  c.variants = {f.variant("a", 1e-3, 0.5, 3), f.variant("b", 1e-3, 0.5, 4)};
  // The cap is on real wall time; 0.2 s of it is many simulated rounds.
  const json r = f.run(c, 0.2);
  EXPECT_EQ(r["stop_reason"], "max_time");
  EXPECT_GT(r["comparisons"][0]["rel_ci_width"].get<double>(), 0.02);
}

TEST(CaseRunner, OutOfMemoryInOneVariantIsRecordedAndOthersGoOn) {
  Fixture f;
  Case c;
  c.name = "oom";
  c.variants = {f.variant("base", 1e-3, 0.01, 1), f.variant("greedy", 1e-3, 0.01, 2, 0),
                f.variant("ok", 5e-4, 0.01, 3)};
  const json r = f.run(c);
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["variants"][1]["status"], "oom");
  EXPECT_NE(r["variants"][1]["error"].get<std::string>().find("out of memory"), std::string::npos);
  EXPECT_TRUE(r["comparisons"][0]["speedup"].is_null());
  EXPECT_NEAR(r["comparisons"][1]["speedup"].get<double>(), 2.0, 0.05);
}

TEST(CaseRunner, BaselineFailureFailsTheCase) {
  Fixture f;
  Case c;
  c.name = "broken";
  c.variants = {f.variant("base", 1e-3, 0.01, 1, 0), f.variant("opt", 1e-3, 0.01, 2)};
  const json r = f.run(c);
  EXPECT_EQ(r["status"], "failed");
  EXPECT_NE(r["reason"].get<std::string>().find("baseline oom"), std::string::npos);
}

TEST(CaseRunner, VerificationFailureIsRecorded) {
  Fixture f;
  Case c;
  c.name = "wrong";
  c.tolerance = Tolerance{1e-3, 1e-5};
  c.variants = {f.variant("base", 1e-3, 0.01, 1, -1, 1.0), f.variant("wrong", 1e-3, 0.01, 2, -1, 1.1),
                f.variant("right", 1e-3, 0.01, 3, -1, 1.0)};
  const json r = f.run(c);
  EXPECT_EQ(r["comparisons"][0]["verification"]["status"], "failed");
  EXPECT_NEAR(r["comparisons"][0]["verification"]["max_abs_err"].get<double>(), 0.1, 1e-6);
  EXPECT_EQ(r["comparisons"][1]["verification"]["status"], "passed");
}

TEST(CaseRunner, CustomVerifyHook) {
  Fixture f;
  Case c;
  c.name = "hook";
  c.verify = [](std::vector<Workload*>& w) { return w.size() == 2 ? std::string("always wrong") : std::string(); };
  c.variants = {f.variant("base", 1e-3, 0.01, 1), f.variant("opt", 1e-3, 0.01, 2)};
  const json r = f.run(c);
  EXPECT_EQ(r["comparisons"][0]["verification"]["status"], "failed");
  EXPECT_EQ(r["comparisons"][0]["verification"]["message"], "always wrong");
}

TEST(CaseRunner, InterruptKeepsWhatWasMeasured) {
  Fixture f;
  f.stop = true;
  Case c;
  c.name = "interrupted";
  c.variants = {f.variant("a", 1e-3, 0.01, 1)};
  const json r = f.run(c);
  EXPECT_EQ(r["status"], "interrupted");
  EXPECT_EQ(r["stop_reason"], "interrupted");
}

TEST(CaseRunner, SkippedCaseRunsNothing) {
  Fixture f;
  Case c;
  c.name = "skip";
  c.skip_reason = "needs a GPU";
  c.variants = {f.variant("a", 1e-3, 0.01, 1)};
  const json r = f.run(c);
  EXPECT_EQ(r["status"], "skipped");
  EXPECT_EQ(f.clock.now, 0.0);
}

TEST(CaseRunner, SingleVariantStopsOnMedianPrecision) {
  Fixture f;
  Case c;
  c.name = "single";
  c.variants = {f.variant("only", 1e-3, 0.01, 1)};
  const json r = f.run(c);
  EXPECT_EQ(r["stop_reason"], "precision");
  EXPECT_TRUE(r["comparisons"].empty());
  EXPECT_NEAR(r["variants"][0]["stats"]["median"].get<double>(), 1e-3, 2e-5);
}
