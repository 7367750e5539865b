// After the timed rounds, each live variant runs a short window under the
// profiler (harness/profiling/window_plan.h sizes it); nothing here is ever
// part of a sample. A failure here is recorded with the breakdown and costs
// the variant nothing else.
#include <algorithm>
#include <cctype>
#include <string>

#include "harness/case/phases.h"
#include "harness/profiling/profiler_role.h"
#include "harness/profiling/window_plan.h"
#include "harness/stats.h"

namespace optbench::case_run {
namespace {

// A Chrome trace's file name: the run (its results file's stem: two runs writing
// at once never have the same), experiment, case and variant, in characters any
// file system takes.
std::string trace_path(const profiling::BreakdownConfig& bc, const CaseLimits& l, const Case& c, const Variant& v) {
  const std::string& dir = bc.trace_dir;
  std::string name = (bc.trace_run.empty() ? "" : bc.trace_run + ".") +
                     (l.origin ? l.origin->experiment : std::string("case")) + "." + c.name + "." + v.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.') ch = '_';
  return dir + "/" + name + ".pt.trace.json";
}

}  // namespace

void take_breakdown_windows(CaseRun& run, double reserve_s) {
  const auto& bc = run.cfg.breakdown;
  if (bc.mode == profiling::BreakdownMode::off) return;
  if (profiling::in_timed_process()) {
    // The guard's experiment processes profile in a process of their own; one
    // that publishes its times (--in-process, a launcher's rank) takes none.
    for (auto& v : run.vs)
      if (v.alive() && !v.primary.empty())
        v.result.breakdown = BreakdownRecord::skipped(
            "not profiled: profiled windows run in a process of their own, and this one's times are published "
            "(--in-process or a launcher's rank)");
    return;
  }
  // One plan for the case, sized on its slowest variant: every variant's window
  // has the same bounds on its steps (window_plan.h's rule: within them each
  // runs until its own mean settles), and a case is profiled whole or not at all.
  std::size_t alive = 0;
  double slowest = 0;
  for (const auto& v : run.vs) {
    if (!v.alive() || v.primary.empty()) continue;
    ++alive;
    slowest = std::max(slowest, median(v.primary));
  }
  const bool cuda = run.backend.kind() == DeviceKind::cuda;
  const double case_s = run.limits.first_case_s.value_or(run.backend.now() - run.t_case);
  const profiling::WindowPlan plan = profiling::plan_window(bc, slowest, alive, case_s, cuda);
  double cost_scale = 1.0;  // measured over estimated, from this case's windows: they are alike
  auto estimate_s = [&](int steps) { return profiling::window_cost_s(steps, plan.warm_step, slowest) * cost_scale; };
  for (auto& v : run.vs) {
    if (!v.alive() || v.primary.empty() || run.stop_requested) continue;
    if (plan.steps == 0) {
      v.result.breakdown = BreakdownRecord::skipped(plan.skip_reason);
      continue;
    }
    std::string why;
    const int steps =
        run.gate.breakdown_window_steps(plan.min_steps, plan.steps, estimate_s, run.backend.kind(), reserve_s, why);
    if (steps == 0) {
      v.result.breakdown = BreakdownRecord::skipped(why);
      continue;
    }
    profiling::WindowRequest r;
    r.steps = steps;
    r.min_steps = plan.min_steps;
    r.grow = plan.grow;
    r.target_se = profiling::kWindowRule.target_se;
    r.warm_step = plan.warm_step;
    r.timed_step_s = median(v.primary);
    r.tolerance = bc.tolerance;
    if (!bc.trace_dir.empty()) r.trace_path = trace_path(bc, run.limits, run.c, *v.spec);
    try {
      const double t0 = run.backend.now();
      v.result.breakdown = v.runner->profiled_window(r);
      const int ran = v.result.breakdown->status == BreakdownStatus::ok ? v.result.breakdown->figures.steps
                                                                        : steps;  // the rule may stop before `steps`
      cost_scale =
          std::max(cost_scale, (run.backend.now() - t0) / profiling::window_cost_s(ran, plan.warm_step, slowest));
    } catch (const std::exception& e) {
      v.result.breakdown = BreakdownRecord::failed(first_line(e.what()));
      run.backend.release_cached_memory();
    }
  }
}

}  // namespace optbench::case_run
