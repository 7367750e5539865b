// GPU checks of the harness itself (label "gpu"; they skip without a GPU, so the
// file compiles and runs everywhere): event timing scales with work, holding the
// stream hides enqueue latency rather than adding time, sync mode covers
// host-blocking copies, allocator statistics see a known allocation, and a
// variant that runs out of memory while being prepared leaves the device free
// for the variants after it; NVML records what nvidia-smi would show; and a
// profiled window leaves no cost behind for the cases timed after it.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "harness/device.h"
#include "harness/profiling/kineto_window.h"
#include "harness/warmup.h"

using namespace optbench;

namespace {

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    backend_ = make_backend(DeviceKind::cuda);
  }
  std::unique_ptr<DeviceBackend> backend_;
};

// The median of `samples` timings of `iters` steps: by the device's events, or
// (on_host) by the host clock, which sees launch time.
double median_s(DeviceBackend& b, const std::function<void()>& step, std::int64_t iters, int samples, bool on_host) {
  std::vector<double> xs;
  for (int i = 0; i < samples; ++i) {
    const auto t = b.time(step, iters, TimingMode::batched);
    xs.push_back(on_host ? t.host_s : *t.device_s);
  }
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

double median_device_s(DeviceBackend& b, const std::function<void()>& step, std::int64_t iters, int samples = 7) {
  return median_s(b, step, iters, samples, false);
}

}  // namespace

TEST_F(Gpu, EventTimePerStepIsIndependentOfBatchLength) {
  const auto opts = at::TensorOptions().device(at::kCUDA).dtype(at::kHalf);
  auto a = at::randn({2048, 2048}, opts), b = at::randn({2048, 2048}, opts), c = at::empty({2048, 2048}, opts);
  auto step = [&] { at::mm_out(c, a, b); };
  warm_up(*backend_, step, TimingMode::batched, 0.2, 2.0);
  const double t10 = median_device_s(*backend_, step, 10), t40 = median_device_s(*backend_, step, 40);
  EXPECT_NEAR(t40 / t10, 1.0, 0.05) << "per-step times " << t10 << " vs " << t40;
}

TEST_F(Gpu, HoldingTheStreamHidesEnqueueLatencyOfTinyKernels) {
  auto x = at::zeros({1}, at::TensorOptions().device(at::kCUDA));
  auto step = [&] { x.add_(1); };
  warm_up(*backend_, step, TimingMode::batched, 0.1, 1.0);
  const double free_running = median_device_s(*backend_, step, 200);
  backend_->hold_stream(true);
  const double held = median_device_s(*backend_, step, 200);
  backend_->hold_stream(false);
  // Held, the events bracket back-to-back execution only: never slower, and
  // for a kernel this small, faster than the host can enqueue it.
  EXPECT_LE(held, free_running * 1.05);
  EXPECT_LT(held, 20e-6);
}

TEST_F(Gpu, SyncModeTimesAHostBlockingCopy) {
  const std::int64_t n = 64 << 20;  // 256 MiB of floats
  auto host = at::ones({n}, at::TensorOptions().dtype(at::kFloat));
  auto dev = at::empty({n}, at::TensorOptions().device(at::kCUDA));
  const Sample s = backend_->time([&] { dev.copy_(host); }, 2, TimingMode::sync);
  ASSERT_TRUE(s.device_s.has_value());
  // At most ~64 GB/s over PCIe Gen5 x16: a 256 MiB copy cannot take under 4 ms.
  EXPECT_GT(s.host_s, 4e-3);
  EXPECT_GT(*s.device_s, 0.0);
}

TEST_F(Gpu, AllocatorPeakSeesAKnownAllocation) {
  backend_->release_cached_memory();
  const auto before = backend_->current_memory();
  backend_->reset_peak_memory();
  {
    auto t = at::empty({256 << 20}, at::TensorOptions().device(at::kCUDA).dtype(at::kByte));
  }
  const auto peak = backend_->peak_memory();
  ASSERT_TRUE(before && peak);
  EXPECT_GE(peak->allocated_bytes - before->allocated_bytes, 256 << 20);
  EXPECT_GE(peak->reserved_bytes, peak->allocated_bytes);
}

namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

at::Tensor gib_on_device() { return at::empty({kGiB}, at::TensorOptions().device(at::kCUDA).dtype(at::kByte)); }

struct Tiny final : Workload {
  at::Tensor t = at::zeros({1024}, at::TensorOptions().device(at::kCUDA));
  void step() override { t.add_(1); }
};

// Keeps what it allocates as its own state (like a batch too large for the
// device) and runs out of memory in its first step, mid-way through warm-up.
struct FillsTheDevice final : Workload {
  explicit FillsTheDevice(std::shared_ptr<std::int64_t> n) : filled(std::move(n)) {}
  void step() override {
    for (;;) {
      held.push_back(gib_on_device());
      *filled = static_cast<std::int64_t>(held.size());
    }
  }
  std::vector<at::Tensor> held;
  std::shared_ptr<std::int64_t> filled;
};

