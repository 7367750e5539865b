#pragma once
// Starting a child process: its argv (and, if given, its whole environment),
// pipes to its standard streams, a process group of its own, death with this
// process. Every process optbench starts goes through here (guarded
// experiments, isolated variants, a launcher's ranks, Python's DataLoader), so
// each gets the same care: everything the child needs is built before fork
// (between fork and exec a multithreaded process may only make
// async-signal-safe calls), pipes are close-on-exec (a child never holds
// another child's pipe open, which would keep that one from seeing EOF), and a
// program that cannot be started says so on the child's stderr and exits 127.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace optbench {

enum class Stdio {
  inherit,    // this process's stream
  pipe,       // a pipe whose other end this process gets (Subprocess::in, out, err)
  to_stdout,  // stderr only: wherever the child's stdout goes
  discard,    // /dev/null
};

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0]: a path, or with search_path a name looked up on PATH
  bool search_path = false;
  std::optional<std::vector<std::string>> env;  // "KEY=value" each, the whole environment; unset: this process's
  std::string cwd;                              // the child's working directory; empty: this process's
  Stdio in = Stdio::inherit, out = Stdio::inherit, err = Stdio::inherit;
  // setpgid(0, 0): a terminal's Ctrl-C reaches this process only, which forwards
  // it, and the child's own children can be killed with it as one group.
  bool own_process_group = false;
  // Sent to the child when this process ends, even by SIGKILL (PR_SET_PDEATHSIG;
  // strictly: when the thread that spawned it ends, so spawn from a thread that
  // lives as long as the child should). 0: none.
  int die_with_parent = 0;
  // Signals whose disposition the child starts with at SIG_DFL (one this process
  // ignores would stay ignored across exec).
  std::vector<int> default_signals;
};

struct Subprocess {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;  // this side's ends of the pipes asked for (close-on-exec); -1 otherwise
};

// Throws std::runtime_error when a pipe or the fork fails (nothing is left open).
Subprocess spawn(const SpawnOptions& o);

// waitpid, retrying when a signal interrupts it: the wait status, or -1 when
// there is no such child.
int wait_status(pid_t pid);

// A short command run to its end: what it wrote on stdout (and on stderr where
// o.err is Stdio::to_stdout), and its exit code, -1 when a signal ended it.
// o.out is a pipe whatever o says. Throws as spawn does.
struct Captured {
  std::string output;
  int exit_code = -1;
};
Captured run_captured(SpawnOptions o);

// This process's environment with KEY=value entries set (replacing any of the same key).
std::vector<std::string> environment_with(const std::vector<std::string>& entries);

}  // namespace optbench
