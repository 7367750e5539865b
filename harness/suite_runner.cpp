#include "harness/suite_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "harness/case_runner.h"
#include "harness/environment.h"
#include "harness/process_clock.h"
#include "harness/progress.h"
#include "harness/registry.h"
#include "harness/results_writer.h"
#include "harness/seeding.h"
#include "harness/signals.h"

namespace optbench {
namespace {

using json = nlohmann::json;

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
  // The budget covers the whole process: loading, enumerating, environment, cases.
  std::optional<double> deadline;
  if (opts.time_budget_s) deadline = process_start_s() + *opts.time_budget_s;
  auto budget_left = [&] { return deadline ? *deadline - backend->now() : std::numeric_limits<double>::infinity(); };
  const std::string budget_reason = "budget: the run's --time-budget ran out before this started";

  const RunContext ctx{opts.device, opts.profile};
  json env = capture_environment(opts.device, opts.argv);
  json config = {{"device", to_string(opts.device)},
                 {"profile", to_string(opts.profile)},
                 {"filter", opts.filter},
                 {"time_budget_s", opts.time_budget_s ? json(*opts.time_budget_s) : json(nullptr)},
                 {"measure", to_json(opts.measure)}};
  ResultsWriter writer(opts.out_path, env, config);
  Progress progress(0, opts.progress);
  bool failures = false, stopped = false;
  std::size_t cases_seen = 0, experiments_enumerated = 0;

  for (std::size_t k = 0; k < selected.size() && !stopped; ++k) {
    const Experiment* e = selected[k];
    const ExperimentInfo info = e->info();
    const std::size_t idx = writer.begin_experiment(info_json(info));
    const double t_exp = backend->now();
    if (const auto why = e->unsupported_reason(ctx); !why.empty()) {
      writer.end_experiment(idx, "skipped", why);
      continue;
    }
    if (budget_left() <= 0) {
      writer.end_experiment(idx, "not_run", budget_reason);
      continue;
    }
    // Cases are enumerated when their experiment's turn comes, on the budget's clock.
    std::vector<Case> cases;
    try {
      cases = build_cases(*e, ctx);
    } catch (const std::exception& ex) {
      writer.end_experiment(idx, "failed", "could not build its cases: " + std::string(ex.what()), backend->now() - t_exp);
      failures = true;
      continue;
    }
    progress.add_cases(cases.size());
    cases_seen += cases.size();
    ++experiments_enumerated;
    WorkerOrigin origin{opts.worker_executable, info.name, ctx};
    bool interrupted = false;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      if (stop_requested()) break;
      const std::string label = info.name + "/" + c.name;
      if (budget_left() <= 0) {
        writer.add_case(idx, {{"name", c.name}, {"params", c.params}, {"status", "not_run"}, {"reason", budget_reason}});
        progress.case_finished(label, {{"status", "not_run"}, {"reason", "budget"}});
        continue;
      }
      CaseLimits limits{opts.measure.stopping.max_time_s, deadline, origin};
      if (deadline) {
        // What is left, shared among the cases still to run: this experiment's,
        // and the later experiments' at the average count seen so far.
        const double later = static_cast<double>(selected.size() - k - 1) * static_cast<double>(cases_seen) /
                             static_cast<double>(experiments_enumerated);
        const double share = budget_left() / (static_cast<double>(cases.size() - i) + later);
        limits.max_time_s = std::clamp(share, 0.01, opts.measure.stopping.max_time_s);
      }
      progress.case_started(label);
      json result;
      try {
        result = run_case(c, *backend, opts.measure, limits, stop_requested());
      } catch (const std::exception& ex) {
        result = {{"name", c.name}, {"params", c.params}, {"status", "failed"}, {"reason", ex.what()}};
        backend->release_cached_memory();
      }
      failures = failures || result["status"] == "failed" || verification_failed(result);
      interrupted = result["status"] == "interrupted";
      progress.case_finished(label, result);
      writer.add_case(idx, std::move(result));
      if (interrupted) break;
    }
    stopped = interrupted || stop_requested();
    writer.end_experiment(idx, stopped ? "interrupted" : "ok", "", backend->now() - t_exp);
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
