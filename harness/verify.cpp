#include "harness/verify.h"

#include <ATen/ATen.h>

namespace optbench {

OutputComparison compare_outputs(const at::Tensor& baseline, const at::Tensor& variant, const Tolerance& tol) {
  OutputComparison c;
  if (!baseline.defined() || !variant.defined()) {
    c.message = "an output is missing";
    return c;
  }
  if (baseline.sizes() != variant.sizes()) {
    c.message = "shapes differ";
    return c;
  }
  const auto b = baseline.detach().to(at::kCPU, at::kDouble);
  const auto v = variant.detach().to(at::kCPU, at::kDouble);
  const auto diff = (b - v).abs();
  if (v.isnan().any().item<bool>() != b.isnan().any().item<bool>() || v.isnan().any().item<bool>()) {
    c.message = "NaN in an output";
    return c;
  }
  c.max_abs_err = diff.numel() ? diff.max().item<double>() : 0.0;
  c.max_rel_err = diff.numel() ? (diff / b.abs().clamp_min(1e-30)).max().item<double>() : 0.0;
  const bool close = (diff <= tol.atol + tol.rtol * b.abs()).all().item<bool>();
  c.passed = close;
  if (!close) c.message = "outputs differ beyond rtol/atol";
  return c;
}

}  // namespace optbench
