#include "workloads/training/optimizer_cases.h"

#include "harness/build_info.h"
#include "workloads/common.h"
#include "workloads/models/mlp.h"
#include "workloads/python/python_twin.h"

namespace optbench::workloads {
namespace {

constexpr int kCheckSteps = 5;
// Per parameter element AdamW reads the parameter, its gradient and both
// moments and writes the parameter and both moments: 7 float32 accesses.
constexpr double kBytesPerElement = 7 * 4;

// One AdamW step of `impl` per step(): alone on fixed gradients, or after the
// model's forward and backward on a fixed batch.
class OptimizerStep final : public Workload {
 public:
  OptimizerStep(OptimizerModel m, AdamWImpl impl, AdamWConfig cfg, torch::Device device, bool train)
      : m_(std::move(m)), impl_(impl), cfg_(cfg), device_(device), train_(train) {
    reset();
  }

  void step() override {
    if (train_) {
      for (auto& p : net_->parameters()) p.mutable_grad() = at::Tensor();  // set_to_none
      torch::nn::functional::cross_entropy(net_->forward(x_), y_).backward();
    }
    opt_->step();
  }

  // The parameters after kCheckSteps steps from the same start (untimed).
  at::Tensor output() override {
    reset();
    for (int i = 0; i < kCheckSteps; ++i) step();
    std::vector<at::Tensor> flat;
    for (const auto& p : net_->parameters()) flat.push_back(p.detach().flatten().to(torch::kCPU, torch::kDouble));
    reset();
    return torch::cat(flat);
  }

 private:
  void reset() {
    net_ = m_.build();
    net_->to(device_);
    std::vector<at::Tensor> params = net_->parameters();
    torch::manual_seed(1);
    if (train_) {
      x_ = torch::randn({m_.batch, m_.in}).to(device_);
      y_ = torch::randint(0, m_.classes, {m_.batch}, torch::kLong).to(device_);
    } else {
      for (auto& p : params) p.mutable_grad() = torch::randn(p.sizes()).to(device_);
    }
    opt_ = std::make_unique<AdamWStep>(params, cfg_, impl_);
  }

