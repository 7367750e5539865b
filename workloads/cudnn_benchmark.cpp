// Checklist #4, cudnn.benchmark ("Moderate, 5-15%"; seed 002 also "10-50% in
// some CNN-heavy models"), and seed 002's warnings: autotuning costs time on the
// first iteration and on every new input shape, and determinism has a price.
// ResNet-50 training steps with fixed shapes (steady state, the first-iteration
// cost and the break-even step count), with a new input shape every step, and
// with cudnn.deterministic on vs off.
#include <torch/torch.h>

#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/resnet.h"
#include "workloads/training/train_step.h"
#include "workloads/training/verify_losses.h"

namespace optbench::workloads {
namespace {

NetFactory resnet_factory() {
  return [] {
    torch::manual_seed(0);
    return make_net(resnet50(1000));
  };
}

Variant train_variant(std::string name, std::string desc, BatchSource batches, TrainOptions o, DeviceKind d) {
  return {std::move(name), std::move(desc),
          [=] { return std::make_unique<TrainStep>(resnet_factory(), batches, o, torch_device(d)); }};
}

// Autotuning's one-time cost (the first step's excess over the steady state)
// and the steps after which benchmark mode has paid for itself.
nlohmann::json break_even(const nlohmann::json& r) {
  const auto& v = r["variants"];
  if (v.size() < 2 || !v[0]["stats"].is_object() || !v[1]["stats"].is_object() || !v[1]["first_run_s"].is_number())
    return nlohmann::json::object();
  const double off = v[0]["stats"]["median"], on = v[1]["stats"]["median"], first_on = v[1]["first_run_s"];
  const double tuning = std::max(0.0, first_on - on);
  nlohmann::json out = {{"autotune_first_step_extra_s", tuning}, {"steady_gain_per_step_s", off - on}};
  out["break_even_steps"] = off > on ? nlohmann::json(tuning / (off - on)) : nlohmann::json(nullptr);
  return out;
}

class CudnnBenchmark final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"cudnn_benchmark",
            "cudnn.benchmark on/off, with fixed and changing shapes; cudnn.deterministic",
            "torch.backends.cudnn.benchmark = True (autotuned convolution algorithms)",
            {"cudnn_benchmark"},
            "ResNet-50 training steps (fp32 convolutions with cuDNN's default TF32) with cudnn.benchmark off "
            "(baseline) vs on: steady-state throughput, the first step's autotuning cost and the break-even step "
            "count; the same with a new input shape every step (where benchmark mode hurts); and the cost of "
            "cudnn.deterministic (baseline: deterministic on).",
            {DeviceKind::cuda}};
  }

  std::string unsupported_reason(const RunContext& ctx) const override {
    if (ctx.device != DeviceKind::cuda) return "cuDNN is a GPU library";
    return Experiment::unsupported_reason(ctx);
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const auto dev = torch::TensorOptions().device(torch_device(d));
    const std::int64_t batch = 64;
    const auto x = seeded_randn({batch, 3, 224, 224}, dev, 31);
    const auto y = torch::randint(0, 1000, {batch}, torch::kLong).to(torch_device(d));
    const BatchSource fixed = [x, y](std::int64_t) { return std::make_pair(x, y); };
    // A new (H, W) every step, from a sequence that does not repeat for
    // thousands of steps, as with variable-size images or unpadded sequences.
    const BatchSource varying = [x, y](std::int64_t i) {
      const std::int64_t h = 160 + (i * 37) % 97, w = 160 + (i * 53) % 89;
      return std::make_pair(x.narrow(2, 0, h).narrow(3, 0, w), y);
    };
    auto opts = [](bool bench, bool det) {
      TrainOptions o;
      o.precision = Precision::tf32;  // PyTorch's default for convolutions
      o.cudnn_benchmark = bench;
      o.cudnn_deterministic = det;
      return o;
    };
    WorkUnits units{0, 3.0 * kResNet50ForwardFlops224 * batch, static_cast<double>(batch), "images"};

    Case fixed_case;
    fixed_case.name = "fixed_shape_b64_224";
    fixed_case.params = {{"batch", batch}, {"shape", "fixed"}};
    fixed_case.units = units;
    fixed_case.variants = {train_variant("benchmark_off", "cudnn.benchmark = False", fixed, opts(false, false), d),
                           train_variant("benchmark_on", "cudnn.benchmark = True", fixed, opts(true, false), d)};
    fixed_case.verify = verify_loss_traces;
    fixed_case.derive = break_even;

    Case varying_case;
    varying_case.name = "new_shape_every_step_b64";
    varying_case.params = {{"batch", batch}, {"shape", "new every step, 160-256 px"}};
    varying_case.units = WorkUnits{0, 0, static_cast<double>(batch), "images"};
    varying_case.variants = {train_variant("benchmark_off", "cudnn.benchmark = False", varying, opts(false, false), d),
                             train_variant("benchmark_on", "cudnn.benchmark = True", varying, opts(true, false), d)};
    varying_case.verify = verify_loss_traces;

    Case det_case;
    det_case.name = "deterministic_cost_b64_224";
    det_case.params = {{"batch", batch}, {"shape", "fixed"}};
    det_case.units = units;
    det_case.variants = {train_variant("deterministic", "cudnn.deterministic = True", fixed, opts(false, true), d),
                         train_variant("nondeterministic", "cudnn.deterministic = False (default)", fixed,
                                       opts(false, false), d)};
    det_case.verify = verify_loss_traces;
    return {fixed_case, varying_case, det_case};
  }
};

OPTBENCH_REGISTER_EXPERIMENT(CudnnBenchmark);

}  // namespace
}  // namespace optbench::workloads
