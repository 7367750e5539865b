#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <functional>

#include "harness/budget_plan.h"
#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "harness/out_of_process.h"
#include "harness/variant_runner.h"
#include "tests/fake_backend.h"

using namespace optbench;
using namespace optbench::testing;
using json = nlohmann::json;

namespace {

struct Fixture : SimulatedRun {
  Variant variant(std::string name, double seconds, double noise, std::uint64_t seed, long fail_after = -1,
                  double value = 1.0) {
    return Variant{name, "",
                   [=, this] { return std::make_unique<FakeWork>(clock, seconds, noise, seed, fail_after, value); }};
  }
  json run(const Case& c, double max_time = 5.0, std::optional<double> deadline = std::nullopt) {
    return to_json(run_case(c, backend, cfg, {max_time, deadline, std::nullopt}, stop));
  }
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
  EXPECT_LE(cmp["ci_low"].get<double>(), 2.0);
  EXPECT_GE(cmp["ci_high"].get<double>(), 2.0);
  EXPECT_LE(cmp["ci_low"].get<double>(), cmp["speedup"].get<double>());
  EXPECT_GE(cmp["ci_high"].get<double>(), cmp["speedup"].get<double>());
  EXPECT_LE(cmp["rel_ci_width"].get<double>(), 0.02);  // the reported CI is the one that stopped the case
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
  // The cap is on the backend's (simulated) clock: 0.2 s is about 100 rounds.
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

// Issue 40: an allocation that fails while checking a variant's outputs says
// nothing about its numbers: the variant is `oom` and its comparison unchecked
// (no verdict), never VERIFY-FAILED; the other variant is still checked.
TEST(CaseRunner, OutOfMemoryWhileVerifyingIsAnOomNotAFailedCheck) {
  Fixture f;
  Case c;
  c.name = "verify_oom";
  // The check of the variant whose outputs are 2 runs out of memory.
  c.verify = [](std::vector<Workload*>& w) -> CheckResult {
    if (w[1]->output()[0].item<double>() > 1.5) throw std::bad_alloc();
    return {};
  };
  c.variants = {f.variant("base", 1e-3, 0.01, 1, -1, 1.0), f.variant("greedy", 1e-3, 0.01, 2, -1, 2.0),
                f.variant("fine", 1e-3, 0.01, 3, -1, 1.0)};
  const json r = f.run(c);
  EXPECT_EQ(r["variants"][1]["status"], "oom");
  EXPECT_NE(r["variants"][1]["error"].get<std::string>().find("out of memory while verifying"), std::string::npos);
  EXPECT_EQ(r["comparisons"][0]["verification"]["status"], "not_checked");
  EXPECT_EQ(r["comparisons"][1]["verification"]["status"], "passed");
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

namespace {

// A step that also burns real time, as on a loaded or slow machine.
class SlowMachineWork final : public Workload {
 public:
  SlowMachineWork(std::unique_ptr<Workload> inner, int spin) : inner_(std::move(inner)), spin_(spin) {}
  void step() override {
    volatile double x = 0;
    for (int i = 0; i < spin_; ++i) x = x + std::sqrt(static_cast<double>(i));
    inner_->step();
  }
  at::Tensor output() override { return inner_->output(); }

 private:
  std::unique_ptr<Workload> inner_;
  int spin_;
};

json run_with_spin(int spin) {
  Fixture f;
  Case c;
  c.name = "ratio";
  for (auto [name, secs, seed] : {std::tuple{"slow", 2e-3, 1}, std::tuple{"fast", 1e-3, 2}}) {
    auto inner = f.variant(name, secs, 0.01, seed).make;
    c.variants.push_back(Variant{name, "", [inner, spin] { return std::make_unique<SlowMachineWork>(inner(), spin); }});
  }
  return f.run(c);
}

}  // namespace

// The runner's outcome must not depend on the speed of the machine: warm-up,
// caps and stopping run on the backend's clock, which the fake simulates.
TEST(CaseRunner, OutcomeDoesNotDependOnMachineSpeed) {
  const json quick = run_with_spin(0), loaded = run_with_spin(200000);
  EXPECT_EQ(quick["rounds"], loaded["rounds"]);
  EXPECT_EQ(quick["variants"][0]["warmup"]["iters"], loaded["variants"][0]["warmup"]["iters"]);
  EXPECT_EQ(quick["comparisons"][0]["speedup"], loaded["comparisons"][0]["speedup"]);
}

// A precision stop reports the interval that decided it, at the stated target,
// whatever the seed.
TEST(CaseRunner, PrecisionStopReportsTheDecidingInterval) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Fixture f;
    f.cfg.seed = seed;
    Case c;
    c.name = "ratio";
    c.variants = {f.variant("a", 2e-3, 0.02, seed), f.variant("b", 1e-3, 0.02, seed + 100),
                  f.variant("c", 1.5e-3, 0.02, seed + 200)};
    const json r = f.run(c, 60.0);
    ASSERT_EQ(r["stop_reason"], "precision") << "seed " << seed;
    for (const auto& cmp : r["comparisons"])
      EXPECT_LE(cmp["rel_ci_width"].get<double>(), f.cfg.stopping.target_rel_ci) << "seed " << seed;
  }
}

// Coverage of the reported 95% interval when the case stops on precision, over
// many simulated cases (true speedup 2): optional stopping must not eat it.
TEST(CaseRunner, StoppingRuleKeepsItsCoverage) {
  int covered = 0, stopped = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Fixture f;
    f.cfg.seed = seed;
    f.cfg.stopping.min_samples = 1;  // the rule's own floor is what is under test
    Case c;
    c.name = "cov";
    c.variants = {f.variant("a", 2e-3, 0.01, seed * 2), f.variant("b", 1e-3, 0.01, seed * 2 + 1)};
    const json r = f.run(c, 60.0);
    if (r["stop_reason"] != "precision") continue;
    ++stopped;
    const auto& cmp = r["comparisons"][0];
    covered += cmp["ci_low"].get<double>() <= 2.0 && 2.0 <= cmp["ci_high"].get<double>();
  }
  ASSERT_GE(stopped, 290);
  std::printf("coverage %.3f over %d cases stopped on precision\n", covered / static_cast<double>(stopped), stopped);
  // 300 cases at 95%: standard error 1.3%.
  EXPECT_GE(covered / static_cast<double>(stopped), 0.92);
}

