#include "workloads/training/train_step.h"

#include <algorithm>

#include "harness/compat/autocast.h"
#include "harness/compat/zero_grad.h"
#include "workloads/training/optimizer_scope.h"

namespace optbench::workloads {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::amp_fp16:
      return "amp_fp16";
    case Precision::amp_bf16:
      return "amp_bf16";
  }
  return "?";
}

namespace {

void to_channels_last(torch::nn::Module& m, bool scrambled) {
  torch::NoGradGuard g;
  for (auto& p : m.parameters()) {
    if (p.dim() != 4) continue;
    // The planted fault: NHWC data read back as if it were NCHW.
    p.set_data(scrambled ? p.permute({0, 2, 3, 1}).contiguous().view(p.sizes())
                         : p.contiguous(at::MemoryFormat::ChannelsLast));
  }
}

}  // namespace

TrainStep::TrainStep(NetFactory factory, BatchSource batches, TrainOptions opts, const torch::Device& device)
    : factory_(std::move(factory)), batches_(std::move(batches)), opts_(opts), device_(device) {
  state_ = build(65536.0, 0.01, 0.9);  // Python's GradScaler default scale; a usual SGD
}

TrainStep::State TrainStep::build(double init_scale, double lr, double momentum, bool float64, double adam_lr) const {
  State s;
  s.net = factory_();
  s.net.module->to(device_);
  if (float64) s.net.module->to(torch::kDouble);
  s.net.module->train();
  if (opts_.channels_last) to_channels_last(*s.net.module, opts_.fault == PlantedFault::scrambled_channels_last);
  if (adam_lr > 0)
    s.opt = std::make_unique<torch::optim::Adam>(s.net.module->parameters(), torch::optim::AdamOptions(adam_lr));
  else
    s.opt = std::make_unique<torch::optim::SGD>(s.net.module->parameters(),
                                                torch::optim::SGDOptions(lr).momentum(momentum));
  if (opts_.precision == Precision::amp_fp16 && !float64 && opts_.fault != PlantedFault::fp16_without_scaler) {
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

torch::Tensor TrainStep::run_step(State& s, std::int64_t i, bool float64, torch::Tensor* logits_out,
                                  bool* skipped) const {
  if (skipped) *skipped = false;
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
  const PlantedFault f = opts_.fault;
  if (s.scaler) {
    s.scaler->scale(loss).backward();
    if (f == PlantedFault::scaler_never_unscales)
      scoped_step(*s.opt);
    else if (f == PlantedFault::scaler_never_steps)
      s.scaler->unscale(*s.opt);
    else if (f != PlantedFault::skip_optimizer_step) {
      const bool stepped = s.scaler->step(*s.opt);
      if (skipped) *skipped = !stepped;
    }
    s.scaler->update();
  } else {
    loss.backward();
    if (f != PlantedFault::skip_optimizer_step) scoped_step(*s.opt);
  }
  return loss.detach();
}

void TrainStep::step() { last_loss_ = run_step(state_, step_++); }

at::Tensor TrainStep::run_fresh(const FreshRun& r, at::Tensor* first_logits, int* skipped) const {
  // A small initial scale keeps fp16's first steps from overflowing (each
  // overflow costs a step run again, below).
  State fresh = build(1024.0, r.lr, r.momentum, r.float64, r.adam_lr);
  // The planted stale cache: an outer autocast nesting level for the whole run,
  // so no step's guard is the outermost and the cast cache is never cleared.
  const bool stale = opts_.fault == PlantedFault::stale_autocast_cache;
  if (stale) at::autocast::increment_nesting();
  std::vector<torch::Tensor> losses;
  double after_first = 0;  // sum of the losses after the first
  int skips = 0;
  std::int64_t taken = 0;  // updates taken so far: step n's batch, with w_n
  bool moved = true;       // the weights changed since the last loss kept (or none is kept yet)
  for (int i = 0; static_cast<int>(losses.size()) < r.steps; ++i) {
    bool skip = false;
    auto loss = run_step(fresh, r.fixed_batch ? 0 : taken, r.float64, i == 0 ? first_logits : nullptr, &skip)
                    .to(torch::kCPU, torch::kDouble);
    // After a skipped update the same batch runs again on the same weights:
    // a new update, but not a new loss.
    bool done = false;
    if (moved) {
      losses.push_back(loss);
      const auto n = static_cast<int>(losses.size()) - 1;  // updates before this loss
      if (r.stop_at_drop > 0 && n > 0) {
        after_first += loss.item<double>();
        done = n >= kFitMinUpdates && 1 - after_first / n / losses.front().item<double>() >= r.stop_at_drop;
      }
    }
    moved = !skip;
    taken += moved;
    // A scaler that never stops overflowing ends the run with what there is.
    if (done || (skip && ++skips > kFitSteps)) break;
  }
  if (skipped) *skipped = skips;
  if (stale && at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  return torch::stack(losses);
}

TrainStep::Trace TrainStep::trace(bool float64) const {
  // From fresh weights, so every variant starts where the baseline starts; small
  // plain SGD steps keep rounding differences from growing.
  Trace t;
  FreshRun r;
  r.steps = kTraceSteps;
  r.lr = 1e-3;
  r.float64 = float64;
  t.losses = run_fresh(r, &t.logits, &t.skipped);
  return t;
}

at::Tensor TrainStep::fit_losses(int updates, double stop_at_drop) {
  if (!fit_.defined() || fit_args_ != std::make_pair(updates, stop_at_drop)) {
    output();  // the timed state's gradients go first (see output())
    // Adam: one learning rate that makes progress on every model here without
    // diverging (SGD with momentum at 0.05 diverged on ResNet-50 at 32 px and
    // crawled at 0.01 on a small conv net).
    FreshRun r;
    r.steps = updates + 1;
    r.adam_lr = kFitAdamLr;
    r.fixed_batch = true;
    r.stop_at_drop = stop_at_drop;
    fit_ = run_fresh(r, nullptr, &fit_skipped_);
    fit_args_ = {updates, stop_at_drop};
  }
  return fit_;
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
    case Precision::amp_bf16:
      return 0x1p-8;           // 8-bit significand
    case Precision::amp_fp16:  // 11-bit significand, as TF32's
    case Precision::tf32:
      return 0x1p-11;
    case Precision::fp32:
      return 0x1p-24;
  }
  return 0;
}

double TrainStep::loss_tolerance() const {
  switch (opts_.precision) {
    case Precision::amp_fp16:
    case Precision::amp_bf16:
      return 5e-2;
    case Precision::tf32:
      return 1e-2;
    case Precision::fp32:
      return 1e-3;
  }
  return 0;
}

}  // namespace optbench::workloads
