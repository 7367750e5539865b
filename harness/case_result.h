#pragma once
// One case's result, typed where the runner makes it (harness/case_runner.h),
// read as such by Case::derive, and written to the results file by one
// serializer (harness/case_result_json.h) whose keys are those of
// harness/results.schema.json. What is free-form by nature stays JSON: params,
// notes, a workload's metrics, the profiler's breakdown, a custom check's
// details and the derived figures.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/profiling/breakdown_figures.h"
#include "harness/stats.h"
#include "harness/stopping_rule.h"

namespace optbench {

enum class CaseStatus { ok, skipped, failed, interrupted, not_run };
enum class VariantStatus { ok, oom, error, not_run };
// "role" in the file: variants[0] is the baseline, the others as declared (VariantRole).
enum class RoleInCase { baseline, optimized, reference };
// fresh: built, first run and sampled in a process of its own (cold one-time
// costs, its own caches); shared: in the run's process, after whatever ran
// before it (warm).
enum class ProcessKind { shared, fresh };
// The time samples are judged by: events for asynchronous GPU work, else host time.
enum class PrimaryMetric { host_s, device_s };
enum class VerificationStatus { passed, failed, not_checked };
// A variant's profiled window: taken (its figures), skipped (the plan, the
// budget) or failed (the profiler's error).
enum class BreakdownStatus { ok, skipped, error };
// An experiment's outcome (experiments[].status), and a further process's for a
// case it recorded nothing for (experiments[].repeats[].status): one spelling each.
enum class ExperimentStatus { running, ok, skipped, failed, interrupted, not_run, crashed, hung };
// The whole run's (the results file's top-level "status"): running while it is
// written, complete at its end, interrupted where it was stopped.
enum class RunStatus { running, complete, interrupted };

const char* to_string(CaseStatus s);
const char* to_string(VariantStatus s);
const char* to_string(RoleInCase r);
const char* to_string(ProcessKind p);
const char* to_string(PrimaryMetric m);
const char* to_string(VerificationStatus s);
const char* to_string(BreakdownStatus s);
const char* to_string(ExperimentStatus s);
const char* to_string(RunStatus s);
// What a child process recorded; nullopt for a word that is none of them.
std::optional<ExperimentStatus> parse_experiment_status(const std::string& s);
// Failed, crashed or hung: the run cannot exit 0.
bool is_failure(ExperimentStatus s);

struct WarmupRecord {
  std::int64_t iters = 0;
  double seconds = 0;
  bool stable = false;
};

// One entry per sample, in round order; an empty series was not read (null, or
// absent for minor_faults, in the file).
struct SampleSeries {
  std::vector<double> host_s;
  std::vector<double> device_s;
  std::vector<double> sm_clock_mhz;
  std::vector<std::uint64_t> clock_event_reasons;
  std::vector<double> minor_faults;  // per step, the whole process's
};

struct Throughput {
  std::optional<double> bytes_per_s, flops_per_s, items_per_s;
};

// Share of samples whose NVML clock-event reasons include each class.
// When NVML's reasons were read (harness/sample_sequence.cpp): while a batch runs
// on the GPU, or just after a sync sample, the device's work done (reading inside
// it would put NVML's latency in the host time), when a limit that held only
// during the work may no longer show.
enum class ThrottleRead { during_work, after_work };

struct ThrottleShares {
  double thermal = 0, power = 0, other = 0;
  std::size_t samples = 0;
  ThrottleRead read = ThrottleRead::during_work;
};

struct MedianMin {
  double median = 0, min = 0;
};

// Checklist row 12, what nvidia-smi would have shown while a variant was timed.
struct NvidiaSmi {
  std::optional<MedianMin> gpu_util_pct, memory_util_pct, power_w, sm_clock_mhz;
  std::size_t samples = 0;
};

// A variant's profiled window (harness/case/breakdown_windows.cpp): its figures,
// made by profiling::breakdown in the process that ran it (the keys of the
// schema's breakdown), or why it has none.
struct BreakdownRecord {
  BreakdownStatus status = BreakdownStatus::ok;
  std::string reason;                   // skipped or error: why
  profiling::BreakdownFigures figures;  // ok: profiling::breakdown's

