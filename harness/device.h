#pragma once
// What the runner needs from a device, behind one interface: timing a batch of
// steps, synchronising, and memory statistics. The CPU backend is always built;
// the CUDA one only when LibTorch has CUDA.
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace optbench {

enum class DeviceKind { cpu, cuda };

DeviceKind parse_device(const std::string& s);  // "cpu" | "cuda"; throws on anything else
const char* to_string(DeviceKind d);
c10::Device torch_device(DeviceKind d);
bool cuda_compiled();   // this binary was built against a LibTorch with CUDA
bool cuda_available();  // ... and a GPU is usable now
DeviceKind best_device();
// "CPU" model or the GPU's name, as the report matches it against datasheet peaks.
std::string device_name(DeviceKind d);
// NVML facts (PCIe link, clocks) of the GPU in use; null for the CPU.
nlohmann::json gpu_nvml_info(DeviceKind d);

enum class TimingMode {
  batched,  // N back-to-back steps between two events: for asynchronous GPU work
  sync,     // each step waits for the device: for host-blocking work (pageable copies, loaders)
};
const char* to_string(TimingMode m);

struct Sample {
  double host_s = 0;               // wall time per step, device synchronised at the end
  std::optional<double> device_s;  // per step, from events on the work's stream (GPU only)
  std::int64_t iters = 1;
  // NVML, read while the sample's work runs on the GPU (not after, when it idles).
  std::optional<double> sm_clock_mhz;
  std::optional<std::uint64_t> clock_reasons;  // clocks-event (throttle) reason mask
  // What nvidia-smi would show at that moment (checklist row 12).
  std::optional<double> gpu_util_pct, memory_util_pct, power_w;
  // Minor page faults per step, the whole process's (all threads), counted
  // around the sample (harness/page_faults.h).
  std::optional<double> minor_faults;
};

struct MemoryPeak {
  std::int64_t allocated_bytes = 0;
  std::int64_t reserved_bytes = 0;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual DeviceKind kind() const = 0;
  virtual void synchronize() = 0;
  // Seconds on the clock that caps, deadlines and warm-up are judged by: the
  // steady clock; a simulated one in tests, so runner tests do not depend on the
  // speed of the machine.
  virtual double now() const;
  // Runs step() iters times and returns per-step times.
  virtual Sample time(const std::function<void()>& step, std::int64_t iters, TimingMode mode) = 0;
  // Caching-allocator statistics; nullopt where the device has none (CPU).
  virtual std::optional<MemoryPeak> current_memory() = 0;
  virtual std::optional<MemoryPeak> peak_memory() = 0;
  virtual void reset_peak_memory() {}
  virtual void release_cached_memory() {}
  // Hold the stream while a batch is queued (nvbench's blocking kernel), so only
  // execution is timed. For kernel-level cases; a no-op where it means nothing.
  virtual void hold_stream(bool) {}
};

std::unique_ptr<DeviceBackend> make_backend(DeviceKind kind);  // throws if unavailable
// The device's kind and the host clock, for a process that runs no case itself
// (the crash-isolation parent, whose experiments run in children): it opens no
// device context, which on a GPU would hold device memory beside every child's
// and make a GPU in EXCLUSIVE_PROCESS mode refuse every child. Throws where
// make_backend would (the device unavailable); time() throws.
std::unique_ptr<DeviceBackend> make_clock_backend(DeviceKind kind);

// True for an out-of-memory error from any allocator (c10::OutOfMemoryError, the
// CPU allocator's c10::Error, or the messages older builds throw), so one
// variant's OOM is recorded as "oom", not fatal.
bool is_out_of_memory(const std::exception& e);

}  // namespace optbench
