#pragma once
// A test-only experiment for process isolation: each workload reports its
// process id and whether it was the first workload built in its process (the
// CPU stand-in for process-wide state such as cuDNN's plan cache). Linked into
// optbench_probe (an optbench CLI with only this experiment) and the unit tests.
#include <memory>

#include "harness/experiment.h"

namespace optbench::testing {

std::unique_ptr<Experiment> make_isolation_probe();

// The first step of the first workload built in a process sleeps this long: a
// cold first step, seen only in a fresh process.
inline constexpr int kColdFirstStepMs = 20;

}  // namespace optbench::testing
