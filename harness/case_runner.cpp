#include "harness/case_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "harness/interleave.h"
#include "harness/stats.h"
#include "harness/stopping_rule.h"
#include "harness/verify.h"
#include "harness/warmup.h"

namespace optbench {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct VariantState {
  const Variant* spec = nullptr;
  std::unique_ptr<Workload> work;
  std::string status = "ok";  // ok | oom | error | not_run
  std::string error;
  WarmupResult warmup;
  std::int64_t iters = 1;
  std::vector<double> primary, host, device, clock;
  std::optional<MemoryPeak> memory;
  bool alive() const { return status == "ok" && work; }
};

void record_failure(VariantState& v, const std::exception& e, DeviceBackend& backend) {
  v.status = is_out_of_memory(e) ? "oom" : "error";
  v.error = e.what();
  // Keep only the first line: LibTorch messages carry long C++ backtraces.
  if (auto nl = v.error.find('\n'); nl != std::string::npos) v.error.resize(nl);
  v.work.reset();
  backend.release_cached_memory();
}

std::optional<MemoryPeak> minus(std::optional<MemoryPeak> a, std::optional<MemoryPeak> b) {
  if (!a || !b) return std::nullopt;
  return MemoryPeak{a->allocated_bytes - b->allocated_bytes, a->reserved_bytes - b->reserved_bytes};
}

// Builds and warms one variant, measuring what it adds to device memory at peak.
void prepare(VariantState& v, DeviceBackend& backend, TimingMode mode, const MeasureConfig& cfg,
             double warmup_max_s, std::int64_t max_iters) {
  const auto before = backend.current_memory();
  backend.reset_peak_memory();
  try {
    v.work = v.spec->make();
    auto* w = v.work.get();
    v.warmup = warm_up(backend, [w] { w->step(); }, mode, std::min(cfg.warmup_min_s, warmup_max_s), warmup_max_s);
    v.iters = iters_per_sample(v.warmup.step_s, cfg.target_sample_s, max_iters);
  } catch (const std::exception& e) {
    record_failure(v, e, backend);
  }
  v.memory = minus(backend.peak_memory(), before);
}

// Worst relative CI width over every ratio against the baseline; with a single
// variant, that of the baseline's median.
double worst_rel_ci(const std::vector<VariantState>& vs, const BootstrapConfig& boot) {
  const auto& base = vs[0].primary;
  if (base.size() < static_cast<std::size_t>(kMinRoundsForCi)) return std::numeric_limits<double>::infinity();
  double worst = 0;
  bool any = false;
  for (std::size_t i = 1; i < vs.size(); ++i) {
    if (!vs[i].alive() || vs[i].primary.size() < static_cast<std::size_t>(kMinRoundsForCi)) continue;
    const double est = median(base) / median(vs[i].primary);
    worst = std::max(worst, relative_width(bootstrap_ratio_ci(base, vs[i].primary, boot), est));
    any = true;
  }
  if (!any) worst = relative_width(bootstrap_median_ci(base, boot), median(base));
  return worst;
}

json summary_json(const std::vector<double>& xs) {
  if (xs.empty()) return nullptr;
  const Summary s = summarize(xs);
  return {{"n", s.n}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"iqr", s.iqr},
          {"min", s.min}, {"max", s.max}, {"mean", s.mean}};
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

json variant_json(const VariantState& v, std::size_t index, const Case& c, const CaseLimits& limits,
                  double throttle_fraction) {
  json j = {{"name", v.spec->name},
            {"description", v.spec->description},
            {"role", index == 0 ? "baseline"
                     : v.spec->role == VariantRole::reference ? "reference" : "optimized"},
            {"status", v.status}};
  if (!v.error.empty()) j["error"] = v.error;
  if (!v.spec->params.empty()) j["params"] = v.spec->params;
  j["first_run_s"] = v.warmup.iters ? json(v.warmup.first_run_s) : json(nullptr);
  j["warmup"] = {{"iters", v.warmup.iters}, {"seconds", v.warmup.seconds}, {"stable", v.warmup.stable}};
  j["iters_per_sample"] = v.iters;
  json dev = v.device.empty() ? json(nullptr) : json(v.device);
  json clk = v.clock.empty() ? json(nullptr) : json(v.clock);
  j["samples"] = {{"host_s", v.host}, {"device_s", dev}, {"sm_clock_mhz", clk}};
  j["stats"] = summary_json(v.primary);
  j["host_stats"] = summary_json(v.host);
  j["device_stats"] = summary_json(v.device);
  j["throughput"] = v.primary.empty() ? json::object() : throughput_json(units_of(c, v), median(v.primary));
  j["memory"] = memory_json(v.memory);
  if (v.spec->units) {
    const auto& u = *v.spec->units;
    j["units"] = {{"bytes", u.bytes}, {"flops", u.flops}, {"items", u.items}, {"item_name", u.item_name}};
  }
  if (v.work) {
    try {
      j["metrics"] = v.work->metrics();
    } catch (const std::exception& e) {
      j["metrics"] = {{"error", e.what()}};
    }
  }
  if (limits.sm_clock_max_mhz && !v.clock.empty()) {
    const double floor = throttle_fraction * *limits.sm_clock_max_mhz;
    j["throttled_samples"] = std::count_if(v.clock.begin(), v.clock.end(), [&](double f) { return f < floor; });
  }
  return j;
}

json verification_json(const Case& c, std::vector<VariantState>& vs, std::size_t i) {
  if (!c.tolerance && !c.verify) return {{"status", "not_checked"}};
  json j;
  try {
    if (c.tolerance) {
      j = to_json(compare_outputs(vs[0].work->output(), vs[i].work->output(), *c.tolerance), *c.tolerance);
    } else {
      j = {{"status", "passed"}};
    }
    if (c.verify) {
      std::vector<Workload*> pair = {vs[0].work.get(), vs[i].work.get()};
      if (auto problem = c.verify(pair); !problem.empty()) {
        j["status"] = "failed";
        j["message"] = problem;
      }
    }
  } catch (const std::exception& e) {
    j = {{"status", "failed"}, {"message", std::string("verification raised: ") + e.what()}};
  }
  return j;
}

}  // namespace

