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

// One Google Benchmark iteration = one harness sample of `iters` steps; its
// manual time is the sample's primary time (events on a GPU, host clock on a
// CPU), and the counter per_step_s is the time of one step.
inline void run_manual(benchmark::State& state, const std::function<void()>& step, std::int64_t iters,
                       TimingMode mode = TimingMode::batched) {
  double per_step_sum = 0;
  for (auto _ : state) {
    const Sample s = backend().time(step, iters, mode);
    const double per_step = primary_time(s, mode);
    per_step_sum += per_step;
    state.SetIterationTime(per_step * static_cast<double>(iters));
  }
  state.counters["per_step_s"] = benchmark::Counter(per_step_sum, benchmark::Counter::kAvgIterations);
  state.counters["steps_per_iteration"] = static_cast<double>(iters);
}

void register_harness_overhead();
void register_matmul_shapes();

}  // namespace optbench::bench
