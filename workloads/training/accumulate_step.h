#pragma once
// Gradient accumulation: one optimizer step from k micro-batches of b (each
// loss divided by k, k backward passes) in place of one batch of k*b. With a
// mean loss and equal micro-batches the gradients are the large batch's, up to
// rounding; verify_accumulated_grads checks exactly that on the first step.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/experiment.h"
#include "workloads/common.h"  // worst_grad_error
#include "workloads/training/train_step.h"

namespace optbench::workloads {

class AccumulateStep : public Workload {
 public:
  // x, y: the whole batch (k*b rows), already on `device`. divide_loss = false
  // is the classic bug (gradients k times too large); it exists for the tests.
  AccumulateStep(NetFactory factory, torch::Tensor x, torch::Tensor y, std::int64_t k, const torch::Device& device,
                 bool divide_loss = true);
  void step() override;
  // Gradients of one step from fresh weights, produced by the timed code
  // (step()'s cycle), in float64 on the CPU, one per parameter (computed once, untimed).
  const std::vector<torch::Tensor>& first_step_grads();
  nlohmann::json metrics() override;

 private:
  void backward_passes(Net& net) const;
  // One optimizer step: reset, k backward passes, step. What step() times.
  void cycle(Net& net, torch::optim::Optimizer& opt) const;

  NetFactory factory_;
  torch::Tensor x_, y_;
  std::int64_t k_;
  torch::Device device_;
  bool divide_loss_;
  Net net_;
  std::unique_ptr<torch::optim::SGD> opt_;
  std::vector<torch::Tensor> grads_;
};

// Case::verify: every parameter's gradient of the variant against the
// baseline's, max |a - b| / max |b| per tensor, must stay within `bound`.
std::function<std::string(std::vector<Workload*>&)> verify_accumulated_grads(double bound);

}  // namespace optbench::workloads
