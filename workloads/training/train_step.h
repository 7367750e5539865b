#pragma once
// One full training step (forward, loss, backward, optimizer step) of any C++
// frontend model, in a chosen precision and memory format, with the numerics
// flags it needs set for exactly its duration. Shared by the precision,
// cudnn.benchmark and other training experiments.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>

#include "harness/compat/numerics_flags.h"
#include "harness/experiment.h"
#include "workloads/training/grad_scaler.h"

namespace optbench::workloads {

enum class Precision { fp32, tf32, amp_fp16, amp_bf16 };
const char* to_string(Precision p);

struct Net {
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
};
using NetFactory = std::function<Net()>;  // must seed itself: every call builds the same weights

template <class Holder>
Net make_net(Holder m) {
  return {m.ptr(), [m](const torch::Tensor& x) mutable { return m->forward(x); }};
}

// Faults planted on purpose by tests, to show that verification catches each
// (tests/test_planted_faults.cpp); no experiment sets one.
enum class PlantedFault {
  none,
  stale_autocast_cache,     // the cast cache outlives the step: forward uses old low-precision weights
  scaler_never_unscales,    // the optimizer steps on gradients still multiplied by the loss scale
  scaler_never_steps,       // unscaled, checked, but the optimizer step is never taken
  skip_optimizer_step,      // no optimizer step at all (any precision)
  scrambled_channels_last,  // 4-D weights reinterpreted instead of converted to channels_last
  fp16_without_scaler       // AMP fp16 with no GradScaler: small gradients underflow to zero
};

struct TrainOptions {
  Precision precision = Precision::fp32;
  bool channels_last = false;
  bool cudnn_benchmark = false;
  bool cudnn_deterministic = false;
  // Python 2.x's zero_grad() default; false zeroes the gradients in place.
  bool zero_grad_set_to_none = true;
  PlantedFault fault = PlantedFault::none;
};

// Input and target for step i; the same for every variant. Fixed-shape work
// returns the same tensors every time.
using BatchSource = std::function<std::pair<torch::Tensor, torch::Tensor>(std::int64_t step)>;

class TrainStep : public Workload {
 public:
  TrainStep(NetFactory factory, BatchSource batches, TrainOptions opts, const torch::Device& device);
  void step() override;
  // The last step's loss, still on the device (reading it is the caller's sync).
  const torch::Tensor& last_loss() const { return last_loss_; }
  // Losses of kTraceSteps steps from fresh weights: what verification compares
  // (computed once, untimed).
  at::Tensor output() override;
  // The first step's logits (a fixed subsample: [samples, logits of each],
  // float64 on the host), from the same run as output().
  at::Tensor first_logits();
  // The same trace and logits with the model and data in float64: the reference.
  at::Tensor float64_trace();
  at::Tensor float64_first_logits();
  // Losses of a fit on one fixed batch (the first) from fresh weights, in this
  // variant's precision: the semantic check that training learns (untimed).
  // At most `updates` Adam updates (updates + 1 losses). stop_at_drop > 0 ends
  // it early, after at least kFitMinUpdates, once the mean loss after the
  // updates is that fraction below the first: past that a model has learned
  // the batch, and further steps compare two memorised states, at the cost of
  // whole training steps per variant. Computed once per argument pair.
  at::Tensor fit_losses(int updates = kFitSteps, double stop_at_drop = 0);
  // Steps of the fit and the trace whose update the GradScaler skipped (not
  // counted as updates: see run_fresh).
  int fit_skipped_updates() const { return fit_skipped_; }
  int trace_skipped_updates() const { return trace_.skipped; }
  // Relative deviation from the float64 trace this precision is allowed.
  double loss_tolerance() const;
  // The unit roundoff of the arithmetic this precision mostly computes in.
  double unit_roundoff() const;
  static constexpr int kTraceSteps = 3;
  static constexpr int kFitSteps = 8, kFitMinUpdates = 1;
  static constexpr double kFitAdamLr = 1e-3;
  static constexpr std::int64_t kLogitItems = 8, kLogitsPerItem = 8192;

 private:
  struct State {
    Net net;
    std::unique_ptr<torch::optim::Optimizer> opt;
    std::unique_ptr<GradScaler> scaler;
  };
  // lr, momentum: SGD's; adam_lr > 0: Adam with that learning rate instead.
  State build(double init_scale, double lr, double momentum, bool float64 = false, double adam_lr = 0) const;
  // logits: where to keep this step's subsampled logits (nullptr: not kept);
  // skipped: set to whether the GradScaler skipped the update (an inf/NaN gradient).
  torch::Tensor run_step(State& s, std::int64_t i, bool float64 = false, torch::Tensor* logits = nullptr,
                         bool* skipped = nullptr) const;
  struct Trace {
    at::Tensor losses, logits;
    int skipped = 0;
  };
  Trace trace(bool float64) const;
  struct FreshRun {
    int steps = 0;
    double lr = 0, momentum = 0;  // SGD's
    double adam_lr = 0;           // > 0: Adam with this learning rate instead
    bool float64 = false;
    bool fixed_batch = false;  // every step on batch 0
    double stop_at_drop = 0;   // > 0: fit_losses' early end
  };
  // The losses after 0, 1, ... updates from fresh weights (up to r.steps of
  // them), update n on batch n. An update the GradScaler skips (an overflow at
  // its scale, as Python's skips its first steps) is no update: the batch runs
  // again, and *skipped counts such steps (at most kFitSteps, then it ends).
  at::Tensor run_fresh(const FreshRun& r, at::Tensor* first_logits, int* skipped = nullptr) const;
  compat::NumericsFlags flags() const;

  NetFactory factory_;
  BatchSource batches_;
  TrainOptions opts_;
  torch::Device device_;
  State state_;
  std::int64_t step_ = 0;
  Trace trace_, trace64_;
  at::Tensor fit_;
  std::pair<int, double> fit_args_{-1, 0.0};
  int fit_skipped_ = 0;
  at::Tensor last_loss_;
};

}  // namespace optbench::workloads
