#include "harness/suite_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>

#include "harness/budget_plan.h"
#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "harness/claimed_comparisons.h"
#include "harness/environment.h"
#include "harness/experiment_guard.h"
#include "harness/name_hint.h"
#include "harness/part_files.h"
#include "harness/process_clock.h"
#include "harness/process_repeats.h"
#include "harness/profiling/kineto_window.h"
#include "harness/profiling/profiler_role.h"
#include "harness/progress.h"
#include "harness/registry.h"
#include "harness/results_writer.h"
#include "harness/run_plan.h"
#include "harness/seeding.h"
#include "harness/signals.h"
#include "harness/two_level.h"

namespace optbench {
namespace {

using json = nlohmann::json;

json info_json(const ExperimentInfo& i) {
  json devices = json::array();
  for (auto d : i.devices) devices.push_back(to_string(d));
  return {{"name", i.name},
          {"title", i.title},
          {"optimization", i.optimization},
          {"claims", i.claims},
          {"description", i.description},
          {"devices", devices},
          {"mechanism_counters", i.mechanism_counters}};
}

bool verification_failed(const json& case_result) {
  for (const auto& c : case_result.value("comparisons", json::array()))
    if (c.contains("verification") && c["verification"].value("status", "") == "failed") return true;
  return false;
}

// A variant that errored or ran out of memory: its comparisons are unverified,
// so the run cannot say "everything ran and verified" (exit 0). Not run (the
// budget) is not an error, nor an out-of-memory its case declares
// (Case::oom_expected: where the sweep ends).
bool variant_failed(const json& case_result) {
  const bool oom_expected = case_result.value("oom_expected", false);
  for (const auto& v : case_result.value("variants", json::array()))
    if (const std::string s = v.value("status", to_string(VariantStatus::ok));
        s == to_string(VariantStatus::error) || (s == to_string(VariantStatus::oom) && !oom_expected))
      return true;
  return false;
}

bool case_failed(const json& c) {
  return c.value("status", "") == "failed" || verification_failed(c) || variant_failed(c);
}

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// What the child `optbench _experiment` for one experiment runs from: the
// run's settings as data (harness/run_settings.h), narrowed to the experiment
// and the budget left, and what the suite knows for sharing that budget with
// its later experiments.
ExperimentChildSettings child_settings(const SuiteOptions& o, const std::string& name, const std::string& part,
                                       std::optional<double> budget_left, std::size_t later, std::size_t prior_cases,
                                       std::size_t prior_experiments, std::size_t process_index) {
  ExperimentChildSettings s{o,           part,           later,         prior_cases,  prior_experiments, process_index,
                            o.profiling, o.timed_step_s, o.case_wall_s, o.repeat_only};
  s.run.filter = "^" + name + "$";
  s.run.time_budget_s = budget_left ? std::optional<double>(child_budget_s(*budget_left)) : std::nullopt;
  return s;
}

// The settings go as one argument: at most a few kB (paths and a name), far
// below the kernel's 128 kB per argument.
std::vector<std::string> child_argv(const SuiteOptions& o, const ExperimentChildSettings& s) {
  return {o.worker_executable, "_experiment", "--settings", json(s).dump()};
}

// The keys where what the child recorded running with differs from what it was
// sent ("" when none): a child must run from exactly what it is given.
std::string settings_drift(const ExperimentChildSettings& sent, const json& recorded) {
  std::string keys;
  for (const auto& op : json::diff(json(sent.run), recorded))
    keys += (keys.empty() ? "" : ", ") + op.value("path", std::string("/"));
  return keys;
}

// What a guarded experiment's child left, as the experiment's status and reason.
std::pair<ExperimentStatus, std::string> child_verdict(const ChildOutcome& r, double hang_timeout_s,
                                                       std::string* signal_text) {
  if (r.hung)
    return {ExperimentStatus::hung, "its process made no progress (no finished case, no output) for " +
                                        num(hang_timeout_s) +
                                        " s (--hang-timeout) and was killed; the cases it finished are kept"};
  if (r.stop_overdue)
    return {ExperimentStatus::interrupted, "its process did not stop within seconds of the interrupt and was killed"};
  if (r.signal) {
    *signal_text = describe_signal(r.signal);
    return {ExperimentStatus::crashed,
            "its process was killed by " + *signal_text + "; the cases it finished are kept"};
  }
  const std::string recorded = r.experiment.is_null() ? "" : r.experiment.value("status", "");
  const std::optional<ExperimentStatus> status = parse_experiment_status(recorded);
  if (r.exit_code == kExitInterrupted) return {ExperimentStatus::interrupted, ""};
  if (status && *status != ExperimentStatus::running && (r.exit_code == kExitOk || r.exit_code == kExitFailures))
    return {*status, r.experiment.value("reason", "")};
  return {ExperimentStatus::crashed,
          "its process exited with status " + std::to_string(r.exit_code) +
              (recorded.empty() ? " before recording the experiment" : " before finishing it")};
}

// One experiment in a child process (harness/experiment_guard.h): `on_case`
// gets each case as the child finishes it; a child that dies leaves the
// experiment "crashed" with its signal and last lines.
struct GuardedResult {
  ExperimentStatus status = ExperimentStatus::running;
  std::string reason;
  std::size_t cases = 0;
  bool failures = false;
};

GuardedResult run_guarded_experiment(const SuiteOptions& opts, const std::string& name, ResultsWriter& writer,
                                     std::size_t idx, std::size_t process_index, std::optional<double> budget_left,
                                     std::size_t later, std::size_t cases_seen, std::size_t experiments_seen,
                                     const std::function<void(const json&)>& on_case) {
  GuardedResult g;
  const std::string part = part_path(writer.path(), name);
  // However the child ends (or this side fails), its files go with it.
  struct PartCleanup {
    const std::string& part;
    ~PartCleanup() {
      remove_part(part);
      set_abrupt_cleanup(AbruptSlot::child_part, "");
      set_abrupt_cleanup(AbruptSlot::child_temp, "");
    }
  } cleanup{part};
  const ExperimentChildSettings sent =
      child_settings(opts, name, part, budget_left, later, cases_seen, experiments_seen, process_index);
  const auto argv = child_argv(opts, sent);
  GuardLimits limits;
  limits.hang_timeout_s = opts.hang_timeout_s.value_or(default_hang_timeout_s(opts.measure.stopping.max_time_s));
  const ChildOutcome r = run_guarded_child(
      argv, part,
      [&](const json& c) {
        ++g.cases;
        g.failures = g.failures || case_failed(c);
        on_case(c);
      },
      stop_requested(), limits);
  if (r.exit_code == kExitWriteFailed) {
    // Its part file sits beside the results file: the folder is full or
    // unwritable for this run too.
    std::string why = r.output_tail.empty() ? "" : r.output_tail.back();
    if (const auto at = why.find("could not be written: "); at != std::string::npos) why.erase(0, at + 22);
    if (const auto keeps = why.find("; '"); keeps != std::string::npos) why.resize(keeps);
    throw WriteError("the process of experiment " + name + " could not write its part file" +
                     (why.empty() ? "" : ": " + why));
  }
  std::string signal_text;
  std::tie(g.status, g.reason) = child_verdict(r, limits.hang_timeout_s, &signal_text);
  if (!r.config.is_null() && (g.status == ExperimentStatus::ok || g.status == ExperimentStatus::failed))
    if (const std::string drift = settings_drift(sent, r.config); !drift.empty())
      std::tie(g.status, g.reason) = std::pair<ExperimentStatus, std::string>(
          ExperimentStatus::failed, "its process ran with settings other than the run's (" + drift + ")");
  if (g.status == ExperimentStatus::crashed || g.status == ExperimentStatus::hung) {
    // A further process's crash is told in its cases' repeats; the record's
    // output tail stays the first process's.
    if (process_index == 0 && !opts.profiling) {
      json fields = {{"output_tail", r.output_tail}};
      if (!signal_text.empty()) fields["signal"] = signal_text;
      writer.add_fields(idx, std::move(fields));
    }
    const std::string which = opts.profiling  ? " (its profiling process)"
                              : process_index ? " (process " + std::to_string(process_index + 1) + ")"
                                              : "";
    std::fprintf(stderr, "optbench: %s%s %s (%s); going on with the next %s\n", name.c_str(), which.c_str(),
                 to_string(g.status), g.reason.c_str(), process_index || opts.profiling ? "process" : "experiment");
  }
  g.failures = g.failures || is_failure(g.status);
  return g;
}

// The experiments' further processes (MeasureConfig::processes), in passes over
// the experiments after every first process has run: process 2 of each, then 3
// of each, and so on, so that under a --time-budget every experiment gets its
// processes before any gets many. Each runs its timed rounds again, and what it
// records is written beside the first process's cases as records of their own
// (harness/process_repeats.h); a case a process did not record says why. After min_processes, an experiment
// gets another only while one of its comparisons' between-process interval is
// wider than the target (harness/two_level.h).
struct RepeatsResult {
  bool failures = false, stopped = false;
  std::size_t ran = 1;  // processes that measured, the first included
  std::string why_stopped;
};

// An experiment whose first process recorded cases, and its further ones so far.
struct Pending {
  std::size_t idx = 0;
  std::string name;
  ExperimentStatus first_status = ExperimentStatus::running;
  std::size_t later = 0, cases_seen = 0, experiments_seen = 0;  // as its first process was told
  double wall_s = 0;
  double first_s = 0;        // its first process's time
  double profiling_s = 0;    // its profiling process's
  double further_s = 0;      // its further processes' time so far
  double further_max_s = 0;  // its slowest further process so far
  bool done = false;
  // The cases and variants a claim's verdict reads (claimed_known: the report said).
  std::map<std::string, std::vector<std::string>> claimed;
  bool claimed_known = false;
  // The cases and variants its further processes repeat (empty: all).
  std::map<std::string, std::vector<std::string>> repeat_only;
  RepeatsResult r;
  std::vector<CaseRepeat> repeats;  // what its further processes recorded, as written
};

// Whether the experiment's further processes repeat this case of its first.
bool repeats_case(const Pending& x, const json& first_case) {
  return x.repeat_only.empty() || x.repeat_only.count(first_case.value("name", ""));
}

// Records of a further process's cases, written with one write of the file and kept.
void add_repeats(ResultsWriter& writer, Pending& x, std::vector<CaseRepeat> records) {
  std::vector<json> written;
  for (const auto& r : records) written.push_back(to_json(r));
  writer.add_repeats(x.idx, std::move(written));
  for (auto& r : records) x.repeats.push_back(std::move(r));
}

// Every between-process interval of the experiment within its target: the rule
// that stops adding processes (method.md, "Several processes per experiment").
bool within_target(const std::vector<ComparisonAcross>& so_far, const MeasureConfig& m) {
  return widest_process_interval(so_far) <= m.process_target_rel_ci;
}

// Process p of one experiment, or why it has no more (x.done). `allowance_s`:
// what is left of the further processes' share of the run (process_time_share).
void next_process(const SuiteOptions& opts, ResultsWriter& writer, const DeviceBackend& clock, const BudgetGate& gate,
                  double& shortest_child_s, Pending& x, std::size_t p, double& allowance_s) {
  const auto at_least = static_cast<std::size_t>(std::clamp(opts.measure.min_processes, 1, opts.measure.processes));
  // A copy: the records below are written while it is read.
  const json first_cases = writer.document()["experiments"].at(x.idx)["cases"];
  const auto so_far = comparisons_across(first_cases, x.repeats, opts.measure.stopping.confidence);
  if (!has_ratios(so_far)) {
    x.done = true;
    x.r.why_stopped = "no comparison with a ratio in its first process";
    return;
  }
  if (p >= at_least && within_target(so_far, opts.measure)) {
    x.done = true;
    x.r.why_stopped = "precision";
    return;
  }
  // What this process is expected to take (the run plan's figure, harness/run_plan.h).
  const double next_s =
      expected_further_s(first_cases, opts.measure, opts.device, x.repeat_only, x.r.ran, x.further_max_s);
  std::optional<ExperimentStatus> status;
  std::string reason;
  if (x.first_status == ExperimentStatus::crashed || x.first_status == ExperimentStatus::hung) {
    // It would most likely end the same way, at the cost of another process.
    status = ExperimentStatus::not_run;
    reason =
        std::string("the experiment's first process ") + to_string(x.first_status) + ", so no further one was started";
  } else if (stop_requested()) {
    status = ExperimentStatus::interrupted;
    reason = "the run was interrupted before this process";
  } else if (const auto why = gate.refuse_child(std::max(shortest_child_s, next_s)); !why.empty()) {
    // Not before the budget's end: this experiment's own processes say how long
    // its next one takes, more than the shortest of any.
    status = ExperimentStatus::not_run;
    reason = why;
  } else if (auto share = refuse_by_share(next_s, allowance_s); !share.empty()) {
    status = ExperimentStatus::not_run;
    reason = std::move(share);
  }
  if (status) {
    // Nothing more will be measured: said once, not once per process left.
    x.done = true;
    x.r.why_stopped = *status == ExperimentStatus::interrupted ? "interrupted" : reason;
    std::vector<CaseRepeat> missing;
    for (const auto& first : first_cases)
      if (first.contains("comparisons") && repeats_case(x, first))
        missing.push_back(missing_repeat(first, p, *status, reason));
    add_repeats(writer, x, std::move(missing));
    return;
  }
  std::set<std::string> recorded;
  const double t0 = clock.now();
  SuiteOptions further = opts;
  further.repeat_only = x.repeat_only;
  const GuardedResult g = run_guarded_experiment(further, x.name, writer, x.idx, p,
                                                 gate.active() ? std::optional<double>(gate.left_s()) : std::nullopt,
                                                 x.later, x.cases_seen, x.experiments_seen, [&](const json& c) {
                                                   const std::string case_name = c.value("name", "");
                                                   std::vector<CaseRepeat> got;
                                                   for (const auto& first : first_cases)
                                                     if (first.value("name", "") == case_name)
                                                       got.push_back(recorded_repeat(first, c, p));
                                                   add_repeats(writer, x, std::move(got));
                                                   recorded.insert(case_name);
                                                 });
  const double took = clock.now() - t0;
  x.wall_s += took;
  x.further_s += took;
  x.further_max_s = std::max(x.further_max_s, took);
  allowance_s -= took;
  shortest_child_s = shortest_child_s > 0 ? std::min(shortest_child_s, took) : took;
  x.r.failures = x.r.failures || g.failures;
  ++x.r.ran;
  reason =
      g.reason.empty() ? std::string("the process ended (") + to_string(g.status) + ") before this case" : g.reason;
  x.r.stopped = g.status == ExperimentStatus::interrupted || stop_requested();
  std::vector<CaseRepeat> missing;
  for (const auto& first : first_cases)
    if (first.contains("comparisons") && repeats_case(x, first) && !recorded.count(first.value("name", "")))
      missing.push_back(
          missing_repeat(first, p, g.status == ExperimentStatus::ok ? ExperimentStatus::not_run : g.status, reason));
  add_repeats(writer, x, std::move(missing));
}

// The experiment's record of its processes and each comparison's one estimate,
// added once its processes are done.
json processes_fields(const json& first_cases, const MeasureConfig& m, const Pending& x) {
  json estimates = json::array();
  for (const auto& c : comparisons_across(first_cases, x.repeats, m.stopping.confidence))
    if (const auto e = estimate_of(c)) estimates.push_back(to_json(*e));
  return {{"processes",
           {{"ran", x.r.ran},
            {"min", m.min_processes},
            {"max", m.processes},
            {"target_rel_ci", m.process_target_rel_ci},
            {"stopped", x.r.why_stopped},
            {"first_s", x.first_s},
            {"profiling_s", x.profiling_s},
            {"further_s", x.further_s}}},
          {"estimates", std::move(estimates)}};
}

}  // namespace

SuiteOptions suite_options_for_child(const ExperimentChildSettings& s) {
  SuiteOptions o;
  static_cast<RunSettings&>(o) = s.run;
  o.out_path = s.out_path;
  o.guarded_child = true;
  o.later_experiments = s.later_experiments;
  o.prior_cases = s.prior_cases;
  o.prior_experiments = s.prior_experiments;
  o.process_index = s.process_index;
  o.profiling = s.profiling;
  o.timed_step_s = s.timed_step_s;
  o.case_wall_s = s.case_wall_s;
  o.repeat_only = s.repeat_only;
  return o;
}

namespace {

// What the suite's loop over experiments shares: where it writes, its clocks and
// budget, and what it has seen so far.
struct SuiteRun {
  const SuiteOptions& opts;
  DeviceBackend& backend;
  const BudgetGate& gate;
  std::optional<double> deadline;
  ResultsWriter& writer;
  Progress& progress;
  RunContext ctx;
  MeasureConfig measure;     // the run's, as recorded (one process without the guard)
  std::size_t processes;     // each experiment is measured in, at most
  std::size_t selected = 0;  // experiments in the run
  bool failures = false, stopped = false;
  double setup_seen_s = 0;  // CaseLimits::setup_seen_s
  std::size_t cases_seen = 0, experiments_enumerated = 0;
  // The shortest a guarded experiment's process has taken, start-up (loading
  // LibTorch) included: under a budget, no child is started with less left
  // than that, since it would overrun the budget before it could check it.
  double shortest_child_s = 0;
  std::vector<Pending> pending = {};  // experiments whose further processes are still to come

