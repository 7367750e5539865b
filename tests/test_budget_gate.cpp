// The budget gate's decisions on a simulated clock: without a budget everything
// fits; with one, each estimate from the cost model (harness/budget_plan.cpp)
// is held to the time left, and every refusal is a "budget:" reason.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/budget_plan.h"
#include "tests/fake_backend.h"

using namespace optbench;
using namespace optbench::testing;

TEST(BudgetGate, WithoutABudgetEverythingFits) {
  SimClock clock;
  FakeBackend backend(clock);
  const BudgetGate gate(std::nullopt, backend);
  const std::vector<PreparedCost> slow = {{1e6, 1e6, 1e6, 1000}};
  EXPECT_FALSE(gate.active());
  EXPECT_TRUE(std::isinf(gate.left_s()));
  EXPECT_FALSE(gate.spent());
  EXPECT_EQ(gate.refuse_start(), "");
  EXPECT_EQ(gate.refuse_child(1e9), "");
  EXPECT_EQ(gate.refuse_prepare(1e9, slow), "");
  EXPECT_EQ(gate.refuse_rounds(6, slow), "");
  EXPECT_EQ(gate.refuse_verification(1e9), "");
  EXPECT_TRUE(gate.fits_cold_process(slow[0], 1e9));
  EXPECT_EQ(gate.refuse_breakdown_window(1e9, DeviceKind::cuda, 1e9), "");
  EXPECT_DOUBLE_EQ(gate.warmup_max_s(1.0, 4, 2.0), 0.25);
  EXPECT_DOUBLE_EQ(gate.sampling_cap_s(3.0, 1.0), 3.0) << "preparation is charged only under a budget";
  EXPECT_EQ(refuse_one_time_setup("a compile", 1e9, std::nullopt), "");
}

