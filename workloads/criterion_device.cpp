// Checklist #5, "Move loss and criterion to GPU: prevents CPU->GPU transfer
// during training" ("Small, ~1-3%"). Baseline: the model's output is copied to
// the host and cross-entropy is computed there against targets that stayed on
// the host; backward runs through the copy (the gradient goes back to the
// device). Optimized: targets resident on the device, the loss computed there.
// A classifier (small output) and a language model (large output), FP32.
#include <torch/torch.h>

#include "harness/compat/numerics_flags.h"
#include "harness/compat/zero_grad.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/transformer.h"
#include "workloads/training/optimizer_scope.h"
#include "workloads/training/train_step.h"

namespace optbench::workloads {
namespace {

class CriterionStep final : public Workload {
 public:
  // x on `device`; y_host on the host. loss_on_host: the baseline's placement.
  CriterionStep(NetFactory factory, torch::Tensor x, torch::Tensor y_host, const torch::Device& device,
                bool loss_on_host)
      : factory_(std::move(factory)), x_(std::move(x)), device_(device), loss_on_host_(loss_on_host) {
    // Labels arrive on the host with every batch: the device variant copies them
    // each step (pinned, non_blocking, as a DataLoader with pin_memory would).
    targets_ = y_host.flatten();
    if (!loss_on_host_ && device_.is_cuda()) targets_ = targets_.pin_memory();
    state_ = build(0.01, 0.9);
  }

  void step() override { run_step(state_); }

  // Losses of a few plain-SGD steps from fresh weights: the loss's placement
  // must not change training (untimed).
  at::Tensor output() override {
    if (!trace_.defined()) {
      State fresh = build(1e-3, 0.0);
      std::vector<torch::Tensor> losses;
      for (int i = 0; i < 3; ++i) losses.push_back(run_step(fresh).to(torch::kCPU, torch::kDouble));
      trace_ = torch::stack(losses);
    }
    return trace_;
  }

 private:
  struct State {
    Net net;
    std::unique_ptr<torch::optim::SGD> opt;
  };

  State build(double lr, double momentum) const {
    State s;
    s.net = factory_();
    s.net.module->to(device_);
    s.net.module->train();
    s.opt = std::make_unique<torch::optim::SGD>(s.net.module->parameters(),
                                                torch::optim::SGDOptions(lr).momentum(momentum));
    return s;
  }

  torch::Tensor run_step(State& s) const {
    compat::NumericsFlagsGuard flags(compat::strict_fp32());
    compat::zero_grad(*s.opt, /*set_to_none=*/true);
    auto logits = s.net.forward(x_).flatten(0, -2);
    // A blocking device-to-host copy; autograd copies the gradient back in
    // backward. copy=true: a real copy (and its backward) even when the
    // "device" is the CPU, as in the unit test.
    if (loss_on_host_) logits = logits.to(logits.options().device(torch::kCPU), /*non_blocking=*/false, /*copy=*/true);
    const auto targets = loss_on_host_ ? targets_ : targets_.to(device_, /*non_blocking=*/true);
    auto loss = torch::nn::functional::cross_entropy(logits, targets);
    loss.backward();
    scoped_step(*s.opt);
    return loss.detach();
  }

