#include "harness/signals.h"

#include <csignal>

namespace optbench {
namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

void on_signal(int sig) {
  if (g_stop.load()) {
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

}  // namespace optbench
