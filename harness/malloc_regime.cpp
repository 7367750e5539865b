#include "harness/malloc_regime.h"

#include <malloc.h>

#include <cstdlib>
#include <string>

namespace optbench {
namespace {

// glibc's ceiling for the dynamic mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX,
// 4 MiB x sizeof(long)), also the most mallopt accepts: a block up to it comes from the heap.
constexpr long kMmapThreshold = 32L << 20;
// Freed heap memory is kept unless more than this is free at the top: no step's
// temporaries go back to the kernel to be faulted in again.
constexpr long kTrimThreshold = 1L << 30;
const char* const kMarker = "OPTBENCH_MALLOC_PINNED";

bool user_set_malloc(const std::string& tunables) {
  return tunables.find("glibc.malloc.") != std::string::npos || std::getenv("MALLOC_MMAP_THRESHOLD_") ||
         std::getenv("MALLOC_TRIM_THRESHOLD_") || std::getenv("MALLOC_TOP_PAD_") || std::getenv("MALLOC_MMAP_MAX_");
}

MallocRegime pin() {
  const char* env = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = env ? env : "";
  if (std::getenv(kMarker)) return {"optbench", tunables};  // a child: glibc applied them at its start
  if (user_set_malloc(tunables)) return {"user", tunables};
  if (const char* own = std::getenv("OPTBENCH_MALLOC"); own && std::string(own) == "default")
    return {"glibc_default", tunables};
  // Either call also turns glibc's dynamic adjustment off for the rest of the process.
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  // The same two settings for the children, which glibc applies at their start.
  const std::string pinned = "glibc.malloc.mmap_threshold=" + std::to_string(kMmapThreshold) +
                             ":glibc.malloc.trim_threshold=" + std::to_string(kTrimThreshold);
  const std::string passed = tunables.empty() ? pinned : tunables + ":" + pinned;
  setenv("GLIBC_TUNABLES", passed.c_str(), 1);
  setenv(kMarker, "1", 1);
  return {"optbench", passed};
}

}  // namespace

const MallocRegime& pin_malloc_regime() {
  static const MallocRegime r = pin();
  return r;
}

nlohmann::json to_json(const MallocRegime& r) { return {{"set_by", r.set_by}, {"glibc_tunables", r.tunables}}; }

}  // namespace optbench