json run_case(const Case& c, DeviceBackend& backend, const MeasureConfig& cfg, const CaseLimits& limits,
              const std::atomic<bool>& stop_requested) {
  const bool use_events = backend.kind() == DeviceKind::cuda && c.timing == TimingMode::batched;
  json out = {{"name", c.name},
              {"params", c.params},
              {"timing_mode", to_string(c.timing)},
              {"primary_metric", use_events ? "device_s" : "host_s"},
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

  const auto t_case = Clock::now();
  backend.hold_stream(c.hold_stream);
  // Held batches are capped so the launch queue cannot fill while the stream waits.
  const std::int64_t max_iters = c.hold_stream ? std::min<std::int64_t>(cfg.max_iters_per_sample, 256)
                                               : cfg.max_iters_per_sample;
  // Warm-up counts against a tight per-case cap too (a small --time-budget).
  const double warmup_max_s =
      std::clamp(limits.max_time_s / static_cast<double>(c.variants.size()), 0.01, cfg.warmup_max_s);
  std::vector<VariantState> vs(c.variants.size());
  for (std::size_t i = 0; i < vs.size(); ++i) {
    vs[i].spec = &c.variants[i];
    if (stop_requested) {
      vs[i].status = "not_run";
      continue;
    }
    prepare(vs[i], backend, c.timing, cfg, warmup_max_s, max_iters);
  }

  StopReason reason = StopReason::none;
  int rounds = 0;
  const auto t_sampling = Clock::now();
  if (vs[0].alive()) {
    InterleaveSchedule schedule(vs.size(), cfg.order, cfg.seed);
    BootstrapConfig boot{cfg.stopping.confidence, cfg.stopping_resamples, cfg.seed};
    StoppingConfig stopping = cfg.stopping;
    stopping.max_time_s = std::min(stopping.max_time_s, limits.max_time_s);
    StopState st;
    int checked_at = 0;
    while (reason == StopReason::none) {
      for (std::size_t i : schedule.next_round()) {
        VariantState& v = vs[i];
        if (!v.alive() || stop_requested) continue;
        try {
          auto* w = v.work.get();
          const Sample s = backend.time([w] { w->step(); }, v.iters, c.timing);
          v.primary.push_back(primary_time(s, c.timing));
          v.host.push_back(s.host_s);
          if (s.device_s) v.device.push_back(*s.device_s);
          if (s.sm_clock_mhz) v.clock.push_back(*s.sm_clock_mhz);
          st.measured_s += s.host_s * static_cast<double>(s.iters);
        } catch (const std::exception& e) {
          record_failure(v, e, backend);
        }
      }
      if (!vs[0].alive()) break;
      st.rounds = ++rounds;
      st.wall_s = seconds_since(t_sampling);
      st.interrupted = stop_requested.load();
      // The bootstrap is cheap but not free: re-check after ~10% more rounds.
      if (rounds >= kMinRoundsForCi && rounds - checked_at >= std::max(1, checked_at / 10)) {
        st.worst_rel_ci = worst_rel_ci(vs, boot);
        checked_at = rounds;
      } else if (rounds < kMinRoundsForCi) {
        st.worst_rel_ci = std::numeric_limits<double>::infinity();
      }
      reason = should_stop(stopping, st);
    }
  }
  if (!vs[0].alive()) reason = StopReason::error;
  if (stop_requested) reason = StopReason::interrupted;

  out["stop_reason"] = to_string(reason);
  out["rounds"] = rounds;
  out["sampling_s"] = seconds_since(t_sampling);
  json variants = json::array();
  for (std::size_t i = 0; i < vs.size(); ++i) variants.push_back(variant_json(vs[i], i, c, limits, cfg.throttle_fraction));
  out["variants"] = std::move(variants);

  json comparisons = json::array();
  BootstrapConfig final_boot{cfg.stopping.confidence, cfg.bootstrap_resamples, cfg.seed + 1};
  for (std::size_t i = 1; i < vs.size(); ++i) {
    json cmp = {{"baseline", vs[0].spec->name}, {"variant", vs[i].spec->name}};
    if (vs[0].primary.empty() || vs[i].primary.empty()) {
      cmp["speedup"] = nullptr;
      cmp["verification"] = {{"status", "not_checked"}, {"message", "a variant has no samples"}};
    } else {
      const auto times = normalised_times(c, vs[i], vs[0]);
      const double est = median(vs[0].primary) / median(times);
      const Interval ci = bootstrap_ratio_ci(vs[0].primary, times, final_boot);
      cmp["speedup"] = est;
      cmp["ci_low"] = ci.low;
      cmp["ci_high"] = ci.high;
      cmp["confidence"] = cfg.stopping.confidence;
      cmp["rel_ci_width"] = relative_width(ci, est);
      cmp["paired"] = vs[0].primary.size() == vs[i].primary.size();
      cmp["verification"] = (vs[0].alive() && vs[i].alive()) ? verification_json(c, vs, i)
                                                             : json{{"status", "not_checked"}};
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
  } else if (!vs[0].alive()) {
    out["status"] = "failed";
    out["reason"] = "baseline " + vs[0].status + ": " + vs[0].error;
  } else {
    out["status"] = "ok";
  }
  out["wall_s"] = seconds_since(t_case);
  vs.clear();  // free the variants' memory before the next case
  backend.release_cached_memory();
  return out;
}

}  // namespace optbench
