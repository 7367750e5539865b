#include "harness/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <regex>

#include "harness/distributed/launch_command.h"
#include "harness/distributed/session.h"
#include "harness/environment.h"
#include "harness/experiment_guard.h"
#include "harness/build_info.h"
#include "harness/cost_model.h"
#include "harness/cli_numbers.h"
#include "harness/malloc_regime.h"
#include "harness/name_hint.h"
#include "harness/measure_config.h"
#include "harness/atomic_file.h"
#include "harness/isolation/worker.h"
#include "harness/registry.h"
#include "harness/run_settings.h"
#include "harness/signals.h"
#include "harness/suite_runner.h"

namespace optbench {
namespace {

using json = nlohmann::json;

// optbench-<device>-<UTC second>.json, or -2, -3... after it when a run of the same
// second has it (two at the very same instant: the second is refused by the lock).
std::string default_out_path(DeviceKind d) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  const std::string stem = std::string("optbench-") + to_string(d) + "-" + buf;
  std::string path = stem + ".json";
  for (int n = 2; std::filesystem::exists(path); ++n) path = stem + "-" + std::to_string(n) + ".json";
  return path;
}

// Exact names given on the command line become an anchored alternation filter;
// an unknown one is an error of one line, with the closest name.
std::string names_to_filter(const std::vector<std::string>& names) {
  const auto valid = Registry::instance().names();
  std::string alt;
  for (const auto& n : names) {
    if (std::find(valid.begin(), valid.end(), n) == valid.end())
      throw std::invalid_argument("unknown experiment '" + n + "' (" + unknown_name_hint(n, valid) +
                                  ")");
    alt += (alt.empty() ? "" : "|") + n;
  }
  return "^(" + alt + ")$";
}

int cmd_list(const std::string& filter, bool as_json) {
  json out = json::array();
  for (const Experiment* e : Registry::instance().match(filter)) {
    const auto i = e->info();
    json devices = json::array();
    for (auto d : i.devices) devices.push_back(to_string(d));
    out.push_back({{"name", i.name}, {"title", i.title}, {"optimization", i.optimization},
                   {"claims", i.claims}, {"devices", devices}, {"description", i.description},
                   {"quick_leaves_out", i.quick_leaves_out}, {"mechanism_counters", i.mechanism_counters}});
  }
  if (as_json) {
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  for (const auto& e : out) {
    std::string devices;
    for (const auto& d : e["devices"]) devices += (devices.empty() ? "" : ",") + d.get<std::string>();
    std::printf("%-28s %-10s %s\n", e["name"].get<std::string>().c_str(), devices.c_str(),
                e["title"].get<std::string>().c_str());
    if (const auto left = e["quick_leaves_out"].get<std::string>(); !left.empty())
      std::printf("%-39s --quick leaves out: %s\n", "", left.c_str());
  }
  return 0;
}

// `python -m report` with the source tree as the only project path. Python puts the working
// directory first on sys.path for -m and -c, so a report/ package or a numpy.py there would run
// instead of the project's (issue 31); -P stops that only from Python 3.11, and a blank or "."
// entry in PYTHONPATH adds the directory back. So the runner sets sys.path itself before any
// import: the source tree, then the interpreter's own entries, less the working directory ('').
constexpr const char* kReportRunner =
    "import sys; sys.path[:] = [sys.argv.pop(1)] + [p for p in sys.path if p]; "
    "import runpy; runpy.run_module('report', run_name='__main__', alter_sys=True)";

int cmd_report(const std::vector<std::string>& args) {
  // The report is a Python package in the source tree, run by the configured Python.
  const std::string python = python_executable();
  std::vector<std::string> argv = {python, "-c", kReportRunner, source_dir()};
  argv.insert(argv.end(), args.begin(), args.end());
  unsetenv("PYTHONPATH");  // the runner names the source tree; the user's entries may be the cwd
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  std::fprintf(stderr, "optbench report: cannot start %s: %s (set OPTBENCH_PYTHON)\n", python.c_str(),
               std::strerror(errno));
  return kExitUsage;
}

// One line: CLI11's messages may span several.
std::string one_line(std::string s) {
  for (auto& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

int cli_main(int argc, char** argv) {
  pin_malloc_regime();  // before anything allocates much: see malloc_regime.h
  // A file size limit (ulimit -f) then fails the write with EFBIG, which the
  // run reports, instead of killing the process mid-write; and a write to a
  // peer that is gone (a dead rank's socket, a closed pipe) fails with EPIPE
  // instead of ending this process silently before it closes its file.
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{
      "optbench: measure each GPU optimization from the PyTorch performance checklists as a paired A/B experiment"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("optbench ") + OPTBENCH_VERSION);

  std::string filter = ".*";
  bool list_json = false;
  auto* list = app.add_subcommand("list", "List the experiments");
  list->add_option("--filter", filter, "Regex over experiment names");
  list->add_flag("--json", list_json, "Print JSON instead of a table");
  auto* model = app.add_subcommand(
      "model", "Print, as JSON, what a run's cost is planned from: each profile's settings and rounds floor, and the "
               "budget gate's constants (scripts/lib/estimate_wall.py reads them)");

  std::vector<std::string> names;
  std::string device = "auto", out, interleave = "random";
  bool quick = false, full = false, overwrite = false, no_progress = false;
  double time_budget = 0, max_time = 0, target_ci = 0;
  int min_samples = 0;
  std::uint64_t seed = 42;
  auto* run = app.add_subcommand("run", "Run experiments and write a results JSON file");
  run->add_option("names", names, "Experiment names (exact); default: all, or those matching --filter");
  run->add_option("--filter", filter, "Regex over experiment names (search, like --benchmark_filter)");
  auto* q = run->add_flag("--quick", quick, "Short warm-up, 5% CI target, 1.5 s cap per case");
  auto* f = run->add_flag("--full", full, "Long warm-up, 1% CI target, 60 s cap per case");
  q->excludes(f);
  run->add_option("--device", device, "cuda, cpu, or auto (GPU when present)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  run->add_option("--out", out, "Results file (default: optbench-DEVICE-DATE.json)");
  run->add_flag("--overwrite", overwrite, "Replace --out if it exists");
  run->add_option("--time-budget", time_budget, "Seconds for the whole run, shared among cases")
      ->check(cli::finite_number(false));
  run->add_option("--max-time", max_time, "Cap on sampling time per case, seconds")->check(cli::finite_number(false));
  run->add_option("--min-samples", min_samples, "Minimum interleaved rounds per case")
      ->check(cli::whole_number(1, 1 << 30));
  run->add_option("--target-ci", target_ci, "Stop when every ratio's CI is narrower than this (relative)")
      ->check(cli::finite_number(false));
  double hang_timeout = 0;
  run->add_option("--hang-timeout", hang_timeout,
                  "Seconds an experiment's process may go without progress (no finished case, no output line) "
                  "before it is killed and the experiment recorded as 'hung' (default 900, or 3 x --max-time + 300 "
                  "when larger)")
      ->check(cli::finite_number(false));
  run->add_option("--seed", seed,
                  "Seed of the random interleaving order (inputs and weights always use the fixed data seed, "
                  "recorded as measure.data_seed)")
      ->check(cli::whole_number_u64());
  run->add_option("--interleave", interleave, "random or abba")->check(CLI::IsMember({"random", "abba"}));
  run->add_flag("--no-progress", no_progress, "No progress lines on stderr");
  bool in_process = false;
  run->add_flag("--in-process", in_process,
                "Run every experiment in this process (default: each in a child process, so a crash inside one "
                "is recorded as 'crashed' and the others still run)");
  std::string breakdown = "auto", trace_dir;
  run->add_option("--breakdown", breakdown,
                  "Profile each variant for a short window after its timed rounds and record where a step's time "
                  "goes (never part of a timed sample): auto (standard and full profiles, within 20% of a case's "
                  "time), on, or off")
      ->check(CLI::IsMember(profiling::breakdown_mode_words()));
  run->add_option("--trace-dir", trace_dir,
                  "Save each profiled window as a Chrome trace (Perfetto, chrome://tracing) in this folder; "
                  "implies --breakdown on");
  int cold_processes = 0;
  run->add_option("--cold-processes", cold_processes,
                  "Fresh processes per variant a cold first step is taken from, where a case derives from one "
                  "(cudnn_benchmark's break-even); the median is kept (default: 1 quick, 2 standard, 3 full)")
      ->check(cli::whole_number(1, 1000));
  int processes = 0;
  // The defaults as the profiles set them (measure_config.cpp), not restated here.
  auto process_defaults = [](RunProfile p) {
    const MeasureConfig m = measure_config_for(p);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%d-%d, until the interval is within %g%%, further ones at most %g x the first pass",
                  m.min_processes, m.processes, 100 * m.process_target_rel_ci, m.process_time_share.value_or(0));
    return std::string(buf);
  };
  run->add_option("--processes", processes,
                  "Processes each experiment is measured in, at most: the first does everything, each further one "
                  "only its timed rounds, and the reported interval is between processes (the process is the unit). "
                  "Alone it fixes the count; with --min-processes more are added only while an interval is wider "
                  "than the profile's target (standard: " + process_defaults(RunProfile::standard) +
                  "; full: " + process_defaults(RunProfile::full) + "; quick: 1; 1 with --in-process)")
      ->check(cli::whole_number(1, 100));
  int min_processes = 0;
  run->add_option("--min-processes", min_processes,
                  "Processes each experiment is measured in at least, before precision may stop it (default: "
                  "--processes when that is given, else the profile's)")
      ->check(cli::whole_number(1, 100));
  bool isolate = false;
  run->add_flag("--isolate", isolate,
                "Every variant in a process of its own (cold first runs, own caches and allocator; "
                "cases that need it, e.g. cudnn_benchmark, always are)");

  // Hidden, each given its settings as one JSON object (harness/run_settings.h):
  // one guarded experiment, run by the suite's process (harness/experiment_guard.h),
  // and one isolated variant, driven by the run's process over a pipe.
  std::string experiment_settings, worker_settings;
  auto* experiment_child = app.add_subcommand("_experiment", "")->group("");
  experiment_child->add_option("--settings", experiment_settings)->required();
  auto* worker = app.add_subcommand("_worker", "")->group("");
  worker->add_option("--settings", worker_settings)->required();

  std::string env_device = "auto";
  auto* env = app.add_subcommand("env", "Print the environment block as JSON");
  env->add_option("--device", env_device, "cuda, cpu, or auto")->check(CLI::IsMember({"auto", "cuda", "cpu"}));

  std::vector<std::string> report_args;
  auto* report = app.add_subcommand("report", "Render, compare or validate results (runs python3 -m report)");
  report->prefix_command();
  report->allow_extras();

  auto distributed_commands = distributed::add_distributed_commands(app);  // launch, hidden ddp-check

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // Every usage error exits 2 with one line, whatever CLI11's own code (105-109).
    std::fprintf(stderr, "optbench: error: %s (see --help)\n", one_line(e.what()).c_str());
    return kExitUsage;
  }

  const std::vector<std::string> args(argv, argv + argc);
  std::string results_path;  // for the message when writing it fails
  try {
    if (*worker) return run_worker(json::parse(worker_settings).get<WorkerArgs>());
    if (*experiment_child) {
      const SuiteOptions opts =
          suite_options_for_child(json::parse(experiment_settings).get<ExperimentChildSettings>());
      results_path = opts.out_path;
      install_stop_handlers();
      return run_suite(opts);
    }
    if (auto rc = distributed_commands->dispatch()) return *rc;
    if (*list) return cmd_list(filter, list_json);
    if (*model) {
      std::cout << cost_model().dump(2) << '\n';
      return 0;
    }
    if (*report) return cmd_report(report->remaining());
    if (*env) {
      const DeviceKind d = env_device == "auto" ? best_device() : parse_device(env_device);
      std::cout << capture_environment(d, args).dump(2) << '\n';
      return 0;
    }
    SuiteOptions opts;
    opts.device = device == "auto" ? best_device() : parse_device(device);
    opts.profile = quick ? RunProfile::quick : full ? RunProfile::full : RunProfile::standard;
    opts.measure = measure_config_for(opts.profile);
    if (max_time > 0) {
      opts.measure.stopping.max_time_s = max_time;
      opts.measure.repeat.stopping.max_time_s = std::min(opts.measure.repeat.stopping.max_time_s, max_time);
    }
    if (min_samples > 0) opts.measure.stopping.min_samples = min_samples;
    if (target_ci > 0) opts.measure.stopping.target_rel_ci = target_ci;
    opts.measure.seed = seed;
    opts.measure.order = parse_interleave_order(interleave);
    opts.measure.isolate = isolate;
    if (cold_processes > 0) opts.measure.cold_processes = cold_processes;
    if (processes > 0) {
      opts.measure.processes = opts.measure.min_processes = processes;
      opts.measure.process_time_share.reset();  // the count as given
    }
    if (min_processes > 0) opts.measure.min_processes = min_processes;
    if (opts.measure.min_processes > opts.measure.processes)
      throw std::invalid_argument("--min-processes " + std::to_string(opts.measure.min_processes) +
                                  " exceeds --processes " + std::to_string(opts.measure.processes));
    // a further process needs the guard's children
    if (in_process) opts.measure.processes = opts.measure.min_processes = 1;
    if (breakdown != "auto") opts.measure.breakdown.mode = profiling::parse_breakdown_mode(breakdown);
    if (!trace_dir.empty()) {
      if (breakdown == "off")
        throw std::invalid_argument("--trace-dir needs profiling; it cannot go with --breakdown off");
      opts.measure.breakdown.trace_dir = std::filesystem::absolute(trace_dir).string();
      opts.measure.breakdown.mode = profiling::BreakdownMode::on;
    }
    opts.filter = names.empty() ? filter : names_to_filter(names);
    if (time_budget > 0) opts.time_budget_s = time_budget;
    opts.hang_timeout_s = hang_timeout > 0 ? hang_timeout : default_hang_timeout_s(opts.measure.stopping.max_time_s);
    opts.out_path = out.empty() ? default_out_path(opts.device) : out;
    results_path = opts.out_path;
    if (!trace_dir.empty()) opts.measure.breakdown.trace_run = std::filesystem::path(opts.out_path).stem().string();
    if (!overwrite && std::filesystem::exists(opts.out_path))
      throw std::invalid_argument("'" + opts.out_path + "' exists; pass --overwrite or choose another --out");
    // Made only once every option is known good: a refused run creates nothing.
    if (!trace_dir.empty()) std::filesystem::create_directories(trace_dir);
    opts.argv = args;
    opts.progress = !no_progress;
    opts.guard_experiments = !in_process;
    install_stop_handlers();
    // Under a launcher (WORLD_SIZE > 1) ranks > 0 serve rank 0 here; only rank 0 runs the suite.
    auto ranks = distributed::join_run(opts.device, opts.profile);
    if (auto rc = ranks.follower_exit_code()) return *rc;
    return run_suite(opts);
  } catch (const WriteError& e) {
    std::fprintf(stderr, "optbench: error: the results could not be written: %s; '%s' keeps its last complete "
                 "version\n", one_line(e.what()).c_str(), results_path.c_str());
    return kExitWriteFailed;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (auto nl = msg.find("\nException raised from"); nl != std::string::npos) msg.resize(nl);
    std::fprintf(stderr, "optbench: error: %s\n", msg.c_str());
    return kExitUsage;
  }
}

}  // namespace optbench