  double budget_left() const { return gate.left_s(); }
};

// Whether `only` (ExperimentChildSettings::repeat_only's form; empty: all) holds
// variant i of the case recorded as `c`.
bool holds(const CaseVariants& only, const json& c, std::size_t i) {
  if (only.empty()) return true;
  const auto it = only.find(c.value("name", ""));
  return it != only.end() && among(it->second, i, c["variants"][i].value("name", ""));
}

// Each variant of the first process's record without a window gets why, but
// those `spared` holds (when it names any).
void say_not_profiled(ResultsWriter& writer, std::size_t idx, const std::string& why, const CaseVariants& spared = {}) {
  const json cases = writer.document()["experiments"].at(idx)["cases"];
  for (const auto& c : cases) {
    json missing = json::object();
    const json variants = c.value("variants", json::array());
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const json& v = variants[i];
      if (!spared.empty() && holds(spared, c, i)) continue;
      if (!v.contains("breakdown") && v.value("status", "ok") == to_string(VariantStatus::ok) && v.contains("name"))
        missing[v["name"].get<std::string>()] = to_json(BreakdownRecord::skipped(why));
    }
    if (!missing.empty()) writer.add_breakdowns(idx, c.value("name", ""), missing);
  }
}

// The experiment's profiling process (ExperimentChildSettings::profiling), after
// its timing processes: each variant built and warmed up, then its window, sized and
// compared against the first process's median step; the windows are added to
// the first process's variants, each marked with the process it came from, and
// it times nothing for the record. --breakdown auto profiles the cases and
// variants a claim's verdict reads (where the report could say), on every case.
// Returns the seconds it took.
double profiling_process(SuiteRun& s, const Pending& x) {
  const auto mode = s.opts.measure.breakdown.mode;
  if (mode == profiling::BreakdownMode::off || s.stopped) return 0.0;
  const std::size_t idx = x.idx;
  const double t0 = s.backend.now();
  if (x.first_status == ExperimentStatus::crashed || x.first_status == ExperimentStatus::hung) {
    say_not_profiled(s.writer, idx,
                     std::string("not profiled: the experiment's first process ") + to_string(x.first_status));
    return 0.0;
  }
  SuiteOptions prof = s.opts;
  prof.profiling = true;
  if (mode == profiling::BreakdownMode::auto_ && x.claimed_known) {
    if (x.claimed.empty()) {
      say_not_profiled(s.writer, idx,
                       "not profiled: no claim's verdict reads its comparisons (--breakdown on profiles every case)");
      return 0.0;
    }
    say_not_profiled(s.writer, idx, "not profiled: no claim's verdict reads it (--breakdown on profiles every case)",
                     x.claimed);
    prof.repeat_only = x.claimed;
  }
  if (const auto why = s.gate.refuse_child(s.shortest_child_s); !why.empty()) {
    say_not_profiled(s.writer, idx, "not profiled: " + why);
    return 0.0;
  }
  // Its windows' reference is what the first process timed, so it times nothing itself.
  for (const auto& c : s.writer.document()["experiments"].at(idx)["cases"]) {
    const std::string name = c.value("name", "");
    if (c.value("status", "") != to_string(CaseStatus::ok)) continue;
    if (const auto w = c.find("wall_s"); w != c.end() && w->is_number()) prof.case_wall_s[name] = w->get<double>();
    for (const auto& v : c.value("variants", json::array())) {
      const json stats = v.value("stats", json(nullptr));
      if (v.value("status", "ok") == to_string(VariantStatus::ok) && stats.is_object() && stats.contains("median") &&
          stats["median"].is_number())
        prof.timed_step_s[name][v.value("name", "")] = stats["median"].get<double>();
    }
  }
  const GuardedResult g = run_guarded_experiment(prof, x.name, s.writer, idx, 0,
                                                 s.deadline ? std::optional<double>(s.budget_left()) : std::nullopt,
                                                 x.later, x.cases_seen, x.experiments_seen, [&](const json& c) {
                                                   json windows = json::object();
                                                   for (const auto& v : c.value("variants", json::array()))
                                                     if (v.contains("breakdown") && v.contains("name")) {
                                                       json b = v["breakdown"];
                                                       b["process"] = "profiling";
                                                       windows[v["name"].get<std::string>()] = std::move(b);
                                                     }
                                                   if (!windows.empty())
                                                     s.writer.add_breakdowns(idx, c.value("name", ""), windows);
                                                 });
  // A window the profiling process could not take costs the timings nothing:
  // its failure is the breakdown's, not the experiment's.
  s.stopped = g.status == ExperimentStatus::interrupted || stop_requested();
  say_not_profiled(s.writer, idx,
                   "not profiled: the profiling process " +
                       (g.status == ExperimentStatus::ok
                            ? std::string("recorded no window for it")
                            : std::string(to_string(g.status)) + (g.reason.empty() ? "" : " (" + g.reason + ")")));
  return s.backend.now() - t0;
}

// Experiment k's first process, in a child (crash isolation): its cases, then its
// record, and its further processes queued for the passes after every first one.
void first_process_guarded(SuiteRun& s, const Experiment& e, const ExperimentInfo& info, std::size_t idx, std::size_t k,
                           double t_exp) {
  // The device check here (cheap); the experiment's own checks in its child.
  if (const auto why = e.Experiment::unsupported_reason(s.ctx); !why.empty()) {
    s.writer.end_experiment(idx, ExperimentStatus::skipped, why);
    return;
  }
  if (const auto why = s.gate.refuse_child(s.shortest_child_s); !why.empty()) {
    s.writer.end_experiment(idx, ExperimentStatus::not_run, why);
    return;
  }
  const std::size_t later = s.selected - k - 1;
  // The first process times without the profiler; its windows come from its
  // profiling process, after its timing processes (profiler_role.h).
  SuiteOptions timed = s.opts;
  timed.measure.breakdown.mode = profiling::BreakdownMode::off;
  const GuardedResult g = run_guarded_experiment(
      timed, info.name, s.writer, idx, 0, s.deadline ? std::optional<double>(s.budget_left()) : std::nullopt, later,
      s.cases_seen, s.experiments_enumerated, [&](const json& c) { s.writer.add_case(idx, c); });
  s.failures = s.failures || g.failures;
  const double took = s.backend.now() - t_exp;
  s.shortest_child_s = s.shortest_child_s > 0 ? std::min(s.shortest_child_s, took) : took;
  s.stopped = g.status == ExperimentStatus::interrupted || stop_requested();
  if (g.cases > 0) {
    Pending x;
    x.idx = idx;
    x.name = info.name;
    x.first_status = g.status;
    x.later = later;
    x.cases_seen = s.cases_seen;
    x.experiments_seen = s.experiments_enumerated;
    x.wall_s = x.first_s = took;
    x.r.why_stopped = s.processes > 1 ? "max_processes" : "one process";
    s.pending.push_back(std::move(x));
    s.cases_seen += g.cases;
    ++s.experiments_enumerated;
  }
  // An experiment with further processes gets its wall time with their record.
  s.writer.end_experiment(idx, g.status, g.reason, g.cases > 0 ? -1.0 : s.backend.now() - t_exp);
}

// The cases and variants a further or profiling process runs (ExperimentChildSettings::
// repeat_only; empty: all), in their order, the baseline first.
std::vector<Case> only_repeated(std::vector<Case> cases, const CaseVariants& only) {
  if (only.empty()) return cases;
  std::vector<Case> out;
  for (auto& c : cases) {
    const auto it = only.find(c.name);
    if (it == only.end() || c.variants.empty()) continue;
    std::vector<Variant> kept;
    for (std::size_t i = 0; i < c.variants.size(); ++i)
      if (among(it->second, i, c.variants[i].name)) kept.push_back(std::move(c.variants[i]));
    // What a check or a derived figure reads by position is the first process's.
    c.verify = nullptr;
    c.derive = nullptr;
    c.variants = std::move(kept);
    out.push_back(std::move(c));
  }
  return out;
}

// One case in this process, within its share of the budget; its result as written.
json measure_case(SuiteRun& s, const Case& c, const MeasureConfig& measure, const CaseLimits& base_limits,
                  std::size_t i, std::size_t n_cases, std::size_t k) {
  const SuiteOptions& opts = s.opts;
  CaseLimits limits = base_limits;
  if (s.deadline) {
    // A first process leaves the further processes their share of what is
    // left (process_time_share; they run in passes after every first one).
    const double further_share =
        opts.process_index == 0 && s.processes > 1 ? opts.measure.process_time_share.value_or(1.0) : 0.0;
    BudgetState b{s.budget_left() / (1.0 + further_share), n_cases - i, s.selected - k - 1 + opts.later_experiments,
                  s.cases_seen + opts.prior_cases, s.experiments_enumerated + opts.prior_experiments};
    b.cases_here = n_cases;
    limits.max_time_s = case_share_s(b, measure.stopping.max_time_s);
  }
  try {
    const CaseResult r = run_case(c, s.backend, measure, limits, stop_requested());
    const auto prepared =
        static_cast<std::size_t>(std::count_if(r.variants.begin(), r.variants.end(), [](const VariantResult& v) {
          return v.status != VariantStatus::not_run;
        }));
    s.setup_seen_s = std::max(s.setup_seen_s, measured_setup_s(c.setup_s, r.time_s.build, prepared));
    return to_json(r);
  } catch (const std::exception& ex) {
    s.backend.release_cached_memory();
    return {{"name", c.name}, {"params", c.params}, {"status", to_string(CaseStatus::failed)}, {"reason", ex.what()}};
  }
}

// Experiment k in this process (--in-process, a launcher's rank, or the guard's
// child): its cases one by one, each written as it finishes.
void in_this_process(SuiteRun& s, const Experiment& e, const ExperimentInfo& info, std::size_t idx, std::size_t k,
                     double t_exp) {
  const SuiteOptions& opts = s.opts;
  if (const auto why = e.unsupported_reason(s.ctx); !why.empty()) {
    s.writer.end_experiment(idx, ExperimentStatus::skipped, why);
    return;
  }
  // Cases are enumerated when their experiment's turn comes, on the budget's clock.
  std::vector<Case> cases;
  try {
    // Before any case can capture a CUDA graph.
    if (opts.profiling) profiling::set_up_cupti_before_capture(s.backend);
    RunContext here = s.ctx;
    if (s.deadline) here.budget_left_s = s.budget_left();
    cases = only_repeated(build_cases(e, here), opts.repeat_only);
  } catch (const std::exception& ex) {
    s.writer.end_experiment(idx, ExperimentStatus::failed, "could not build its cases: " + std::string(ex.what()),
                            s.backend.now() - t_exp);
    s.failures = true;
    return;
  }
  s.progress.add_cases(cases.size());
  s.cases_seen += cases.size();
  ++s.experiments_enumerated;
  WorkerOrigin origin{opts.worker_executable, info.name, s.ctx};
  // A further process of the experiment: warm-up and a few rounds (RepeatConfig);
  // its profiling process warms up as briefly and takes no rounds (its windows'
  // reference is the first process's median step).
  MeasureConfig measure = opts.measure;
  if (opts.process_index > 0 || opts.profiling) {
    measure.stopping = opts.measure.repeat.stopping;
    measure.warmup_min_s = opts.measure.repeat.warmup_min_s;
    measure.warmup_max_s = opts.measure.repeat.warmup_max_s;
  }
  bool interrupted = false;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (stop_requested()) break;
    const std::string label = info.name + "/" + c.name +
                              (opts.profiling       ? std::string(" (profiling)")
                               : opts.process_index ? " (process " + std::to_string(opts.process_index + 1) + " of " +
                                                          std::to_string(s.processes) + ")"
                                                    : "");
    if (const auto why = s.gate.refuse_start(); !why.empty()) {
      const char* not_run = to_string(CaseStatus::not_run);
      s.writer.add_case(idx, {{"name", c.name}, {"params", c.params}, {"status", not_run}, {"reason", why}});
      s.progress.case_finished(label, {{"status", not_run}, {"reason", "budget"}});
      continue;
    }
    s.progress.case_started(label);
    CaseLimits limits{measure.stopping.max_time_s, s.deadline, origin, opts.process_index > 0};
    limits.profiling = opts.profiling;
    if (const auto it = opts.timed_step_s.find(c.name); it != opts.timed_step_s.end()) limits.timed_step_s = it->second;
    if (const auto it = opts.case_wall_s.find(c.name); it != opts.case_wall_s.end()) limits.first_case_s = it->second;
    limits.setup_seen_s = s.setup_seen_s;
    json result = measure_case(s, c, measure, limits, i, cases.size(), k);
    s.failures = s.failures || case_failed(result);
    interrupted = result["status"] == to_string(CaseStatus::interrupted);
    s.progress.case_finished(label, result);
    s.writer.add_case(idx, std::move(result));
    if (interrupted) break;
  }
  s.stopped = interrupted || stop_requested();
  if (!opts.guarded_child) {
    Pending x;
    x.idx = idx;
    x.first_s = s.backend.now() - t_exp;
    x.r.why_stopped = "one process";
    s.writer.add_fields(idx, processes_fields(s.writer.document()["experiments"].at(idx)["cases"], s.measure, x));
  }
  s.writer.end_experiment(idx, s.stopped ? ExperimentStatus::interrupted : ExperimentStatus::ok, "",
                          s.backend.now() - t_exp);
}

