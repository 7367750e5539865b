// Checklist row 11, torch.jit.script / torch.jit.trace ("Moderate (~5-15%)",
// "optimizes graph and inlines ops", for static models). Inference of one
// ConvNet (Conv2d+BatchNorm+ReLU blocks, an MLP head) run eagerly by the C++
// frontend (baseline), as a TorchScript module, and as a TorchScript module
// after torch::jit::freeze + optimize_for_inference (BN folded into the conv,
// on CPU MKL-DNN layouts and fused conv+ReLU). In C++ there is no Python
// overhead for TorchScript to remove, so what is measured is the graph-level
// optimisation alone. One-time costs (compiling the script, freezing,
// optimising) are reported beside the speedups.
// The claim is about Python users, whose gain from scripting is largely the
// interpreter overhead a C++ module never had: beside each C++ case its Python
// twin (workloads/python/twin_convnet.py), the same network and sizes run by
// the build's Python as a Python user runs them: eager, torch.jit.script,
// torch.jit.trace, and scripted + frozen + optimize_for_inference.
#include <ATen/record_function.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/torch.h>

#include "harness/build_info.h"
#include "harness/compat/numerics_flags.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/convnet.h"
#include "workloads/models/convnet_script.h"
#include "workloads/python/python_twin.h"

namespace optbench::workloads {
namespace {

enum class Mode { eager, scripted, frozen_optimized };

constexpr std::uint64_t kWeightSeed = 0, kInputSeed = 7;  // the C++ variants' and the twin's

class ConvNetInference final : public Workload {
 public:
  ConvNetInference(const std::shared_ptr<SharedConvNet>& base, std::int64_t batch, const torch::Device& device,
                   Mode mode)
      : mode_(mode), eager_(clone_to(base->get(), device)) {
    const std::int64_t image = base->spec().image;
    x_ = seeded_randn({batch, 3, image, image}, torch::TensorOptions().device(device), kInputSeed);
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

// The Python twin of one case: the layer list and sizes are sent from here
// (twin_convnet.py keeps no copy of them); the weights are seeded there.
Case python_twin_case(const std::shared_ptr<SharedConvNet>& base, std::int64_t batch, DeviceKind d) {
  const ConvNetSpec& spec = base->spec();
  // Calls of the forward per request: the pipe's round trip (~10 us on the CI
  // VM, recorded as pipe_round_trip_us) against >= ~4 ms of work per request
  // there (a 32 px forward in Python: ~0.5 ms at batch 1, ~1-2 ms at batch 8),
  // so under 0.5% of a sample; a GPU's batch of 128 at 224 px is tens of ms alone.
  const int inner = batch == 1 ? 10 : (d == DeviceKind::cuda ? 1 : 4);
  Case c;
  c.name = "python_convnet_b" + std::to_string(batch) + "_" + std::to_string(spec.image) + "px";
  c.params = {{"batch", batch}, {"model", to_json(spec)}, {"dtype", "float32"}, {"forwards_per_step", inner}};
  c.units = WorkUnits{0, convnet_forward_flops(spec) * static_cast<double>(batch * inner),
                      static_cast<double>(batch * inner), "images"};
  c.timing = TimingMode::sync;  // another process's work: the host clock brackets each request
  // The first twin of a process waits for the zygote's Python to import torch
  // (2-3 s on the CI-like VM; twin_zygote.h), later ones for a fork and the
  // net's scripting or tracing.
  c.setup_s = 3.0;
  const std::string py = python_executable();
  const std::string device = torch_device(d).str();
  auto variant = [&](std::string name, std::string desc, const char* jit) {
    Variant v{std::move(name), std::move(desc), [base, batch, device, inner, jit, py] {
                nlohmann::json layers = nlohmann::json::array();
                for (const LayerSpec& l : base->get().layers) layers.push_back(to_json(l));
                return std::make_unique<PythonTwin>(py, nlohmann::json{{"family", "convnet_inference"},
                                                                       {"inner_steps", inner},
                                                                       {"device", device},
                                                                       {"layers", layers},
                                                                       {"batch", batch},
                                                                       {"image", base->spec().image},
                                                                       {"seed", kWeightSeed},
                                                                       {"input_seed", kInputSeed},
                                                                       {"jit", jit}});
              }};
    v.params = {{"jit", jit}, {"runtime", "python"}};
    v.runs_elsewhere = kRunsInPythonTwin;
    return v;
  };
  c.variants = {variant("python_eager", "torch.nn.Sequential called from Python under torch.no_grad()", "eager"),
                variant("python_script", "torch.jit.script of the same module", "script"),
                variant("python_trace", "torch.jit.trace of the same module on the case's input", "trace"),
                variant("python_frozen", "torch.jit.script, then torch.jit.freeze + optimize_for_inference", "frozen")};
  c.tolerance = convnet_tolerance(d);
  c.notes = {{"runtime",
              "the build's Python (optbench::python_executable()), one process per variant driven "
              "over a pipe (workloads/python/step_server.py); its torch version is in each variant's "
              "metrics"},
             {"sample", "one step = " + std::to_string(inner) + " forwards, called one after another in Python"},
             {"weights",
              "seeded in Python as make_convnet seeds them in C++, not copied: the twin's variants are "
              "verified against the twin's eager output"}};
  return c;
}

class TorchScript final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "torchscript",
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
        "run. Beside each case its Python twin: the same network and sizes in the build's Python, eager vs "
        "torch.jit.script vs torch.jit.trace (and frozen), where the claim's Python users are."};
    i.mechanism_counters = {"op_calls_per_step"};
    i.quick_leaves_out =
        "the Python twin of the larger batch (each Python variant starts an interpreter that "
        "imports torch, ~1.5 s): the batch-1 twin, where interpreter overhead weighs most, runs";
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    ConvNetSpec spec;  // CPU: 32x32 images, 16-128 channels
    if (gpu) spec = ConvNetSpec{224, 32, 2, {64, 128, 256, 512}, 1024, 1000};
    auto base = std::make_shared<SharedConvNet>(spec, kWeightSeed);
    const torch::Device device = torch_device(ctx.device);
    const std::vector<std::int64_t> batches = {gpu ? 128 : 8, 1};

