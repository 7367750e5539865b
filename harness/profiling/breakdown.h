#pragma once
// A profiled window's events turned into where one step's time went: time by
// category (categories.h), the device's idle share in HolisticTraceAnalysis's
// terms (compute: kernels; non-compute: copies and memsets outside kernels;
// idle: neither), copies overlapping kernels, launches per step and the median
// host time of a launch call, host operators running while the device idles, and the top
// kernels. On the device every figure is device time; on the CPU (no device
// timeline) the categories are CPU operators' self time and "idle" is window
// time in no operator (framework overhead, waiting for data). Pure arithmetic
// on events, so it is tested without a profiler.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "harness/profiling/breakdown_figures.h"
#include "harness/profiling/trace_event.h"

namespace optbench::profiling {

struct Window {
  std::uint64_t start_ns = 0, end_ns = 0;  // the window's own annotation, on the events' clock
  int steps = 1;
  bool device_timeline = false;        // CUDA: kernels and copies exist
  std::optional<double> timed_step_s;  // the variant's timed median step, to state the profiler's overhead
  double tolerance = 0.25;             // |overhead| within which the breakdown "agrees" with the timing
};

// A profiled window's figures: the "breakdown" object of a variant's results
// but its status (BreakdownRecord, harness/case_result.h), the live window's
// step rule and the trace's path (kineto_window.cpp adds those).
BreakdownFigures breakdown(const std::vector<TraceEvent>& events, const Window& w);

}  // namespace optbench::profiling