// After its last process: whether the experiment's intervals met the target.
bool precise_enough(const SuiteRun& s, const Pending& x) {
  const json& first_cases = s.writer.document()["experiments"].at(x.idx)["cases"];
  const auto so_far = comparisons_across(first_cases, x.repeats, s.opts.measure.stopping.confidence);
  return has_ratios(so_far) && within_target(so_far, s.opts.measure);
}

// The comparisons a claim's verdict reads (claimed_comparisons.h), recorded as
// each experiment's `claimed`: what its further processes repeat (`repeats`; an
// experiment with none is measured in its first process only) and what
// --breakdown auto profiles. Where the report cannot say, every comparison is
// repeated and profiled, and the file says why.
void choose_claimed(SuiteRun& s, bool repeats) {
  const ClaimedAnswer a = ask_claimed(s.writer.path());
  std::vector<std::pair<std::size_t, json>> fields;
  for (auto& x : s.pending) {
    if (!a.claimed) {
      fields.emplace_back(x.idx, json{{"claimed_unknown", a.why_not}});
      continue;
    }
    x.claimed_known = true;
    if (const auto it = a.claimed->find(x.name); it != a.claimed->end()) x.claimed = it->second;
    fields.emplace_back(x.idx, json{{"claimed", x.claimed}});
    if (!repeats) continue;
    x.repeat_only = x.claimed;
    if (x.repeat_only.empty()) {
      x.done = true;
      x.r.why_stopped = "one process: no claim's verdict reads its comparisons";
    }
  }
  if (!a.claimed) std::fprintf(stderr, "optbench: every comparison repeated and profiled: %s\n", a.why_not.c_str());
  s.writer.add_fields(fields);
}

