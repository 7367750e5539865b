#pragma once
// A device whose clock is simulated: steps add their nominal duration (with
// seeded noise) to a counter, and the backend reports that instead of real time,
// for samples, warm-up and caps alike. Runner logic (stopping, interleaving,
// failures, budgets) is then tested exactly, whatever the machine's speed. A
// simulated caching allocator (freed bytes stay reserved for reuse until the
// cache is emptied) stands in for the CUDA one.
#include <algorithm>
#include <atomic>
#include <random>

#include "harness/device.h"
#include "harness/experiment.h"
#include "harness/measure_config.h"
#include "harness/sample_sequence.h"

namespace optbench::testing {

struct SimClock {
  double now = 0;
};

struct SimAllocator {
  std::int64_t allocated = 0, reserved = 0, peak_allocated = 0, peak_reserved = 0;
  void allocate(std::int64_t n) {
    allocated += n;
    reserved = std::max(reserved, allocated);
    peak_allocated = std::max(peak_allocated, allocated);
    peak_reserved = std::max(peak_reserved, reserved);
  }
  void free(std::int64_t n) { allocated -= n; }
};

class FakeBackend final : public DeviceBackend {
 public:
  explicit FakeBackend(SimClock& clock, SimAllocator* memory = nullptr) : clock_(clock), mem_(memory) {}
  DeviceKind kind() const override { return kind_; }
  // What the backend says it is (the budget gate counts a CUDA process's start).
  void pose_as(DeviceKind k) { kind_ = k; }
  void synchronize() override {}
  double now() const override { return clock_.now; }
  // The CUDA backend's sequence (harness/sample_sequence.h) on the simulated
  // clock, with the simulated NVML reads as its telemetry.
  Sample time(const std::function<void()>& step, std::int64_t iters, TimingMode mode) override {
    SampleOps ops;
    ops.host_now = [this] { return clock_.now; };
    ops.begin = ops.wait_step = ops.end = ops.wait_end = [] {};
    ops.step = step;
    ops.telemetry = [this](Sample& s) {
      if (reasons_) s.clock_reasons = reasons_();
      if (smi_) smi_(s);
    };
    Sample s = run_sample(ops, iters, mode);
    if (events_) {  // as the CUDA backend's events and page-fault count would
      s.device_s = s.host_s;
      s.minor_faults = 1.0;
    }
    return s;
  }
  // Record a device time and page faults with every sample, as the CUDA backend does.
  void record_events(bool on) { events_ = on; }
  std::optional<MemoryPeak> current_memory() override {
    if (!mem_) return std::nullopt;
    return MemoryPeak{mem_->allocated, mem_->reserved};
  }
  std::optional<MemoryPeak> peak_memory() override {
    if (!mem_) return std::nullopt;
    return MemoryPeak{mem_->peak_allocated, mem_->peak_reserved};
  }
  void reset_peak_memory() override {
    if (mem_) {
      mem_->peak_allocated = mem_->allocated;
      mem_->peak_reserved = mem_->reserved;
    }
  }
  void release_cached_memory() override {
    if (mem_) mem_->reserved = mem_->allocated;
  }
  // NVML's clock-event reasons as the next samples would read them.
  void set_clock_reasons(std::function<std::uint64_t()> f) { reasons_ = std::move(f); }
  // NVML's utilisation, power and clock reads for the next samples (nvidia-smi's figures).
  void set_smi(std::function<void(Sample&)> f) { smi_ = std::move(f); }

 private:
  DeviceKind kind_ = DeviceKind::cpu;
  bool events_ = false;
  SimClock& clock_;
  SimAllocator* mem_;
  std::function<std::uint64_t()> reasons_;
  std::function<void(Sample&)> smi_;
};

// A step of nominal length `seconds` with multiplicative noise; optionally
// throws (like an OOM) after `fail_after` steps, and allocates `step_bytes` on
// the simulated device for the step's duration.
class FakeWork final : public Workload {
 public:
  FakeWork(SimClock& clock, double seconds, double noise, std::uint64_t seed, long fail_after = -1, double value = 1.0,
           SimAllocator* memory = nullptr, std::int64_t step_bytes = 0)
      : clock_(clock),
        seconds_(seconds),
        noise_(noise),
        rng_(seed),
        fail_after_(fail_after),
        value_(value),
        mem_(memory),
        step_bytes_(step_bytes) {}
  void step() override;
  at::Tensor output() override;

 private:
  SimClock& clock_;
  double seconds_, noise_;
  std::mt19937_64 rng_;
  long fail_after_, steps_ = 0;
  double value_;
  SimAllocator* mem_;
  std::int64_t step_bytes_;
};

// What a case run on the fake backend needs: simulated time, the backend, a stop
// flag, and the quick profile's settings with a warm-up in simulated seconds.
struct SimulatedRun {
  SimClock clock;
  FakeBackend backend{clock};
  std::atomic<bool> stop{false};
  MeasureConfig cfg = [] {
    MeasureConfig c = measure_config_for(RunProfile::quick);
    c.warmup_min_s = 0.01;  // simulated seconds
    c.warmup_max_s = 0.1;
    c.stopping = {10, 0.05, 5.0, 2000, 0.02, 0.95};
    return c;
  }();
};

}  // namespace optbench::testing
