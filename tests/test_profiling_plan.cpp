// How long each variant is profiled (harness/profiling/window_plan.h's rule):
// at least 5 steps and 50 ms of them, then on a CPU until the mean step's
// standard error is within 2% of it, at most 100 steps and 0.5 s; shrunk to keep
// a case's windows within their share of its time, skipped (with the reason)
// when even one step would not fit, never with --breakdown off; a warm step
// always on CUDA. The growth itself (window_steps.h) runs on the simulated
// clock (tests/fake_backend.h), where a step's time is what the test says.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/budget_plan.h"
#include "harness/profiling/window_plan.h"
#include "harness/profiling/window_steps.h"
#include "tests/fake_backend.h"

using namespace optbench;
using namespace optbench::profiling;
using optbench::testing::FakeWork;
using optbench::testing::SimulatedRun;

TEST(ProfilingPlan, OffProfilesNothing) {
  BreakdownConfig c;
  c.mode = BreakdownMode::off;
  const auto p = plan_window(c, 1e-3, 2, 100.0, false);
  EXPECT_EQ(p.steps, 0);
  EXPECT_FALSE(p.skip_reason.empty());
}

TEST(ProfilingPlan, AtLeastFiveStepsAndFiftyMillisecondsAtMostAHundredAndHalfASecond) {
  BreakdownConfig c;
  const auto fast = plan_window(c, 1e-3, 3, 10.0, false);
  EXPECT_EQ(fast.min_steps, 50);  // 50 ms of 1 ms steps
  EXPECT_EQ(fast.steps, 100);     // 0.5 s would be 500: capped
  EXPECT_TRUE(fast.grow);
  EXPECT_TRUE(fast.warm_step);
  const auto mid = plan_window(c, 0.02, 2, 100.0, false);
  EXPECT_EQ(mid.min_steps, 5);  // 50 ms is 3 steps: five at least
  EXPECT_EQ(mid.steps, 25);     // 0.5 s
  c.mode = BreakdownMode::on;
  const auto slow = plan_window(c, 0.2, 2, 1.0, false);
  EXPECT_EQ(slow.min_steps, 5);  // the minimum runs even past 0.5 s
  EXPECT_EQ(slow.steps, 5);
  EXPECT_FALSE(slow.warm_step);  // a long step needs no warm step on a CPU
}

TEST(ProfilingPlan, CudaAlwaysWarmsUpAndRunsItsMinimum) {
  BreakdownConfig c;
  c.mode = BreakdownMode::on;
  const auto p = plan_window(c, 0.2, 2, 1.0, true);
  EXPECT_TRUE(p.warm_step) << "a warm step precedes every CUDA window, however long its step";
  EXPECT_FALSE(p.grow) << "a step's host time on CUDA is not its device time";
  EXPECT_EQ(p.steps, p.min_steps);
  EXPECT_EQ(plan_window(c, 1e-3, 2, 1.0, true).steps, 50);
}

TEST(ProfilingPlan, WindowsShrinkToTheirShareOfTheCase) {
  BreakdownConfig c;                                   // 20% of the case
  const auto p = plan_window(c, 0.01, 2, 1.0, false);  // 0.1 s each: 4 steps and a warm one cost 0.095 s
  EXPECT_EQ(p.steps, 4);
  EXPECT_EQ(p.min_steps, 4) << "the share allows fewer than the rule's five: the window says so (its steps)";
  EXPECT_LE(p.cost_s, 0.2 * 1.0 / 2);
  EXPECT_EQ(plan_window(c, 0.01, 2, 0.6, false).steps, 1);  // 0.06 s each
}

TEST(ProfilingPlan, ACaseTooShortForOneStepIsSkippedUnlessOn) {
  BreakdownConfig c;
  const auto p = plan_window(c, 1.0, 4, 10.0, false);
  EXPECT_EQ(p.steps, 0);
  EXPECT_NE(p.skip_reason.find("20%"), std::string::npos) << p.skip_reason;
  c.mode = BreakdownMode::on;
  EXPECT_EQ(plan_window(c, 1.0, 4, 10.0, false).steps, 5);
}

namespace {

StepRule rule(int min_steps, int max_steps, bool grow = true) {
  StepRule r;
  r.min_steps = min_steps;
  r.max_steps = max_steps;
  r.target_se = 0.02;
  r.grow = grow;
  return r;
}

}  // namespace

