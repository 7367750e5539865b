#pragma once
// A short window of steps under LibTorch's profiler (Kineto: CPU operators, and
// kernels, copies and launches where the backend is CUDA), run after a case's
// timed rounds and never inside one. Returns the window's breakdown
// (breakdown.h) and, when asked, saves the Chrome trace (Perfetto,
// chrome://tracing) beside it.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/device.h"
#include "harness/profiling/breakdown_figures.h"

namespace optbench::profiling {

struct WindowRequest {
  int steps = 3;      // at most
  int min_steps = 0;  // at least (0: exactly `steps`); between them the window_steps.h rule
  double target_se = 0.02;
  bool grow = true;  // ignored on CUDA, where a window runs min_steps (window_steps.h says why)
  // One step under the profiler before the window: the profiler's own first-use
  // costs (CUPTI's set-up, the first record of each operator) stay out of it.
  // Always on CUDA, whatever is asked.
  bool warm_step = true;
  std::optional<double> timed_step_s;
  double tolerance = 0.25;
  std::string trace_path;  // empty: no trace file
};

// Throws std::logic_error in a timed process (profiler_role.h): no window is
// ever taken where the times are published.
BreakdownFigures profile_window(const std::function<void()>& step, DeviceBackend& backend, const WindowRequest& r);

// Sets CUPTI up with an empty profiled session, before any CUDA graph is
// captured in this process: a graph captured before CUPTI's first start loses
// its kernels from later traces or crashes the replay (kineto#1165, fixed in
// CUPTI 13.1; the cu130 wheels ship 13.0). torch.cuda.graphs does the same
// (torch.profiler._utils._init_for_cuda_graphs). Nothing on a CPU backend.
void set_up_cupti_before_capture(DeviceBackend& backend);

nlohmann::json to_json(const WindowRequest& r);
WindowRequest window_request_from_json(const nlohmann::json& j);

}  // namespace optbench::profiling
