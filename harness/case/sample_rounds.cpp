// Sampling: one sample per live variant per round, in the order the
// interleaving schedule gives, until the stopping rule holds.
#include <algorithm>
#include <limits>

#include "harness/case/phases.h"
#include "harness/interleave.h"
#include "harness/stats.h"

namespace optbench::case_run {
namespace {

// Worst relative CI width over every speedup against the baseline; with a
// single variant, that of the baseline's median. The same estimator and
// interval as the reported ones, so the CI that stops a case is the CI reported.
double worst_rel_ci(const CaseRun& run) {
  const double confidence = run.cfg.stopping.confidence;
  double worst = 0;
  bool any = false;
  for (std::size_t i = 1; i < run.vs.size(); ++i) {
    if (!run.vs[i].alive() || run.vs[i].primary.empty()) continue;
    worst = std::max(worst, relative_width(paired_speedup(run.vs[0].primary, normalised_times(run, i), confidence)));
    any = true;
  }
  if (!any) worst = relative_width(median_ci(run.vs[0].primary, confidence));
  return worst;
}

void take_sample(CaseRun& run, VariantState& v, StopState& st) {
  try {
    const Sample s = v.runner->sample(v.prep.iters, v.mode);
    SampleSeries& out = v.result.samples;
    v.primary.push_back(primary_time(s, v.mode));
    out.host_s.push_back(s.host_s);
    if (s.device_s) out.device_s.push_back(*s.device_s);
    if (s.sm_clock_mhz) out.sm_clock_mhz.push_back(*s.sm_clock_mhz);
    if (s.clock_reasons) out.clock_event_reasons.push_back(*s.clock_reasons);
    if (s.gpu_util_pct) v.gpu_util.push_back(*s.gpu_util_pct);
    if (s.memory_util_pct) v.memory_util.push_back(*s.memory_util_pct);
    if (s.power_w) v.power.push_back(*s.power_w);
    if (s.minor_faults) out.minor_faults.push_back(*s.minor_faults);
    st.measured_s += s.host_s * static_cast<double>(s.iters);
  } catch (const std::exception& e) {
    record_failure(v, e, run.backend);
  }
}

void interleaved_rounds(CaseRun& run, double t_sampling) {
  const double sampling_cap = run.gate.sampling_cap_s(run.limits.max_time_s, t_sampling - run.t_case);
  InterleaveSchedule schedule(run.vs.size(), run.cfg.order, run.cfg.seed);
  StoppingConfig stopping = run.cfg.stopping;
  stopping.max_time_s = std::min(stopping.max_time_s, sampling_cap);
  StopState st;
  int checked_at = 0;
  while (run.reason == StopReason::none) {
    for (std::size_t i : schedule.next_round()) {
      VariantState& v = run.vs[i];
      if (!v.alive() || run.stop_requested || run.gate.spent()) continue;
      take_sample(run, v, st);
    }
    if (!run.vs[0].alive()) break;
    st.rounds = ++run.rounds;
    st.wall_s = run.backend.now() - t_sampling;
    st.interrupted = run.stop_requested.load();
    st.budget_spent = run.gate.spent();
    // The interval is cheap but not free: re-check after ~10% more rounds. A
    // precision stop needs an interval computed on exactly the final rounds.
    st.worst_rel_ci = std::numeric_limits<double>::infinity();
    if (run.rounds >= run.floor && run.rounds - checked_at >= std::max(1, checked_at / 10)) {
      st.worst_rel_ci = worst_rel_ci(run);
      checked_at = run.rounds;
    }
    run.reason = should_stop(stopping, st);
  }
}

// The workloads' own figures (time waiting for data, ...) over the rounds they ran.
void collect_metrics(CaseRun& run) {
  for (auto& v : run.vs) {
    if (!v.alive()) continue;
    try {
      v.result.metrics = v.runner->metrics();
    } catch (const std::exception& e) {
      v.result.metrics = {{"error", first_line(e.what())}};
    }
  }
}

}  // namespace

void sample_rounds(CaseRun& run) {
  if (run.vs[0].alive()) {
    run.rounds_refused = run.gate.refuse_rounds(run.floor, run.live_costs());
    if (!run.rounds_refused.empty()) run.reason = StopReason::budget;
  }
  const double t_sampling = run.backend.now();
  if (run.vs[0].alive() && run.rounds_refused.empty()) interleaved_rounds(run, t_sampling);
  if (!run.vs[0].alive()) run.reason = StopReason::error;
  if (run.stop_requested) run.reason = StopReason::interrupted;
  collect_metrics(run);
  run.sampling_s = run.backend.now() - t_sampling;
}

}  // namespace optbench::case_run

namespace optbench::case_run {

void take_reference_steps(CaseRun& run) {
  for (auto& v : run.vs) {
    const auto it = run.limits.timed_step_s.find(v.spec->name);
    if (v.alive() && it != run.limits.timed_step_s.end()) v.primary = {it->second};
  }
  if (run.stop_requested) run.reason = StopReason::interrupted;
}

}  // namespace optbench::case_run
