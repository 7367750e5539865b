#include "harness/cli_plan.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "harness/claimed_comparisons.h"
#include "harness/experiment.h"
#include "harness/measure_config.h"
#include "harness/registry.h"
#include "harness/run_plan.h"
#include "harness/subprocess.h"

namespace optbench {
namespace {

using json = nlohmann::json;

struct Recorded {
  std::string path, device, profile, date;
  json doc;
  std::optional<ClaimedComparisons> claimed;  // asked of the report once, where the file has no `claimed`
  bool asked = false;
};

std::string read_text(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    SpawnOptions o;
    o.argv = {"gzip", "-dc", path};
    o.search_path = true;
    o.in = Stdio::discard;
    const Captured c = run_captured(o);
    if (c.exit_code != 0) throw std::runtime_error("gzip -dc exited " + std::to_string(c.exit_code));
    return c.output;
  }
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open it");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<Recorded> load(const std::vector<std::string>& paths) {
  std::vector<Recorded> out;
  for (const auto& p : paths) {
    try {
      Recorded r;
      r.path = p;
      r.doc = json::parse(read_text(p));
      if (!r.doc.is_object() || !r.doc.contains("experiments") || !r.doc["experiments"].is_array())
        throw std::runtime_error("not an optbench results file (no experiments)");
      const json config = r.doc.value("config", json::object());
      r.device = config.value("device", "");
      r.profile = config.value("profile", "");
      r.date = r.doc.value("environment", json::object()).value("date", "");
      out.push_back(std::move(r));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "optbench plan: skipping %s: %s\n", p.c_str(), e.what());
    }
  }
  return out;
}

const json* record_of(const Recorded& r, const std::string& name) {
  for (const auto& e : r.doc["experiments"])
    if (e.value("name", "") == name && !e.value("cases", json::array()).empty()) return &e;
  return nullptr;
}

// The file to plan an experiment from: one of the device planned before
// another's, one that finished the experiment before one that did not, of the
// profile planned before another's, then the newest.
Recorded* best_for(std::vector<Recorded>& files, const std::string& name, const std::string& device,
                   const std::string& profile) {
  Recorded* best = nullptr;
  // A run that did not finish the experiment may lack some of its cases.
  auto rank = [&](const Recorded& r) {
    return std::make_tuple(r.device == device, record_of(r, name)->value("status", "") == "ok", r.profile == profile,
                           r.date);
  };
  for (auto& r : files)
    if (record_of(r, name) && (!best || rank(*best) <= rank(r))) best = &r;
  return best;
}

// A case whose variants run in a Python interpreter (a twin): its own
// interpreter's start dominates it on any device.
bool python_case(const json& c) {
  const auto vs = c.find("variants");
  if (vs == c.end() || !vs->is_array()) return false;
  for (const auto& v : *vs) {
    const auto params = v.find("params");
    if (params == v.end() || !params->is_object()) continue;
    for (const auto& value : *params)
      if (value == "python") return true;
  }
  return false;
}

// What a claim reads of the experiment `record` holds; none where the report
// could not say (the run then repeats and profiles every comparison).
std::optional<CaseVariants> claimed_in(Recorded& r, const json& record) {
  if (const auto it = record.find("claimed"); it != record.end() && it->is_object()) return it->get<CaseVariants>();
  if (!r.asked) {
    r.asked = true;
    const ClaimedAnswer a = ask_claimed(r.path);
    r.claimed = a.claimed;
    if (!a.claimed)
      std::fprintf(stderr, "optbench plan: %s: every comparison repeated: %s\n", r.path.c_str(), a.why_not.c_str());
  }
  if (!r.claimed) return std::nullopt;
  const auto it = r.claimed->find(record.value("name", ""));
  return it == r.claimed->end() ? CaseVariants{} : it->second;
}

json cost_json(const ProcessCost& p) {
  return {{"total_s", p.total_s()}, {"start_s", p.start_s},       {"build_s", p.build_s},
          {"warmup_s", p.warmup_s}, {"sampling_s", p.sampling_s}, {"verification_s", p.verification_s},
          {"cold_s", p.cold_s},     {"windows_s", p.windows_s},   {"bounded", p.bounded}};
}

}  // namespace

CLI::App* add_plan_command(CLI::App& app, PlanFlags& f) {
  CLI::App* plan = app.add_subcommand(
      "plan",
      "Print what a run is expected to take per experiment (first process, profiling process, each further "
      "process), predicted from results files an earlier run wrote, with the model the run's budget uses");
  plan->add_option("files", f.files, "Results files (.json or .json.gz) to plan from")->required();
  plan->add_option("--device", f.device, "cuda or cpu")->check(CLI::IsMember({"cuda", "cpu"}));
  plan->add_option("--profile", f.profile, "quick, standard or full")
      ->check(CLI::IsMember({"quick", "standard", "full"}));
  plan->add_option("--filter", f.filter, "Regex over experiment names");
  plan->add_flag("--json", f.json, "Print JSON instead of a table");
  return plan;
}

