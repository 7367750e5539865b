#pragma once
// How many steps a profiled window runs: window_plan.h's rule applied while the
// window runs. At least `min_steps`; then, where the steps' host times measure
// them (a CPU), one more step at a time until the standard error of the mean
// step is within `target_se` of it, and at most `max_steps`. Nothing here
// touches the profiler, so the rule is tested on the simulated clock
// (tests/fake_backend.h).
#include <functional>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/profiling/breakdown_figures.h"

namespace optbench::profiling {

struct StepRule {
  int min_steps = 1;
  int max_steps = 1;
  double target_se = 0.02;  // of the mean step, relative to it
  // false: exactly min_steps. On CUDA a step's host time is its launches, not
  // its device time (the window synchronises once, at its end), so it cannot
  // say when the mean has settled.
  bool grow = true;
};

struct WindowSteps {
  std::vector<double> step_s;  // each step's time on the backend's clock
  double se = 0;               // relative standard error of their mean; 0 under two steps
  std::string stopped;         // "settled" | "max_steps" | "planned" (grow false)
};

// sd / sqrt(n) / mean; 0 under two values or a mean of 0.
double relative_se(const std::vector<double>& x);

WindowSteps run_window_steps(const std::function<void()>& step, const DeviceBackend& clock, const StepRule& r);

// The breakdown's "window" record: the rule and what it ran.
WindowRecord window_record(const StepRule& r, const WindowSteps& s, bool warm_step);

}  // namespace optbench::profiling
