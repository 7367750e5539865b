#pragma once
// The whole run: selects experiments, enumerates their cases, runs each on the
// chosen device, and writes the results file as it goes.
#include <optional>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/measure_config.h"

namespace optbench {

struct SuiteOptions {
  DeviceKind device = DeviceKind::cpu;
  Profile profile = Profile::standard;
  MeasureConfig measure;
  std::string filter = ".*";
  std::string out_path;
  std::optional<double> time_budget_s;
  std::vector<std::string> argv;
  bool progress = true;
  std::string worker_executable = "/proc/self/exe";  // runs isolated variants (`_worker`) and guarded experiments
  // Each experiment in a child `optbench run` of its own, so a crash costs only
  // that experiment (harness/experiment_guard.h). The CLI's default.
  bool guard_experiments = false;
  // Set in such a child: no environment capture (the suite's file has it), and
  // the budget shared with the suite's later experiments as if they were here.
  bool guarded_child = false;
  std::size_t later_experiments = 0, prior_cases = 0, prior_experiments = 0;
  // A guarded experiment's process that makes no progress for this long is
  // killed and the experiment recorded as "hung" (harness/experiment_guard.h).
  // Unset: default_hang_timeout_s(the per-case cap).
  std::optional<double> hang_timeout_s;
};

// Exit codes: 0 all ran and verified, 1 a case failed, a verification failed or
// an experiment crashed or hung (results still written), 2 usage error or --out
// held by another run (nothing run; thrown before any work), 74 the results
// file could not be written (sysexits' EX_IOERR: disk full, file size limit;
// the file keeps its last whole version), 130 interrupted.
constexpr int kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitWriteFailed = 74, kExitInterrupted = 130;

int run_suite(const SuiteOptions& opts);

}  // namespace optbench
