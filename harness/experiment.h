#pragma once
// The extension point. An experiment is one optimization from the checklists: it
// declares what it tests and produces cases; each case is a set of variants of the
// same work (variants[0] is the baseline) that the runner times interleaved and
// compares. Adding an experiment = one file in workloads/ with
// OPTBENCH_REGISTER_EXPERIMENT at the bottom.
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/device.h"

namespace optbench {

// The run's preset (--quick, the default standard, --full): how long and how
// precisely it samples. Not the profiler, which is the breakdown (harness/profiling/).
enum class RunProfile { quick, standard, full };
RunProfile parse_profile(const std::string& s);
const char* to_string(RunProfile p);

// One variant instantiated for one case: state is built in the factory, step()
// is the timed unit of work. GPU work must be enqueued on the current stream, or
// joined back to it before step() returns, so the stream's events bracket it all.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual void step() = 0;
  // What verification compares with the baseline's output (untimed). An
  // undefined tensor means "nothing to compare".
  virtual at::Tensor output() { return {}; }
  // Facts the workload measured about itself (e.g. time waiting for data),
  // stored with the variant's result.
  virtual nlohmann::json metrics() { return nlohmann::json::object(); }
};

// Work done by one step, so the runner can derive throughputs.
struct WorkUnits {
  double bytes = 0;
  double flops = 0;
  double items = 0;
  std::string item_name = "samples";
};

enum class VariantRole {
  optimized,  // a way of doing the baseline's work faster
  reference,  // a bound or a component (compute alone, data already on the device)
};

// What a custom check found: `problem` is empty when it passes; `details` are
// the figures it judged by, recorded with the verification either way. (Not a
// claim's verdict, which the report gives.)
struct CheckResult {
  CheckResult(std::string p = {}) : problem(std::move(p)) {}  // NOLINT: a bare problem string is a result
  CheckResult(const char* p) : problem(p) {}                  // NOLINT
  std::string problem;
  nlohmann::json details = nlohmann::json::object();
};

struct CaseResult;  // harness/case_result.h

struct Variant {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<Workload>()> make;
  VariantRole role = VariantRole::optimized;
  // Set when this variant does a different amount of work than the case's units
  // (aligned vs odd sizes): speedups then compare time per unit of work.
  std::optional<WorkUnits> units = std::nullopt;
  // The setting this variant stands for (e.g. {"workers": 4}), so the report can
  // plot a sweep across the variants of one case.
  nlohmann::json params = nlohmann::json::object();
  // Timing mode of this variant when it differs from the case's (a pinned copy
  // does not block the host and is timed with events over a batch; the pageable
  // copy beside it does and is timed in sync mode).
  std::optional<TimingMode> timing = std::nullopt;
  // Where its work runs when not in this process (harness/out_of_process.h's
  // kRunsIn*, what its workload's runs_in() says): the profiling process does
  // not build it only to find its window empty. Empty: here.
  std::string runs_elsewhere = {};
};

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-8;
};
// The tolerance an output computed in this dtype is held to.
Tolerance tolerance_for(c10::ScalarType dtype);

struct Case {
  std::string name;
  nlohmann::json params = nlohmann::json::object();
  TimingMode timing = TimingMode::batched;
  bool hold_stream = false;  // kernel-level cases only: hide enqueue latency (nvbench)
  // Each variant in a process of its own (harness/isolation/): for variants whose
  // speed or one-time cost depends on process-wide state (cuDNN's plan cache is
  // keyed without the benchmark flag, so a variant warmed up after another finds
  // that one's plans). Costs a process start per variant.
  bool isolate = false;
  // Its derived figures use first_run_s as a cold first step (with isolate).
  // That is one observation per process, so each variant's is also taken in
  // MeasureConfig::cold_processes - 1 more fresh processes (a build, the first
  // step and one more each), after the timed rounds, and the median is kept.
  bool cold_first_step = false;
  // Seconds preparing one variant takes at the least where that is far more
  // than its steps (starting a Python interpreter that imports torch): under a
  // --time-budget no variant starts with less left. 0: estimated from the
  // variants prepared before it.
  double setup_s = 0;
  // Its variants need this process (a rank's process group, for one): --isolate
  // leaves the case where it is.
  bool process_bound = false;
  // Its variants may run out of memory by design (the batch-size sweep finds
  // where): an "oom" variant of it is an outcome the run records, not a failure
  // (the exit status and the GPU session's checks read it so).
  bool oom_expected = false;
  WorkUnits units;
  std::vector<Variant> variants;  // [0] is the baseline
  // Variants (by name) every other variant is also compared against, beside the
  // baseline: the reference a claim is judged on where it is not the baseline
  // (AMP against the FP32 a user gets by default), so its ratio is recorded, in
  // every process, like the baseline's, and has the one estimate.
  std::vector<std::string> also_compare_against;
  std::optional<Tolerance> tolerance;  // compare every output with the baseline's
  // Custom check in place of (or beside) the tolerance. Called with instantiated
  // variants ([0] = baseline); a check that returns a string returns its problem.
  std::function<CheckResult(std::vector<Workload*>&)> verify;
  std::string skip_reason;                          // non-empty: recorded as skipped, nothing runs
  nlohmann::json notes = nlohmann::json::object();  // extra facts for the report (peaks, link)
  // Figures computed from the finished result (e.g. the share of a copy hidden
  // behind compute); stored under "derived".
  std::function<nlohmann::json(const CaseResult& result)> derive;
};

struct RunContext {
  DeviceKind device = DeviceKind::cpu;
  RunProfile profile = RunProfile::standard;
  // Seconds left of the run's --time-budget when the experiment enumerates its
  // cases (none: no budget). Cases whose set-up alone is long (a cold compile)
  // are recorded as skipped for the budget instead of overrunning it.
  std::optional<double> budget_left_s = std::nullopt;
};

struct ExperimentInfo {
  std::string name;  // stable id, used by --filter and the report
  std::string title;
  std::string optimization;         // what is switched on in the optimized variant
  std::vector<std::string> claims;  // ids in report/claims/claims.json
  std::string description;
  std::vector<DeviceKind> devices = {DeviceKind::cpu, DeviceKind::cuda};
  // What --quick leaves out and why, for `optbench list` (empty: nothing). A
  // case that cannot get the rounds floor within the quick profile's time is
  // left out rather than sampled below it.
  std::string quick_leaves_out = {};
  // Counters that carry its claim (harness/profiling/counters.h), preferred first: the report's why leads with one.
  std::vector<std::string> mechanism_counters = {};
};

class Experiment {
 public:
  virtual ~Experiment() = default;
  virtual ExperimentInfo info() const = 0;
  virtual std::vector<Case> cases(const RunContext& ctx) const = 0;
  // Whether ctx's profile runs the case named `name` (an experiment whose
  // profiles run different cases decides it here, and its cases() asks): what
  // `optbench plan` leaves out of a run recorded with another profile.
  virtual bool keeps_case(const std::string& name, const RunContext& ctx) const;
  // How many times the work of a round of `recorded` (a case as a results file
  // holds it) its case in ctx now does: not 1 where the case was resized since
  // that file was written. `optbench plan` scales the recorded times by it.
  virtual double recorded_work_ratio(const nlohmann::json& recorded, const RunContext& ctx) const;
  // Empty when the experiment can run in ctx, else why not (recorded as skipped).
  virtual std::string unsupported_reason(const RunContext& ctx) const;
};

}  // namespace optbench
