#include "workloads/python/python_pipe.h"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <stdexcept>

#include "harness/subprocess.h"

namespace optbench::workloads {
namespace {

// A child that died makes the next write fail with EPIPE instead of ending this process.
void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace

PythonPipe::PythonPipe(std::vector<std::string> argv, std::optional<std::vector<std::string>> env, std::string what,
                       std::string quit)
    : what_(std::move(what)), quit_(std::move(quit)) {
  SpawnOptions so;
  so.argv = std::move(argv);
  so.search_path = true;
  if (env) so.env = std::move(*env);
  so.in = Stdio::pipe;
  so.out = Stdio::pipe;
  // Its stderr goes where this process's goes (the experiment's output tail), not
  // into the reply pipe: a warning line there was taken for a reply and hung the
  // run until --hang-timeout. Its own failures come on stdout (step_server.py).
  so.err = Stdio::inherit;
  ignore_sigpipe();
  const Subprocess child = spawn(so);
  pid_ = child.pid;
  to_child_ = child.in;
  from_child_ = child.out;
}

PythonPipe::PythonPipe(pid_t pid, int socket, std::string what, std::string quit)
    : what_(std::move(what)),
      quit_(std::move(quit)),
      pid_(pid),
      to_child_(socket),
      from_child_(socket),
      socket_(socket) {
  ignore_sigpipe();
}

PythonPipe::~PythonPipe() {
  if (to_child_ >= 0) {
    const std::string q = quit_ + "\n";
    (void)!::write(to_child_, q.data(), q.size());
  }
  close_input();
  if (from_child_ >= 0) ::close(from_child_);      // the socket, where adopted
  if (pid_ > 0 && socket_ < 0) wait_status(pid_);  // an adopted process is its starter's to wait for
}

void PythonPipe::close_input() {
  if (to_child_ < 0) return;
  if (socket_ >= 0)
    ::shutdown(socket_, SHUT_WR);  // the same descriptor reads its replies
  else
    ::close(to_child_);
  to_child_ = -1;
}

void PythonPipe::ended(const std::string& last) const {
  throw std::runtime_error(what_ + " ended" + (last.empty() ? "" : ": " + last));
}

void PythonPipe::send(const std::string& line) {
  const std::string msg = line + "\n";
  if (::write(to_child_, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size()))
    throw std::runtime_error(what_ + " does not read its requests");
}

std::string PythonPipe::read_line() {
  std::string line;
  char c;
  for (;;) {
    const ssize_t r = ::read(from_child_, &c, 1);
    if (r == 1) {
      if (c == '\n') return line;
      line += c;
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      ended(line);
    }
  }
}

std::string PythonPipe::request(const std::string& line) {
  send(line);
  return read_line();
}

std::string PythonPipe::wait_for(const std::string& prefix) {
  std::string last;
  for (;;) {
    std::string line;
    try {
      line = read_line();
    } catch (const std::exception&) {
      ended(last);
    }
    if (line.rfind(prefix, 0) == 0) return line;
    last = line;
  }
}

void PythonPipe::read_exact(char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(from_child_, p, n);
    if (r > 0) {
      p += r;
      n -= static_cast<std::size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      ended("in the middle of its output");
    }
  }
}

std::string PythonPipe::last_words(const std::string& reply) {
  // A process still alive waits for its next request: the end of its input lets
  // it exit, so reading to the end of its output cannot wait forever.
  close_input();
  std::string last = reply;
  try {
    for (;;)
      if (std::string l = read_line(); !l.empty()) last = l;
  } catch (const std::exception&) {
  }
  return last;
}

}  // namespace optbench::workloads
