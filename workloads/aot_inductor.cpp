// Checklist row 9, torch.compile(model) ("High (10-40%)" in PyTorch 2.x), in
// its C++ form: AOTInductor. The ConvNet is exported and compiled from Python
// (torch.export.export + torch._inductor.aoti_compile_and_package, Inductor's
// defaults) with the weights of the C++ model, and the .pt2 package is run from
// C++ by torch::inductor::AOTIModelPackageLoader, against the same model run
// eagerly by the C++ frontend. Compile time is a reported one-time cost.
// Needs a Python whose torch is this LibTorch's release; otherwise recorded as
// skipped with the reason.
#include <ATen/record_function.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>
#include <optional>

#include "harness/budget_plan.h"
#include "harness/compat/numerics_flags.h"
#include "harness/profiling/scopes.h"
#include "harness/registry.h"
#include "workloads/aoti/package.h"
#include "workloads/aoti/package_cache.h"
#include "workloads/common.h"
#include "workloads/models/convnet.h"

namespace optbench::workloads {
namespace {

// What stops the Python side on this machine, or "". Probed once: importing
// torch takes seconds.
const aoti::PythonTorch& python_torch() {
  static const aoti::PythonTorch torch_py = aoti::probe_python_torch(aoti::python_executable());
  return torch_py;
}

std::string python_torch_version() { return python_torch().version; }

std::string python_unavailable(DeviceKind device) {
  const std::string python = aoti::python_executable();
  const aoti::PythonTorch& torch_py = python_torch();
  if (torch_py.version.empty())
    return "AOTInductor compiles from Python, and " + python + " cannot import torch (" + torch_py.error +
           "); set OPTBENCH_PYTHON to the python whose torch provided this LibTorch";
  if (!aoti::same_release(torch_py.version, TORCH_VERSION))
    return "Python torch " + torch_py.version + " (" + python + ") is not this build's LibTorch " + TORCH_VERSION +
           ": a package must be compiled and run by the same release";
  if (device == DeviceKind::cuda && !torch_py.cuda)
    return "Python torch " + torch_py.version + " (" + python + ") sees no CUDA device";
  return "";
}

class EagerInference final : public Workload {
 public:
  EagerInference(const std::shared_ptr<SharedConvNet>& base, std::int64_t batch, const torch::Device& device)
      : net_(clone_to(base->get(), device)) {
    const std::int64_t image = base->spec().image;
    x_ = seeded_randn({batch, 3, image, image}, torch::TensorOptions().device(device), 7);
  }
  void step() override {
    compat::NumericsFlagsGuard flags(compat::strict_fp32());
    torch::NoGradGuard no_grad;
    out_ = net_.net->forward(x_);
  }
  at::Tensor output() override { return out_; }

 private:
  ConvNet net_;
  torch::Tensor x_, out_;
};

class AotiInference final : public Workload {
 public:
  AotiInference(std::shared_ptr<aoti::Package> pkg, std::int64_t batch, std::int64_t image, const torch::Device& device)
      : pkg_(std::move(pkg)) {
    const auto t0 = std::chrono::steady_clock::now();
#if TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 7  // 2.6's loader has no such argument
    // Single-threaded: the default pooled runner waits for the previous run to
    // finish on the GPU before it enqueues the next, which eager never does.
    loader_ = std::make_unique<torch::inductor::AOTIModelPackageLoader>(pkg_->path, "model",
                                                                        /*run_single_threaded=*/true);
#else
    loader_ = std::make_unique<torch::inductor::AOTIModelPackageLoader>(pkg_->path);
#endif
    load_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    inputs_.push_back(seeded_randn({batch, 3, image, image}, torch::TensorOptions().device(device), 7));
  }
  void step() override {
    compat::NumericsFlagsGuard flags(compat::strict_fp32());
    torch::NoGradGuard no_grad;
    // Runs on the current CUDA stream (the loader's default), where the harness times.
    RECORD_USER_SCOPE(profiling::kCompiledScope);  // its generated kernels are compiled code, not idle
    out_ = loader_->run(inputs_).at(0);
  }
  at::Tensor output() override { return out_; }
  nlohmann::json metrics() override { return {{"package_load_s", load_s_}}; }

