#pragma once
// Events from a Chrome trace as the PyTorch profiler writes it (--trace-dir,
// torch.profiler's export_chrome_trace): complete events ("ph": "X") whose "cat"
// the breakdown reads (cpu_op, user_annotation, kernel, gpu_memcpy, gpu_memset,
// cuda_runtime, cuda_driver), times in microseconds, an operator's autograd
// sequence number from its args. So the breakdown can be computed on a
// trace recorded elsewhere, e.g. a GPU's trace checked on a CPU-only machine.
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/profiling/trace_event.h"

namespace optbench::profiling {

std::vector<TraceEvent> events_from_chrome_trace(const nlohmann::json& trace);

}  // namespace optbench::profiling
