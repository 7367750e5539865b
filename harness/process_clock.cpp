#include "harness/process_clock.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace optbench {
namespace {

double steady_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds since this process started: /proc/self/stat's start time (field 22,
// clock ticks after boot) against CLOCK_BOOTTIME. Falls back to "now" (the
// first call) where /proc is missing.
double seconds_since_start() {
  std::ifstream f("/proc/self/stat");
  std::string stat;
  if (!std::getline(f, stat)) return 0;
  // The command name (field 2) may hold spaces; fields after it follow ')'.
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i < 22 && rest >> field; ++i) {
  }
  unsigned long long start_ticks = 0;
  if (!(rest >> start_ticks)) return 0;
  timespec boot{};
  if (clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return 0;
  const double up = static_cast<double>(boot.tv_sec) + static_cast<double>(boot.tv_nsec) * 1e-9;
  const double since = up - static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return since > 0 ? since : 0;
}

}  // namespace

double process_start_s() {
  static const double start = steady_now() - seconds_since_start();
  return start;
}

}  // namespace optbench
