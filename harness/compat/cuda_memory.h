#pragma once
// Caching-allocator statistics. c10::cuda::CUDACachingAllocator::DeviceStats is
// an alias of c10::CachingDeviceAllocator::DeviceStats (StatType moved in 2.x);
// the per-pool arrays keep the aggregate pool at index 0, so that is what is read.
#include <c10/cuda/CUDACachingAllocator.h>

#include "harness/device.h"

namespace optbench::compat {

constexpr std::size_t kAggregatePool = 0;  // StatType::AGGREGATE in every version

inline MemoryPeak allocator_current(int device) {
  const auto s = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  return {s.allocated_bytes[kAggregatePool].current, s.reserved_bytes[kAggregatePool].current};
}

inline MemoryPeak allocator_peak(int device) {
  const auto s = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  return {s.allocated_bytes[kAggregatePool].peak, s.reserved_bytes[kAggregatePool].peak};
}

inline void allocator_reset_peak(int device) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
}

}  // namespace optbench::compat
