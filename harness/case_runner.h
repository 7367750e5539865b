#pragma once
// Runs one case: builds its variants (in this process, or each in a process of
// its own when the case asks for isolation), warms them up, samples them
// interleaved until the stopping rule holds, verifies outputs, and returns the
// case's result object (raw samples included). Errors in one variant (out of
// memory, an exception, a dead worker) are recorded and the others go on.
#include <atomic>
#include <optional>

#include <nlohmann/json.hpp>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/isolation/child_runner.h"
#include "harness/measure_config.h"

namespace optbench {

struct CaseLimits {
  double max_time_s;                  // cap on this case's sampling (its share of a --time-budget)
  std::optional<double> deadline_s;   // on backend.now(): the run's budget ends; nothing starts after it
  std::optional<WorkerOrigin> origin;  // where worker processes find the case (needed for isolation)
};

nlohmann::json run_case(const Case& c, DeviceBackend& backend, const MeasureConfig& cfg, const CaseLimits& limits,
                        const std::atomic<bool>& stop_requested);

// Share of samples whose NVML clock-event reasons include each throttle class
// (thermal, power, other); null without reasons.
nlohmann::json throttle_shares(const std::vector<std::uint64_t>& reasons);
// Checklist row 12, what nvidia-smi would have shown while a variant was timed:
// median and min of GPU-Util, Memory-Util (%), SM clock (MHz) and power (W) over
// the samples that read them (NVML, once per sample while the GPU works on it);
// an empty object where none was read (no NVML, a CPU run).
nlohmann::json nvidia_smi_summary(const std::vector<double>& gpu_util, const std::vector<double>& memory_util,
                                  const std::vector<double>& sm_clock, const std::vector<double>& power);

}  // namespace optbench
