// A cold first step is one observation per process: where a case derives from
// one, each live variant is started again in cfg.cold_processes - 1 more fresh
// processes that build it, take the first step and one more, and exit. After
// the timed rounds, so no sample waits for them; each only if the budget
// covers it and still leaves verification its share (reserve_s).
#include "harness/case/phases.h"
#include "harness/isolation/child_runner.h"

namespace optbench::case_run {

void take_cold_first_steps(CaseRun& run, double reserve_s) {
  for (int p = 1; p < run.cfg.cold_processes; ++p)
    for (std::size_t i = 0; i < run.vs.size(); ++i) {
      VariantState& v = run.vs[i];
      if (!v.alive() || run.stop_requested) continue;
      if (!run.gate.fits_cold_process(cost_of(v), reserve_s)) return;
      try {
        auto again = make_child_runner(*run.limits.origin, run.c.name, i);
        const Prepared r = again->prepare({v.mode, run.c.hold_stream, 0.0, 0.0, run.cfg.target_sample_s, 1});
        if (r.status == "ok" && r.warmup.iters > 0) v.result.cold_first_runs_s.push_back(r.warmup.first_run_s);
      } catch (const std::exception&) {
        // That process's first step is missing: the others stand, and their count says so.
      }
    }
}

}  // namespace optbench::case_run
