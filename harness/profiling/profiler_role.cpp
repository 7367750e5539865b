#include "harness/profiling/profiler_role.h"

#include <cstdlib>
#include <cstring>

namespace optbench::profiling {
namespace {
constexpr const char* kTimedVar = "OPTBENCH_TIMED_PROCESS";
}  // namespace

void mark_timed_process() { ::setenv(kTimedVar, "1", /*overwrite=*/1); }

bool in_timed_process() {
  const char* v = std::getenv(kTimedVar);
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace optbench::profiling