 private:
  std::shared_ptr<aoti::Package> pkg_;  // keeps the package's files while loaded
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader_;
  std::vector<at::Tensor> inputs_;
  torch::Tensor out_;
  double load_s_ = 0;
};

class AotInductor final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "aot_inductor",
        "AOTInductor (torch.compile ahead of time) vs eager, from C++",
        "torch.export + torch._inductor.aoti_compile_and_package, run by AOTIModelPackageLoader",
        {"torch_compile"},
        "Inference of a ConvNet (Conv2d+BatchNorm+ReLU blocks, global pooling, an MLP head), fp32 with TF32 off, "
        "under torch::NoGradGuard: the C++ frontend module (baseline) vs an AOTInductor package compiled from "
        "Python with the same weights (Inductor defaults, static shapes) and run by "
        "torch::inductor::AOTIModelPackageLoader. Outputs must match the eager ones at fp32 tolerance. Export "
        "and cold compile times are in the case notes, package load time in the variant's metrics. Needs "
        "a Python with the same torch release as this LibTorch ($OPTBENCH_PYTHON, else the one the build was "
        "configured with)."};
    i.mechanism_counters = {"kernel_launches_per_step", "op_calls_per_step"};
    return i;
  }

  std::string unsupported_reason(const RunContext& ctx) const override {
    if (auto r = Experiment::unsupported_reason(ctx); !r.empty()) return r;
    return python_unavailable(ctx.device);
  }

  // Compiles (or finds in the cache) a package per case here: a compile the
  // budget refuses is the case's skip reason, a failed one the aot_inductor
  // variant's error; a cold compile's time is in the notes, with "cache": "miss"
  // when it happened in this run.
  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    ConvNetSpec spec;  // the torchscript experiment's model and sizes
    if (gpu) spec = ConvNetSpec{224, 32, 2, {64, 128, 256, 512}, 1024, 1000};
    auto base = std::make_shared<SharedConvNet>(spec, 0);
    const torch::Device device = torch_device(ctx.device);
    const std::vector<std::int64_t> batches = {gpu ? 128 : 8, 1};

    // The budget left when each compile starts: the first one's minutes are not the second's.
    const auto started = std::chrono::steady_clock::now();
    auto budget_left_s = [&]() -> std::optional<double> {
      if (!ctx.budget_left_s) return std::nullopt;
      return *ctx.budget_left_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    std::vector<Case> out;
    for (std::int64_t batch : batches) {
      Case c;
      c.name = "convnet_b" + std::to_string(batch) + "_" + std::to_string(spec.image) + "px";
      if (!keeps_case(c.name, ctx)) continue;
      c.params = {{"batch", batch}, {"model", to_json(spec)}, {"dtype", "float32"}};
      c.units =
          WorkUnits{0, convnet_forward_flops(spec) * static_cast<double>(batch), static_cast<double>(batch), "images"};
      c.variants.push_back(Variant{"eager", "C++ frontend torch::nn::Sequential", [base, batch, device] {
                                     return std::make_unique<EagerInference>(base, batch, device);
                                   }});
      c.tolerance = convnet_tolerance(ctx.device);
      const aoti::PackageKey key{{batch, 3, spec.image, spec.image},
                                 to_string(ctx.device),
                                 TORCH_VERSION,
                                 python_torch_version(),
                                 device_name(ctx.device)};
      auto pkg = std::make_shared<aoti::Package>(
          aoti::cached_package(aoti::cache_root(), aoti::python_executable(), base->get(), key, budget_left_s()));
      if (is_budget_reason(pkg->error)) {
        c.skip_reason = pkg->error;
      } else if (!pkg->error.empty()) {
        // Not a skip: torch is there (unsupported_reason checked it) and could not
        // compile, a failure on this machine, recorded as the variant's error.
        const std::string why = "AOTInductor compilation failed: " + pkg->error;
        c.variants.push_back(Variant{"aot_inductor", "AOTInductor package (its compile failed)",
                                     [why]() -> std::unique_ptr<Workload> { throw std::runtime_error(why); }});
      } else {
        c.notes = pkg->info;
        c.notes["grad_mode"] = "torch::NoGradGuard in both variants";
        c.notes["python"] = aoti::python_executable();
        c.notes["inductor_configs"] = "defaults (torch.compile's default mode), static shapes";
        const std::int64_t image = spec.image;
        c.variants.push_back(Variant{
            "aot_inductor", "AOTInductor package, AOTIModelPackageLoader::run",
            [pkg, batch, image, device] { return std::make_unique<AotiInference>(pkg, batch, image, device); }});
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  // One compile, not two, in quick runs: the larger batch's case.
  bool keeps_case(const std::string& name, const RunContext& ctx) const override {
    return ctx.profile != RunProfile::quick || name.rfind("convnet_b1_", 0) != 0;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(AotInductor);

}  // namespace
}  // namespace optbench::workloads
