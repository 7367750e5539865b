#include "harness/sample_sequence.h"

#include <chrono>

namespace optbench {

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Sample run_sample(const SampleOps& ops, std::int64_t iters, TimingMode mode) {
  Sample s;
  const std::int64_t faults0 = ops.page_faults ? ops.page_faults() : -1;
  ops.begin();
  const double t0 = ops.host_now();
  for (std::int64_t i = 0; i < iters; ++i) {
    ops.step();
    if (mode == TimingMode::sync) ops.wait_step();
  }
  ops.end();
  ops.wait_end();
  const double t1 = ops.host_now();
  if (faults0 >= 0) {
    const std::int64_t faults1 = ops.page_faults();
    if (faults1 >= faults0) s.minor_faults = static_cast<double>(faults1 - faults0) / static_cast<double>(iters);
  }
  ops.telemetry(s);
  s.iters = iters;
  s.host_s = (t1 - t0) / static_cast<double>(iters);
  return s;
}

}  // namespace optbench