// After the first pass: which comparisons claims read (choose_claimed), the
// further processes, in passes (the second of each experiment, then the
// third...), within their share of the run (what the first pass took, times
// process_time_share), then the profiling pass (each experiment's profiling
// process).
void further_processes(SuiteRun& s, double first_pass_s) {
  const bool repeats = s.processes > 1 && !s.measure.repeat_all;
  // Asking the report starts a Python: not where the budget leaves no room for a
  // process to use the answer (every later one would be refused), lest the
  // question alone overrun --time-budget.
  if (!s.stopped && !s.pending.empty() && (repeats || s.measure.breakdown.mode == profiling::BreakdownMode::auto_) &&
      s.gate.refuse_child(s.shortest_child_s).empty())
    choose_claimed(s, repeats);
  double allowance_s = s.measure.process_time_share ? *s.measure.process_time_share * first_pass_s
                                                    : std::numeric_limits<double>::infinity();
  for (std::size_t p = 1; p < s.processes && !s.stopped; ++p)
    for (auto& x : s.pending) {
      if (x.done || s.stopped) continue;
      next_process(s.opts, s.writer, s.backend, s.gate, s.shortest_child_s, x, p, allowance_s);
      s.failures = s.failures || x.r.failures;
      s.stopped = x.r.stopped || stop_requested();
    }
  // After every timing process: a profiler never runs between two of an experiment's timed ones.
  for (auto& x : s.pending) {
    if (s.stopped) break;
    x.profiling_s = profiling_process(s, x);
    x.wall_s += x.profiling_s;
  }
  std::vector<std::pair<std::size_t, json>> fields;
  for (auto& x : s.pending) {
    if (!x.done && s.stopped) x.r.why_stopped = "interrupted";
    // Where the count adapts (min below max), the last process allowed may be the
    // one that brought every interval within the target: then precision stopped it
    // as much as the maximum did, and says so. A fixed count stops at its maximum.
    const bool adaptive = s.opts.measure.min_processes < s.opts.measure.processes;
    if (!x.done && !s.stopped && adaptive && s.processes > 1 && precise_enough(s, x)) x.r.why_stopped = "precision";
    json f = processes_fields(s.writer.document()["experiments"].at(x.idx)["cases"], s.measure, x);
    f["wall_s"] = x.wall_s;
    fields.emplace_back(x.idx, std::move(f));
  }
  s.writer.add_fields(fields);
}

}  // namespace

