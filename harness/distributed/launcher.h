#pragma once
// `optbench launch`: torchrun's standalone mode for one machine. Starts N copies
// of a program with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
// MASTER_ADDR=127.0.0.1 and a free MASTER_PORT; forwards their output line by
// line with a "[rank k] " prefix; forwards SIGINT/SIGTERM to them. When one rank
// exits non-zero (or is killed), or the timeout passes, it says so, stops the
// others (SIGTERM, then SIGKILL after a grace period) and exits non-zero.
#include <string>
#include <vector>

namespace optbench::distributed {

struct LaunchOptions {
  int nproc = 1;
  double timeout_s = 0;  // for the whole job; 0: none
  double grace_s = 10;   // between SIGTERM and SIGKILL when stopping ranks
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port
  std::string executable = "/proc/self/exe";
  std::vector<std::string> args;  // the program's arguments (argv[1:])
};

// Exit code: 0 when every rank exited 0; else the first failing rank's status
// (128+signal when killed); 124 after a timeout; 130 after an interrupt.
int launch(const LaunchOptions& opts);

// A TCP port free on `addr` right now (bound to 0 and released).
int find_free_port(const std::string& addr = "127.0.0.1");

// "exited with status 3", "was killed by signal 9 (Killed)".
std::string describe_wait_status(int status);
int exit_code_of_wait_status(int status);

}  // namespace optbench::distributed
