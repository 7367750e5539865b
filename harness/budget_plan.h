#pragma once
// The run's --time-budget: every "does this fit" decision, every "budget:"
// reason recorded for what it left out, and the cost model they rest on.
//
// How it is shared among cases: each case, when it starts, may sample for what
// is left divided evenly among the case-processes still to run (its
// experiment's cases in this process and in its further processes, and the
// later experiments' at the average count seen so far, in as many processes
// each), capped by the profile's per-case cap. Shares are computed from what is left at each start,
// so time a case does not use (it stopped on precision, or was dropped) goes to
// the cases after it. Within a case, work that cannot be stopped once started
// (building a variant, verification, a cold process, a profiled window) starts
// only when an estimate from the steps already timed says it fits; and a case
// gets the rounds floor or no rounds at all.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/device.h"

namespace optbench {

struct BudgetState {
  double left_s = 0;                  // of the run's budget
  std::size_t cases_left_here = 1;    // this case and the rest of its experiment
  std::size_t later_experiments = 0;  // not yet enumerated
  std::size_t cases_seen = 0;         // enumerated so far (this experiment's included)
  std::size_t experiments_seen = 1;
  // MeasureConfig::processes: this experiment's further processes after this
  // one (each runs its cases_here again), and how many each later one gets.
  std::size_t processes_after_here = 0, cases_here = 0;
  std::size_t processes = 1;
};

double case_share_s(const BudgetState& b, double cap_s);

// A fresh process's start on `device` (LibTorch loaded; on a GPU also a CUDA
// context, cuDNN and cuBLAS opened): what a cold process costs beyond its work,
// and what the run plan (harness/run_plan.h) adds per process.
double process_start_cost_s(DeviceKind device);
// What a profiled window estimated at `estimate_s` is held to cost: the estimate
// doubled, since an operator-heavy window costs more than its steps.
double window_gate_cost_s(double estimate_s);
// The profiler's set-up in a process (CUPTI's, on a GPU; once per process).
double profiler_setup_cost_s(DeviceKind device);

// What preparing one variant showed, the figures later estimates are made from.
struct PreparedCost {
  double build_s = 0;             // building the workload, before its first step
  double first_step_s = 0;        // the first step, alone
  double step_s = 0;              // a steady step, at the end of warm-up
  std::int64_t sample_iters = 1;  // steps per sample
};

// Verification's cost by the model BudgetGate::verification_cost_s describes.
double verification_steps_s(const std::vector<PreparedCost>& prepared);

// Each check returns "" when the work fits (always, without a budget), else the
// "budget: ..." reason that is recorded for it.
class BudgetGate {
 public:
  // deadline_s on clock.now(); none: no budget.
  BudgetGate(std::optional<double> deadline_s, const DeviceBackend& clock);

  bool active() const { return deadline_.has_value(); }
  // Seconds left; infinity without a budget.
  double left_s() const;
  // The deadline has passed: nothing more starts, and sampling stops.
  bool spent() const;

  // Suite: an experiment or a case about to start.
  std::string refuse_start() const;
  // Suite: an experiment about to start in a process of its own, which could not
  // check the budget before loading LibTorch; no child starts with less left than
  // the shortest one has taken.
  std::string refuse_child(double shortest_child_s) const;

  // The next variant's preparation: a build (the longest so far, or the case's
  // declared set-up) and about three steps (first step, warm-up) of the slowest
  // variant prepared so far.
  std::string refuse_prepare(double declared_setup_s, const std::vector<PreparedCost>& prepared) const;
  // How long a variant's warm-up may run: its share of the case's cap (a small
  // --time-budget makes that tight), and never past the deadline.
  double warmup_max_s(double case_cap_s, std::size_t variants, double profile_max_s) const;
  // The rounds floor of the live variants' samples (a round costs about their
  // sample lengths), or none: a ratio from fewer rounds has no interval.
  std::string refuse_rounds(int floor, const std::vector<PreparedCost>& live) const;
  // A case's sampling cap: its share, less the preparation it took under a budget.
  double sampling_cap_s(double case_cap_s, double prepared_s) const;
  // The reason a case the budget ended below the rounds floor is not run.
  static std::string ended_below_floor(int rounds, int floor);

  // Verification's cost. It is untimed but not free: training cases replay
  // steps per variant from fresh weights they build twice (a 3-step trace and a
  // fit of up to 9 steps, workloads/training/verify_losses.h), and a float64
  // reference of 3 steps at several times the cost (counted as 15 steps of the
  // slowest variant). Counted as the steps it runs, since an estimate from
  // fewer lets it overrun the budget.
  double verification_cost_s(const std::vector<PreparedCost>& prepared) const { return verification_steps_s(prepared); }
  std::string refuse_verification(double cost_s) const;
  // One more fresh process for a cold first step: a process start, the
  // variant's build and two steps, with `reserve_s` (verification) still left.
  bool fits_cold_process(const PreparedCost& v, double reserve_s) const;
  // A profiled window (harness/profiling/window_plan.h estimates `estimate_s`),
  // after verification's reserve. The estimate is doubled, since an
  // operator-heavy window costs more than its steps; CUPTI's set-up on a GPU
  // (about a second, once per process) is not in it.
  std::string refuse_breakdown_window(double estimate_s, DeviceKind device, double reserve_s) const;
  // The most steps, from max_steps down to min_steps, whose window (`estimate_s(steps)`)
  // refuse_breakdown_window lets start; 0 where not even min_steps fits, and `why`
  // holds that refusal. A window shorter than the sizing rule's minimum is not
  // started to fit a budget: its mean would be too noisy to explain anything.
  int breakdown_window_steps(int min_steps, int max_steps, const std::function<double(int)>& estimate_s,
                             DeviceKind device, double reserve_s, std::string& why) const;

 private:
  bool fits(double cost_s) const;
  std::optional<double> deadline_;
  const DeviceBackend* clock_;
};

// The budget an experiment's process is given, of `left_s` in the run: less
// what its exit and the run's reading of its cases take after its deadline
// (LibTorch's teardown, the twins' zygote, the part file), so that the run
// ends within its --time-budget (the budget test ended 0.2-1.0 s past it on
// clean clones without this); never below a millisecond.
double child_budget_s(double left_s);

// What preparing one variant of a case that declared `declared_s` of set-up
// is expected to take: at least what such a variant took in this process
// (`seen_s`); 0 where the case declared none.
double expected_setup_s(double declared_s, double seen_s);
// The per-variant set-up a finished case measured (its builds over the
// variants prepared), for the cases after it; 0 where it declared none.
double measured_setup_s(double declared_s, double build_s, std::size_t prepared);

// Work a workload does once before its case can run (a cold compile): the
// reason it is not started when `expected_s` exceeds the `left_s` of the budget.
std::string refuse_one_time_setup(const std::string& what, double expected_s, std::optional<double> left_s);

// Whether a recorded reason is one of the gate's (a refusal, not a failure).
bool is_budget_reason(const std::string& reason);

}  // namespace optbench
