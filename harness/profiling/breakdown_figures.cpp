#include "harness/profiling/breakdown_figures.h"

#include <array>

#include "harness/json_optional.h"

namespace optbench::profiling {
namespace {

using json = nlohmann::json;

// Each per-step count's key in the results (counters.h), in counter_keys()'s order;
// kernel launches, null on a CPU, last.
constexpr std::array<std::pair<const char*, double MechanismCounts::*>, 8> kCounts = {{
    {"op_calls_per_step", &MechanismCounts::op_calls},
    {"top_level_ops_per_step", &MechanismCounts::top_level_ops},
    {"autograd_nodes_per_step", &MechanismCounts::autograd_nodes},
    {"backward_nodes_per_step", &MechanismCounts::backward_nodes},
    {"fills_per_step", &MechanismCounts::fills},
    {"host_reads_per_step", &MechanismCounts::host_reads},
    {"optimizer_steps_per_step", &MechanismCounts::optimizer_steps},
    {"optimizer_ops_per_step", &MechanismCounts::optimizer_ops},
}};
constexpr const char* kKernelLaunches = "kernel_launches_per_step";

json ranked_json(const std::vector<RankedName>& names) {
  json out = json::array();
  for (const auto& r : names) {
    json x = {{"name", r.name}, {"s", r.s}, {"share", r.share}};
    if (r.category) x["category"] = *r.category;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<RankedName> ranked_from_json(const json& j) {
  std::vector<RankedName> out;
  for (const auto& x : j)
    out.push_back({x.at("name").get<std::string>(), optional_at<std::string>(x, "category"), x.at("s").get<double>(),
                   x.at("share").get<double>()});
  return out;
}

json window_json(const WindowRecord& w) {
  return {{"min_steps", w.min_steps}, {"max_steps", w.max_steps}, {"target_se", w.target_se}, {"grow", w.grow},
          {"warm_step", w.warm_step}, {"stopped", w.stopped},     {"step_se", w.step_se}};
}

WindowRecord window_from_json(const json& j) {
  return {j.at("min_steps").get<int>(), j.at("max_steps").get<int>(),  j.at("target_se").get<double>(),
          j.at("grow").get<bool>(),     j.at("warm_step").get<bool>(), j.at("stopped").get<std::string>(),
          j.at("step_se").get<double>()};
}

MechanismCounts counts_from_json(const json& j) {
  MechanismCounts c;
  for (const auto& [key, field] : kCounts) c.*field = j.at(key).get<double>();
  c.kernel_launches = optional_at<double>(j, kKernelLaunches);
  return c;
}

}  // namespace

const std::vector<std::string>& counter_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& [key, field] : kCounts) k.emplace_back(key);
    k.emplace_back(kKernelLaunches);
    return k;
  }();
  return keys;
}

json to_json(const MechanismCounts& c) {
  json j = json::object();
  for (const auto& [key, field] : kCounts) j[key] = c.*field;
  j[kKernelLaunches] = or_null(c.kernel_launches);
  return j;
}

json to_json(const BreakdownFigures& b) {
  json j = {{"device", b.device_timeline ? "cuda" : "cpu"},
            {"basis", b.device_timeline ? "device time of kernels, copies and memsets" : "self time of CPU operators"},
            {"steps", b.steps},
            {"window_step_s", b.window_step_s},
            {"timed_step_s", or_null(b.timed_step_s)},
            {"overhead", or_null(b.overhead)},
            {"agrees", or_null(b.agrees)},
            {"tolerance", b.tolerance},
            {"busy_s", b.busy_s},
            {"idle_s", b.idle_s},
            {"shares", {{"compute", b.shares.compute}, {"non_compute", b.shares.non_compute}, {"idle", b.shares.idle}}},
            {"copy_overlap", or_null(b.copy_overlap)},
            {"launches_per_step", or_null(b.launches_per_step)},
            {"host_s_per_launch", or_null(b.host_s_per_launch)},
            {"host_ops_while_idle_s", or_null(b.host_ops_while_idle_s)},
            {"step_s", or_null(b.step_s)},
            {"counters", to_json(b.counters)},
            {"top", ranked_json(b.top)},
            {"other_names", b.other_names}};
  json cats = json::object();
  for (const auto& [key, s] : b.categories_s) cats[key] = s;
  j["categories_s"] = std::move(cats);
  if (b.device_events) j["device_events"] = *b.device_events;
  if (b.host_ops_while_idle_top) j["host_ops_while_idle_top"] = ranked_json(*b.host_ops_while_idle_top);
  if (b.window) j["window"] = window_json(*b.window);
  if (!b.trace.empty()) j["trace"] = b.trace;
  return j;
}

BreakdownFigures breakdown_figures_from_json(const json& j) {
  BreakdownFigures b;
  b.device_timeline = j.at("device").get<std::string>() == "cuda";
  b.steps = j.at("steps").get<int>();
  b.window_step_s = j.at("window_step_s").get<double>();
  b.timed_step_s = optional_at<double>(j, "timed_step_s");
  b.overhead = optional_at<double>(j, "overhead");
  b.agrees = optional_at<bool>(j, "agrees");
  b.tolerance = j.at("tolerance").get<double>();
  for (const auto& [key, s] : j.at("categories_s").items()) b.categories_s.emplace_back(key, s.get<double>());
  b.device_events = optional_at<std::size_t>(j, "device_events");
  b.busy_s = j.at("busy_s").get<double>();
  b.idle_s = j.at("idle_s").get<double>();
  const json& sh = j.at("shares");
  b.shares = {sh.at("compute").get<double>(), sh.at("non_compute").get<double>(), sh.at("idle").get<double>()};
  b.copy_overlap = optional_at<double>(j, "copy_overlap");
  b.launches_per_step = optional_at<double>(j, "launches_per_step");
  b.host_s_per_launch = optional_at<double>(j, "host_s_per_launch");
  b.host_ops_while_idle_s = optional_at<double>(j, "host_ops_while_idle_s");
  if (j.contains("host_ops_while_idle_top")) b.host_ops_while_idle_top = ranked_from_json(j["host_ops_while_idle_top"]);
  b.step_s = optional_at<std::vector<double>>(j, "step_s");
  b.counters = counts_from_json(j.at("counters"));
  b.top = ranked_from_json(j.at("top"));
  b.other_names = j.at("other_names").get<std::vector<std::string>>();
  if (j.contains("window")) b.window = window_from_json(j["window"]);
  b.trace = j.value("trace", "");
  return b;
}

}  // namespace optbench::profiling
