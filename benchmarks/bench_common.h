#pragma once
// Google Benchmark micro-benchmarks timed by the harness's own timer through
// UseManualTime, so they measure exactly what experiments measure.
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>

#include "harness/device.h"
#include "harness/warmup.h"

namespace optbench::bench {

// Shared by every benchmark in the process (one CUDA context, one NVML handle).
DeviceBackend& backend();
DeviceKind device();

// One Google Benchmark iteration = one harness sample of `iters` steps; the
// manual time is the per-step primary time (events on a GPU, host clock on a CPU).
inline void run_manual(benchmark::State& state, const std::function<void()>& step, std::int64_t iters,
                       TimingMode mode = TimingMode::batched) {
  for (auto _ : state) {
    const Sample s = backend().time(step, iters, mode);
    state.SetIterationTime(primary_time(s, mode));
  }
  state.counters["iters_per_sample"] = static_cast<double>(iters);
}

void register_harness_overhead();
void register_matmul_shapes();

}  // namespace optbench::bench
