#include "harness/run_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "harness/budget_plan.h"
#include "harness/profiling/window_plan.h"
#include "harness/stopping_rule.h"

namespace optbench {
namespace {

using json = nlohmann::json;

double number(const json& o, const char* key) {
  if (!o.is_object()) return 0.0;
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The array at `key`, by reference (value() would copy), or an empty one.
const json& array_at(const json& o, const char* key) {
  static const json kEmpty = json::array();
  if (!o.is_object()) return kEmpty;
  const auto it = o.find(key);
  return it != o.end() && it->is_array() ? *it : kEmpty;
}

// A case that timed rounds: the only kind a process plans from.
bool timed(const json& c) {
  return c.value("status", "") == "ok" && number(c, "rounds") > 0 && number(c, "sampling_s") > 0;
}

bool ok_variant(const json& v) {
  return v.value("status", "ok") == "ok" && number(v.value("stats", json()), "median") > 0;
}

double step_s(const json& v) { return number(v.value("stats", json()), "median"); }

double recorded_warmup_s(const json& c) {
  double s = 0;
  for (const auto& v : array_at(c, "variants")) s += number(v.value("warmup", json()), "seconds");
  return s;
}

// What the case spent outside its timed work and warm-up, as building (and
// whatever else it did) and verifying: its split's, or where the file has none,
// every second outside sampling and warm-up (cold processes, and the windows
// of a file from before the profiling process, included: a bound), shared as
// the gate's model of verification (budget_plan.h: steps, and builds of each
// variant again) says: the builds b per variant that make the n variants'
// n b + verification(b) what the case spent.
struct Outside {
  double build_s = 0, verification_s = 0;
};

Outside outside(const json& c, bool& bounded) {
  if (const auto it = c.find("time_s"); it != c.end() && it->is_object() && it->contains("build"))
    return {number(*it, "build") + number(*it, "other"), number(*it, "verification")};
  bounded = true;
  std::vector<PreparedCost> prepared;
  for (const auto& v : array_at(c, "variants"))
    if (ok_variant(v)) prepared.push_back({0.0, number(v, "first_run_s"), step_s(v), 1});
  const double rest = std::max(0.0, number(c, "wall_s") - number(c, "sampling_s") - recorded_warmup_s(c));
  const double steps_only = verification_steps_s(prepared);
  if (prepared.empty() || rest <= steps_only) return {0.0, rest};
  for (auto& p : prepared) p.build_s = 1.0;
  const double per_build = verification_steps_s(prepared) - steps_only;  // its builds' seconds per second of build
  const double b = (rest - steps_only) / (static_cast<double>(prepared.size()) + per_build);
  return {b * static_cast<double>(prepared.size()), rest - b * static_cast<double>(prepared.size())};
}

// The variants of a case a process runs (`only`'s entry for it; none: all).
std::vector<const json*> kept_variants(const json& c, const CaseVariants& only) {
  std::vector<const json*> out;
  const json& vs = array_at(c, "variants");
  const auto it = only.find(c.value("name", ""));
  for (std::size_t i = 0; i < vs.size(); ++i)
    if (ok_variant(vs[i]) && (only.empty() || among(it->second, i, vs[i].value("name", "")))) out.push_back(&vs[i]);
  return out;
}

bool runs_case(const json& c, const CaseVariants& only) {
  return timed(c) && (only.empty() || only.count(c.value("name", "")));
}

// Of the case's prepared variants, the share `kept` are (what building them costs).
double build_share(const json& c, std::size_t kept) {
  std::size_t prepared = 0;
  for (const auto& v : array_at(c, "variants")) prepared += v.value("status", "ok") != "not_run";
  return prepared ? static_cast<double>(kept) / static_cast<double>(prepared) : 0.0;
}

// harness/warmup.cpp's warm-up in a fresh process: the first step (as slow as
// the recorded first, the process being as fresh), then steps until min_s has
// passed and three agree, or max_s has.
double fresh_warmup_s(const json& v, double min_s, double max_s) {
  const double first = number(v, "first_run_s"), step = step_s(v);
  return first + std::max(step, std::min(std::max(3 * step, min_s - first), max_s - first));
}

// Rounds to the stopping rule's minimums, capped at its max_time unless the
// rounds floor needs more (a process that misses the target samples to the cap).
double repeat_sampling_s(double round_s, const StoppingConfig& s) {
  if (round_s <= 0) return 0.0;
  const double floor = std::max<double>(s.min_samples, rounds_floor(s.confidence));
  const double n = std::max(floor, std::ceil(s.min_time_s / round_s - 1e-9));
  return n * round_s <= s.max_time_s ? n * round_s : std::max(s.max_time_s, floor * round_s);
}

// A fresh process's share of a case before its rounds or window: its `kept`
// variants built again and warmed up as MeasureConfig::repeat asks.
void rebuild_and_warm_up(const json& c, const std::vector<const json*>& kept, const RepeatConfig& r, ProcessCost& p) {
  for (const json* v : kept) p.warmup_s += fresh_warmup_s(*v, r.warmup_min_s, r.warmup_max_s);
  p.build_s += build_share(c, kept.size()) * outside(c, p.bounded).build_s;
}

}  // namespace

double ProcessCost::total_s() const {
  return start_s + build_s + warmup_s + sampling_s + verification_s + cold_s + windows_s;
}

ProcessCost first_process_cost(const json& cases, const MeasureConfig& m, const json& recorded, DeviceKind device) {
  ProcessCost p;
  p.start_s = process_start_cost_s(device);
  const StoppingConfig& s = m.stopping;
  const double floor = std::max<double>(s.min_samples, rounds_floor(s.confidence));
  const double recorded_cold = recorded.is_object() ? recorded.value("cold_processes", m.cold_processes) : 0;
  for (const auto& c : cases) {
    if (!timed(c)) continue;
    const double rounds = number(c, "rounds"), round_s = number(c, "sampling_s") / rounds;
    // A case that stopped on precision would stop there again; one the cap stopped samples to this cap.
    const double n = c.value("stop_reason", "") == "precision"
                         ? std::clamp(rounds, floor, std::max(floor, s.max_time_s / round_s))
                         : std::max(floor, s.max_time_s / round_s);
    p.sampling_s += std::max(n * round_s, std::min(s.min_time_s, s.max_time_s));
    for (const auto& v : array_at(c, "variants"))
      if (ok_variant(v))
        p.warmup_s += std::clamp(number(v.value("warmup", json()), "seconds"), m.warmup_min_s, m.warmup_max_s);
    const Outside o = outside(c, p.bounded);
    p.build_s += o.build_s;
    p.verification_s += o.verification_s;
    const json split = c.value("time_s", json());
    if (recorded_cold > 0)
      p.cold_s += number(split, "cold_first_steps") * static_cast<double>(m.cold_processes) / recorded_cold;
  }
  return p;
}

ProcessCost further_process_cost(const json& cases, const MeasureConfig& m, DeviceKind device,
                                 const CaseVariants& only) {
  ProcessCost p;
  p.start_s = process_start_cost_s(device);
  const RepeatConfig& r = m.repeat;
  for (const auto& c : cases) {
    if (!runs_case(c, only)) continue;
    const auto kept = kept_variants(c, only);
    rebuild_and_warm_up(c, kept, r, p);
    double round_s = 0;
    for (const json* v : kept) round_s += std::max(1.0, number(*v, "iters_per_sample")) * step_s(*v);
    p.sampling_s += repeat_sampling_s(round_s, r.stopping);
  }
  return p;
}

ProcessCost profiling_process_cost(const json& cases, const MeasureConfig& m, DeviceKind device,
                                   const CaseVariants& only) {
  ProcessCost p;
  if (m.breakdown.mode == profiling::BreakdownMode::off) return p;
  p.start_s = process_start_cost_s(device) + profiler_setup_cost_s(device);
  const RepeatConfig& r = m.repeat;
  for (const auto& c : cases) {
    if (!runs_case(c, only)) continue;
    const auto kept = kept_variants(c, only);
    rebuild_and_warm_up(c, kept, r, p);
    double slowest = 0;
    for (const json* v : kept) slowest = std::max(slowest, step_s(*v));
    const auto plan =
        profiling::plan_window(m.breakdown, slowest, kept.size(), number(c, "wall_s"), device == DeviceKind::cuda);
    if (plan.steps > 0) p.windows_s += static_cast<double>(kept.size()) * window_gate_cost_s(plan.cost_s);
  }
  return p;
}

double expected_further_s(const json& first_cases, const MeasureConfig& m, DeviceKind device, const CaseVariants& only,
                          std::size_t ran, double slowest_so_far_s) {
  if (ran > 1) return slowest_so_far_s;
  return further_process_cost(first_cases, m, device, only).total_s();
}

std::string refuse_by_share(double expected_s, double allowance_s) {
  if (expected_s <= allowance_s) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "process time share: %.1f s left of the further processes' share of the run, this experiment's "
                "next process is expected to take %.1f s",
                std::max(allowance_s, 0.0), expected_s);
  return buf;
}

json scaled_case(json c, double ratio) {
  auto scale = [ratio](json& o, const char* key) {
    if (o.is_object() && o.contains(key) && o[key].is_number()) o[key] = o[key].get<double>() * ratio;
  };
  scale(c, "sampling_s");
  scale(c, "wall_s");
  if (c.contains("time_s") && c["time_s"].is_object())
    for (auto& [k, v] : c["time_s"].items())
      if (v.is_number()) v = v.get<double>() * ratio;
  if (c.contains("variants") && c["variants"].is_array())
    for (auto& v : c["variants"]) {
      scale(v, "first_run_s");
      if (v.contains("warmup")) scale(v["warmup"], "seconds");
      if (v.contains("stats")) scale(v["stats"], "median");
    }
  return c;
}

double once_per_machine_s(const json& cases) {
  double s = 0;
  for (const auto& c : cases) {
    const json notes = c.value("notes", json());
    if (notes.is_object() && notes.contains("compile_s")) s += number(notes, "compile_s") + number(notes, "export_s");
  }
  return s;
}

double ExperimentPlan::least_s() const {
  return first.total_s() + profiling.total_s() + (min_processes - 1) * further.total_s();
}

double ExperimentPlan::most_s() const {
  return first.total_s() + profiling.total_s() + (max_processes - 1) * further.total_s();
}

ExperimentPlan plan_experiment(const json& record, const json& recorded_measure, const MeasureConfig& m,
                               DeviceKind device, const CaseVariants& claimed,
                               const std::function<bool(const std::string&)>& keeps) {
  ExperimentPlan x;
  x.name = record.value("name", "");
  json cases = json::array();
  for (const auto& c : record.value("cases", json::array())) {
    const std::string name = c.value("name", "");
    if (keeps(name))
      cases.push_back(c);
    else
      x.notes.push_back(name + ": left out by this profile");
  }
  const CaseVariants repeated = m.repeat_all ? CaseVariants{} : claimed;
  x.first = first_process_cost(cases, m, recorded_measure, device);
  // --breakdown auto profiles what a claim reads; on, every case.
  const bool every = m.breakdown.mode == profiling::BreakdownMode::on;
  if (every || !claimed.empty())
    x.profiling = profiling_process_cost(cases, m, device, every ? CaseVariants{} : claimed);
  if (m.processes > 1 && (m.repeat_all || !claimed.empty())) {
    x.max_processes = m.processes;
    x.min_processes = std::clamp(m.min_processes, 1, m.processes);
    x.further = further_process_cost(cases, m, device, repeated);
  }
  x.once_s = once_per_machine_s(cases);
  return x;
}

RunTotal run_total(const std::vector<ExperimentPlan>& plans, const MeasureConfig& m) {
  RunTotal t;
  double further_most = 0;
  for (const auto& x : plans) {
    t.first_pass_s += x.first.total_s();
    t.least_s += x.least_s();
    t.most_s += x.first.total_s() + x.profiling.total_s();
    further_most += x.most_s() - x.first.total_s() - x.profiling.total_s();
    t.once_s += x.once_s;
  }
  const double share =
      m.process_time_share ? *m.process_time_share * t.first_pass_s : std::numeric_limits<double>::infinity();
  t.most_s += std::min(further_most, share);
  t.least_s = std::min(t.least_s, t.most_s);
  return t;
}

}  // namespace optbench