// --time-budget: the run's deadline stops sampling at once and starts nothing
// after it; what was not started is recorded as not run for the budget.
TEST(CaseRunner, DeadlineStopsSamplingAndLeavesTheRestNotRun) {
  Fixture f;
  Case c;
  c.name = "budget";
  c.tolerance = Tolerance{1e-3, 1e-5};
  c.variants = {f.variant("a", 1e-3, 0.5, 1), f.variant("b", 1e-3, 0.5, 2)};
  const json r = f.run(c, 100.0, /*deadline=*/0.5);
  EXPECT_EQ(r["stop_reason"], "budget");
  EXPECT_LE(f.clock.now, 0.5 + 0.01);  // at most one sample past the deadline
  EXPECT_EQ(r["comparisons"][0]["verification"]["status"], "not_checked");

  Fixture late;
  late.clock.now = 1.0;
  const json none = late.run(c, 100.0, 0.5);
  EXPECT_EQ(none["status"], "not_run");
  EXPECT_EQ(none["variants"][1]["status"], "not_run");
  EXPECT_NE(none["reason"].get<std::string>().find("budget"), std::string::npos);
}

// Each variant's peak memory is its own footprint: blocks an earlier variant
// freed into the cache are released before the next is prepared.
TEST(CaseRunner, PeakMemoryIsEachVariantsOwn) {
  Fixture f;
  SimAllocator mem;
  FakeBackend backend(f.clock, &mem);
  Case c;
  c.name = "memory";
  auto sized = [&](std::string name, std::int64_t bytes, std::uint64_t seed) {
    return Variant{name, "", [&f, &mem, bytes, seed] {
                     return std::make_unique<FakeWork>(f.clock, 1e-3, 0.01, seed, -1, 1.0, &mem, bytes);
                   }};
  };
  c.variants = {sized("big", 1000, 1), sized("small", 100, 2), sized("same", 1000, 3)};
  const json r = to_json(run_case(c, backend, f.cfg, {5.0, std::nullopt, std::nullopt}, f.stop));
  for (int i : {0, 1, 2}) {
    const std::int64_t want = i == 1 ? 100 : 1000;
    EXPECT_EQ(r["variants"][i]["memory"]["peak_allocated_bytes"], want) << i;
    EXPECT_EQ(r["variants"][i]["memory"]["peak_reserved_bytes"], want) << i;
  }
}

