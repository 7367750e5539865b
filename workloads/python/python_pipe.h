#pragma once
// A Python process driven over a pipe, one request line and one reply line at a
// time: the Python twins (python_twin.h) and Python's DataLoader
// (workloads/data/epoch_loops.h). Its stdin and stdout are pipes and its stderr
// goes into its stdout, so a traceback comes back as the last lines read. It
// ends at the end of its stdin, which closes with this process however that
// ends, so it needs no die-with-parent; a child that died makes the next write
// fail with EPIPE (an error here) rather than end the run with SIGPIPE.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace optbench::workloads {

class PythonPipe {
 public:
  // Starts argv (PATH searched); env: the child's whole environment, none: this
  // process's. `what` names it in errors ("the Python twin process"); `quit`
  // is the line that asks it to end.
  PythonPipe(std::vector<std::string> argv, std::optional<std::vector<std::string>> env, std::string what,
             std::string quit);
  // A process another one started (a twin the zygote forked, twin_zygote.h)
  // on a connected socket, which this object then owns: not waited for here.
  PythonPipe(pid_t pid, int socket, std::string what, std::string quit);
  // Sends quit, closes both pipes and waits for the process.
  ~PythonPipe();
  PythonPipe(const PythonPipe&) = delete;
  PythonPipe& operator=(const PythonPipe&) = delete;

  void send(const std::string& line);
  // One line, read byte by byte: a reply may be a line followed by raw bytes,
  // which a buffered read would take part of. Throws when the process ended.
  std::string read_line();
  std::string request(const std::string& line);
  // Reads until a line starts with `prefix` (the process's "ready"), and
  // returns it; the lines before are warnings or a traceback, and the last of
  // them is in the error when the process ends first.
  std::string wait_for(const std::string& prefix);
  void read_exact(char* p, std::size_t n);
  // What the process printed last before it ended, after `reply` (an exception
  // prints its traceback and ends the process: its last line says what).
  std::string last_words(const std::string& reply);
  pid_t pid() const { return pid_; }

 private:
  [[noreturn]] void ended(const std::string& last) const;
  void close_input();  // the child sees the end of its input
  std::string what_, quit_;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  int socket_ = -1;  // both directions, where adopted (then not this process's child)
};

}  // namespace optbench::workloads
