#pragma once
// How hard to measure: warm-up, sample length, stopping rule, interleaving. The
// three profiles trade time for precision; every field can be overridden.
#include <cstdint>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/interleave.h"
#include "harness/profiling/window_plan.h"
#include "harness/stopping_rule.h"

namespace optbench {

struct MeasureConfig {
  StoppingConfig stopping;
  double warmup_min_s = 0.2;
  double warmup_max_s = 2.0;
  // A sample is a batch of steps grown to last at least this long, so event and
  // launch overhead stay negligible (torch.utils.benchmark's block size).
  double target_sample_s = 2e-3;
  std::int64_t max_iters_per_sample = 100000;
  InterleaveOrder order = InterleaveOrder::random;
  std::uint64_t seed = 42;
  bool isolate = false;  // every case's variants in processes of their own (--isolate)
  // Fresh processes per variant a cold first step is taken from, where a case
  // derives from one (Case::cold_first_step): one is one observation, no median.
  int cold_processes = 2;
  // Processes each experiment is measured in (--processes): the first does
  // everything, each further one its timed rounds again, so every comparison has
  // a between-process spread beside its within-process interval. A process's
  // allocator history, page placement and frequency can move a ratio by more
  // than its own interval shows (fused AdamW over 16 MB tensors: 9.5x in one
  // process, 3.8x in the next); one process cannot show that.
  int processes = 1;
  // A profiled window per variant after the timed rounds (--breakdown, --trace-dir).
  profiling::BreakdownConfig breakdown;
};

MeasureConfig measure_config_for(RunProfile p);
// Its JSON (the results' config.measure): harness/run_settings.h.

}  // namespace optbench
