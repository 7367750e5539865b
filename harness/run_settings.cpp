#include "harness/run_settings.h"

#include <set>
#include <stdexcept>
#include <type_traits>

#include "harness/json_optional.h"
#include "harness/seeding.h"

namespace optbench {
namespace {

using json = nlohmann::json;

// Leaves: numbers, strings, booleans and nested settings as nlohmann writes
// them; enums as their command-line word; an unset optional as null.
template <class T>
json put(const T& v) {
  return json(v);
}
json put(DeviceKind v) { return to_string(v); }
json put(RunProfile v) { return to_string(v); }
json put(InterleaveOrder v) { return to_string(v); }
json put(profiling::BreakdownMode v) { return profiling::to_string(v); }
json put(const std::optional<double>& v) { return or_null(v); }

template <class T>
void get(const json& j, T& v) {
  j.get_to(v);
}
void get(const json& j, DeviceKind& v) { v = parse_device(j.get<std::string>()); }
void get(const json& j, RunProfile& v) { v = parse_profile(j.get<std::string>()); }
void get(const json& j, InterleaveOrder& v) { v = parse_interleave_order(j.get<std::string>()); }
void get(const json& j, profiling::BreakdownMode& v) { v = profiling::parse_breakdown_mode(j.get<std::string>()); }
void get(const json& j, std::optional<double>& v) {
  v = j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
}

// Each struct's fields, once: key and member. S is the struct, const or not.
template <class S, class T>
using If = std::enable_if_t<std::is_same_v<std::remove_const_t<S>, T>, int>;

template <class S, class F, If<S, StoppingConfig> = 0>
void fields(S& s, F&& f) {
  f("min_samples", s.min_samples);
  f("min_time_s", s.min_time_s);
  f("max_time_s", s.max_time_s);
  f("max_samples", s.max_samples);
  f("target_rel_ci", s.target_rel_ci);
  f("confidence", s.confidence);
}

template <class S, class F, If<S, profiling::BreakdownConfig> = 0>
void fields(S& s, F&& f) {
  f("mode", s.mode);
  f("trace_dir", s.trace_dir);
  f("trace_run", s.trace_run);
  f("max_share", s.max_share);
  f("tolerance", s.tolerance);
}

template <class S, class F, If<S, RepeatConfig> = 0>
void fields(S& s, F&& f) {
  f("stopping", s.stopping);
  f("warmup_min_s", s.warmup_min_s);
  f("warmup_max_s", s.warmup_max_s);
}
template <class S, class F, If<S, MeasureConfig> = 0>
void fields(S& s, F&& f) {
  f("stopping", s.stopping);
  f("warmup_min_s", s.warmup_min_s);
  f("warmup_max_s", s.warmup_max_s);
  f("target_sample_s", s.target_sample_s);
  f("max_iters_per_sample", s.max_iters_per_sample);
  f("interleave", s.order);
  f("seed", s.seed);
  f("isolate", s.isolate);
  f("cold_processes", s.cold_processes);
  f("processes", s.processes);
  f("min_processes", s.min_processes);
  f("process_target_rel_ci", s.process_target_rel_ci);
  f("process_time_share", s.process_time_share);
  f("repeat_all", s.repeat_all);
  f("repeat", s.repeat);
  f("breakdown", s.breakdown);
}

template <class S, class F, If<S, RunSettings> = 0>
void fields(S& s, F&& f) {
  f("device", s.device);
  f("profile", s.profile);
  f("filter", s.filter);
  f("time_budget_s", s.time_budget_s);
  f("hang_timeout_s", s.hang_timeout_s);
  f("progress", s.progress);
  f("measure", s.measure);
}

template <class S, class F, If<S, ExperimentChildSettings> = 0>
void fields(S& s, F&& f) {
  f("run", s.run);
  f("out_path", s.out_path);
  f("later_experiments", s.later_experiments);
  f("prior_cases", s.prior_cases);
  f("prior_experiments", s.prior_experiments);
  f("process_index", s.process_index);
  f("profiling", s.profiling);
  f("timed_step_s", s.timed_step_s);
  f("case_wall_s", s.case_wall_s);
  f("repeat_only", s.repeat_only);
}

template <class S, class F, If<S, RunContext> = 0>
void fields(S& s, F&& f) {
  f("device", s.device);
  f("profile", s.profile);
  f("budget_left_s", s.budget_left_s);
}

template <class S, class F, If<S, WorkerArgs> = 0>
void fields(S& s, F&& f) {
  f("experiment", s.experiment);
  f("case", s.case_name);
  f("variant", s.variant);
  f("context", s.ctx);
}

template <class S>
void write(json& j, const S& s) {
  j = json::object();
  fields(s, [&](const char* key, const auto& v) { j[key] = put(v); });
}

// `constants`: keys written beside the fields that are facts of the build, not settings.
template <class S>
void read(const json& j, S& s, const std::set<std::string>& constants = {}) {
  if (!j.is_object()) throw std::invalid_argument("settings: expected an object, got " + j.dump());
  std::set<std::string> known = constants;
  fields(s, [&](const char* key, auto& v) {
    const auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(std::string("settings: missing '") + key + "'");
    get(*it, v);
    known.insert(key);
  });
  for (const auto& [key, value] : j.items())
    if (!known.count(key)) throw std::invalid_argument("settings: unknown '" + key + "'");
}

}  // namespace

void to_json(json& j, const StoppingConfig& s) { write(j, s); }
void from_json(const json& j, StoppingConfig& s) { read(j, s); }

void to_json(json& j, const RepeatConfig& s) { write(j, s); }
void from_json(const json& j, RepeatConfig& s) { read(j, s); }

void to_json(json& j, const MeasureConfig& s) {
  write(j, s);
  j["data_seed"] = kDataSeed;  // what inputs and weights are drawn with (harness/seeding.h)
}
void from_json(const json& j, MeasureConfig& s) { read(j, s, {"data_seed"}); }

void to_json(json& j, const RunSettings& s) { write(j, s); }
void from_json(const json& j, RunSettings& s) { read(j, s); }
void to_json(json& j, const ExperimentChildSettings& s) { write(j, s); }
void from_json(const json& j, ExperimentChildSettings& s) { read(j, s); }
void to_json(json& j, const RunContext& s) { write(j, s); }
void from_json(const json& j, RunContext& s) { read(j, s); }
void to_json(json& j, const WorkerArgs& s) { write(j, s); }
void from_json(const json& j, WorkerArgs& s) { read(j, s); }

namespace profiling {
void to_json(json& j, const BreakdownConfig& s) { write(j, s); }
void from_json(const json& j, BreakdownConfig& s) { read(j, s); }
}  // namespace profiling

}  // namespace optbench
