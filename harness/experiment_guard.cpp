#include "harness/experiment_guard.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>

namespace optbench {
namespace {

using json = nlohmann::json;

// The child's results file as it stands (written atomically by rename), or null.
json read_part(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  try {
    json d = json::parse(in);
    const auto& e = d.at("experiments");
    return e.empty() ? json(nullptr) : e.at(0);
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

std::string describe_signal(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* text = strsignal(sig);
  std::string s = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (text) s += std::string(" (") + text + ")";
  return s;
}

ChildOutcome run_guarded_child(const std::vector<std::string>& argv, const std::string& part_path,
                               const std::function<void(const json&)>& on_case, const std::atomic<bool>& stop,
                               std::size_t tail_lines) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe for an experiment's process");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot fork an experiment's process");
  if (pid == 0) {
    setpgid(0, 0);  // terminal signals reach the suite, which forwards one
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the run, even one killed with SIGKILL
    if (getppid() != parent) _exit(127);
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    execv(cargv[0], cargv.data());
    std::fprintf(stderr, "optbench: cannot start %s: %s\n", argv[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  close(out[1]);

  ChildOutcome r;
  std::deque<std::string> tail;
  std::string partial;
  std::size_t merged = 0;
  struct timespec seen_mtime {};
  bool forwarded_stop = false;

  auto keep_line = [&](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    tail.push_back(line);
    if (tail.size() > tail_lines) tail.pop_front();
  };
  auto merge_new_cases = [&](bool force) {
    struct stat st {};
    if (stat(part_path.c_str(), &st) != 0) return;
    if (!force && st.st_mtim.tv_sec == seen_mtime.tv_sec && st.st_mtim.tv_nsec == seen_mtime.tv_nsec) return;
    seen_mtime = st.st_mtim;
    json e = read_part(part_path);
    if (e.is_null()) return;
    const auto& cases = e.value("cases", json::array());
    for (; merged < cases.size(); ++merged) on_case(cases[merged]);
    r.experiment = std::move(e);
  };

  for (bool open = true; open;) {
    if (stop.load() && !forwarded_stop) {
      kill(pid, SIGINT);
      forwarded_stop = true;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ready = poll(&p, 1, 200);
    if (ready > 0) {
      char buf[4096];
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) {
        open = n < 0 && errno == EINTR;
      } else {
        partial.append(buf, static_cast<std::size_t>(n));
        for (std::size_t nl; (nl = partial.find('\n')) != std::string::npos; partial.erase(0, nl + 1))
          keep_line(partial.substr(0, nl));
      }
    } else if (ready < 0 && errno != EINTR) {
      open = false;
    }
    merge_new_cases(false);
  }
  close(out[0]);
  if (!partial.empty()) keep_line(partial);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  merge_new_cases(true);
  r.output_tail.assign(tail.begin(), tail.end());
  return r;
}

}  // namespace optbench
