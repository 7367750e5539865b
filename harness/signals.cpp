#include "harness/signals.h"

#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstring>
#include <ctime>

namespace optbench {
namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

constexpr int kSlots = static_cast<int>(AbruptSlot::count);
char g_paths[kSlots][PATH_MAX];
std::atomic<bool> g_path_set[kSlots];
std::atomic<pid_t> g_child{0};
std::atomic<long long> g_first_ns{0};

// A second signal this soon after the first is the same request delivered twice:
// GNU timeout (and a CI runner's job timeout) signals the child and then its
// whole process group, so the run gets SIGTERM twice within microseconds.
constexpr long long kSameRequestNs = 200'000'000;

long long monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

void abrupt_cleanup() {
  if (const pid_t child = g_child.load(); child > 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
  for (int i = 0; i < kSlots; ++i)
    if (g_path_set[i].load()) ::unlink(g_paths[i]);
}

void on_signal(int sig) {
  if (g_stop.load() && monotonic_ns() - g_first_ns.load() < kSameRequestNs) return;
  if (g_stop.load()) {
    abrupt_cleanup();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
  g_first_ns.store(monotonic_ns());
  g_stop.store(true);
}

}  // namespace

void install_stop_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

const std::atomic<bool>& stop_requested() { return g_stop; }
int stop_signal() { return g_signal; }

void set_abrupt_cleanup(AbruptSlot slot, const std::string& path) {
  const int i = static_cast<int>(slot);
  g_path_set[i].store(false);  // the handler never reads a half-copied path
  if (path.empty() || path.size() >= PATH_MAX) return;
  std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
  g_path_set[i].store(true);
}

void set_abrupt_kill(pid_t child) { g_child.store(child); }

}  // namespace optbench
