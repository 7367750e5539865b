// The run plan (harness/run_plan.h): what a run of a profile costs, from what an
// earlier run recorded; and that the suite's process-time share reads the same
// figure, so a cost planted in a record moves the plan and the gate alike.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/budget_plan.h"
#include "harness/measure_config.h"
#include "harness/run_plan.h"
#include "harness/stopping_rule.h"

using namespace optbench;
using json = nlohmann::json;

namespace {

json variant(const std::string& name, double step_s, double warmup_s) {
  return {{"name", name},
          {"status", "ok"},
          {"first_run_s", 2 * step_s},
          {"iters_per_sample", 1},
          {"warmup", {{"seconds", warmup_s}}},
          {"stats", {{"median", step_s}}}};
}

// One case of a baseline and two variants, 0.1 s a step each, recorded with a time_s split.
json a_case(const std::string& name, double build_s) {
  return {{"name", name},
          {"status", "ok"},
          {"rounds", 20},
          {"sampling_s", 6.0},
          {"stop_reason", "precision"},
          {"wall_s", 10.0},
          {"time_s", {{"build", build_s}, {"other", 0.0}, {"verification", 0.5}, {"warmup", 0.9}, {"sampling", 6.0}}},
          {"variants", {variant("base", 0.1, 0.3), variant("fast", 0.1, 0.3), variant("other", 0.1, 0.3)}}};
}

json record(double build_s) {
  return {{"name", "exp"}, {"cases", {a_case("claimed_case", build_s), a_case("unclaimed_case", build_s)}}};
}

const CaseVariants kClaimed = {{"claimed_case", {"fast"}}};
auto keep_all = [](const std::string&) { return true; };

}  // namespace

TEST(RunPlan, FirstProcessFromTheRecordedSplit) {
  const MeasureConfig m = measure_config_for(RunProfile::standard);
  const json cases = record(1.0)["cases"];
  const ProcessCost p = first_process_cost(cases, m, json::object(), DeviceKind::cpu);
  // Each case stopped on precision after 20 rounds of 0.3 s: the standard cap
  // (max_time) bounds it, the rounds floor from below.
  const double floor = std::max<double>(m.stopping.min_samples, rounds_floor(m.stopping.confidence));
  const double per_case = std::max(floor * 0.3, std::min(20 * 0.3, std::max(floor * 0.3, m.stopping.max_time_s)));
  EXPECT_DOUBLE_EQ(p.sampling_s, 2 * per_case);
  EXPECT_DOUBLE_EQ(p.build_s, 2 * 1.0);
  EXPECT_DOUBLE_EQ(p.verification_s, 2 * 0.5);
  EXPECT_DOUBLE_EQ(p.warmup_s, 6 * std::clamp(0.3, m.warmup_min_s, m.warmup_max_s));
  EXPECT_DOUBLE_EQ(p.start_s, process_start_cost_s(DeviceKind::cpu));
  EXPECT_FALSE(p.bounded);
  EXPECT_GT(process_start_cost_s(DeviceKind::cuda), process_start_cost_s(DeviceKind::cpu));
}

// Without a split, every second outside sampling and warm-up is building or
// verifying, shared as the gate's model of verification says (budget_plan.h).
TEST(RunPlan, WithoutASplitTheGatesVerificationModelSharesTheRest) {
  json cases = record(1.0)["cases"];
  for (auto& c : cases) {
    c.erase("time_s");
    c["wall_s"] = 20.0;
  }
  const ProcessCost p =
      first_process_cost(cases, measure_config_for(RunProfile::standard), json::object(), DeviceKind::cpu);
  EXPECT_TRUE(p.bounded);
  const double rest = 20.0 - 6.0 - 0.9;
  EXPECT_NEAR(p.build_s + p.verification_s, 2 * rest, 1e-9);
  // b per variant such that 3 b + verification(b) = rest.
  std::vector<PreparedCost> at(3, PreparedCost{0.0, 0.2, 0.1, 1});
  const double steps = verification_steps_s(at);
  for (auto& v : at) v.build_s = 1.0;
  const double b = (rest - steps) / (3 + verification_steps_s(at) - steps);
  ASSERT_GT(b, 0.0);
  EXPECT_NEAR(p.build_s, 2 * 3 * b, 1e-9);
  EXPECT_GT(p.verification_s, 2 * steps);

  // A case whose rest the verification steps alone exceed built nothing.
  cases[0]["wall_s"] = 6.0 + 0.9 + 0.5 * steps;
  const ProcessCost q =
      first_process_cost(cases, measure_config_for(RunProfile::standard), json::object(), DeviceKind::cpu);
  EXPECT_NEAR(q.build_s, 3 * b, 1e-9);
  EXPECT_NEAR(q.verification_s, 0.5 * steps + rest - 3 * b, 1e-9);
}

