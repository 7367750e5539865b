// Each variant against the baseline (and against the case's further references,
// Case::also_compare_against): the median of per-round ratios with its
// order-statistic interval, over the rounds both have, per unit of work.
#include <algorithm>

#include "harness/case/phases.h"
#include "harness/stats.h"

namespace optbench::case_run {
namespace {

std::size_t index_of(const CaseRun& run, const std::string& name) {
  for (std::size_t i = 0; i < run.vs.size(); ++i)
    if (run.vs[i].spec->name == name) return i;
  return run.vs.size();
}

Comparison compare_pair(const CaseRun& run, std::size_t ref, std::size_t i, const Verification& check) {
  const double confidence = run.cfg.stopping.confidence;
  const VariantState& base = run.vs[ref];
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
    return cmp;
  }
  // Both sides in the baseline's units of work, so a ratio between two
  // non-baseline variants is per unit too.
  const Estimate e = paired_speedup(normalised_times(run, ref), normalised_times(run, i), confidence);
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
  // The variant's own check (against the baseline's outputs): what it computes
  // does not depend on which reference its time is divided into.
  cmp.verification = check;
  return cmp;
}

}  // namespace

std::vector<Comparison> compare_variants(const CaseRun& run, const std::vector<Verification>& checks) {
  std::vector<std::size_t> references = {0};
  for (const auto& name : run.c.also_compare_against)
    if (const std::size_t r = index_of(run, name); r > 0 && r < run.vs.size()) references.push_back(r);
  std::vector<Comparison> out;
  for (const std::size_t r : references)
    for (std::size_t i = 1; i < run.vs.size(); ++i)
      if (i != r) out.push_back(compare_pair(run, r, i, checks[i]));
  return out;
}

}  // namespace optbench::case_run
