#include "harness/cli_run.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "harness/cli_numbers.h"
#include "harness/experiment_guard.h"
#include "harness/measure_config.h"
#include "harness/name_hint.h"
#include "harness/registry.h"

namespace optbench {
namespace {

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
      throw std::invalid_argument("unknown experiment '" + n + "' (" + unknown_name_hint(n, valid) + ")");
    alt += (alt.empty() ? "" : "|") + n;
  }
  return "^(" + alt + ")$";
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, RunFlags& f) {
  auto* run = app.add_subcommand("run", "Run experiments and write a results JSON file");
  run->add_option("names", f.names, "Experiment names (exact); default: all, or those matching --filter");
  run->add_option("--filter", f.filter, "Regex over experiment names (search, like --benchmark_filter)");
  auto* q = run->add_flag("--quick", f.quick, "Short warm-up, 5% CI target, 1.5 s cap per case");
  auto* full = run->add_flag("--full", f.full, "Long warm-up, 1% CI target, 60 s cap per case");
  q->excludes(full);
  run->add_option("--device", f.device, "cuda, cpu, or auto (GPU when present)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  run->add_option("--out", f.out, "Results file (default: optbench-DEVICE-DATE.json)");
  run->add_flag("--overwrite", f.overwrite, "Replace --out if it exists");
  run->add_option("--time-budget", f.time_budget, "Seconds for the whole run, shared among cases")
      ->check(cli::finite_number(false));
  run->add_option("--max-time", f.max_time, "Cap on sampling time per case, seconds")->check(cli::finite_number(false));
  run->add_option("--min-samples", f.min_samples, "Minimum interleaved rounds per case")
      ->check(cli::whole_number(1, 1 << 30));
  run->add_option("--target-ci", f.target_ci, "Stop when every ratio's CI is narrower than this (relative)")
      ->check(cli::finite_number(false));
  run->add_option("--hang-timeout", f.hang_timeout,
                  "Seconds an experiment's process may go without progress (no finished case, no output line) "
                  "before it is killed and the experiment recorded as 'hung' (default 900, or 3 x --max-time + 300 "
                  "when larger)")
      ->check(cli::finite_number(false));
  run->add_option("--seed", f.seed,
                  "Seed of the random interleaving order (inputs and weights always use the fixed data seed, "
                  "recorded as measure.data_seed)")
      ->check(cli::whole_number_u64());
  run->add_option("--interleave", f.interleave, "random or abba")->check(CLI::IsMember({"random", "abba"}));
  run->add_flag("--no-progress", f.no_progress, "No progress lines on stderr");
  run->add_flag("--in-process", f.in_process,
                "Run every experiment in this process (default: each in a child process, so a crash inside one "
                "is recorded as 'crashed' and the others still run)");
  run->add_option("--breakdown", f.breakdown,
                  "Profile each variant for a short window after its timed rounds and record where a step's time "
                  "goes (never part of a timed sample): auto (standard and full profiles, within 20% of a case's "
                  "time), on, or off")
      ->check(CLI::IsMember(profiling::breakdown_mode_words()));
  run->add_option("--trace-dir", f.trace_dir,
                  "Save each profiled window as a Chrome trace (Perfetto, chrome://tracing) in this folder; "
                  "implies --breakdown on");
  run->add_option("--cold-processes", f.cold_processes,
                  "Fresh processes per variant a cold first step is taken from, where a case derives from one "
                  "(cudnn_benchmark's break-even); the median is kept (default: 1 quick, 2 standard, 3 full)")
      ->check(cli::whole_number(1, 1000));
  // The defaults as the profiles set them (measure_config.cpp), not restated here.
  auto process_defaults = [](RunProfile p) {
    const MeasureConfig m = measure_config_for(p);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%d-%d, until the interval is within %g%%, further ones at most %g x the first pass",
                  m.min_processes, m.processes, 100 * m.process_target_rel_ci, m.process_time_share.value_or(0));
    return std::string(buf);
  };
  run->add_option("--processes", f.processes,
                  "Processes each experiment is measured in, at most: the first does everything, each further one "
                  "only its timed rounds, and the reported interval is between processes (the process is the unit). "
                  "Alone it fixes the count; with --min-processes more are added only while an interval is wider "
                  "than the profile's target (standard: " +
                      process_defaults(RunProfile::standard) + "; full: " + process_defaults(RunProfile::full) +
                      "; quick: 1; 1 with --in-process)")
      ->check(cli::whole_number(1, 100));
  run->add_option("--min-processes", f.min_processes,
                  "Processes each experiment is measured in at least, before precision may stop it (default: "
                  "--processes when that is given, else the profile's)")
      ->check(cli::whole_number(1, 100));
  run->add_flag("--repeat-all", f.repeat_all,
                "Further processes repeat every comparison, not only those a claim's verdict reads (the others are "
                "otherwise measured in the first process alone)");
  run->add_flag("--isolate", f.isolate,
                "Every variant in a process of its own (cold first runs, own caches and allocator; "
                "cases that need it, e.g. cudnn_benchmark, always are)");
  return run;
}