  static BreakdownRecord skipped(std::string why) { return {BreakdownStatus::skipped, std::move(why), {}}; }
  static BreakdownRecord failed(std::string why) { return {BreakdownStatus::error, std::move(why), {}}; }
};

struct VariantResult {
  std::string name;
  std::string description;
  RoleInCase role = RoleInCase::optimized;
  VariantStatus status = VariantStatus::ok;
  std::string error;  // empty: none
  TimingMode timing_mode = TimingMode::batched;
  PrimaryMetric primary_metric = PrimaryMetric::host_s;
  ProcessKind process = ProcessKind::shared;
  nlohmann::json params = nlohmann::json::object();  // Variant::params
  std::optional<double> first_run_s;
  // Case::cold_first_step: the first step in each fresh process it was taken in
  // (the timed one first); empty otherwise.
  std::vector<double> cold_first_runs_s;
  WarmupRecord warmup;
  std::int64_t iters_per_sample = 1;
  SampleSeries samples;
  std::optional<Summary> stats;  // of the primary metric
  std::optional<Summary> host_stats, device_stats;
  Throughput throughput;
  std::optional<MemoryPeak> memory;
  std::optional<WorkUnits> units;                     // Variant::units, where it differs from the case's
  nlohmann::json metrics = nlohmann::json::object();  // Workload::metrics()
  std::optional<ThrottleShares> throttle;
  std::optional<NvidiaSmi> nvidia_smi;
  std::optional<BreakdownRecord> breakdown;  // none: not profiled

  // The median of cold_first_runs_s; none without them.
  std::optional<double> cold_first_run_s() const;
};

// Outputs held to the case's tolerance (Case::tolerance).
struct ToleranceCheck {
  double max_abs_err = 0, max_rel_err = 0;
  double rtol = 0, atol = 0;
};

struct Verification {
  VerificationStatus status = VerificationStatus::not_checked;
  std::string message;  // empty: none
  std::optional<ToleranceCheck> tolerance;
  nlohmann::json details = nlohmann::json::object();  // CheckResult::details; empty: none
};

// The paired speedup (median of per-round ratios) with its order-statistic interval.
struct SpeedupEstimate {
  double value = 0;
  // Below the rounds floor the ratio is kept but no interval is claimed.
  bool below_floor = false;
  double ci_low = 0, ci_high = 0, rel_ci_width = 0;
  double confidence = 0, ci_coverage = 0;
  int rounds_floor = 0;
};

struct Comparison {
  std::string baseline, variant;
  std::size_t rounds = 0;
  // None where a variant has no samples, or the budget ended the case below the floor.
  std::optional<SpeedupEstimate> speedup;
  Verification verification;
};

// Where the case's wall time went; "other" is process starts, pipes and bookkeeping.
struct TimeSplit {
  double build = 0, warmup = 0, sampling = 0, verification = 0, profiling = 0, other = 0;
  std::optional<double> cold_first_steps;  // only where a case takes them
};

struct CaseResult {
  std::string name;
  nlohmann::json params = nlohmann::json::object();
  TimingMode timing_mode = TimingMode::batched;
  PrimaryMetric primary_metric = PrimaryMetric::host_s;
  bool hold_stream = false;
  bool oom_expected = false;  // Case::oom_expected
  WorkUnits units;
  nlohmann::json notes = nlohmann::json::object();
  CaseStatus status = CaseStatus::ok;
  std::string reason;  // why it was skipped, failed or not run

  // Below: what a case that ran (was not skipped) records.
  bool isolated = false;  // each variant in a process of its own
  StopReason stop_reason = StopReason::none;
  int rounds = 0;
  double sampling_s = 0;
  double wall_s = 0;
  TimeSplit time_s;
  std::vector<VariantResult> variants;    // [0] is the baseline
  std::vector<Comparison> comparisons;    // each variant against the baseline, in variant order
  std::optional<nlohmann::json> derived;  // Case::derive's figures

  // The variant of that name; null when there is none.
  const VariantResult* variant(const std::string& name) const;
};

}  // namespace optbench
