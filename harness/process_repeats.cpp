#include "harness/process_repeats.h"

#include <cmath>
#include <set>
#include <vector>

#include "harness/json_optional.h"
#include "harness/stats.h"

namespace optbench {
namespace {

using json = nlohmann::json;

std::optional<double> number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The median of a recorded series (minor faults per step, one per sample).
std::optional<double> median_of(const json& series) {
  if (!series.is_array()) return std::nullopt;
  std::vector<double> xs;
  for (const auto& x : series)
    if (x.is_number()) xs.push_back(x.get<double>());
  if (xs.empty()) return std::nullopt;
  return median(xs);
}

VariantRepeat variant_repeat(const json& v) {
  VariantRepeat r{v["name"].get<std::string>(), v.value("status", std::string(to_string(VariantStatus::ok))),
                  std::nullopt, std::nullopt};
  if (const json stats = v.value("stats", json(nullptr)); stats.is_object()) r.median_s = number(stats, "median");
  r.minor_faults_per_step = median_of(v.value("samples", json::object()).value("minor_faults", json(nullptr)));
  return r;
}

const json* find_comparison(const json& c, const json& baseline, const json& variant) {
  const auto list = c.find("comparisons");
  if (list == c.end() || !list->is_array()) return nullptr;
  for (const auto& cm : *list)
    if (cm.value("baseline", json()) == baseline && cm.value("variant", json()) == variant) return &cm;
  return nullptr;
}

ComparisonRepeat named_as(const json& first) {
  ComparisonRepeat cm;
  cm.baseline = first.value("baseline", "");
  cm.variant = first.value("variant", "");
  return cm;
}

const json& comparisons_of(const json& c) {
  static const json none = json::array();
  const auto it = c.find("comparisons");
  return it != c.end() && it->is_array() ? *it : none;
}

}  // namespace

ComparisonRepeat comparison_record(const json& comparison) {
  ComparisonRepeat cm = named_as(comparison);
  cm.speedup = number(comparison, "speedup");
  if (!cm.speedup) {
    cm.reason = comparison.value("verification", json::object()).value("message", "no speedup recorded");
    return cm;
  }
  cm.ci_low = number(comparison, "ci_low");
  cm.ci_high = number(comparison, "ci_high");
  if (const auto n = comparison.find("rounds"); n != comparison.end() && n->is_number_integer())
    cm.rounds = n->get<std::int64_t>();
  if (const auto b = comparison.find("below_floor"); b != comparison.end() && b->is_boolean())
    cm.below_floor = b->get<bool>();
  return cm;
}

CaseRepeat recorded_repeat(const json& first_case, const json& repeat_case, std::size_t process) {
  CaseRepeat r;
  r.process = process;
  r.case_name = first_case.value("name", "");
  r.status = repeat_case.value("status", std::string(to_string(CaseStatus::ok)));
  r.reason = repeat_case.value("reason", "");
  r.recorded = true;
  if (const auto it = repeat_case.find("rounds"); it != repeat_case.end() && it->is_number_integer())
    r.rounds = it->get<std::int64_t>();
  if (const auto it = repeat_case.find("time_s"); it != repeat_case.end() && it->is_object()) r.time_s = *it;
  std::set<std::string> ran;
  for (const auto& v : repeat_case.value("variants", json::array()))
    if (v.contains("name") && v["name"].is_string()) {
      r.variants.push_back(variant_repeat(v));
      ran.insert(v["name"].get<std::string>());
    }
  for (const auto& first : comparisons_of(first_case)) {
    // A process that repeated some of the case's variants (the claims' only)
    // has nothing to say of the others' comparisons.
    if (!ran.empty() && (!ran.count(first.value("baseline", "")) || !ran.count(first.value("variant", "")))) continue;
    const json* found = find_comparison(repeat_case, first.value("baseline", json()), first.value("variant", json()));
    ComparisonRepeat cm = found ? comparison_record(*found) : named_as(first);
    if (!found) cm.reason = "the process recorded no such comparison";
    r.comparisons.push_back(std::move(cm));
  }
  return r;
}

CaseRepeat missing_repeat(const json& first_case, std::size_t process, ExperimentStatus status,
                          const std::string& reason) {
  CaseRepeat r;
  r.process = process;
  r.case_name = first_case.value("name", "");
  r.status = to_string(status);
  r.reason = reason;
  for (const auto& first : comparisons_of(first_case)) {
    ComparisonRepeat cm = named_as(first);
    cm.reason = reason;
    r.comparisons.push_back(std::move(cm));
  }
  return r;
}

json to_json(const CaseRepeat& r) {
  json j = {{"process", r.process}, {"case", r.case_name}, {"status", r.status}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (r.rounds) j["rounds"] = *r.rounds;
  if (r.time_s.is_object()) j["time_s"] = r.time_s;
  if (r.recorded) {
    json variants = json::object();
    for (const auto& v : r.variants)
      variants[v.name] = {{"status", v.status},
                          {"median_s", or_null(v.median_s)},
                          {"minor_faults_per_step", or_null(v.minor_faults_per_step)}};
    j["variants"] = std::move(variants);
  }
  json comparisons = json::array();
  for (const auto& cm : r.comparisons) {
    json c = {{"baseline", cm.baseline}, {"variant", cm.variant}, {"speedup", or_null(cm.speedup)}};
    if (cm.speedup) {
      if (cm.ci_low) c["ci_low"] = *cm.ci_low;
      if (cm.ci_high) c["ci_high"] = *cm.ci_high;
      if (cm.rounds) c["rounds"] = *cm.rounds;
      if (cm.below_floor) c["below_floor"] = *cm.below_floor;
    } else {
      c["reason"] = cm.reason;
    }
    comparisons.push_back(std::move(c));
  }
  j["comparisons"] = std::move(comparisons);
  return j;
}

}  // namespace optbench
