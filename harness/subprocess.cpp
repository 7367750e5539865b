#include "harness/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace optbench {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// A close-on-exec pipe whose ends are above the standard streams, so that
// putting one end in place as 0, 1 or 2 can never overwrite the other.
void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  for (int k = 0; k < 2; ++k)
    if (fds[k] <= STDERR_FILENO) {
      const int moved = ::fcntl(fds[k], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
      ::close(fds[k]);
      fds[k] = moved;
    }
  if (fds[0] < 0 || fds[1] < 0) {
    close_fd(fds[0]);
    close_fd(fds[1]);
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
}

void write_all(int fd, const char* s, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

Subprocess spawn(const SpawnOptions& o) {
  if (o.argv.empty()) throw std::invalid_argument("spawn: no program");
  // Everything the child uses is made here, before fork.
  std::vector<char*> argv;
  for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  if (o.env) {
    for (const auto& e : *o.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  const std::string cannot_start = "optbench: cannot start " + o.argv[0] + ": ";
  const std::string cannot_enter = "optbench: cannot enter " + o.cwd + " for " + o.argv[0] + "\n";

  // [0] read end, [1] write end; the child's end is [0] for stdin, [1] otherwise.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {in, out, err}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
  };
  try {
    if (o.in == Stdio::pipe) make_pipe(in);
    if (o.out == Stdio::pipe) make_pipe(out);
    if (o.err == Stdio::pipe) make_pipe(err);
  } catch (...) {
    close_all();
    throw;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    close_all();
    throw std::runtime_error("cannot start " + o.argv[0] + ": fork: " + std::strerror(e));
  }
  if (pid == 0) {
    // Async-signal-safe calls only from here on.
    if (o.own_process_group) ::setpgid(0, 0);
    if (o.die_with_parent != 0) {
      ::prctl(PR_SET_PDEATHSIG, o.die_with_parent);
      // The parent may have ended before prctl: then nobody sends the signal.
      if (::getppid() != parent) ::_exit(127);
    }
    for (int sig : o.default_signals) ::signal(sig, SIG_DFL);
    // dup2 leaves the copy open across exec; the pipes themselves close.
    if (in[0] >= 0) ::dup2(in[0], STDIN_FILENO);
    if (out[1] >= 0) ::dup2(out[1], STDOUT_FILENO);
    if (err[1] >= 0) ::dup2(err[1], STDERR_FILENO);
    if (o.err == Stdio::to_stdout) ::dup2(STDOUT_FILENO, STDERR_FILENO);
    if (o.err == Stdio::discard)
      if (const int null = ::open("/dev/null", O_WRONLY); null >= 0) ::dup2(null, STDERR_FILENO);
    if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) {
      write_all(STDERR_FILENO, cannot_enter.data(), cannot_enter.size());
      ::_exit(127);
    }
    if (o.env) {
      if (o.search_path)
        ::execvpe(argv[0], argv.data(), envp.data());
      else
        ::execve(argv[0], argv.data(), envp.data());
    } else {
      if (o.search_path)
        ::execvp(argv[0], argv.data());
      else
        ::execv(argv[0], argv.data());
    }
    const char* why = ::strerrordesc_np(errno);
    write_all(STDERR_FILENO, cannot_start.data(), cannot_start.size());
    write_all(STDERR_FILENO, why ? why : "unknown error", why ? std::strlen(why) : 13);
    write_all(STDERR_FILENO, "\n", 1);
    ::_exit(127);
  }
  close_fd(in[0]);
  close_fd(out[1]);
  close_fd(err[1]);
  return Subprocess{pid, in[1], out[0], err[0]};
}

int wait_status(pid_t pid) {
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, 0) == pid) return status;
    if (errno != EINTR) return -1;
  }
}

Captured run_captured(SpawnOptions o) {
  o.out = Stdio::pipe;
  const Subprocess p = spawn(o);
  Captured c;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(p.out, buf, sizeof buf);
    if (n > 0) {
      c.output.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(p.out);
  const int st = wait_status(p.pid);
  c.exit_code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return c;
}

std::vector<std::string> environment_with(const std::vector<std::string>& entries) {
  auto key_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const bool replaced =
        std::any_of(entries.begin(), entries.end(), [&](const std::string& x) { return key_of(x) == key_of(entry); });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), entries.begin(), entries.end());
  return env;
}

}  // namespace optbench