  OptimizerModel m_;
  AdamWImpl impl_;
  AdamWConfig cfg_;
  torch::Device device_;
  bool train_;
  torch::nn::Sequential net_{nullptr};
  std::unique_ptr<AdamWStep> opt_;
  at::Tensor x_, y_;
};

}  // namespace

OptimizerModel optimizer_mlp(std::int64_t depth, std::int64_t width, std::int64_t batch) {
  return {"mlp_depth" + std::to_string(depth) + "_w" + std::to_string(width),
          [=] {
            torch::manual_seed(0);
            return gelu_mlp(depth, width, 10);
          },
          batch, width, 10};
}

// Two large tensors: the whole update is streaming memory in every version.
OptimizerModel optimizer_two_large(std::int64_t side) {
  return {"two_linear_" + std::to_string(side) + "x" + std::to_string(side),
          [=] {
            torch::manual_seed(0);
            return torch::nn::Sequential(torch::nn::Linear(torch::nn::LinearOptions(side, side).bias(false)),
                                         torch::nn::Linear(torch::nn::LinearOptions(side, side).bias(false)));
          },
          0, side, side};
}

namespace {

// The three implementations each optimizer case compares, the loop first (its baseline).
constexpr AdamWImpl kImpls[] = {AdamWImpl::per_tensor, AdamWImpl::foreach, AdamWImpl::fused};

std::int64_t elements(const OptimizerModel& m) {
  std::int64_t n = 0;
  for (const auto& p : m.build()->parameters()) n += p.numel();
  return n;
}

}  // namespace

Case fused_optimizer_case(const OptimizerModel& m, bool train, DeviceKind d, const std::vector<AdamWConfig>& cfgs) {
  const torch::Device device = torch_device(d);
  Case c;
  const auto tensors = static_cast<std::int64_t>(m.build()->parameters().size());
  const std::int64_t n = elements(m);
  c.name = (train ? "train_step_" : "optimizer_step_") + m.name;
  c.params = {{"model", m.name},
              {"parameter_tensors", tensors},
              {"parameter_elements", n},
              {"mode", train ? "training step (forward, backward, AdamW)" : "AdamW step alone"}};
  if (train) c.params["batch"] = m.batch;
  // Alone: bytes the update streams, so the report shows GB/s against the memory.
  c.units = train ? WorkUnits{0, 0, static_cast<double>(m.batch), "samples"}
                  : WorkUnits{kBytesPerElement * static_cast<double>(n), 0, static_cast<double>(n), "parameters"};
  const char* desc[] = {"torch::optim::AdamW: a loop over parameters, several kernels per tensor",
                        "multi-tensor _foreach_ ops: one call per op over every tensor",
                        "at::_fused_adamw_: one kernel for the whole update"};
  for (std::size_t i = 0; i < 3; ++i) {
    const AdamWConfig cfg = cfgs.at(std::min(i, cfgs.size() - 1));
    const AdamWImpl impl = kImpls[i];
    Variant v{to_string(impl), desc[i], [=] { return std::make_unique<OptimizerStep>(m, impl, cfg, device, train); }};
    v.params = {{"implementation", to_string(impl)}, {"runtime", "cpp"}};
    c.variants.push_back(std::move(v));
  }
  // Reordered float32 arithmetic (lerp against mul + add) over 5 steps.
  c.tolerance = Tolerance{1e-5, 1e-6};
  c.notes = {{"verification",
              "parameters after 5 AdamW steps from the same weights and gradients, rtol 1e-5, "
              "atol 1e-6, against the per-tensor loop"},
             {"bytes",
              "alone: 28 bytes per parameter element (parameter, gradient and two moments read; "
              "parameter and moments written)"}};
  return c;
}

Case python_optimizer_case(const OptimizerModel& m, DeviceKind d, const std::vector<AdamWConfig>& cfgs,
                           int inner_steps) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& p : m.build()->parameters()) shapes.push_back(p.sizes().vec());
  const std::int64_t n = elements(m);
  Case c;
  c.name = "python_optimizer_step_" + m.name;
  c.params = {{"model", m.name},
              {"parameter_tensors", shapes.size()},
              {"parameter_elements", n},
              {"mode", "AdamW step alone"},
              {"optimizer_steps_per_step", inner_steps}};
  const double per_request = static_cast<double>(n * inner_steps);
  c.units = WorkUnits{kBytesPerElement * per_request, 0, per_request, "parameters"};
  c.timing = TimingMode::sync;  // another process's work: the host clock brackets each request
  // The first twin of a process waits for the zygote's Python to import torch
  // (2-3 s on the CI-like VM; twin_zygote.h), later ones for a fork and their
  // build. A floor: the budget gate takes what an earlier case in the process
  // measured where that is more.
  c.setup_s = 3.0;
  const std::string py = python_executable();
  const std::string device = torch_device(d).str();
  const char* desc[] = {"torch.optim.AdamW(foreach=False): the Python loop over parameters",
                        "torch.optim.AdamW(foreach=True): multi-tensor _foreach_ ops",
                        "torch.optim.AdamW(fused=True): one _fused_adamw_ call"};
  for (std::size_t i = 0; i < 3; ++i) {
    const AdamWConfig cfg = cfgs.at(std::min(i, cfgs.size() - 1));
    const nlohmann::json spec = {{"family", "adamw_step"},
                                 {"inner_steps", inner_steps},
                                 {"device", device},
                                 {"shapes", shapes},
                                 {"impl", to_string(kImpls[i])},
                                 {"lr", cfg.lr},
                                 {"beta1", cfg.beta1},
                                 {"beta2", cfg.beta2},
                                 {"eps", cfg.eps},
                                 {"weight_decay", cfg.weight_decay},
                                 {"check_steps", kCheckSteps}};
    Variant v{std::string("python_") + to_string(kImpls[i]), desc[i],
              [py, spec] { return std::make_unique<PythonTwin>(py, spec); }};
    v.params = {{"implementation", to_string(kImpls[i])}, {"runtime", "python"}};
    v.runs_elsewhere = kRunsInPythonTwin;
    c.variants.push_back(std::move(v));
  }
  c.tolerance = Tolerance{1e-5, 1e-6};  // as the C++ case: reordered float32 arithmetic over 5 steps
  c.notes = {{"runtime",
              "the build's Python (optbench::python_executable()), one process per variant driven over a "
              "pipe (workloads/python/step_server.py); its torch version is in each variant's metrics"},
             {"sample", "one step = " + std::to_string(inner_steps) +
                            " optimizer steps, called one after another in "
                            "Python"},
             {"verification",
              "parameters after 5 AdamW steps from the same seeded weights and gradients (seeded in "
              "Python), rtol 1e-5, atol 1e-6, against the twin's foreach=False loop"}};
  return c;
}

}  // namespace optbench::workloads
