#include "harness/device.h"

#include <c10/util/Exception.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

#if OPTBENCH_WITH_CUDA
#include "harness/cuda/cuda_backend.h"
#include "harness/nvml.h"
#endif
#include "harness/page_faults.h"
#include "harness/sample_sequence.h"

namespace optbench {

DeviceKind parse_device(const std::string& s) {
  if (s == "cpu") return DeviceKind::cpu;
  if (s == "cuda") return DeviceKind::cuda;
  throw std::invalid_argument("unknown device '" + s + "' (valid: cpu, cuda)");
}

const char* to_string(DeviceKind d) { return d == DeviceKind::cpu ? "cpu" : "cuda"; }
const char* to_string(TimingMode m) { return m == TimingMode::batched ? "batched" : "sync"; }

c10::Device torch_device(DeviceKind d) {
  return d == DeviceKind::cpu ? c10::Device(c10::kCPU) : c10::Device(c10::kCUDA, 0);
}

bool cuda_compiled() {
#if OPTBENCH_WITH_CUDA
  return true;
#else
  return false;
#endif
}

bool cuda_available() {
#if OPTBENCH_WITH_CUDA
  return cuda::device_count() > 0;
#else
  return false;
#endif
}

DeviceKind best_device() { return cuda_available() ? DeviceKind::cuda : DeviceKind::cpu; }

std::string device_name(DeviceKind d) {
#if OPTBENCH_WITH_CUDA
  if (d == DeviceKind::cuda) return cuda::device_name(0);
#endif
  return d == DeviceKind::cpu ? "CPU" : "";
}

nlohmann::json gpu_nvml_info(DeviceKind d) {
#if OPTBENCH_WITH_CUDA
  if (d == DeviceKind::cuda) return nvml::device_environment(cuda::pci_bus_id(0));
#endif
  (void)d;
  return nullptr;
}

double DeviceBackend::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {

// Host clock only; the device is the host, so there is nothing to synchronise.
class CpuBackend final : public DeviceBackend {
 public:
  DeviceKind kind() const override { return DeviceKind::cpu; }
  void synchronize() override {}
  Sample time(const std::function<void()>& step, std::int64_t iters, TimingMode mode) override {
    SampleOps ops;
    ops.host_now = steady_now_s;
    ops.begin = ops.wait_step = ops.end = ops.wait_end = [] {};
    ops.step = step;
    ops.telemetry = [](Sample&) {};
    ops.page_faults = minor_page_faults;
    return run_sample(ops, iters, mode);
  }
  std::optional<MemoryPeak> current_memory() override { return std::nullopt; }
  std::optional<MemoryPeak> peak_memory() override { return std::nullopt; }
};

class ClockBackend final : public DeviceBackend {
 public:
  explicit ClockBackend(DeviceKind kind) : kind_(kind) {}
  DeviceKind kind() const override { return kind_; }
  void synchronize() override {}
  Sample time(const std::function<void()>&, std::int64_t, TimingMode) override {
    throw std::logic_error("a clock-only backend times nothing: this process runs no case");
  }
  std::optional<MemoryPeak> current_memory() override { return std::nullopt; }
  std::optional<MemoryPeak> peak_memory() override { return std::nullopt; }

 private:
  DeviceKind kind_;
};

void require_device(DeviceKind kind) {
  if (kind == DeviceKind::cpu) return;
#if OPTBENCH_WITH_CUDA
  if (!cuda_available()) throw std::runtime_error("no CUDA device is visible (CUDA_VISIBLE_DEVICES, driver?)");
#else
  throw std::runtime_error("this optbench was built against a LibTorch without CUDA; use --device cpu");
#endif
}

}  // namespace

std::unique_ptr<DeviceBackend> make_backend(DeviceKind kind) {
  require_device(kind);
  if (kind == DeviceKind::cpu) return std::make_unique<CpuBackend>();
#if OPTBENCH_WITH_CUDA
  return cuda::make_cuda_backend();
#else
  return nullptr;  // unreachable: require_device threw
#endif
}

std::unique_ptr<DeviceBackend> make_clock_backend(DeviceKind kind) {
  require_device(kind);
  return std::make_unique<ClockBackend>(kind);
}

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
  // The CUDA caching allocator's message, and the CPU allocator's: LibTorch's
  // DefaultCPUAllocator throws a plain c10::Error, "DefaultCPUAllocator: can't
  // allocate memory: you tried to allocate N bytes. Error code 12 (Cannot
  // allocate memory)" (older builds: "not enough memory").
  const char* what = e.what();
  for (const char* text :
       {"out of memory", "Out of memory", "can't allocate memory", "DefaultCPUAllocator: not enough memory"})
    if (std::strstr(what, text)) return true;
  return false;
}

}  // namespace optbench
