#include "harness/budget_plan.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <limits>

namespace optbench {
namespace {

// The cost model, in steps and seconds (budget_plan.h says what each stands for).
constexpr double kPrepareSteps = 3;            // first step and warm-up batch, of the slowest so far
constexpr double kVerifyReferenceSteps = 15;   // the float64 reference, of the slowest steady step
constexpr double kVerifyStepsPerVariant = 12;  // a 3-step trace and a fit of up to 9 steps
constexpr double kVerifyBuildsPerVariant = 2;  // fresh weights for each
constexpr double kProcessStartS = 1.0;         // a fresh process for a cold first step
// ... on a GPU, where it also makes a CUDA context and opens cuDNN and cuBLAS: the
// top of what such a start was seen to take (docs/results-history.md), so that a
// cold process the gate lets start fits.
constexpr double kCudaProcessStartS = 3.0;
constexpr double kCuptiSetupS = 1.0;           // once per process, on a GPU
constexpr double kWindowEstimateFactor = 2.0;  // an operator-heavy window over its steps
constexpr double kMinShareS = 0.01;            // no share, cap or warm-up below this
constexpr double kChildExitReserveS = 0.5;     // an experiment's process ending after its deadline

}  // namespace

double process_start_cost_s(DeviceKind device) {
  return device == DeviceKind::cuda ? kCudaProcessStartS : kProcessStartS;
}

double window_gate_cost_s(double estimate_s) { return kWindowEstimateFactor * estimate_s; }

double profiler_setup_cost_s(DeviceKind device) { return device == DeviceKind::cuda ? kCuptiSetupS : 0.0; }

namespace {

const std::string kPrefix = "budget: ";
const std::string kRanOut = kPrefix + "the run's --time-budget ran out before ";

std::string printf_reason(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_reason(const char* format, ...) {
  char buf[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

}  // namespace

double case_share_s(const BudgetState& b, double cap_s) {
  const double per_experiment =
      b.experiments_seen > 0 ? static_cast<double>(b.cases_seen) / static_cast<double>(b.experiments_seen) : 1.0;
  const double later = static_cast<double>(b.later_experiments) * per_experiment *
                       static_cast<double>(std::max<std::size_t>(b.processes, 1));
  const double again_here = static_cast<double>(b.processes_after_here) * static_cast<double>(b.cases_here);
  const double share =
      b.left_s / (static_cast<double>(std::max<std::size_t>(b.cases_left_here, 1)) + again_here + later);
  return std::clamp(share, kMinShareS, cap_s);
}

BudgetGate::BudgetGate(std::optional<double> deadline_s, const DeviceBackend& clock)
    : deadline_(deadline_s), clock_(&clock) {}

double BudgetGate::left_s() const {
  return deadline_ ? *deadline_ - clock_->now() : std::numeric_limits<double>::infinity();
}

bool BudgetGate::spent() const { return deadline_ && clock_->now() >= *deadline_; }

bool BudgetGate::fits(double cost_s) const { return !deadline_ || clock_->now() + cost_s < *deadline_; }

std::string BudgetGate::refuse_start() const { return left_s() <= 0 ? kRanOut + "this started" : ""; }

std::string BudgetGate::refuse_child(double shortest_child_s) const {
  if (!deadline_ || left_s() >= shortest_child_s) return "";
  return printf_reason(
      "budget: %.2g s of the run's --time-budget left, less than an experiment's process has taken "
      "to start and finish (%.2g s, the shortest so far)",
      left_s(), shortest_child_s);
}

std::string BudgetGate::refuse_prepare(double declared_setup_s, const std::vector<PreparedCost>& prepared) const {
  double setup = declared_setup_s, slowest = 0;
  for (const auto& p : prepared) {
    setup = std::max(setup, p.build_s);
    slowest = std::max({slowest, p.step_s, p.first_step_s});
  }
  if (spent() || !fits(setup + kPrepareSteps * slowest)) return kRanOut + "this variant started";
  return "";
}

double BudgetGate::warmup_max_s(double case_cap_s, std::size_t variants, double profile_max_s) const {
  const double share = std::clamp(case_cap_s / static_cast<double>(variants), kMinShareS, profile_max_s);
  return deadline_ ? std::clamp(left_s(), kMinShareS, share) : share;
}

std::string BudgetGate::refuse_rounds(int floor, const std::vector<PreparedCost>& live) const {
  if (!deadline_) return "";
  double round_s = 0;
  for (const auto& p : live) round_s += static_cast<double>(p.sample_iters) * p.step_s;
  const double left = left_s();
  if (static_cast<double>(floor) * round_s <= left) return "";
  return printf_reason(
      "budget: %d rounds (the fewest a confidence interval needs) of about %.3g s each do not fit "
      "the %.3g s left of the run's --time-budget",
      floor, round_s, std::max(0.0, left));
}

double BudgetGate::sampling_cap_s(double case_cap_s, double prepared_s) const {
  return std::max(0.0, case_cap_s - (deadline_ ? prepared_s : 0.0));
}

std::string BudgetGate::ended_below_floor(int rounds, int floor) {
  return "budget: the run's --time-budget ended the case after " + std::to_string(rounds) + " of the " +
         std::to_string(floor) + " rounds a confidence interval needs";
}

double verification_steps_s(const std::vector<PreparedCost>& prepared) {
  double slowest = 0;
  for (const auto& p : prepared) slowest = std::max(slowest, p.step_s);
  double cost = kVerifyReferenceSteps * slowest;
  for (const auto& p : prepared) cost += kVerifyStepsPerVariant * p.step_s + kVerifyBuildsPerVariant * p.build_s;
  return cost;
}

std::string BudgetGate::refuse_verification(double cost_s) const {
  return fits(cost_s) ? "" : kRanOut + "verification";
}

bool BudgetGate::fits_cold_process(const PreparedCost& v, double reserve_s) const {
  return fits(reserve_s + process_start_cost_s(clock_->kind()) + v.build_s + v.first_step_s + v.step_s);
}

std::string BudgetGate::refuse_breakdown_window(double estimate_s, DeviceKind device, double reserve_s) const {
  // The set-up counted for every window: the gate cannot tell whether this process has paid it.
  if (fits(reserve_s + profiler_setup_cost_s(device) + window_gate_cost_s(estimate_s))) return "";
  return "budget: the run's --time-budget has no room for the window";
}

int BudgetGate::breakdown_window_steps(int min_steps, int max_steps, const std::function<double(int)>& estimate_s,
                                       DeviceKind device, double reserve_s, std::string& why) const {
  for (int n = max_steps; n >= std::max(min_steps, 1); --n) {
    why = refuse_breakdown_window(estimate_s(n), device, reserve_s);
    if (why.empty()) return n;
  }
  if (why.empty()) why = "the profiled window has no steps to run";
  return 0;
}

double child_budget_s(double left_s) { return std::max(left_s - kChildExitReserveS, 1e-3); }

double expected_setup_s(double declared_s, double seen_s) {
  return declared_s > 0 ? std::max(declared_s, seen_s) : 0.0;
}

double measured_setup_s(double declared_s, double build_s, std::size_t prepared) {
  return declared_s > 0 && prepared > 0 ? build_s / static_cast<double>(prepared) : 0.0;
}

std::string refuse_one_time_setup(const std::string& what, double expected_s, std::optional<double> left_s) {
  if (!left_s || expected_s <= *left_s) return "";
  return kPrefix + what + " is expected to take " + std::to_string(static_cast<int>(expected_s)) +
         " s here, and the run's --time-budget has " + std::to_string(static_cast<int>(*left_s)) + " s left";
}

bool is_budget_reason(const std::string& reason) { return reason.rfind(kPrefix, 0) == 0; }

}  // namespace optbench
