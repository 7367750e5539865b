#pragma once
// Autocast across LibTorch versions, and the RAII guard C++ lacks. LibTorch 1.13
// names the switches per device (set_enabled for CUDA, set_cpu_enabled, and
// set_autocast_{gpu,cpu}_dtype); 2.4+ takes a DeviceType. The guard does what
// Python's torch.autocast does: save, set, bump the nesting count, and on exit
// clear the cast cache when the outermost guard ends (stale low-precision copies
// of updated weights otherwise give wrong results) and restore.
#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/version.h>

#include <stdexcept>

namespace optbench::compat {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define OPTBENCH_AUTOCAST_DEVICE_API 1
#else
#define OPTBENCH_AUTOCAST_DEVICE_API 0
#endif

// LibTorch 1.13's CPU autocast knows bfloat16 only.
inline bool autocast_supports(c10::DeviceType device, c10::ScalarType dtype) {
  if (device == c10::DeviceType::CUDA) return dtype == c10::kHalf || dtype == c10::kBFloat16;
  if (device == c10::DeviceType::CPU) return dtype == c10::kBFloat16 || (TORCH_VERSION_MAJOR >= 2 && dtype == c10::kHalf);
  return false;
}

inline bool autocast_enabled(c10::DeviceType d) {
#if OPTBENCH_AUTOCAST_DEVICE_API
  return at::autocast::is_autocast_enabled(d);
#else
  return d == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

inline void set_autocast_enabled(c10::DeviceType d, bool on) {
#if OPTBENCH_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_enabled(d, on);
#else
  if (d == c10::DeviceType::CUDA)
    at::autocast::set_enabled(on);
  else
    at::autocast::set_cpu_enabled(on);
#endif
}

inline c10::ScalarType autocast_dtype(c10::DeviceType d) {
#if OPTBENCH_AUTOCAST_DEVICE_API
  return at::autocast::get_autocast_dtype(d);
#else
  return d == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#endif
}

inline void set_autocast_dtype(c10::DeviceType d, c10::ScalarType t) {
#if OPTBENCH_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_dtype(d, t);
#else
  if (d == c10::DeviceType::CUDA)
    at::autocast::set_autocast_gpu_dtype(t);
  else
    at::autocast::set_autocast_cpu_dtype(t);
#endif
}

class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, bool enabled = true)
      : device_(device),
        prev_enabled_(autocast_enabled(device)),
        prev_dtype_(autocast_dtype(device)),
        prev_cache_(at::autocast::is_autocast_cache_enabled()) {
    if (enabled && !autocast_supports(device, dtype))
      throw std::invalid_argument(std::string("autocast to ") + c10::toString(dtype) + " is not supported on " +
                                  c10::DeviceTypeName(device) + " by this LibTorch");
    set_autocast_dtype(device, dtype);
    set_autocast_enabled(device, enabled);
    at::autocast::set_autocast_cache_enabled(true);
    at::autocast::increment_nesting();
  }
  ~AutocastGuard() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    set_autocast_enabled(device_, prev_enabled_);
    set_autocast_dtype(device_, prev_dtype_);
    at::autocast::set_autocast_cache_enabled(prev_cache_);
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  bool prev_enabled_;
  c10::ScalarType prev_dtype_;
  bool prev_cache_;
};

}  // namespace optbench::compat
