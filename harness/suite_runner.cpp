#include "harness/suite_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "harness/case_runner.h"
#include "harness/environment.h"
#include "harness/nvml.h"
#include "harness/progress.h"
#include "harness/registry.h"
#include "harness/results_writer.h"
#include "harness/signals.h"

namespace optbench {
namespace {

using json = nlohmann::json;

struct Planned {
  const Experiment* experiment;
  ExperimentInfo info;
  std::string unsupported;   // non-empty: skipped with this reason
  std::string error;         // cases() threw
  std::vector<Case> cases;
};

json info_json(const ExperimentInfo& i) {
  json devices = json::array();
  for (auto d : i.devices) devices.push_back(to_string(d));
  return {{"name", i.name}, {"title", i.title}, {"optimization", i.optimization},
          {"claims", i.claims}, {"description", i.description}, {"devices", devices}};
}

bool verification_failed(const json& case_result) {
  for (const auto& c : case_result.value("comparisons", json::array()))
    if (c.contains("verification") && c["verification"].value("status", "") == "failed") return true;
  return false;
}

std::optional<double> sm_clock_max(const json& env) {
  try {
    const auto& g = env.at("cuda").at("gpus").at(0).at("nvml").at("sm_clock_max_mhz");
    if (g.is_number()) return g.get<double>();
  } catch (const json::exception&) {
  }
  return std::nullopt;
}

}  // namespace

int run_suite(const SuiteOptions& opts) {
  validate(opts.measure.stopping);
  const auto selected = Registry::instance().match(opts.filter);
  if (selected.empty()) {
    std::string names;
    for (const auto& n : Registry::instance().names()) names += "\n  " + n;
    throw std::invalid_argument("no experiment matches --filter '" + opts.filter + "'; valid names:" + names);
  }
  auto backend = make_backend(opts.device);

  RunContext ctx{opts.device, opts.profile};
  std::vector<Planned> plan;
  std::size_t total_cases = 0;
  for (const Experiment* e : selected) {
    Planned p{e, e->info(), e->unsupported_reason(ctx), "", {}};
    if (p.unsupported.empty()) {
      try {
        p.cases = e->cases(ctx);
      } catch (const std::exception& ex) {
        p.error = ex.what();
      }
    }
    total_cases += p.cases.size();
    plan.push_back(std::move(p));
  }

  json env = capture_environment(opts.device, opts.argv);
  json config = {{"device", to_string(opts.device)},
                 {"profile", to_string(opts.profile)},
                 {"filter", opts.filter},
                 {"time_budget_s", opts.time_budget_s ? json(*opts.time_budget_s) : json(nullptr)},
                 {"measure", to_json(opts.measure)}};
  ResultsWriter writer(opts.out_path, env, config);
  CaseLimits limits{opts.measure.stopping.max_time_s, sm_clock_max(env)};
  Progress progress(total_cases, opts.progress);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t cases_left = total_cases;
  bool failures = false;

  for (const auto& p : plan) {
    const std::size_t idx = writer.begin_experiment(info_json(p.info));
    if (!p.unsupported.empty()) {
      writer.end_experiment(idx, "skipped", p.unsupported);
      continue;
    }
    if (!p.error.empty()) {
      writer.end_experiment(idx, "failed", "could not build its cases: " + p.error);
      failures = true;
      continue;
    }
    bool interrupted = false;
    for (const Case& c : p.cases) {
      if (stop_requested()) break;
      // Share what is left of the budget evenly among the cases still to run.
      if (opts.time_budget_s) {
        const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        limits.max_time_s = std::clamp((*opts.time_budget_s - used) / static_cast<double>(cases_left), 0.01,
                                       opts.measure.stopping.max_time_s);
      }
      const std::string label = p.info.name + "/" + c.name;
      progress.case_started(label);
      json result;
      try {
        result = run_case(c, *backend, opts.measure, limits, stop_requested());
      } catch (const std::exception& ex) {
        result = {{"name", c.name}, {"params", c.params}, {"status", "failed"}, {"reason", ex.what()}};
        backend->release_cached_memory();
      }
      --cases_left;
      failures = failures || result["status"] == "failed" || verification_failed(result);
      interrupted = result["status"] == "interrupted";
      progress.case_finished(label, result);
      writer.add_case(idx, std::move(result));
      if (interrupted) break;
    }
    const bool stopped = interrupted || stop_requested();
    writer.end_experiment(idx, stopped ? "interrupted" : "ok");
    if (stopped) break;
  }

  if (stop_requested()) {
    writer.finish("interrupted");
    std::fprintf(stderr, "optbench: interrupted; finished results kept in %s\n", writer.path().c_str());
    return kExitInterrupted;
  }
  writer.finish("complete");
  std::fprintf(stderr, "optbench: results written to %s\n", writer.path().c_str());
  return failures ? kExitFailures : kExitOk;
}

}  // namespace optbench
