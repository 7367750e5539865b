#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "harness/stats.h"

using namespace optbench;

namespace {

nlohmann::json stats_golden() {
  std::ifstream f(OPTBENCH_TEST_DATA "/stats_golden.json");
  return nlohmann::json::parse(f);
}

}  // namespace

// The same inputs and outputs report/tests/test_stats_golden.py holds report/statistics/stats.py to:
// the two languages' estimators agree while both exist.
TEST(Golden, MedianCiMatchesThePythonEstimator) {
  for (const auto& c : stats_golden()["median_ci"]) {
    const Estimate e = median_ci(c["values"].get<std::vector<double>>(), c["confidence"]);
    EXPECT_DOUBLE_EQ(e.value, c["median"].get<double>()) << c["values"].size() << " values";
    EXPECT_DOUBLE_EQ(e.low, c["ci_low"].get<double>()) << c["values"].size() << " values";
    EXPECT_DOUBLE_EQ(e.high, c["ci_high"].get<double>()) << c["values"].size() << " values";
  }
}

TEST(Golden, RoundsFloorMatchesThePythonOne) {
  for (const auto& c : stats_golden()["rounds_floor"])
    EXPECT_EQ(min_samples_for(c["confidence"]), c["rounds"].get<std::size_t>()) << "confidence " << c["confidence"];
}

TEST(Golden, PairedSpeedupMatchesThePythonEstimator) {
  for (const auto& c : stats_golden()["paired_speedup"]) {
    const Estimate e = paired_speedup(c["baseline"].get<std::vector<double>>(), c["variant"].get<std::vector<double>>(),
                                      c["confidence"]);
    EXPECT_DOUBLE_EQ(e.value, c["speedup"].get<double>()) << c["baseline"].size() << " rounds";
    EXPECT_DOUBLE_EQ(e.low, c["ci_low"].get<double>()) << c["baseline"].size() << " rounds";
    EXPECT_DOUBLE_EQ(e.high, c["ci_high"].get<double>()) << c["baseline"].size() << " rounds";
  }
}

TEST(Quantile, MatchesNumpyLinearInterpolation) {
  // numpy.quantile([1, 2, 3, 4], [0.25, 0.5, 0.75]) == [1.75, 2.5, 3.25]
  const std::vector<double> xs = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile_sorted(xs, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile_sorted(xs, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile_sorted(xs, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(quantile_sorted(xs, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile_sorted(xs, 1.0), 4);
  EXPECT_THROW(quantile_sorted({}, 0.5), std::invalid_argument);
}

TEST(Summary, KnownSample) {
  const Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
}

TEST(Summary, LargeNormalSampleRecoversParameters) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> d(10.0, 2.0);
  std::vector<double> xs(200000);
  for (auto& x : xs) x = d(rng);
  const Summary s = summarize(xs);
  EXPECT_NEAR(s.median, 10.0, 0.03);
  // IQR of a normal is 2 * 0.6745 sigma.
  EXPECT_NEAR(s.iqr, 2 * 0.67449 * 2.0, 0.03);
}

// The interval's ranks come from Binomial(n, 1/2): for n = 10 at 95% they are
// the 2nd and 9th order statistics, covering 1 - 2 * 11/1024.
TEST(MedianCi, OrderStatisticRanksAndCoverage) {
  const Estimate e = median_ci({10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, 0.95);
  EXPECT_DOUBLE_EQ(e.value, 5.5);
  EXPECT_DOUBLE_EQ(e.low, 2);
  EXPECT_DOUBLE_EQ(e.high, 9);
  EXPECT_NEAR(e.coverage, 1 - 2 * 11.0 / 1024, 1e-12);
  EXPECT_EQ(e.n, 10u);
  // Too few samples for 95%: [min, max] and what it really covers.
  const Estimate small = median_ci({3, 1, 2}, 0.95);
  EXPECT_DOUBLE_EQ(small.low, 1);
  EXPECT_DOUBLE_EQ(small.high, 3);
  EXPECT_NEAR(small.coverage, 0.75, 1e-12);
  EXPECT_EQ(min_samples_for(0.95), 6u);
  EXPECT_EQ(min_samples_for(0.99), 8u);
}

// Coverage: a 95% CI of the median of a skewed (lognormal) distribution contains
// the true median at least 95% of the time (exact for continuous data).
TEST(MedianCi, CoverageOnSkewedData) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(0.0, 0.5);  // true median exp(0) = 1
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> xs(25);
    for (auto& x : xs) x = d(rng);
    const Estimate e = median_ci(xs, 0.95);
    covered += (e.low <= 1.0 && 1.0 <= e.high);
  }
  // Exact coverage for n = 25 is 0.9567; 2000 trials give a standard error of 0.0045.
  EXPECT_GE(covered / static_cast<double>(trials), 0.94);
}

// Drift shared by both variants in a round cancels in the per-round ratio, so
// the paired interval is far narrower than the drift would allow otherwise.
TEST(PairedSpeedup, SharedDriftCancels) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 0.005);
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) {
    const double drift = 1.0 + 0.3 * std::sin(i / 5.0);  // +-30% shared
    a.push_back(2e-3 * drift * (1 + noise(rng)));
    b.push_back(1e-3 * drift * (1 + noise(rng)));
  }
  const Estimate e = paired_speedup(a, b, 0.95);
  EXPECT_NEAR(e.value, 2.0, 0.01);
  EXPECT_LE(e.low, 2.0);
  EXPECT_GE(e.high, 2.0);
  EXPECT_LT(relative_width(e), 0.02);
  // A variant that stopped early is compared over the rounds both have.
  const Estimate shorter = paired_speedup(a, std::vector<double>(b.begin(), b.begin() + 20), 0.95);
  EXPECT_EQ(shorter.n, 20u);
}

TEST(Stats, RejectsBadInput) {
  EXPECT_THROW(median_ci({}, 0.95), std::invalid_argument);
  EXPECT_THROW(paired_speedup({1.0}, {}, 0.95), std::invalid_argument);
  EXPECT_THROW(median_ci({1.0}, 1.5), std::invalid_argument);
}
