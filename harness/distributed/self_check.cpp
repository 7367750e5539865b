#include "harness/distributed/self_check.h"

#include <cstdio>

namespace optbench::distributed {
namespace {
SelfCheck g_check = nullptr;
}

void register_ddp_check(SelfCheck check) { g_check = check; }

int run_ddp_check(const SelfCheckOptions& opts) {
  if (!g_check) {
    std::fprintf(stderr, "optbench ddp-check: error: this binary has no DDP self-check (built without workloads)\n");
    return 2;
  }
  return g_check(opts);
}

}  // namespace optbench::distributed
