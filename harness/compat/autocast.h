#pragma once
// Autocast switches, and the RAII guard C++ lacks. The guard does what Python's
// torch.autocast does: save, set, bump the nesting count, and on exit clear the
// cast cache when the outermost guard ends (stale low-precision copies of updated
// weights otherwise give wrong results) and restore.
#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <stdexcept>
#include <string>

namespace optbench::compat {

// What autocast can lower to: fp16 and bf16, on CUDA and on the CPU.
inline bool autocast_supports(c10::DeviceType device, c10::ScalarType dtype) {
  const bool low = dtype == c10::kHalf || dtype == c10::kBFloat16;
  return low && (device == c10::DeviceType::CUDA || device == c10::DeviceType::CPU);
}

inline bool autocast_enabled(c10::DeviceType d) { return at::autocast::is_autocast_enabled(d); }
inline void set_autocast_enabled(c10::DeviceType d, bool on) { at::autocast::set_autocast_enabled(d, on); }
inline c10::ScalarType autocast_dtype(c10::DeviceType d) { return at::autocast::get_autocast_dtype(d); }
inline void set_autocast_dtype(c10::DeviceType d, c10::ScalarType t) { at::autocast::set_autocast_dtype(d, t); }

class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, bool enabled = true)
      : device_(device),
        prev_enabled_(autocast_enabled(device)),
        prev_dtype_(autocast_dtype(device)),
        prev_cache_(at::autocast::is_autocast_cache_enabled()) {
    if (enabled && !autocast_supports(device, dtype))
      throw std::invalid_argument(std::string("autocast to ") + c10::toString(dtype) + " is not supported on " +
                                  c10::DeviceTypeName(device) + " by autocast");
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
