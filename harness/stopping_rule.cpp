#include "harness/stopping_rule.h"

#include <stdexcept>

#include "harness/stats.h"

namespace optbench {

StopReason should_stop(const StoppingConfig& cfg, const StopState& s) {
  if (s.interrupted) return StopReason::interrupted;
  if (s.budget_spent) return StopReason::budget;
  if (s.rounds >= cfg.max_samples) return StopReason::max_samples;
  // The cap wins over precision and minimums, but never below the rounds floor.
  if (s.wall_s >= cfg.max_time_s && s.rounds >= rounds_floor(cfg.confidence)) return StopReason::max_time;
  // Precision is only claimed once the interval can reach its stated coverage.
  const bool minimums_met = s.rounds >= cfg.min_samples &&
                            s.rounds >= static_cast<int>(min_samples_for(cfg.confidence)) &&
                            s.measured_s >= cfg.min_time_s;
  if (minimums_met && s.worst_rel_ci <= cfg.target_rel_ci) return StopReason::precision;
  return StopReason::none;
}

int rounds_floor(double confidence) { return static_cast<int>(min_samples_for(confidence)); }

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::none:
      return "none";
    case StopReason::precision:
      return "precision";
    case StopReason::max_time:
      return "max_time";
    case StopReason::max_samples:
      return "max_samples";
    case StopReason::budget:
      return "budget";
    case StopReason::interrupted:
      return "interrupted";
    case StopReason::error:
      return "error";
  }
  return "unknown";
}

void validate(const StoppingConfig& cfg) {
  if (cfg.min_samples < 1) throw std::invalid_argument("min_samples must be >= 1");
  if (cfg.max_samples < cfg.min_samples) throw std::invalid_argument("max_samples must be >= min_samples");
  if (!(cfg.max_time_s > 0)) throw std::invalid_argument("max_time must be > 0");
  if (cfg.min_time_s < 0) throw std::invalid_argument("min_time must be >= 0");
  if (!(cfg.target_rel_ci > 0)) throw std::invalid_argument("target relative CI must be > 0");
  if (!(cfg.confidence > 0 && cfg.confidence < 1)) throw std::invalid_argument("confidence must lie in (0, 1)");
}

}  // namespace optbench