namespace {
std::uint64_t g_reasons = 0;  // what the fake NVML reports, set by the running step

class ThrottledWork final : public Workload {
 public:
  ThrottledWork(SimClock& clock, std::uint64_t reasons, std::function<void()> on_step = {})
      : clock_(clock), reasons_(reasons), on_step_(std::move(on_step)) {}
  void step() override {
    g_reasons = reasons_;
    if (on_step_) on_step_();
    clock_.now += 1e-3;
  }

 private:
  SimClock& clock_;
  std::uint64_t reasons_;
  std::function<void()> on_step_;
};
}  // namespace

// Clock-event reasons are kept per sample and summarised per variant, so a
// variant that ran power-capped is told apart from one that did not.
TEST(CaseRunner, ThrottleSharePerVariant) {
  Fixture f;
  f.backend.set_clock_reasons([] { return g_reasons; });
  Case c;
  c.name = "throttle";
  c.variants = {Variant{"capped", "", [&f] { return std::make_unique<ThrottledWork>(f.clock, 0x4); }},
                Variant{"hot", "", [&f] { return std::make_unique<ThrottledWork>(f.clock, 0x40 | 0x1); }},
                Variant{"free", "", [&f] { return std::make_unique<ThrottledWork>(f.clock, 0x1); }}};
  const json r = f.run(c);
  EXPECT_EQ(r["variants"][0]["throttle"]["power"], 1.0);
  EXPECT_EQ(r["variants"][0]["throttle"]["thermal"], 0.0);
  EXPECT_EQ(r["variants"][1]["throttle"]["thermal"], 1.0);
  EXPECT_EQ(r["variants"][2]["throttle"]["power"], 0.0);  // idle is not throttling
  EXPECT_EQ(r["variants"][2]["throttle"]["thermal"], 0.0);
  EXPECT_EQ(r["variants"][0]["samples"]["clock_event_reasons"].size(), r["variants"][0]["samples"]["host_s"].size());
  EXPECT_EQ(r["variants"][0]["throttle"]["read"], "during_work");  // a batch: read while it runs
  // A sync sample's reasons are read after its work (sample_sequence.cpp): the record says so.
  c.variants[2].timing = TimingMode::sync;
  const json s = f.run(c);
  EXPECT_EQ(s["variants"][0]["throttle"]["read"], "during_work");
  EXPECT_EQ(s["variants"][2]["throttle"]["read"], "after_work");
}

// Checklist row 12: what nvidia-smi would have shown beside each variant, from
// the NVML reads of its own samples (the fake reads what the running step set).
TEST(CaseRunner, NvidiaSmiFiguresPerVariant) {
  Fixture f;
  double util = 0;
  f.backend.set_smi([&util](Sample& s) {
    s.gpu_util_pct = util;
    s.memory_util_pct = util / 2;
    s.power_w = 3 * util;
    s.sm_clock_mhz = 1980;
  });
  Case c;
  c.name = "smi";
  c.variants = {
      Variant{"busy", "", [&] { return std::make_unique<ThrottledWork>(f.clock, 0, [&util] { util = 100; }); }},
      Variant{"idle", "", [&] { return std::make_unique<ThrottledWork>(f.clock, 0, [&util] { util = 40; }); }}};
  const json r = f.run(c);
  const json& busy = r["variants"][0]["nvidia_smi"];
  EXPECT_EQ(busy["gpu_util_pct"]["median"], 100.0);
  EXPECT_EQ(busy["memory_util_pct"]["min"], 50.0);
  EXPECT_EQ(busy["power_w"]["median"], 300.0);
  EXPECT_EQ(busy["sm_clock_mhz"]["median"], 1980.0);
  EXPECT_EQ(busy["samples"], r["variants"][0]["samples"]["host_s"].size());
  EXPECT_EQ(r["variants"][1]["nvidia_smi"]["gpu_util_pct"]["median"], 40.0);
  // Without NVML (a CPU run) there is nothing to show, and nothing is made up.
  Fixture g;
  Case plain;
  plain.name = "no_nvml";
  plain.variants = {Variant{"a", "", [&g] { return std::make_unique<ThrottledWork>(g.clock, 0); }},
                    Variant{"b", "", [&g] { return std::make_unique<ThrottledWork>(g.clock, 0); }}};
  EXPECT_FALSE(g.run(plain)["variants"][0].contains("nvidia_smi"));
}

