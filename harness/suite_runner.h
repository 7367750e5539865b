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
  std::string worker_executable = "/proc/self/exe";  // runs isolated variants (`_worker`)
};

// Exit codes: 0 all ran and verified, 1 a case failed or a verification failed
// (results still written), 130 interrupted. Usage errors throw before any work.
constexpr int kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitInterrupted = 130;

int run_suite(const SuiteOptions& opts);

}  // namespace optbench
