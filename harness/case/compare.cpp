// Each variant against the baseline: the median of per-round ratios with its
// order-statistic interval, over the rounds both have.
#include <algorithm>

#include "harness/case/phases.h"
#include "harness/stats.h"

namespace optbench::case_run {

std::vector<Comparison> compare_variants(const CaseRun& run, const std::vector<Verification>& checks) {
  const double confidence = run.cfg.stopping.confidence;
  const VariantState& base = run.vs[0];
  std::vector<Comparison> out;
  for (std::size_t i = 1; i < run.vs.size(); ++i) {
    const VariantState& v = run.vs[i];
    Comparison cmp;
    cmp.baseline = base.spec->name;
    cmp.variant = v.spec->name;
    // Below the floor (interrupted, an error, the budget's end despite the plan):
    // the ratio is kept with its rounds, but no interval is claimed for it; a
    // case the budget ended there keeps no ratio at all.
    if (base.primary.empty() || v.primary.empty() || run.budget_short()) {
      cmp.rounds = std::min(base.primary.size(), v.primary.size());
      cmp.verification.message =
          run.budget_short() ? "the budget ended the case below the rounds floor" : "a variant has no samples";
    } else {
      const Estimate e = paired_speedup(base.primary, normalised_times(run, i), confidence);
      SpeedupEstimate s;
      s.value = e.value;
      s.below_floor = e.n < static_cast<std::size_t>(run.floor);
      s.ci_low = e.low;
      s.ci_high = e.high;
      s.rel_ci_width = relative_width(e);
      s.confidence = confidence;
      s.ci_coverage = e.coverage;
      s.rounds_floor = run.floor;
      cmp.rounds = e.n;
      cmp.speedup = s;
      cmp.verification = checks[i];
    }
    out.push_back(std::move(cmp));
  }
  return out;
}

}  // namespace optbench::case_run