// A variant can be timed in another mode than its case (a pinned copy with
// events over a batch beside a pageable one in sync mode).
TEST(CaseRunner, VariantTimingModeOverridesTheCase) {
  Fixture f;
  Case c;
  c.name = "modes";
  c.timing = TimingMode::sync;
  c.variants = {f.variant("blocking", 2e-3, 0.01, 1), f.variant("async", 1e-3, 0.01, 2)};
  c.variants[1].timing = TimingMode::batched;
  const json r = f.run(c);
  EXPECT_EQ(r["variants"][0]["timing_mode"], "sync");
  EXPECT_EQ(r["variants"][1]["timing_mode"], "batched");
}

// Under a budget a case gets the rounds floor or nothing. On a simulated clock:
// a cheap case stops on precision inside its share and leaves the rest to the
// cases after it (their shares grow); a case whose six rounds cannot fit what is
// left is recorded as not run (budget), with no ratio, instead of one round; and
// with the time there, a slow case gets its six rounds even past its share.
TEST(BudgetPlan, DropsACaseRatherThanStarvingItAndPassesUnusedTimeOn) {
  auto make = [](Fixture& f, const std::string& name, double step) {
    Case c;
    c.name = name;
    c.tolerance = Tolerance{1e-3, 1e-5};
    c.variants = {f.variant("a", step, 0.01, 1), f.variant("b", step / 2, 0.01, 2)};
    return c;
  };
  auto run_all = [&](Fixture& f, double deadline) {
    std::vector<Case> cases = {make(f, "cheap", 1e-3), make(f, "cheap2", 1e-3), make(f, "slow", 0.4)};
    std::vector<double> shares;
    std::vector<json> results;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const BudgetState b{deadline - f.clock.now, cases.size() - i, 0, cases.size(), 1};
      shares.push_back(case_share_s(b, 5.0));
      results.push_back(to_json(run_case(cases[i], f.backend, f.cfg, {shares.back(), deadline, std::nullopt}, f.stop)));
    }
    return std::make_pair(shares, results);
  };

  Fixture tight;
  const auto [shares, results] = run_all(tight, 3.0);
  EXPECT_EQ(results[0]["stop_reason"], "precision");
  EXPECT_GT(shares[1], shares[0]);  // what the first case did not use
  EXPECT_GT(shares[2], shares[0]);
  EXPECT_EQ(results[2]["status"], "not_run") << results[2].dump();
  EXPECT_NE(results[2]["reason"].get<std::string>().find("budget"), std::string::npos);
  EXPECT_NE(results[2]["reason"].get<std::string>().find("6 rounds"), std::string::npos) << results[2]["reason"];
  for (const auto& r : results)
    for (const auto& c : r.value("comparisons", json::array()))
      if (c["speedup"].is_number()) {
        EXPECT_GE(c["rounds"].get<int>(), 6) << r["name"];
      }
  EXPECT_LE(tight.clock.now, 3.0 + 0.5);

  Fixture ample;
  const auto [shares2, results2] = run_all(ample, 20.0);
  EXPECT_EQ(results2[2]["status"], "ok");
  EXPECT_GE(results2[2]["rounds"].get<int>(), 6);
  EXPECT_FALSE(results2[2]["comparisons"][0].value("below_floor", false));
  EXPECT_TRUE(results2[2]["comparisons"][0]["ci_low"].is_number());
  // Where the time went, and nothing lost.
  const auto& t = results2[2]["time_s"];
  const double sum = t["build"].get<double>() + t["warmup"].get<double>() + t["sampling"].get<double>() +
                     t["verification"].get<double>() + t["other"].get<double>();
  EXPECT_NEAR(sum, results2[2]["wall_s"].get<double>(), 1e-9);
  EXPECT_GT(t["sampling"].get<double>(), 6 * 0.6 * 0.9);
}

