#pragma once
// Crash isolation per experiment. A crash inside one experiment (a signal, an
// abort, a fault in a library) must not cost the experiments after it, and a
// crashed process cannot be trusted to record anything. So the suite runs each
// experiment in a child `optbench run` restricted to it, which writes its own
// results file; this side copies each case the child finishes into the run's
// file as it appears (the run's file stays current after every case), forwards
// the child's output, and when the child dies keeps what it finished and
// records the signal and the last lines it printed.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace optbench {

struct ChildOutcome {
  nlohmann::json experiment;              // the child's record of its experiment (null if it wrote none)
  int exit_code = -1;                     // its exit status, if it exited
  int signal = 0;                         // the signal that ended it, if one did
  std::vector<std::string> output_tail;   // its last lines of output (stdout and stderr)
};

// Runs argv (an optbench `run` writing part_path) and waits for it. on_case gets
// every case the child records, once, in order. When `stop` becomes true the
// child is sent one SIGINT (it finishes its sample and records the case as
// interrupted); the child has a process group of its own, so a terminal's Ctrl-C
// reaches it only through here.
ChildOutcome run_guarded_child(const std::vector<std::string>& argv, const std::string& part_path,
                               const std::function<void(const nlohmann::json&)>& on_case,
                               const std::atomic<bool>& stop, std::size_t tail_lines = 20);

// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int sig);

}  // namespace optbench