int run_suite(const SuiteOptions& opts) {
  validate(opts.measure.stopping);
  validate(opts.measure.repeat.stopping);
  const auto selected = Registry::instance().match(opts.filter);
  if (selected.empty())
    throw std::invalid_argument("no experiment matches --filter '" + opts.filter + "' (" +
                                unknown_name_hint(opts.filter, Registry::instance().names()) + ")");
  // A launcher's ranks share one process group: they stay in their processes.
  const bool guard = opts.guard_experiments && !std::getenv("WORLD_SIZE");
  // A process that times (and its workers) never starts the profiler; the
  // guard's parent times nothing and its profiling processes publish no times.
  if (!opts.profiling && (opts.guarded_child || !guard)) profiling::mark_timed_process();
  // With the guard, every case runs in a child: this process needs the clock, not
  // a device context (device.h, make_clock_backend).
  auto backend = guard ? make_clock_backend(opts.device) : make_backend(opts.device);
  // The budget covers the whole process: loading, enumerating, environment, cases.
  std::optional<double> deadline;
  if (opts.time_budget_s) deadline = process_start_s() + *opts.time_budget_s;
  const BudgetGate gate(deadline, *backend);

  // Processes each experiment is measured in: further ones are the guard's
  // children, so without it one (and the file says so).
  RunSettings settings = opts;
  if (!guard && !opts.guarded_child) settings.measure.processes = 1;
  json env = opts.guarded_child ? json{{"guarded_child", true}} : capture_environment(opts.device, opts.argv);
  const json config = settings;
  std::unique_ptr<ResultsWriter> writer_holder;
  try {
    writer_holder = std::make_unique<ResultsWriter>(opts.out_path, env, config);
  } catch (const WriteError& e) {
    // Nothing has run: a bad --out is a usage error (a guarded child's part
    // file is the run's folder failing mid-run).
    if (opts.guarded_child) throw;
    throw std::invalid_argument(e.what());
  }
  ResultsWriter& writer = *writer_holder;
  // Holding the file now: what a run killed earlier left beside it goes.
  if (!opts.guarded_child) remove_leftover_parts(opts.out_path);
  Progress progress(0, opts.progress);
  SuiteRun s{opts,
             *backend,
             gate,
             deadline,
             writer,
             progress,
             RunContext{opts.device, opts.profile},
             settings.measure,
             static_cast<std::size_t>(std::max(settings.measure.processes, 1)),
             selected.size()};

  const double t_run = backend->now();
  for (std::size_t k = 0; k < selected.size() && !s.stopped; ++k) {
    const Experiment* e = selected[k];
    const ExperimentInfo info = e->info();
    const std::size_t idx = writer.begin_experiment(info_json(info));
    const double t_exp = backend->now();
    if (const auto why = gate.refuse_start(); !why.empty()) {
      writer.end_experiment(idx, ExperimentStatus::not_run, why);
      continue;
    }
    if (guard)
      first_process_guarded(s, *e, info, idx, k, t_exp);
    else
      in_this_process(s, *e, info, idx, k, t_exp);
  }
  further_processes(s, backend->now() - t_run);

  if (stop_requested()) {
    writer.finish(RunStatus::interrupted);
    if (!opts.guarded_child)
      std::fprintf(stderr, "optbench: interrupted; finished results kept in %s\n", writer.path().c_str());
    return kExitInterrupted;
  }
  writer.finish(RunStatus::complete);
  if (!opts.guarded_child) std::fprintf(stderr, "optbench: results written to %s\n", writer.path().c_str());
  return s.failures ? kExitFailures : kExitOk;
}

}  // namespace optbench