    std::vector<Case> out;
    for (std::int64_t batch : batches) {
      // jit: the params word the report's claim keys on (the claim is script / trace, not freezing).
      auto variant = [&](std::string name, std::string desc, Mode m, const char* jit) {
        Variant v{std::move(name), std::move(desc),
                  [base, batch, device, m] { return std::make_unique<ConvNetInference>(base, batch, device, m); }};
        v.params = {{"jit", jit}, {"runtime", "cpp"}};
        return v;
      };
      Case c;
      c.name = "convnet_b" + std::to_string(batch) + "_" + std::to_string(spec.image) + "px";
      c.params = {{"batch", batch}, {"model", to_json(spec)}, {"dtype", "float32"}};
      c.units =
          WorkUnits{0, convnet_forward_flops(spec) * static_cast<double>(batch), static_cast<double>(batch), "images"};
      c.variants = {variant("eager", "C++ frontend torch::nn::Sequential", Mode::eager, "eager"),
                    variant("scripted", "torch::jit::Module with the same weights, TorchScript forward", Mode::scripted,
                            "script"),
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
            "MKL-DNN (use_mkldnn's 'native is faster' rule, read in LibTorch 1.13's source and not rechecked "
            "since), while optimize_for_inference converts to MKL-DNN regardless: on CPU this case mostly measures "
            "that choice";
      out.push_back(std::move(c));
    }
    for (std::int64_t batch : batches)
      if (Case twin = python_twin_case(base, batch, ctx.device); keeps_case(twin.name, ctx))
        out.push_back(std::move(twin));
    return out;
  }

  // Quick runs one Python twin, of batch 1.
  bool keeps_case(const std::string& name, const RunContext& ctx) const override {
    return ctx.profile != RunProfile::quick || name.rfind("python_", 0) != 0 ||
           name.rfind("python_convnet_b1_", 0) == 0;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(TorchScript);

}  // namespace
}  // namespace optbench::workloads