TEST(WindowSteps, SteadyStepsStopAtTheMinimum) {
  SimulatedRun sim;
  FakeWork w(sim.clock, 1e-3, 0.001, 1);
  const auto got = run_window_steps([&] { w.step(); }, sim.backend, rule(5, 100));
  EXPECT_EQ(got.step_s.size(), 5u);
  EXPECT_EQ(got.stopped, "settled");
  EXPECT_LT(got.se, 0.001);
  EXPECT_NEAR(sim.clock.now, 5e-3, 1e-4) << "each step timed on the backend's clock";
}

TEST(WindowSteps, NoisyStepsGrowUntilTheMeanSettles) {
  SimulatedRun sim;
  FakeWork w(sim.clock, 1e-3, 0.1, 2);  // 10% per step: about (10 / 2)^2 = 25 steps for 2%
  const auto got = run_window_steps([&] { w.step(); }, sim.backend, rule(5, 100));
  EXPECT_EQ(got.stopped, "settled");
  ASSERT_GT(got.step_s.size(), 10u);
  EXPECT_LT(got.step_s.size(), 100u);
  EXPECT_LE(relative_se(got.step_s), 0.02);
  const std::vector<double> one_fewer(got.step_s.begin(), got.step_s.end() - 1);
  EXPECT_GT(relative_se(one_fewer), 0.02) << "it stops at the first step the mean is settled";
  EXPECT_DOUBLE_EQ(got.se, relative_se(got.step_s));
}

TEST(WindowSteps, AWindowThatNeverSettlesStopsAtItsMaximumAndSaysSo) {
  SimulatedRun sim;
  FakeWork w(sim.clock, 1e-3, 0.5, 3);
  const auto got = run_window_steps([&] { w.step(); }, sim.backend, rule(5, 20));
  EXPECT_EQ(got.step_s.size(), 20u);
  EXPECT_EQ(got.stopped, "max_steps");
  EXPECT_GT(got.se, 0.02);
  const WindowRecord r = window_record(rule(5, 20), got, true);
  EXPECT_EQ(r.stopped, "max_steps");
  EXPECT_DOUBLE_EQ(r.step_se, got.se);
  EXPECT_TRUE(r.warm_step);
  EXPECT_EQ(r.max_steps, 20);
}

TEST(WindowSteps, WithoutGrowthExactlyTheMinimum) {
  SimulatedRun sim;
  FakeWork w(sim.clock, 1e-3, 0.5, 4);
  const auto got = run_window_steps([&] { w.step(); }, sim.backend, rule(7, 100, /*grow=*/false));
  EXPECT_EQ(got.step_s.size(), 7u);
  EXPECT_EQ(got.stopped, "planned");
}

TEST(WindowSteps, OneStepHasNoSpreadToSettle) {
  SimulatedRun sim;
  FakeWork w(sim.clock, 1e-3, 0.0, 5);
  EXPECT_EQ(run_window_steps([&] { w.step(); }, sim.backend, rule(1, 2)).step_s.size(), 2u);
  const auto one = run_window_steps([&] { w.step(); }, sim.backend, rule(1, 1));
  EXPECT_EQ(one.stopped, "max_steps");
  EXPECT_EQ(one.se, 0.0);
  EXPECT_THROW(run_window_steps([&] { w.step(); }, sim.backend, rule(0, 1)), std::invalid_argument);
  EXPECT_THROW(run_window_steps([&] { w.step(); }, sim.backend, rule(3, 2)), std::invalid_argument);
}

// Under a budget the window keeps as many of its steps as fit, never fewer than
// its minimum; the reason is the gate's own.
TEST(WindowSteps, TheBudgetGateFitsTheMostStepsBetweenTheBounds) {
  SimulatedRun sim;
  const BudgetGate gate(1.0, sim.backend);  // 1 s left; a window's estimate is doubled
  auto cost = [](int steps) { return 0.01 * steps; };
  std::string why;
  EXPECT_EQ(gate.breakdown_window_steps(5, 100, cost, DeviceKind::cpu, 0.0, why), 49);
  EXPECT_EQ(why, "");
  EXPECT_EQ(gate.breakdown_window_steps(5, 100, cost, DeviceKind::cpu, 0.95, why), 0);
  EXPECT_TRUE(is_budget_reason(why)) << why;
  const BudgetGate none(std::nullopt, sim.backend);
  EXPECT_EQ(none.breakdown_window_steps(5, 100, cost, DeviceKind::cpu, 0.0, why), 100);
}
