#include "harness/profiling/kineto_window.h"

#include <ATen/record_function.h>
#include <kineto/ActivityType.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "harness/json_optional.h"
#include "harness/profiling/breakdown.h"
#include "harness/profiling/categories.h"
#include "harness/profiling/profiler_role.h"
#include "harness/profiling/scopes.h"
#include "harness/profiling/window_steps.h"

namespace optbench::profiling {
namespace {

namespace tp = torch::profiler::impl;
using torch::autograd::profiler::KinetoEvent;
using json = nlohmann::json;

TraceEvent convert(const KinetoEvent& k) {
  TraceEvent e;
  e.name = k.name();
  e.start_ns = k.startNs();
  e.end_ns = k.endNs();
  e.thread = k.startThreadId();
  e.sequence = k.sequenceNr();
  switch (static_cast<libkineto::ActivityType>(k.activityType())) {
    case libkineto::ActivityType::CPU_OP:
      e.kind = EventKind::cpu_op;
      break;
    case libkineto::ActivityType::USER_ANNOTATION:
      e.kind = EventKind::annotation;
      break;
    case libkineto::ActivityType::CONCURRENT_KERNEL:
      e.kind = EventKind::kernel;
      break;
    case libkineto::ActivityType::GPU_MEMCPY:
      e.kind = EventKind::memcpy;
      break;
    case libkineto::ActivityType::GPU_MEMSET:
      e.kind = EventKind::memset;
      break;
    case libkineto::ActivityType::CUDA_RUNTIME:
    case libkineto::ActivityType::CUDA_DRIVER:
      e.kind = is_launch_call(e.name) ? EventKind::launch : EventKind::runtime;
      e.driver = static_cast<libkineto::ActivityType>(k.activityType()) == libkineto::ActivityType::CUDA_DRIVER;
      break;
    default:
      e.kind = EventKind::other;
      break;
  }
  return e;
}

}  // namespace

namespace {

std::set<tp::ActivityType> activities_for(bool cuda) {
  std::set<tp::ActivityType> activities = {tp::ActivityType::CPU};
  if (cuda) activities.insert(tp::ActivityType::CUDA);
  return activities;
}

}  // namespace

void set_up_cupti_before_capture(DeviceBackend& backend) {
  if (backend.kind() != DeviceKind::cuda) return;
  if (in_timed_process()) throw std::logic_error("CUPTI set up in a process whose times are published");
  const auto activities = activities_for(true);
  const tp::ProfilerConfig config(tp::ProfilerState::KINETO);
  torch::autograd::profiler::prepareProfiler(config, activities);
  torch::autograd::profiler::enableProfiler(config, activities);
  torch::autograd::profiler::disableProfiler();
}

BreakdownFigures profile_window(const std::function<void()>& step, DeviceBackend& backend, const WindowRequest& r) {
  if (r.steps < 1) throw std::invalid_argument("a profiled window needs at least one step");
  if (in_timed_process())
    throw std::logic_error("a profiled window in a process whose times are published (profiler_role.h)");
  const bool cuda = backend.kind() == DeviceKind::cuda;
  const auto activities = activities_for(cuda);
  const tp::ProfilerConfig config(tp::ProfilerState::KINETO);
  // Without an NVIDIA driver Kineto logs "gpuGetDeviceCount failed" as an error
  // when it starts: expected on a CPU run, so its log is quietened there (its
  // first start reads KINETO_LOG_LEVEL; a level the user set is kept).
  if (!cuda) ::setenv("KINETO_LOG_LEVEL", "5", /*overwrite=*/0);
  backend.synchronize();
  torch::autograd::profiler::prepareProfiler(config, activities);
  torch::autograd::profiler::enableProfiler(config, activities);
  const bool warm_step = r.warm_step || cuda;
  StepRule rule;
  rule.min_steps = r.min_steps > 0 ? std::min(r.min_steps, r.steps) : r.steps;
  rule.max_steps = r.steps;
  rule.target_se = r.target_se;
  rule.grow = r.grow && !cuda;
  WindowSteps ran;
  try {
    if (warm_step) {
      step();
      backend.synchronize();
    }
    RECORD_USER_SCOPE(kWindowScope);
    ran = run_window_steps(
        [&] {
          RECORD_USER_SCOPE(kStepScope);  // each step's own time (breakdown's step_s)
          step();
        },
        backend, rule);
    backend.synchronize();  // the window ends when the device's work has
  } catch (...) {
    torch::autograd::profiler::disableProfiler();
    throw;
  }
  const auto result = torch::autograd::profiler::disableProfiler();
  std::vector<TraceEvent> events;
  Window w;
  w.steps = static_cast<int>(ran.step_s.size());
  w.device_timeline = cuda;
  w.timed_step_s = r.timed_step_s;
  w.tolerance = r.tolerance;
  bool found = false;
  for (const auto& k : result->events()) {
    TraceEvent e = convert(k);
    if (e.name == kWindowScope) {  // the host's annotation; Kineto mirrors it on the GPU's timeline too
      if (!found &&
          static_cast<libkineto::ActivityType>(k.activityType()) != libkineto::ActivityType::GPU_USER_ANNOTATION) {
        w.start_ns = e.start_ns;
        w.end_ns = e.end_ns;
        found = true;
      }
      continue;
    }
    events.push_back(std::move(e));
  }
  if (!found) throw std::runtime_error("the profiler recorded no window annotation (is Kineto built in?)");
  BreakdownFigures b = breakdown(events, w);
  b.window = window_record(rule, ran, warm_step);
  if (!r.trace_path.empty()) {
    result->save(r.trace_path);
    b.trace = r.trace_path;
  }
  return b;
}

json to_json(const WindowRequest& r) {
  return {{"steps", r.steps},         {"min_steps", r.min_steps},  {"target_se", r.target_se},
          {"grow", r.grow},           {"warm_step", r.warm_step},  {"timed_step_s", or_null(r.timed_step_s)},
          {"tolerance", r.tolerance}, {"trace_path", r.trace_path}};
}

WindowRequest window_request_from_json(const json& j) {
  WindowRequest r;
  r.steps = j.at("steps").get<int>();
  r.min_steps = j.at("min_steps").get<int>();
  r.target_se = j.at("target_se").get<double>();
  r.grow = j.at("grow").get<bool>();
  r.warm_step = j.at("warm_step").get<bool>();
  if (!j.at("timed_step_s").is_null()) r.timed_step_s = j.at("timed_step_s").get<double>();
  r.tolerance = j.at("tolerance").get<double>();
  r.trace_path = j.at("trace_path").get<std::string>();
  return r;
}

}  // namespace optbench::profiling
