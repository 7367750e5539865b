#include "harness/measure_config.h"

namespace optbench {

MeasureConfig measure_config_for(RunProfile p) {
  MeasureConfig c;
  switch (p) {
    case RunProfile::quick:
      c.warmup_min_s = 0.05;
      c.warmup_max_s = 0.5;
      c.target_sample_s = 1e-3;
      c.stopping = {6, 0.1, 1.5, 100000, 0.05, 0.95};
      c.breakdown.mode = profiling::BreakdownMode::off;  // --breakdown on to profile a quick run
      c.cold_processes = 1;
      break;
    case RunProfile::standard:
      // The first process's rounds are one of several observations of what a
      // claim reads, so they need not run long: the processes carry the
      // precision. What is measured once gets the rounds floor and what half a
      // second of rounds makes of its interval, labelled one process.
      c.stopping = {6, 0.3, 0.5, 100000, 0.03, 0.95};
      // At most 8: what stops there is a comparison whose processes disagree
      // (a bimodal loader, a noisy VM), where two more narrow the interval by
      // about a tenth at a quarter more of its cost (docs/method.md).
      c.processes = 8;
      c.min_processes = 3;
      c.process_time_share = 2.0;
      // One cold process per variant: the cold first step is a derived figure
      // beside cudnn_benchmark's verdict, not what the verdict reads.
      c.cold_processes = 1;
      break;
    case RunProfile::full:
      c.warmup_min_s = 1.0;
      c.warmup_max_s = 10.0;
      c.target_sample_s = 5e-3;
      c.stopping = {30, 1.0, 10.0, 100000, 0.01, 0.95};
      c.cold_processes = 3;
      c.processes = 20;
      c.min_processes = 10;
      c.process_target_rel_ci = 0.05;
      c.process_time_share = 3.0;
      c.repeat.stopping = {10, 0.2, 3.0, 100000, 0.02, 0.95};
      c.repeat.warmup_min_s = 0.2;
      c.repeat.warmup_max_s = 2.0;
      break;
  }
  c.repeat.stopping.confidence = c.stopping.confidence;
  return c;
}

}  // namespace optbench
