#include "harness/sample_sequence.h"

namespace optbench {

Sample run_sample(const SampleOps& ops, std::int64_t iters, TimingMode mode) {
  Sample s;
  ops.begin();
  const double t0 = ops.host_now();
  for (std::int64_t i = 0; i < iters; ++i) {
    ops.step();
    if (mode == TimingMode::sync) ops.wait_step();
  }
  ops.end();
  if (mode == TimingMode::batched) ops.telemetry(s);
  ops.wait_end();
  const double t1 = ops.host_now();
  if (mode == TimingMode::sync) ops.telemetry(s);
  s.iters = iters;
  s.host_s = (t1 - t0) / static_cast<double>(iters);
  return s;
}

}  // namespace optbench
