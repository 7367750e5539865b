#include "harness/profiling/window_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace optbench::profiling {

namespace {
constexpr std::pair<BreakdownMode, const char*> kModeWords[] = {
    {BreakdownMode::auto_, "auto"}, {BreakdownMode::on, "on"}, {BreakdownMode::off, "off"}};
}  // namespace

const char* to_string(BreakdownMode m) {
  for (const auto& [mode, word] : kModeWords)
    if (mode == m) return word;
  return "auto";
}

BreakdownMode parse_breakdown_mode(const std::string& s) {
  for (const auto& [mode, word] : kModeWords)
    if (s == word) return mode;
  throw std::invalid_argument("unknown --breakdown '" + s + "' (auto, on or off)");
}

std::vector<std::string> breakdown_mode_words() {
  std::vector<std::string> words;
  for (const auto& [mode, word] : kModeWords) words.push_back(word);
  return words;
}

double window_cost_s(int steps, bool warm_step, double step_s) {
  return static_cast<double>(steps + (warm_step ? 1 : 0)) * step_s * 1.5 + 0.02;
}

WindowPlan plan_window(const BreakdownConfig& c, double step_s, std::size_t variants, double case_s, bool cuda) {
  WindowPlan p;
  if (c.mode == BreakdownMode::off) {
    p.skip_reason = "profiling off (--breakdown off, or the quick profile without --breakdown on)";
    return p;
  }
  step_s = std::max(step_s, 1e-7);
  const WindowRule& rule = kWindowRule;
  // A step shorter than the profiler's first-use costs needs a step before the
  // window; on CUDA always (CUPTI's set-up, lazy module loads, first launches).
  p.warm_step = cuda || step_s < 0.05;
  p.grow = !cuda;
  auto cost = [&](int steps) { return window_cost_s(steps, p.warm_step, step_s); };
  auto steps_for = [&](double s) { return std::clamp(s / step_s, 1.0, static_cast<double>(rule.max_steps)); };
  p.min_steps = static_cast<int>(std::max(static_cast<double>(rule.min_steps), std::ceil(steps_for(rule.min_s))));
  p.min_steps = std::min(p.min_steps, rule.max_steps);
  // On CUDA the window runs min_steps: room for more would only be estimated, never used.
  p.steps = p.grow ? std::max(p.min_steps, static_cast<int>(std::floor(steps_for(rule.max_s)))) : p.min_steps;
  if (c.mode == BreakdownMode::auto_) {
    const double allowance = c.max_share * case_s / static_cast<double>(std::max<std::size_t>(variants, 1));
    while (p.steps > 1 && cost(p.steps) > allowance) --p.steps;
    if (cost(p.steps) > allowance) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "not profiled: a one-step window (about %.3g s per variant) would cost more than %.0f%% of the "
                    "case's %.3g s (--breakdown on profiles anyway)",
                    cost(1), 100 * c.max_share, case_s);
      p.skip_reason = buf;
      p.steps = p.min_steps = 0;
      return p;
    }
    p.min_steps = std::min(p.min_steps, p.steps);
  }
  p.cost_s = cost(p.steps);
  return p;
}

}  // namespace optbench::profiling
