#include "workloads/training/accumulate_step.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/compat/numerics_flags.h"
#include "harness/compat/zero_grad.h"
#include "workloads/training/optimizer_scope.h"

namespace optbench::workloads {

AccumulateStep::AccumulateStep(NetFactory factory, torch::Tensor x, torch::Tensor y, std::int64_t k,
                               const torch::Device& device, bool divide_loss)
    : factory_(std::move(factory)),
      x_(std::move(x)),
      y_(std::move(y)),
      k_(k),
      device_(device),
      divide_loss_(divide_loss) {
  TORCH_CHECK(k_ >= 1 && x_.size(0) % k_ == 0, "the batch must split into k equal micro-batches");
  net_ = factory_();
  net_.module->to(device_);
  net_.module->train();
  opt_ = std::make_unique<torch::optim::SGD>(net_.module->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
}

void AccumulateStep::backward_passes(Net& net) const {
  const std::int64_t b = x_.size(0) / k_;
  for (std::int64_t i = 0; i < k_; ++i) {
    auto logits = net.forward(x_.narrow(0, i * b, b));
    // Mean over the micro-batch's tokens; equal micro-batches make the mean of
    // the k means (each divided by k) the large batch's mean.
    auto loss = torch::nn::functional::cross_entropy(logits.flatten(0, -2), y_.narrow(0, i * b, b).flatten());
    if (divide_loss_) loss = loss / static_cast<double>(k_);
    loss.backward();
  }
}

void AccumulateStep::cycle(Net& net, torch::optim::Optimizer& opt) const {
  compat::NumericsFlagsGuard flags(compat::strict_fp32());
  compat::zero_grad(opt, /*set_to_none=*/true);  // once per accumulation cycle
  backward_passes(net);
  scoped_step(opt);
}

void AccumulateStep::step() { cycle(net_, *opt_); }

const std::vector<torch::Tensor>& AccumulateStep::first_step_grads() {
  if (!grads_.empty()) return grads_;
  Net fresh = factory_();  // seeds itself: the same weights for every variant
  fresh.module->to(device_);
  fresh.module->train();
  // Two cycles of the timed code with lr 0, so the weights stay where they
  // started: the second cycle's gradients are the large batch's only if the
  // reset happens once per cycle, not never and not per micro-batch.
  torch::optim::SGD still(fresh.module->parameters(), torch::optim::SGDOptions(0.0));
  cycle(fresh, still);
  cycle(fresh, still);
  for (const auto& p : fresh.module->parameters()) {
    TORCH_CHECK(p.grad().defined(), "a parameter got no gradient");
    grads_.push_back(p.grad().detach().to(torch::kCPU, torch::kDouble));
  }
  return grads_;
}

nlohmann::json AccumulateStep::metrics() { return {{"accumulation_steps", k_}, {"micro_batch", x_.size(0) / k_}}; }

std::function<std::string(std::vector<Workload*>&)> verify_accumulated_grads(double bound) {
  return [bound](std::vector<Workload*>& w) -> std::string {
    auto* base = dynamic_cast<AccumulateStep*>(w.at(0));
    if (!base) return "baseline is not an accumulation step";
    for (std::size_t i = 1; i < w.size(); ++i) {
      auto* var = dynamic_cast<AccumulateStep*>(w[i]);
      if (!var) return "variant is not an accumulation step";
      const double err = worst_grad_error(var->first_step_grads(), base->first_step_grads());
      if (!(err <= bound)) {
        char msg[160];
        std::snprintf(msg, sizeof msg,
                      "gradients differ from the large batch's: %.3g (max |diff| / max |grad|, "
                      "worst tensor) > %.3g",
                      err, bound);
        return msg;
      }
    }
    return "";
  };
}

}  // namespace optbench::workloads
