#include "harness/signals.h"

#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstring>

namespace optbench {
namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

constexpr int kSlots = static_cast<int>(AbruptSlot::count);
char g_paths[kSlots][PATH_MAX];
std::atomic<bool> g_path_set[kSlots];
std::atomic<pid_t> g_child{0};

void abrupt_cleanup() {
  if (const pid_t child = g_child.load(); child > 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
  for (int i = 0; i < kSlots; ++i)
    if (g_path_set[i].load()) ::unlink(g_paths[i]);
}

void on_signal(int sig) {
  if (g_stop.load()) {
    abrupt_cleanup();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
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
