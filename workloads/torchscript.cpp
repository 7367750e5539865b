// Checklist row 11, torch.jit.script / torch.jit.trace ("Moderate (~5-15%)",
// "optimizes graph and inlines ops", for static models). Inference of one
// ConvNet (Conv2d+BatchNorm+ReLU blocks, an MLP head) run eagerly by the C++
// frontend (baseline), as a TorchScript module, and as a TorchScript module
// after torch::jit::freeze + optimize_for_inference (BN folded into the conv,
// on CPU MKL-DNN layouts and fused conv+ReLU). In C++ there is no Python
// overhead for TorchScript to remove, so what is measured is the graph-level
// optimisation alone. One-time costs (compiling the script, freezing,
// optimising) are reported beside the speedups.
#include <ATen/record_function.h>
#include <torch/torch.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include "harness/compat/numerics_flags.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/convnet.h"
#include "workloads/models/convnet_script.h"

namespace optbench::workloads {
namespace {

enum class Mode { eager, scripted, frozen_optimized };

class ConvNetInference final : public Workload {
 public:
  ConvNetInference(const std::shared_ptr<SharedConvNet>& base, std::int64_t batch, const torch::Device& device,
                   Mode mode)
      : mode_(mode), eager_(clone_to(base->get(), device)) {
    const std::int64_t image = base->spec().image;
    x_ = seeded_randn({batch, 3, image, image}, torch::TensorOptions().device(device), 7);
    if (mode_ == Mode::eager) return;
    ScriptedConvNet s = script_convnet(eager_);
    metrics_["script_compile_s"] = s.compile_s;
    script_ = s.module;
    if (mode_ == Mode::frozen_optimized) {
      FreezeTimes t;
      script_ = freeze_and_optimize(s.module, &t);
      metrics_["freeze_s"] = t.freeze_s;
      metrics_["optimize_for_inference_s"] = t.optimize_s;
    }
    metrics_["forward_graph_ops"] = forward_op_counts(script_);
    scope_ = compiled_scope(script_);
    eager_ = ConvNet{nullptr, {}};  // the TorchScript variants hold only their own copy
  }

  void step() override {
    compat::NumericsFlagsGuard flags(compat::strict_fp32());
    torch::NoGradGuard no_grad;
    if (mode_ == Mode::eager) {
      out_ = eager_.net->forward(x_);
      return;
    }
    RECORD_USER_SCOPE(scope_.c_str());  // the graph's own time is compiled code, not idle
    out_ = script_.forward({x_}).toTensor();
  }

  at::Tensor output() override { return out_; }
  nlohmann::json metrics() override { return metrics_; }

 private:
  Mode mode_;
  ConvNet eager_;
  torch::jit::Module script_;
  std::string scope_;  // harness/profiling/scopes.h
  torch::Tensor x_, out_;
  nlohmann::json metrics_ = nlohmann::json::object();
};

class TorchScript final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{"torchscript",
            "TorchScript vs eager inference, and freeze + optimize_for_inference",
            "a TorchScript module (torch.jit.script), and one frozen with torch::jit::freeze + "
            "torch::jit::optimize_for_inference",
            {"torchscript"},
            "Inference of a ConvNet (Conv2d+BatchNorm+ReLU blocks, global pooling, an MLP head) under "
            "torch::NoGradGuard in every variant, fp32 with TF32 off: the C++ frontend module (baseline), the same "
            "network as a TorchScript module with copied weights (profiling executor, default fusers), and that "
            "module after torch::jit::freeze + optimize_for_inference (BatchNorm folded into the convolutions). "
            "Outputs must match the eager ones at fp32 tolerance. Script compile, freeze and optimise times are in "
            "each variant's metrics with the ops left in the forward graph; first_run_s includes the profiling "
            "run."};
    i.mechanism_counters = {"op_calls_per_step"};
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    ConvNetSpec spec;  // CPU: 32x32 images, 16-128 channels
    if (gpu) spec = ConvNetSpec{224, 32, 2, {64, 128, 256, 512}, 1024, 1000};
    auto base = std::make_shared<SharedConvNet>(spec, 0);
    const torch::Device device = torch_device(ctx.device);
    const std::vector<std::int64_t> batches = {gpu ? 128 : 8, 1};

    std::vector<Case> out;
    for (std::int64_t batch : batches) {
      // jit: the params word the report's claim keys on (the claim is script / trace, not freezing).
      auto variant = [&](std::string name, std::string desc, Mode m, const char* jit) {
        Variant v{std::move(name), std::move(desc),
                  [base, batch, device, m] { return std::make_unique<ConvNetInference>(base, batch, device, m); }};
        v.params = {{"jit", jit}};
        return v;
      };
      Case c;
      c.name = "convnet_b" + std::to_string(batch) + "_" + std::to_string(spec.image) + "px";
      c.params = {{"batch", batch}, {"model", to_json(spec)}, {"dtype", "float32"}};
      c.units = WorkUnits{0, convnet_forward_flops(spec) * static_cast<double>(batch), static_cast<double>(batch),
                          "images"};
      c.variants = {variant("eager", "C++ frontend torch::nn::Sequential", Mode::eager, "eager"),
                    variant("scripted", "torch::jit::Module with the same weights, TorchScript forward",
                            Mode::scripted, "script"),
                    variant("frozen_optimized", "scripted, then torch::jit::freeze + optimize_for_inference",
                            Mode::frozen_optimized, "frozen")};
      c.tolerance = convnet_tolerance(ctx.device);
      c.notes = {{"grad_mode", "torch::NoGradGuard in every variant"},
                 {"profiling_executor", torch::jit::getProfilingMode().load()},
                 {"tensorexpr_fuser", torch::jit::tensorExprFuserEnabled()},
                 {"mkldnn_available", at::hasMKLDNN()}};
      if (!gpu && batch == 1)
        c.notes["caveat"] =
            "ATen's CPU convolution sends one small image with 3x3 filters to its native kernels rather than "
            "MKL-DNN (use_mkldnn's 'native is faster' rule, read in LibTorch 1.13's source and not rechecked since), while optimize_for_inference converts "
            "to MKL-DNN regardless: on CPU this case mostly measures that choice";
      out.push_back(std::move(c));
    }
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(TorchScript);

}  // namespace
}  // namespace optbench::workloads
