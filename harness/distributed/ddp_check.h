#pragma once
// `optbench ddp-check` (hidden; run it under `optbench launch --nproc N`): a
// self-check of the DDP wrapper on whatever group the environment describes
// (a group of one without a launcher). Every rank starts from different weights;
// after the broadcast they must be rank 0's. Each step every rank trains on its
// own batch; the averaged gradients must be bit-identical on every rank and
// equal (1e-5, normalised) to one process training on all ranks' batches
// concatenated, and so must the weights after the SGD step. One parameter is
// left unused, and small buckets force several all-reduces, some launched from
// the hooks while backward is still running.
#include <cstdint>

#include "harness/device.h"

namespace optbench::distributed {

struct CheckOptions {
  DeviceKind device = DeviceKind::cpu;
  int steps = 3;
  std::int64_t bucket_bytes = 1024;  // several buckets for the tiny model
  double tolerance = 1e-5;
};

// Prints one line per rank; returns the exit code (0 ok, 1 a check failed or a
// collective raised).
int run_ddp_check(const CheckOptions& opts);

}  // namespace optbench::distributed
