#include "workloads/training/sgd_trainer.h"

#include <cstdio>

#include "harness/compat/numerics_flags.h"
#include "harness/compat/zero_grad.h"
#include "workloads/training/optimizer_scope.h"

namespace optbench::workloads {

namespace {

double max_rel_diff(const torch::Tensor& a, const torch::Tensor& ref) {
  if (a.numel() == 0) return 0;
  return ((a - ref).abs() / ref.abs().clamp_min(1e-30)).max().item<double>();
}

}  // namespace

SgdTrainer::SgdTrainer(const SgdSpec& spec, const torch::Device& device, bool track_updates) : net_(spec.factory()) {
  net_.module->to(device);
  net_.module->train();
  // C++ SGD's step is tensor arithmetic only (no host reads of tensor values),
  // with the momentum buffers created at the first step: capturable once warm.
  opt_ = std::make_unique<torch::optim::SGD>(net_.module->parameters(),
                                             torch::optim::SGDOptions(spec.lr).momentum(spec.momentum));
  if (track_updates) {
    torch::NoGradGuard ng;
    for (const auto& p : net_.module->parameters()) initial_.push_back(p.detach().clone());
  }
}

void SgdTrainer::zero_grad() { compat::zero_grad(*opt_, /*set_to_none=*/true); }

torch::Tensor SgdTrainer::loss(const torch::Tensor& x, const torch::Tensor& y) {
  auto logits = net_.forward(x);
  return torch::nn::functional::cross_entropy(logits.flatten(0, -2), y.flatten());
}

torch::Tensor SgdTrainer::step(const torch::Tensor& x, const torch::Tensor& y) {
  compat::NumericsFlagsGuard flags(compat::strict_fp32());  // host-side only: also safe while capturing
  zero_grad();
  auto l = loss(x, y);
  l.backward();
  scoped_step(*opt_);
  return l.detach();
}

torch::Tensor SgdTrainer::update_norms() const {
  TORCH_CHECK(!initial_.empty(), "SgdTrainer was built without track_updates");
  torch::NoGradGuard ng;
  const auto params = net_.module->parameters();
  std::vector<torch::Tensor> norms;
  for (std::size_t i = 0; i < params.size(); ++i)
    norms.push_back((params[i].detach().to(torch::kDouble) - initial_[i].to(torch::kDouble)).norm());
  return torch::stack(norms).to(torch::kCPU);
}

StepTrace eager_trace(const SgdSpec& spec, const torch::Device& device, int steps) {
  SgdTrainer t(spec, device, /*track_updates=*/true);
  std::vector<torch::Tensor> losses;
  for (int i = 0; i < steps; ++i) {
    const auto& b = spec.batch(i);
    losses.push_back(t.step(b.first, b.second));
  }
  return {torch::stack(losses).to(torch::kCPU, torch::kDouble), t.update_norms()};
}

std::string compare_traces(const StepTrace& base, const StepTrace& var, const TraceTolerance& tol) {
  if (base.losses.sizes() != var.losses.sizes() || base.update_norms.sizes() != var.update_norms.sizes())
    return "traces differ in length";
  if (!var.losses.isfinite().all().item<bool>() || !var.update_norms.isfinite().all().item<bool>())
    return "non-finite loss or parameter";
  // A baseline that did not move its weights would make the comparison vacuous.
  if (!(base.update_norms.min().item<double>() > 0)) return "baseline trace left a parameter unchanged";
  char msg[200];
  if (const double d = max_rel_diff(var.losses, base.losses); !(d <= tol.loss_rtol)) {
    std::snprintf(msg, sizeof msg, "per-step loss differs from the baseline's by %.3g (relative; allowed %.3g)", d,
                  tol.loss_rtol);
    return msg;
  }
  if (const double d = max_rel_diff(var.update_norms, base.update_norms); !(d <= tol.update_rtol)) {
    std::snprintf(msg, sizeof msg,
                  "distance a parameter moved differs from the baseline's by %.3g (relative; allowed %.3g)", d,
                  tol.update_rtol);
    return msg;
  }
  return "";
}

std::function<std::string(std::vector<Workload*>&)> verify_step_traces(TraceTolerance tol) {
  return [tol](std::vector<Workload*>& w) -> std::string {
    auto* base = dynamic_cast<TracedStep*>(w.at(0));
    auto* var = dynamic_cast<TracedStep*>(w.at(1));
    if (!base || !var) return "workload cannot produce a training trace";
    return compare_traces(base->trace(), var->trace(), tol);
  };
}

}  // namespace optbench::workloads
