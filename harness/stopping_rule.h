#pragma once
// When to stop sampling a case: on precision, not on a fixed count (nvbench's
// stdrel criterion, adapted to the A/B ratio). Kept free of timing so it can be
// tested with synthetic inputs.
#include <string>

namespace optbench {

struct StoppingConfig {
  int min_samples = 10;         // rounds (one sample per variant each)
  double min_time_s = 0.5;      // measured time summed over all variants
  double max_time_s = 10.0;     // wall-clock cap for the case
  int max_samples = 100000;
  double target_rel_ci = 0.02;  // (hi - lo) / estimate of the worst ratio CI
  double confidence = 0.95;
};

enum class StopReason { none, precision, max_time, max_samples, budget, interrupted, error };

struct StopState {
  int rounds = 0;
  double measured_s = 0;        // summed sample times
  double wall_s = 0;            // since sampling began
  double worst_rel_ci = 0;      // over every ratio (or the baseline median alone)
  bool interrupted = false;
  bool budget_spent = false;    // the run's --time-budget has run out: stop now
};

// Rounds always taken before the time cap may stop a case, so it has a spread.
constexpr int kMinRoundsForCi = 3;

StopReason should_stop(const StoppingConfig& cfg, const StopState& s);
const char* to_string(StopReason r);
void validate(const StoppingConfig& cfg);  // throws std::invalid_argument

}  // namespace optbench
