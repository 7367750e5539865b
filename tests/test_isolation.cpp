#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>

#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "harness/seeding.h"
#include "harness/stats.h"
#include "tests/isolation_probe.h"

using namespace optbench;
using json = nlohmann::json;

namespace {

json run_probe(const std::string& case_name, bool isolate, bool breakdown = false, int cold_processes = 0) {
  auto probe = optbench::testing::make_isolation_probe();
  const RunContext ctx{DeviceKind::cpu, RunProfile::quick};
  auto cases = build_cases(*probe, ctx);  // as the suite does
  Case c = *std::find_if(cases.begin(), cases.end(), [&](const Case& x) { return x.name == case_name; });
  c.isolate = isolate;
  MeasureConfig cfg = measure_config_for(RunProfile::quick);
  if (breakdown) cfg.breakdown.mode = profiling::BreakdownMode::on;
  c.cold_first_step = cold_processes > 0;
  if (cold_processes > 0) cfg.cold_processes = cold_processes;
  auto backend = make_backend(DeviceKind::cpu);
  std::atomic<bool> stop{false};
  const CaseLimits limits{0.2, std::nullopt, WorkerOrigin{OPTBENCH_PROBE_BIN, "isolation_probe", ctx}};
  return to_json(run_case(c, *backend, cfg, limits, stop));
}

}  // namespace

// Isolated: every variant is built, first-run and sampled in a fresh process of
// its own, and says so; verification still runs (on rebuilt workloads).
TEST(Isolation, EachVariantInAFreshProcess) {
  const json r = run_probe("probe", true);
  ASSERT_EQ(r["status"], "ok") << r.dump(1);
  EXPECT_EQ(r["isolation"], "process_per_variant");
  const auto& a = r["variants"][0];
  const auto& b = r["variants"][1];
  EXPECT_EQ(a["process"], "fresh");
  EXPECT_TRUE(a["metrics"]["fresh_process"].get<bool>());
  EXPECT_TRUE(b["metrics"]["fresh_process"].get<bool>());
  EXPECT_NE(a["metrics"]["pid"], b["metrics"]["pid"]);
  EXPECT_NE(a["metrics"]["pid"].get<int>(), getpid());
  EXPECT_FALSE(a["samples"]["host_s"].empty());
  EXPECT_EQ(r["comparisons"][0]["verification"]["status"], "passed");
}

// In one process the second variant finds what the first left behind: the
// order dependence isolation exists to remove.
TEST(Isolation, SharedProcessIsNotFresh) {
  const json r = run_probe("probe", false);
  ASSERT_EQ(r["status"], "ok");
  EXPECT_EQ(r["variants"][1]["process"], "shared");
  EXPECT_FALSE(r["variants"][1]["metrics"]["fresh_process"].get<bool>());
}

// Inputs drawn from the default generators are the same in every process and
// for every variant: a worker's case and its variant's build see what the parent
// and a shared-process run see (LibTorch seeds those generators from the OS).
TEST(Isolation, EveryProcessDrawsTheSameData) {
  const json iso = run_probe("probe", true), shared = run_probe("probe", false);
  ASSERT_EQ(iso["status"], "ok");
  ASSERT_EQ(shared["status"], "ok");
  const double case_draw = iso["params"]["case_draw"];
  for (const json* r : {&iso, &shared}) {
    EXPECT_EQ((*r)["params"]["case_draw"].get<double>(), case_draw);
    for (const auto& v : (*r)["variants"]) {
      EXPECT_EQ(v["metrics"]["case_draw"].get<double>(), case_draw) << v["process"];
      EXPECT_EQ(v["metrics"]["draw"], iso["variants"][0]["metrics"]["draw"]) << v["process"];
    }
  }
}

// A worker that dies is an error of its variant; the others are kept.
TEST(Isolation, DeadWorkerIsRecordedAndTheOthersGoOn) {
  const json r = run_probe("crash", true);
  ASSERT_EQ(r["status"], "ok");
  EXPECT_EQ(r["variants"][2]["status"], "error");
  EXPECT_NE(r["variants"][2]["error"].get<std::string>().find("signal"), std::string::npos);
  EXPECT_EQ(r["variants"][1]["status"], "ok");
  EXPECT_TRUE(r["comparisons"][0]["speedup"].is_number());
}

// The profiled window of an isolated variant runs in its worker, after its
// samples, and comes back over the pipe like a sample.
TEST(Isolation, ProfiledWindowRunsInTheWorker) {
  const json r = run_probe("probe", true, /*breakdown=*/true);
  ASSERT_EQ(r["status"], "ok") << r.dump(1);
  for (const auto& v : r["variants"]) {
    EXPECT_EQ(v["process"], "fresh");
    ASSERT_TRUE(v.contains("breakdown")) << v.dump(1);
    EXPECT_EQ(v["breakdown"]["status"], "ok") << v["breakdown"].dump();
    EXPECT_EQ(v["breakdown"]["device"], "cpu");
    EXPECT_GT(v["breakdown"]["window_step_s"].get<double>(), 0.0);
  }
}

// A cold first step is one observation per process: where a case derives from
// one, each variant's is taken in cold_processes fresh processes (the timed one
// and more) and the median kept. The probe's first step is slow only in a
// fresh process, so every entry shows it.
TEST(Isolation, ColdFirstStepsComeFromSeveralFreshProcesses) {
  const json r = run_probe("probe", true, false, 3);
  ASSERT_EQ(r["status"], "ok") << r.dump(1);
  for (const auto& v : r["variants"]) {
    ASSERT_TRUE(v.contains("cold_first_runs_s")) << v.dump(1);
    const auto runs = v["cold_first_runs_s"].get<std::vector<double>>();
    ASSERT_EQ(runs.size(), 3u);
    for (double s : runs) EXPECT_GE(s, optbench::testing::kColdFirstStepMs * 1e-3);
    EXPECT_DOUBLE_EQ(v["cold_first_run_s"].get<double>(), median(runs));
  }
  EXPECT_GT(r["time_s"]["cold_first_steps"].get<double>(), 0.0);
  // A case that derives nothing from its first step takes no more processes.
  const json plain = run_probe("probe", true);
  EXPECT_FALSE(plain["variants"][0].contains("cold_first_runs_s"));
  EXPECT_FALSE(plain["time_s"].contains("cold_first_steps"));
}

// The crash-isolation parent runs no case: its backend is the clock alone, so on a
// GPU it holds no context beside its children's (device.h, make_clock_backend).
// Every guarded run in the CLI tests goes through it: a case timed there would throw.
TEST(Isolation, TheGuardsParentKeepsTheClockAndTimesNothing) {
  auto clock = make_clock_backend(DeviceKind::cpu);
  EXPECT_EQ(clock->kind(), DeviceKind::cpu);
  EXPECT_GT(clock->now(), 0.0);
  EXPECT_FALSE(clock->peak_memory().has_value());
  EXPECT_THROW(clock->time([] {}, 1, TimingMode::batched), std::logic_error);
  if (!cuda_available()) {
    EXPECT_THROW(make_clock_backend(DeviceKind::cuda), std::runtime_error);
  }
}
