// How long each variant is profiled: about 50 ms of steps, shrunk to keep a
// case's windows within their share of its time, skipped (with the reason)
// when even one step would not fit, and never with --breakdown off.
#include <gtest/gtest.h>

#include "harness/profiling/window_plan.h"

using namespace optbench::profiling;

TEST(ProfilingPlan, OffProfilesNothing) {
  BreakdownConfig c;
  c.mode = BreakdownMode::off;
  const auto p = plan_window(c, 1e-3, 2, 100.0);
  EXPECT_EQ(p.steps, 0);
  EXPECT_FALSE(p.skip_reason.empty());
}

TEST(ProfilingPlan, ShortStepsGetAboutFiftyMilliseconds) {
  BreakdownConfig c;
  EXPECT_EQ(plan_window(c, 1e-3, 3, 10.0).steps, 20);  // capped at 20
  EXPECT_EQ(plan_window(c, 5e-3, 3, 10.0).steps, 10);
  EXPECT_TRUE(plan_window(c, 5e-3, 3, 10.0).warm_step);
  EXPECT_FALSE(plan_window(c, 0.1, 2, 5.0).warm_step);  // a long step needs no warm step
}

TEST(ProfilingPlan, WindowsShrinkToTheirShareOfTheCase) {
  BreakdownConfig c;  // 20% of the case
  const auto p = plan_window(c, 0.01, 2, 1.0);  // 0.1 s each: 5 steps and a warm one would cost 0.11 s
  EXPECT_EQ(p.steps, 4);
  EXPECT_LE(p.cost_s, 0.2 * 1.0 / 2);
  EXPECT_EQ(plan_window(c, 0.01, 2, 0.6).steps, 1);  // 0.06 s each
}

TEST(ProfilingPlan, ACaseTooShortForOneStepIsSkippedUnlessOn) {
  BreakdownConfig c;
  const auto p = plan_window(c, 1.0, 4, 10.0);
  EXPECT_EQ(p.steps, 0);
  EXPECT_NE(p.skip_reason.find("20%"), std::string::npos) << p.skip_reason;
  c.mode = BreakdownMode::on;
  EXPECT_EQ(plan_window(c, 1.0, 4, 10.0).steps, 1);
}
