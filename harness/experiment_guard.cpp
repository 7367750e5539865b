#include "harness/experiment_guard.h"

#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>

#include "harness/scratch_dir.h"
#include "harness/signals.h"
#include "harness/subprocess.h"

namespace optbench {
namespace {

using json = nlohmann::json;

// The child's results file as it stands (written atomically by rename), or null.
json read_part(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  try {
    return json::parse(in);
  } catch (const std::exception&) {
    return nullptr;
  }
}

void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);  // its process group: the worker processes it started too
  ::kill(pid, SIGKILL);   // in case it had not made its group yet
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

double default_hang_timeout_s(double max_time_s) { return std::max(900.0, 3 * max_time_s + 300); }

std::string describe_signal(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* text = strsignal(sig);
  std::string s = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (text) s += std::string(" (") + text + ")";
  return s;
}

ChildOutcome run_guarded_child(const std::vector<std::string>& argv, const std::string& part_path,
                               const std::function<void(const json&)>& on_case, const std::atomic<bool>& stop,
                               const GuardLimits& limits, std::size_t tail_lines) {
  // Declared before the child: removed after it is reaped, however it ended.
  const ScratchDir scratch;
  SpawnOptions so;
  so.argv = argv;
  so.env = scratch.child_env();
  so.out = Stdio::pipe;
  so.err = Stdio::to_stdout;
  so.own_process_group = true;   // terminal signals reach the suite, which forwards one
  so.die_with_parent = SIGKILL;  // never outlive the run, even one killed with SIGKILL
  const Subprocess child = spawn(so);
  const pid_t pid = child.pid;
  const int out = child.out;
  // A second Ctrl-C ends this process at once: the child goes first, then its files.
  set_abrupt_kill(pid);
  set_abrupt_cleanup(AbruptSlot::child_part, part_path);
  set_abrupt_cleanup(AbruptSlot::child_temp, part_path + ".tmp-" + std::to_string(pid));

  ChildOutcome r;
  std::deque<std::string> tail;
  std::string partial;
  std::size_t merged = 0;
  struct timespec seen_mtime{};
  bool forwarded_stop = false, killed = false;
  using Clock = std::chrono::steady_clock;
  auto last_progress = Clock::now(), stop_forwarded_at = Clock::now();

  auto keep_line = [&](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    tail.push_back(line);
    if (tail.size() > tail_lines) tail.pop_front();
  };
  auto merge_new_cases = [&](bool force) {
    struct stat st{};
    if (stat(part_path.c_str(), &st) != 0) return;
    if (!force && st.st_mtim.tv_sec == seen_mtime.tv_sec && st.st_mtim.tv_nsec == seen_mtime.tv_nsec) return;
    seen_mtime = st.st_mtim;
    last_progress = Clock::now();
    json d = read_part(part_path);
    if (!d.is_object() || !d.value("experiments", json()).is_array() || d["experiments"].empty()) return;
    if (d.contains("config")) r.config = d["config"];
    json e = d["experiments"][0];
    const auto& cases = e.value("cases", json::array());
    for (; merged < cases.size(); ++merged) on_case(cases[merged]);
    r.experiment = std::move(e);
  };

  try {
    for (bool open = true; open;) {
      if (stop.load() && !forwarded_stop) {
        kill(pid, SIGINT);
        forwarded_stop = true;
        stop_forwarded_at = Clock::now();
      }
      pollfd p{out, POLLIN, 0};
      const int ready = poll(&p, 1, 200);
      if (ready > 0) {
        char buf[4096];
        const ssize_t n = read(out, buf, sizeof buf);
        if (n <= 0) {
          open = n < 0 && errno == EINTR;
        } else {
          last_progress = Clock::now();
          partial.append(buf, static_cast<std::size_t>(n));
          for (std::size_t nl; (nl = partial.find('\n')) != std::string::npos; partial.erase(0, nl + 1))
            keep_line(partial.substr(0, nl));
        }
      } else if (ready < 0 && errno != EINTR) {
        open = false;
      }
      merge_new_cases(false);
      // Killed once; the pipe closes when the group is gone.
      if (!killed && seconds_since(last_progress) > limits.hang_timeout_s) {
        r.hung = killed = true;
        kill_group(pid);
      } else if (!killed && forwarded_stop && seconds_since(stop_forwarded_at) > limits.stop_grace_s) {
        r.stop_overdue = killed = true;
        kill_group(pid);
      }
    }
  } catch (...) {
    kill_group(pid);
    close(out);
    wait_status(pid);
    set_abrupt_kill(0);
    throw;
  }
  close(out);
  if (!partial.empty()) keep_line(partial);

  const int status = wait_status(pid);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  set_abrupt_kill(0);
  merge_new_cases(true);
  r.output_tail.assign(tail.begin(), tail.end());
  return r;
}

}  // namespace optbench
