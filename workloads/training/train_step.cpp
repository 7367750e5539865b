#include "workloads/training/train_step.h"

#include <algorithm>

#include "harness/compat/autocast.h"
#include "harness/compat/zero_grad.h"

namespace optbench::workloads {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::amp_fp16: return "amp_fp16";
    case Precision::amp_bf16: return "amp_bf16";
  }
  return "?";
}

namespace {

void to_channels_last(torch::nn::Module& m) {
  torch::NoGradGuard g;
  for (auto& p : m.parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
}

}  // namespace

TrainStep::TrainStep(NetFactory factory, BatchSource batches, TrainOptions opts, const torch::Device& device)
    : factory_(std::move(factory)), batches_(std::move(batches)), opts_(opts), device_(device) {
  state_ = build(65536.0, 0.01, 0.9);  // Python's GradScaler default scale; a usual SGD
}

TrainStep::State TrainStep::build(double init_scale, double lr, double momentum, bool float64) const {
  State s;
  s.net = factory_();
  s.net.module->to(device_);
  if (float64) s.net.module->to(torch::kDouble);
  s.net.module->train();
  if (opts_.channels_last) to_channels_last(*s.net.module);
  s.opt = std::make_unique<torch::optim::SGD>(s.net.module->parameters(),
                                              torch::optim::SGDOptions(lr).momentum(momentum));
  if (opts_.precision == Precision::amp_fp16 && !float64) {
    GradScalerOptions o;
    o.init_scale = init_scale;
    s.scaler = std::make_unique<GradScaler>(o);
  }
  return s;
}

compat::NumericsFlags TrainStep::flags() const {
  compat::NumericsFlags f;  // the defaults: TF32 off for matmul, on for cuDNN convolutions
  if (opts_.precision == Precision::fp32) f.tf32_cudnn = false;
  if (opts_.precision == Precision::tf32) f.tf32_matmul = true;
  f.cudnn_benchmark = opts_.cudnn_benchmark;
  f.cudnn_deterministic = opts_.cudnn_deterministic;
  return f;
}

torch::Tensor TrainStep::run_step(State& s, std::int64_t i, bool float64, torch::Tensor* logits_out) const {
  compat::NumericsFlagsGuard flags_guard(flags());
  auto [x, y] = batches_(i);
  if (float64 && x.is_floating_point()) x = x.to(torch::kDouble);
  if (opts_.channels_last && x.dim() == 4) x = x.contiguous(at::MemoryFormat::ChannelsLast);
  compat::zero_grad(*s.opt, opts_.zero_grad_set_to_none);
  torch::Tensor loss;
  {
    const bool amp = !float64 && (opts_.precision == Precision::amp_fp16 || opts_.precision == Precision::amp_bf16);
    const auto dtype = opts_.precision == Precision::amp_fp16 ? torch::kHalf : torch::kBFloat16;
    compat::AutocastGuard autocast(device_.type(), dtype, amp);
    auto logits = s.net.forward(x);
    if (logits_out) {
      // The first few samples, every kth logit of each: the same elements in
      // every precision and at every batch size (the batch sweep repeats its images).
      auto per_item = logits.detach();
      per_item = per_item.dim() < 2 ? per_item.unsqueeze(0) : per_item.flatten(1);
      per_item = per_item.slice(0, 0, std::min(per_item.size(0), kLogitItems));
      const std::int64_t stride = std::max<std::int64_t>(1, (per_item.size(1) + kLogitsPerItem - 1) / kLogitsPerItem);
      *logits_out = per_item.slice(1, 0, per_item.size(1), stride).to(torch::kCPU, torch::kDouble);
    }
    loss = torch::nn::functional::cross_entropy(logits.flatten(0, -2).to(float64 ? torch::kDouble : torch::kFloat),
                                                y.flatten());
  }
  if (s.scaler) {
    s.scaler->scale(loss).backward();
    s.scaler->step(*s.opt);
    s.scaler->update();
  } else {
    loss.backward();
    s.opt->step();
  }
  return loss.detach();
}

void TrainStep::step() { last_loss_ = run_step(state_, step_++); }

TrainStep::Trace TrainStep::trace(bool float64) const {
  // From fresh weights, so every variant starts where the baseline starts. A
  // small initial scale keeps fp16's first steps from being skipped, and small
  // plain SGD steps keep rounding differences from growing (either would fail
  // the check for reasons that are not the variant's numerics).
  State fresh = build(1024.0, 1e-3, 0.0, float64);
  Trace t;
  std::vector<torch::Tensor> losses;
  for (int i = 0; i < kTraceSteps; ++i)
    losses.push_back(run_step(fresh, i, float64, i == 0 ? &t.logits : nullptr).to(torch::kCPU, torch::kDouble));
  t.losses = torch::stack(losses);
  return t;
}

at::Tensor TrainStep::output() {
  // The timed state's gradients go first: at the largest batch that fits, the
  // trace's fresh model must not need room for both.
  if (!trace_.losses.defined()) {
    compat::zero_grad(*state_.opt, /*set_to_none=*/true);
    trace_ = trace(false);
  }
  return trace_.losses;
}

at::Tensor TrainStep::first_logits() {
  output();
  return trace_.logits;
}

at::Tensor TrainStep::float64_trace() {
  if (!trace64_.losses.defined()) trace64_ = trace(true);
  return trace64_.losses;
}

at::Tensor TrainStep::float64_first_logits() {
  float64_trace();
  return trace64_.logits;
}

double TrainStep::unit_roundoff() const {
  switch (opts_.precision) {
    case Precision::amp_bf16: return 0x1p-8;   // 8-bit significand
    case Precision::amp_fp16:                  // 11-bit significand, as TF32's
    case Precision::tf32: return 0x1p-11;
    case Precision::fp32: return 0x1p-24;
  }
  return 0;
}

double TrainStep::loss_tolerance() const {
  switch (opts_.precision) {
    case Precision::amp_fp16:
    case Precision::amp_bf16: return 5e-2;
    case Precision::tf32: return 1e-2;
    case Precision::fp32: return 1e-3;
  }
  return 0;
}

}  // namespace optbench::workloads
