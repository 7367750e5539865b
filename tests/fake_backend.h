#pragma once
// A device whose clock is simulated: steps add their nominal duration (with
// seeded noise) to a counter, and the backend reports that instead of real time.
// Runner logic (stopping, interleaving, failures) is then tested exactly.
#include <random>

#include "harness/device.h"
#include "harness/experiment.h"

namespace optbench::testing {

struct SimClock {
  double now = 0;
};

class FakeBackend final : public DeviceBackend {
 public:
  explicit FakeBackend(SimClock& clock) : clock_(clock) {}
  DeviceKind kind() const override { return DeviceKind::cpu; }
  void synchronize() override {}
  Sample time(const std::function<void()>& step, std::int64_t iters, TimingMode) override {
    const double t0 = clock_.now;
    for (std::int64_t i = 0; i < iters; ++i) step();
    Sample s;
    s.iters = iters;
    s.host_s = (clock_.now - t0) / static_cast<double>(iters);
    return s;
  }
  std::optional<MemoryPeak> current_memory() override { return std::nullopt; }
  std::optional<MemoryPeak> peak_memory() override { return std::nullopt; }

 private:
  SimClock& clock_;
};

// A step of nominal length `seconds` with multiplicative noise; optionally
// throws (like an OOM) after `fail_after` steps.
class FakeWork final : public Workload {
 public:
  FakeWork(SimClock& clock, double seconds, double noise, std::uint64_t seed, long fail_after = -1,
           double value = 1.0)
      : clock_(clock), seconds_(seconds), noise_(noise), rng_(seed), fail_after_(fail_after), value_(value) {}
  void step() override;
  at::Tensor output() override;

 private:
  SimClock& clock_;
  double seconds_, noise_;
  std::mt19937_64 rng_;
  long fail_after_, steps_ = 0;
  double value_;
};

}  // namespace optbench::testing
