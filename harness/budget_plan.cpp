#include "harness/budget_plan.h"

#include <algorithm>

namespace optbench {

double case_share_s(const BudgetState& b, double cap_s) {
  const double per_experiment =
      b.experiments_seen > 0 ? static_cast<double>(b.cases_seen) / static_cast<double>(b.experiments_seen) : 1.0;
  const double later = static_cast<double>(b.later_experiments) * per_experiment;
  const double share = b.left_s / (static_cast<double>(std::max<std::size_t>(b.cases_left_here, 1)) + later);
  return std::clamp(share, 0.01, cap_s);
}

}  // namespace optbench
