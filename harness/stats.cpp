#include "harness/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
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

void check_confidence(double c) {
  if (!(c > 0 && c < 1)) throw std::invalid_argument("confidence must lie in (0, 1)");
}

// The rank k (1-based) of the interval's order statistics: the largest k
// with P(X <= k - 1) <= alpha / 2, so [x_(k), x_(n+1-k)] covers the median with
// probability 1 - 2 P(X <= k - 1). At least 1 ([min, max]).
std::size_t order_statistic_rank(std::size_t n, double confidence, double* coverage) {
  const double half_alpha = (1.0 - confidence) / 2.0;
  // Binomial(n, 1/2) terms in log space: n can be 1e5.
  const double ln2n = static_cast<double>(n) * std::log(2.0);
  const double lgn = std::lgamma(static_cast<double>(n) + 1);
  std::size_t k = 1;
  double tail = std::exp(-ln2n);  // P(X <= k - 1) for k = 1
  // Walk up while the next rank's tail still fits; the cdf is summed incrementally.
  while (k < (n + 1) / 2) {
    const double dk = static_cast<double>(k);
    const double next =
        tail + std::exp(lgn - std::lgamma(dk + 1) - std::lgamma(static_cast<double>(n) - dk + 1) - ln2n);
    if (next > half_alpha) break;
    tail = next;
    ++k;
  }
  *coverage = std::max(0.0, 1.0 - 2.0 * tail);
  return k;
}

}  // namespace

Estimate median_ci(std::vector<double> xs, double confidence) {
  check_confidence(confidence);
  if (xs.empty()) throw std::invalid_argument("confidence interval of an empty sample");
  std::sort(xs.begin(), xs.end());
  Estimate e;
  e.n = xs.size();
  e.value = quantile_sorted(xs, 0.5);
  const std::size_t k = order_statistic_rank(e.n, confidence, &e.coverage);
  e.low = xs[k - 1];
  e.high = xs[e.n - k];
  return e;
}

Estimate paired_speedup(const std::vector<double>& baseline, const std::vector<double>& variant, double confidence) {
  const std::size_t n = std::min(baseline.size(), variant.size());
  if (n == 0) throw std::invalid_argument("speedup of an empty sample");
  std::vector<double> ratios(n);
  for (std::size_t i = 0; i < n; ++i)
    ratios[i] = variant[i] > 0 ? baseline[i] / variant[i] : std::numeric_limits<double>::infinity();
  return median_ci(std::move(ratios), confidence);
}

std::size_t min_samples_for(double confidence) {
  check_confidence(confidence);
  for (std::size_t n = 1;; ++n) {
    double cov = 0;
    order_statistic_rank(n, confidence, &cov);
    if (cov >= confidence) return n;
  }
}

double relative_width(const Estimate& e) {
  if (!(e.value > 0) || !std::isfinite(e.high) || !std::isfinite(e.low)) return std::numeric_limits<double>::infinity();
  return (e.high - e.low) / e.value;
}

}  // namespace optbench
