#pragma once
// Where a variant lives while its case runs, behind one interface: in this
// process (the default), or in a child process of its own (harness/isolation/)
// when its speed or one-time cost depends on process-wide state (cuDNN plan
// caches, the caching allocator, lazy module loading). The case runner drives
// both the same way: prepare once, then samples interleaved with other variants.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/case_result.h"
#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/profiling/kineto_window.h"
#include "harness/warmup.h"

namespace optbench {

struct PrepareSpec {
  TimingMode mode = TimingMode::batched;
  bool hold_stream = false;
  double warmup_min_s = 0.2, warmup_max_s = 2.0;
  double target_sample_s = 2e-3;
  std::int64_t max_iters = 100000;
};

struct Prepared {
  std::string status = "ok";  // ok | oom | error
  std::string error;
  WarmupResult warmup;
  std::int64_t iters = 1;
  std::optional<MemoryPeak> memory;  // the variant's own peak over build and warm-up
  double build_s = 0;                // building the workload (model, data), before its first step
};

class VariantRunner {
 public:
  virtual ~VariantRunner() = default;
  // Builds the variant, runs its first step (timed alone) and warms it up.
  virtual Prepared prepare(const PrepareSpec& spec) = 0;
  // One sample of `iters` steps; throws when the variant fails.
  virtual Sample sample(std::int64_t iters, TimingMode mode) = 0;
  virtual nlohmann::json metrics() = 0;
  // A window of steps under the profiler, after the timed rounds: its breakdown
  // (harness/profiling/), or why it has none; throws when the variant fails.
  virtual BreakdownRecord profiled_window(const profiling::WindowRequest& r) = 0;
  // The live workload for verification; null when it lives in another process.
  virtual Workload* workload() = 0;
  // "shared": this process, after whatever ran before; "fresh": a process of its own.
  virtual const char* process() const = 0;
};

// The variant built and stepped in this process, on `backend`.
std::unique_ptr<VariantRunner> make_in_process_runner(const Variant& v, DeviceBackend& backend);

// What crosses the pipe to a worker process (harness/isolation/).
nlohmann::json to_json(const PrepareSpec& p);
PrepareSpec prepare_spec_from_json(const nlohmann::json& j);
TimingMode timing_mode_from(const std::string& name);  // "batched" | "sync"
nlohmann::json to_json(const Sample& s);
Sample sample_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Prepared& p);
Prepared prepared_from_json(const nlohmann::json& j);

// First line of an exception's message: LibTorch's carry long C++ backtraces.
std::string first_line(const std::string& what);

}  // namespace optbench
