#include "workloads/training/adamw.h"

#include <ATen/record_function.h>
#include <torch/optim/adamw.h>

#include <cmath>
#include <stdexcept>

#include "harness/profiling/scopes.h"

namespace optbench::workloads {

const char* to_string(AdamWImpl i) {
  switch (i) {
    case AdamWImpl::per_tensor:
      return "per_tensor";
    case AdamWImpl::foreach:
      return "foreach";
    case AdamWImpl::fused:
      return "fused";
  }
  return "?";
}

struct AdamWStep::Impl {
  std::vector<at::Tensor> params, exp_avg, exp_avg_sq, state_steps;
  AdamWConfig cfg;
  AdamWImpl kind;
  std::int64_t steps = 0;
  std::unique_ptr<torch::optim::AdamW> frontend;

  std::vector<at::Tensor> grads() const {
    std::vector<at::Tensor> g;
    for (const auto& p : params) {
      if (!p.grad().defined()) throw std::runtime_error("AdamW step on a parameter without a gradient");
      g.push_back(p.grad());
    }
    return g;
  }

  void foreach_step() {
    // torch/optim/adamw.py's _multi_tensor_adamw (not capturable), op for op.
    at::NoGradGuard no_grad;
    const auto g = grads();
    ++steps;
    const double bc1 = 1 - std::pow(cfg.beta1, static_cast<double>(steps));
    const double bc2 = 1 - std::pow(cfg.beta2, static_cast<double>(steps));
    at::_foreach_mul_(params, 1 - cfg.lr * cfg.weight_decay);
    at::_foreach_lerp_(exp_avg, g, 1 - cfg.beta1);
    at::_foreach_mul_(exp_avg_sq, cfg.beta2);
    at::_foreach_addcmul_(exp_avg_sq, g, g, 1 - cfg.beta2);
    auto denom = at::_foreach_sqrt(exp_avg_sq);
    at::_foreach_div_(denom, std::sqrt(bc2));
    at::_foreach_add_(denom, cfg.eps);
    at::_foreach_addcdiv_(params, exp_avg, denom, -cfg.lr / bc1);
  }

  void fused_step() {
    at::NoGradGuard no_grad;
    const auto g = grads();
    // As torch/optim/adamw.py's _fused_adamw: the step count is advanced before
    // the kernel, which reads it for the bias corrections (step 0 divides by 0).
    at::_foreach_add_(state_steps, 1);
    at::_fused_adamw_(params, g, exp_avg, exp_avg_sq, /*max_exp_avg_sqs=*/{}, state_steps, cfg.lr, cfg.beta1, cfg.beta2,
                      cfg.weight_decay, cfg.eps, /*amsgrad=*/false, /*maximize=*/false);
  }
};

AdamWStep::AdamWStep(std::vector<at::Tensor> params, AdamWConfig cfg, AdamWImpl impl)
    : impl_(std::make_unique<Impl>()) {
  impl_->params = std::move(params);
  impl_->cfg = cfg;
  impl_->kind = impl;
  if (impl == AdamWImpl::per_tensor) {
    impl_->frontend = std::make_unique<torch::optim::AdamW>(
        impl_->params,
        torch::optim::AdamWOptions(cfg.lr).betas({cfg.beta1, cfg.beta2}).eps(cfg.eps).weight_decay(cfg.weight_decay));
    return;
  }
  for (const auto& p : impl_->params) {
    impl_->exp_avg.push_back(at::zeros_like(p));
    impl_->exp_avg_sq.push_back(at::zeros_like(p));
    // The fused kernel counts steps in a float32 tensor per parameter, on its device.
    impl_->state_steps.push_back(at::zeros({}, p.options().dtype(at::kFloat)));
  }
}

AdamWStep::~AdamWStep() = default;

void AdamWStep::step() {
  RECORD_USER_SCOPE(profiling::kOptimizerStepScope);  // as every optimizer step (training/optimizer_scope.h)
  switch (impl_->kind) {
    case AdamWImpl::per_tensor:
      impl_->frontend->step();
      break;
    case AdamWImpl::foreach:
      impl_->foreach_step();
      break;
    case AdamWImpl::fused:
      impl_->fused_step();
      break;
  }
}

}  // namespace optbench::workloads
