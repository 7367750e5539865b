#pragma once
// A test-only experiment for process isolation: each workload reports its
// process id and whether it was the first workload built in its process (the
// CPU stand-in for process-wide state such as cuDNN's plan cache). Linked into
// optbench_probe (an optbench CLI with only this experiment) and the unit tests.
#include <memory>

#include "harness/experiment.h"

namespace optbench::testing {

std::unique_ptr<Experiment> make_isolation_probe();

}  // namespace optbench::testing
