#pragma once
// What run_case's phases (harness/case/phases.h) share while one case runs: the
// case and its settings, the budget gate, and each variant's runner beside the
// result it fills in. Internal to the case runner.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "harness/budget_plan.h"
#include "harness/case_result.h"
#include "harness/case_runner.h"
#include "harness/variant_runner.h"

namespace optbench::case_run {

struct VariantState {
  const Variant* spec = nullptr;
  TimingMode mode = TimingMode::batched;
  std::unique_ptr<VariantRunner> runner;
  Prepared prep;
  bool prepared = false;                             // prepare() returned, whatever its status
  std::vector<double> primary;                       // per sample, the time it is judged by
  std::vector<double> gpu_util, memory_util, power;  // nvidia-smi's figures, per sample
  VariantResult result;                              // what the file records, filled in phase by phase
  bool alive() const { return result.status == VariantStatus::ok && runner; }
};

struct CaseRun {
  // Checks the case can run (it has variants; worker processes have an origin)
  // and starts its clock.
  CaseRun(const Case& c, DeviceBackend& backend, const MeasureConfig& cfg, const CaseLimits& limits,
          const std::atomic<bool>& stop_requested);

  const Case& c;
  DeviceBackend& backend;
  const MeasureConfig& cfg;
  const CaseLimits& limits;
  const std::atomic<bool>& stop_requested;
  const BudgetGate gate;
  const bool isolate;  // each variant in a process of its own
  const int floor;     // rounds a confidence interval needs
  const double t_case;
  std::vector<VariantState> vs;  // [0] is the baseline

  // What sampling ended with.
  StopReason reason = StopReason::none;
  int rounds = 0;
  std::string rounds_refused;  // the budget's reason not to start the rounds at all
  double sampling_s = 0;

  bool checks_outputs() const { return c.tolerance || c.verify; }
  // The budget ended the case below the rounds floor.
  bool budget_short() const { return reason == StopReason::budget && rounds < floor; }
  // Interrupted or the baseline failed: nothing more is taken after sampling.
  bool cut_short() const { return reason == StopReason::interrupted || reason == StopReason::error; }
  std::vector<PreparedCost> prepared_costs() const;  // the variants prepared so far
  std::vector<PreparedCost> live_costs() const;      // the variants still running
};

PreparedCost cost_of(const VariantState& v);
PrimaryMetric primary_metric(const DeviceBackend& b, TimingMode mode);
// Prepared::status ("ok", "oom", "error") as a variant's status.
VariantStatus variant_status(const std::string& prepared_status);
// Records a variant's failure (out of memory or another error) and frees what it held.
void record_failure(VariantState& v, const std::exception& e, DeviceBackend& backend);
const WorkUnits& units_of(const Case& c, const VariantState& v);
// Variant i's primary times per unit of the baseline's work, so variants doing
// different amounts of work (4095 vs 4096) compare fairly.
std::vector<double> normalised_times(const CaseRun& run, std::size_t i);

}  // namespace optbench::case_run
