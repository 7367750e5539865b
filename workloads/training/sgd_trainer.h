#pragma once
// A model trained with cross-entropy and SGD on batches already on the device,
// in fp32 with TF32 off and no autocast, and the trace that verifies a training
// step done another way (e.g. replayed from a CUDA graph): the loss of every
// step and how far each parameter moved, from the same fresh weights on the
// same batches.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/experiment.h"
#include "workloads/training/train_step.h"

namespace optbench::workloads {

using Batch = std::pair<torch::Tensor, torch::Tensor>;  // input, class targets

struct SgdSpec {
  NetFactory factory;          // seeds itself: every call builds the same weights
  std::vector<Batch> batches;  // on the device; step i trains on batches[i % size]
  double lr = 0.01;
  double momentum = 0.9;
  const Batch& batch(std::int64_t step) const { return batches.at(static_cast<std::size_t>(step) % batches.size()); }
};

class SgdTrainer {
 public:
  // track_updates keeps a copy of the initial weights for update_norms().
  SgdTrainer(const SgdSpec& spec, const torch::Device& device, bool track_updates = false);
  // One step as Python 2.x writes it: gradients set to None, forward,
  // cross-entropy, backward, SGD step. Returns the loss without waiting for it.
  torch::Tensor step(const torch::Tensor& x, const torch::Tensor& y);
  torch::Tensor loss(const torch::Tensor& x, const torch::Tensor& y);  // forward and loss only
  void zero_grad();                                                    // set_to_none
  // Per parameter, ||p - p at construction||, float64 on the CPU.
  torch::Tensor update_norms() const;
  torch::optim::SGD& optimizer() { return *opt_; }

 private:
  Net net_;
  std::unique_ptr<torch::optim::SGD> opt_;
  std::vector<torch::Tensor> initial_;
};

struct StepTrace {
  torch::Tensor losses;        // [steps], float64, CPU
  torch::Tensor update_norms;  // [parameters], float64, CPU
  torch::Tensor flat() const { return torch::cat({losses, update_norms}); }
};

// `steps` eager steps from fresh weights.
StepTrace eager_trace(const SgdSpec& spec, const torch::Device& device, int steps);

struct TraceTolerance {
  double loss_rtol = 1e-4;    // per-step loss, relative
  double update_rtol = 1e-3;  // per-parameter distance moved, relative
};

// "" when `var` trained as `base` did, else what differs.
std::string compare_traces(const StepTrace& base, const StepTrace& var, const TraceTolerance& tol);

// A workload that can produce its trace (computed once, untimed).
class TracedStep {
 public:
  virtual ~TracedStep() = default;
  virtual StepTrace trace() = 0;
};

// Case::verify comparing the variant's trace with the baseline's.
std::function<std::string(std::vector<Workload*>&)> verify_step_traces(TraceTolerance tol);

}  // namespace optbench::workloads
