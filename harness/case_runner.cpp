#include "harness/case_runner.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "harness/interleave.h"
#include "harness/seeding.h"
#include "harness/stats.h"
#include "harness/stopping_rule.h"
#include "harness/variant_runner.h"
#include "harness/verify.h"

namespace optbench {
namespace {

using json = nlohmann::json;

// NVML clocks-event reason bits (nvml.h, nvmlClocksEventReason*), grouped into
// what a reader can act on: cooling, the power limit, anything else that slows
// the clock. Idle, application-clock and display settings are not throttling.
constexpr std::uint64_t kThermalReasons = 0x20 | 0x40;  // SW / HW thermal slowdown
constexpr std::uint64_t kPowerReasons = 0x4 | 0x80;     // SW power cap, HW power brake
constexpr std::uint64_t kOtherReasons = 0x8 | 0x10;     // HW slowdown, sync boost

struct VariantState {
  const Variant* spec = nullptr;
  TimingMode mode = TimingMode::batched;
  std::unique_ptr<VariantRunner> runner;
  std::string process = "shared";
  std::string status = "ok";  // ok | oom | error | not_run
  std::string error;
  Prepared prep;
  bool prepared = false;
  json metrics = json::object();
  json breakdown;  // the profiled window's (harness/profiling/); null: not profiled
  std::vector<double> primary, host, device, clock;
  std::vector<std::uint64_t> reasons;
  std::vector<double> gpu_util, memory_util, power;  // nvidia-smi's figures, per sample
  std::vector<double> minor_faults;                  // per step, per sample (the whole process's)
  std::vector<double> cold_first_runs;  // Case::cold_first_step: one per fresh process
  bool alive() const { return status == "ok" && runner; }
};

void record_failure(VariantState& v, const std::exception& e, DeviceBackend& backend) {
  v.status = is_out_of_memory(e) ? "oom" : "error";
  v.error = first_line(e.what());
  v.runner.reset();
  backend.release_cached_memory();
}

bool past(const CaseLimits& l, const DeviceBackend& b) { return l.deadline_s && b.now() >= *l.deadline_s; }

// Whether the budget left covers `cost` seconds of work that cannot be stopped
// once started (building a variant, verification): with a budget, such work
// starts only when an estimate from the steps already timed says it fits.
bool fits(const CaseLimits& l, const DeviceBackend& b, double cost) {
  return !l.deadline_s || b.now() + cost < *l.deadline_s;
}

// The slowest step among the variants prepared so far (0 before any): steady
// steps, or first steps too (a new variant pays its own first step).
double slowest_step(const std::vector<VariantState>& vs, bool with_first_runs) {
  double s = 0;
  for (const auto& v : vs)
    if (v.prepared) s = std::max({s, v.prep.warmup.step_s, with_first_runs ? v.prep.warmup.first_run_s : 0.0});
  return s;
}

const WorkUnits& units_of(const Case& c, const VariantState& v) { return v.spec->units ? *v.spec->units : c.units; }

// The amount of work speedups are normalised by: FLOPs, else bytes, else items.
double work_amount(const WorkUnits& u) {
  if (u.flops > 0) return u.flops;
  if (u.bytes > 0) return u.bytes;
  if (u.items > 0) return u.items;
  return 1.0;
}

// Primary times per unit of work relative to the baseline's work, so variants
// doing different amounts of work (4095 vs 4096) compare fairly.
std::vector<double> normalised_times(const Case& c, const VariantState& v, const VariantState& base) {
  const double scale = work_amount(units_of(c, base)) / work_amount(units_of(c, v));
  std::vector<double> out(v.primary);
  for (auto& t : out) t *= scale;
  return out;
}

// Worst relative CI width over every speedup against the baseline; with a
// single variant, that of the baseline's median. The same estimator and
// interval as the reported ones, so the CI that stops a case is the CI reported.
double worst_rel_ci(const Case& c, const std::vector<VariantState>& vs, double confidence) {
  double worst = 0;
  bool any = false;
  for (std::size_t i = 1; i < vs.size(); ++i) {
    if (!vs[i].alive() || vs[i].primary.empty()) continue;
    worst = std::max(worst, relative_width(paired_speedup(vs[0].primary, normalised_times(c, vs[i], vs[0]), confidence)));
    any = true;
  }
  if (!any) worst = relative_width(median_ci(vs[0].primary, confidence));
  return worst;
}

json summary_json(const std::vector<double>& xs) {
  if (xs.empty()) return nullptr;
  const Summary s = summarize(xs);
  return {{"n", s.n}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"iqr", s.iqr},
          {"min", s.min}, {"max", s.max}, {"mean", s.mean}};
}

json throughput_json(const WorkUnits& u, double seconds) {
  json t = json::object();
  if (!(seconds > 0)) return t;
  if (u.bytes > 0) t["bytes_per_s"] = u.bytes / seconds;
  if (u.flops > 0) t["flops_per_s"] = u.flops / seconds;
  if (u.items > 0) t["items_per_s"] = u.items / seconds;
  return t;
}

json memory_json(const std::optional<MemoryPeak>& m) {
  if (!m) return nullptr;
  return {{"peak_allocated_bytes", m->allocated_bytes}, {"peak_reserved_bytes", m->reserved_bytes}};
}

const char* primary_metric(const DeviceBackend& b, TimingMode mode) {
  return b.kind() == DeviceKind::cuda && mode == TimingMode::batched ? "device_s" : "host_s";
}

json variant_json(const VariantState& v, std::size_t index, const Case& c, const DeviceBackend& backend) {
  json j = {{"name", v.spec->name},
            {"description", v.spec->description},
            {"role", index == 0 ? "baseline"
                     : v.spec->role == VariantRole::reference ? "reference" : "optimized"},
            {"status", v.status},
            {"timing_mode", to_string(v.mode)},
            {"primary_metric", primary_metric(backend, v.mode)},
            // "fresh": built, first run and sampled in a process of its own (cold
            // one-time costs, its own caches); "shared": in the run's process,
            // after whatever ran before it (warm).
            {"process", v.process}};
  if (!v.error.empty()) j["error"] = v.error;
  if (!v.spec->params.empty()) j["params"] = v.spec->params;
  const auto& w = v.prep.warmup;
  j["first_run_s"] = v.prepared && w.iters ? json(w.first_run_s) : json(nullptr);
  if (!v.cold_first_runs.empty()) {
    j["cold_first_runs_s"] = v.cold_first_runs;
    j["cold_first_run_s"] = median(v.cold_first_runs);
  }
  j["warmup"] = {{"iters", w.iters}, {"seconds", w.seconds}, {"stable", w.stable}};
  j["iters_per_sample"] = v.prep.iters;
  json dev = v.device.empty() ? json(nullptr) : json(v.device);
  json clk = v.clock.empty() ? json(nullptr) : json(v.clock);
  json rsn = v.reasons.empty() ? json(nullptr) : json(v.reasons);
  j["samples"] = {{"host_s", v.host}, {"device_s", dev}, {"sm_clock_mhz", clk}, {"clock_event_reasons", rsn}};
  if (!v.minor_faults.empty()) j["samples"]["minor_faults"] = v.minor_faults;
  j["stats"] = summary_json(v.primary);
  j["host_stats"] = summary_json(v.host);
  j["device_stats"] = summary_json(v.device);
  j["throughput"] = v.primary.empty() ? json::object() : throughput_json(units_of(c, v), median(v.primary));
  j["memory"] = memory_json(v.prep.memory);
  if (v.spec->units) {
    const auto& u = *v.spec->units;
    j["units"] = {{"bytes", u.bytes}, {"flops", u.flops}, {"items", u.items}, {"item_name", u.item_name}};
  }
  j["metrics"] = v.metrics;
  j["throttle"] = throttle_shares(v.reasons);
  if (auto smi = nvidia_smi_summary(v.gpu_util, v.memory_util, v.clock, v.power); !smi.empty()) j["nvidia_smi"] = smi;
  if (!v.breakdown.is_null()) j["breakdown"] = v.breakdown;
  return j;
}

json verify_pair(const Case& c, Workload* base, Workload* var) {
  json j;
  try {
    if (c.tolerance) {
      j = to_json(compare_outputs(base->output(), var->output(), *c.tolerance), *c.tolerance);
    } else {
      j = {{"status", "passed"}};
    }
    if (c.verify) {
      std::vector<Workload*> pair = {base, var};
      const Verdict v = c.verify(pair);
      if (!v.details.empty()) j["details"] = v.details;
      if (!v.problem.empty()) {
        j["status"] = "failed";
        j["message"] = v.problem;
      }
    }
  } catch (const std::exception& e) {
    j = {{"status", "failed"}, {"message", std::string("verification raised: ") + first_line(e.what())}};
  }
  return j;
}

// Verification of variants that were timed in worker processes: the baseline
// and each variant built again here, one step each, then the case's checks.
std::vector<json> verify_rebuilt(const Case& c, const std::vector<VariantState>& vs, DeviceBackend& backend) {
  std::vector<json> out(vs.size(), json{{"status", "not_checked"}});
  try {
    auto base = build_workload(c.variants[0]);
    base->step();
    for (std::size_t i = 1; i < vs.size(); ++i) {
      if (!vs[i].prepared || vs[i].status != "ok") continue;
      try {
        auto var = build_workload(c.variants[i]);
        var->step();
        out[i] = verify_pair(c, base.get(), var.get());
      } catch (const std::exception& e) {
        out[i] = {{"status", "failed"}, {"message", std::string("verification raised: ") + first_line(e.what())}};
      }
    }
  } catch (const std::exception& e) {
    for (std::size_t i = 1; i < vs.size(); ++i)
      out[i] = {{"status", "not_checked"}, {"message", "baseline rebuilt for verification failed: " + first_line(e.what())}};
  }
  backend.release_cached_memory();
  return out;
}

// A Chrome trace's file name: experiment, case and variant, in characters any
// file system takes.
std::string trace_path(const std::string& dir, const CaseLimits& l, const Case& c, const Variant& v) {
  std::string name = (l.origin ? l.origin->experiment : std::string("case")) + "." + c.name + "." + v.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.') ch = '_';
  return dir + "/" + name + ".pt.trace.json";
}

// A cold first step is one observation per process: where a case derives from
// one, each live variant is started again in cfg.cold_processes - 1 more fresh
// processes that build it, take the first step and one more, and exit. After
// the timed rounds, so no sample waits for them; each only if the budget covers
// a process start, the variant's build and its two steps, and still leaves
// verification its share (reserve_s).
void take_cold_first_steps(const Case& c, std::vector<VariantState>& vs, const MeasureConfig& cfg,
                           const CaseLimits& limits, DeviceBackend& backend, const std::atomic<bool>& stop_requested,
                           double reserve_s) {
  for (int p = 1; p < cfg.cold_processes; ++p)
    for (std::size_t i = 0; i < vs.size(); ++i) {
      VariantState& v = vs[i];
      if (!v.alive() || stop_requested) continue;
      if (!fits(limits, backend, reserve_s + 1.0 + v.prep.build_s + v.prep.warmup.first_run_s + v.prep.warmup.step_s))
        return;
      try {
        auto again = make_child_runner(*limits.origin, c.name, i);
        const Prepared r = again->prepare({v.mode, c.hold_stream, 0.0, 0.0, cfg.target_sample_s, 1});
        if (r.status == "ok" && r.warmup.iters > 0) v.cold_first_runs.push_back(r.warmup.first_run_s);
      } catch (const std::exception&) {
        // That process's first step is missing: the others stand, and their count says so.
      }
    }
}

// After the timed rounds, each live variant runs a short window under the
// profiler (harness/profiling/window_plan.h sizes it); nothing here is ever
// part of a sample. A failure here is recorded with the breakdown and costs
// the variant nothing else.
void profile_variants(const Case& c, std::vector<VariantState>& vs, const MeasureConfig& cfg, const CaseLimits& limits,
                      DeviceBackend& backend, const std::atomic<bool>& stop_requested, double case_s, double reserve_s) {
  const auto& bc = cfg.breakdown;
  if (bc.mode == profiling::BreakdownMode::off) return;
  // One plan for the case, sized on its slowest variant: every variant's
  // window has the same number of steps, and a case is profiled whole or not at all.
  std::size_t alive = 0;
  double slowest = 0;
  for (const auto& v : vs) {
    if (!v.alive() || v.primary.empty()) continue;
    ++alive;
    slowest = std::max(slowest, median(v.primary));
  }
  const profiling::WindowPlan plan = profiling::plan_window(bc, slowest, alive, case_s);
  double cost_scale = 1.0;  // measured over estimated, from this case's windows: they are alike
  for (auto& v : vs) {
    if (!v.alive() || v.primary.empty() || stop_requested) continue;
    const double step_s = median(v.primary);
    if (plan.steps == 0) {
      v.breakdown = {{"status", "skipped"}, {"reason", plan.skip_reason}};
      continue;
    }
    // Under a budget the window comes after verification's share, and its
    // estimate is doubled: an operator-heavy window costs more than its steps.
    // CUPTI's set-up on a GPU (about a second, once per process) is not in the plan.
    const double setup_s = backend.kind() == DeviceKind::cuda ? 1.0 : 0.0;
    if (!fits(limits, backend, reserve_s + setup_s + 2.0 * plan.cost_s * cost_scale)) {
      v.breakdown = {{"status", "skipped"}, {"reason", "budget: the run's --time-budget has no room for the window"}};
      continue;
    }
    profiling::WindowRequest r;
    r.steps = plan.steps;
    r.warm_step = plan.warm_step;
    r.timed_step_s = step_s;
    r.tolerance = bc.tolerance;
    if (!bc.trace_dir.empty()) r.trace_path = trace_path(bc.trace_dir, limits, c, *v.spec);
    try {
      const double t0 = backend.now();
      v.breakdown = v.runner->profiled_window(r);
      cost_scale = std::max(cost_scale, (backend.now() - t0) / plan.cost_s);
    } catch (const std::exception& e) {
      v.breakdown = {{"status", "error"}, {"reason", first_line(e.what())}};
      backend.release_cached_memory();
    }
  }
}

}  // namespace

