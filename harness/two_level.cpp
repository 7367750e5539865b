#include "harness/two_level.h"

#include <cmath>
#include <limits>
#include <stdexcept>

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

bool positive(const json& v) { return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0; }

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

std::vector<double> process_ratios(const json& cm) {
  std::vector<double> out;
  if (!positive(cm.value("speedup", json()))) return out;
  out.push_back(cm["speedup"].get<double>());
  for (const auto& r : cm.value("repeats", json::array()))
    if (r.is_object() && positive(r.value("speedup", json()))) out.push_back(r["speedup"].get<double>());
  return out;
}

json estimate_record(const json& cm, double confidence) {
  const auto ratios = process_ratios(cm);
  if (ratios.empty()) return nullptr;
  const double c = cm.value("confidence", confidence);
  if (const auto p = across_processes(ratios, c))
    return {{"speedup", p->estimate}, {"ci_low", p->low},  {"ci_high", p->high},    {"confidence", c},
            {"unit", "process"},      {"n", p->processes}, {"df", p->processes - 1}};
  // One process: its own ratio and interval; none below the rounds floor.
  const bool has_ci =
      !cm.value("below_floor", false) && positive(cm.value("ci_low", json())) && positive(cm.value("ci_high", json()));
  return {{"speedup", ratios.front()},
          {"ci_low", has_ci ? cm["ci_low"] : json(nullptr)},
          {"ci_high", has_ci ? cm["ci_high"] : json(nullptr)},
          {"confidence", c},
          {"unit", "round"},
          {"n", cm.value("rounds", json(nullptr))},
          {"df", nullptr}};
}

void add_estimates(json& cases, double confidence) {
  for (auto& c : cases) {
    if (!c.is_object() || !c.contains("comparisons") || !c["comparisons"].is_array()) continue;
    for (auto& cm : c["comparisons"]) {
      json e = estimate_record(cm, confidence);
      if (!e.is_null()) cm["estimate"] = std::move(e);
    }
  }
}

double widest_process_interval(const json& cases, double confidence) {
  double widest = 0;
  for (const auto& c : cases) {
    if (!c.is_object() || !c.contains("comparisons") || !c["comparisons"].is_array()) continue;
    for (const auto& cm : c["comparisons"])
      if (const auto p = across_processes(process_ratios(cm), cm.value("confidence", confidence)))
        widest = std::max(widest, (p->high - p->low) / p->estimate);
  }
  return widest;
}

bool has_ratios(const json& cases) {
  for (const auto& c : cases) {
    if (!c.is_object() || !c.contains("comparisons") || !c["comparisons"].is_array()) continue;
    for (const auto& cm : c["comparisons"])
      if (!process_ratios(cm).empty()) return true;
  }
  return false;
}

}  // namespace optbench
