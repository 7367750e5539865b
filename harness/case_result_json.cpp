#include "harness/case_result_json.h"

#include <stdexcept>

namespace optbench {
namespace {

using json = nlohmann::json;

json units_json(const WorkUnits& u) {
  return {{"bytes", u.bytes}, {"flops", u.flops}, {"items", u.items}, {"item_name", u.item_name}};
}

json summary_json(const std::optional<Summary>& s) {
  if (!s) return nullptr;
  return {{"n", s->n},     {"median", s->median}, {"q1", s->q1},   {"q3", s->q3},
          {"iqr", s->iqr}, {"min", s->min},       {"max", s->max}, {"mean", s->mean}};
}

// An empty series was not read: null.
template <typename T>
json series_or_null(const std::vector<T>& xs) {
  return xs.empty() ? json(nullptr) : json(xs);
}

json samples_json(const SampleSeries& s) {
  json j = {{"host_s", s.host_s},
            {"device_s", series_or_null(s.device_s)},
            {"sm_clock_mhz", series_or_null(s.sm_clock_mhz)},
            {"clock_event_reasons", series_or_null(s.clock_event_reasons)}};
  if (!s.minor_faults.empty()) j["minor_faults"] = s.minor_faults;
  return j;
}

json throughput_json(const Throughput& t) {
  json j = json::object();
  if (t.bytes_per_s) j["bytes_per_s"] = *t.bytes_per_s;
  if (t.flops_per_s) j["flops_per_s"] = *t.flops_per_s;
  if (t.items_per_s) j["items_per_s"] = *t.items_per_s;
  return j;
}

json memory_json(const std::optional<MemoryPeak>& m) {
  if (!m) return nullptr;
  return {{"peak_allocated_bytes", m->allocated_bytes}, {"peak_reserved_bytes", m->reserved_bytes}};
}

json throttle_json(const std::optional<ThrottleShares>& t) {
  if (!t) return nullptr;
  return {{"thermal", t->thermal},
          {"power", t->power},
          {"other", t->other},
          {"samples", t->samples},
          {"read", t->read == ThrottleRead::during_work ? "during_work" : "after_work"}};
}

json nvidia_smi_json(const NvidiaSmi& s) {
  json j = json::object();
  auto add = [&](const char* key, const std::optional<MedianMin>& m) {
    if (m) j[key] = {{"median", m->median}, {"min", m->min}};
  };
  add("gpu_util_pct", s.gpu_util_pct);
  add("memory_util_pct", s.memory_util_pct);
  add("power_w", s.power_w);
  add("sm_clock_mhz", s.sm_clock_mhz);
  j["samples"] = s.samples;
  return j;
}

json variant_json(const VariantResult& v) {
  json j = {{"name", v.name},
            {"description", v.description},
            {"role", to_string(v.role)},
            {"status", to_string(v.status)},
            {"timing_mode", to_string(v.timing_mode)},
            {"primary_metric", to_string(v.primary_metric)},
            {"process", to_string(v.process)}};
  if (!v.error.empty()) j["error"] = v.error;
  if (!v.params.empty()) j["params"] = v.params;
  j["first_run_s"] = v.first_run_s ? json(*v.first_run_s) : json(nullptr);
  if (const auto cold = v.cold_first_run_s()) {
    j["cold_first_runs_s"] = v.cold_first_runs_s;
    j["cold_first_run_s"] = *cold;
  }
  j["warmup"] = {{"iters", v.warmup.iters}, {"seconds", v.warmup.seconds}, {"stable", v.warmup.stable}};
  j["iters_per_sample"] = v.iters_per_sample;
  j["samples"] = samples_json(v.samples);
  j["stats"] = summary_json(v.stats);
  j["host_stats"] = summary_json(v.host_stats);
  j["device_stats"] = summary_json(v.device_stats);
  j["throughput"] = throughput_json(v.throughput);
  j["memory"] = memory_json(v.memory);
  if (v.units) j["units"] = units_json(*v.units);
  j["metrics"] = v.metrics;
  j["throttle"] = throttle_json(v.throttle);
  if (v.nvidia_smi) j["nvidia_smi"] = nvidia_smi_json(*v.nvidia_smi);
  if (v.breakdown) j["breakdown"] = to_json(*v.breakdown);
  return j;
}

json verification_json(const Verification& v) {
  json j = {{"status", to_string(v.status)}};
  if (v.tolerance) {
    j["max_abs_err"] = v.tolerance->max_abs_err;
    j["max_rel_err"] = v.tolerance->max_rel_err;
    j["rtol"] = v.tolerance->rtol;
    j["atol"] = v.tolerance->atol;
  }
  if (!v.message.empty()) j["message"] = v.message;
  if (!v.details.empty()) j["details"] = v.details;
  return j;
}

json comparison_json(const Comparison& c) {
  json j = {{"baseline", c.baseline}, {"variant", c.variant}, {"rounds", c.rounds}};
  if (!c.speedup) {
    j["speedup"] = nullptr;
  } else {
    const SpeedupEstimate& e = *c.speedup;
    auto unless_below = [&](double x) { return e.below_floor ? json(nullptr) : json(x); };
    j["speedup"] = e.value;
    j["ci_low"] = unless_below(e.ci_low);
    j["ci_high"] = unless_below(e.ci_high);
    j["rel_ci_width"] = unless_below(e.rel_ci_width);
    j["confidence"] = e.confidence;
    j["ci_coverage"] = e.ci_coverage;
    j["rounds_floor"] = e.rounds_floor;
    if (e.below_floor) j["below_floor"] = true;
    j["estimator"] = "median of per-round ratios, order-statistic CI";
    j["paired"] = true;
  }
  j["verification"] = verification_json(c.verification);
  return j;
}

json time_split_json(const TimeSplit& t) {
  json j = {{"build", t.build},         {"warmup", t.warmup},
            {"sampling", t.sampling},   {"verification", t.verification},
            {"profiling", t.profiling}, {"other", t.other}};
  if (t.cold_first_steps) j["cold_first_steps"] = *t.cold_first_steps;
  return j;
}

}  // namespace

json to_json(const CaseResult& r) {
  json out = {{"name", r.name},
              {"params", r.params},
              {"timing_mode", to_string(r.timing_mode)},
              {"primary_metric", to_string(r.primary_metric)},
              {"hold_stream", r.hold_stream},
              {"units", units_json(r.units)},
              {"notes", r.notes},
              {"status", to_string(r.status)}};
  if (r.oom_expected) out["oom_expected"] = true;
  const bool has_reason =
      r.status == CaseStatus::skipped || r.status == CaseStatus::failed || r.status == CaseStatus::not_run;
  if (has_reason) out["reason"] = r.reason;
  if (r.status == CaseStatus::skipped) return out;
  out["isolation"] = r.isolated ? "process_per_variant" : "none";
  out["stop_reason"] = to_string(r.stop_reason);
  out["rounds"] = r.rounds;
  out["sampling_s"] = r.sampling_s;
  out["wall_s"] = r.wall_s;
  out["time_s"] = time_split_json(r.time_s);
  json variants = json::array();
  for (const auto& v : r.variants) variants.push_back(variant_json(v));
  out["variants"] = std::move(variants);
  json comparisons = json::array();
  for (const auto& c : r.comparisons) comparisons.push_back(comparison_json(c));
  out["comparisons"] = std::move(comparisons);
  if (r.derived) out["derived"] = *r.derived;
  return out;
}

json to_json(const BreakdownRecord& b) {
  json j = b.status == BreakdownStatus::ok ? profiling::to_json(b.figures) : json::object();
  j["status"] = to_string(b.status);
  if (!b.reason.empty()) j["reason"] = b.reason;
  return j;
}

BreakdownRecord breakdown_record_from_json(const json& j) {
  const std::string status = j.at("status").get<std::string>();
  for (auto s : {BreakdownStatus::ok, BreakdownStatus::skipped, BreakdownStatus::error}) {
    if (status != to_string(s)) continue;
    BreakdownRecord b{s, j.value("reason", ""), {}};
    if (s == BreakdownStatus::ok) b.figures = profiling::breakdown_figures_from_json(j);
    return b;
  }
  throw std::invalid_argument("a breakdown with status '" + status + "'");
}

}  // namespace optbench