json throttle_shares(const std::vector<std::uint64_t>& reasons) {
  if (reasons.empty()) return nullptr;
  auto share = [&](std::uint64_t mask) {
    const auto n = std::count_if(reasons.begin(), reasons.end(), [&](std::uint64_t r) { return (r & mask) != 0; });
    return static_cast<double>(n) / static_cast<double>(reasons.size());
  };
  return {{"thermal", share(kThermalReasons)}, {"power", share(kPowerReasons)}, {"other", share(kOtherReasons)},
          {"samples", reasons.size()}};
}

json nvidia_smi_summary(const std::vector<double>& gpu_util, const std::vector<double>& memory_util,
                        const std::vector<double>& sm_clock, const std::vector<double>& power) {
  json out = json::object();
  auto add = [&](const char* key, const std::vector<double>& xs) {
    if (!xs.empty()) out[key] = {{"median", median(xs)}, {"min", *std::min_element(xs.begin(), xs.end())}};
  };
  add("gpu_util_pct", gpu_util);
  add("memory_util_pct", memory_util);
  add("power_w", power);
  if (!out.empty()) {  // the clock beside them, as nvidia-smi shows it; alone it is the throttle record's
    add("sm_clock_mhz", sm_clock);
    out["samples"] = std::max({gpu_util.size(), memory_util.size(), power.size()});
  }
  return out;
}

