#include <gtest/gtest.h>

#include "harness/stopping_rule.h"

using namespace optbench;

namespace {
StoppingConfig cfg() { return {10, 0.5, 5.0, 1000, 0.02, 0.95}; }
}  // namespace

TEST(StoppingRule, NeedsMinimumSamplesAndTimeBeforePrecision) {
  EXPECT_EQ(should_stop(cfg(), {9, 1.0, 1.0, 0.001, false}), StopReason::none);
  EXPECT_EQ(should_stop(cfg(), {10, 0.4, 1.0, 0.001, false}), StopReason::none);
  EXPECT_EQ(should_stop(cfg(), {10, 0.5, 1.0, 0.001, false}), StopReason::precision);
}

TEST(StoppingRule, KeepsGoingWhileImprecise) {
  EXPECT_EQ(should_stop(cfg(), {50, 3.0, 3.0, 0.05, false}), StopReason::none);
}

TEST(StoppingRule, CapWinsOverPrecisionAndMinimums) {
  EXPECT_EQ(should_stop(cfg(), {6, 5.0, 5.0, 0.5, false}), StopReason::max_time);
  // Fewer rounds than a CI needs: the cap waits for the floor, however long a round takes.
  EXPECT_EQ(should_stop(cfg(), {5, 5.0, 5.0, 0.5, false}), StopReason::none);
  EXPECT_EQ(should_stop(cfg(), {1, 100.0, 100.0, 0.5, false}), StopReason::none);
}

// 6 rounds is the least that holds a 95% order-statistic interval: 1 - 2 / 2^5 =
// 93.75% < 95% <= 1 - 2 / 2^6 = 96.9%.
TEST(StoppingRule, RoundsFloorIsTheLeastNWithADistributionFreeInterval) {
  EXPECT_EQ(rounds_floor(0.95), 6);
  EXPECT_EQ(rounds_floor(0.90), 5);
  EXPECT_EQ(rounds_floor(0.99), 8);
}

// Precision is not claimed before the interval can reach its confidence (6
// rounds at 95%), whatever min_samples says.
TEST(StoppingRule, PrecisionNeedsAnIntervalWithItsCoverage) {
  StoppingConfig c = cfg();
  c.min_samples = 1;
  c.min_time_s = 0;
  EXPECT_EQ(should_stop(c, {5, 1.0, 1.0, 0.001, false}), StopReason::none);
  EXPECT_EQ(should_stop(c, {6, 1.0, 1.0, 0.001, false}), StopReason::precision);
}

TEST(StoppingRule, SpentBudgetStopsAtOnce) {
  StopState s{1, 0.0, 0.0, 0.5, false};
  s.budget_spent = true;
  EXPECT_EQ(should_stop(cfg(), s), StopReason::budget);
}

TEST(StoppingRule, MaxSamplesAndInterrupt) {
  EXPECT_EQ(should_stop(cfg(), {1000, 3.0, 3.0, 0.5, false}), StopReason::max_samples);
  EXPECT_EQ(should_stop(cfg(), {1, 0.0, 0.0, 0.5, true}), StopReason::interrupted);
}

TEST(StoppingRule, ValidatesConfig) {
  StoppingConfig c = cfg();
  EXPECT_NO_THROW(validate(c));
  c.target_rel_ci = 0;
  EXPECT_THROW(validate(c), std::invalid_argument);
  c = cfg();
  c.max_samples = 1;
  EXPECT_THROW(validate(c), std::invalid_argument);
  c = cfg();
  c.confidence = 1.0;
  EXPECT_THROW(validate(c), std::invalid_argument);
}

TEST(StoppingRule, ReasonNames) {
  EXPECT_STREQ(to_string(StopReason::precision), "precision");
  EXPECT_STREQ(to_string(StopReason::max_time), "max_time");
}
