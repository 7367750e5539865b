#pragma once
// The order of one timed sample, apart from what each operation does on a
// device, so that a test without a GPU can check it: between the two host clock
// reads lie the steps and their waits, nothing else. NVML reads (several
// driver calls and handle look-ups, ~0.1 ms or more each) inside that region
// would add to the host time of every sample: the time of host-timed (sync)
// samples, 1-2 ms for pageable copies, loaders and DDP, and the host side of the
// events-vs-host check on batched ones.
#include <cstdint>
#include <functional>

#include "harness/device.h"

namespace optbench {

struct SampleOps {
  std::function<double()> host_now;        // seconds, the steady clock
  std::function<void()> begin;             // device quiet, start event recorded
  std::function<void()> step;              // one step of the work
  std::function<void()> wait_step;         // sync mode: the step's stream synchronised
  std::function<void()> end;               // stop event recorded
  std::function<void()> wait_end;          // stop event synchronised
  std::function<void(Sample&)> telemetry;  // NVML: clocks, throttle reasons, utilisation, power
  // The process's minor page faults so far (harness/page_faults.h); read before
  // the sample and after it, outside the timed region. Empty: not recorded.
  std::function<std::int64_t()> page_faults;
};

// Seconds on the steady clock: the host clock of the real backends.
double steady_now_s();

// Runs the sample; host_s is per step. device_s is the caller's (events). The
// telemetry is read after the second host clock read in both modes: the timed
// region holds only the work, its waits and its events (a batched sample's host
// time is the events-vs-host check's other side). The GPU has just finished the
// batch then, so its clocks are still those it ran at.
Sample run_sample(const SampleOps& ops, std::int64_t iters, TimingMode mode);

}  // namespace optbench
