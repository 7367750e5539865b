#pragma once
// One profiler event reduced to what the breakdown needs, so the arithmetic
// (harness/profiling/breakdown.h) is tested on recorded or synthetic events
// without a profiler, and the profiler glue (kineto_window.h) stays small.
#include <cstdint>
#include <string>

namespace optbench::profiling {

enum class EventKind {
  cpu_op,      // an ATen operator (or other RecordFunction) on a host thread
  kernel,      // a kernel on the device
  memcpy,      // a copy on the device timeline ("Memcpy HtoD (Pinned -> Device)")
  memset,      // a memset on the device timeline
  launch,      // a host API call that launches device work (cudaLaunchKernel, cudaGraphLaunch)
  runtime,     // any other CUDA runtime/driver call on the host
  annotation,  // a user scope on a host thread (scopes.h): never timed as an operator
  other,       // device-side annotations, instant events: not counted
};

struct TraceEvent {
  std::string name;
  EventKind kind = EventKind::other;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint64_t thread = 0;  // host thread (cpu_op, launch, runtime)
  bool driver = false;       // a driver-API launch (cuLaunchKernel): may sit inside a runtime launch
  // The autograd sequence number an operator gets while grad mode is on (the
  // node it records shares it); -1 where none.
  std::int64_t sequence = -1;
  std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

}  // namespace optbench::profiling
