#include "harness/two_level.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "harness/json_optional.h"

namespace optbench {
namespace {

using json = nlohmann::json;

// Continued fraction of the regularized incomplete beta function (modified Lentz).
double beta_cf(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2));
    d = 1.0 + aa * d;
    d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
    c = 1.0 + aa / c;
    c = std::fabs(c) < tiny ? tiny : c;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2));
    d = 1.0 + aa * d;
    d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
    c = 1.0 + aa / c;
    c = std::fabs(c) < tiny ? tiny : c;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < eps) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_cf(a, b, x) / a;
  return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

// P(T <= t), T ~ Student's t with df degrees of freedom.
double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

// A ratio or bound the estimate can take a logarithm of.
std::optional<double> positive(const std::optional<double>& x) {
  return x && std::isfinite(*x) && *x > 0 ? x : std::nullopt;
}

}  // namespace

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df >= 1)) throw std::invalid_argument("student_t_quantile: p in (0, 1), df >= 1");
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1.0 - p, df);
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::optional<ProcessInterval> across_processes(const std::vector<double>& ratios, double confidence) {
  std::vector<double> logs;
  for (double r : ratios)
    if (std::isfinite(r) && r > 0) logs.push_back(std::log(r));
  const std::size_t k = logs.size();
  if (k < 2) return std::nullopt;
  double mean = 0;
  for (double x : logs) mean += x;
  mean /= static_cast<double>(k);
  double ss = 0;
  for (double x : logs) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / static_cast<double>(k - 1));
  const double half =
      student_t_quantile(0.5 + confidence / 2.0, static_cast<double>(k - 1)) * sd / std::sqrt(static_cast<double>(k));
  return ProcessInterval{std::exp(mean), std::exp(mean - half), std::exp(mean + half), k};
}

std::vector<double> ComparisonAcross::ratios() const {
  std::vector<double> out;
  if (!speedup || !(std::isfinite(*speedup) && *speedup > 0)) return out;
  out.push_back(*speedup);
  for (double r : further)
    if (std::isfinite(r) && r > 0) out.push_back(r);
  return out;
}

std::vector<ComparisonAcross> comparisons_across(const json& first_cases, const std::vector<CaseRepeat>& repeats,
                                                 double confidence) {
  std::vector<ComparisonAcross> out;
  if (!first_cases.is_array()) return out;
  for (const auto& c : first_cases) {
    if (!c.is_object() || !c.contains("comparisons") || !c["comparisons"].is_array()) continue;
    const std::string case_name = c.value("name", "");
    for (const auto& cm : c["comparisons"]) {
      const ComparisonRepeat first = comparison_record(cm);
      ComparisonAcross a;
      a.case_name = case_name;
      a.baseline = first.baseline;
      a.variant = first.variant;
      a.speedup = positive(first.speedup);
      a.ci_low = positive(first.ci_low);
      a.ci_high = positive(first.ci_high);
      a.below_floor = first.below_floor.value_or(false);
      a.rounds = first.rounds;
      a.confidence = cm.value("confidence", confidence);
      for (const auto& r : repeats) {
        if (r.case_name != case_name) continue;
        for (const auto& rc : r.comparisons)
          if (rc.baseline == a.baseline && rc.variant == a.variant && rc.speedup) a.further.push_back(*rc.speedup);
      }
      out.push_back(std::move(a));
    }
  }
  return out;
}

std::optional<EstimateRecord> estimate_of(const ComparisonAcross& c) {
  const auto ratios = c.ratios();
  if (ratios.empty()) return std::nullopt;
  EstimateRecord e;
  e.case_name = c.case_name;
  e.baseline = c.baseline;
  e.variant = c.variant;
  e.confidence = c.confidence;
  if (const auto p = across_processes(ratios, c.confidence)) {
    e.speedup = p->estimate;
    e.ci_low = p->low;
    e.ci_high = p->high;
    e.across_processes = true;
    e.n = static_cast<std::int64_t>(p->processes);
    e.df = static_cast<std::int64_t>(p->processes) - 1;
    return e;
  }
  // One process: its own ratio and interval; none below the rounds floor.
  e.speedup = ratios.front();
  if (!c.below_floor && c.ci_low && c.ci_high) {
    e.ci_low = c.ci_low;
    e.ci_high = c.ci_high;
  }
  e.n = c.rounds;
  return e;
}

json to_json(const EstimateRecord& e) {
  return {{"case", e.case_name},         {"baseline", e.baseline},
          {"variant", e.variant},        {"speedup", e.speedup},
          {"ci_low", or_null(e.ci_low)}, {"ci_high", or_null(e.ci_high)},
          {"confidence", e.confidence},  {"unit", e.across_processes ? "process" : "round"},
          {"n", or_null(e.n)},           {"df", or_null(e.df)}};
}

double widest_process_interval(const std::vector<ComparisonAcross>& comparisons) {
  double widest = 0;
  for (const auto& c : comparisons)
    if (const auto p = across_processes(c.ratios(), c.confidence))
      widest = std::max(widest, (p->high - p->low) / p->estimate);
  return widest;
}

bool has_ratios(const std::vector<ComparisonAcross>& comparisons) {
  for (const auto& c : comparisons)
    if (!c.ratios().empty()) return true;
  return false;
}

}  // namespace optbench