TEST(RunPlan, FurtherProcessesRepeatOnlyWhatAClaimReads) {
  const MeasureConfig m = measure_config_for(RunProfile::standard);
  const ExperimentPlan x = plan_experiment(record(1.0), json::object(), m, DeviceKind::cpu, kClaimed, keep_all);
  EXPECT_EQ(x.min_processes, m.min_processes);
  EXPECT_EQ(x.max_processes, m.processes);
  // One case, two of its three variants: two thirds of its build, two warm-ups.
  const ProcessCost all = further_process_cost(record(1.0)["cases"], m, DeviceKind::cpu, {});
  EXPECT_NEAR(x.further.build_s, 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(x.further.verification_s, 0.0);  // a further process verifies nothing
  EXPECT_LT(x.further.total_s(), all.total_s() / 2);
  EXPECT_DOUBLE_EQ(x.least_s(),
                   x.first.total_s() + x.profiling.total_s() + (m.min_processes - 1) * x.further.total_s());

  const ExperimentPlan once = plan_experiment(record(1.0), json::object(), m, DeviceKind::cpu, {}, keep_all);
  EXPECT_EQ(once.max_processes, 1);
  EXPECT_DOUBLE_EQ(once.least_s(), once.first.total_s());
  EXPECT_DOUBLE_EQ(once.profiling.total_s(), 0.0);  // --breakdown auto profiles only what a claim reads
}

TEST(RunPlan, AProfileThatLeavesACaseOutDoesNotPlanIt) {
  const MeasureConfig m = measure_config_for(RunProfile::standard);
  const ExperimentPlan x = plan_experiment(record(1.0), json::object(), m, DeviceKind::cpu, kClaimed,
                                           [](const std::string& c) { return c != "unclaimed_case"; });
  const ExperimentPlan all = plan_experiment(record(1.0), json::object(), m, DeviceKind::cpu, kClaimed, keep_all);
  EXPECT_LT(x.first.total_s(), all.first.total_s());
  ASSERT_EQ(x.notes.size(), 1u);
  EXPECT_NE(x.notes[0].find("unclaimed_case"), std::string::npos);
}

// The test of one code path: a build cost planted in the record moves
// the plan's further process and the figure the suite holds against its share.
TEST(RunPlan, APlantedCostMovesThePlanAndTheGateAlike) {
  const MeasureConfig m = measure_config_for(RunProfile::standard);
  const ExperimentPlan before = plan_experiment(record(1.0), json::object(), m, DeviceKind::cpu, kClaimed, keep_all);
  const ExperimentPlan after = plan_experiment(record(4.0), json::object(), m, DeviceKind::cpu, kClaimed, keep_all);
  const double gate_before = expected_further_s(record(1.0)["cases"], m, DeviceKind::cpu, kClaimed, 1, 0.0);
  const double gate_after = expected_further_s(record(4.0)["cases"], m, DeviceKind::cpu, kClaimed, 1, 0.0);
  EXPECT_DOUBLE_EQ(gate_before, before.further.total_s());
  EXPECT_DOUBLE_EQ(gate_after, after.further.total_s());
  EXPECT_NEAR(gate_after - gate_before, 3.0 * 2.0 / 3.0, 1e-9);
  const double allowance = (gate_before + gate_after) / 2;
  EXPECT_EQ(refuse_by_share(gate_before, allowance), "");
  EXPECT_NE(refuse_by_share(gate_after, allowance).find("process time share"), std::string::npos);
  // Once a further process ran, its own time is the estimate.
  EXPECT_DOUBLE_EQ(expected_further_s(record(4.0)["cases"], m, DeviceKind::cpu, kClaimed, 2, 7.5), 7.5);
}

TEST(RunPlan, TheTotalsFurtherProcessesStayWithinTheirShareOfTheFirstPass) {
  MeasureConfig m = measure_config_for(RunProfile::standard);
  m.process_time_share = 0.01;
  const std::vector<ExperimentPlan> plans = {
      plan_experiment(record(1.0), json::object(), m, DeviceKind::cpu, kClaimed, keep_all)};
  const RunTotal t = run_total(plans, m);
  EXPECT_DOUBLE_EQ(t.first_pass_s, plans[0].first.total_s());
  EXPECT_NEAR(t.most_s, t.first_pass_s * 1.01 + plans[0].profiling.total_s(), 1e-9);
  EXPECT_LE(t.least_s, t.most_s);
}

TEST(RunPlan, ACompileACaseRecordedCountsOncePerMachine) {
  json cases = record(1.0)["cases"];
  cases[0]["notes"] = {{"compile_s", 40.0}, {"export_s", 2.0}, {"cache", "hit"}};
  EXPECT_DOUBLE_EQ(once_per_machine_s(cases), 42.0);
}
