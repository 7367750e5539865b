#pragma once
// Every optimizer step the experiments take runs inside one profiler scope, so
// a profiled window counts the steps and the operators they call
// (harness/profiling/counters.h: optimizer_steps_per_step, optimizer_ops_per_step).
// Outside a profiled window the scope costs a thread-local check.
#include <ATen/record_function.h>

#include "harness/profiling/scopes.h"

namespace optbench::workloads {

template <class Optimizer>
void scoped_step(Optimizer& opt) {
  RECORD_USER_SCOPE(profiling::kOptimizerStepScope);
  opt.step();
}

}  // namespace optbench::workloads
