#include "harness/cuda/cuda_backend.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>

#include "harness/compat/cuda_memory.h"
#include "harness/cuda/blocking_kernel.h"
#include "harness/nvml.h"
#include "harness/page_faults.h"
#include "harness/sample_sequence.h"

namespace optbench::cuda {
namespace {

// Enough queued launches to hide enqueue cost, few enough that the launch queue
// (about 1024 entries) cannot fill while the stream is held.
constexpr std::int64_t kMaxHeldIters = 256;
constexpr double kHoldTimeoutS = 5.0;

class CudaBackend final : public DeviceBackend {
 public:
  CudaBackend() : device_(0), bus_id_(pci_bus_id(0)) {
    // Initialise CUDA and the caching allocator now: their statistics are read
    // before a case's first tensor exists, and on a process that has not touched
    // the device yet they fail with "Invalid device argument".
    (void)at::empty({1}, at::TensorOptions().device(c10::Device(c10::kCUDA, 0)));
  }

  DeviceKind kind() const override { return DeviceKind::cuda; }

  void synchronize() override {
    // Device-wide: a step may use side streams that it joins back later.
    cudaDeviceSynchronize();
  }

  Sample time(const std::function<void()>& step, std::int64_t iters, TimingMode mode) override {
    auto stream = c10::cuda::getCurrentCUDAStream(device_);
    at::cuda::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);
    const bool hold = hold_stream_ && mode == TimingMode::batched && iters <= kMaxHeldIters;
    SampleOps ops;
    ops.host_now = steady_now_s;
    ops.begin = [&] {
      synchronize();  // the previous sample's work must not spill into this one
      if (hold) blocker_.block(stream.stream(), kHoldTimeoutS);
      start.record(stream);
    };
    ops.step = step;
    ops.wait_step = [&] { stream.synchronize(); };
    ops.end = [&] {
      stop.record(stream);
      if (hold) blocker_.release();
    };
    ops.wait_end = [&] { stop.synchronize(); };
    ops.telemetry = [this](Sample& s) { read_clocks(s); };
    ops.page_faults = minor_page_faults;  // the host side of the step
    Sample s = run_sample(ops, iters, mode);
    if (hold && blocker_.timed_out()) {
      // The step synchronised with the host or overflowed the launch queue: stop
      // holding (the events stay valid, only enqueue latency is back in).
      std::fprintf(stderr, "optbench: blocking kernel timed out; timing without holding the stream\n");
      hold_stream_ = false;
    }
    s.device_s = static_cast<double>(start.elapsed_time(stop)) / 1e3 / static_cast<double>(iters);
    return s;
  }

  std::optional<MemoryPeak> current_memory() override { return compat::allocator_current(device_); }
  std::optional<MemoryPeak> peak_memory() override { return compat::allocator_peak(device_); }
  void reset_peak_memory() override { compat::allocator_reset_peak(device_); }
  void release_cached_memory() override { c10::cuda::CUDACachingAllocator::emptyCache(); }

  void hold_stream(bool hold) override { hold_stream_ = hold; }

 private:
  void read_clocks(Sample& s) const {
    s.sm_clock_mhz = nvml::sm_clock_mhz(bus_id_);
    s.clock_reasons = nvml::clock_reasons(bus_id_);
    if (const auto u = nvml::utilization(bus_id_)) {
      s.gpu_util_pct = u->gpu_pct;
      s.memory_util_pct = u->memory_pct;
    }
    s.power_w = nvml::power_w(bus_id_);
  }

  int device_;
  std::string bus_id_;
  bool hold_stream_ = false;
  BlockingKernel blocker_;
};

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

std::string pci_bus_id(int device) {
  char buf[32] = {0};
  if (cudaDeviceGetPCIBusId(buf, sizeof buf, device) != cudaSuccess) return "";
  return buf;
}

std::string device_name(int device) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return "";
  return p.name;
}

std::unique_ptr<DeviceBackend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace optbench::cuda
