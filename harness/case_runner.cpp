#include "harness/case_runner.h"

#include "harness/case/phases.h"

namespace optbench {
namespace {

template <typename F>
double timed(const DeviceBackend& backend, F&& phase) {
  const double t0 = backend.now();
  phase();
  return backend.now() - t0;
}

}  // namespace

CaseResult run_case(const Case& c, DeviceBackend& backend, const MeasureConfig& cfg, const CaseLimits& limits,
                    const std::atomic<bool>& stop_requested) {
  using namespace case_run;
  CaseResult out = describe_case(c, backend);
  if (!c.skip_reason.empty()) {
    out.status = CaseStatus::skipped;
    out.reason = c.skip_reason;
    return out;
  }
  CaseRun run(c, backend, cfg, limits, stop_requested);
  out.isolated = run.isolate;
  prepare_variants(run);
  if (limits.profiling)
    take_reference_steps(run);  // the first process's medians: nothing here is timed for the record
  else
    sample_rounds(run);
  out.stop_reason = run.reason;
  out.rounds = run.rounds;
  out.sampling_s = run.sampling_s;

  // After the rounds, nothing timed: cold processes and profiled windows leave
  // verification (when the case has it) its share of the budget. A further
  // process of the experiment takes none of them (CaseLimits::repeat).
  const double verification_cost_s = run.gate.verification_cost_s(run.prepared_costs());
  const double reserve_s = run.checks_outputs() ? verification_cost_s : 0.0;
  const bool after_rounds = !limits.repeat && !run.cut_short();
  double cold_s = 0, profiling_s = 0, verification_s = 0;
  if (after_rounds && !limits.profiling && run.isolate && c.cold_first_step)
    cold_s = timed(backend, [&] { take_cold_first_steps(run, reserve_s); });
  if (after_rounds) profiling_s = timed(backend, [&] { take_breakdown_windows(run, reserve_s); });
  std::vector<Verification> checks(run.vs.size());
  if (!limits.repeat && !limits.profiling)
    verification_s = timed(backend, [&] { checks = verify_variants(run, verification_cost_s); });

  out.variants = variant_results(run);
  out.comparisons = compare_variants(run, checks);
  settle_status(run, out);
  derive_figures(c, out);
  out.wall_s = backend.now() - run.t_case;
  out.time_s = time_split(run, out, verification_s, profiling_s, cold_s);
  run.vs.clear();  // free the variants' memory (and end their workers) before the next case
  backend.release_cached_memory();
  return out;
}

}  // namespace optbench
