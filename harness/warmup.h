#pragma once
// Warm-up: run a variant until one-time costs (autotuning, allocator growth,
// handle creation, lazy init) are gone, and size the batch a sample will time.
#include <cstdint>
#include <functional>

#include "harness/device.h"

namespace optbench {

struct WarmupResult {
  double first_run_s = 0;  // the very first step, host time with the device synchronised
  std::int64_t iters = 0;
  double seconds = 0;
  bool stable = false;  // the last timings agreed within kStableSpread
  double step_s = 0;    // per-step estimate at the end of warm-up
};

constexpr double kStableSpread = 0.10;

// Primary time of a sample: events for asynchronous GPU work, host time otherwise.
double primary_time(const Sample& s, TimingMode mode);

// Runs until at least min_s has passed and timings are stable, or max_s has.
WarmupResult warm_up(DeviceBackend& backend, const std::function<void()>& step, TimingMode mode, double min_s,
                     double max_s);

// Steps per sample so that a sample lasts at least target_s.
std::int64_t iters_per_sample(double step_s, double target_s, std::int64_t max_iters);

}  // namespace optbench
