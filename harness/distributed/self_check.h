#pragma once
// `optbench ddp-check` (hidden; run it under `torchrun --no-python --nproc-per-node N`): the
// DDP implementation's self-check across the launched ranks. The implementation
// lives with its experiment (workloads/ddp/), which registers the check here;
// the CLI only parses the options and calls it.
#include <cstdint>
#include <string>

#include "harness/device.h"

namespace optbench::distributed {

struct SelfCheckOptions {
  DeviceKind device = DeviceKind::cpu;
  int steps = 3;
  std::int64_t bucket_bytes = 1024;  // several buckets for the tiny model
  double tolerance = 1e-5;
};

// Returns the process exit code (0 ok, 1 a check failed or a collective raised).
using SelfCheck = int (*)(const SelfCheckOptions&);

void register_ddp_check(SelfCheck check);
// Exit code 2 with a message when nothing registered one.
int run_ddp_check(const SelfCheckOptions& opts);

}  // namespace optbench::distributed
