#pragma once
// Robust statistics kept apart from timing (as nvbench and torch.utils.benchmark do):
// quantiles, a summary, and distribution-free confidence intervals for a median
// and for a paired speedup.
#include <cstdint>
#include <vector>

namespace optbench {

struct Summary {
  std::size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, iqr = 0, min = 0, max = 0, mean = 0;
};

// Quantile of sorted data, linear interpolation between order statistics
// (numpy's default, "type 7"), so numbers match what the Python report computes.
double quantile_sorted(const std::vector<double>& sorted, double q);
double median(std::vector<double> xs);
Summary summarize(std::vector<double> xs);

// An estimate with its confidence interval. `coverage` is the interval's exact
// coverage for i.i.d. data (at least the confidence asked for once there are
// enough samples; below that, the [min, max] interval and what it covers).
struct Estimate {
  double value = 0, low = 0, high = 0;
  double coverage = 0;
  std::size_t n = 0;
};

// The median and its order-statistic (sign-test) interval: the k-th smallest and
// k-th largest samples, k chosen from the Binomial(n, 1/2) law. Exact for any
// continuous distribution, deterministic (nothing resampled), and cheap enough
// to be the interval the stopping rule checks and the one reported.
Estimate median_ci(std::vector<double> xs, double confidence);

// The speedup of `variant` over `baseline` from interleaved samples: round i gave
// baseline[i] and variant[i], so the per-round ratio baseline[i] / variant[i]
// cancels the drift both saw. Estimate and interval are those of the median of
// the ratios over the rounds both have (a variant that failed mid-run has fewer).
Estimate paired_speedup(const std::vector<double>& baseline, const std::vector<double>& variant, double confidence);

// Smallest n whose order-statistic interval reaches `confidence` (6 for 95%).
std::size_t min_samples_for(double confidence);

// (high - low) / estimate: the precision the stopping rule aims at.
double relative_width(const Estimate& e);

}  // namespace optbench
