#include "harness/process_repeats.h"

#include <algorithm>
#include <vector>

#include "harness/stats.h"

namespace optbench {
namespace {

using json = nlohmann::json;

json& repeats_of(json& j) {
  if (!j.contains("repeats") || !j["repeats"].is_array()) j["repeats"] = json::array();
  return j["repeats"];
}

// The median of a recorded series (minor faults per step, one per sample); null when absent.
json median_of(const json& series) {
  if (!series.is_array()) return nullptr;
  std::vector<double> xs;
  for (const auto& x : series)
    if (x.is_number()) xs.push_back(x.get<double>());
  return xs.empty() ? json(nullptr) : json(median(xs));
}

json variant_facts(const json& v) {
  json facts = {{"status", v.value("status", "ok")}};
  const json stats = v.value("stats", json(nullptr));
  facts["median_s"] = stats.is_object() && stats.contains("median") ? stats["median"] : json(nullptr);
  facts["minor_faults_per_step"] = median_of(v.value("samples", json::object()).value("minor_faults", json(nullptr)));
  return facts;
}

const json* find_comparison(const json& c, const json& baseline, const json& variant) {
  const auto list = c.find("comparisons");
  if (list == c.end() || !list->is_array()) return nullptr;
  for (const auto& cm : *list)
    if (cm.value("baseline", json()) == baseline && cm.value("variant", json()) == variant) return &cm;
  return nullptr;
}

}  // namespace

void add_repeat(json& first_case, const json& repeat_case, std::size_t process) {
  json facts = {{"process", process}, {"status", repeat_case.value("status", "ok")}};
  if (repeat_case.contains("reason")) facts["reason"] = repeat_case["reason"];
  if (repeat_case.contains("rounds")) facts["rounds"] = repeat_case["rounds"];
  json variants = json::object();
  for (const auto& v : repeat_case.value("variants", json::array()))
    if (v.contains("name")) variants[v["name"].get<std::string>()] = variant_facts(v);
  facts["variants"] = variants;
  repeats_of(first_case).push_back(std::move(facts));

  if (!first_case.contains("comparisons")) return;
  for (auto& cm : first_case["comparisons"]) {
    json est = {{"process", process}};
    const json* r = find_comparison(repeat_case, cm.value("baseline", json()), cm.value("variant", json()));
    if (r && r->contains("speedup") && (*r)["speedup"].is_number()) {
      for (const char* key : {"speedup", "ci_low", "ci_high", "rounds", "below_floor"})
        if (r->contains(key)) est[key] = (*r)[key];
    } else {
      est["speedup"] = nullptr;
      est["reason"] = r ? r->value("verification", json::object()).value("message", "no speedup recorded")
                        : "the process recorded no such comparison";
    }
    repeats_of(cm).push_back(std::move(est));
  }
}

void add_missing_repeat(json& first_case, std::size_t process, ExperimentStatus status, const std::string& reason) {
  repeats_of(first_case).push_back({{"process", process}, {"status", to_string(status)}, {"reason", reason}});
  if (!first_case.contains("comparisons")) return;
  for (auto& cm : first_case["comparisons"])
    repeats_of(cm).push_back({{"process", process}, {"speedup", nullptr}, {"reason", reason}});
}

}  // namespace optbench
