#pragma once
// Crash isolation per experiment. A crash inside one experiment (a signal, an
// abort, a fault in a library) must not cost the experiments after it, and a
// crashed process cannot be trusted to record anything. So the suite runs each
// experiment in a child `optbench _experiment` restricted to it (given the
// run's settings as data: harness/run_settings.h), which writes its own
// results file; this side copies each case the child finishes into the run's
// file as it appears (the run's file stays current after every case), forwards
// the child's output, and when the child dies keeps what it finished and
// records the signal and the last lines it printed. A child that stops making
// progress (hangs, rather than dies) is killed after a deadline and recorded as
// such, so one stuck experiment cannot hold up the run.
#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace optbench {

struct ChildOutcome {
  nlohmann::json experiment;             // the child's record of its experiment (null if it wrote none)
  nlohmann::json config;                 // the settings it recorded running with (null if it wrote none)
  int exit_code = -1;                    // its exit status, if it exited
  int signal = 0;                        // the signal that ended it, if one did
  std::vector<std::string> output_tail;  // its last lines of output (stdout and stderr)
  bool hung = false;                     // killed after GuardLimits::hang_timeout_s without progress
  bool stop_overdue = false;             // killed: still running GuardLimits::stop_grace_s after the interrupt
};

struct GuardLimits {
  // Progress is a line of output or a new version of its part file (a finished
  // case). A child without either for this long is killed (its process group:
  // its worker processes too). See default_hang_timeout_s.
  double hang_timeout_s = 900;
  // After the interrupt is forwarded the child finishes its sample and closes
  // its file; one still running after this is killed, so that a CI job's
  // SIGTERM, followed by SIGKILL some seconds later, still finds the run's file
  // closed.
  double stop_grace_s = 5;
};

// 900 s, or more when the per-case cap (--max-time) could make one case that long.
double default_hang_timeout_s(double max_time_s);

// Runs argv (an `optbench _experiment` writing part_path) and waits for it. on_case gets
// every case the child records, once, in order. When `stop` becomes true the
// child is sent one SIGINT (it finishes its sample and records the case as
// interrupted); the child has a process group of its own, so a terminal's Ctrl-C
// reaches it only through here. If on_case throws, the child is killed and
// reaped before the exception goes on.
ChildOutcome run_guarded_child(const std::vector<std::string>& argv, const std::string& part_path,
                               const std::function<void(const nlohmann::json&)>& on_case, const std::atomic<bool>& stop,
                               const GuardLimits& limits = {}, std::size_t tail_lines = 20);

// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int sig);

}  // namespace optbench
