#include "harness/distributed/launcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "harness/subprocess.h"

namespace optbench::distributed {
namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_signal_count = 0;

void on_signal(int sig) {
  g_signal = sig;
  g_signal_count = g_signal_count + 1;
}

struct Child {
  int rank = 0;
  pid_t pid = -1;
  int fd[2] = {-1, -1};    // its stdout, stderr (read ends)
  std::string pending[2];  // partial lines
  std::string last_said;   // its last line on stderr that was its own (not a library's log)
  bool exited = false;
  int status = 0;
};

// Every rank's every line, with its rank: the terminal gets the ranks' own lines,
// this file all of them (a failed collective's 20-40 lines of c10d log and C++
// stack frames included), and the failure line names it. Removed when every rank
// exited 0.
struct RankLog {
  std::string path;
  std::ofstream file;
};
RankLog* g_log = nullptr;

void write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    off += static_cast<std::size_t>(n);
  }
}

void say(const std::string& msg) { write_all(STDERR_FILENO, "optbench launch: " + msg + "\n"); }

// A line a library logged rather than the rank's own: c10/c10d's "[W...]",
// "[E...]", "[I...]" log lines (glog style: a level letter, then a date or a
// file) and a C++ exception's stack, which a failed collective prints by the
// dozen on every surviving rank (blank lines between them go with them).
bool library_log_line(const std::string& line) {
  if (line.size() > 2 && line[0] == '[' && std::strchr("WEIF", line[1]) &&
      (std::isdigit(static_cast<unsigned char>(line[2])) || line[2] == ' '))
    return true;
  return line.rfind("frame #", 0) == 0 || line.rfind("Exception raised from ", 0) == 0;
}

void emit_line(Child& c, int stream, const std::string& line) {
  const std::string tagged = "[rank " + std::to_string(c.rank) + "] " + line + "\n";
  if (g_log && g_log->file) g_log->file << tagged << std::flush;
  const bool own = !library_log_line(line) && line.find_first_not_of(" \t\r") != std::string::npos;
  if (stream == 1 && own) c.last_said = line;
  if (own) write_all(stream == 0 ? STDOUT_FILENO : STDERR_FILENO, tagged);
}

// Emits every complete line of child output; at EOF the rest too.
void emit(Child& c, int stream, bool eof) {
  std::string& buf = c.pending[stream];
  std::size_t start = 0;
  for (std::size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1)
    emit_line(c, stream, buf.substr(start, nl - start));
  buf.erase(0, start);
  if (eof && !buf.empty()) {
    emit_line(c, stream, buf);
    buf.clear();
  }
}

// Reads what is available on every open pipe; waits up to timeout_ms for some.
void pump(std::vector<Child>& children, int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<std::pair<std::size_t, int>> who;
  for (std::size_t i = 0; i < children.size(); ++i)
    for (int s = 0; s < 2; ++s)
      if (children[i].fd[s] >= 0) {
        fds.push_back({children[i].fd[s], POLLIN, 0});
        who.emplace_back(i, s);
      }
  if (fds.empty()) {
    if (timeout_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return;
  }
  const int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n <= 0) return;  // timeout or EINTR (a signal to forward)
  char buf[65536];
  for (std::size_t k = 0; k < fds.size(); ++k) {
    if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Child& c = children[who[k].first];
    const int s = who[k].second;
    const ssize_t got = ::read(c.fd[s], buf, sizeof buf);
    if (got > 0) {
      c.pending[s].append(buf, static_cast<std::size_t>(got));
      emit(c, s, false);
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      emit(c, s, true);
      ::close(c.fd[s]);
      c.fd[s] = -1;
    }
  }
}

int default_threads(int nproc) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1, static_cast<int>(cores) / std::max(1, nproc));
}

std::vector<std::string> child_environment(const LaunchOptions& o, int rank, int port) {
  std::vector<std::string> ours = {
      "RANK=" + std::to_string(rank),
      "WORLD_SIZE=" + std::to_string(o.nproc),
      "LOCAL_RANK=" + std::to_string(rank),
      "LOCAL_WORLD_SIZE=" + std::to_string(o.nproc),
      "GROUP_RANK=0",
      "OPTBENCH_LAUNCHER=optbench launch",
      "MASTER_ADDR=" + o.master_addr,
      "MASTER_PORT=" + std::to_string(port),
  };
  // As torchrun does: N ranks on one machine must not each start a thread per core.
  if (!std::getenv("OMP_NUM_THREADS")) ours.push_back("OMP_NUM_THREADS=" + std::to_string(default_threads(o.nproc)));
  std::vector<std::string> env = environment_with(ours);
  const std::string agent_store = "TORCHELASTIC_USE_AGENT_STORE=";  // we host no agent store
  env.erase(std::remove_if(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(agent_store, 0) == 0; }),
            env.end());
  return env;
}