TEST(BudgetGate, EachEstimateIsHeldToTheTimeLeft) {
  SimClock clock;
  FakeBackend backend(clock);
  const BudgetGate gate(10.0, backend);
  clock.now = 4.0;  // 6 s left
  EXPECT_DOUBLE_EQ(gate.left_s(), 6.0);
  // Preparing: the longest build (or declared set-up) and three of the slowest steps.
  const std::vector<PreparedCost> prepared = {{1.0, 0.5, 0.1, 10}, {2.0, 0.2, 0.2, 5}};
  EXPECT_EQ(gate.refuse_prepare(0.0, prepared), "");  // 2 + 3 x 0.5
  EXPECT_NE(gate.refuse_prepare(4.5, prepared), "");  // 4.5 + 1.5 is not below 6
  // Rounds: the floor of rounds, each the live variants' samples (1 s + 1 s).
  EXPECT_EQ(gate.refuse_rounds(2, prepared), "");
  const std::string rounds = gate.refuse_rounds(6, prepared);
  EXPECT_NE(rounds.find("6 rounds"), std::string::npos) << rounds;
  // Verification: 15 of the slowest steps, 12 steps and 2 builds per variant.
  EXPECT_NEAR(gate.verification_cost_s(prepared), 15 * 0.2 + (12 * 0.1 + 2 * 1.0) + (12 * 0.2 + 2 * 2.0), 1e-12);
  EXPECT_EQ(gate.refuse_verification(5.9), "");
  EXPECT_NE(gate.refuse_verification(6.0), "");
  // A cold process: a start, a build and two steps, after the reserve.
  EXPECT_TRUE(gate.fits_cold_process(prepared[0], 3.0));  // 3 + 1 + 1 + 0.5 + 0.1
  EXPECT_FALSE(gate.fits_cold_process(prepared[0], 3.5));
  // On a GPU a fresh process also makes a CUDA context: its start counts 3 s, not 1.
  FakeBackend gpu(clock);
  gpu.pose_as(DeviceKind::cuda);
  const BudgetGate gpu_gate(10.0, gpu);
  EXPECT_TRUE(gpu_gate.fits_cold_process(prepared[0], 1.0));   // 1 + 3 + 1 + 0.5 + 0.1
  EXPECT_FALSE(gpu_gate.fits_cold_process(prepared[0], 1.5));  // fits on a CPU, not on a GPU
  EXPECT_TRUE(gate.fits_cold_process(prepared[0], 1.5));
  // A profiled window: twice its estimate, plus CUPTI's set-up on a GPU.
  EXPECT_EQ(gate.refuse_breakdown_window(2.9, DeviceKind::cpu, 0.0), "");
  EXPECT_NE(gate.refuse_breakdown_window(2.9, DeviceKind::cuda, 0.0), "");
  // Warm-up: the case's cap shared among its variants, never past the deadline.
  EXPECT_DOUBLE_EQ(gate.warmup_max_s(1.0, 4, 2.0), 0.25);
  clock.now = 9.9;
  EXPECT_NEAR(gate.warmup_max_s(1.0, 4, 2.0), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(gate.sampling_cap_s(3.0, 1.0), 2.0);
  clock.now = 10.0;
  EXPECT_TRUE(gate.spent());
  EXPECT_NE(gate.refuse_start(), "");
  EXPECT_NE(gate.refuse_prepare(0.0, {}), "");
}

TEST(BudgetGate, EveryRefusalIsABudgetReason) {
  SimClock clock;
  FakeBackend backend(clock);
  const BudgetGate gate(1.0, backend);
  clock.now = 2.0;
  const std::vector<PreparedCost> one = {{1.0, 1.0, 1.0, 1}};
  for (const std::string& why :
       {gate.refuse_start(), gate.refuse_child(5.0), gate.refuse_prepare(0.0, one), gate.refuse_rounds(6, one),
        gate.refuse_verification(1.0), gate.refuse_breakdown_window(1.0, DeviceKind::cpu, 0.0),
        BudgetGate::ended_below_floor(2, 6), refuse_one_time_setup("a cold compile", 90.0, 30.0)}) {
    EXPECT_TRUE(is_budget_reason(why)) << why;
  }
  EXPECT_EQ(refuse_one_time_setup("a cold compile", 90.0, 30.0),
            "budget: a cold compile is expected to take 90 s here, and the run's --time-budget has 30 s left");
  EXPECT_EQ(refuse_one_time_setup("a cold compile", 30.0, 90.0), "");
  EXPECT_FALSE(is_budget_reason("AOTInductor compilation failed: budget: no"));
}

// An experiment's process ends before the run's deadline by what its exit takes.
TEST(BudgetGate, AChildIsGivenTheBudgetLessItsExit) {
  EXPECT_DOUBLE_EQ(child_budget_s(10.0), 9.5);
  EXPECT_DOUBLE_EQ(child_budget_s(0.2), 1e-3) << "never nothing: the child records its cases as not run";
}

// A declared set-up (a Python twin's interpreter start) is a floor: a case
// expects at least what such a case measured earlier in the process, so the
// first variant of a second twin case does not start on the declared guess
// with too little left (the budget test overran by 2.6 s on the CI VM so).
TEST(BudgetGate, ADeclaredSetUpRisesToWhatTheProcessMeasured) {
  EXPECT_DOUBLE_EQ(expected_setup_s(1.5, 0.0), 1.5);
  EXPECT_DOUBLE_EQ(expected_setup_s(1.5, 3.8), 3.8);
  EXPECT_DOUBLE_EQ(expected_setup_s(4.0, 3.8), 4.0);
  EXPECT_DOUBLE_EQ(expected_setup_s(0.0, 3.8), 0.0) << "a case without a declared set-up estimates from its own";
  EXPECT_DOUBLE_EQ(measured_setup_s(1.5, 11.4, 3), 3.8);
  EXPECT_DOUBLE_EQ(measured_setup_s(0.0, 11.4, 3), 0.0);
  EXPECT_DOUBLE_EQ(measured_setup_s(1.5, 0.0, 0), 0.0) << "nothing prepared, nothing measured";
  SimClock clock;
  FakeBackend backend(clock);
  const BudgetGate gate(10.0, backend);
  clock.now = 7.0;  // 3 s left: the declared 1.5 s fits, the measured 3.8 s does not
  EXPECT_EQ(gate.refuse_prepare(expected_setup_s(1.5, 0.0), {}), "");
  EXPECT_NE(gate.refuse_prepare(expected_setup_s(1.5, 3.8), {}), "");
}

// A case's share counts the case-processes still to come: this experiment's
// cases left in this process, all its cases again in each further process, and
// the later experiments' (at the average count) in as many processes each.
TEST(BudgetShare, CountsTheFurtherProcesses) {
  BudgetState b;
  b.left_s = 120;
  b.cases_left_here = 2;
  b.cases_here = 4;
  b.later_experiments = 1;
  b.cases_seen = 4;
  b.experiments_seen = 1;
  EXPECT_DOUBLE_EQ(case_share_s(b, 1e9), 120.0 / (2 + 4));  // one process each
  b.processes = 3;
  b.processes_after_here = 2;  // the first of three
  EXPECT_DOUBLE_EQ(case_share_s(b, 1e9), 120.0 / (2 + 2 * 4 + 3 * 4));
  b.processes_after_here = 0;  // the last of three
  EXPECT_DOUBLE_EQ(case_share_s(b, 1e9), 120.0 / (2 + 3 * 4));
  EXPECT_DOUBLE_EQ(case_share_s(b, 5.0), 5.0) << "the profile's cap still holds";
}
