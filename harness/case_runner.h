#pragma once
// Runs one case: builds its variants, warms them up, samples them interleaved
// until the stopping rule holds, verifies outputs, and returns the case's result
// object (raw samples included). Errors in one variant (out of memory, an
// exception) are recorded and the others go on.
#include <atomic>
#include <optional>

#include <nlohmann/json.hpp>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/measure_config.h"

namespace optbench {

struct CaseLimits {
  double max_time_s;                      // wall cap for sampling this case
  std::optional<double> sm_clock_max_mhz;  // for counting throttled samples
};

nlohmann::json run_case(const Case& c, DeviceBackend& backend, const MeasureConfig& cfg, const CaseLimits& limits,
                        const std::atomic<bool>& stop_requested);

}  // namespace optbench
