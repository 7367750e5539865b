#pragma once
// How a --time-budget is shared among cases. Each case, when it starts, may
// sample for what is left divided evenly among the cases still to run (its
// experiment's, and the later experiments' at the average count seen so far),
// capped by the profile's per-case cap. Shares are computed from what is left
// at each start, so time a case does not use (it stopped on precision, or was
// dropped) goes to the cases after it. The other half of the plan is in
// run_case: a case gets the rounds floor or no rounds at all.
#include <cstddef>

namespace optbench {

struct BudgetState {
  double left_s = 0;                   // of the run's budget
  std::size_t cases_left_here = 1;     // this case and the rest of its experiment
  std::size_t later_experiments = 0;   // not yet enumerated
  std::size_t cases_seen = 0;          // enumerated so far (this experiment's included)
  std::size_t experiments_seen = 1;
};

double case_share_s(const BudgetState& b, double cap_s);

}  // namespace optbench