json run_case(const Case& c, DeviceBackend& backend, const MeasureConfig& cfg, const CaseLimits& limits,
              const std::atomic<bool>& stop_requested) {
  json out = {{"name", c.name},
              {"params", c.params},
              {"timing_mode", to_string(c.timing)},
              {"primary_metric", primary_metric(backend, c.timing)},
              {"hold_stream", c.hold_stream},
              {"units", {{"bytes", c.units.bytes}, {"flops", c.units.flops}, {"items", c.units.items},
                         {"item_name", c.units.item_name}}},
              {"notes", c.notes}};
  if (!c.skip_reason.empty()) {
    out["status"] = "skipped";
    out["reason"] = c.skip_reason;
    return out;
  }
  if (c.variants.empty()) throw std::logic_error("case '" + c.name + "' has no variants");
  const bool isolate = c.isolate || (cfg.isolate && !c.process_bound);
  if (isolate && !limits.origin) throw std::logic_error("case '" + c.name + "' needs worker processes, but has no origin");
  out["isolation"] = isolate ? "process_per_variant" : "none";

  const double t_case = backend.now();
  // Held batches are capped so the launch queue cannot fill while the stream waits.
  const std::int64_t max_iters = c.hold_stream ? std::min<std::int64_t>(cfg.max_iters_per_sample, 256)
                                               : cfg.max_iters_per_sample;
  // Warm-up counts against a tight per-case cap too (a small --time-budget).
  const double warmup_max_s =
      std::clamp(limits.max_time_s / static_cast<double>(c.variants.size()), 0.01, cfg.warmup_max_s);
  std::vector<VariantState> vs(c.variants.size());
  for (std::size_t i = 0; i < vs.size(); ++i) {
    VariantState& v = vs[i];
    v.spec = &c.variants[i];
    v.mode = v.spec->timing.value_or(c.timing);
    v.process = isolate ? "fresh" : "shared";
    // Preparing takes a build, a first step and a warm-up batch at the least:
    // the longest build so far (or the case's declared set-up) and about three
    // steps of the slowest variant built so far.
    double setup = c.setup_s;
    for (const auto& u : vs)
      if (u.prepared) setup = std::max(setup, u.prep.build_s);
    if (stop_requested || past(limits, backend) || !fits(limits, backend, setup + 3 * slowest_step(vs, true))) {
      v.status = "not_run";
      if (!stop_requested) v.error = "budget: the run's --time-budget ran out before this variant started";
      continue;
    }
    PrepareSpec spec{v.mode, c.hold_stream, cfg.warmup_min_s, warmup_max_s, cfg.target_sample_s, max_iters};
    if (limits.deadline_s) spec.warmup_max_s = std::clamp(*limits.deadline_s - backend.now(), 0.01, warmup_max_s);
    try {
      v.runner = isolate ? make_child_runner(*limits.origin, c.name, i) : make_in_process_runner(*v.spec, backend);
      v.prep = v.runner->prepare(spec);
      v.prepared = true;
      if (isolate && c.cold_first_step && v.prep.status == "ok") v.cold_first_runs = {v.prep.warmup.first_run_s};
      if (v.prep.status != "ok") {
        v.status = v.prep.status;
        v.error = v.prep.error;
        v.runner.reset();
      }
    } catch (const std::exception& e) {
      record_failure(v, e, backend);
    }
  }

  StopReason reason = StopReason::none;
  int rounds = 0;
  const int floor = rounds_floor(cfg.stopping.confidence);
  // Under a budget a case gets the rounds floor or no rounds at all: a ratio
  // from fewer rounds has no interval and no verdict. A round costs about the
  // prepared variants' sample lengths.
  std::string planned_out;
  if (limits.deadline_s && vs[0].alive()) {
    double round_s = 0;
    for (const auto& v : vs)
      if (v.alive()) round_s += static_cast<double>(v.prep.iters) * v.prep.warmup.step_s;
    const double left = *limits.deadline_s - backend.now();
    if (static_cast<double>(floor) * round_s > left) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "budget: %d rounds (the fewest a confidence interval needs) of about %.3g s each do not fit "
                    "the %.3g s left of the run's --time-budget",
                    floor, round_s, std::max(0.0, left));
      planned_out = buf;
      reason = StopReason::budget;
    }
  }
  const double t_sampling = backend.now();
  // Preparation is charged to the case's share too.
  const double sampling_cap = std::max(0.0, limits.max_time_s - (limits.deadline_s ? t_sampling - t_case : 0.0));
  const std::size_t ci_rounds = static_cast<std::size_t>(floor);
  if (vs[0].alive() && planned_out.empty()) {
    InterleaveSchedule schedule(vs.size(), cfg.order, cfg.seed);
    StoppingConfig stopping = cfg.stopping;
    stopping.max_time_s = std::min(stopping.max_time_s, sampling_cap);
    StopState st;
    int checked_at = 0;
    while (reason == StopReason::none) {
      for (std::size_t i : schedule.next_round()) {
        VariantState& v = vs[i];
        if (!v.alive() || stop_requested || past(limits, backend)) continue;
        try {
          const Sample s = v.runner->sample(v.prep.iters, v.mode);
          v.primary.push_back(primary_time(s, v.mode));
          v.host.push_back(s.host_s);
          if (s.device_s) v.device.push_back(*s.device_s);
          if (s.sm_clock_mhz) v.clock.push_back(*s.sm_clock_mhz);
          if (s.clock_reasons) v.reasons.push_back(*s.clock_reasons);
          if (s.gpu_util_pct) v.gpu_util.push_back(*s.gpu_util_pct);
          if (s.memory_util_pct) v.memory_util.push_back(*s.memory_util_pct);
          if (s.power_w) v.power.push_back(*s.power_w);
          if (s.minor_faults) v.minor_faults.push_back(*s.minor_faults);
          st.measured_s += s.host_s * static_cast<double>(s.iters);
        } catch (const std::exception& e) {
          record_failure(v, e, backend);
        }
      }
      if (!vs[0].alive()) break;
      st.rounds = ++rounds;
      st.wall_s = backend.now() - t_sampling;
      st.interrupted = stop_requested.load();
      st.budget_spent = past(limits, backend);
      // The interval is cheap but not free: re-check after ~10% more rounds. A
      // precision stop needs an interval computed on exactly the final rounds.
      st.worst_rel_ci = std::numeric_limits<double>::infinity();
      if (static_cast<std::size_t>(rounds) >= ci_rounds && rounds - checked_at >= std::max(1, checked_at / 10)) {
        st.worst_rel_ci = worst_rel_ci(c, vs, cfg.stopping.confidence);
        checked_at = rounds;
      }
      reason = should_stop(stopping, st);
    }
  }
  if (!vs[0].alive()) reason = StopReason::error;
  if (stop_requested) reason = StopReason::interrupted;

  for (auto& v : vs) {
    if (!v.alive()) continue;
    try {
      v.metrics = v.runner->metrics();
    } catch (const std::exception& e) {
      v.metrics = {{"error", first_line(e.what())}};
    }
  }

  out["sampling_s"] = backend.now() - t_sampling;
  // Verification is untimed but not free: training cases replay steps per
  // variant from fresh weights it builds twice (a 3-step trace and a fit of
  // up to 9 steps, workloads/training/verify_losses.h), and a float64 reference of 3
  // steps at several times the cost (counted as 15), so under a budget it
  // starts only if that fits, and says so when it does not. On the CPU's
  // ResNet-50 case the old count (3 steps per variant + 9) was a third of the
  // 7.9 s it took. Isolated variants are rebuilt here for it, after their
  // workers have gone (so their memory is free).
  double verify_cost = 15.0 * slowest_step(vs, false);
  for (const auto& v : vs)
    if (v.prepared) verify_cost += 12.0 * v.prep.warmup.step_s + 2.0 * v.prep.build_s;
  const double t_cold = backend.now();
  if (isolate && c.cold_first_step && reason != StopReason::interrupted && reason != StopReason::error)
    take_cold_first_steps(c, vs, cfg, limits, backend, stop_requested, (c.tolerance || c.verify) ? verify_cost : 0.0);
  const double cold_s = backend.now() - t_cold;
  const double t_profile = backend.now();
  if (reason != StopReason::interrupted && reason != StopReason::error)
    profile_variants(c, vs, cfg, limits, backend, stop_requested, t_profile - t_case,
                     (c.tolerance || c.verify) ? verify_cost : 0.0);
  const double profile_s = backend.now() - t_profile;

  out["stop_reason"] = to_string(reason);
  out["rounds"] = rounds;
  json variants = json::array();
  for (std::size_t i = 0; i < vs.size(); ++i) variants.push_back(variant_json(vs[i], i, c, backend));
  out["variants"] = std::move(variants);

  const bool check = (c.tolerance || c.verify) && fits(limits, backend, verify_cost) && !stop_requested;
  std::vector<json> checks(vs.size(), json{{"status", "not_checked"}});
  const double t_verify = backend.now();
  if (check && vs[0].alive()) {
    if (isolate) {
      for (auto& v : vs) v.runner.reset();
      checks = verify_rebuilt(c, vs, backend);
    } else {
      for (std::size_t i = 1; i < vs.size(); ++i)
        if (vs[i].alive()) checks[i] = verify_pair(c, vs[0].runner->workload(), vs[i].runner->workload());
    }
  } else if ((c.tolerance || c.verify) && !stop_requested && !fits(limits, backend, verify_cost)) {
    for (auto& j : checks) j["message"] = "budget: the run's --time-budget ran out before verification";
  }
  const double verify_s = backend.now() - t_verify;
  // Below the floor (interrupted, an error, the budget's end despite the plan):
  // the ratio is kept with its rounds, but no interval is claimed for it.
  const bool budget_short = reason == StopReason::budget && rounds < floor;

  json comparisons = json::array();
  for (std::size_t i = 1; i < vs.size(); ++i) {
    json cmp = {{"baseline", vs[0].spec->name}, {"variant", vs[i].spec->name}};
    if (vs[0].primary.empty() || vs[i].primary.empty() || budget_short) {
      cmp["speedup"] = nullptr;
      cmp["rounds"] = std::min(vs[0].primary.size(), vs[i].primary.size());
      cmp["verification"] = {{"status", "not_checked"},
                             {"message", budget_short ? "the budget ended the case below the rounds floor"
                                                      : "a variant has no samples"}};
    } else {
      const Estimate e = paired_speedup(vs[0].primary, normalised_times(c, vs[i], vs[0]), cfg.stopping.confidence);
      const bool below = e.n < static_cast<std::size_t>(floor);
      cmp["speedup"] = e.value;
      cmp["ci_low"] = below ? json(nullptr) : json(e.low);
      cmp["ci_high"] = below ? json(nullptr) : json(e.high);
      cmp["confidence"] = cfg.stopping.confidence;
      cmp["ci_coverage"] = e.coverage;
      cmp["rel_ci_width"] = below ? json(nullptr) : json(relative_width(e));
      cmp["rounds"] = e.n;
      cmp["rounds_floor"] = floor;
      if (below) cmp["below_floor"] = true;
      cmp["estimator"] = "median of per-round ratios, order-statistic CI";
      cmp["paired"] = true;
      cmp["verification"] = checks[i];
    }
    comparisons.push_back(std::move(cmp));
  }
  out["comparisons"] = std::move(comparisons);
  if (c.derive) {
    try {
      out["derived"] = c.derive(out);
    } catch (const std::exception& e) {
      out["derived"] = {{"error", e.what()}};
    }
  }

  if (reason == StopReason::interrupted) {
    out["status"] = "interrupted";
  } else if (vs[0].alive() && (!planned_out.empty() || budget_short)) {
    out["status"] = "not_run";
    out["reason"] = !planned_out.empty() ? planned_out
                                         : "budget: the run's --time-budget ended the case after " +
                                               std::to_string(rounds) + " of the " + std::to_string(floor) +
                                               " rounds a confidence interval needs";
  } else if (!vs[0].alive() && vs[0].status != "ok") {
    out["status"] = vs[0].status == "not_run" ? "not_run" : "failed";
    out["reason"] = vs[0].status == "not_run" ? vs[0].error : "baseline " + vs[0].status + ": " + vs[0].error;
  } else {
    out["status"] = "ok";
  }
  out["wall_s"] = backend.now() - t_case;
  // Where the case's wall time went; "other" is process starts, pipes and bookkeeping.
  double build_s = 0, warmup_s = 0;
  for (const auto& v : vs) {
    build_s += v.prep.build_s;
    warmup_s += v.prep.warmup.seconds;
  }
  const double sampling_s = out["sampling_s"].get<double>();
  out["time_s"] = {{"build", build_s},
                   {"warmup", warmup_s},
                   {"sampling", sampling_s},
                   {"verification", verify_s},
                   {"profiling", profile_s},
                   {"other", std::max(0.0, out["wall_s"].get<double>() - build_s - warmup_s - sampling_s - verify_s -
                                               profile_s - cold_s)}};
  if (isolate && c.cold_first_step) out["time_s"]["cold_first_steps"] = cold_s;
  vs.clear();  // free the variants' memory (and end their workers) before the next case
  backend.release_cached_memory();
  return out;
}

}  // namespace optbench
