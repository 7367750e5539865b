#pragma once
// AdamW three ways, the same update (decoupled weight decay, bias-corrected
// moments), for the kernel-fusion experiment (workloads/fused_optimizer.cpp):
//   per_tensor  the C++ frontend's torch::optim::AdamW: a loop over parameters,
//               several ATen ops (kernels) per tensor, as Python's for-loop
//               implementation (foreach=False);
//   foreach     multi-tensor _foreach_ ops, one call per op over every tensor,
//               as Python's default foreach implementation (_multi_tensor_adamw);
//   fused       at::_fused_adamw_: one kernel over every tensor for the whole
//               update, as Python's fused=True.
#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

namespace optbench::workloads {

enum class AdamWImpl { per_tensor, foreach, fused };
const char* to_string(AdamWImpl i);

struct AdamWConfig {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 1e-2;
};

class AdamWStep {
 public:
  // params: leaves whose .grad() the caller fills before each step().
  AdamWStep(std::vector<at::Tensor> params, AdamWConfig cfg, AdamWImpl impl);
  ~AdamWStep();
  void step();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace optbench::workloads