  NetFactory factory_;
  torch::Tensor x_, targets_;
  torch::Device device_;
  bool loss_on_host_;
  State state_;
  at::Tensor trace_;
};

class CriterionDevice final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"criterion_device",
            "Loss and criterion on the GPU vs on the host",
            "targets resident on the device and the loss computed there (criterion.to(device))",
            {"criterion_on_device"},
            "FP32 (TF32 off) training steps whose model runs on the GPU: the output copied to the host and "
            "cross-entropy computed on the CPU against host targets, backward through the copy (baseline), vs "
            "targets and loss on the device. A 1000-class MLP classifier (small output) and a GPT language model "
            "(output of batch x seq x vocab). The losses of 3 steps from the same fresh weights must match.",
            {DeviceKind::cuda}};
  }

  std::string unsupported_reason(const RunContext& ctx) const override {
    if (ctx.device != DeviceKind::cuda)
      return "on a CPU, host and device are the same memory: there is nothing to move";
    return Experiment::unsupported_reason(ctx);
  }

  // Also builds (tiny) cases for the CPU, so both placements can be unit-tested there.
  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const bool gpu = d == DeviceKind::cuda;
    const torch::Device device = torch_device(d);
    std::vector<Case> out;

    const std::int64_t batch = gpu ? 512 : 16, in = gpu ? 1024 : 32, hidden = gpu ? 4096 : 64, depth = gpu ? 4 : 2,
                       classes = 1000;
    const auto features = seeded_randn({batch, in}, torch::TensorOptions().device(device), 41);
    torch::manual_seed(42);
    const auto labels = torch::randint(0, classes, {batch}, torch::kLong);  // on the host
    const NetFactory mlp = [=] {
      torch::manual_seed(0);
      torch::nn::Sequential net;
      std::int64_t width = in;
      for (std::int64_t i = 0; i < depth; ++i, width = hidden) {
        net->push_back(torch::nn::Linear(width, hidden));
        net->push_back(torch::nn::GELU());
      }
      net->push_back(torch::nn::Linear(hidden, classes));
      return make_net(net);
    };
    const double mlp_params = static_cast<double>(in * hidden + (depth - 1) * hidden * hidden + hidden * classes);
    out.push_back(make_case("mlp_classifier_b" + std::to_string(batch) + "_c" + std::to_string(classes),
                            {{"model", "mlp"},
                             {"batch", batch},
                             {"in", in},
                             {"hidden", hidden},
                             {"depth", depth},
                             {"classes", classes},
                             {"output_bytes", batch * classes * 4}},
                            mlp, features, labels,
                            WorkUnits{0, 6.0 * mlp_params * batch, static_cast<double>(batch), "samples"}, d));

    const GptConfig g = gpu ? GptConfig{4, 512, 8, 256, 8192} : GptConfig{2, 32, 2, 16, 128};
    const std::int64_t gb = gpu ? 8 : 2;
    torch::manual_seed(43);
    const auto tokens = torch::randint(0, g.vocab, {gb, g.seq}, torch::kLong).to(device);
    const auto next = torch::randint(0, g.vocab, {gb, g.seq}, torch::kLong);  // on the host
    out.push_back(make_case(
        "gpt_l" + std::to_string(g.layers) + "_h" + std::to_string(g.hidden) + "_s" + std::to_string(g.seq) + "_v" +
            std::to_string(g.vocab),
        {{"model", "gpt"},
         {"batch", gb},
         {"layers", g.layers},
         {"hidden", g.hidden},
         {"seq", g.seq},
         {"vocab", g.vocab},
         {"output_bytes", gb * g.seq * g.vocab * 4}},
        [g] {
          torch::manual_seed(0);
          return make_net(Gpt(g));
        },
        tokens, next,
        WorkUnits{0, gpt_train_flops_per_token(g) * gb * g.seq, static_cast<double>(gb * g.seq), "tokens"}, d));
    return out;
  }

 private:
  static Case make_case(std::string name, nlohmann::json params, NetFactory factory, torch::Tensor x,
                        torch::Tensor y_host, WorkUnits units, DeviceKind d) {
    const torch::Device device = torch_device(d);
    auto variant = [&](std::string vname, std::string desc, bool on_host) {
      return Variant{std::move(vname), std::move(desc),
                     [=] { return std::make_unique<CriterionStep>(factory, x, y_host, device, on_host); }};
    };
    Case c;
    c.name = std::move(name);
    c.params = std::move(params);
    c.units = units;
    c.variants = {variant("criterion_on_host", "output copied to the host, loss on the CPU, targets on the host", true),
                  variant("criterion_on_device", "targets and loss on the device", false)};
    // Only the loss's reduction order differs (CPU vs GPU kernels).
    c.tolerance = Tolerance{1e-5, 1e-7};
    c.notes = {{"timing",
                "the baseline's device-to-host copy blocks the host; events bracket the whole step, GPU "
                "idle time included"}};
    return c;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(CriterionDevice);

}  // namespace
}  // namespace optbench::workloads
