#include "harness/profiling/chrome_trace.h"

#include <cmath>
#include <functional>
#include <string>

#include "harness/profiling/categories.h"

namespace optbench::profiling {
namespace {

std::uint64_t microseconds_to_ns(const nlohmann::json& v) {
  return static_cast<std::uint64_t>(std::llround(v.get<double>() * 1e3));
}

// Thread ids are numbers in Kineto's traces and strings in some others.
std::uint64_t thread_of(const nlohmann::json& e) {
  const auto& tid = e.contains("tid") ? e["tid"] : nlohmann::json(0);
  const auto& pid = e.contains("pid") ? e["pid"] : nlohmann::json(0);
  return std::hash<std::string>{}(pid.dump() + "/" + tid.dump());
}

}  // namespace

std::vector<TraceEvent> events_from_chrome_trace(const nlohmann::json& trace) {
  std::vector<TraceEvent> out;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.value("ph", "") != "X" || !e.contains("ts") || !e.contains("dur")) continue;
    const std::string cat = e.value("cat", "");
    TraceEvent t;
    t.name = e.value("name", "");
    if (cat == "cpu_op")
      t.kind = EventKind::cpu_op;
    else if (cat == "user_annotation")
      t.kind = EventKind::annotation;
    else if (cat == "kernel")
      t.kind = EventKind::kernel;
    else if (cat == "gpu_memcpy")
      t.kind = EventKind::memcpy;
    else if (cat == "gpu_memset")
      t.kind = EventKind::memset;
    else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      t.kind = is_launch_call(t.name) ? EventKind::launch : EventKind::runtime;
      t.driver = cat == "cuda_driver";
    } else {
      continue;
    }
    t.start_ns = microseconds_to_ns(e["ts"]);
    t.end_ns = t.start_ns + microseconds_to_ns(e["dur"]);
    t.thread = thread_of(e);
    if (const auto args = e.find("args"); args != e.end() && args->is_object())
      if (const auto seq = args->find("Sequence number"); seq != args->end() && seq->is_number_integer())
        t.sequence = seq->get<std::int64_t>();
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace optbench::profiling
