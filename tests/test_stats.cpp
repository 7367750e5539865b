#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "harness/stats.h"

using namespace optbench;

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

// Coverage: a 95% CI of the median of a skewed (lognormal) distribution should
// contain the true median about 95% of the time.
TEST(Bootstrap, MedianCiCoverage) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(0.0, 0.5);  // true median exp(0) = 1
  int covered = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> xs(60);
    for (auto& x : xs) x = d(rng);
    const Interval ci = bootstrap_median_ci(xs, {0.95, 400, static_cast<std::uint64_t>(t)});
    covered += (ci.low <= 1.0 && 1.0 <= ci.high);
  }
  const double coverage = static_cast<double>(covered) / trials;
  EXPECT_GT(coverage, 0.89);
  EXPECT_LT(coverage, 0.99);
}

TEST(Bootstrap, RatioCiCoverage) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> noise(0.0, 0.05);
  const double true_ratio = 1.5;  // baseline 1.5 ms, variant 1.0 ms
  int covered = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a(40), b(40);
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = 1.5e-3 * noise(rng);
      b[i] = 1.0e-3 * noise(rng);
    }
    const Interval ci = bootstrap_ratio_ci(a, b, {0.95, 400, static_cast<std::uint64_t>(t)});
    covered += (ci.low <= true_ratio && true_ratio <= ci.high);
  }
  const double coverage = static_cast<double>(covered) / trials;
  EXPECT_GT(coverage, 0.89);
  EXPECT_LT(coverage, 0.995);
}

// Drift shared by both variants in a round cancels in the paired bootstrap, so
// its CI is much narrower than the unpaired one on the same data.
TEST(Bootstrap, PairingCancelsSharedDrift) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> small(0.0, 0.002);
  std::vector<double> a, b;
  for (int i = 0; i < 50; ++i) {
    const double drift = 1.0 + 0.3 * std::sin(i / 5.0);  // clocks ramping up and down
    a.push_back(2.0 * drift * (1 + small(rng)));
    b.push_back(1.0 * drift * (1 + small(rng)));
  }
  const Interval paired = bootstrap_ratio_ci(a, b, {0.95, 1000, 1});
  std::vector<double> b_short(b.begin(), b.end() - 1);  // unequal length -> unpaired
  const Interval unpaired = bootstrap_ratio_ci(a, b_short, {0.95, 1000, 1});
  EXPECT_LE(paired.low, 2.0);
  EXPECT_GE(paired.high, 2.0);
  EXPECT_LT(paired.high - paired.low, 0.25 * (unpaired.high - unpaired.low));
}

TEST(Bootstrap, RejectsBadInput) {
  EXPECT_THROW(bootstrap_median_ci({}, {}), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio_ci({1.0}, {}, {}), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ci({1.0}, {1.5, 10, 1}), std::invalid_argument);
}

TEST(RelativeWidth, InfiniteWhenUndefined) {
  EXPECT_DOUBLE_EQ(relative_width({0.9, 1.1}, 1.0), 0.2);
  EXPECT_TRUE(std::isinf(relative_width({0.9, 1.1}, 0.0)));
}
