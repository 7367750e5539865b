#pragma once
// What a run is asked to do, as data. A process the run starts (a guarded
// experiment's `optbench _experiment`, an isolated variant's `optbench
// _worker`) is given its settings as one JSON object made by the serializers
// here and runs from exactly that object, never from command-line text rebuilt
// by hand (an option rebuilt that way was once silently dropped). The results
// file's `config` block is the same serialization of RunSettings.
//
// Every settings struct has one field list (run_settings.cpp) that both
// directions read; tests/test_run_settings.cpp checks each struct's member count
// against the keys written and round-trips a value with every leaf changed, so
// a member added and not listed fails a test.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/isolation/worker.h"
#include "harness/measure_config.h"

namespace optbench {

// Every `optbench run` setting that travels to an experiment's process and is
// recorded in the results (`config`). The options that do neither are listed in
// tests/forwarded_options.sh with the reason.
struct RunSettings {
  DeviceKind device = DeviceKind::cpu;
  RunProfile profile = RunProfile::standard;
  std::string filter = ".*";
  std::optional<double> time_budget_s;
  // A guarded experiment's process that makes no progress for this long is
  // killed and the experiment recorded as "hung" (harness/experiment_guard.h).
  // Unset: default_hang_timeout_s(the per-case cap); the CLI records the value used.
  std::optional<double> hang_timeout_s;
  bool progress = true;  // progress lines on stderr
  MeasureConfig measure;
};

// What a guarded experiment's process is given: the run's settings narrowed to
// its experiment and the budget left, the part file it writes, and what the
// suite knows for sharing that budget with its later experiments.
struct ExperimentChildSettings {
  RunSettings run;
  std::string out_path;
  std::size_t later_experiments = 0, prior_cases = 0, prior_experiments = 0;
  // Which of the experiment's measure.processes this is: 0 times, verifies and
  // takes cold steps; a later one only its timed rounds, which the suite adds to
  // the first's cases.
  std::size_t process_index = 0;
  // The experiment's profiling process: a few rounds to size its windows, then a
  // profiled window per variant, which the suite adds to the first process's
  // variants. Its times are never published, and no process whose times are
  // runs the profiler (CUPTI stays attached after a window: pytorch#144455).
  bool profiling = false;
  // The profiling process's reference, from the first process's record: each
  // case's median step per variant and its wall time (CaseLimits).
  std::map<std::string, std::map<std::string, double>> timed_step_s = {};
  std::map<std::string, double> case_wall_s = {};
  // A further process's cases and, per case, the variants it runs (a claim's
  // verdict reads their comparisons: report/claims/claimed.py); empty: all.
  std::map<std::string, std::vector<std::string>> repeat_only;
};

// nlohmann's conventions (json(x), j.get<T>()). from_json takes exactly the keys
// to_json writes (a missing or unknown key throws), less recorded constants
// (measure.data_seed).
void to_json(nlohmann::json& j, const StoppingConfig& s);
void from_json(const nlohmann::json& j, StoppingConfig& s);
void to_json(nlohmann::json& j, const RepeatConfig& s);
void from_json(const nlohmann::json& j, RepeatConfig& s);
void to_json(nlohmann::json& j, const MeasureConfig& s);
void from_json(const nlohmann::json& j, MeasureConfig& s);
void to_json(nlohmann::json& j, const RunSettings& s);
void from_json(const nlohmann::json& j, RunSettings& s);
void to_json(nlohmann::json& j, const ExperimentChildSettings& s);
void from_json(const nlohmann::json& j, ExperimentChildSettings& s);
void to_json(nlohmann::json& j, const RunContext& s);
void from_json(const nlohmann::json& j, RunContext& s);
void to_json(nlohmann::json& j, const WorkerArgs& s);
void from_json(const nlohmann::json& j, WorkerArgs& s);

namespace profiling {
void to_json(nlohmann::json& j, const BreakdownConfig& s);
void from_json(const nlohmann::json& j, BreakdownConfig& s);
}  // namespace profiling

}  // namespace optbench
