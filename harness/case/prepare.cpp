// Preparation: each variant built (here, or in a worker process of its own),
// its first step taken alone and warmed up, one after another. Under a budget
// a variant starts only when the estimate from those before it fits.
#include <algorithm>

#include "harness/case/phases.h"
#include "harness/isolation/child_runner.h"
#include "harness/out_of_process.h"

namespace optbench::case_run {
namespace {

// What the file records of a variant whatever happens to it.
void describe_variant(CaseRun& run, std::size_t i) {
  VariantState& v = run.vs[i];
  v.spec = &run.c.variants[i];
  v.mode = v.spec->timing.value_or(run.c.timing);
  VariantResult& r = v.result;
  r.name = v.spec->name;
  r.description = v.spec->description;
  r.role = i == 0                                   ? RoleInCase::baseline
           : v.spec->role == VariantRole::reference ? RoleInCase::reference
                                                    : RoleInCase::optimized;
  r.timing_mode = v.mode;
  r.primary_metric = primary_metric(run.backend, v.mode);
  r.process = run.isolate ? ProcessKind::fresh : ProcessKind::shared;
  r.params = v.spec->params;
  r.units = v.spec->units;
}

void record_preparation(VariantState& v) {
  const WarmupResult& w = v.prep.warmup;
  VariantResult& r = v.result;
  if (w.iters) r.first_run_s = w.first_run_s;
  r.warmup = {w.iters, w.seconds, w.stable};
  r.iters_per_sample = v.prep.iters;
  r.memory = v.prep.memory;
}

}  // namespace

void prepare_variants(CaseRun& run) {
  const Case& c = run.c;
  const MeasureConfig& cfg = run.cfg;
  // Held batches are capped so the launch queue cannot fill while the stream waits.
  const std::int64_t max_iters =
      c.hold_stream ? std::min<std::int64_t>(cfg.max_iters_per_sample, 256) : cfg.max_iters_per_sample;
  for (std::size_t i = 0; i < run.vs.size(); ++i) {
    describe_variant(run, i);
    VariantState& v = run.vs[i];
    if (run.stop_requested) {
      v.result.status = VariantStatus::not_run;
      continue;
    }
    if (run.limits.profiling && !v.spec->runs_elsewhere.empty()) {
      // The profiling process: its window would be empty, so it is not built to find that out.
      v.result.status = VariantStatus::not_run;
      v.result.breakdown = BreakdownRecord::skipped(not_profiled_here(v.spec->runs_elsewhere));
      continue;
    }
    if (auto why = run.gate.refuse_prepare(expected_setup_s(c.setup_s, run.limits.setup_seen_s), run.prepared_costs());
        !why.empty()) {
      v.result.status = VariantStatus::not_run;
      v.result.error = why;
      continue;
    }
    const double warmup_max_s = run.gate.warmup_max_s(run.limits.max_time_s, run.vs.size(), cfg.warmup_max_s);
    const PrepareSpec spec{v.mode, c.hold_stream, cfg.warmup_min_s, warmup_max_s, cfg.target_sample_s, max_iters};
    try {
      v.runner =
          run.isolate ? make_child_runner(*run.limits.origin, c.name, i) : make_in_process_runner(*v.spec, run.backend);
      v.prep = v.runner->prepare(spec);
      v.prepared = true;
      record_preparation(v);
      if (run.isolate && c.cold_first_step && v.prep.status == "ok")
        v.result.cold_first_runs_s = {v.prep.warmup.first_run_s};
      if (v.prep.status != "ok") {
        v.result.status = variant_status(v.prep.status);
        v.result.error = v.prep.error;
        v.runner.reset();
      }
    } catch (const std::exception& e) {
      record_failure(v, e, run.backend);
    }
  }
}

}  // namespace optbench::case_run
