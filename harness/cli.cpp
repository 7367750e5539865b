#include "harness/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <regex>

#include "harness/atomic_file.h"
#include "harness/build_info.h"
#include "harness/cli_plan.h"
#include "harness/cli_run.h"
#include "harness/distributed/ddp_check_command.h"
#include "harness/distributed/session.h"
#include "harness/environment.h"
#include "harness/experiment_guard.h"
#include "harness/isolation/worker.h"
#include "harness/malloc_regime.h"
#include "harness/measure_config.h"
#include "harness/name_hint.h"
#include "harness/registry.h"
#include "harness/run_settings.h"
#include "harness/signals.h"
#include "harness/suite_runner.h"
#include "harness/vocabulary.h"

namespace optbench {
namespace {

using json = nlohmann::json;

int cmd_list(const std::string& filter, bool as_json) {
  json out = json::array();
  for (const Experiment* e : Registry::instance().match(filter)) {
    const auto i = e->info();
    json devices = json::array();
    for (auto d : i.devices) devices.push_back(to_string(d));
    out.push_back({{"name", i.name},
                   {"title", i.title},
                   {"optimization", i.optimization},
                   {"claims", i.claims},
                   {"devices", devices},
                   {"description", i.description},
                   {"quick_leaves_out", i.quick_leaves_out},
                   {"mechanism_counters", i.mechanism_counters}});
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

int cmd_report(const std::vector<std::string>& args) {
  // The report is a Python package in the source tree, run by the configured Python.
  std::vector<std::string> argv = report_argv(args);
  const std::string python = argv.front();
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

// Every subcommand and the options it fills (run's in RunFlags), declared on `app`.
struct Commands {
  CLI::App app{
      "optbench: measure each GPU optimization from the PyTorch performance checklists as a paired A/B experiment"};
  std::string filter = ".*";  // list's
  bool list_json = false;
  // Hidden, each given its settings as one JSON object (harness/run_settings.h):
  // one guarded experiment, run by the suite's process (harness/experiment_guard.h),
  // and one isolated variant, driven by the run's process over a pipe.
  std::string experiment_settings, worker_settings;
  std::string env_device = "auto";
  RunFlags run_flags;
  PlanFlags plan_flags;
  CLI::App *list = nullptr, *plan = nullptr, *vocab = nullptr, *experiment_child = nullptr, *worker = nullptr,
           *env = nullptr, *report = nullptr;
  std::unique_ptr<distributed::DistributedCommands> distributed;  // hidden ddp-check

  Commands() {
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("optbench ") + OPTBENCH_VERSION);
    list = app.add_subcommand("list", "List the experiments");
    list->add_option("--filter", filter, "Regex over experiment names");
    list->add_flag("--json", list_json, "Print JSON instead of a table");
    plan = add_plan_command(app, plan_flags);
    vocab = app.add_subcommand(
        "vocabulary",
        "Print, as JSON, the names results files use for the profiler's time categories and mechanism counters "
        "(the report's labels are checked against them)");
    add_run_command(app, run_flags);
    experiment_child = app.add_subcommand("_experiment", "")->group("");
    experiment_child->add_option("--settings", experiment_settings)->required();
    worker = app.add_subcommand("_worker", "")->group("");
    worker->add_option("--settings", worker_settings)->required();
    env = app.add_subcommand("env", "Print the environment block as JSON");
    env->add_option("--device", env_device, "cuda, cpu, or auto")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
    report = app.add_subcommand("report", "Render, compare or validate results (runs python3 -m report)");
    report->prefix_command();
    report->allow_extras();
    distributed = distributed::add_distributed_commands(app);
  }
};

// Runs the subcommand parsed; `results_path` names the file a failed write leaves as it was.
int dispatch(Commands& c, const std::vector<std::string>& args, std::string& results_path) {
  if (*c.worker) return run_worker(json::parse(c.worker_settings).get<WorkerArgs>());
  if (*c.experiment_child) {
    const SuiteOptions opts =
        suite_options_for_child(json::parse(c.experiment_settings).get<ExperimentChildSettings>());
    results_path = opts.out_path;
    install_stop_handlers();
    return run_suite(opts);
  }
  if (auto rc = c.distributed->dispatch()) return *rc;
  if (*c.list) return cmd_list(c.filter, c.list_json);
  if (*c.plan) return cmd_plan(c.plan_flags);
  if (*c.vocab) {
    std::cout << vocabulary().dump(2) << '\n';
    return 0;
  }
  if (*c.report) return cmd_report(c.report->remaining());
  if (*c.env) {
    const DeviceKind d = c.env_device == "auto" ? best_device() : parse_device(c.env_device);
    std::cout << capture_environment(d, args).dump(2) << '\n';
    return 0;
  }
  SuiteOptions opts = suite_options_from(c.run_flags, args);
  results_path = opts.out_path;
  install_stop_handlers();
  // Under a launcher (WORLD_SIZE > 1) ranks > 0 serve rank 0 here; only rank 0 runs the suite.
  auto ranks = distributed::join_run(opts.device, opts.profile);
  if (auto rc = ranks.follower_exit_code()) return *rc;
  return run_suite(opts);
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
  Commands commands;
  try {
    commands.app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return commands.app.exit(e);  // --help, --version
    // Every usage error exits 2 with one line, whatever CLI11's own code (105-109).
    std::fprintf(stderr, "optbench: error: %s (see --help)\n", one_line(e.what()).c_str());
    return kExitUsage;
  }
  std::string results_path;  // for the message when writing it fails
  try {
    return dispatch(commands, std::vector<std::string>(argv, argv + argc), results_path);
  } catch (const WriteError& e) {
    std::fprintf(stderr,
                 "optbench: error: the results could not be written: %s; '%s' keeps its last complete "
                 "version\n",
                 one_line(e.what()).c_str(), results_path.c_str());
    return kExitWriteFailed;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (auto nl = msg.find("\nException raised from"); nl != std::string::npos) msg.resize(nl);
    std::fprintf(stderr, "optbench: error: %s\n", msg.c_str());
    return kExitUsage;
  }
}

}  // namespace optbench
