#include "harness/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace optbench {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of an empty sample");
  if (q <= 0) return sorted.front();
  if (q >= 1) return sorted.back();
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(lo);
  if (lo + 1 >= sorted.size()) return sorted[lo];
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return quantile_sorted(xs, 0.5);
}

Summary summarize(std::vector<double> xs) {
  Summary s;
  s.n = xs.size();
  if (xs.empty()) return s;
  std::sort(xs.begin(), xs.end());
  s.median = quantile_sorted(xs, 0.5);
  s.q1 = quantile_sorted(xs, 0.25);
  s.q3 = quantile_sorted(xs, 0.75);
  s.iqr = s.q3 - s.q1;
  s.min = xs.front();
  s.max = xs.back();
  s.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  return s;
}

namespace {

// Median of xs at the given indices; scratch is reused to avoid allocations.
double resampled_median(const std::vector<double>& xs, const std::vector<std::size_t>& idx,
                        std::vector<double>& scratch) {
  scratch.resize(idx.size());
  for (std::size_t i = 0; i < idx.size(); ++i) scratch[i] = xs[idx[i]];
  std::sort(scratch.begin(), scratch.end());
  return quantile_sorted(scratch, 0.5);
}

Interval percentile_interval(std::vector<double>& estimates, double confidence) {
  std::sort(estimates.begin(), estimates.end());
  const double alpha = (1.0 - confidence) / 2.0;
  return {quantile_sorted(estimates, alpha), quantile_sorted(estimates, 1.0 - alpha)};
}

void draw(std::vector<std::size_t>& idx, std::size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  idx.resize(n);
  for (auto& i : idx) i = pick(rng);
}

void check_config(const BootstrapConfig& cfg) {
  if (cfg.resamples < 1) throw std::invalid_argument("bootstrap needs at least one resample");
  if (!(cfg.confidence > 0 && cfg.confidence < 1)) throw std::invalid_argument("confidence must lie in (0, 1)");
}

}  // namespace

Interval bootstrap_median_ci(const std::vector<double>& xs, const BootstrapConfig& cfg) {
  check_config(cfg);
  if (xs.empty()) throw std::invalid_argument("bootstrap of an empty sample");
  std::mt19937_64 rng(cfg.seed);
  std::vector<std::size_t> idx;
  std::vector<double> scratch, estimates;
  estimates.reserve(static_cast<std::size_t>(cfg.resamples));
  for (int r = 0; r < cfg.resamples; ++r) {
    draw(idx, xs.size(), rng);
    estimates.push_back(resampled_median(xs, idx, scratch));
  }
  return percentile_interval(estimates, cfg.confidence);
}

Interval bootstrap_ratio_ci(const std::vector<double>& baseline, const std::vector<double>& variant,
                            const BootstrapConfig& cfg) {
  check_config(cfg);
  if (baseline.empty() || variant.empty()) throw std::invalid_argument("bootstrap of an empty sample");
  const bool paired = baseline.size() == variant.size();
  std::mt19937_64 rng(cfg.seed);
  std::vector<std::size_t> idx_b, idx_v;
  std::vector<double> scratch, estimates;
  estimates.reserve(static_cast<std::size_t>(cfg.resamples));
  for (int r = 0; r < cfg.resamples; ++r) {
    draw(idx_b, baseline.size(), rng);
    if (paired) {
      idx_v = idx_b;
    } else {
      draw(idx_v, variant.size(), rng);
    }
    const double v = resampled_median(variant, idx_v, scratch);
    const double b = resampled_median(baseline, idx_b, scratch);
    estimates.push_back(v > 0 ? b / v : std::numeric_limits<double>::infinity());
  }
  return percentile_interval(estimates, cfg.confidence);
}

double relative_width(const Interval& ci, double estimate) {
  if (!(estimate > 0) || !std::isfinite(ci.high) || !std::isfinite(ci.low))
    return std::numeric_limits<double>::infinity();
  return (ci.high - ci.low) / estimate;
}

}  // namespace optbench
