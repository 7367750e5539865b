#pragma once
// A profiled window's figures, typed where profiling::breakdown makes them, with
// the one serializer that writes them as a variant's "breakdown" (keys in
// harness/results.schema.json) and the reader the experiment's child process
// pipe needs (case_result_json.h). What each figure means: breakdown.h and
// counters.h.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace optbench::profiling {

// One of the names that took the most time: an operator or kernel, its
// category (none in the host-while-idle list), seconds per step and share.
struct RankedName {
  std::string name;
  std::optional<std::string> category;
  double s = 0, share = 0;
};

// HolisticTraceAnalysis's split of the window (breakdown.h).
struct Shares {
  double compute = 0, non_compute = 0, idle = 0;
};

// Per step of the window (counters.h); kernel launches only on a device timeline.
struct MechanismCounts {
  double op_calls = 0, top_level_ops = 0, autograd_nodes = 0, backward_nodes = 0, fills = 0, host_reads = 0,
         optimizer_steps = 0, optimizer_ops = 0;
  std::optional<double> kernel_launches;
};

// The live window's step rule and what it ran (window_steps.h).
struct WindowRecord {
  int min_steps = 1, max_steps = 1;
  double target_se = 0;
  bool grow = true, warm_step = false;
  std::string stopped;  // "settled" | "max_steps" | "planned"
  double step_se = 0;
};

struct BreakdownFigures {
  bool device_timeline = false;  // "device": cuda (device time), else cpu (operators' self time)
  int steps = 1;
  double window_step_s = 0;
  // Against the timed median step; none without one.
  std::optional<double> timed_step_s, overhead;
  std::optional<bool> agrees;
  double tolerance = 0;
  std::vector<std::pair<std::string, double>> categories_s;  // category key, seconds per step (those with time)
  std::optional<std::size_t> device_events;                  // a device timeline's events; none on a CPU
  double busy_s = 0, idle_s = 0;
  Shares shares;
  // A device timeline's; none on a CPU.
  std::optional<double> copy_overlap, launches_per_step, host_s_per_launch, host_ops_while_idle_s;
  std::optional<std::vector<RankedName>> host_ops_while_idle_top;
  std::optional<std::vector<double>> step_s;  // each step's host time, in order; none without steps
  MechanismCounts counters;
  std::vector<RankedName> top;
  std::vector<std::string> other_names;  // names no category knows, most time first
  std::optional<WindowRecord> window;    // the live profiler's; none for a trace read from a file
  std::string trace;                     // the saved trace's path; empty: none saved
};

// The counts' keys in the results, in counters.h's order.
const std::vector<std::string>& counter_keys();

nlohmann::json to_json(const MechanismCounts& c);
nlohmann::json to_json(const BreakdownFigures& b);
BreakdownFigures breakdown_figures_from_json(const nlohmann::json& j);

}  // namespace optbench::profiling
