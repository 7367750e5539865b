#pragma once
// Verification: the optimized variant must compute what the baseline computes,
// within the tolerance of its precision. Failures are recorded, never hidden.
#include <ATen/core/Tensor.h>

#include <string>

#include <nlohmann/json.hpp>

#include "harness/experiment.h"

namespace optbench {

struct Comparison {
  bool passed = false;
  double max_abs_err = 0;
  double max_rel_err = 0;
  std::string message;  // why it failed
};

// allclose semantics: |a - b| <= atol + rtol * |b| everywhere, NaNs never equal.
Comparison compare_outputs(const at::Tensor& baseline, const at::Tensor& variant, const Tolerance& tol);
nlohmann::json to_json(const Comparison& c, const Tolerance& tol);

}  // namespace optbench
