// After the timed rounds, each live variant runs a short window under the
// profiler (harness/profiling/window_plan.h sizes it); nothing here is ever
// part of a sample. A failure here is recorded with the breakdown and costs
// the variant nothing else.
#include <algorithm>
#include <cctype>
#include <string>

#include "harness/case/phases.h"
#include "harness/profiling/window_plan.h"
#include "harness/stats.h"

namespace optbench::case_run {
namespace {

// A Chrome trace's file name: experiment, case and variant, in characters any
// file system takes.
std::string trace_path(const std::string& dir, const CaseLimits& l, const Case& c, const Variant& v) {
  std::string name = (l.origin ? l.origin->experiment : std::string("case")) + "." + c.name + "." + v.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.') ch = '_';
  return dir + "/" + name + ".pt.trace.json";
}

}  // namespace

void take_breakdown_windows(CaseRun& run, double reserve_s) {
  const auto& bc = run.cfg.breakdown;
  if (bc.mode == profiling::BreakdownMode::off) return;
  // One plan for the case, sized on its slowest variant: every variant's
  // window has the same number of steps, and a case is profiled whole or not at all.
  std::size_t alive = 0;
  double slowest = 0;
  for (const auto& v : run.vs) {
    if (!v.alive() || v.primary.empty()) continue;
    ++alive;
    slowest = std::max(slowest, median(v.primary));
  }
  const profiling::WindowPlan plan = profiling::plan_window(bc, slowest, alive, run.backend.now() - run.t_case);
  double cost_scale = 1.0;  // measured over estimated, from this case's windows: they are alike
  for (auto& v : run.vs) {
    if (!v.alive() || v.primary.empty() || run.stop_requested) continue;
    if (plan.steps == 0) {
      v.result.breakdown = {{"status", "skipped"}, {"reason", plan.skip_reason}};
      continue;
    }
    if (auto why = run.gate.refuse_breakdown_window(plan.cost_s * cost_scale, run.backend.kind(), reserve_s);
        !why.empty()) {
      v.result.breakdown = {{"status", "skipped"}, {"reason", why}};
      continue;
    }
    profiling::WindowRequest r;
    r.steps = plan.steps;
    r.warm_step = plan.warm_step;
    r.timed_step_s = median(v.primary);
    r.tolerance = bc.tolerance;
    if (!bc.trace_dir.empty()) r.trace_path = trace_path(bc.trace_dir, run.limits, run.c, *v.spec);
    try {
      const double t0 = run.backend.now();
      v.result.breakdown = v.runner->profiled_window(r);
      cost_scale = std::max(cost_scale, (run.backend.now() - t0) / plan.cost_s);
    } catch (const std::exception& e) {
      v.result.breakdown = {{"status", "error"}, {"reason", first_line(e.what())}};
      run.backend.release_cached_memory();
    }
  }
}

}  // namespace optbench::case_run