SuiteOptions suite_options_from(const RunFlags& f, const std::vector<std::string>& argv) {
  SuiteOptions opts;
  opts.device = f.device == "auto" ? best_device() : parse_device(f.device);
  opts.profile = f.quick ? RunProfile::quick : f.full ? RunProfile::full : RunProfile::standard;
  opts.measure = measure_config_for(opts.profile);
  if (f.max_time > 0) {
    opts.measure.stopping.max_time_s = f.max_time;
    opts.measure.repeat.stopping.max_time_s = std::min(opts.measure.repeat.stopping.max_time_s, f.max_time);
  }
  if (f.min_samples > 0) opts.measure.stopping.min_samples = f.min_samples;
  if (f.target_ci > 0) opts.measure.stopping.target_rel_ci = f.target_ci;
  opts.measure.seed = f.seed;
  opts.measure.order = parse_interleave_order(f.interleave);
  opts.measure.isolate = f.isolate;
  opts.measure.repeat_all = f.repeat_all;
  if (f.cold_processes > 0) opts.measure.cold_processes = f.cold_processes;
  if (f.processes > 0) {
    opts.measure.processes = opts.measure.min_processes = f.processes;
    opts.measure.process_time_share.reset();  // the count as given
  }
  if (f.min_processes > 0) opts.measure.min_processes = f.min_processes;
  if (opts.measure.min_processes > opts.measure.processes)
    throw std::invalid_argument("--min-processes " + std::to_string(opts.measure.min_processes) +
                                " exceeds --processes " + std::to_string(opts.measure.processes));
  // a further process needs the guard's children
  if (f.in_process) opts.measure.processes = opts.measure.min_processes = 1;
  if (f.breakdown != "auto") opts.measure.breakdown.mode = profiling::parse_breakdown_mode(f.breakdown);
  if (!f.trace_dir.empty()) {
    if (f.breakdown == "off")
      throw std::invalid_argument("--trace-dir needs profiling; it cannot go with --breakdown off");
    opts.measure.breakdown.trace_dir = std::filesystem::absolute(f.trace_dir).string();
    opts.measure.breakdown.mode = profiling::BreakdownMode::on;
  }
  opts.filter = f.names.empty() ? f.filter : names_to_filter(f.names);
  if (f.time_budget > 0) opts.time_budget_s = f.time_budget;
  opts.hang_timeout_s = f.hang_timeout > 0 ? f.hang_timeout : default_hang_timeout_s(opts.measure.stopping.max_time_s);
  opts.out_path = f.out.empty() ? default_out_path(opts.device) : f.out;
  if (!f.trace_dir.empty()) opts.measure.breakdown.trace_run = std::filesystem::path(opts.out_path).stem().string();
  if (!f.overwrite && std::filesystem::exists(opts.out_path))
    throw std::invalid_argument("'" + opts.out_path + "' exists; pass --overwrite or choose another --out");
  // Made only once every option is known good: a refused run creates nothing.
  if (!f.trace_dir.empty()) std::filesystem::create_directories(f.trace_dir);
  opts.argv = argv;
  opts.progress = !f.no_progress;
  opts.guard_experiments = !f.in_process;
  return opts;
}

}  // namespace optbench
