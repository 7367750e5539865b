#pragma once
// A test-only experiment that kills its process with SIGSEGV in its second case,
// after printing one line: the suite must record it as crashed (with the signal
// and that line), keep its first case, and go on with the next experiment.
// With OPTBENCH_CRASH_PROBE=hang the second case hangs instead: the suite must
// kill it after --hang-timeout and record it as hung.
// Registered in optbench_probe.
#include <memory>

#include "harness/experiment.h"

namespace optbench::testing {

std::unique_ptr<Experiment> make_crash_probe();

}  // namespace optbench::testing
