#include "workloads/training/grad_scaler.h"

#include "workloads/training/optimizer_scope.h"

namespace optbench::workloads {

GradScaler::GradScaler(GradScalerOptions o) : opts_(o) {}

void GradScaler::lazy_init(const torch::Device& d) {
  if (scale_.defined()) return;
  const auto f = torch::TensorOptions().device(d).dtype(torch::kFloat);
  scale_ = torch::full({1}, opts_.init_scale, f);
  growth_tracker_ = torch::zeros({1}, f.dtype(torch::kInt));
  found_inf_ = torch::zeros({1}, f);
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) {
  if (!opts_.enabled) return loss;
  lazy_init(loss.device());
  return loss * scale_.to(loss.dtype());
}

void GradScaler::non_finite_check_and_unscale(std::vector<torch::Tensor>& grads, torch::Tensor& found_inf,
                                              const torch::Tensor& inv_scale) {
  if (grads.empty()) return;
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale);
}

void GradScaler::update_scale(torch::Tensor& scale, torch::Tensor& growth_tracker, const torch::Tensor& found_inf,
                              double growth, double backoff, std::int64_t interval) {
  at::_amp_update_scale_(scale, growth_tracker, found_inf, growth, backoff, interval);
}

void GradScaler::unscale(torch::optim::Optimizer& opt) {
  if (!opts_.enabled || unscaled_) return;
  std::vector<torch::Tensor> grads;
  for (auto& group : opt.param_groups())
    for (auto& p : group.params())
      if (p.grad().defined()) grads.push_back(p.mutable_grad());
  if (grads.empty()) return;
  lazy_init(grads.front().device());
  found_inf_.zero_();
  const auto inv = scale_.reciprocal();
  non_finite_check_and_unscale(grads, found_inf_, inv);
  unscaled_ = true;
}

bool GradScaler::step(torch::optim::Optimizer& opt) {
  if (!opts_.enabled) {
    scoped_step(opt);
    return true;
  }
  unscale(opt);
  const bool overflow = found_inf_.defined() && found_inf_.item<float>() > 0;
  if (!overflow) scoped_step(opt);
  return !overflow;
}

void GradScaler::update() {
  if (!opts_.enabled || !scale_.defined()) return;
  update_scale(scale_, growth_tracker_, found_inf_, opts_.growth_factor, opts_.backoff_factor, opts_.growth_interval);
  unscaled_ = false;
  found_inf_.zero_();
}

double GradScaler::get_scale() const { return scale_.defined() ? scale_.item<double>() : opts_.init_scale; }

}  // namespace optbench::workloads
