#pragma once
// What a run costs, predicted from what an earlier run recorded: the one cost
// model. `optbench plan` prints it per experiment; the suite reads the same
// further-process figure before it starts an experiment's second process
// (suite_runner.cpp), so the plan and the run's process-time share cannot
// disagree. Inputs are a results file's case records: their time_s splits where
// the file has them; where it has none (files from before the split), every
// second outside sampling and warm-up counts as building, a bound.
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/claimed_comparisons.h"
#include "harness/device.h"
#include "harness/measure_config.h"

namespace optbench {

// Seconds one process spends, by kind of work.
struct ProcessCost {
  double start_s = 0;  // the process's start (budget_plan.h, process_start_cost_s)
  double build_s = 0;  // building variants, and what else a case did outside its timed work
  double warmup_s = 0;
  double sampling_s = 0;
  double verification_s = 0;
  double cold_s = 0;     // fresh processes for cold first steps
  double windows_s = 0;  // profiled windows
  bool bounded = false;  // some case had no time_s split: build_s is an upper bound
  double total_s() const;
};

// An experiment's first process under `m`, from its recorded `cases` (a run made
// with `recorded` settings, its config.measure: how many cold processes it took).
ProcessCost first_process_cost(const nlohmann::json& cases, const MeasureConfig& m, const nlohmann::json& recorded,
                               DeviceKind device);
// One further process: the cases and variants in `only` (empty: all) built,
// warmed up and sampled as MeasureConfig::repeat asks.
ProcessCost further_process_cost(const nlohmann::json& cases, const MeasureConfig& m, DeviceKind device,
                                 const CaseVariants& only);
// The profiling process (--breakdown): the variants in `only` (empty: all)
// built, briefly warmed up, and profiled for a window each; nothing with
// breakdown off.
ProcessCost profiling_process_cost(const nlohmann::json& cases, const MeasureConfig& m, DeviceKind device,
                                   const CaseVariants& only);

// What an experiment's next further process is expected to take: the slowest of
// its further processes so far (`ran` processes, the first included), else
// further_process_cost from its first process's cases.
double expected_further_s(const nlohmann::json& first_cases, const MeasureConfig& m, DeviceKind device,
                          const CaseVariants& only, std::size_t ran, double slowest_so_far_s);
// The reason a further process is not started when it is expected to take more
// than `allowance_s`, what is left of the further processes' share of the run
// (MeasureConfig::process_time_share); "" when it fits.
std::string refuse_by_share(double expected_s, double allowance_s);

// The case record with every time in it `ratio` times as long (a case whose work
// per round changed since it was recorded: Experiment::recorded_work_ratio).
nlohmann::json scaled_case(nlohmann::json recorded, double ratio);

// Work a machine's first run does once and a later one finds cached (an
// AOTInductor compile recorded as a cache miss), in the recorded cases.
double once_per_machine_s(const nlohmann::json& cases);

struct ExperimentPlan {
  std::string name;
  std::string source;  // the file its cases were read from, and of what device
  ProcessCost first, profiling, further;
  int min_processes = 1, max_processes = 1;  // 1: no claim reads it, measured once
  double once_s = 0;
  std::vector<std::string> notes;  // cases read from another file or left out, and why
  double least_s() const;          // with min_processes
  double most_s() const;           // with max_processes
};

// The experiment's plan under `m` on `device`, from its record in a results file
// (experiments[i], with that file's config.measure) and the cases and variants
// a claim reads (`claimed`; a further process repeats those). `keeps` says
// whether the profile planned still runs a recorded case.
ExperimentPlan plan_experiment(const nlohmann::json& record, const nlohmann::json& recorded_measure,
                               const MeasureConfig& m, DeviceKind device, const CaseVariants& claimed,
                               const std::function<bool(const std::string&)>& keeps);

// A run's total from its experiments' plans: at least (every experiment's
// fewest processes) and at most (further processes up to the share of the
// first pass the run allows, MeasureConfig::process_time_share, or their maximum).
struct RunTotal {
  double least_s = 0, most_s = 0, first_pass_s = 0, once_s = 0;
};
RunTotal run_total(const std::vector<ExperimentPlan>& plans, const MeasureConfig& m);

}  // namespace optbench