struct Holds final : Workload {
  explicit Holds(std::int64_t gib) {
    for (std::int64_t i = 0; i < gib; ++i) held.push_back(gib_on_device());
  }
  void step() override { held.front().narrow(0, 0, 1024).add_(1); }
  std::vector<at::Tensor> held;
};

}  // namespace

TEST_F(Gpu, OutOfMemoryWhilePreparingAVariantLeavesTheDeviceToTheNextOnes) {
  // The batch-size sweep relies on this: variants are all built before
  // sampling, so a too-large one must give back everything it took (its state
  // and the allocator's cache) when it fails, or the next ones fail too.
  auto filled = std::make_shared<std::int64_t>(0);
  Case c;
  c.name = "oom_release";
  c.variants = {{"tiny", "", [] { return std::make_unique<Tiny>(); }},
                {"fills_the_device", "", [filled] { return std::make_unique<FillsTheDevice>(filled); }},
                {"needs_most_of_it", "",
                 [filled] { return std::make_unique<Holds>(std::max<std::int64_t>(1, *filled * 8 / 10)); }}};
  std::atomic<bool> stop{false};
  const auto r =
      to_json(run_case(c, *backend_, measure_config_for(RunProfile::quick), CaseLimits{1.0, std::nullopt}, stop));
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["variants"][1]["status"], "oom");
  ASSERT_GE(*filled, 4) << "the device should hold several GiB";
  ASSERT_EQ(r["variants"][2]["status"], "ok") << r["variants"][2].value("error", "");
  // Its peak is its own allocation, not the failed variant's leftovers.
  const double peak = r["variants"][2]["memory"]["peak_allocated_bytes"].get<double>();
  EXPECT_GE(peak, static_cast<double>(*filled * 8 / 10 * kGiB));
  EXPECT_LT(peak, static_cast<double>((*filled * 8 / 10 + 1) * kGiB));
}

// Checklist row 12 on a real driver: NVML's GPU-Util, Memory-Util, power and
// clock are read with each sample, and a variant that keeps the GPU busy shows
// a GPU-Util a watcher of nvidia-smi would recognise (percentages in range).
TEST_F(Gpu, NvidiaSmiFiguresAreRecordedPerVariant) {
  struct Busy final : Workload {
    at::Tensor a = at::randn({2048, 2048}, at::TensorOptions().device(at::kCUDA));
    void step() override { a = at::matmul(a, a).tanh_(); }
  };
  Case c;
  c.name = "smi";
  c.variants = {{"busy", "", [] { return std::make_unique<Busy>(); }},
                {"busy_too", "", [] { return std::make_unique<Busy>(); }}};
  std::atomic<bool> stop{false};
  const auto r =
      to_json(run_case(c, *backend_, measure_config_for(RunProfile::quick), CaseLimits{2.0, std::nullopt}, stop));
  ASSERT_EQ(r["status"], "ok");
  const auto& v = r["variants"][0];
  if (!v.contains("nvidia_smi")) GTEST_SKIP() << "NVML gave no utilisation here";
  const auto& smi = v["nvidia_smi"];
  for (const char* k : {"gpu_util_pct", "memory_util_pct"}) {
    ASSERT_TRUE(smi.contains(k)) << smi.dump();
    EXPECT_GE(smi[k]["min"].get<double>(), 0.0);
    EXPECT_LE(smi[k]["median"].get<double>(), 100.0);
  }
  EXPECT_GT(smi["gpu_util_pct"]["median"].get<double>(), 50.0) << "back-to-back matmuls should keep it busy";
  if (smi.contains("power_w")) {
    EXPECT_GT(smi["power_w"]["median"].get<double>(), 0.0);
  }
}

// A case's profiled window runs after its rounds, in the process that times the
// cases after it. Kineto leaves CUPTI attached once profiling ends unless
// TEARDOWN_CUPTI=1 (libkineto's CuptiActivityApi::teardownContext), and
// attached it has been reported to slow training 10-20% (pytorch/pytorch#144455):
// launch-bound steps timed after a window would then be slower than before it,
// in the first process only (further processes take no window). This measures
// a launch-bound step's host time before and after one window.
TEST_F(Gpu, AProfiledWindowLeavesLaunchBoundStepsAsFastAsBefore) {
  auto x = at::zeros({1}, at::TensorOptions().device(at::kCUDA));
  auto step = [&] {
    for (int i = 0; i < 50; ++i) x.add_(1);
  };
  auto host_median = [&] { return median_s(*backend_, step, 20, 9, true); };
  warm_up(*backend_, step, TimingMode::batched, 0.2, 2.0);
  const double before = host_median();
  profiling::WindowRequest r;
  r.steps = 5;
  const auto figures = profiling::profile_window(step, *backend_, r);
  ASSERT_TRUE(figures.device_events && *figures.device_events > 0);
  warm_up(*backend_, step, TimingMode::batched, 0.2, 2.0);
  const double after = host_median();
  EXPECT_LT(after / before, 1.05) << "host time per step " << before * 1e6 << " us before the window, " << after * 1e6
                                  << " us after it";
}
