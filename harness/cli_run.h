#pragma once
// `optbench run`: its options (CLI11) and the SuiteOptions they make.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/suite_runner.h"

namespace CLI {
class App;
}

namespace optbench {

// What the command line said, before the profile's defaults are applied.
struct RunFlags {
  std::vector<std::string> names;
  std::string filter = ".*", device = "auto", out, interleave = "random", breakdown = "auto", trace_dir;
  bool quick = false, full = false, overwrite = false, no_progress = false, in_process = false, isolate = false,
       repeat_all = false;
  double time_budget = 0, max_time = 0, target_ci = 0, hang_timeout = 0;
  int min_samples = 0, cold_processes = 0, processes = 0, min_processes = 0;
  std::uint64_t seed = 42;
};

CLI::App* add_run_command(CLI::App& app, RunFlags& f);

// The run's settings: the profile's, then each flag given. Throws std::invalid_argument
// (one line) for a combination no run can honour, before anything is created; then
// creates --trace-dir.
SuiteOptions suite_options_from(const RunFlags& f, const std::vector<std::string>& argv);

}  // namespace optbench
