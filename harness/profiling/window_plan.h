#pragma once
// Whether and how long each variant is profiled after its case's timed rounds
// (--breakdown). The rule (README, "Why a variant is faster"): a variant's
// window runs at least kWindowRule.min_steps profiled steps and min_s of them,
// then, on a CPU, one more at a time until the standard error of its mean step
// is within target_se of it (window_steps.h), at most max_steps and max_s of
// steps, after an unrecorded warm step (always on CUDA; on a CPU where a step is
// under 50 ms). So a window's mean, and with it its overhead (profiled step /
// timed step - 1), is measured to +-2% (one standard error) or the window says
// it is not; an overhead beyond BreakdownConfig::tolerance is marked (`agrees`
// false). By default (standard and full profiles) the case's windows are shrunk
// until together they cost at most `max_share` of the case's time so far; a case
// whose single-step windows would cost more is not profiled and says why. The
// quick profile profiles nothing unless asked (--breakdown on).
#include <cstddef>
#include <string>
#include <vector>

namespace optbench::profiling {

// Named as on the command line (--breakdown auto|on|off) and in the results
// (`auto` is a keyword, hence auto_): auto profiles within BreakdownConfig::max_share
// of the case's time, on always, off never.
enum class BreakdownMode { auto_, on, off };
const char* to_string(BreakdownMode m);  // "auto" | "on" | "off"
BreakdownMode parse_breakdown_mode(const std::string& s);
std::vector<std::string> breakdown_mode_words();  // every to_string, for --breakdown's check

struct BreakdownConfig {
  BreakdownMode mode = BreakdownMode::auto_;
  std::string trace_dir;    // non-empty: a Chrome trace per variant (--trace-dir)
  std::string trace_run;    // the run's results file stem, first in each trace's name: two runs never share one
  double max_share = 0.2;   // of the case's time, for BreakdownMode::auto_
  double tolerance = 0.25;  // the bound on |overhead|: within it the breakdown "agrees" with the timing
};

// The window-sizing rule above, in numbers.
struct WindowRule {
  int min_steps = 5;
  double min_s = 0.05;      // of timed steps, at least
  double target_se = 0.02;  // the mean step's standard error, relative to it
  int max_steps = 100;
  double max_s = 0.5;  // of timed steps, at most (the steps min_steps and min_s ask for always run)
};
inline constexpr WindowRule kWindowRule{};

struct WindowPlan {
  int steps = 0;      // at most (0: not profiled, skip_reason says why)
  int min_steps = 0;  // at least; below kWindowRule's where the case's share allows fewer
  bool warm_step = true;
  bool grow = true;   // add steps until the mean settles (a CPU); false: exactly min_steps (CUDA)
  double cost_s = 0;  // estimated, per variant, at `steps`
  std::string skip_reason;
};

// Estimated wall time of one variant's window: its steps (and the warm step)
// at up to 1.5x under the profiler, plus set-up (measured on the CPU: about
// 5 ms). Operator-heavy steps cost more (post-processing thousands of events):
// the estimate decides whether a case is profiled; what it cost is recorded
// (time_s.profiling), and under a budget the case's first window corrects it.
double window_cost_s(int steps, bool warm_step, double step_s);

// step_s: the case's slowest variant's timed step; every variant of the case
// gets the plan. cuda: the device has its own timeline (always a warm step; no growth).
WindowPlan plan_window(const BreakdownConfig& c, double step_s, std::size_t variants, double case_s, bool cuda);

}  // namespace optbench::profiling
