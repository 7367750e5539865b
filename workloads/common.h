#pragma once
// Small helpers shared by the workloads: deterministic inputs and size labels.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/experiment.h"

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

// Variants whose outputs cannot be compared with each other (different shapes)
// check themselves against a float64 reference of their own inputs instead.
class CheckedAgainstFp64 {
 public:
  virtual ~CheckedAgainstFp64() = default;
  // max |out - ref| / max |ref| over what the workload checks.
  virtual double error_vs_fp64() = 0;
};

inline double normalised_error(const at::Tensor& out, const at::Tensor& ref) {
  const auto r = ref.to(at::kDouble);
  const double scale = std::max(r.abs().max().item<double>(), 1e-30);
  return (out.to(at::kDouble) - r).abs().max().item<double>() / scale;
}

// The worst per-tensor normalised difference between two gradient lists
// (max |a - ref| / max |ref| per tensor). A tensor that is exactly zero in the
// reference must be zero here too; NaN comes out as the worst.
inline double worst_grad_error(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& ref) {
  TORCH_CHECK(a.size() == ref.size(), "different parameter lists");
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double scale = ref[i].abs().max().item<double>();
    const double diff = (a[i] - ref[i]).abs().max().item<double>();
    const double err = scale > 0 ? diff / scale : (diff > 0 ? INFINITY : 0.0);
    if (!(err <= worst)) worst = err;
  }
  return worst;
}

// A Case::verify that holds every variant to `tolerance` against float64.
inline std::function<std::string(std::vector<Workload*>&)> verify_against_fp64(double tolerance) {
  return [tolerance](std::vector<Workload*>& ws) -> std::string {
    for (Workload* w : ws) {
      auto* c = dynamic_cast<CheckedAgainstFp64*>(w);
      if (!c) return "workload cannot check itself against float64";
      const double err = c->error_vs_fp64();
      if (!(err <= tolerance))
        return "error vs float64 " + std::to_string(err) + " exceeds " + std::to_string(tolerance);
    }
    return "";
  };
}

}  // namespace optbench::workloads
