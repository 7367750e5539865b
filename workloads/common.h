#pragma once
// Small helpers shared by the workloads: deterministic inputs and size labels.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdio>
#include <cstdint>
#include <string>

#include "harness/device.h"

namespace optbench::workloads {

// Same values on every variant and every run: variants must compute the same thing.
inline at::Tensor seeded_randn(at::IntArrayRef sizes, const at::TensorOptions& opts, std::uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  return at::randn(sizes, gen, at::TensorOptions().dtype(at::kFloat)).to(opts);
}

inline std::string size_label(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024 && u < 3) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, bytes == static_cast<std::int64_t>(bytes) ? "%.0f%s" : "%.1f%s", bytes, units[u]);
  return buf;
}

}  // namespace optbench::workloads
