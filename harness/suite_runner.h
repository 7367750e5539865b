#pragma once
// The whole run: selects experiments, enumerates their cases, runs each on the
// chosen device, and writes the results file as it goes.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/measure_config.h"
#include "harness/run_settings.h"

namespace optbench {

// The run's settings (what travels to an experiment's process and is recorded
// as `config`) and what stays with this process. A member added here is either
// a setting (put it in RunSettings) or stays here for a reason written beside
// it; tests/test_run_settings.cpp counts these members so neither is forgotten.
struct SuiteOptions : RunSettings {
  std::string out_path;           // a guarded experiment's process gets its part file instead
  std::vector<std::string> argv;  // for the environment block, which such a process does not capture
  // Runs isolated variants (`_worker`) and guarded experiments (`_experiment`);
  // such a process's own is itself.
  std::string worker_executable = "/proc/self/exe";
  // Each experiment in a child process of its own (`optbench _experiment`), so
  // a crash costs only that experiment (harness/experiment_guard.h). The CLI's
  // default; never in such a child.
  bool guard_experiments = false;
  // Set in such a child: no environment capture (the suite's file has it), and
  // the budget shared with the suite's later experiments as if they were here
  // (ExperimentChildSettings carries these, and which of its processes this is).
  bool guarded_child = false;
  std::size_t later_experiments = 0, prior_cases = 0, prior_experiments = 0;
  std::size_t process_index = 0;
  bool profiling = false;                                             // ExperimentChildSettings::profiling
  std::map<std::string, std::map<std::string, double>> timed_step_s;  // ExperimentChildSettings::timed_step_s
  std::map<std::string, double> case_wall_s;                          // ExperimentChildSettings::case_wall_s
  std::map<std::string, std::vector<std::string>> repeat_only;        // ExperimentChildSettings::repeat_only
};

// A guarded experiment's process runs from exactly what it was given.
SuiteOptions suite_options_for_child(const ExperimentChildSettings& s);

// Exit codes: 0 all ran and verified, 1 a case failed, a verification failed or
// an experiment crashed or hung (results still written), 2 usage error or --out
// held by another run (nothing run; thrown before any work), 74 the results
// file could not be written (sysexits' EX_IOERR: disk full, file size limit;
// the file keeps its last whole version), 130 interrupted.
constexpr int kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitWriteFailed = 74, kExitInterrupted = 130;

int run_suite(const SuiteOptions& opts);

}  // namespace optbench
