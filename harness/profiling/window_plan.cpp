#include "harness/profiling/window_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace optbench::profiling {

const char* to_string(BreakdownMode m) {
  switch (m) {
    case BreakdownMode::off: return "off";
    case BreakdownMode::within_share: return "auto";
    case BreakdownMode::always: return "on";
  }
  return "auto";
}

BreakdownMode parse_breakdown_mode(const std::string& s) {
  if (s == "off") return BreakdownMode::off;
  if (s == "auto") return BreakdownMode::within_share;
  if (s == "on") return BreakdownMode::always;
  throw std::invalid_argument("unknown --breakdown '" + s + "' (auto, on or off)");
}

double window_cost_s(int steps, bool warm_step, double step_s) {
  return static_cast<double>(steps + (warm_step ? 1 : 0)) * step_s * 1.5 + 0.02;
}

WindowPlan plan_window(const BreakdownConfig& c, double step_s, std::size_t variants, double case_s) {
  WindowPlan p;
  if (c.mode == BreakdownMode::off) {
    p.skip_reason = "profiling off (--breakdown off, or the quick profile without --breakdown on)";
    return p;
  }
  step_s = std::max(step_s, 1e-7);
  auto cost = [&](int steps) { return window_cost_s(steps, p.warm_step, step_s); };
  // About 50 ms of steps: enough events to be representative, few enough to be cheap.
  p.steps = static_cast<int>(std::clamp(std::ceil(0.05 / step_s), 1.0, 20.0));
  // A step shorter than the profiler's first-use costs needs a step before the window.
  p.warm_step = step_s < 0.05;
  if (c.mode == BreakdownMode::within_share) {
    const double allowance = c.max_share * case_s / static_cast<double>(std::max<std::size_t>(variants, 1));
    while (p.steps > 1 && cost(p.steps) > allowance) --p.steps;
    if (cost(p.steps) > allowance) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "not profiled: a one-step window (about %.3g s per variant) would cost more than %.0f%% of the "
                    "case's %.3g s (--breakdown on profiles anyway)",
                    cost(1), 100 * c.max_share, case_s);
      p.skip_reason = buf;
      p.steps = 0;
      return p;
    }
  }
  p.cost_s = cost(p.steps);
  return p;
}

nlohmann::json to_json(const BreakdownConfig& c) {
  return {{"mode", to_string(c.mode)}, {"trace_dir", c.trace_dir}, {"max_share", c.max_share},
          {"tolerance", c.tolerance}};
}

}  // namespace optbench::profiling