pid_t spawn_rank(const LaunchOptions& o, int rank, int port, Child& c) {
  SpawnOptions so;
  so.env = child_environment(o, rank, port);
  // The real path, so the ranks show up as optbench (not "exe") in ps and top.
  std::string exe = o.executable;
  if (char real[4096]; exe == "/proc/self/exe") {
    const ssize_t n = ::readlink(exe.c_str(), real, sizeof real - 1);
    if (n > 0) exe.assign(real, static_cast<std::size_t>(n));
  }
  so.argv = {exe};
  so.argv.insert(so.argv.end(), o.args.begin(), o.args.end());
  so.out = Stdio::pipe;
  so.err = Stdio::pipe;
  // Own process group: a terminal's Ctrl-C reaches the launcher, which forwards
  // it once. Dies with the launcher. The signals the launcher handles or
  // ignores act on a rank as they would on a program started from a shell.
  so.own_process_group = true;
  so.die_with_parent = SIGTERM;
  so.default_signals = {SIGINT, SIGTERM, SIGPIPE};
  const Subprocess p = spawn(so);
  c.fd[0] = p.out;
  c.fd[1] = p.err;
  c.pid = p.pid;
  c.rank = rank;
  return p.pid;
}

// The file the ranks' output goes to: beside the results file the ranks write
// (--out FILE: FILE.ranks.log), else in the temporary folder.
std::string rank_log_path(const LaunchOptions& o) {
  for (std::size_t i = 0; i + 1 < o.args.size(); ++i)
    if (o.args[i] == "--out") return o.args[i + 1] + ".ranks.log";
  for (const auto& a : o.args)
    if (a.rfind("--out=", 0) == 0) return a.substr(6) + ".ranks.log";
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/optbench-launch-" + std::to_string(::getpid()) + ".ranks.log";
}

std::string rank_list(const std::vector<Child>& children) {
  std::string s;
  for (const auto& c : children)
    if (!c.exited) s += (s.empty() ? "" : ", ") + std::to_string(c.rank);
  return s;
}

// 124 after a timeout; the first failing rank's status; after an interrupt the
// worst rank's, else 130; 0 when every rank exited 0.
int exit_code(const std::vector<Child>& children, bool timed_out, int failed, bool interrupted) {
  if (timed_out) return 124;
  if (failed != 0) return failed;
  if (interrupted) {
    int code = 0;
    for (const auto& c : children) code = std::max(code, exit_code_of_wait_status(c.status));
    return code != 0 ? code : 130;
  }
  return 0;
}

}  // namespace

int find_free_port(const std::string& addr) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = 0;
  if (::inet_pton(AF_INET, addr.c_str(), &a.sin_addr) != 1) a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("cannot find a free port on " + addr + ": " + why);
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

int exit_code_of_wait_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

namespace {

// The launcher's watch over its ranks: what it has done to them and why.
struct Supervision {
  const LaunchOptions& o;
  std::vector<Child>& children;
  Clock::time_point t0 = Clock::now();
  bool stopping = false, killed = false, timed_out = false, interrupted = false;
  int first_failure = 0;
  std::string failure = {};  // the first rank to fail, in words
  Clock::time_point kill_at{};
  int forwarded = 0;  // signals passed on so far

  // SIGCONT after the signal: a stopped rank (SIGSTOP) acts on it, closing its
  // results file, instead of waiting for SIGKILL.
  void signal_running(int sig) {
    for (auto& c : children)
      if (!c.exited) {
        ::kill(c.pid, sig);
        ::kill(c.pid, SIGCONT);
      }
  }

  void stop_others() {
    signal_running(SIGTERM);
    stopping = true;
    kill_at = Clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(o.grace_s * 1000));
  }

  // A Ctrl-C or SIGTERM to the launcher goes to every rank.
  void forward_signals() {
    while (forwarded < g_signal_count) {
      ++forwarded;
      interrupted = true;
      signal_running(g_signal);
    }
  }

