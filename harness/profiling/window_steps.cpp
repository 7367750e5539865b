#include "harness/profiling/window_steps.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace optbench::profiling {

double relative_se(const std::vector<double>& x) {
  const std::size_t n = x.size();
  if (n < 2) return 0.0;
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  if (!(mean > 0)) return 0.0;
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(n - 1)) / std::sqrt(static_cast<double>(n)) / mean;
}

WindowSteps run_window_steps(const std::function<void()>& step, const DeviceBackend& clock, const StepRule& r) {
  if (r.min_steps < 1 || r.max_steps < r.min_steps)
    throw std::invalid_argument("a profiled window needs 1 <= min_steps <= max_steps");
  WindowSteps w;
  for (;;) {
    const double t0 = clock.now();
    step();
    w.step_s.push_back(clock.now() - t0);
    const int n = static_cast<int>(w.step_s.size());
    if (n < r.min_steps) continue;
    if (!r.grow) {
      w.stopped = "planned";
      break;
    }
    // Two steps at least: one step has no spread to settle.
    if (n >= 2 && relative_se(w.step_s) <= r.target_se) {
      w.stopped = "settled";
      break;
    }
    if (n >= r.max_steps) {
      w.stopped = "max_steps";
      break;
    }
  }
  w.se = relative_se(w.step_s);
  return w;
}

WindowRecord window_record(const StepRule& r, const WindowSteps& s, bool warm_step) {
  return {r.min_steps, r.max_steps, r.target_se, r.grow, warm_step, s.stopped, s.se};
}

}  // namespace optbench::profiling
