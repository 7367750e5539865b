#pragma once
// Robust statistics kept apart from timing (as nvbench and torch.utils.benchmark do):
// quantiles, a summary, and bootstrap confidence intervals for a median and for
// the ratio of two medians.
#include <cstdint>
#include <vector>

namespace optbench {

struct Summary {
  std::size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, iqr = 0, min = 0, max = 0, mean = 0;
};

struct Interval {
  double low = 0, high = 0;
};

// Quantile of sorted data, linear interpolation between order statistics
// (numpy's default, "type 7"), so numbers match what the Python report computes.
double quantile_sorted(const std::vector<double>& sorted, double q);
double median(std::vector<double> xs);
Summary summarize(std::vector<double> xs);

struct BootstrapConfig {
  double confidence = 0.95;
  int resamples = 2000;
  std::uint64_t seed = 0x5eed;
};

// Percentile bootstrap CI of the median.
Interval bootstrap_median_ci(const std::vector<double>& xs, const BootstrapConfig& cfg);

// CI of median(baseline) / median(variant), i.e. the speedup when the inputs are
// times. Samples are taken in interleaved rounds, so baseline[i] and variant[i]
// share round i; the paired bootstrap resamples whole rounds, which keeps the
// drift that both saw together and so gives the ratio the benefit of interleaving.
// Unequal lengths (a variant failed mid-run) fall back to independent resampling.
Interval bootstrap_ratio_ci(const std::vector<double>& baseline, const std::vector<double>& variant,
                            const BootstrapConfig& cfg);

// (high - low) / estimate: the precision the stopping rule aims at.
double relative_width(const Interval& ci, double estimate);

}  // namespace optbench