  // Ranks that exited; the first to fail stops the others.
  void reap() {
    int status = 0;
    for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) {
      for (auto& c : children) {
        if (c.pid != pid) continue;
        c.exited = true;
        c.status = status;
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (ok || stopping || interrupted) continue;
        first_failure = exit_code_of_wait_status(status);
        for (int s = 0; s < 2; ++s)  // its last words first: its pipes may still hold them
          if (c.fd[s] >= 0) emit(c, s, false);
        failure = "rank " + std::to_string(c.rank) + " " + describe_wait_status(status) +
                  (c.last_said.empty() ? "" : " (its last line: " + c.last_said + ")");
        const std::string others = rank_list(children);
        say(failure + (others.empty() ? "" : "; stopping the other ranks (" + others + ")"));
        stop_others();
      }
    }
  }

  // --timeout, then the grace between SIGTERM and SIGKILL.
  void enforce_deadlines() {
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!stopping && o.timeout_s > 0 && elapsed > o.timeout_s) {
      timed_out = true;
      say("timed out after " + std::to_string(static_cast<long long>(o.timeout_s)) + " s with rank(s) " +
          rank_list(children) + " still running; stopping them");
      stop_others();
    }
    if (stopping && !killed && Clock::now() > kill_at) {
      say("rank(s) " + rank_list(children) + " did not stop within " +
          std::to_string(static_cast<long long>(o.grace_s)) + " s of SIGTERM; killing them");
      for (auto& c : children)
        if (!c.exited) ::kill(c.pid, SIGKILL);
      killed = true;
    }
  }

  int code() const {
    return exit_code(children, timed_out, failure.empty() ? 0 : (first_failure != 0 ? first_failure : 1), interrupted);
  }

  // One line: how the launch ended and where every rank's output is.
  void report(int code, RankLog& log) const {
    const std::string where = log.file ? "; every rank's output: " + log.path : "";
    if (code == 0) {
      log.file.close();
      std::remove(log.path.c_str());
    } else if (timed_out) {
      say("failed: timed out after " + std::to_string(static_cast<long long>(o.timeout_s)) + " s" + where);
    } else if (!failure.empty()) {
      say("failed: " + failure + " (the first rank to fail; the others were stopped)" + where);
    } else {
      say("interrupted" + where);
    }
  }
};

// What the ranks wrote just before exiting, then their pipes closed.
void drain(std::vector<Child>& children) {
  const auto drain_until = Clock::now() + std::chrono::seconds(2);
  for (;;) {
    bool open = false;
    for (const auto& c : children) open = open || c.fd[0] >= 0 || c.fd[1] >= 0;
    if (!open || Clock::now() > drain_until) break;
    pump(children, 50);
  }
  for (auto& c : children)
    for (int s = 0; s < 2; ++s)
      if (c.fd[s] >= 0) {
        emit(c, s, true);
        ::close(c.fd[s]);
      }
}

}  // namespace

int launch(const LaunchOptions& o) {
  if (o.nproc < 1) throw std::invalid_argument("--nproc must be at least 1");
  if (o.args.empty()) throw std::invalid_argument("nothing to launch: give the optbench arguments after --");
  const int port = o.master_port > 0 ? o.master_port : find_free_port(o.master_addr);

  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll returns so the signal is forwarded at once
  struct sigaction old_int{}, old_term{};
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  ::signal(SIGPIPE, SIG_IGN);

  say("starting " + std::to_string(o.nproc) + " rank(s) with MASTER_ADDR=" + o.master_addr +
      " MASTER_PORT=" + std::to_string(port) +
      (std::getenv("OMP_NUM_THREADS") ? "" : ", OMP_NUM_THREADS=" + std::to_string(default_threads(o.nproc))) +
      (o.timeout_s > 0 ? ", timeout " + std::to_string(static_cast<long long>(o.timeout_s)) + " s" : ""));
  RankLog log;
  log.path = rank_log_path(o);
  log.file.open(log.path, std::ios::trunc);
  if (!log.file) say("cannot write " + log.path + "; the ranks' library logs are dropped");
  g_log = &log;
  struct Unset {
    ~Unset() { g_log = nullptr; }  // however launch ends: the file is this frame's
  } unset;
  std::vector<Child> children(static_cast<std::size_t>(o.nproc));
  for (int r = 0; r < o.nproc; ++r) spawn_rank(o, r, port, children[static_cast<std::size_t>(r)]);

  Supervision watch{o, children};
  for (;;) {
    watch.forward_signals();
    pump(children, 100);
    watch.reap();
    if (rank_list(children).empty()) break;
    watch.enforce_deadlines();
  }
  drain(children);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  const int code = watch.code();
  watch.report(code, log);
  return code;
}

}  // namespace optbench::distributed
