// optimizer.zero_grad(set_to_none=True) vs zeroing the gradients in place (the
// PyTorch tuning guide's advice; Python 2.x's default). Zeroing costs a fill
// per parameter tensor, and the next backward then adds into the zeros instead
// of handing its gradient over: visible when a model has many parameter tensors.
// Training steps of a deep GPT stack (12 tensors a block) and of a deep MLP of
// small Linear layers (launch-bound).
#include <torch/torch.h>

#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/mlp.h"
#include "workloads/models/transformer.h"
#include "workloads/training/train_step.h"

namespace optbench::workloads {
namespace {

Case zero_grad_case(std::string name, nlohmann::json params, NetFactory factory, BatchSource batches, WorkUnits units,
                    std::int64_t tensors, DeviceKind d) {
  Case c;
  c.name = std::move(name);
  c.params = std::move(params);
  c.units = units;
  const torch::Device device = torch_device(d);
  auto variant = [&](std::string vname, std::string desc, bool set_to_none) {
    TrainOptions o;
    o.precision = Precision::fp32;
    o.zero_grad_set_to_none = set_to_none;
    return Variant{std::move(vname), std::move(desc),
                   [=] { return std::make_unique<TrainStep>(factory, batches, o, device); }};
  };
  c.variants = {variant("zeroing", "zero_grad(set_to_none=False): fill every gradient with zeros", false),
                variant("set_to_none", "zero_grad(set_to_none=True): drop the gradients", true)};
  // 0 + g is g exactly: the same losses, up to nondeterministic GPU reductions.
  c.tolerance = Tolerance{1e-5, 1e-7};
  c.notes = {{"parameter_tensors", tensors},
             {"verification", "loss of 3 SGD steps from the same fresh weights, rtol 1e-5"}};
  return c;
}

BatchSource fixed_batch(torch::Tensor x, torch::Tensor y) {
  return [x, y](std::int64_t) { return std::make_pair(x, y); };
}

class ZeroGrad final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "zero_grad",
        "zero_grad: set_to_none vs zeroing in place",
        "optimizer.zero_grad(set_to_none=True)",
        {"zero_grad_set_to_none"},
        "FP32 training steps (forward, loss, backward, SGD with momentum) of models with many parameter tensors: "
        "gradients zeroed in place before each backward (baseline) vs set to none. The loss of 3 steps from the "
        "same fresh weights must match."};
    i.mechanism_counters = {"fills_per_step"};
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const bool gpu = d == DeviceKind::cuda;
    const torch::Device device = torch_device(d);
    std::vector<Case> out;

    // A deep, narrow GPT stack at a small batch: the optimizer's and zeroing's
    // per-tensor work is a visible share of the step.
    const GptConfig g = gpu ? GptConfig{24, 1024, 16, 256, 32768} : GptConfig{6, 32, 2, 16, 128};
    const std::int64_t gb = gpu ? 4 : 2;
    torch::manual_seed(11);
    const auto tokens = torch::randint(0, g.vocab, {gb, g.seq}, torch::kLong).to(device);
    const auto next = torch::randint(0, g.vocab, {gb, g.seq}, torch::kLong).to(device);
    out.push_back(zero_grad_case(
        "gpt_l" + std::to_string(g.layers) + "_h" + std::to_string(g.hidden) + "_s" + std::to_string(g.seq) + "_b" +
            std::to_string(gb),
        {{"model", "gpt"},
         {"batch", gb},
         {"layers", g.layers},
         {"hidden", g.hidden},
         {"seq", g.seq},
         {"vocab", g.vocab}},
        [g] {
          torch::manual_seed(0);
          return make_net(Gpt(g));
        },
        fixed_batch(tokens, next),
        WorkUnits{0, gpt_train_flops_per_token(g) * gb * g.seq, static_cast<double>(gb * g.seq), "tokens"},
        12 * g.layers + 6, d));  // 12 per block; embeddings, final LayerNorm, head

    // Many small Linear layers: launch-bound, so each skipped fill and add shows.
    const std::int64_t depth = gpu ? 64 : 16, width = gpu ? 256 : 64, mb = gpu ? 256 : 32, classes = 10;
    const auto features = seeded_randn({mb, width}, torch::TensorOptions().device(device), 12);
    const auto labels = torch::randint(0, classes, {mb}, torch::kLong).to(device);
    out.push_back(zero_grad_case(
        "mlp_depth" + std::to_string(depth) + "_w" + std::to_string(width) + "_b" + std::to_string(mb),
        {{"model", "mlp"}, {"batch", mb}, {"depth", depth}, {"width", width}, {"classes", classes}},
        [=] {
          torch::manual_seed(0);
          return make_net(gelu_mlp(depth, width, classes));
        },
        fixed_batch(features, labels),
        WorkUnits{0, 6.0 * mb * (depth * width * width + width * classes), static_cast<double>(mb), "samples"},
        2 * (depth + 1), d));
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(ZeroGrad);

}  // namespace
}  // namespace optbench::workloads