// A case stopped below the floor (here by a max_samples of 3) keeps its ratio
// and its rounds, with no interval.
TEST(CaseRunner, BelowTheFloorARatioHasNoInterval) {
  Fixture f;
  f.cfg.stopping.min_samples = 1;
  f.cfg.stopping.max_samples = 3;
  Case c;
  c.name = "short";
  c.variants = {f.variant("a", 1e-3, 0.01, 1), f.variant("b", 5e-4, 0.01, 2)};
  const json r = f.run(c);
  EXPECT_EQ(r["stop_reason"], "max_samples");
  const auto& cmp = r["comparisons"][0];
  ASSERT_TRUE(cmp["speedup"].is_number()) << r.dump();
  EXPECT_EQ(cmp["rounds"].get<int>(), 3);
  EXPECT_EQ(cmp["rounds_floor"].get<int>(), 6);
  EXPECT_TRUE(cmp["below_floor"].get<bool>());
  EXPECT_TRUE(cmp["ci_low"].is_null());
  EXPECT_TRUE(cmp["ci_high"].is_null());
}

namespace {

// A workload whose steps run in another process (as a Python twin's do): the
// simulated clock advances, and this process's allocator sees what little the
// client side allocates.
class FakeTwin final : public Workload, public OutOfProcessWork {
 public:
  FakeTwin(SimClock& clock, SimAllocator& mem) : inner_(clock, 1e-3, 0.0, 7), mem_(mem) { mem_.allocate(64); }
  void step() override { inner_.step(); }
  std::string runs_in() const override { return "a Python process of its own"; }

 private:
  FakeWork inner_;
  SimAllocator& mem_;
};

}  // namespace

// On a GPU, events on this process's stream around a twin's request time an empty
// stream, and its allocator never sees the twin's tensors: neither is the twin's.
TEST(CaseRunner, WorkInAnotherProcessRecordsNoDeviceTimeMemoryOrFaultsOfThisOne) {
  SimClock clock;
  SimAllocator mem;
  FakeBackend gpu(clock, &mem);
  gpu.pose_as(DeviceKind::cuda);
  gpu.record_events(true);
  const PrepareSpec spec{TimingMode::sync, false, 0.01, 0.1, 0.01, 1000};
  const Variant twin{"python_eager", "", [&] { return std::make_unique<FakeTwin>(clock, mem); }};
  const Variant here{"eager", "", [&] { return std::make_unique<FakeWork>(clock, 1e-3, 0.0, 7, -1, 1.0, &mem, 64); }};
  auto out = make_in_process_runner(twin, gpu);
  const Prepared p = out->prepare(spec);
  ASSERT_EQ(p.status, "ok");
  EXPECT_FALSE(p.memory.has_value());
  const Sample s = out->sample(p.iters, TimingMode::sync);
  EXPECT_GT(s.host_s, 0.0);
  EXPECT_FALSE(s.device_s.has_value());
  EXPECT_FALSE(s.minor_faults.has_value());
  // The same backend records all three for work in this process.
  auto in = make_in_process_runner(here, gpu);
  const Prepared q = in->prepare(spec);
  EXPECT_TRUE(q.memory.has_value());
  const Sample t = in->sample(q.iters, TimingMode::sync);
  EXPECT_TRUE(t.device_s.has_value() && t.minor_faults.has_value());
}
