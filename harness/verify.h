#pragma once
// Verification: the optimized variant must compute what the baseline computes,
// within the tolerance of its precision. Failures are recorded, never hidden.
#include <ATen/core/Tensor.h>

#include <string>

#include "harness/experiment.h"

namespace optbench {

struct OutputComparison {
  bool passed = false;
  double max_abs_err = 0;
  double max_rel_err = 0;
  std::string message;  // why it failed
};

// allclose semantics: |a - b| <= atol + rtol * |b| everywhere, NaNs never equal.
OutputComparison compare_outputs(const at::Tensor& baseline, const at::Tensor& variant, const Tolerance& tol);

}  // namespace optbench
