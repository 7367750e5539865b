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
    synchronize();  // the previous sample's work must not spill into this one
    const bool hold = hold_stream_ && mode == TimingMode::batched && iters <= kMaxHeldIters;
    if (hold) blocker_.block(stream.stream(), kHoldTimeoutS);
    start.record(stream);
    const auto t0 = std::chrono::steady_clock::now();
    Sample s;
    for (std::int64_t i = 0; i < iters; ++i) {
      step();
      // Clocks and throttle reasons are read while the GPU works on the sample:
      // read after it, they describe an idle GPU.
      if (i == 0 && mode == TimingMode::sync) read_clocks(s);
      if (mode == TimingMode::sync) stream.synchronize();
    }
    stop.record(stream);
    if (hold) blocker_.release();
    if (mode == TimingMode::batched) read_clocks(s);
    stop.synchronize();
    const auto t1 = std::chrono::steady_clock::now();
    if (hold && blocker_.timed_out()) {
      // The step synchronised with the host or overflowed the launch queue: stop
      // holding (the events stay valid, only enqueue latency is back in).
      std::fprintf(stderr, "optbench: blocking kernel timed out; timing without holding the stream\n");
      hold_stream_ = false;
    }
    s.iters = iters;
    s.host_s = std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(iters);
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
