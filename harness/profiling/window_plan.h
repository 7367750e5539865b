#pragma once
// Whether and how long each variant is profiled after its case's timed rounds
// (--breakdown). By default (standard and full profiles) a variant's window is
// sized to about 50 ms of steps (1 to 20) and shrunk until the case's windows
// together cost at most `max_share` of the case's time so far; a case whose
// single-step windows would cost more is not profiled and says why. The quick
// profile profiles nothing unless asked (--breakdown on).
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
  std::string trace_dir;   // non-empty: a Chrome trace per variant (--trace-dir)
  double max_share = 0.2;  // of the case's time, for BreakdownMode::auto_
  double tolerance = 0.25; // profiled step within this of the timed step: the breakdown "agrees"
};

struct WindowPlan {
  int steps = 0;  // 0: not profiled (skip_reason says why)
  bool warm_step = true;
  double cost_s = 0;  // estimated, per variant
  std::string skip_reason;
};

// Estimated wall time of one variant's window: its steps (and the warm step)
// at up to 1.5x under the profiler, plus set-up (measured on the CPU: about
// 5 ms). Operator-heavy steps cost more (post-processing thousands of events):
// the estimate decides whether a case is profiled; what it cost is recorded
// (time_s.profiling), and under a budget the case's first window corrects it.
double window_cost_s(int steps, bool warm_step, double step_s);

// step_s: the case's slowest variant's; every variant of the case gets the plan.
WindowPlan plan_window(const BreakdownConfig& c, double step_s, std::size_t variants, double case_s);

}  // namespace optbench::profiling