int cmd_plan(const PlanFlags& f) {
  std::vector<Recorded> files = load(f.files);
  if (files.empty()) {
    std::fprintf(stderr, "optbench plan: no results file could be read\n");
    return 2;
  }
  const RunContext ctx{parse_device(f.device), parse_profile(f.profile)};
  const MeasureConfig m = measure_config_for(ctx.profile);
  std::vector<ExperimentPlan> plans;
  std::vector<std::string> unplanned;
  std::map<std::string, std::string> basis;
  for (const Experiment* e : Registry::instance().match(f.filter)) {
    const ExperimentInfo info = e->info();
    if (!e->Experiment::unsupported_reason(ctx).empty()) continue;
    Recorded* best = best_for(files, info.name, f.device, f.profile);
    if (!best) {
      unplanned.push_back(info.name);
      continue;
    }
    json record = *record_of(*best, info.name);
    std::vector<std::string> notes;
    if (const std::string status = record.value("status", ""); status != "ok")
      notes.push_back("its run ended it " + status + ": cases it did not reach are not planned");
    CaseVariants twins_claimed;  // what a claim reads of the twins taken from another file
    // Python twins a file of another device (or an older run) lacks, from the file that has them.
    for (auto& other : files) {
      const json* o = &other == best ? nullptr : record_of(other, info.name);
      if (!o) continue;
      for (const auto& c : (*o)["cases"]) {
        const std::string name = c.value("name", "");
        bool have = false;
        for (const auto& mine : record["cases"]) have = have || mine.value("name", "") == name;
        if (have || !python_case(c)) continue;
        record["cases"].push_back(c);
        if (const auto theirs = claimed_in(other, *o); theirs && theirs->count(name))
          twins_claimed[name] = theirs->at(name);
        notes.push_back(name + ": from " + other.path + " (" + other.device + "), a Python twin " + best->path +
                        " lacks");
      }
    }
    for (auto& c : record["cases"])
      if (const double k = e->recorded_work_ratio(c, ctx); k != 1.0) {
        c = scaled_case(c, k);
        char buf[160];
        std::snprintf(buf, sizeof buf, "x %.3g: its rounds' work now over when recorded (resized since)", k);
        notes.push_back(c.value("name", "") + ": " + buf);
      }
    std::optional<CaseVariants> claimed = claimed_in(*best, record);
    // Where the report cannot say, the run repeats and profiles every comparison (suite_runner's choose_claimed).
    MeasureConfig planned = m;
    if (!claimed) {
      planned.repeat_all = true;
      if (planned.breakdown.mode == profiling::BreakdownMode::auto_)
        planned.breakdown.mode = profiling::BreakdownMode::on;
      notes.push_back("the report could not say which comparisons a claim reads: every one repeated and profiled");
    } else {
      claimed->insert(twins_claimed.begin(), twins_claimed.end());
    }
    ExperimentPlan x =
        plan_experiment(record, best->doc.value("config", json::object()).value("measure", json()), planned, ctx.device,
                        claimed.value_or(CaseVariants{}), [&](const std::string& c) { return e->keeps_case(c, ctx); });
    x.source = best->path + " (" + best->device + ", " + best->profile + ", " + best->date + ")";
    x.notes.insert(x.notes.begin(), notes.begin(), notes.end());
    plans.push_back(std::move(x));
  }
  const RunTotal t = run_total(plans, m);
  if (f.json) {
    json out = {{"device", f.device}, {"profile", f.profile}, {"files", f.files}, {"unplanned", unplanned}};
    for (const auto& x : plans)
      out["experiments"].push_back({{"name", x.name},
                                    {"source", x.source},
                                    {"first", cost_json(x.first)},
                                    {"profiling", cost_json(x.profiling)},
                                    {"further", cost_json(x.further)},
                                    {"processes", {{"min", x.min_processes}, {"max", x.max_processes}}},
                                    {"least_s", x.least_s()},
                                    {"once_s", x.once_s},
                                    {"notes", x.notes}});
    out["total"] = {
        {"least_s", t.least_s}, {"most_s", t.most_s}, {"first_pass_s", t.first_pass_s}, {"once_s", t.once_s}};
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  std::printf("optbench plan: %s, %s profile, from %zu file(s); seconds\n", f.device.c_str(), f.profile.c_str(),
              files.size());
  std::printf("%-20s %8s %9s %9s %9s %9s\n", "experiment", "first", "profiling", "further", "processes", "least");
  for (const auto& x : plans) {
    const bool once = x.max_processes == 1;
    std::printf("%-20s %8.1f %9.1f %9s %9s %9.1f%s\n", x.name.c_str(), x.first.total_s(), x.profiling.total_s(),
                once ? "-" : (std::to_string(static_cast<int>(x.further.total_s() + 0.5)) + " each").c_str(),
                once ? "1" : (std::to_string(x.min_processes) + "-" + std::to_string(x.max_processes)).c_str(),
                x.least_s(), x.first.bounded || x.further.bounded ? "  (bound: no time_s split)" : "");
  }
  std::printf(
      "\ntotal: at least %.0f s (each experiment's fewest processes), at most %.0f s (further processes "
      "up to their share of the %.0f s first pass, or their maximum)\n",
      t.least_s, t.most_s, t.first_pass_s);
  if (t.once_s > 0)
    std::printf("plus once per machine: %.0f s (AOTInductor's compiles; a later run finds them cached)\n", t.once_s);
  if (!unplanned.empty()) {
    std::printf("not planned (no file given records them):");
    for (const auto& n : unplanned) std::printf(" %s", n.c_str());
    std::printf("\n");
  }
  std::printf("\nwhere each experiment's figures come from:\n");
  for (const auto& x : plans) {
    std::printf("  %s: %s\n", x.name.c_str(), x.source.c_str());
    for (const auto& n : x.notes) std::printf("    %s\n", n.c_str());
  }
  return 0;
}

}  // namespace optbench
