#pragma once
// Runs one case: builds its variants (in this process, or each in a process of
// its own when the case asks for isolation), warms them up, samples them
// interleaved until the stopping rule holds, verifies outputs, and returns the
// case's result (raw samples included; harness/case_result_json.h writes it).
// Errors in one variant (out of memory, an exception, a dead worker) are
// recorded and the others go on.
#include <atomic>
#include <map>
#include <optional>
#include <string>

#include "harness/case_result.h"
#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/isolation/child_runner.h"
#include "harness/measure_config.h"

namespace optbench {

struct CaseLimits {
  double max_time_s;                 // cap on this case's sampling (its share of a --time-budget)
  std::optional<double> deadline_s;  // on backend.now(): the run's budget ends; nothing starts after it
  std::optional<WorkerOrigin> origin = std::nullopt;  // where worker processes find the case (needed for isolation)
  // A further process of the experiment (MeasureConfig::processes): only the
  // timed rounds, since cold first steps, profiled windows and verification
  // were taken in the first and are not what varies between processes.
  bool repeat = false;
  // The experiment's profiling process (ExperimentChildSettings::profiling): its
  // rounds size the windows, then the windows; no cold steps and no
  // verification, which the first process took.
  bool profiling = false;
  // There: the first process's median step per variant (its windows' timed
  // step, in place of rounds of its own) and the case's wall time there (what
  // --breakdown auto sizes a window's share against).
  std::map<std::string, double> timed_step_s = {};
  std::optional<double> first_case_s = std::nullopt;
  // What a variant of an earlier case in this process took to build (the
  // most, of each case's average) where its case declared a set-up
  // (Case::setup_s): a measured figure the next such case expects at least,
  // since the declared one is an estimate from another machine.
  double setup_seen_s = 0;
};

CaseResult run_case(const Case& c, DeviceBackend& backend, const MeasureConfig& cfg, const CaseLimits& limits,
                    const std::atomic<bool>& stop_requested);

}  // namespace optbench
