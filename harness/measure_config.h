#pragma once
// How hard to measure: warm-up, sample length, stopping rule, interleaving. The
// three profiles trade time for precision; every field can be overridden.
#include <cstdint>
#include <optional>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/interleave.h"
#include "harness/profiling/window_plan.h"
#include "harness/stopping_rule.h"

namespace optbench {

// A further process's share of the work: warm-up, then a few rounds to a modest
// precision (its ratio is one observation of the between-process estimate).
struct RepeatConfig {
  StoppingConfig stopping{6, 0.05, 0.75, 100000, 0.05, 0.95};
  double warmup_min_s = 0.05;
  double warmup_max_s = 0.5;
};

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
  // Processes each experiment is measured in: the process is the unit of the
  // reported estimate (harness/two_level.h), since a process's allocator
  // history, page placement and clocks move a ratio more than its own rounds
  // scatter (fused AdamW over 16 MB tensors: 3.5x in one process, 8.7x in the
  // next). pyperf's shape: many short processes. The first times, verifies
  // and takes cold steps; each further one only its timed rounds, under
  // `repeat`, of the comparisons a claim's verdict reads (repeat_all: every
  // one); profiled windows come from a profiling process of their own. After min_processes, more are started while
  // some comparison's between-process interval is wider than
  // process_target_rel_ci, up to `processes` (--processes). Stopping on
  // precision, not on what the interval says about a claim, keeps the rule
  // from biasing the verdict it feeds (optional stopping on a test would).
  int processes = 1;
  int min_processes = 1;
  double process_target_rel_ci = 0.10;
  // Further processes together take at most this share of the time every
  // experiment's first process took (the first pass): the run's cost is then
  // bounded by (1 + share) x its first pass on any machine, and the passes
  // spread what the share allows over the experiments still imprecise. An
  // experiment it leaves with fewer processes has a wider interval, not a
  // stronger verdict. None: no share (--processes alone fixes the count).
  std::optional<double> process_time_share = 0.5;
  // Further processes repeat only the comparisons a claim's verdict reads
  // (harness/claimed_comparisons.h); every other one is measured in the first
  // process alone and labelled so. true: every comparison (--repeat-all).
  bool repeat_all = false;
  RepeatConfig repeat;
  // A profiled window per variant after the timed rounds (--breakdown, --trace-dir).
  profiling::BreakdownConfig breakdown;
};

MeasureConfig measure_config_for(RunProfile p);
// Its JSON (the results' config.measure): harness/run_settings.h.

}  // namespace optbench
