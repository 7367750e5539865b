#pragma once
// When to stop sampling a case: on precision, not on a fixed count (nvbench's
// stdrel criterion, adapted to the A/B ratio). Kept free of timing so it can be
// tested with synthetic inputs.
#include <string>

namespace optbench {

struct StoppingConfig {
  int min_samples = 10;      // rounds (one sample per variant each)
  double min_time_s = 0.5;   // measured time summed over all variants
  double max_time_s = 10.0;  // wall-clock cap for the case
  int max_samples = 100000;
  double target_rel_ci = 0.02;  // (hi - lo) / estimate of the worst ratio CI
  double confidence = 0.95;
};

enum class StopReason { none, precision, max_time, max_samples, budget, interrupted, error };

struct StopState {
  int rounds = 0;
  double measured_s = 0;    // summed sample times
  double wall_s = 0;        // since sampling began
  double worst_rel_ci = 0;  // over every ratio (or the baseline median alone)
  bool interrupted = false;
  bool budget_spent = false;  // the run's --time-budget has run out: stop now
};

// The rounds floor: the fewest interleaved rounds for which a distribution-free
// interval of a median ratio reaches `confidence` at all. With n rounds the
// widest order-statistic interval, [min, max], covers 1 - 2 * 0.5^n: 93.75% at
// n = 5, 96.9% at n = 6, so 6 at 95%. The time cap never stops a case below it
// (a slow case takes longer instead); only the run's budget, an interrupt or an
// error can, and then the case reports no CI (harness/case/compare.cpp, below_floor).
int rounds_floor(double confidence);

StopReason should_stop(const StoppingConfig& cfg, const StopState& s);
const char* to_string(StopReason r);
void validate(const StoppingConfig& cfg);  // throws std::invalid_argument

}  // namespace optbench
